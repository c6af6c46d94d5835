/* The SM's events at a cycle, before its schedulers look at their warps: block launches, and
 * memory completions that free room for the warps waiting in lg_throttle and the stores waiting
 * in a store queue (taken by the loop before the SM's schedulers look); and a stop asked for
 * from a signal handler.  Not the cycle loop itself (loop.c). */
#include "machine.h"

#include <signal.h>

void
sm_fire_events(SmGpu *sm, guint64 t)
{
  SmEvent ev;
  gboolean freed = FALSE;
  guint64 freed_sms[(CFG_MAX_SM_COUNT + 63) / 64] = {0}; /* the SMs with a completion */
  while (sm_engine_next_cycle(&sm->engine) <= t && sm_engine_pop(&sm->engine, &ev)) {
    switch (ev.kind) {
    case SM_EVENT_BLOCK_LAUNCH:
      sm_blocks_dispatch(sm, t);
      break;
    case SM_EVENT_MEM_START:
      sm->mem.queued--;
      break;
    case SM_EVENT_MEM_DONE:
      sm_memory_complete(&sm->mem, ev.arg);
      freed = TRUE;
      freed_sms[(ev.arg >> 8) / 64] |= G_GUINT64_CONSTANT(1) << ((ev.arg >> 8) % 64);
      if (G_UNLIKELY(sm->room_freed) && sm_lsu_waiting(&sm->lsu, (guint)(ev.arg >> 8)))
        sm->room_freed[ev.arg >> 8] = 1; /* its stores waiting may go on (loop.c) */
      break;
    default:
      g_assert_not_reached();
    }
  }
  if (freed && sm->lg_waiters > 0) {
    /* only an SM's own completions change what its warps wait for: its warps wake (a view's are
     * all its own); the others' stay, counted */
    guint n = sm->defer ? sm->n_order : sm->n_sched, left = 0;
    for (guint i = 0; i < n; i++) {
      guint si = sm->defer ? sm->order[i] : i, m = si / sm->sched_per_sm;
      gboolean own = freed_sms[m / 64] >> (m % 64) & 1;
      SmScheduler *s = &sm->sched[si];
      for (guint p = 0; p < s->n_warps; p++) {
        if (s->wake[p] == SM_NEVER && !sm->warps[s->warps[p]].done) {
          if (!own) {
            left += sm->warps[s->warps[p]].state == SM_STATE_LG_THROTTLE;
            continue;
          }
          s->wake[p] = t;
          sm->min_wake[si] = t;
        }
      }
    }
    sm->lg_waiters = left;
  }
}

/* Set from a signal handler: every running SM stops at its next step. */
static volatile sig_atomic_t stop_requested;

void
sm_request_stop(void)
{
  stop_requested = 1;
}

gboolean
sm_stop_requested(void)
{
  return stop_requested != 0;
}
