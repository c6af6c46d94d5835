/* Identical SMs simulated once.  A grid whose SMs cannot tell each other apart (no global
 * memory, which they share; no random draws, which differ per warp; every block the same
 * work) runs the same on every SM as long as every SM receives the same blocks at the same
 * cycles.  Then only SM 0 is stepped: it receives every n_sm-th block of each round of the
 * block scheduler, the grid index the full machine would give it, and its counts stand for
 * all SMs.  When the grid's last blocks cannot go round every SM alike (a partial wave), or a
 * trace wants every SM, the others become copies of SM 0 and every SM is stepped from then on.
 * The results are those of stepping every SM (tests compare both). */
#include "sm-internal.h"

#include <string.h>

static gboolean mirroring_on = TRUE;

void
sm_set_mirroring(gboolean on)
{
  mirroring_on = on;
}

gboolean
sm_draws_random(const Sm *sm)
{
  for (guint i = 0; i < sm->prog->n_insns; i++) {
    const IsaInsn *insn = &sm->prog->insns[i];
    const SmInsnInfo *ii = &sm->info[i];
    if (insn->kind != ISA_INSN_OP)
      continue;
    /* global accesses draw addresses and latencies; random shared-memory addresses and chance
     * predicates draw per lane */
    if (ii->space == ISA_SPACE_GLOBAL || (ii->space == ISA_SPACE_SHARED && ii->passes == 0) ||
        (insn->op == ISA_OP_ISETP && insn->pattern == ISA_PRED_CHANCE))
      return TRUE;
  }
  return FALSE;
}

gboolean
sm_mirror_possible(const Sm *sm)
{
  if (!mirroring_on || sm->n_sm < 2 || sm->grid_blocks < sm->n_sm * sm->slots_per_sm)
    return FALSE; /* one SM, or not even a first wave on every SM */
  if (sm_draws_random(sm))
    return FALSE; /* global memory couples the SMs; each warp draws its own numbers */
  const GArray *bp = sm->kernel->block_passes;
  for (guint i = 1; i < bp->len; i++)
    if (g_array_index(bp, guint, i) != g_array_index(bp, guint, 0))
      return FALSE; /* blocks of different lengths on different SMs */
  return TRUE;
}

gboolean
sm_mirror_round(const Sm *sm, guint free_slots)
{
  return sm->grid_blocks - sm->next_block >= (guint64)free_slots * sm->n_sm;
}

/* @to becomes a copy of @from, an SM @k places further (its own slots, pools and numbers). */
static void
copy_warp(const Sm *sm, SmWarp *to, const SmWarp *from)
{
  guint n_regs = MAX(sm->prog->n_regs, 1u);
  SmWarp keep = *to;
  *to = *from;
  to->sched = keep.sched;
  to->sm = keep.sm;
  to->block = keep.block;
  to->rng = keep.rng; /* never drawn (sm_mirror_possible) */
  to->sb = keep.sb;
  memcpy(to->sb.ready, from->sb.ready, sizeof(guint64) * n_regs * ISA_UNIT_COUNT);
  memcpy(to->sb.producer, from->sb.producer, n_regs);
  to->copy_done = keep.copy_done;
  if (to->copy_done)
    memcpy(to->copy_done, from->copy_done, sizeof(guint64) * SM_COPY_RING);
  to->simt = keep.simt;
  if (to->simt) {
    guint32 *pred = to->simt->pred;
    *to->simt = *from->simt;
    to->simt->pred = pred;
    memcpy(pred, from->simt->pred, sizeof(guint32) * n_regs);
  }
}

static void
copy_scheduler(const Sm *sm, SmScheduler *to, const SmScheduler *from, guint k)
{
  to->min_wake = from->min_wake;
  to->last = from->last;
  to->busy_until = from->busy_until;
  memcpy(to->pipe_free, from->pipe_free, sizeof to->pipe_free);
  if (to->wb_ring)
    memcpy(to->wb_ring, from->wb_ring, SM_WB_RING * sizeof *to->wb_ring);
  to->wb_hi = from->wb_hi;
  to->pool_n = from->pool_n;
  to->pool_next = from->pool_next;
  to->hot = from->hot;
  for (guint p = 0; p < to->n_warps; p++) {
    to->wake[p] = from->wake[p];
    to->age[p] = from->age[p];
    to->resumed[p] = from->resumed[p];
    to->grid[p] = from->grid[p] + k;
    if (to->in_pool)
      to->in_pool[p] = from->in_pool[p];
  }
  (void)sm;
}

void
sm_mirror_end(Sm *sm)
{
  if (!sm->mirrored)
    return;
  guint per = sm->sched_per_sm, slots = sm->slots_per_sm;
  /* block launches SM 0 waits for: every SM waits for its own */
  guint n_ev = sm->engine.n;
  SmEvent *ev = g_memdup2(sm->engine.heap, sizeof(SmEvent) * MAX(n_ev, 1u));
  for (guint k = 1; k < sm->n_sm; k++) {
    for (guint q = 0; q < per; q++) {
      guint from = q, to = k * per + q;
      copy_scheduler(sm, &sm->sched[to], &sm->sched[from], k);
      for (guint p = 0; p < sm->sched[from].n_warps; p++)
        copy_warp(sm, &sm->warps[p * sm->n_sched + to], &sm->warps[p * sm->n_sched + from]);
    }
    for (guint b = 0; b < slots; b++) {
      const SmBlock *from = &sm->blocks[b];
      SmBlock *to = &sm->blocks[k * slots + b];
      guint keep_sm = to->sm, keep_first = to->first_local, keep_n = to->n_warps;
      *to = *from;
      to->sm = keep_sm;
      to->first_local = keep_first;
      to->n_warps = keep_n;
      to->grid_index = from->grid_index + k;
    }
    sm->sm_blocks[k] = sm->sm_blocks[0];
    sm->smem.free[k] = sm->smem.free[0];
    sm->smem.first[k] = sm->smem.first[0];
    for (guint i = 0; i < n_ev; i++) {
      g_assert(ev[i].kind == SM_EVENT_BLOCK_LAUNCH && ev[i].arg < slots);
      sm_engine_push(&sm->engine, ev[i].cycle, ev[i].priority, ev[i].kind, k * slots + ev[i].arg);
    }
  }
  g_free(ev);
  sm->order_stale = TRUE;
  /* the counts so far were SM 0's: each SM did the same */
  SmStats none = {0};
  sm_stats_add_repeats(&sm->stats, &none, sm->n_sm - 1);
  sm->stats.mirrored_cycles = sm->now;
  sm->mirrored = FALSE;
  sm->n_sim_sm = sm->n_sm;
  sm->n_sim_sched = sm->n_sched;
  if (sm->steady)
    sm_steady_forget(sm->steady);
}
