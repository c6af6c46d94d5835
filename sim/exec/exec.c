/* Warps running SASS: which lanes run next, control flow, memory accesses, and the driver of
 * a functional run.  What arithmetic computes is alu.c. */
#include "exec-internal.h"

#include <stdio.h>

gboolean
exec_fail(ExecCtx *c, const char *fmt, ...)
{
  if (c->failed)
    return FALSE;
  va_list ap;
  va_start(ap, fmt);
  char *msg = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  const ExecKernel *k = c->w->block->k;
  char op[96];
  sass_insn_opcode(c->insn, op, sizeof op);
  g_set_error(c->error, EXEC_ERROR, 1, "%s:%u: %s (%s at 0x%04x, block %u, warp %u)", k->path,
              c->insn->line, msg, op, c->insn->addr, c->w->block->index, c->w->id);
  g_free(msg);
  c->failed = TRUE;
  return FALSE;
}

gboolean
exec_unsupported(ExecCtx *c)
{
  if (c->failed)
    return FALSE;
  char op[96];
  sass_insn_opcode(c->insn, op, sizeof op);
  g_set_error(c->error, EXEC_ERROR, 1, "%s:%u: unsupported SASS instruction '%s'",
              c->w->block->k->path, c->insn->line, op);
  c->failed = TRUE;
  return FALSE;
}

void
exec_describe(const ExecKernel *k, guint32 pc, char *buf, gsize size)
{
  sass_insn_opcode(&k->fn->insns[pc], buf, size);
}

guint32
exec_const32(ExecCtx *c, const SassOperand *o, guint l, guint extra)
{
  const ExecKernel *k = c->w->block->k;
  guint64 off = (guint64)o->value + extra + (o->reg != SASS_RZ ? exec_reg(c->w, o->reg, l) : 0);
  if (o->bank == 0 && off + 4 <= EXEC_CBANK_SIZE) {
    guint32 v;
    memcpy(&v, k->cbank0 + off, 4);
    return v;
  }
  if (o->bank == 4 && off + 4 <= sizeof k->launch.const4)
    return k->launch.const4[off / 4];
  if (o->bank == 3 && off + 4 <= k->launch.constants_size) {
    guint32 v;
    memcpy(&v, k->launch.constants + off, 4);
    return v;
  }
  if (o->bank == 3)
    exec_fail(c,
              "constant c[0x3][0x%" G_GINT64_MODIFIER "x] outside the kernel's __constant__ data "
              "(%zu bytes: the kernel file's constants: {bytes: N})",
              off, k->launch.constants_size);
  else
    exec_fail(c, "constant c[0x%x][0x%" G_GINT64_MODIFIER "x] outside the bank", o->bank, off);
  return 0;
}

/* ---- kernel, blocks, warps ---- */

ExecKernel *
exec_kernel_new(const SassFunction *fn, const char *path, ExecMemory *mem, const ExecLaunch *launch,
                GError **error)
{
  if (launch->params_size > EXEC_CBANK_SIZE - EXEC_CBANK_PARAMS) {
    g_set_error(error, EXEC_ERROR, 1, "%s: %zu bytes of parameters: at most %d", path,
                launch->params_size, EXEC_CBANK_SIZE - EXEC_CBANK_PARAMS);
    return NULL;
  }
  guint32 threads = launch->block[0] * launch->block[1] * launch->block[2];
  if (threads == 0 || threads > 1024 || launch->grid[0] * launch->grid[1] * launch->grid[2] == 0) {
    g_set_error(error, EXEC_ERROR, 1, "%s: a launch of %u threads per block in %u blocks", path,
                threads, launch->grid[0] * launch->grid[1] * launch->grid[2]);
    return NULL;
  }
  ExecKernel *k = g_new0(ExecKernel, 1);
  k->fn = fn;
  k->path = path;
  k->mem = mem;
  k->launch = *launch;
  guint32 *cb = (guint32 *)k->cbank0;
  for (guint i = 0; i < 3; i++) {
    cb[EXEC_CBANK_NTID / 4 + i] = launch->block[i];
    cb[EXEC_CBANK_NCTAID / 4 + i] = launch->grid[i];
  }
  cb[EXEC_CBANK_STACK / 4] = EXEC_STACK_TOP;
  if (launch->params_size)
    memcpy(k->cbank0 + EXEC_CBANK_PARAMS, launch->params, launch->params_size);
  guint max_reg = 0;
  for (guint i = 0; i < fn->n_insns; i++)
    for (guint o = 0; o < fn->insns[i].n_operands; o++) {
      const SassOperand *op = &fn->insns[i].opd[o];
      if ((op->kind == SASS_OPD_REG || op->kind == SASS_OPD_MEM || op->kind == SASS_OPD_CONST) &&
          op->reg != SASS_RZ)
        max_reg = MAX(max_reg, op->reg);
    }
  /* a 128-bit access names its first register of four */
  k->n_regs = MIN(max_reg + 4u, 256u);
  return k;
}

void
exec_kernel_free(ExecKernel *k)
{
  g_free(k);
}

ExecBlock *
exec_block_new(ExecKernel *k, guint32 index)
{
  const ExecLaunch *L = &k->launch;
  ExecBlock *b = g_new0(ExecBlock, 1);
  b->k = k;
  b->index = index;
  b->ctaid[0] = index % L->grid[0];
  b->ctaid[1] = (index / L->grid[0]) % L->grid[1];
  b->ctaid[2] = index / (L->grid[0] * L->grid[1]);
  b->shared = g_malloc0(EXEC_SHARED_RESERVED + L->shared_bytes);
  guint32 threads = L->block[0] * L->block[1] * L->block[2];
  b->n_warps = (threads + 31) / 32;
  b->warps = g_new0(ExecWarp, b->n_warps);
  for (guint i = 0; i < b->n_warps; i++) {
    ExecWarp *w = &b->warps[i];
    w->block = b;
    w->id = i;
    guint32 n = MIN(32u, threads - i * 32u);
    w->lanes = n == 32 ? 0xffffffffu : (1u << n) - 1u;
    w->r = g_new0(guint32, (gsize)k->n_regs * 32u);
    w->n_regs = MIN(k->n_regs, (guint)SASS_RZ); /* RZ is never stored */
    w->local = g_malloc0(MAX((gsize)L->local_bytes * 32u, 1u));
    w->p[SASS_PT] = 0xffffffffu;
    w->up[SASS_PT] = 1;
  }
  return b;
}

void
exec_block_free(ExecBlock *b)
{
  if (!b)
    return;
  for (guint i = 0; i < b->n_warps; i++) {
    g_free(b->warps[i].r);
    g_free(b->warps[i].local);
  }
  g_free(b->warps);
  g_free(b->shared);
  g_free(b);
}

gboolean
exec_warp_done(const ExecWarp *w)
{
  return (w->lanes & ~w->exited) == 0;
}

/* ---- which lanes run next ---- */

/* the lanes a convergence barrier at @pc expects: BSYNC Bn its barrier's, WARPSYNC its mask
 * (0: @pc is neither) */
static guint32
expected(const ExecWarp *w, guint32 pc)
{
  const SassInsn *in = &w->block->k->fn->insns[pc];
  if (in->op == SASS_OP_BSYNC && in->n_operands > 0)
    return w->bar[in->opd[0].reg & 15u];
  if (in->op == SASS_OP_WARPSYNC)
    return sass_has(in, SASS_MOD_ALL) || in->n_operands == 0 ? w->lanes : (guint32)in->opd[0].value;
  return 0;
}

/* the lanes waiting at the convergence barrier at @pc go on together once every live lane it
 * expects is there (the others exited) */
static gboolean
try_release(ExecWarp *w, guint32 pc)
{
  guint32 live = w->lanes & ~w->exited, here = 0;
  EXEC_FOR_LANES(w->waiting & live, l)
  {
    if (w->pc[l] == pc)
      here |= 1u << l;
  }
  if (!here || (expected(w, pc) & live & ~here) != 0)
    return FALSE;
  EXEC_FOR_LANES(here, l)
  w->pc[l] = pc + 1;
  w->waiting &= ~here;
  return TRUE;
}

/* the lanes to run and their instruction (the lowest address among the lanes not waiting at a
 * convergence barrier); FALSE when every live lane waits at one that cannot release them */
static gboolean
select_lanes(ExecWarp *w, guint32 *pc_out, guint32 *mask_out)
{
  guint32 live = w->lanes & ~w->exited;
  if (!w->diverged) {
    guint32 pc = w->pc[__builtin_ctz(live)];
    *pc_out = pc;
    *mask_out = live;
    return TRUE;
  }
  for (;;) {
    guint32 best = G_MAXUINT32, mask = 0;
    EXEC_FOR_LANES(live & ~w->waiting, l)
    {
      if (w->pc[l] < best) {
        best = w->pc[l];
        mask = 1u << l;
      } else if (w->pc[l] == best) {
        mask |= 1u << l;
      }
    }
    if (mask) {
      *pc_out = best;
      *mask_out = mask;
      return TRUE;
    }
    /* every live lane waits: a barrier whose other lanes exited releases its own */
    gboolean released = FALSE;
    EXEC_FOR_LANES(w->waiting & live, l)
    {
      if ((w->waiting >> l) & 1u)
        released |= try_release(w, w->pc[l]);
    }
    if (!released)
      return FALSE;
  }
}

static void
update_diverged(ExecWarp *w)
{
  guint32 live = w->lanes & ~w->exited;
  if (!live) {
    w->diverged = FALSE;
    return;
  }
  guint32 pc = w->pc[__builtin_ctz(live)];
  gboolean d = (w->waiting & live) != 0;
  EXEC_FOR_LANES(live, l)
  d |= w->pc[l] != pc;
  w->diverged = d;
}

/* ---- one step ---- */

gboolean
exec_insn_supported(const SassInsn *in)
{
#define HAS(m) sass_has(in, SASS_MOD_##m)
  switch (in->op) {
  case SASS_OP_BMOV:
  case SASS_OP_P2R:
  case SASS_OP_R2P:
    return FALSE;
  case SASS_OP_F2F: /* between F32 and F64 */
    return HAS(F32) && HAS(F64) && !HAS(F16);
  case SASS_OP_I2F:
  case SASS_OP_I2FP:
  case SASS_OP_F2I:
    return !HAS(F16);
  case SASS_OP_F2FP:
    return HAS(F32) && HAS(PACK_AB);
  case SASS_OP_MUFU:
    return HAS(RCP) || HAS(RSQ) || HAS(SQRT) || HAS(EX2) || HAS(LG2) || HAS(SIN) || HAS(COS) ||
           HAS(TANH) || HAS(RCP64H) || HAS(RSQ64H);
  case SASS_OP_ATOMS:
  case SASS_OP_ATOMG:
  case SASS_OP_ATOM:
  case SASS_OP_RED:
  case SASS_OP_REDG:
    return HAS(ADD) || HAS(MIN) || HAS(MAX) || HAS(OR) || HAS(AND) || HAS(XOR) || HAS(EXCH) ||
           HAS(CAS) || HAS(CAST) || HAS(INC) || HAS(DEC);
  default:
    return TRUE;
  }
#undef HAS
}

ExecStepStatus
exec_warp_peek(ExecWarp *w, guint32 *pc, guint32 *active, GError **error)
{
  if (!(w->lanes & ~w->exited))
    return EXEC_STEP_EXITED;
  const SassFunction *fn = w->block->k->fn;
  if (!select_lanes(w, pc, active)) {
    g_set_error(error, EXEC_ERROR, 1,
                "%s: block %u warp %u: every lane waits at a convergence barrier (BSYNC, "
                "WARPSYNC) that no lane can reach",
                w->block->k->path, w->block->index, w->id);
    return EXEC_STEP_ERROR;
  }
  if (*pc >= fn->n_insns) {
    g_set_error(error, EXEC_ERROR, 1, "%s: block %u warp %u ran past the end of %s",
                w->block->k->path, w->block->index, w->id, fn->name);
    return EXEC_STEP_ERROR;
  }
  return EXEC_STEP_OK;
}

static void
advance(ExecWarp *w, guint32 mask, guint32 pc)
{
  if (mask == 0xffffffffu) { /* a whole warp: one pass the compiler vectorises */
    for (guint l = 0; l < 32; l++)
      w->pc[l] = pc;
    return;
  }
  EXEC_FOR_LANES(mask, l)
  w->pc[l] = pc;
}

ExecStepStatus
exec_warp_step(ExecWarp *w, ExecStep *step, GError **error)
{
  const SassFunction *fn = w->block->k->fn;
  guint32 pc, active;
  ExecStepStatus peek = exec_warp_peek(w, &pc, &active, error);
  if (peek != EXEC_STEP_OK)
    return peek;
  const SassInsn *in = &fn->insns[pc];
  guint32 enabled;
  if (in->guard == SASS_PT)
    enabled = in->guard_not ? 0 : active;
  else if (in->guard_uniform)
    enabled = (w->up[in->guard] != in->guard_not) ? active : 0;
  else
    enabled = (in->guard_not ? ~w->p[in->guard] : w->p[in->guard]) & active;
  step->pc = pc;
  step->active = active;
  step->enabled = enabled;
  step->space = EXEC_SPACE_NONE;
  step->bytes = 0;
  step->is_store = 0;
  step->lo = 1;
  step->hi = 0;
  ExecCtx c = {.w = w,
               .insn = in,
               .pc = pc,
               .active = active,
               .enabled = enabled,
               .step = step,
               .error = error};
  ExecStepStatus status = EXEC_STEP_OK;
  guint32 next = pc + 1;
  gboolean moved = FALSE; /* the op set its lanes' pcs itself */
  if (!exec_insn_supported(in)) {
    exec_unsupported(&c);
    return EXEC_STEP_ERROR;
  }
  if (in->op == SASS_OP_LDC && in->n_operands == 2 && in->opd[1].kind == SASS_OPD_CONST) {
    /* the words each lane reads, before the result may overwrite the register indexing them
     * (the timing machine's constant cache) */
    const SassOperand *o = &in->opd[1];
    step->space = EXEC_SPACE_CONST;
    step->bytes = sass_has(in, SASS_MOD_B64) ? 8 : 4;
    EXEC_FOR_LANES(enabled, l)
    {
      guint32 off = (guint32)o->value + (o->reg != SASS_RZ ? exec_reg(w, o->reg, l) : 0u);
      step->addr[l] = (guint64)o->bank << 32 | off;
    }
  }
  switch (in->op) {
  case SASS_OP_NOP:
  case SASS_OP_YIELD:
  case SASS_OP_DEPBAR:
  case SASS_OP_LDGDEPBAR:
  case SASS_OP_MEMBAR:
  case SASS_OP_ERRBAR:
  case SASS_OP_CCTL:
  case SASS_OP_CGAERRBAR:
    break;
  case SASS_OP_EXIT: {
    guint32 leave = enabled;
    if (in->n_operands == 1 && in->opd[0].kind == SASS_OPD_PRED) { /* @P0 EXIT P1: both */
      EXEC_FOR_LANES(enabled, l)
      {
        if (!exec_pget(w, &in->opd[0], l))
          leave &= ~(1u << l);
      }
    }
    w->exited |= leave;
    break;
  }
  case SASS_OP_BRA: {
    guint32 taken = enabled;
    if (in->n_operands == 2 && in->opd[0].kind == SASS_OPD_PRED) { /* @P0 BRA P1, target */
      EXEC_FOR_LANES(enabled, l)
      {
        if (!exec_pget(w, &in->opd[0], l))
          taken &= ~(1u << l);
      }
    }
    advance(w, taken, (guint32)in->opd[in->n_operands - 1].value);
    advance(w, active & ~taken, next);
    moved = TRUE;
    break;
  }
  case SASS_OP_CALL:
    advance(w, enabled, (guint32)in->opd[in->n_operands - 1].value);
    advance(w, active & ~enabled, next);
    moved = TRUE;
    break;
  case SASS_OP_RET: {
    const SassOperand *r = &in->opd[0];
    if (in->n_operands == 0 || r->kind != SASS_OPD_REG) {
      exec_unsupported(&c);
      break;
    }
    gint64 off = in->n_operands > 1 ? in->opd[1].value : 0;
    EXEC_FOR_LANES(enabled, l)
    {
      gint64 to = (gint64)exec_reg(w, r->reg, l) + off;
      if (to < 0 || to % 16 != 0 || to / 16 >= (gint64)fn->n_insns) {
        exec_fail(&c, "return to 0x%" G_GINT64_MODIFIER "x by lane %u: outside the function", to,
                  l);
        break;
      }
      w->pc[l] = (guint32)(to / 16);
    }
    advance(w, active & ~enabled, next);
    moved = TRUE;
    break;
  }
  case SASS_OP_BSSY:
    if (enabled)
      w->bar[in->opd[0].reg & 15u] = enabled;
    break;
  case SASS_OP_BREAK:
    w->bar[in->opd[0].reg & 15u] &= ~enabled;
    break;
  case SASS_OP_BSYNC:
  case SASS_OP_WARPSYNC:
    /* these lanes have arrived: they wait, or all go on if they are the last expected */
    w->waiting |= active;
    try_release(w, pc);
    moved = TRUE;
    break;
  case SASS_OP_BAR:
    if (enabled && (sass_has(in, SASS_MOD_SYNC) || !sass_has(in, SASS_MOD_ARV)))
      status = EXEC_STEP_BARRIER;
    break;
  default:
    if (!exec_memory_op(&c) && !exec_alu(&c))
      exec_unsupported(&c);
    break;
  }
  if (c.failed)
    return EXEC_STEP_ERROR;
  if (!moved)
    advance(w, active & ~w->exited, next);
  if (w->diverged || moved || (w->exited & active))
    update_diverged(w);
  return status;
}

/* ---- a functional run ---- */

gboolean
exec_grid_run(ExecKernel *k, guint64 *steps, GError **error)
{
  const ExecLaunch *L = &k->launch;
  guint32 blocks = L->grid[0] * L->grid[1] * L->grid[2];
  guint64 count = 0;
  ExecStep step;
  for (guint32 bi = 0; bi < blocks; bi++) {
    g_autoptr(ExecBlock) b = exec_block_new(k, bi);
    gboolean *at_bar = g_new0(gboolean, b->n_warps);
    for (;;) {
      for (guint wi = 0; wi < b->n_warps; wi++) {
        ExecWarp *w = &b->warps[wi];
        while (!at_bar[wi]) {
          w->clock = count;
          ExecStepStatus s = exec_warp_step(w, &step, error);
          if (s == EXEC_STEP_EXITED)
            break;
          if (s == EXEC_STEP_ERROR) {
            g_free(at_bar);
            return FALSE;
          }
          count++;
          if (s == EXEC_STEP_BARRIER)
            at_bar[wi] = TRUE;
        }
      }
      /* every warp waits at the barrier or has exited: release them */
      gboolean waiting = FALSE;
      for (guint wi = 0; wi < b->n_warps; wi++) {
        waiting |= at_bar[wi];
        at_bar[wi] = FALSE;
      }
      if (!waiting)
        break;
    }
    g_free(at_bar);
  }
  if (steps)
    *steps = count;
  return TRUE;
}
