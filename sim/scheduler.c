/* Warp selection policies (lrr, gto): which eligible warp a scheduler issues.  Not when a
 * warp is eligible (sm.c) nor the pipes it issues to (pipe.h). */
#include "scheduler.h"

guint
sm_scheduler_pick(const SmScheduler *sched, CfgPolicy policy, const guint *eligible,
                  guint n_eligible)
{
  guint first = G_MAXUINT;
  for (guint i = 0; i < n_eligible; i++) {
    guint p = eligible[i];
    if (p == SM_SCHEDULER_TAKEN)
      continue;
    if (first == G_MAXUINT)
      first = i;
    switch (policy) {
    case CFG_POLICY_GTO:
      /* greedy: stay with the last warp while it can issue; else the oldest */
      if (p == sched->last)
        return i;
      break;
    case CFG_POLICY_LRR:
    default:
      /* loose round robin: the first eligible warp after the last one that issued */
      if (p > sched->last)
        return i;
      break;
    }
  }
  return first;
}
