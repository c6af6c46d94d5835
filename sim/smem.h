/* Shared memory: one access queue per SM, a warp-access every cycles_per_access cycles,
 * queue_depth accesses deep (beyond that warps wait in mio_throttle).
 * Not the scoreboard: the SM writes the result's readiness from the cycle returned here.
 */
#pragma once

#include "../config/gpu.h"
#include "fixed.h"

typedef struct {
  guint64 *free; /* per SM: ticks the queue is served up to */
  guint64 ticks_per_access, depth_ticks;
} SmSharedMemory;

void sm_smem_init(SmSharedMemory *smem, const CfgGpu *gpu, guint n_sm);
void sm_smem_clear(SmSharedMemory *smem);

/* SM @sm's queue is full at cycle @t; *wake = the first cycle it may take an access. */
static inline gboolean
sm_smem_full(const SmSharedMemory *smem, guint sm, guint64 t, guint64 *wake)
{
  if (smem->free[sm] < sm_ticks(t) + smem->depth_ticks)
    return FALSE;
  *wake = ((smem->free[sm] - smem->depth_ticks) >> SM_TICK_SHIFT) + 1;
  return TRUE;
}

/* Queues a warp-access at @now_ticks; returns the cycle its service starts (the result is
 * ready a latency after it). */
static inline guint64
sm_smem_access(SmSharedMemory *smem, guint sm, guint64 now_ticks)
{
  guint64 start = MAX(now_ticks, smem->free[sm]);
  smem->free[sm] = start + smem->ticks_per_access;
  return sm_ticks_ceil_cycle(start);
}
