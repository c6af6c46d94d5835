#include "scheduler.h"

guint
sm_scheduler_pick(const SmScheduler *sched, CfgPolicy policy, const guint *eligible,
                  guint n_eligible)
{
  g_assert(n_eligible > 0);
  switch (policy) {
  case CFG_POLICY_GTO:
    /* greedy: stay with the last warp while it can issue; else the oldest */
    for (guint i = 0; i < n_eligible; i++)
      if (eligible[i] == sched->last)
        return i;
    return 0;
  case CFG_POLICY_LRR:
  default:
    /* loose round robin: the first eligible warp after the last one that issued */
    for (guint i = 0; i < n_eligible; i++)
      if (eligible[i] > sched->last)
        return i;
    return 0;
  }
}
