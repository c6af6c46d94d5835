/* Building one simulated machine from a GPU and a kernel (its warps, schedulers, pools and
 * units, the first wave of blocks) and freeing it.  Not how it runs: the cycle loop (loop.c);
 * not what the layer above adds to it (fast/run.c: sm_new()). */
#include "machine.h"

static gboolean portable_pass;
static gboolean no_run_ahead;

void
sm_set_portable_pass(gboolean on)
{
  portable_pass = on;
}

void
sm_set_run_ahead(gboolean on)
{
  no_run_ahead = !on;
}

/* The kernel reads the clock (CS2R / S2R SR_CLOCKLO): a kernel over SASS may (its reads are
 * told apart when they issue), a stream if it has such an instruction. */
static gboolean
reads_clock(const SmGpu *sm)
{
  if (sm->kernel->sass)
    return TRUE;
  for (guint i = 0; i < sm->prog->n_insns; i++)
    if (sm->prog->insns[i].kind == ISA_INSN_OP && sm->info[i].special == SM_SPECIAL_CLOCK)
      return TRUE;
  return FALSE;
}

/* The stream has a fence at GPU scope (MEMBAR). */
static gboolean
has_fence(const SmGpu *sm)
{
  for (guint i = 0; i < sm->prog->n_insns; i++)
    if (sm->prog->insns[i].kind == ISA_INSN_OP && sm->info[i].special == SM_SPECIAL_FENCE)
      return TRUE;
  return FALSE;
}

guint64
sm_l1_bytes(const CfgGpu *gpu, const CfgKernel *kernel, guint blocks_per_sm)
{
  const CfgCache *l1 = &gpu->caches.l1;
  if (l1->unified_bytes == 0)
    return l1->bytes;
  guint64 shared = (guint64)blocks_per_sm *
                   (kernel->shared_memory_per_block + gpu->limits.reserved_shared_memory_per_block);
  guint64 left = l1->unified_bytes > shared ? l1->unified_bytes - shared : 0;
  guint64 unit = (guint64)gpu->memory.line_bytes * l1->ways;
  return left / unit * unit;
}

void
sm_count_into(SmGpu *sm, guint m, SmStats *stats)
{
  for (guint q = 0; q < sm->sched_per_sm; q++)
    sm->mp[m].sched[q].stats = stats;
  for (guint l = 0; l < sm->warp_slots_per_sm; l++)
    sm->mp[m].warps[l].stats = stats;
}

void
sm_machine_init(SmGpu *sm, const CfgGpu *gpu, const CfgKernel *kernel)
{
  sm->cfg = gpu;
  sm->kernel = kernel;
  sm->prog = kernel->program;
  sm->n_sm = gpu->sm_count;
  sm->warps_per_sm = kernel->warps_per_sm;
  sm->sched_per_sm = gpu->schedulers;
  /* every scheduler gets the same number of slots; the extra ones never hold a warp */
  sm->warp_slots_per_sm =
      (kernel->warps_per_sm + sm->sched_per_sm - 1) / sm->sched_per_sm * sm->sched_per_sm;
  sm->n_warps = sm->warp_slots_per_sm * sm->n_sm;
  sm->n_sched = sm->sched_per_sm * sm->n_sm;
  sm->sched = g_new0(SmScheduler, sm->n_sched);
  sm->lg_woke = G_MAXUINT;
  sm->issue_width = gpu->issue_width;
  sm->dual_issue = gpu->dual_issue;
  sm->policy = gpu->policy;
  sm->block_priority = gpu->block_priority;
  sm->limit = kernel->instructions_per_warp;
  sm->branch = kernel->sass ? &gpu->sass.branch : &gpu->branch;
  sm->wb_ports = gpu->register_write_ports;
  sm->info = sm_pipe_decode(gpu, kernel);
  if (sm->wb_ports >= gpu->issue_width) {
    /* the ports can only run short when results of different latencies meet: with every
     * register result a fixed latency after issue, and no more issues per cycle than ports,
     * they never do; then the check is skipped (the results are the same) */
    gboolean mixed = FALSE;
    guint32 latency = 0;
    for (guint i = 0; i < sm->prog->n_insns; i++) {
      const SmInsnInfo *ii = &sm->info[i];
      if (sm->prog->insns[i].kind != ISA_INSN_OP || !ii->writes_register)
        continue;
      if (!ii->fixed_latency || (latency && ii->max_latency != latency))
        mixed = TRUE;
      latency = ii->max_latency;
    }
    if (!mixed)
      sm->wb_ports = 0;
  }
  sm->hot_ok = sm->wb_ports == 0; /* with ports to check, eligibility changes every cycle */
  /* a barrier's release wakes warps of other schedulers; the active pool changes with every
   * warp's state; a warp issuing two instructions a cycle may issue a memory access with the
   * second */
  if (reads_clock(sm))
    sm->clock = sm_clock_new(sm->n_warps); /* before mirroring and fast-forward look */
  sm->fences = gpu->memory.fence != CFG_FENCE_NONE && has_fence(sm);
  sm->fence_cycles = gpu->memory.fence_cycles;
  if (sm->fences)
    sm->fence_stores = g_new0(guint64, sm->n_sm);
  sm->yield_hints = kernel->sass && gpu->sass.yield_hints;
  sm->run_ahead_ok = !no_run_ahead && !kernel->sass && !sm->clock && !sm->fences &&
                     sm->policy != CFG_POLICY_TWO_LEVEL &&
                     !(sm->issue_width > 1 && sm->dual_issue == CFG_DUAL_SAME_WARP);

  guint n_regs = MAX(sm->prog->n_regs, 1u);
  sm->warps = g_new0(SmWarp, sm->n_warps);
  sm->pools.ready = g_new0(guint64, (gsize)sm->n_warps * n_regs * ISA_UNIT_COUNT);
  sm->pools.producer = g_new0(guint8, (gsize)sm->n_warps * n_regs);
  if (kernel->sass && cfg_gpu_has_lsu(gpu)) { /* the LD/ST stage: kernels over SASS (lsu.h) */
    sm_lsu_init(&sm->lsu, gpu, sm->n_sm, MIN(kernel->grid_blocks, sm->n_sm));
    if (sm->lsu.queue)
      sm->room_freed = g_new0(guint8, sm->n_sm);
    if (gpu->lsu.store_read_cycles || gpu->lsu.store_buffer || gpu->lsu.store_queue) {
      sm->pools.held = g_new0(guint64, (gsize)sm->n_warps * n_regs);
      sm->pools.held_state = g_new0(guint8, (gsize)sm->n_warps * n_regs);
    }
  }
  sm->pools.slots = g_new0(guint, sm->n_warps);
  sm->min_wake = g_new0(guint64, sm->n_sched); /* every scheduler looks at cycle 0 */
  sm->pools.wake = g_new0(guint64, sm->n_warps);
  sm->pools.age = g_new0(guint64, sm->n_warps);
  sm->pools.resumed = g_new0(guint64, sm->n_warps);
  sm->pools.grid = g_new0(guint32, sm->n_warps);
  if (sm->yield_hints && gpu->sass.fair_window)
    sm->pools.issued = g_new0(guint64, sm->n_warps);
  if (sm->policy == CFG_POLICY_TWO_LEVEL) {
    sm->pools.in_pool = g_new0(guint8, sm->n_warps);
    sm->pool_leaves = g_new0(guint8, sm->n_warps);
    sm->pool_joins = g_new0(guint8, sm->n_warps);
  }
  sm->order = g_new0(guint, sm->n_sched);
  for (guint i = 0; i < sm->n_sched; i++)
    sm->order[i] = i;
  sm->eligible = g_new0(guint, sm->n_warps + 1);
  sm->wake_pass = portable_pass ? sm_wake_pass_portable : sm_wake_pass_choose();
  sm->prio_pos = g_new0(guint, sm->n_warps + 1);
  sm->prio_at = g_new0(guint, sm->n_warps + 1);
  sm->mp = g_new0(SmMp, sm->n_sm);
  for (guint m = 0; m < sm->n_sm; m++) {
    sm->mp[m].sched = &sm->sched[m * sm->sched_per_sm];
    sm->mp[m].warps = &sm->warps[m * sm->warp_slots_per_sm];
  }
  guint at = 0;
  for (guint s = 0; s < sm->n_sched; s++) {
    sm->sched[s].warps = sm->pools.slots + at;
    sm->sched[s].wake = sm->pools.wake + at;
    sm->sched[s].age = sm->pools.age + at;
    sm->sched[s].resumed = sm->pools.resumed + at;
    sm->sched[s].grid = sm->pools.grid + at;
    if (sm->pools.in_pool)
      sm->sched[s].in_pool = sm->pools.in_pool + at;
    if (sm->pools.issued)
      sm->sched[s].issued = sm->pools.issued + at;
    guint per = sm->sched_per_sm;
    sm->sched[s].slot0 = s / per * sm->warp_slots_per_sm + s % per;
    for (guint w = sm->sched[s].slot0; w < (s / per + 1) * sm->warp_slots_per_sm; w += per)
      sm->pools.slots[at++] = w;
    sm->sched[s].n_warps = (guint)(sm->pools.slots + at - sm->sched[s].warps);
    sm->sched[s].last = G_MAXUINT;
    sm->sched[s].keep = G_MAXUINT;
    sm->sched[s].local = s % sm->sched_per_sm;
    if (sm->wb_ports)
      sm_ports_init(&sm->sched[s].ports);
  }
  gboolean copies = FALSE;
  for (guint i = 0; i < sm->prog->n_insns; i++) {
    copies |= sm->info[i].special == SM_SPECIAL_LDGDEPBAR;
    if (sm->info[i].special == SM_SPECIAL_BAR)
      sm->run_ahead_ok = FALSE; /* a barrier: no run-ahead (above) */
  }
  if (copies)
    sm->pools.copy = g_new0(guint64, (gsize)sm->n_warps * SM_COPY_RING);
  if (sm->prog->simt) {
    sm->pools.simt = g_new0(SmSimt, sm->n_warps);
    sm->pools.pred = g_new0(guint32, (gsize)sm->n_warps * n_regs);
  }
  for (guint i = 0; i < sm->n_warps; i++) {
    SmWarp *w = &sm->warps[i];
    if (copies)
      w->copy_done = sm->pools.copy + (gsize)i * SM_COPY_RING;
    if (sm->pools.simt) {
      w->simt = &sm->pools.simt[i];
      w->simt->pred = sm->pools.pred + (gsize)i * n_regs;
    }
    guint l = i % sm->warp_slots_per_sm;
    w->sm = (guint16)(i / sm->warp_slots_per_sm);
    w->local = (guint8)(l % sm->sched_per_sm);
    w->sched = (guint16)(w->sm * sm->sched_per_sm + w->local);
    w->pos = (guint16)(l / sm->sched_per_sm);
    w->sb.ready = sm->pools.ready + (gsize)i * n_regs * ISA_UNIT_COUNT;
    w->sb.producer = sm->pools.producer + (gsize)i * n_regs;
    if (sm->pools.held) {
      w->sb.held = sm->pools.held + (gsize)i * n_regs;
      w->sb.held_state = sm->pools.held_state + (gsize)i * n_regs;
    }
    for (guint r = 0; r < n_regs; r++)
      w->sb.producer[r] = SM_STATE_WAIT;
    w->state = SM_STATE_INACTIVE;
    /* seeded by its number among all the GPU's schedulers' warps, position by position */
    guint nth = (guint)w->pos * sm->n_sched + w->sched;
    w->rng = sm_hash64(gpu->memory.seed * 0x9E3779B97F4A7C15ULL + nth) | 1;
    w->done = TRUE; /* until a block launches into its slot */
    sm->sched[w->sched].wake[w->pos] = SM_NEVER;
  }
  sm_blocks_init(sm);
  if (kernel->sass)
    sm_sass_init(sm);

  /* a pipe is single-cycle when every instruction on it is (an opcode's lanes in sass.ops may
   * hold its unit's pipe longer than the unit's) */
  for (guint p = 0; p < SM_N_PIPES; p++)
    sm->single_cycle_pipe[p] = p >= ISA_UNIT_COUNT || sm_pipe_single_cycle(gpu, (IsaUnit)p);
  for (guint i = 0; i < sm->prog->n_insns; i++)
    if (sm->info[i].ii_ticks > SM_TICKS_PER_CYCLE)
      sm->single_cycle_pipe[sm->info[i].pipe] = FALSE;
  sm_smem_init(&sm->smem, gpu, sm->n_sm, sm->n_sched, sm->warp_slots_per_sm / sm->sched_per_sm);
  sm_engine_init(&sm->engine, gpu->memory.max_outstanding + 64);
  sm_memory_init(&sm->mem, gpu, sm->n_sm, &sm->engine, sm_uses_caches(sm),
                 sm_l1_bytes(gpu, kernel, sm->slots_per_sm));
  sm_waitq_init(&sm->mem.lg, sm->n_sm, sm->warp_slots_per_sm);
  if (kernel->written_before_launch && sm_uses_caches(sm))
    sm_memory_written_before(&sm->mem, kernel->written_before_launch);

  /* every SM stepped, each standing for itself (fast/mirror.c may change that before the
   * first wave) */
  sm->sim_sms = g_new(guint, sm->n_sm);
  for (guint m = 0; m < sm->n_sm; m++) {
    sm->mp[m].rep = m;
    sm->mp[m].weight = 1;
    sm->sim_sms[m] = m;
    sm_count_into(sm, m, &sm->stats);
  }
  sm->n_sim_sm = sm->n_sm;
  sm->stats.stepped_sms = sm->n_sm;
  sm->order_stale = TRUE; /* the schedulers that look (loop.c) */
}

void
sm_machine_start(SmGpu *sm)
{
  const CfgGpu *gpu = sm->cfg;
  const CfgKernel *kernel = sm->kernel;
  sm_blocks_dispatch(sm, 0); /* the first wave */
  if (kernel->warm_up)
    sm_window_warm(sm);
  sm->stats.warps = sm->warps_per_sm * sm->n_sm;
  sm->stats.max_warps = gpu->limits.max_warps * sm->n_sm;
  sm->stats.n_sm = sm->n_sm;
  sm->stats.schedulers = sm->sched_per_sm;
  sm->stats.n_levels = gpu->memory.n_levels;
  sm->stats.shared_base_passes = (guint)(sm->smem.ticks_per_access / sm->smem.ticks_per_pass);
  sm->finished = sm->blocks_retired == sm->grid_blocks;
}

gboolean
sm_uses_caches(const SmGpu *sm)
{
  if (!cfg_gpu_has_caches(sm->cfg))
    return FALSE;
  if (sm->kernel->sass)
    return sm_sass_uses_caches(sm);
  for (guint i = 0; i < sm->prog->n_insns; i++)
    if (sm->prog->insns[i].kind == ISA_INSN_OP && sm->info[i].space == ISA_SPACE_GLOBAL &&
        sm->info[i].level == CFG_LEVEL_CACHED)
      return TRUE;
  return FALSE;
}

gboolean
sm_draws_random(const SmGpu *sm)
{
  if (sm->kernel->sass)
    return TRUE; /* lane values: no two blocks, and no two periods, are alike */
  if (sm->clock)
    return TRUE; /* each clock read keeps its own cycle: no period may be skipped */
  if (sm->fences)
    return TRUE; /* a fence waits for its SM's stores (fence_stores) */
  for (guint i = 0; i < sm->prog->n_insns; i++) {
    const IsaInsn *insn = &sm->prog->insns[i];
    const SmInsnInfo *ii = &sm->info[i];
    if (insn->kind != ISA_INSN_OP)
      continue;
    /* global accesses draw addresses and latencies; random shared-memory addresses and chance
     * predicates draw per lane */
    if (ii->space == ISA_SPACE_GLOBAL || (ii->space == ISA_SPACE_SHARED && ii->passes == 0) ||
        isa_insn_draws_chance(insn))
      return TRUE;
  }
  return FALSE;
}

void
sm_machine_clear(SmGpu *sm)
{
  sm_sass_clear(sm);
  sm_clock_free(sm->clock);
  sm_memory_clear(&sm->mem);
  sm_engine_clear(&sm->engine);
  g_free(sm->info);
  g_free(sm->warps);
  sm_lsu_clear(&sm->lsu);
  g_free(sm->min_wake);
  sm_pools_clear(&sm->pools);
  g_free(sm->pool_leaves);
  g_free(sm->pool_joins);
  g_free(sm->eligible);
  g_free(sm->order);
  g_free(sm->room_freed);
  g_free(sm->fence_stores);
  g_free(sm->prio_pos);
  g_free(sm->prio_at);
  g_free(sm->blocks);
  g_free(sm->mp);
  sm_smem_clear(&sm->smem);
  for (guint i = 0; i < sm->n_sched; i++)
    sm_ports_clear(&sm->sched[i].ports);
  g_free(sm->sched);
  g_free(sm->warp_exists);
  g_free(sm->warp_state);
  g_free(sm->sim_sms);
}
