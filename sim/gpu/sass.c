/* Kernels over SASS on the timing machine: the executor (sim/exec/) says what each warp runs
 * next and what the instruction it issued did; this file turns that into the machine's terms.
 *
 * A warp's next instruction comes through one of two implementations: the assembled stream's
 * walk over loop markers and lane predicates (warp.h, simt.c), or here the executor's choice
 * of lanes (exec_warp_peek()).  Issuing runs the instruction on real values at the cycle it
 * issues (exec_warp_step()); its lanes' addresses become the memory transactions (distinct
 * lines, carrying the sectors touched) or shared-memory bank passes it costs, and its result
 * registers, pairs, predicates and uniform registers get their ready cycles in the
 * scoreboard.  Nothing here interprets a value. */
#include "machine.h"
#include "shadow.h"
#include "../mem/constants.h"

#include <string.h>

struct SmSass {
  ExecMemory *mem;
  ExecKernel *kernel;
  guint8 *params;
  ExecBlock **blocks;   /* per block slot: the block's lane state */
  guint8 *buffer_level; /* per buffer: its memory level */
  GError *error;        /* the first executor error: the run stops there */
  char **op_names;      /* per instruction, for a trace */
  SmShadow *shadow;     /* SMs stepped apart (fast/parallel.c): who touched each word (shadow.h) */
  guint8 *constants;    /* c[0x3]: the kernel's __constant__ data (NULL: none) */
  SmConstants *constant_cache; /* with a constant cache in the GPU file: its state (constants.h) */
};

/* ---- building ---- */

static guint64
next_random(guint64 *x)
{
  *x ^= *x << 13;
  *x ^= *x >> 7;
  *x ^= *x << 17;
  return *x;
}

static void
fill(guint8 *data, const CfgArg *a)
{
  gsize n = a->bytes;
  guint64 rng = sm_hash64(a->seed * 0x9E3779B97F4A7C15ULL + 0x5A55) | 1;
  if (a->fill == CFG_FILL_FILE) {
    memcpy(data, a->data, a->data_size);
    return;
  }
  if (a->fill == CFG_FILL_ZEROS)
    return;
  static const guint size[] = {4, 8, 4, 4, 1};
  guint es = size[a->element];
  for (gsize i = 0; i + es <= n; i += es) {
    gsize k = i / es;
    double v = a->fill == CFG_FILL_CONSTANT ? a->constant : (double)k;
    guint64 r = a->fill == CFG_FILL_RANDOM ? next_random(&rng) : 0;
    /* floats uniform in [-1, 1) from the top 24 or 53 bits */
    double u = (double)(r >> 11) / 9007199254740992.0 * 2.0 - 1.0;
    float f =
        a->fill == CFG_FILL_RANDOM ? (float)((double)(r >> 40) / 16777216.0 * 2.0 - 1.0) : (float)v;
    switch (a->element) {
    case CFG_ELEM_F32:
      memcpy(data + i, &f, 4);
      break;
    case CFG_ELEM_F64: {
      double d = a->fill == CFG_FILL_RANDOM ? u : v;
      memcpy(data + i, &d, 8);
      break;
    }
    case CFG_ELEM_I32:
    case CFG_ELEM_U32: {
      guint32 x = a->fill == CFG_FILL_RANDOM   ? (guint32)(r >> 32)
                  : a->element == CFG_ELEM_I32 ? (guint32)(gint32)v
                                               : (guint32)v;
      memcpy(data + i, &x, 4);
      break;
    }
    default:
      data[i] = a->fill == CFG_FILL_RANDOM ? (guint8)(r >> 56) : (guint8)(guint64)v;
      break;
    }
  }
}

/* What the GPU file's sass.ops says of an opcode (or of an opcode with a modifier) into @ii:
 * its unit (+ 1), latency, issue cycles, lanes and pipe, 0 where it says nothing. */
static void
apply_op(SmInsnInfo *ii, const CfgGpu *gpu, guint unit, guint latency, guint issue_cycles,
         guint lanes, guint pipe)
{
  if (unit && ii->space == ISA_SPACE_NONE) {
    IsaUnit u = (IsaUnit)(unit - 1);
    ii->unit = (guint8)u;
    ii->pipe = (guint8)u;
    ii->throttle_state = sm_unit_throttle_state(gpu, u);
    ii->fixed_latency = isa_unit_table[u].result == ISA_RESULT_FIXED;
    ii->result_state = isa_unit_table[u].result == ISA_RESULT_SCOREBOARD ? SM_STATE_SHORT_SCOREBOARD
                                                                         : SM_STATE_WAIT;
    ii->ii_ticks = (SM_TICKS_PER_CYCLE * 32) / gpu->units[u].lanes_per_scheduler;
    ii->issue_cycles = gpu->units[u].issue_cycles;
    ii->max_latency = 0;
    for (guint c = 0; c < ISA_UNIT_COUNT; c++) {
      guint l =
          gpu->units[u].latency_to[c] ? gpu->units[u].latency_to[c] : gpu->units[u].latency_cycles;
      ii->latency[c] = l;
      ii->max_latency = MAX(ii->max_latency, l);
    }
  }
  if (latency && ii->space == ISA_SPACE_NONE) {
    for (guint c = 0; c < ISA_UNIT_COUNT; c++)
      ii->latency[c] = latency;
    ii->max_latency = latency;
  }
  if (issue_cycles)
    ii->issue_cycles = issue_cycles;
  if (lanes)
    ii->ii_ticks = (SM_TICKS_PER_CYCLE * 32) / lanes;
  if (pipe && ii->unit == ISA_UNIT_ALU)
    ii->pipe = (guint8)(pipe == CFG_SASS_PIPE_INT ? SM_PIPE_INT : SM_PIPE_FMAHEAVY);
}

/* how each opcode runs on this GPU: the unit, latency, issue cycles and lanes of the GPU
 * file's sass.ops where it says (an opcode with a modifier over the opcode alone) */
static void
decode(SmGpu *sm)
{
  const CfgGpu *gpu = sm->cfg;
  const SassFunction *fn = sm->kernel->sass->fn;
  for (guint i = 0; i < fn->n_insns; i++) {
    SassOp op = (SassOp)fn->insns[i].op;
    SmInsnInfo *ii = &sm->info[i];
    apply_op(ii, gpu, gpu->sass.unit[op], gpu->sass.latency[op], gpu->sass.issue_cycles[op],
             gpu->sass.lanes[op], gpu->sass.pipe[op]);
    for (guint k = 0; k < gpu->sass.n_mod_ops; k++) {
      const CfgSassModOp *m = &gpu->sass.mod_ops[k];
      if (m->op == op && sass_has(&fn->insns[i], (SassMod)m->mod))
        apply_op(ii, gpu, m->unit, m->latency, m->issue_cycles, m->lanes, m->pipe);
    }
    if (gpu->sass.stall_counts)
      ii->stall = fn->insns[i].stall;
    if (gpu->sass.yield_hints)
      ii->no_yield = fn->insns[i].no_yield;
    if (op == SASS_OP_LDC && cfg_gpu_has_constant_cache(gpu)) {
      /* its result comes when the constant cache has served every address (sm_sass_issue()),
       * waited for in short_scoreboard; the cache's lines are its SM's, in issue order */
      ii->fixed_latency = 0;
      ii->result_state = SM_STATE_SHORT_SCOREBOARD;
      ii->may_run_ahead = 0;
    }
    /* what follows depends on lane values: never ahead of the loop */
    ii->may_run_ahead = 0;
    ii->writes_register = 0;
    const IsaDeps *d = &sm->prog->deps[i];
    for (guint k = 0; k < d->n_dst; k++)
      ii->writes_register |= sm->prog->reg_names[d->dst[k]][0] == 'R';
  }
}

void
sm_sass_init(SmGpu *sm)
{
  const CfgSass *cs = sm->kernel->sass;
  SmSass *x = g_new0(SmSass, 1);
  sm->sass = x;
  x->mem = exec_memory_new();
  x->buffer_level = g_new0(guint8, MAX(cs->n_args, 1u));
  x->params = g_new0(guint8, 4096);
  gsize at = 0;
  guint n_buffers = 0;
  g_autofree guint64 *bases = g_new0(guint64, MAX(cs->n_args, 1u));
  for (guint i = 0; i < cs->n_args; i++) {
    const CfgArg *a = &cs->args[i];
    gsize size = a->type == CFG_ARG_I32 || a->type == CFG_ARG_U32 || a->type == CFG_ARG_F32 ? 4 : 8;
    at = (at + size - 1) / size * size;
    guint64 v = a->bits;
    if (a->type == CFG_ARG_BUFFER && a->same_as) {
      v = bases[a->same_as - 1] + a->offset; /* a second pointer into an earlier buffer */
    } else if (a->type == CFG_ARG_BUFFER) {
      bases[i] = exec_memory_add(x->mem, a->name, a->bytes);
      fill(exec_memory_data(x->mem, n_buffers, NULL, NULL), a);
      x->buffer_level[n_buffers++] = a->level;
      v = bases[i] + a->offset;
    }
    memcpy(x->params + at, &v, size);
    at += size;
  }
  ExecLaunch launch = {.shared_bytes = cs->static_shared_bytes + cs->dynamic_shared_bytes,
                       .local_bytes = cs->local_bytes_per_thread,
                       .params = x->params,
                       .params_size = at};
  if (cs->constants.bytes) {
    x->constants = g_malloc0(cs->constants.bytes);
    fill(x->constants, &cs->constants);
    launch.constants = x->constants;
    launch.constants_size = cs->constants.bytes;
  }
  if (cfg_gpu_has_constant_cache(sm->cfg)) {
    x->constant_cache = g_new(SmConstants, 1);
    sm_constants_init(x->constant_cache, &sm->cfg->constant_cache, sm->n_sm,
                      EXEC_CBANK_PARAMS + at);
  }
  memcpy(launch.grid, cs->grid, sizeof launch.grid);
  memcpy(launch.block, cs->block, sizeof launch.block);
  /* the kernel was checked when its file was loaded: this cannot fail */
  x->kernel = exec_kernel_new(cs->fn, cs->path, x->mem, &launch, NULL);
  g_assert(x->kernel != NULL);
  decode(sm);
}

gboolean
sm_sass_uses_caches(const SmGpu *sm)
{
  for (guint b = 0; b < exec_memory_count(sm->sass->mem); b++)
    if (sm->sass->buffer_level[b] == CFG_LEVEL_CACHED)
      return TRUE;
  return FALSE;
}

void
sm_sass_clear(SmGpu *sm)
{
  SmSass *x = sm->sass;
  if (!x)
    return;
  for (guint b = 0; x->blocks && b < sm->n_block_slots; b++)
    exec_block_free(x->blocks[b]);
  g_free(x->blocks);
  exec_kernel_free(x->kernel);
  exec_memory_free(x->mem);
  if (x->constant_cache)
    sm_constants_clear(x->constant_cache);
  g_free(x->constant_cache);
  g_free(x->constants);
  g_free(x->params);
  g_free(x->buffer_level);
  g_clear_error(&x->error);
  g_strfreev(x->op_names);
  if (x->shadow)
    sm_shadow_free(x->shadow);
  g_free(x);
  sm->sass = NULL;
}

const char *const *
sm_sass_op_names(SmGpu *sm, guint *n)
{
  const SassFunction *fn = sm->kernel->sass->fn;
  if (!sm->sass->op_names) {
    sm->sass->op_names = g_new0(char *, fn->n_insns + 1u);
    for (guint i = 0; i < fn->n_insns; i++) {
      char op[96];
      sass_insn_opcode(&fn->insns[i], op, sizeof op);
      sm->sass->op_names[i] = g_strdup(op);
    }
  }
  *n = fn->n_insns;
  return (const char *const *)sm->sass->op_names;
}

ExecMemory *
sm_memory_image(SmGpu *sm)
{
  return sm->sass ? sm->sass->mem : NULL;
}

const GError *
sm_error(const SmGpu *sm)
{
  return sm->sass ? sm->sass->error : NULL;
}

/* ---- blocks ---- */

static void
fail(SmGpu *sm, SmWarp *w, guint64 t, GError *error)
{
  w->deps_at = SM_NEVER; /* it issues nothing more; the run stops (sm_run_until()) */
  if (G_UNLIKELY(sm->defer)) {
    sm->above->defer_error(sm, t, error); /* an SM on a thread: the earliest stops the run */
    return;
  }
  if (!sm->sass->error)
    sm->sass->error = error;
  else
    g_error_free(error);
}

void
sm_sass_set_error(SmGpu *sm, GError *error)
{
  g_clear_error(&sm->sass->error);
  sm->sass->error = error;
}

/* @w's next instruction and lanes from the executor; FALSE when it has none (exited, or
 * failed: sm->sass->error says) */
static gboolean
next(SmGpu *sm, SmWarp *w, guint64 t)
{
  guint32 pc, active;
  GError *error = NULL;
  ExecStepStatus s = exec_warp_peek(w->exec, &pc, &active, &error);
  if (s == EXEC_STEP_OK) {
    w->pc = pc;
    w->active = active;
    w->n_active = sm_popcount32(active);
    return TRUE;
  }
  w->done = TRUE;
  if (s == EXEC_STEP_ERROR)
    fail(sm, w, t, error);
  return FALSE;
}

void
sm_sass_launch(SmGpu *sm, guint b)
{
  SmBlock *blk = &sm->blocks[b];
  SmSass *x = sm->sass;
  if (!x->blocks)
    x->blocks = g_new0(ExecBlock *, MAX(sm->n_block_slots, 1u));
  exec_block_free(x->blocks[b]);
  x->blocks[b] = exec_block_new(x->kernel, blk->grid_index);
  for (guint i = 0; i < blk->n_warps; i++) {
    SmWarp *w = sm_block_warp(sm, blk, i);
    w->exec = &x->blocks[b]->warps[i];
    w->exec->smid = w->sm;
  }
}

void
sm_sass_settle(SmGpu *sm, SmWarp *w)
{
  if (!w->done)
    next(sm, w, w->launched);
}

/* ---- issue ---- */

gboolean
sm_sass_apart_ok(const SmGpu *sm)
{
  const SassFunction *fn = sm->kernel->sass->fn;
  for (guint i = 0; i < fn->n_insns; i++) {
    SassOp op = (SassOp)fn->insns[i].op;
    if (op == SASS_OP_ATOM || op == SASS_OP_ATOMG || op == SASS_OP_RED || op == SASS_OP_REDG)
      return FALSE; /* blocks that meet in global memory: their order is the single loop's */
  }
  return TRUE;
}

void
sm_sass_apart_begin(SmGpu *sm)
{
  SmSass *x = sm->sass;
  if (!x->shadow)
    x->shadow = sm_shadow_new(x->mem);
  exec_memory_set_guard(x->mem, sm_shadow_guard, x->shadow);
}

void
sm_sass_apart_end(SmGpu *sm)
{
  exec_memory_set_guard(sm->sass->mem, NULL, NULL);
}

void
sm_sass_window(SmGpu *sm, guint64 start, guint64 end)
{
  sm_shadow_window(sm->sass->shadow, start, end);
}

gboolean
sm_sass_conflicted(const SmGpu *sm)
{
  return sm_shadow_conflicted(sm->sass->shadow);
}

/* Whether @o takes turns at its scheduler's fetch at @t (sass.fetch_turns): a running warp not
 * waiting on memory, a barrier or a queue, whose instructions in hand last it until then. */
static inline gboolean
fetching(const SmWarp *o, guint64 t)
{
  if (!o->exists || o->done)
    return FALSE;
  if (o->deps_at <= t)
    return TRUE;
  switch (o->dep_state) {
  case SM_STATE_LONG_SCOREBOARD:
  case SM_STATE_SHORT_SCOREBOARD:
  case SM_STATE_LG_THROTTLE:
  case SM_STATE_MIO_THROTTLE:
  case SM_STATE_BARRIER:
  case SM_STATE_DRAIN:
    return FALSE;
  default:
    return TRUE;
  }
}

/* sass.fetch_turns: @w of @s issued at @t; @taken: a taken branch, whose wait ends at *@hold so
 * far.  The scheduler fetches for its fetching warps (fetching()) in turn, one a cycle in order
 * of position, counted from cycle 0: a taken branch's target is fetched at its warp's first turn
 * once the branch has resolved (branch_resolving_cycles after its issue) and its first two
 * instructions issue fetch_cycles later at the soonest, the third not before the warp's next
 * turn's fetch (no_instruction).  bench/h100/front.cu: the wait after a loop's branch grows with
 * the warps of its scheduler, at the target and at the third instruction after it, and not in the
 * same instructions with the branch falling through; mempipe.cu's raw launches, whose warps wait
 * on memory, hardly wait for their targets at 8 warps a scheduler. */
static void
fetch_in_turn(SmGpu *sm, const SmScheduler *s, SmWarp *w, guint64 t, gboolean taken, guint64 *hold)
{
  if (taken) {
    guint n = 0, rank = 0;
    for (guint p = 0; p < s->n_warps; p++) {
      const SmWarp *o = sm_sched_warp(sm, s, p);
      if (o == w)
        rank = n;
      n += o == w || fetching(o, t);
    }
    guint64 resolved = t + 1 + sm->cfg->sass.branch_resolving_cycles;
    guint64 turn = resolved + (rank + n - resolved % n) % n;
    guint64 ready = turn + sm->cfg->sass.fetch_cycles;
    if (ready > *hold) {
      *hold = ready;
      if (ready > w->deps_at) {
        w->deps_at = ready;
        w->dep_state = SM_STATE_WAIT;
      }
    }
    w->fetch_pc = w->pc + 2;
    w->fetch_ready = ready + n;
    return;
  }
  if (w->fetch_ready == 0)
    return;
  if (w->pc == w->fetch_pc) {
    if (w->fetch_ready > w->deps_at) {
      w->deps_at = w->fetch_ready;
      w->dep_state = SM_STATE_NO_INSTRUCTION;
    }
    w->fetch_ready = 0;
  } else if (w->pc + 1 != w->fetch_pc) { /* it left the target's two instructions */
    w->fetch_ready = 0;
  }
}

void
sm_sass_issue(SmGpu *sm, SmScheduler *s, SmWarp *w, guint64 t, guint slot)
{
  static const guint32 no_latency[ISA_UNIT_COUNT];
  SmSass *x = sm->sass;
  const SmInsnInfo *ii = &sm->info[w->pc];
  const IsaDeps *deps = &sm->prog->deps[w->pc];
  const SassInsn *in = &sm->kernel->sass->fn->insns[w->pc];
  SmStats *st = w->stats;
  guint64 now_ticks = sm_ticks(t);
  s->pipe_free[ii->pipe] = sm_pipe_accept(s->pipe_free[ii->pipe], now_ticks, ii->ii_ticks);
  s->busy_until = MAX(s->busy_until, t + ii->issue_cycles);
  w->exec->clock = t;
  ExecStep step;
  GError *error = NULL;
  ExecStepStatus status = exec_warp_step(w->exec, &step, &error);
  if (status == EXEC_STEP_ERROR || status == EXEC_STEP_EXITED) {
    if (!error)
      error = g_error_new(EXEC_ERROR, 1, "a warp issued with no lane left");
    fail(sm, w, t, error);
    return;
  }
  guint64 base = t;
  guint passes = 0;
  const guint32 *latency = ii->latency;
  if (ii->space == ISA_SPACE_GLOBAL && step.enabled) {
    guint64 lines[SM_MEMORY_MAX_LINES];
    guint bytes[SM_MEMORY_MAX_LINES];
    guint8 masks[SM_MEMORY_MAX_LINES];
    guint8 partial[SM_MEMORY_MAX_LINES];
    gboolean stage_store = ii->is_store && sm->lsu.on;
    guint n = sm_sass_lines(sm, &step, lines, bytes, masks, stage_store ? partial : NULL);
    guint level = ii->level;
    if (step.space == EXEC_SPACE_GLOBAL) {
      /* the level of the buffer the first lane reaches */
      gint b = exec_memory_index(x->mem, step.addr[__builtin_ctz(step.enabled)], 1);
      if (b >= 0)
        level = x->buffer_level[b];
    }
    /* .STRONG.GPU and .STRONG.SYS are coherent beyond the SM: the L2 serves them; .STRONG.SM
     * (PTX ld.ca) is coherent within it, and its L1 keeps it like a plain load */
    SmCacheOp op = sass_has(in, SASS_MOD_STRONG) && !sass_has(in, SASS_MOD_SM) ? SM_CACHE_OP_GLOBAL
                   : sass_has(in, SASS_MOD_CONSTANT) ? SM_CACHE_OP_CONSTANT
                                                     : SM_CACHE_OP_PLAIN;
    /* the SM's LD/ST path from here on (stores.c) */
    SmAccess a = {n,
                  lines,
                  bytes,
                  masks,
                  stage_store ? partial : NULL,
                  level,
                  op,
                  (guint)__builtin_popcount(step.enabled) * MAX(step.bytes, 1u)};
    base = sm_sass_access(sm, w, w->pc, t, &a);
    latency = no_latency;
    sm_issue_global_counted(sm, w, ii, t, base);
  } else if (step.space == EXEC_SPACE_CONST && x->constant_cache && step.enabled) {
    /* an LDC through its SM's constant cache (constants.h) */
    base = sm_constants_read(x->constant_cache, w->sm, step.addr, step.enabled, t);
    latency = no_latency;
  } else if (ii->space == ISA_SPACE_SHARED && step.enabled) {
    passes = sm_sass_bank_passes(sm, &step);
    guint64 first;
    base = sm_issue_shared(sm, w, st, ii, now_ticks, passes, &first);
    /* a store's registers are not to be overwritten until its data is read: by its last pass,
     * or as its first starts (short_scoreboard: bench/h100/mempipe.cu's smem stores) */
    if (ii->is_store && w->sb.held) {
      const CfgGpu *g = sm->cfg;
      guint64 read = g->smem.store_read_at == CFG_STORE_READ_FIRST_PASS
                         ? first + g->smem.store_read_cycles +
                               (MAX(step.bytes, 4u) / 4 - 1) * g->smem.store_register_cycles
                         : base;
      sm_scoreboard_hold(&w->sb, deps, read, SM_STATE_SHORT_SCOREBOARD);
    }
  } else if (ii->special == SM_SPECIAL_LDGDEPBAR) {
    sm_warp_close_copy_group(w);
  }
  guint64 complete = base + (latency == no_latency ? 0 : ii->max_latency);
  if (G_UNLIKELY(base == SM_PENDING))
    complete = t; /* the warp's finish takes the completion when it is known */
  sm_issue_write_port(sm, s, ii, t, &base, &complete);
  /* the SASS's own stall counts hold whether or not a lane runs it (an arithmetic op's result
   * is waited for even when no lane writes it); a memory access without lanes returns nothing */
  gboolean memory = ii->space == ISA_SPACE_GLOBAL || ii->space == ISA_SPACE_SHARED;
  if (step.enabled || !memory)
    for (guint k = 0; k < deps->n_dst; k++)
      sm_scoreboard_write(&w->sb, deps->dst[k], base, latency, (SmState)ii->result_state);
  w->finish = MAX(w->finish, complete);
  if (G_UNLIKELY(sm->trace))
    sm_trace_issue(sm, s, w, t, slot, complete, passes);
  sm_issue_count(w, st, ii, sm->prog->insns[w->pc].op, t);
  gboolean is_bra = in->op == SASS_OP_BRA;
  st->branches += is_bra;
  if (G_UNLIKELY((in->op == SASS_OP_CS2R || in->op == SASS_OP_S2R) && step.enabled &&
                 in->n_operands > 1 && in->opd[1].kind == SASS_OPD_SREG &&
                 in->opd[1].reg == SASS_SR_CLOCKLO)) {
    sm_clock_read(sm->clock, (guint)(w - sm->warps), t);
  }
  guint32 pc = w->pc;
  gboolean divergent =
      next(sm, w, t) && is_bra && step.enabled && step.enabled != step.active && w->exec->diverged;
  st->divergent_branches += divergent;
  if (status == EXEC_STEP_BARRIER && !w->done) {
    sm_warp_prepare(sm, w);
    sm_blocks_arrive(sm, w, t);
    return;
  }
  /* an EXIT waits past its stall count (branch_resolving) before its lanes left go on, or
   * before the warp leaves its slot */
  guint64 split = t + MAX(ii->stall, 1u);
  guint exit = in->op == SASS_OP_EXIT ? sm->cfg->sass.exit_cycles : 0;
  if (w->done) {
    if (exit) {
      w->fetch_after = (guint8)MIN(split - t, 255u);
      w->fetch_at = w->fetch_until = (guint8)MIN(split - t + exit, 255u);
    }
    return;
  }
  sm_warp_prepare(sm, w);
  gboolean taken = w->pc != pc + 1;
  const CfgBranch *b = sm->branch;
  guint extra = in->op == SASS_OP_BSSY                     ? b->bssy_cycles
                : in->op == SASS_OP_BSYNC                  ? b->bsync_cycles
                : is_bra && !taken && in->guard != SASS_PT ? b->not_taken_cycles
                                                           : 0;
  if (divergent)
    extra += b->divergent_cycles;
  /* the next issue waits for the branch's costs and the compiler's stall count (Nsight's
   * "wait"), whichever ends later */
  guint wait = (taken ? b->taken_cycles : 0) + extra;
  guint64 hold = MAX(wait ? t + 1 + wait : 0, ii->stall > 1 ? t + ii->stall : 0);
  hold = MAX(hold, exit ? split + exit : 0);
  if (hold > w->deps_at) {
    w->deps_at = hold;
    w->dep_state = SM_STATE_WAIT;
  }
  if (G_UNLIKELY(sm->cfg->sass.fetch_turns))
    fetch_in_turn(sm, s, w, t, taken && !exit, &hold);
  /* what a taken branch holds beyond its stall count the warp spends without an instruction
   * (Nsight's branch_resolving and no_instruction: the target is fetched), and only then waits
   * for the target's operands; an EXIT's, branch_resolving */
  if ((taken || exit) && hold > split) {
    guint resolving = exit ? (guint)(hold - split) : sm->cfg->sass.branch_resolving_cycles;
    w->fetch_after = (guint8)MIN(split - t, 255u);
    w->fetch_until = (guint8)MIN(hold - t, 255u);
    w->fetch_at = (guint8)MIN(MIN(split - t + resolving, hold - t), 255u);
  }
}
