/* Warp selection policies (lrr, gto, oldest, two_level, last_resumed): which eligible warp a
 * scheduler issues.  Not when a warp is eligible (gpu/loop.c) nor the pipes it issues to (pipe.h).
 */
#include "scheduler.h"

guint
sm_scheduler_pick(const SmScheduler *sched, CfgPolicy policy, guint64 window, guint last,
                  const guint *eligible, guint n_eligible)
{
  guint first = G_MAXUINT;
  if (policy == CFG_POLICY_OLDEST) {
    /* the warp whose block launched first; among equals the lowest position */
    for (guint i = 0; i < n_eligible; i++) {
      guint p = eligible[i];
      if (p != SM_SCHEDULER_TAKEN &&
          (first == G_MAXUINT || sched->age[p] < sched->age[eligible[first]]))
        first = i;
    }
    return first;
  }
  guint64 latest = 0;
  if (policy == CFG_POLICY_LAST_RESUMED) {
    /* round robin among the warps that resumed last, or at most @window cycles before */
    for (guint i = 0; i < n_eligible; i++)
      if (eligible[i] != SM_SCHEDULER_TAKEN)
        latest = MAX(latest, sched->resumed[eligible[i]]);
  }
  for (guint i = 0; i < n_eligible; i++) {
    guint p = eligible[i];
    if (p == SM_SCHEDULER_TAKEN ||
        (policy == CFG_POLICY_LAST_RESUMED && sched->resumed[p] + window < latest))
      continue;
    if (first == G_MAXUINT)
      first = i;
    switch (policy) {
    case CFG_POLICY_GTO:
      /* greedy: stay with the last warp while it can issue; else the oldest */
      if (p == last)
        return i;
      break;
    case CFG_POLICY_LRR:
    case CFG_POLICY_TWO_LEVEL:
    case CFG_POLICY_LAST_RESUMED:
    default:
      /* loose round robin: the first eligible warp after the last one that issued */
      if (p > last)
        return i;
      break;
    }
  }
  return first;
}

guint
sm_scheduler_pool(SmScheduler *sched, guint size, const guint8 *leaves, const guint8 *can_join,
                  guint *eligible, guint n_eligible)
{
  for (guint p = 0; p < sched->n_warps; p++) {
    if (sched->in_pool[p] && leaves[p]) {
      sched->in_pool[p] = 0;
      sched->pool_n--;
    }
  }
  for (guint k = 0; k < sched->n_warps && sched->pool_n < size; k++) {
    guint p = (sched->pool_next + k) % sched->n_warps;
    if (!sched->in_pool[p] && can_join[p]) {
      sched->in_pool[p] = 1;
      sched->pool_n++;
      sched->pool_next = (guint16)((p + 1) % sched->n_warps);
    }
  }
  guint n = 0;
  for (guint i = 0; i < n_eligible; i++)
    if (sched->in_pool[eligible[i]])
      eligible[n++] = eligible[i];
  return n;
}
