/* The end of a run: the warps' last states closed and the machine's counters set (also for a
 * run stopped before its end: sm_close() in fast/run.c).  Not the cycle loop (loop.c). */
#include "machine.h"

void
sm_finish(SmGpu *sm)
{
  guint64 end = sm->end_cycle;
  for (guint i = 0; i < sm->n_warps; i++) {
    SmWarp *w = &sm->warps[i];
    if (!sm_warp_stepped(sm, w))
      continue; /* padding slot, or an SM that runs like a stepped one (counted with it) */
    w->stats->state_cycles[w->state] += end - MIN(w->state_since, end);
    w->state_since = end;
  }
  if (sm->mirrored)
    sm->above->fold(sm); /* the stepped SMs' counts, for the SMs they stand for */
  sm->stats.cycles = end;
  /* (a fast-forward moves the dispatcher's last turn with the clock, so one in the past stays
   * there: it can be later than end only if it is) */
  sm->stats.kernel_end = MAX(end, sm_ticks_ceil_cycle(sm->dispatch_tat));
  for (guint l = 0; l < sm->mem.n_levels; l++) {
    sm->stats.transactions[l] = sm->mem.levels[l].transactions;
    sm->stats.bytes[l] = sm->mem.levels[l].bytes;
    sm->stats.write_bytes[l] = sm->mem.levels[l].write_bytes;
  }
  sm->stats.peak_outstanding = sm->mem.peak_outstanding;
  const SmCacheCounts *c = &sm->mem.counts;
  sm->stats.caches = sm_uses_caches(sm);
  sm->stats.l1_requests = c->l1_requests;
  sm->stats.l1_sectors = c->l1_sectors;
  sm->stats.l1_hits = c->l1_hits;
  sm->stats.l2_requests = c->l2_requests;
  sm->stats.l2_sectors = c->l2_sectors;
  sm->stats.l2_hits = c->l2_hits;
  sm->stats.l2_far_hits = c->l2_far_hits;
  sm->stats.write_backs = c->write_backs;
  sm->stats.fills = c->fills;
  if (sm->clock)
    sm_clock_finish(sm->clock, &sm->stats);
  sm->finished = TRUE;
}
