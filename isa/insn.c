/* One instruction: its mnemonic (with an access width), guard, operands and attributes.  Not
 * statements around it (asm.c) nor branch targets and reconvergence (flow.c). */
#include <math.h>
#include <stdlib.h>

#include "asm-internal.h"

static gboolean
parse_register(Asm *a, guint8 *slot)
{
  Tok *t = asm_next(a);
  char *name = NULL;
  if (t->kind == TOK_IDENT && (strcmp(t->text, "RZ") == 0 || strcmp(t->text, "PT") == 0)) {
    *slot = ISA_NO_REG;
    return TRUE;
  }
  if (t->kind == TOK_IDENT && t->text[0] == 'P' && t->text[1] >= '0' && t->text[1] <= '6' &&
      t->text[2] == '\0') {
    name = g_strdup(t->text); /* predicate registers P0..P6 */
  } else if (t->kind == TOK_IDENT && strcmp(t->text, "R") == 0 && asm_is_punct(asm_peek(a), "{") &&
             asm_peek(a)->glued) {
    asm_next(a);
    guint64 n;
    if (!asm_parse_whole(a, "register number", ISA_MAX_REGS - 1, &n) || !asm_expect(a, "}"))
      return FALSE;
    name = g_strdup_printf("R%" G_GUINT64_FORMAT, n);
  } else if (t->kind == TOK_IDENT && t->text[0] == 'R' && t->text[1] != '\0') {
    char *end;
    guint64 n = g_ascii_strtoull(t->text + 1, &end, 10);
    if (*end != '\0' || !g_ascii_isdigit(t->text[1]))
      return asm_fail_at(a, t, "'%s' is not a register (R0..R%u, RZ, P0..P6 or PT)", t->text,
                         ISA_MAX_REGS - 1);
    if (n >= ISA_MAX_REGS)
      return asm_fail_at(a, t, "register %s out of range (R0..R%u)", t->text, ISA_MAX_REGS - 1);
    name = g_strdup_printf("R%" G_GUINT64_FORMAT, n);
  } else {
    return asm_fail_at(a, t, "expected a register, found '%s'", t->text);
  }
  for (guint i = 0; i < a->reg_names->len; i++) {
    if (strcmp(g_ptr_array_index(a->reg_names, i), name) == 0) {
      g_free(name);
      *slot = (guint8)i;
      return TRUE;
    }
  }
  if (a->reg_names->len >= ISA_MAX_REGS) {
    g_free(name);
    return asm_fail_at(a, t, "too many registers (at most %u)", ISA_MAX_REGS);
  }
  g_ptr_array_add(a->reg_names, name);
  *slot = (guint8)(a->reg_names->len - 1);
  return TRUE;
}

/* A source operand: register or immediate (immediates are always ready: no slot). */
static gboolean
parse_source(Asm *a, IsaInsn *insn)
{
  Tok *t = asm_peek(a);
  if (t->kind == TOK_NUMBER || t->kind == TOK_PARAM || asm_is_punct(t, "-") ||
      asm_is_punct(t, "(")) {
    Value v;
    return asm_parse_expr(a, &v) && asm_need_num(a, t, &v);
  }
  guint8 slot;
  if (!parse_register(a, &slot))
    return FALSE;
  if (t->kind == TOK_IDENT && t->text[0] == 'P' && slot != ISA_NO_REG &&
      !asm_flow_use_pred(a, t, t->text))
    return FALSE;
  if (slot != ISA_NO_REG)
    insn->src[insn->nsrc++] = slot;
  return TRUE;
}

/* "Bn": a convergence barrier register. */
static gboolean
parse_barrier(Asm *a, guint *barrier)
{
  Tok *t = asm_next(a);
  char *end = NULL;
  guint64 n = t->kind == TOK_IDENT && t->text[0] == 'B' && g_ascii_isdigit(t->text[1])
                  ? g_ascii_strtoull(t->text + 1, &end, 10)
                  : 0;
  if (end == NULL || *end != '\0' || n >= ISA_MAX_BARRIERS)
    return asm_fail_at(a, t, "expected a convergence barrier B0..B%u, found '%s'",
                       ISA_MAX_BARRIERS - 1, t->text);
  *barrier = (guint)n;
  return TRUE;
}

static gboolean
parse_label_operand(Asm *a, Tok **label)
{
  *label = asm_next(a);
  if ((*label)->kind != TOK_IDENT)
    return asm_fail_at(a, *label, "expected a label, found '%s'", (*label)->text);
  return TRUE;
}

/* ISETP's sources: two registers (a comparison of data smsim does not track), a lane
 * expression over $lane (evaluated for lanes 0..31 here), or chance(EXPR). */
static gboolean
parse_setp_sources(Asm *a, IsaInsn *insn)
{
  Tok *t = asm_peek(a);
  Tok *next = &g_array_index(a->toks, Tok, a->pos + 1);
  if (asm_is_word(t, "chance") && asm_is_punct(next, "(")) {
    asm_next(a);
    Tok *at = asm_peek(a);
    Value p;
    if (!asm_parse_expr(a, &p) || !asm_need_num(a, at, &p))
      return FALSE;
    if (!(p.num >= 0 && p.num <= 1))
      return asm_fail_at(a, at, "chance(p) needs a probability from 0 to 1, got %g", p.num);
    if (p.num >= 1 || p.num <= 0) {
      insn->pattern = ISA_PRED_LANES;
      insn->lanes = p.num >= 1 ? 0xffffffffu : 0;
    } else {
      insn->pattern = ISA_PRED_CHANCE;
      insn->chance = (guint32)MIN(p.num * 4294967296.0 + 0.5, 4294967295.0);
    }
    return TRUE;
  }
  gboolean reg = t->kind == TOK_IDENT && (t->text[0] == 'R' || t->text[0] == 'P');
  if (reg)
    return parse_source(a, insn) && asm_expect(a, ",") && parse_source(a, insn);
  /* a lane expression: parsed once per lane with $lane bound */
  guint start = a->pos, end = start;
  guint32 mask = 0;
  LoopVar lv = {.name = "lane"};
  g_array_append_val(a->vars, lv);
  for (guint lane = 0; lane < 32; lane++) {
    g_array_index(a->vars, LoopVar, a->vars->len - 1).value = lane;
    a->pos = start;
    Value v;
    if (!asm_parse_expr(a, &v) || !asm_need_num(a, t, &v)) {
      g_array_set_size(a->vars, a->vars->len - 1);
      return FALSE;
    }
    if (v.num != 0)
      mask |= 1u << lane;
    end = a->pos;
  }
  g_array_set_size(a->vars, a->vars->len - 1);
  a->pos = end;
  insn->pattern = ISA_PRED_LANES;
  insn->lanes = mask;
  return TRUE;
}

static gboolean
parse_mem_operand(Asm *a, IsaInsn *insn)
{
  if (!asm_expect(a, "["))
    return FALSE;
  guint8 slot;
  if (!parse_register(a, &slot))
    return FALSE;
  if (asm_is_punct(asm_peek(a), "+")) {
    asm_next(a);
    Tok *t = asm_peek(a);
    Value v;
    if (!asm_parse_expr(a, &v) || !asm_need_num(a, t, &v))
      return FALSE;
  }
  if (slot != ISA_NO_REG)
    insn->src[insn->nsrc++] = slot;
  return asm_expect(a, "]");
}

static gboolean
attr_value(Asm *a, Value *v, const Tok **at)
{
  *at = asm_next(a);
  if ((*at)->kind == TOK_PARAM)
    return asm_lookup_param(a, *at, v);
  if ((*at)->kind == TOK_IDENT || (*at)->kind == TOK_NUMBER) {
    *v = asm_value_from_text((*at)->text);
    return TRUE;
  }
  return asm_fail_at(a, *at, "expected an attribute value, found '%s'", (*at)->text);
}

static gboolean
set_pattern(Asm *a, const Tok *at, const Value *v, IsaInsn *insn)
{
  if (!v->is_str)
    return asm_fail_at(a, at, "pattern must be coalesced, strideN, broadcast or random, got %g",
                       v->num);
  if (strcmp(v->str, "coalesced") == 0) {
    insn->pattern = ISA_PATTERN_COALESCED;
    return TRUE;
  }
  if (strcmp(v->str, "random") == 0) {
    insn->pattern = ISA_PATTERN_RANDOM;
    return TRUE;
  }
  if (strcmp(v->str, "broadcast") == 0) {
    insn->pattern = ISA_PATTERN_BROADCAST;
    return TRUE;
  }
  if (g_str_has_prefix(v->str, "stride")) {
    char *end;
    guint64 s = g_ascii_strtoull(v->str + 6, &end, 10);
    if (*end == '\0' && v->str[6] != '\0' && s >= 1 && s <= ISA_MAX_STRIDE) {
      insn->pattern = s == 1 ? ISA_PATTERN_COALESCED : ISA_PATTERN_STRIDE;
      insn->stride = (guint8)s;
      return TRUE;
    }
    return asm_fail_at(a, at, "stride in '%s' must be 1..%u", v->str, ISA_MAX_STRIDE);
  }
  return asm_fail_at(a, at, "unknown access pattern '%s' (coalesced, strideN, broadcast, random)",
                     v->str);
}

/* "stride=K": lanes K elements apart (1: coalesced, 0: all lanes on one address). */
static gboolean
set_stride(Asm *a, const Tok *at, const Value *v, IsaInsn *insn)
{
  if (v->is_str || v->num != floor(v->num) || v->num < 0 || v->num > ISA_MAX_STRIDE)
    return asm_fail_at(a, at, "stride must be a whole number from 0 to %u", ISA_MAX_STRIDE);
  guint s = (guint)v->num;
  insn->pattern = s == 0   ? ISA_PATTERN_BROADCAST
                  : s == 1 ? ISA_PATTERN_COALESCED
                           : ISA_PATTERN_STRIDE;
  insn->stride = (guint8)s;
  return TRUE;
}

static gboolean
set_level(Asm *a, const Tok *at, const Value *v, IsaInsn *insn)
{
  if (!v->is_str)
    return asm_fail_at(a, at, "level must be a memory level name, got %g", v->num);
  for (guint i = 0; i < a->levels->len; i++) {
    if (strcmp(g_ptr_array_index(a->levels, i), v->str) == 0) {
      insn->level = (guint8)i;
      return TRUE;
    }
  }
  if (a->levels->len >= ISA_MAX_LEVELS)
    return asm_fail_at(a, at, "too many memory levels (at most %u)", ISA_MAX_LEVELS);
  g_ptr_array_add(a->levels, g_strdup(v->str));
  insn->level = (guint8)(a->levels->len - 1);
  return TRUE;
}

/* "window=BYTES": the access walks a random cycle over that many bytes of memory. */
static gboolean
set_window(Asm *a, const Tok *at, const Value *v, IsaAccess *access)
{
  if (v->is_str || v->num != floor(v->num) || v->num < 1 || v->num > (double)ISA_MAX_WINDOW)
    return asm_fail_at(a, at, "window must be a whole number of bytes from 1 to 2^44");
  access->window = (guint64)v->num;
  return TRUE;
}

/* "cache=ca|nc|cg": which caches keep the load (PTX's cache operators). */
static gboolean
set_cache(Asm *a, const Tok *at, const Value *v, IsaAccess *access)
{
  static const char *const names[] = {"ca", "nc", "cg"};
  for (guint i = 0; v->is_str && i < G_N_ELEMENTS(names); i++)
    if (strcmp(v->str, names[i]) == 0) {
      access->cache = (guint8)i;
      return TRUE;
    }
  return asm_fail_at(a, at, "cache must be ca, nc or cg");
}

/* @mnemonic as an op, with an optional access width suffix on memory ops (LDG.128). */
static gboolean
lookup_op(Asm *a, const Tok *t, const char *mnemonic, IsaOp *op, guint *width)
{
  if (isa_op_lookup(mnemonic, op)) {
    *width = isa_op_info(*op)->space != ISA_SPACE_NONE ? 4 : 0;
    return TRUE;
  }
  const char *dot = strrchr(mnemonic, '.');
  if (dot && g_ascii_isdigit(dot[1])) {
    g_autofree char *base = g_strndup(mnemonic, (gsize)(dot - mnemonic));
    if (isa_op_lookup(base, op)) {
      if (isa_op_info(*op)->space == ISA_SPACE_NONE)
        return asm_fail_at(a, t, "%s takes no access width ('%s'): only memory ops do", base, dot);
      if (strcmp(dot, ".32") == 0)
        *width = 4;
      else if (strcmp(dot, ".64") == 0)
        *width = 8;
      else if (strcmp(dot, ".128") == 0)
        *width = 16;
      else
        return asm_fail_at(a, t, "%s cannot access '%s' per lane: widths are .32, .64, .128", base,
                           dot);
      return TRUE;
    }
  }
  GString *ops = g_string_new(NULL);
  for (guint i = 0; i < ISA_OP_COUNT; i++)
    g_string_append_printf(ops, "%s%s", i ? ", " : "", isa_op_table[i].mnemonic);
  const char *near = isa_op_nearest(mnemonic);
  gboolean r = near ? asm_fail_at(a, t, "unknown op '%s'; did you mean '%s'? (ops: %s)", mnemonic,
                                  near, ops->str)
                    : asm_fail_at(a, t, "unknown op '%s' (ops: %s)", mnemonic, ops->str);
  g_string_free(ops, TRUE);
  return r;
}

/* A store or copy writes no register: its first operand is an address, [R...]. */
static gboolean
expect_address_first(Asm *a, const IsaOpInfo *info, const char *form)
{
  if (asm_is_punct(asm_peek(a), "["))
    return TRUE;
  return asm_fail_at(a, asm_peek(a), "%s writes no register: its form is %s %s", info->mnemonic,
                     info->mnemonic, form);
}

/* "SB0, N" after DEPBAR.LE: wait until at most N groups of copies are outstanding. */
static gboolean
parse_depbar(Asm *a, IsaInsn *insn)
{
  Tok *sb = asm_next(a);
  if (!asm_is_word(sb, "SB0"))
    return asm_fail_at(a, sb, "DEPBAR.LE waits on SB0 (the asynchronous-copy groups), found '%s'",
                       sb->text);
  guint64 n;
  if (!asm_expect(a, ",") ||
      !asm_parse_whole(a, "DEPBAR.LE's count of outstanding groups", ISA_MAX_DEPBAR, &n))
    return FALSE;
  insn->groups = (guint32)n;
  return TRUE;
}

gboolean
asm_at_statement_end(const Tok *t)
{
  return t->kind == TOK_NEWLINE || t->kind == TOK_END || asm_is_punct(t, "}");
}

gboolean
asm_parse_instruction(Asm *a)
{
  /* a guard "@P1" or "@!P1": the instruction reads the predicate */
  guint8 guard = ISA_NO_REG, guard_kind = ISA_GUARD_NONE;
  if (asm_is_punct(asm_peek(a), "@")) {
    asm_next(a);
    guard_kind = ISA_GUARD_IF;
    if (asm_is_punct(asm_peek(a), "!")) {
      asm_next(a);
      guard_kind = ISA_GUARD_UNLESS;
    }
    Tok *p = asm_peek(a);
    if (p->kind != TOK_IDENT || p->text[0] != 'P')
      return asm_fail_at(a, p, "expected a predicate (P0..P6 or PT) after '@', found '%s'",
                         p->text);
    if (!parse_register(a, &guard))
      return FALSE;
    if (guard != ISA_NO_REG && !asm_flow_use_pred(a, p, p->text))
      return FALSE;
  }
  Tok *t = asm_next(a);
  const char *mnemonic = t->text;
  Value pv;
  if (t->kind == TOK_PARAM) {
    if (!asm_lookup_param(a, t, &pv))
      return FALSE;
    if (!pv.is_str)
      return asm_fail_at(a, t, "$%s is %g, not an op name", t->text + 1, pv.num);
    mnemonic = pv.str;
  } else if (t->kind != TOK_IDENT) {
    return asm_fail_at(a, t, "expected an instruction, found '%s'", t->text);
  }
  IsaOp op;
  guint width = 0;
  if (!lookup_op(a, t, mnemonic, &op, &width))
    return FALSE;
  const IsaOpInfo *info = isa_op_info(op);
  IsaInsn insn = {.kind = ISA_INSN_OP,
                  .op = (guint8)op,
                  .dst = ISA_NO_REG,
                  .line = t->line,
                  .width = (guint8)width};
  gboolean ok = TRUE;
  switch (info->shape) {
  case ISA_SHAPE_NONE:
    break;
  case ISA_SHAPE_DM:
    ok = parse_register(a, &insn.dst) && asm_expect(a, ",") && parse_mem_operand(a, &insn);
    break;
  case ISA_SHAPE_MS:
    ok = expect_address_first(a, info, "[Ra], Rb (address, data)") && parse_mem_operand(a, &insn) &&
         asm_expect(a, ",") && parse_source(a, &insn);
    break;
  case ISA_SHAPE_MM:
    ok = expect_address_first(a, info, "[Rshared], [Rglobal]") && parse_mem_operand(a, &insn) &&
         asm_expect(a, ",") && parse_mem_operand(a, &insn);
    break;
  case ISA_SHAPE_SBN:
    ok = parse_depbar(a, &insn);
    break;
  case ISA_SHAPE_SETP:
    ok = parse_register(a, &insn.dst);
    if (ok && insn.dst != ISA_NO_REG && ((char *)a->reg_names->pdata[insn.dst])[0] != 'P')
      return asm_fail_at(a, t, "ISETP writes a predicate (P0..P6), not %s",
                         (char *)a->reg_names->pdata[insn.dst]);
    ok = ok && asm_expect(a, ",") && parse_setp_sources(a, &insn);
    if (ok && insn.dst != ISA_NO_REG)
      asm_flow_set_pred(
          a, a->reg_names->pdata[insn.dst],
          insn.pattern != ISA_PRED_CHANCE &&
              (insn.pattern != ISA_PRED_LANES || insn.lanes == 0 || insn.lanes == 0xffffffffu));
    break;
  case ISA_SHAPE_BRA:
    if (asm_peek(a)->kind == TOK_IDENT) {
      Tok *label;
      ok = parse_label_operand(a, &label) &&
           asm_flow_branch(a, label,
                           guard != ISA_NO_REG && guard_kind != ISA_GUARD_NEVER &&
                               !asm_flow_pred_uniform(a, a->reg_names->pdata[guard]));
    }
    break;
  case ISA_SHAPE_BSSY: {
    guint b = 0;
    Tok *label = NULL;
    ok = parse_barrier(a, &b) && asm_expect(a, ",") && parse_label_operand(a, &label) &&
         asm_flow_bssy(a, t, b, label);
    insn.barrier = (guint8)b;
    break;
  }
  case ISA_SHAPE_BSYNC: {
    guint b = 0;
    ok = parse_barrier(a, &b) && asm_flow_bsync(a, t, b);
    insn.barrier = (guint8)b;
    break;
  }
  case ISA_SHAPE_DSR: {
    ok = parse_register(a, &insn.dst) && asm_expect(a, ",");
    if (!ok)
      break;
    Tok *sr = asm_next(a);
    if (sr->kind != TOK_IDENT || strcmp(sr->text, "SR_CLOCKLO") != 0)
      return asm_fail_at(a, sr, "%s reads SR_CLOCKLO (the clock), not '%s'", info->mnemonic,
                         sr->text);
    break;
  }
  case ISA_SHAPE_DS:
  case ISA_SHAPE_DSS:
  case ISA_SHAPE_DSSS: {
    guint nsrc = info->shape == ISA_SHAPE_DS ? 1 : info->shape == ISA_SHAPE_DSS ? 2 : 3;
    ok = parse_register(a, &insn.dst);
    for (guint i = 0; ok && i < nsrc; i++)
      ok = asm_expect(a, ",") && parse_source(a, &insn);
    break;
  }
  }
  if (!ok)
    return FALSE;
  if (guard == ISA_NO_REG && guard_kind == ISA_GUARD_UNLESS)
    insn.guard = ISA_GUARD_NEVER; /* @!PT */
  if (guard != ISA_NO_REG) {
    if (insn.nsrc == G_N_ELEMENTS(insn.src))
      return asm_fail_at(a, t, "%s reads three registers already: it cannot also be guarded",
                         info->mnemonic);
    insn.src[insn.nsrc++] = guard;
    insn.guard = guard_kind;
  }
  gboolean have_level = FALSE, have_access = FALSE;
  IsaAccess access = {0};
  while (!asm_at_statement_end(asm_peek(a))) {
    Tok *key = asm_next(a);
    if (key->kind != TOK_IDENT || !asm_is_punct(asm_peek(a), "="))
      return asm_fail_at(a, key, "unexpected '%s' after the operands of %s", key->text,
                         info->mnemonic);
    asm_next(a);
    const Tok *vt;
    Value v;
    if (!attr_value(a, &v, &vt))
      return FALSE;
    if (info->space == ISA_SPACE_NONE)
      return asm_fail_at(a, key, "%s takes no attribute '%s' (only memory ops do)", info->mnemonic,
                         key->text);
    if (strcmp(key->text, "pattern") == 0)
      ok = set_pattern(a, vt, &v, &insn);
    else if (strcmp(key->text, "stride") == 0)
      ok = set_stride(a, vt, &v, &insn);
    else if (strcmp(key->text, "level") == 0 && info->space == ISA_SPACE_GLOBAL)
      ok = have_level = set_level(a, vt, &v, &insn);
    else if (strcmp(key->text, "window") == 0 && info->space == ISA_SPACE_GLOBAL)
      ok = have_access = set_window(a, vt, &v, &access);
    else if (strcmp(key->text, "cache") == 0 && info->space == ISA_SPACE_GLOBAL)
      ok = have_access = set_cache(a, vt, &v, &access);
    else if (info->space == ISA_SPACE_GLOBAL)
      return asm_fail_at(a, key, "unknown attribute '%s' (pattern, stride, level, window, cache)",
                         key->text);
    else
      return asm_fail_at(a, key, "unknown attribute '%s' (shared memory ops take pattern, stride)",
                         key->text);
    if (!ok)
      return FALSE;
  }
  if (have_access) {
    g_array_append_val(a->accesses, access);
    insn.access = a->accesses->len;
  }
  if (info->space == ISA_SPACE_GLOBAL && !have_level && access.window) {
    insn.level = ISA_LEVEL_NONE; /* addresses in a window: the caches decide */
  } else if (info->space == ISA_SPACE_GLOBAL && !have_level) {
    Value dram = {.is_str = TRUE, .str = "dram"};
    if (!set_level(a, t, &dram, &insn))
      return FALSE;
  }
  g_array_append_val(a->insns, insn);
  return TRUE;
}
