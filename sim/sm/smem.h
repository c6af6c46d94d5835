/* Shared memory: one access queue per SM and its banks.  A warp-access is served in passes:
 * each pass delivers one bank_width_bytes word from every bank, so lanes whose different words
 * fall in one bank (a bank conflict) need as many passes as the most crowded bank holds words;
 * lanes reading the same word share it (broadcast).  Accesses wider than 4 bytes per lane are
 * split into phases of lanes that fill the banks once (LDS.128: four phases of 8 lanes); with
 * half_warps, a half-warp whose words fit one pass takes one.
 *
 * A conflict-free 32-bit warp-access occupies the queue cycles_per_access cycles; one that
 * needs d times the passes occupies it d times as long, and its result arrives latency_cycles
 * after its last pass starts, so latency grows by cycles_per_access per extra pass.  Beyond
 * queue_depth accesses waiting, warps stall in mio_throttle: by default counted in
 * conflict-free accesses' worth of the banks' time, with queue_counts: accesses each access once.
 * Not the scoreboard: the SM writes the result's readiness from the cycle returned here.
 */
#pragma once

#include "../../config/gpu.h"
#include "../../isa/stream.h"
#include "../core/fixed.h"
#include "../core/waitq.h"

typedef struct {
  guint64 *free; /* per SM: ticks the queue is served up to */
  guint8 *first; /* per SM: the scheduler that looks first each cycle (gpu/loop.c), next after the
                    last one that queued an access: round robin for the queue's free places */
  guint64 ticks_per_access, depth_ticks;
  guint64 ticks_per_pass;     /* ticks_per_access / passes of a conflict-free 32-bit access */
  guint64 pass_latency_ticks; /* each extra pass's delay of the result; 0: ticks_per_pass */
  guint banks, bank_width;    /* for per-lane random addresses, drawn at every access */
  gboolean half_warps;        /* shared_memory.half_warps */
  gboolean warp_apart;        /* shared_memory.warp_passes_apart */
  /* queue_counts: accesses: the queue holds depth_accesses accesses; per SM the start ticks of
   * the last depth_accesses of them, oldest at head (0: the queue counts passes, depth_ticks) */
  guint depth_accesses;
  guint64 *starts;
  guint *head;
  /* throttle_order: arrival: each scheduler's warps waiting for a place, in the order they found
   * none (a ring per scheduler, all SMs' schedulers numbered together): its first takes the
   * scheduler's turn (gpu/check.h); NULL ring: its policy's pick */
  SmWaitQueue waiting;
} SmSharedMemory;

/* @n_sched schedulers of @warps_per_sched warp slots each (throttle_order: arrival) */
void sm_smem_init(SmSharedMemory *smem, const CfgGpu *gpu, guint n_sm, guint n_sched,
                  guint warps_per_sched);
void sm_smem_clear(SmSharedMemory *smem);

/* Passes one warp-access of 32 lanes x @width bytes with @pattern (@stride in elements of the
 * width) takes on @banks banks of @bank_width bytes.  Random addresses draw from @rng (each
 * lane an element among 32 x @banks of them). */
guint sm_smem_passes(guint banks, guint bank_width, IsaPatternKind pattern, guint stride,
                     guint width, gboolean half_warps, guint64 *rng);

/* SM @sm's queue is full at cycle @t; *wake = the first cycle it may take an access. */
static inline gboolean
sm_smem_full(const SmSharedMemory *smem, guint sm, guint64 t, guint64 *wake)
{
  if (smem->depth_accesses) {
    /* full while the oldest of the last depth_accesses accesses has not reached the banks */
    guint64 oldest = smem->starts[(gsize)sm * smem->depth_accesses + smem->head[sm]];
    if (oldest <= sm_ticks(t))
      return FALSE;
    *wake = sm_ticks_ceil_cycle(oldest);
    return TRUE;
  }
  if (smem->free[sm] < sm_ticks(t) + smem->depth_ticks)
    return FALSE;
  *wake = ((smem->free[sm] - smem->depth_ticks) >> SM_TICK_SHIFT) + 1;
  return TRUE;
}

/* Queues a warp-access of @passes passes at @now_ticks; returns the cycle its last pass starts
 * (the result is ready a latency after it), or with pass_latency_cycles, the cycle its last
 * pass's data is there to go on: passes beyond the first that many cycles apart.  *@own: the
 * ticks the warp's next access's first pass may come back at (warp_passes_apart), moved on. */
static inline guint64
sm_smem_access(SmSharedMemory *smem, guint sm, guint64 now_ticks, guint passes, guint64 *own,
               guint64 *first_cycle)
{
  guint64 start = MAX(now_ticks, smem->free[sm]);
  if (smem->depth_accesses) {
    smem->starts[(gsize)sm * smem->depth_accesses + smem->head[sm]] = start;
    smem->head[sm] = smem->head[sm] + 1 == smem->depth_accesses ? 0 : smem->head[sm] + 1;
  }
  guint64 cost = passes * smem->ticks_per_pass;
  smem->free[sm] = start + cost;
  guint64 last = start + cost - smem->ticks_per_pass;
  *first_cycle = sm_ticks_ceil_cycle(smem->warp_apart ? MAX(start, *own) : start);
  if (smem->pass_latency_ticks) {
    /* with warp_passes_apart the warp's passes come back pass_latency apart across its
     * accesses too, after those of its access before (the banks' time is not held for it) */
    guint64 first = smem->warp_apart ? MAX(start, *own) : start;
    last = MAX(last, first + (guint64)(passes - 1) * smem->pass_latency_ticks);
    if (smem->warp_apart)
      *own = first + (guint64)passes * smem->pass_latency_ticks;
  }
  return sm_ticks_ceil_cycle(last);
}
