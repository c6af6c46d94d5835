/* Shared memory's queues: set-up and release.  The per-access work is inline in smem.h. */
#include "smem.h"

void
sm_smem_init(SmSharedMemory *smem, const CfgGpu *gpu, guint n_sm)
{
  smem->free = g_new0(guint64, n_sm);
  smem->ticks_per_access = sm_ticks_from_cycles(gpu->smem.cycles_per_access);
  smem->depth_ticks = smem->ticks_per_access * gpu->smem.queue_depth;
}

void
sm_smem_clear(SmSharedMemory *smem)
{
  g_clear_pointer(&smem->free, g_free);
}
