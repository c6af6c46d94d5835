#include "sm.h"

#include <string.h>

#include "../traces/trace.h"
#include "engine.h"
#include "fixed.h"
#include "memory.h"
#include "scheduler.h"
#include "warp.h"

/* Everything the loop needs about one instruction of the stream, computed once. */
typedef struct {
  guint8 unit;           /* IsaUnit */
  guint8 space;          /* IsaSpace */
  guint8 result_state;   /* SmState of a warp waiting on the result */
  guint8 throttle_state; /* SmState of a warp waiting for the pipe */
  guint8 level;          /* GPU memory level */
  guint8 random_lines;
  guint8 is_load;
  guint16 n_trans;     /* global: transactions per warp-instruction */
  guint32 trans_bytes; /* global: bytes per transaction */
  guint32 issue_cycles;
  guint64 ii_ticks; /* pipe initiation interval */
  guint32 latency[ISA_UNIT_COUNT];
  guint32 max_latency;
} SmInsnInfo;

#define SM_STATE_ELIGIBLE SM_STATE_COUNT

/* A block slot of the SM and the grid block it holds. */
typedef struct {
  guint grid_index;
  guint sm, first_local, n_warps; /* its warps: local slots first_local.. of SM sm */
  guint live;                     /* warps that have not finished */
  guint arrived;                  /* warps waiting at BAR.SYNC */
  guint64 retire;                 /* last result of its finished warps */
  gboolean busy;                  /* holds a block */
  guint64 free_at;                /* when free: cycle it can take the next block */
} SmBlock;

struct Sm {
  const CfgGpu *gpu;
  const CfgKernel *kernel;
  const IsaProgram *prog;
  SmInsnInfo *info;
  SmWarp *warps;
  guint n_warps, n_done;
  guint64 *ready_pool;
  guint8 *producer_pool;
  SmScheduler *sched; /* n_sched: all SMs' schedulers */
  guint n_sched;
  guint *sched_pool;
  guint64 *wake_pool;
  guint *eligible;
  guint *due;
  guint issue_width;
  CfgDualIssue dual_issue;
  CfgPolicy policy;
  guint64 limit;
  SmEngine engine;
  SmMemory mem;
  guint64 *smem_free; /* per SM: ticks the banks finish their queue */
  guint64 smem_ticks_per_access, smem_depth_ticks;
  guint n_sm, sched_per_sm, warps_per_sm;
  guint lg_waiters; /* warps in lg_throttle until a memory transaction completes */
  gboolean single_cycle_pipe[ISA_UNIT_COUNT];         /* initiation interval of at most one cycle */
  SmBlock *blocks;                                    /* resident block slots */
  guint n_block_slots, slots_per_sm, warps_per_block; /* block slots: all SMs, per SM */
  guint grid_blocks, next_block, blocks_retired;
  guint *sm_blocks;  /* per SM: block slots holding a block */
  guint64 end_cycle; /* latest retirement so far */
  guint64 now;
  gboolean finished;
  SmStats stats;
  TraceSink *trace;    /* NULL: no records at all */
  guint8 *warp_exists; /* for the trace */
  guint64 traced_counter[TRACE_COUNTER_COUNT];
};

static void
precompute(Sm *sm)
{
  const CfgGpu *gpu = sm->gpu;
  sm->info = g_new0(SmInsnInfo, sm->prog->n_insns);
  for (guint i = 0; i < sm->prog->n_insns; i++) {
    const IsaInsn *insn = &sm->prog->insns[i];
    if (insn->kind != ISA_INSN_OP)
      continue;
    const IsaOpInfo *op = isa_op_info(insn->op);
    SmInsnInfo *ii = &sm->info[i];
    ii->unit = op->unit;
    ii->space = op->space;
    ii->is_load = isa_op_is_load(insn->op);
    ii->issue_cycles = cfg_gpu_op_issue_cycles(gpu, insn->op);
    guint lanes = gpu->units[op->unit].lanes_per_scheduler;
    ii->ii_ticks = (SM_TICKS_PER_CYCLE * 32) / lanes;
    for (guint u = 0; u < ISA_UNIT_COUNT; u++) {
      ii->latency[u] = cfg_gpu_op_latency(gpu, insn->op, u);
      ii->max_latency = MAX(ii->max_latency, ii->latency[u]);
    }
    switch (op->space) {
    case ISA_SPACE_NONE:
      ii->result_state = op->unit == ISA_UNIT_SFU ? SM_STATE_SHORT_SCOREBOARD : SM_STATE_WAIT;
      ii->throttle_state = SM_STATE_MATH_PIPE_THROTTLE;
      break;
    case ISA_SPACE_SHARED:
      ii->result_state = SM_STATE_SHORT_SCOREBOARD;
      ii->throttle_state = SM_STATE_MIO_THROTTLE;
      break;
    case ISA_SPACE_GLOBAL: {
      ii->result_state = SM_STATE_LONG_SCOREBOARD;
      ii->throttle_state = SM_STATE_LG_THROTTLE;
      ii->level = sm->kernel->level_map[insn->level];
      ii->random_lines = insn->pattern == ISA_PATTERN_RANDOM;
      guint n, bytes;
      sm_memory_transactions(gpu, insn->pattern, insn->stride, &n, &bytes);
      ii->n_trans = (guint16)n;
      ii->trans_bytes = bytes;
      break;
    }
    }
  }
}

/* Reads the scoreboard once for the instruction now at pc: its operands' readiness cannot
 * change until it issues (memory results are known at issue). */
static inline void
warp_prepare(const Sm *sm, SmWarp *w)
{
  if (w->done)
    return;
  const SmInsnInfo *ii = &sm->info[w->pc];
  SmState why = SM_STATE_WAIT;
  w->deps_at = sm_scoreboard_operands_ready(&w->sb, &sm->prog->insns[w->pc], ii->unit, &why);
  w->dep_state = (guint8)why;
  w->unit = ii->unit;
  w->space = ii->space;
  w->n_trans = ii->n_trans;
}

static void retire_block(Sm *sm, guint b);
static void dispatch_blocks(Sm *sm, guint64 t);

/* Warp slots are numbered so that warp g belongs to scheduler g % n_sched (all SMs' schedulers
 * numbered together) at position g / n_sched.  Local slot l of SM k: */
static inline SmWarp *
block_warp(Sm *sm, const SmBlock *blk, guint i)
{
  guint l = blk->first_local + i;
  guint s = sm->sched_per_sm;
  return &sm->warps[(l / s) * sm->n_sched + blk->sm * s + l % s];
}

static inline guint
warp_pos(const Sm *sm, const SmWarp *w)
{
  return (guint)(w - sm->warps) / sm->n_sched;
}

static void
wake_warp(Sm *sm, SmWarp *w, guint64 at)
{
  SmScheduler *s = &sm->sched[w->sched];
  s->wake[warp_pos(sm, w)] = at;
  s->min_wake = MIN(s->min_wake, at);
}

/* The next grid block takes block slot @b at cycle @t. */
static void
launch_block(Sm *sm, guint b, guint64 t)
{
  SmBlock *blk = &sm->blocks[b];
  blk->grid_index = sm->next_block++;
  blk->busy = TRUE;
  sm->sm_blocks[blk->sm]++;
  blk->live = blk->arrived = 0;
  blk->retire = t;
  const GArray *wp = sm->kernel->warp_passes, *bp = sm->kernel->block_passes;
  guint block_passes = g_array_index(bp, guint, blk->grid_index % bp->len);
  for (guint i = 0; i < blk->n_warps; i++) {
    SmWarp *w = block_warp(sm, blk, i);
    guint passes = g_array_index(wp, guint, i % wp->len) * block_passes;
    w->pc = 0;
    w->depth = 0;
    w->issued = 0;
    w->launched = w->finish = w->last_issue = t;
    w->done = passes == 0;
    w->passes_left = passes ? passes - 1 : 0;
    if (!w->done)
      sm_warp_settle(w, sm->prog, sm->limit);
    if (w->done) {
      sm->sched[w->sched].wake[warp_pos(sm, w)] = SM_NEVER;
      continue;
    }
    warp_prepare(sm, w);
    blk->live++;
    wake_warp(sm, w, t);
  }
  if (blk->live == 0)
    retire_block(sm, b);
}

static void
retire_block(Sm *sm, guint b)
{
  SmBlock *blk = &sm->blocks[b];
  sm->blocks_retired++;
  sm->end_cycle = MAX(sm->end_cycle, blk->retire);
  blk->busy = FALSE;
  sm->sm_blocks[blk->sm]--;
  blk->free_at = blk->retire + sm->gpu->block_launch_cycles;
  if (sm->next_block < sm->grid_blocks)
    sm_engine_push(&sm->engine, blk->free_at, 1, SM_EVENT_BLOCK_LAUNCH, b);
}

/* The block scheduler: while grid blocks remain and slots are free by cycle @t, the next block
 * goes to a free slot of the SM holding the fewest blocks (the lowest-numbered on ties), so a
 * wave spreads over the SMs. */
static void
dispatch_blocks(Sm *sm, guint64 t)
{
  while (sm->next_block < sm->grid_blocks) {
    guint best = G_MAXUINT;
    for (guint b = 0; b < sm->n_block_slots; b++) {
      const SmBlock *blk = &sm->blocks[b];
      if (blk->busy || blk->free_at > t)
        continue;
      if (best == G_MAXUINT || sm->sm_blocks[blk->sm] < sm->sm_blocks[sm->blocks[best].sm])
        best = b;
    }
    if (best == G_MAXUINT)
      return;
    launch_block(sm, best, t);
  }
}

/* Every live warp of block @b has arrived at BAR.SYNC: they go on from the next cycle. */
static void
release_barrier(Sm *sm, guint b, guint64 t)
{
  SmBlock *blk = &sm->blocks[b];
  for (guint i = 0; i < blk->n_warps; i++) {
    SmWarp *w = block_warp(sm, blk, i);
    if (w->done || w->dep_state != SM_STATE_BARRIER)
      continue;
    warp_prepare(sm, w);
    wake_warp(sm, w, t + 1);
  }
  blk->arrived = 0;
}

/* A warp has issued its last instruction. */
static void
warp_finished(Sm *sm, SmWarp *w)
{
  guint64 end = MAX(w->finish, w->last_issue + 1);
  sm->stats.resident_warp_cycles += end - w->launched;
  SmBlock *blk = &sm->blocks[w->block];
  blk->retire = MAX(blk->retire, end);
  blk->live--;
  if (blk->live == 0)
    retire_block(sm, w->block);
  else if (blk->arrived > 0 && blk->arrived == blk->live)
    release_barrier(sm, w->block, w->last_issue); /* exited warps no longer count */
}

Sm *
sm_new(const CfgGpu *gpu, const CfgKernel *kernel)
{
  Sm *sm = g_new0(Sm, 1);
  sm->gpu = gpu;
  sm->kernel = kernel;
  sm->prog = kernel->program;
  sm->n_sm = gpu->sm_count;
  sm->warps_per_sm = kernel->warps_per_sm;
  sm->sched_per_sm = gpu->schedulers;
  /* every scheduler gets the same number of slots; the extra ones never hold a warp */
  sm->n_warps = (kernel->warps_per_sm + sm->sched_per_sm - 1) / sm->sched_per_sm *
                sm->sched_per_sm * sm->n_sm;
  sm->n_sched = sm->sched_per_sm * sm->n_sm;
  sm->sched = g_new0(SmScheduler, sm->n_sched);
  sm->issue_width = gpu->issue_width;
  sm->dual_issue = gpu->dual_issue;
  sm->policy = gpu->policy;
  sm->limit = kernel->instructions_per_warp;
  precompute(sm);

  guint n_regs = MAX(sm->prog->n_regs, 1u);
  sm->warps = g_new0(SmWarp, sm->n_warps);
  sm->ready_pool = g_new0(guint64, (gsize)sm->n_warps * n_regs * ISA_UNIT_COUNT);
  sm->producer_pool = g_new0(guint8, (gsize)sm->n_warps * n_regs);
  sm->sched_pool = g_new0(guint, sm->n_warps);
  sm->wake_pool = g_new0(guint64, sm->n_warps);
  sm->eligible = g_new0(guint, sm->n_warps + 1);
  sm->due = g_new0(guint, sm->n_warps + 1);
  guint at = 0;
  for (guint s = 0; s < sm->n_sched; s++) {
    sm->sched[s].warps = sm->sched_pool + at;
    sm->sched[s].wake = sm->wake_pool + at;
    for (guint w = s; w < sm->n_warps; w += sm->n_sched)
      sm->sched_pool[at++] = w;
    sm->sched[s].n_warps = (guint)(sm->sched_pool + at - sm->sched[s].warps);
    sm->sched[s].last = G_MAXUINT;
  }
  for (guint i = 0; i < sm->n_warps; i++) {
    SmWarp *w = &sm->warps[i];
    w->sched = (guint16)(i % sm->n_sched);
    w->sm = (guint16)(w->sched / sm->sched_per_sm);
    w->sb.ready = sm->ready_pool + (gsize)i * n_regs * ISA_UNIT_COUNT;
    w->sb.producer = sm->producer_pool + (gsize)i * n_regs;
    for (guint r = 0; r < n_regs; r++)
      w->sb.producer[r] = SM_STATE_WAIT;
    w->state = SM_STATE_NO_INSTRUCTION;
    w->rng = sm_hash64(gpu->memory.seed * 0x9E3779B97F4A7C15ULL + i) | 1;
    w->done = TRUE; /* until a block launches into its slot */
    sm->sched[w->sched].wake[i / sm->n_sched] = SM_NEVER;
  }
  sm->warps_per_block = MAX(kernel->warps_per_block, 1u);
  sm->slots_per_sm = (sm->warps_per_sm + sm->warps_per_block - 1) / sm->warps_per_block;
  sm->n_block_slots = sm->slots_per_sm * sm->n_sm;
  sm->blocks = g_new0(SmBlock, MAX(sm->n_block_slots, 1u));
  for (guint k = 0; k < sm->n_sm; k++) {
    for (guint b = 0; b < sm->slots_per_sm; b++) {
      SmBlock *blk = &sm->blocks[k * sm->slots_per_sm + b];
      blk->sm = k;
      blk->first_local = b * sm->warps_per_block;
      blk->n_warps = MIN(sm->warps_per_block, sm->warps_per_sm - blk->first_local);
      for (guint i = 0; i < blk->n_warps; i++) {
        SmWarp *w = block_warp(sm, blk, i);
        w->block = (guint16)(k * sm->slots_per_sm + b);
        w->exists = TRUE;
      }
    }
  }
  sm->grid_blocks = kernel->grid_blocks;
  sm->sm_blocks = g_new0(guint, sm->n_sm);

  for (guint u = 0; u < ISA_UNIT_COUNT; u++)
    sm->single_cycle_pipe[u] = gpu->units[u].lanes_per_scheduler >= 32;
  sm->smem_free = g_new0(guint64, sm->n_sm);
  sm->smem_ticks_per_access = sm_ticks_from_cycles(gpu->smem.cycles_per_access);
  sm->smem_depth_ticks = sm->smem_ticks_per_access * gpu->smem.queue_depth;
  sm_engine_init(&sm->engine, gpu->memory.max_outstanding + 64);
  sm_memory_init(&sm->mem, gpu, sm->n_sm, &sm->engine);

  dispatch_blocks(sm, 0); /* the first wave */
  sm->stats.warps = sm->warps_per_sm * sm->n_sm;
  sm->stats.max_warps = gpu->limits.max_warps * sm->n_sm;
  sm->stats.n_sm = sm->n_sm;
  sm->stats.schedulers = sm->sched_per_sm;
  sm->stats.n_levels = gpu->memory.n_levels;
  sm->finished = sm->blocks_retired == sm->grid_blocks;
  return sm;
}

void
sm_free(Sm *sm)
{
  if (sm == NULL)
    return;
  sm_memory_clear(&sm->mem);
  sm_engine_clear(&sm->engine);
  g_free(sm->info);
  g_free(sm->warps);
  g_free(sm->ready_pool);
  g_free(sm->producer_pool);
  g_free(sm->sched_pool);
  g_free(sm->wake_pool);
  g_free(sm->eligible);
  g_free(sm->due);
  g_free(sm->blocks);
  g_free(sm->sm_blocks);
  g_free(sm->smem_free);
  g_free(sm->sched);
  g_free(sm->warp_exists);
  g_free(sm);
}

/* Kept out of line so the untraced hot path stays small. */
static G_GNUC_NO_INLINE __attribute__((cold)) void
trace_state(Sm *sm, SmWarp *w, SmState state, guint64 at)
{
  if (sm->trace->klass->state)
    sm->trace->klass->state(sm->trace, at, (guint)(w - sm->warps), state);
}

static G_GNUC_NO_INLINE __attribute__((cold)) void
trace_issue(Sm *sm, SmScheduler *s, SmWarp *w, guint64 t, guint slot, guint64 complete)
{
  const IsaInsn *insn = &sm->prog->insns[w->pc];
  const SmInsnInfo *ii = &sm->info[w->pc];
  TraceIssue rec = {.cycle = t,
                    .complete = complete,
                    .pipe_free = sm_ticks_ceil_cycle(s->pipe_free[ii->unit]),
                    .sched = (guint)(s - sm->sched),
                    .slot = slot,
                    .warp = (guint)(w - sm->warps),
                    .pc = w->pc,
                    .op = insn->op,
                    .unit = ii->unit,
                    .memory = ii->space != ISA_SPACE_NONE};
  sm->trace->klass->issue(sm->trace, &rec);
}

static inline void
set_state(Sm *sm, SmWarp *w, SmState state, guint64 at)
{
  if (w->state == state)
    return;
  sm->stats.state_cycles[w->state] += at - w->state_since;
  if (G_UNLIKELY(sm->trace))
    trace_state(sm, w, state, at);
  w->state = (guint8)state;
  w->state_since = at;
}

/* Why @w cannot issue its next instruction at cycle @t (or SM_STATE_ELIGIBLE), and the first
 * cycle that may change (SM_NEVER: only a memory completion can). */
static inline guint
warp_check(const Sm *sm, const SmWarp *w, const SmScheduler *s, guint64 t, guint64 *wake)
{
  if (w->deps_at > t) {
    *wake = w->deps_at;
    return w->dep_state;
  }
  guint64 pipe = s->pipe_free[w->unit];
  if (pipe >= sm_ticks(t + 1)) {
    *wake = pipe >> SM_TICK_SHIFT;
    return sm->info[w->pc].throttle_state;
  }
  if (w->space == ISA_SPACE_NONE) {
    *wake = t + 1;
    return SM_STATE_ELIGIBLE;
  }
  if (w->space == ISA_SPACE_GLOBAL &&
      sm->mem.sm_outstanding[w->sm] + w->n_trans > sm->mem.max_outstanding) {
    *wake = SM_NEVER;
    return SM_STATE_LG_THROTTLE;
  }
  if (w->space == ISA_SPACE_SHARED && sm->smem_free[w->sm] >= sm_ticks(t) + sm->smem_depth_ticks) {
    *wake = ((sm->smem_free[w->sm] - sm->smem_depth_ticks) >> SM_TICK_SHIFT) + 1;
    return SM_STATE_MIO_THROTTLE;
  }
  *wake = t + 1;
  return SM_STATE_ELIGIBLE;
}

static void
issue(Sm *sm, SmScheduler *s, SmWarp *w, guint64 t, guint slot)
{
  static const guint32 no_latency[ISA_UNIT_COUNT];
  const IsaInsn *insn = &sm->prog->insns[w->pc];
  const SmInsnInfo *ii = &sm->info[w->pc];
  guint64 now_ticks = sm_ticks(t);
  s->pipe_free[ii->unit] = MAX(s->pipe_free[ii->unit], now_ticks) + ii->ii_ticks;
  s->busy_until = MAX(s->busy_until, t + ii->issue_cycles);
  /* the result is ready for a consumer on unit u at base + latency[u] */
  guint64 base = t;
  const guint32 *latency = ii->latency;
  switch (ii->space) {
  case ISA_SPACE_GLOBAL: {
    guint64 line = ii->random_lines ? 0 : sm_rng_next(&w->rng) >> 24;
    base = sm_memory_access(&sm->mem, w->sm, ii->level, t, ii->n_trans, ii->trans_bytes, line,
                            ii->random_lines, &w->rng);
    latency = no_latency;
    if (ii->is_load) {
      sm->stats.global_loads++;
      sm->stats.global_load_latency += base - t;
    } else {
      sm->stats.global_stores++;
    }
    break;
  }
  case ISA_SPACE_SHARED: {
    guint64 start = MAX(now_ticks, sm->smem_free[w->sm]);
    sm->smem_free[w->sm] = start + sm->smem_ticks_per_access;
    base = sm_ticks_ceil_cycle(start);
    sm->stats.shared_accesses++;
    break;
  }
  default:
    break;
  }
  if (insn->dst != ISA_NO_REG)
    sm_scoreboard_write(&w->sb, insn->dst, base, latency, (SmState)ii->result_state);
  guint64 complete = base + (latency == no_latency ? 0 : ii->max_latency);
  w->finish = MAX(w->finish, complete);
  if (G_UNLIKELY(sm->trace))
    trace_issue(sm, s, w, t, slot, complete);
  w->issued++;
  w->last_issue = t;
  sm->stats.issued++;
  sm->stats.issued_unit[ii->unit]++;
  sm->stats.issued_op[insn->op]++;
  w->pc++;
  sm_warp_settle(w, sm->prog, sm->limit);
  warp_prepare(sm, w);
  if (G_UNLIKELY(insn->op == ISA_OP_BAR_SYNC) && !w->done) {
    /* wait for the block's other live warps: not before a release */
    w->deps_at = SM_NEVER;
    w->dep_state = SM_STATE_BARRIER;
    SmBlock *blk = &sm->blocks[w->block];
    if (++blk->arrived == blk->live)
      release_barrier(sm, w->block, t);
  }
}

/* Sets the state an issuing warp has from the next cycle on; returns its wake cycle. */
static guint64
after_issue(Sm *sm, SmScheduler *s, SmWarp *w, guint64 t)
{
  set_state(sm, w, SM_STATE_SELECTED, t);
  if (w->done) {
    set_state(sm, w, SM_STATE_NO_INSTRUCTION, t + 1);
    sm->n_done++;
    warp_finished(sm, w);
    return SM_NEVER;
  }
  guint64 wake;
  guint st = warp_check(sm, w, s, t + 1, &wake);
  if (st == SM_STATE_ELIGIBLE) {
    wake = t + 1; /* looked at again next cycle */
  } else {
    set_state(sm, w, (SmState)st, t + 1);
    if (st == SM_STATE_LG_THROTTLE && wake == SM_NEVER)
      sm->lg_waiters++;
  }
  return wake;
}

static void
fire_events(Sm *sm, guint64 t)
{
  SmEvent ev;
  gboolean freed = FALSE;
  while (sm_engine_next_cycle(&sm->engine) <= t && sm_engine_pop(&sm->engine, &ev)) {
    switch (ev.kind) {
    case SM_EVENT_BLOCK_LAUNCH:
      dispatch_blocks(sm, t);
      break;
    case SM_EVENT_MEM_START:
      sm->mem.queued--;
      break;
    case SM_EVENT_MEM_DONE:
      sm_memory_complete(&sm->mem, ev.arg);
      freed = TRUE;
      break;
    default:
      g_assert_not_reached();
    }
  }
  if (freed && sm->lg_waiters > 0) {
    for (guint si = 0; si < sm->n_sched; si++) {
      SmScheduler *s = &sm->sched[si];
      for (guint p = 0; p < s->n_warps; p++) {
        if (s->wake[p] == SM_NEVER && !sm->warps[s->warps[p]].done) {
          s->wake[p] = t;
          s->min_wake = t;
        }
      }
    }
    sm->lg_waiters = 0;
  }
}

static void
finish(Sm *sm)
{
  guint64 end = sm->end_cycle;
  for (guint i = 0; i < sm->n_warps; i++) {
    SmWarp *w = &sm->warps[i];
    if (!w->exists)
      continue; /* padding slot */
    sm->stats.state_cycles[w->state] += end - MIN(w->state_since, end);
    w->state_since = end;
  }
  sm->stats.cycles = end;
  for (guint l = 0; l < sm->mem.n_levels; l++) {
    sm->stats.transactions[l] = sm->mem.levels[l].transactions;
    sm->stats.bytes[l] = sm->mem.levels[l].bytes;
  }
  sm->stats.peak_outstanding = sm->mem.peak_outstanding;
  sm->finished = TRUE;
}

/* One scheduler's cycle: look at its warps that may have changed, issue by policy.  Returns
 * the earliest cycle any of its warps may change. */
static guint64
schedule(Sm *sm, guint si, guint64 t)
{
  SmScheduler *s = &sm->sched[si];
  if (s->min_wake > t)
    return s->min_wake;
  /* branch-free pass: positions due now, and the earliest wake of the others */
  guint64 min_a = SM_NEVER, min_b = SM_NEVER; /* two chains: half the dependency length */
  guint n_due = 0, q = 0;
  for (; q + 1 < s->n_warps; q += 2) {
    guint64 wa = s->wake[q], wb = s->wake[q + 1];
    sm->due[n_due] = q;
    n_due += wa <= t;
    sm->due[n_due] = q + 1;
    n_due += wb <= t;
    guint64 la = wa > t ? wa : SM_NEVER, lb = wb > t ? wb : SM_NEVER;
    min_a = la < min_a ? la : min_a;
    min_b = lb < min_b ? lb : min_b;
  }
  if (q < s->n_warps) {
    guint64 wa = s->wake[q];
    sm->due[n_due] = q;
    n_due += wa <= t;
    min_a = wa > t && wa < min_a ? wa : min_a;
  }
  guint64 smin = MIN(min_a, min_b);
  guint n_el = 0;
  for (guint d = 0; d < n_due; d++) {
    guint p = sm->due[d];
    SmWarp *w = &sm->warps[p * sm->n_sched + si];
    if (w->state == SM_STATE_NOT_SELECTED && w->space == ISA_SPACE_NONE &&
        sm->single_cycle_pipe[w->unit]) {
      /* still eligible: its operands were ready, and a pipe that takes one instruction per
       * cycle is free again at the start of every cycle */
      sm->eligible[n_el++] = p;
      s->wake[p] = t + 1;
      continue;
    }
    guint64 wake;
    guint st = warp_check(sm, w, s, t, &wake);
    if (st == SM_STATE_ELIGIBLE) {
      /* provisionally not selected; the warp that issues is set to selected below */
      sm->eligible[n_el++] = p;
      set_state(sm, w, SM_STATE_NOT_SELECTED, t);
      s->wake[p] = t + 1;
      continue;
    }
    set_state(sm, w, (SmState)st, t);
    s->wake[p] = wake;
    if (st == SM_STATE_LG_THROTTLE && wake == SM_NEVER)
      sm->lg_waiters++;
    smin = MIN(smin, wake);
  }
  if (n_el > 0 && s->busy_until > t) {
    for (guint i = 0; i < n_el; i++)
      s->wake[sm->eligible[i]] = s->busy_until;
    smin = MIN(smin, s->busy_until);
    n_el = 0;
  } else if (n_el > 0) {
    sm->stats.sched_issue_cycles[si % sm->sched_per_sm]++;
  }
  guint slots = sm->issue_width, n_taken = 0;
  while (slots > 0) {
    guint i = sm_scheduler_pick(s, sm->policy, sm->eligible, n_el);
    if (i == G_MAXUINT)
      break;
    guint p = sm->eligible[i];
    sm->eligible[i] = SM_SCHEDULER_TAKEN;
    n_taken++;
    SmWarp *w = &sm->warps[p * sm->n_sched + si];
    guint64 wake;
    if (slots < sm->issue_width) {
      /* a later slot of this cycle: earlier issues may have taken its pipe */
      guint st = warp_check(sm, w, s, t, &wake);
      if (st != SM_STATE_ELIGIBLE) {
        set_state(sm, w, (SmState)st, t);
        s->wake[p] = wake;
        if (st == SM_STATE_LG_THROTTLE && wake == SM_NEVER)
          sm->lg_waiters++;
        smin = MIN(smin, wake);
        continue;
      }
    }
    issue(sm, s, w, t, sm->issue_width - slots);
    slots--;
    s->last = p;
    if (sm->dual_issue == CFG_DUAL_SAME_WARP) {
      /* further independent instructions of the same warp, in order */
      while (slots > 0 && !w->done && warp_check(sm, w, s, t, &wake) == SM_STATE_ELIGIBLE) {
        issue(sm, s, w, t, sm->issue_width - slots);
        slots--;
      }
      slots = 0;
    }
    wake = after_issue(sm, s, w, t);
    s->wake[p] = wake;
    smin = MIN(smin, wake);
  }
  if (n_taken < n_el)
    smin = t + 1; /* eligible warps left waiting: look again next cycle */
  s->min_wake = smin;
  return smin;
}

static void
trace_counters(Sm *sm, guint64 t)
{
  const guint64 now[TRACE_COUNTER_COUNT] = {sm->mem.outstanding, sm->mem.queued};
  for (guint c = 0; c < TRACE_COUNTER_COUNT; c++) {
    if (now[c] != sm->traced_counter[c]) {
      sm->traced_counter[c] = now[c];
      if (sm->trace->klass->counter)
        sm->trace->klass->counter(sm->trace, t, c, now[c]);
    }
  }
}

static void
step(Sm *sm)
{
  guint64 t = sm->now;
  sm->stats.visited_cycles++;
  if (G_UNLIKELY(sm->trace) && sm->trace->klass->advance)
    sm->trace->klass->advance(sm->trace, t);
  fire_events(sm, t);
  for (guint si = 0; si < sm->n_sched; si++)
    schedule(sm, si, t);
  /* after scheduling: issues push memory events, and a retiring block its successor's launch;
   * read back every scheduler too: a barrier release can wake warps of one already done */
  guint64 next = sm_engine_next_cycle(&sm->engine);
  for (guint si = 0; si < sm->n_sched; si++)
    next = MIN(next, sm->sched[si].min_wake);
  if (G_UNLIKELY(sm->trace))
    trace_counters(sm, t);
  sm->now = next;
}

void
sm_run_until(Sm *sm, guint64 cycle)
{
  while (!sm->finished && sm->now < cycle) {
    if (G_UNLIKELY(sm->trace) && trace_sink_failed(sm->trace)) {
      finish(sm); /* the trace hit its size limit or could not be written: stop */
      break;
    }
    if (sm->blocks_retired == sm->grid_blocks) {
      finish(sm);
      break;
    }
    step(sm);
    if (sm->now == SM_NEVER) {
      /* nothing can ever happen again: every warp finished (checked above next time) */
      g_assert(sm->blocks_retired == sm->grid_blocks);
      finish(sm);
    }
  }
  if (!sm->finished && sm->blocks_retired == sm->grid_blocks)
    finish(sm);
}

void
sm_run(Sm *sm)
{
  sm_run_until(sm, SM_NEVER);
}

gboolean
sm_finished(const Sm *sm)
{
  return sm->finished;
}

guint64
sm_now(const Sm *sm)
{
  return sm->now;
}

const SmStats *
sm_stats(const Sm *sm)
{
  return &sm->stats;
}

gboolean
sm_attach_trace(Sm *sm, TraceSink *sink, GError **error)
{
  static const char *unit_names[ISA_UNIT_COUNT];
  static const char *state_names[SM_STATE_COUNT];
  static const char *op_names[ISA_OP_COUNT];
  for (guint u = 0; u < ISA_UNIT_COUNT; u++)
    unit_names[u] = isa_unit_name(u);
  for (guint i = 0; i < SM_STATE_COUNT; i++)
    state_names[i] = sm_state_name(i);
  for (guint i = 0; i < ISA_OP_COUNT; i++)
    op_names[i] = isa_op_info(i)->mnemonic;
  g_free(sm->warp_exists);
  sm->warp_exists = g_new0(guint8, sm->n_warps);
  for (guint i = 0; i < sm->n_warps; i++)
    sm->warp_exists[i] = sm->warps[i].exists;
  sink->info = (TraceInfo){.n_warps = sm->n_warps,
                           .warp_exists = sm->warp_exists,
                           .n_sched = sm->n_sched,
                           .n_states = SM_STATE_COUNT,
                           .state_names = state_names,
                           .n_units = ISA_UNIT_COUNT,
                           .unit_names = unit_names,
                           .op_names = op_names,
                           .n_ops = ISA_OP_COUNT,
                           .gpu_name = sm->gpu->name,
                           .kernel_name = sm->kernel->name};
  if (!sink->klass->begin(sink, &sink->info, error))
    return FALSE;
  sm->trace = sink;
  sm->mem.count_queued = TRUE;
  return TRUE;
}
