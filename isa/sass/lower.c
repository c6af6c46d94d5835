/* A SASS function as the timing machine sees it: one instruction of the synthetic ISA per SASS
 * instruction (its memory space and kind of access, or the unit it runs on), and the register
 * slots each reads and writes (IsaDeps), registers, uniform registers and predicates numbered
 * densely for the scoreboard.  What the instructions compute is sim/exec/. */
#include "sass.h"

#include <string.h>

#include "../stream.h"

#define LOWER_ERROR g_quark_from_static_string("sass-lower-error")

static gboolean
is_load(SassOp op)
{
  return op == SASS_OP_LDG || op == SASS_OP_LD || op == SASS_OP_LDS || op == SASS_OP_LDL ||
         op == SASS_OP_ATOMS || op == SASS_OP_ATOMG || op == SASS_OP_ATOM;
}

static gboolean
is_store(SassOp op)
{
  return op == SASS_OP_STG || op == SASS_OP_ST || op == SASS_OP_STS || op == SASS_OP_STL ||
         op == SASS_OP_RED || op == SASS_OP_REDG;
}

/* how many operands at the front are results */
static guint
n_results(const SassInsn *in)
{
  SassOp op = (SassOp)in->op;
  if (in->n_operands == 0 || is_store(op) || sass_op_lowered(op) == ISA_OP_NOP ||
      op == SASS_OP_BAR || op == SASS_OP_DEPBAR || op == SASS_OP_LDGDEPBAR || op == SASS_OP_LDGSTS)
    return 0;
  switch (op) {
  case SASS_OP_ISETP:
  case SASS_OP_UISETP:
  case SASS_OP_FSETP:
  case SASS_OP_DSETP:
  case SASS_OP_HSETP2:
  case SASS_OP_PLOP3:
    return 2;
  case SASS_OP_VOTE:
  case SASS_OP_VOTEU:
    return in->n_operands - 1u;
  default:
    break;
  }
  guint n = 1;
  gboolean pred0 = in->opd[0].kind == SASS_OPD_PRED || in->opd[0].kind == SASS_OPD_UPRED;
  if (pred0 && in->n_operands > 1 && in->opd[1].kind != SASS_OPD_PRED) /* LOP3 P, R; SHFL */
    return 2;
  while (n < in->n_operands &&
         (in->opd[n].kind == SASS_OPD_PRED || in->opd[n].kind == SASS_OPD_UPRED) &&
         n + 1 < in->n_operands && in->opd[n + 1].kind != SASS_OPD_PRED)
    n++; /* carry outs: IADD3 R, P0, P1, a, b, c */
  return n;
}

/* registers a register operand spans (pairs for 64-bit values, four for 128-bit accesses) */
static guint
width(const SassInsn *in, guint i, gboolean result)
{
  SassOp op = (SassOp)in->op;
  switch (op) {
  case SASS_OP_DADD:
  case SASS_OP_DMUL:
  case SASS_OP_DFMA:
    return 2;
  case SASS_OP_DSETP:
    return result ? 1 : 2;
  case SASS_OP_F2F: {
    gboolean widens = sass_first_mod(in, SASS_MOD_F64, SASS_MOD_F32) == SASS_MOD_F64;
    if (!sass_has(in, SASS_MOD_F64))
      return 1;
    return result == widens ? 2 : 1;
  }
  case SASS_OP_I2F:
    return result ? (sass_has(in, SASS_MOD_F64) ? 2 : 1)
                  : (sass_has(in, SASS_MOD_S64) || sass_has(in, SASS_MOD_U64) ? 2 : 1);
  case SASS_OP_F2I:
    return result ? (sass_has(in, SASS_MOD_S64) || sass_has(in, SASS_MOD_U64) ? 2 : 1)
                  : (sass_has(in, SASS_MOD_F64) ? 2 : 1);
  case SASS_OP_FRND:
    return sass_has(in, SASS_MOD_F64) ? 2 : 1;
  case SASS_OP_IMAD:
  case SASS_OP_UIMAD:
    if (result)
      return sass_has(in, SASS_MOD_WIDE) ? 2 : 1;
    /* the addend of .WIDE and .HI is a pair: the last register source */
    return (sass_has(in, SASS_MOD_WIDE) || sass_has(in, SASS_MOD_HI)) && i + 1 < in->n_operands &&
                   in->opd[i + 1].kind == SASS_OPD_PRED
               ? 2
           : (sass_has(in, SASS_MOD_WIDE) || sass_has(in, SASS_MOD_HI)) && i + 1 == in->n_operands
               ? 2
               : 1;
  case SASS_OP_LDC:
  case SASS_OP_ULDC:
    return result && sass_has(in, SASS_MOD_B64) ? 2 : 1;
  case SASS_OP_CS2R:
    return result && !sass_has(in, SASS_MOD_B32) ? 2 : 1;
  case SASS_OP_MATCH:
    return !result && sass_has(in, SASS_MOD_U64) ? 2 : 1;
  default:
    break;
  }
  if (is_load((SassOp)in->op) && result) {
    guint b = sass_access_bytes(in);
    return b > 4 ? b / 4 : 1;
  }
  if (is_store((SassOp)in->op) && !result && in->opd[i].kind == SASS_OPD_REG) {
    guint b = sass_access_bytes(in);
    return b > 4 ? b / 4 : 1;
  }
  return 1;
}

typedef struct {
  guint8 r[256], ur[64], p[8], up[8]; /* slot + 1, 0: none yet */
  GPtrArray *names;
  gboolean full;
} Slots;

static guint8
slot(Slots *s, guint8 *map, guint reg, const char *prefix)
{
  if (map[reg])
    return (guint8)(map[reg] - 1);
  if (s->names->len >= ISA_MAX_REGS) {
    s->full = TRUE;
    return 0;
  }
  g_ptr_array_add(s->names, g_strdup_printf("%s%u", prefix, reg));
  map[reg] = (guint8)s->names->len;
  return (guint8)(s->names->len - 1);
}

/* appends the slots of register operand @o spanning @n registers */
static void
add(Slots *s, guint8 *list, guint8 *count, guint max, const SassOperand *o, guint n,
    gboolean *overflow)
{
  for (guint k = 0; k < n; k++) {
    guint8 sl;
    if (o->kind == SASS_OPD_REG && o->reg != SASS_RZ && o->reg + k < SASS_RZ)
      sl = slot(s, s->r, o->reg + k, "R");
    else if (o->kind == SASS_OPD_UREG && o->reg != SASS_URZ && o->reg + k < SASS_URZ)
      sl = slot(s, s->ur, o->reg + k, "UR");
    else if (o->kind == SASS_OPD_PRED && o->reg != SASS_PT && k == 0)
      sl = slot(s, s->p, o->reg, "P");
    else if (o->kind == SASS_OPD_UPRED && o->reg != SASS_PT && k == 0)
      sl = slot(s, s->up, o->reg, "UP");
    else
      continue;
    if (*count == max) {
      *overflow = TRUE;
      return;
    }
    list[(*count)++] = sl;
  }
}

static void
add_reg(Slots *s, IsaDeps *d, guint8 kind, guint8 reg, guint n, gboolean *overflow)
{
  SassOperand o = {.kind = kind, .reg = reg};
  add(s, d->src, &d->n_src, ISA_DEPS_MAX_SRC, &o, n, overflow);
}

IsaProgram *
sass_lower(const SassFunction *fn, const char *path, GError **error)
{
  g_autoptr(IsaProgram) prog = g_new0(IsaProgram, 1);
  prog->n_insns = fn->n_insns;
  prog->insns = g_new0(IsaInsn, MAX(fn->n_insns, 1u));
  prog->deps = g_new0(IsaDeps, MAX(fn->n_insns, 1u));
  Slots s = {.names = g_ptr_array_new()};
  for (guint i = 0; i < fn->n_insns; i++) {
    const SassInsn *in = &fn->insns[i];
    IsaInsn *x = &prog->insns[i];
    IsaDeps *d = &prog->deps[i];
    gboolean overflow = FALSE;
    x->kind = ISA_INSN_OP;
    x->op = (guint8)sass_op_lowered((SassOp)in->op);
    if (x->op == ISA_OP_MEMBAR && sass_has(in, SASS_MOD_CTA))
      x->op = ISA_OP_NOP; /* a fence within the block: nothing leaves the SM for it */
    x->line = in->line;
    x->dst = ISA_NO_REG;
    x->pattern = ISA_PATTERN_COALESCED;
    const IsaOpInfo *info = isa_op_info((IsaOp)x->op);
    if (info->space != ISA_SPACE_NONE)
      x->width = (guint8)sass_access_bytes(in);
    if (x->op == ISA_OP_DEPBAR && in->n_operands > 1 && in->opd[1].kind == SASS_OPD_IMM)
      x->groups = (guint32)MIN(in->opd[1].value, (gint64)ISA_MAX_DEPBAR);
    if (in->guard != SASS_PT)
      add_reg(&s, d, in->guard_uniform ? SASS_OPD_UPRED : SASS_OPD_PRED, in->guard, 1, &overflow);
    guint results = n_results(in);
    for (guint k = 0; k < in->n_operands; k++) {
      const SassOperand *o = &in->opd[k];
      if (o->kind == SASS_OPD_MEM) {
        if (o->reg != SASS_RZ)
          add_reg(&s, d, SASS_OPD_REG, o->reg, (o->flags & SASS_F_WIDE) ? 2 : 1, &overflow);
        if (o->ureg != SASS_URZ)
          add_reg(&s, d, SASS_OPD_UREG, o->ureg, 1, &overflow);
      } else if (o->kind == SASS_OPD_CONST) {
        if (o->reg != SASS_RZ)
          add_reg(&s, d, SASS_OPD_REG, o->reg, 1, &overflow);
      } else if (k < results) {
        add(&s, d->dst, &d->n_dst, ISA_DEPS_MAX_DST, o, width(in, k, TRUE), &overflow);
      } else {
        add(&s, d->src, &d->n_src, ISA_DEPS_MAX_SRC, o, width(in, k, FALSE), &overflow);
      }
    }
    if (overflow) {
      g_ptr_array_free(s.names, TRUE);
      g_set_error(error, LOWER_ERROR, 1,
                  "%s:%u: an instruction with more operands than the "
                  "scoreboard tracks",
                  path, in->line);
      return NULL;
    }
    if (d->n_dst > 0)
      x->dst = d->dst[0];
    x->nsrc = (guint8)MIN(d->n_src, 3u);
    for (guint k = 0; k < x->nsrc; k++)
      x->src[k] = d->src[k];
    prog->dynamic_count++;
  }
  if (s.full) {
    g_ptr_array_free(s.names, TRUE);
    g_set_error(error, LOWER_ERROR, 1,
                "%s: %s names more than %u registers, uniform registers and predicates together",
                path, fn->name, ISA_MAX_REGS);
    return NULL;
  }
  prog->n_regs = s.names->len;
  g_ptr_array_add(s.names, NULL);
  prog->reg_names = (char **)g_ptr_array_free(s.names, FALSE);
  prog->levels = g_new0(char *, 2);
  prog->levels[0] = g_strdup("dram");
  prog->n_levels = 1;
  return g_steal_pointer(&prog);
}
