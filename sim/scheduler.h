/* Warp schedulers: which eligible warp issues. */
#pragma once

#include "../config/gpu.h"

typedef struct {
  guint *warps; /* warp indices, oldest first */
  guint n_warps;
  guint last;                        /* position in warps[] of the last warp that issued */
  guint64 busy_until;                /* no issue before this cycle (multi-cycle issue) */
  guint64 pipe_free[ISA_UNIT_COUNT]; /* ticks: pipe accepts its next instruction */
} SmScheduler;

/* Chooses among the eligible warps (positions into sched->warps, ascending) by @policy and
 * returns an index into @eligible. */
guint sm_scheduler_pick(const SmScheduler *sched, CfgPolicy policy, const guint *eligible,
                        guint n_eligible);
