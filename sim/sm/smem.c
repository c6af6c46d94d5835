/* Shared memory's queues and bank passes.  The per-access queue work is inline in smem.h. */
#include "smem.h"

static int
cmp_u64(const void *a, const void *b)
{
  guint64 x = *(const guint64 *)a, y = *(const guint64 *)b;
  return x < y ? -1 : x > y;
}

/* Passes of lanes [@first, @first + @n) reading @element[lane] x @width: the most distinct words
 * any bank holds among them. */
static guint
lanes_passes(const guint64 *element, guint first, guint n, guint banks, guint bank_width,
             guint width)
{
  guint words_per_lane = (width + bank_width - 1) / bank_width;
  guint64 words[32 * 64];
  guint16 in_bank[1024];
  guint count = 0;
  for (guint lane = first; lane < MIN(first + n, 32u); lane++)
    for (guint k = 0; k < words_per_lane && count < G_N_ELEMENTS(words); k++)
      words[count++] = element[lane] * width / bank_width + k;
  qsort(words, count, sizeof words[0], cmp_u64);
  guint most = 0;
  for (guint i = 0; i < count; i++)
    in_bank[words[i] % banks] = 0;
  for (guint i = 0; i < count; i++) {
    if (i > 0 && words[i] == words[i - 1])
      continue;
    guint c = ++in_bank[words[i] % banks];
    most = MAX(most, c);
  }
  return most;
}

guint
sm_smem_passes(guint banks, guint bank_width, IsaPatternKind pattern, guint stride, guint width,
               gboolean half_warps, guint64 *rng)
{
  width = MAX(width, 1u);
  guint per_phase = CLAMP(banks * bank_width / width, 1u, 32u);
  guint64 element[32];
  for (guint lane = 0; lane < 32; lane++)
    element[lane] = pattern == ISA_PATTERN_BROADCAST ? 0
                    : pattern == ISA_PATTERN_RANDOM  ? sm_rng_next(rng) % (32ull * banks)
                    : pattern == ISA_PATTERN_STRIDE  ? (guint64)lane * stride
                                                     : lane;
  if (per_phase >= 32)
    return MAX(lanes_passes(element, 0, 32, banks, bank_width, width), 1u);
  /* wider than a bank's word: in phases; with half_warps, a half-warp whose words fit one pass
   * in one (an LDS.128 broadcast: two passes) */
  guint passes = 0;
  for (guint half = 0; half < 32; half += 16) {
    if (half_warps && per_phase < 16 &&
        lanes_passes(element, half, 16, banks, bank_width, width) == 1) {
      passes++;
      continue;
    }
    for (guint first = half; first < half + 16; first += per_phase)
      passes += lanes_passes(element, first, per_phase, banks, bank_width, width);
  }
  return MAX(passes, 1u);
}

void
sm_smem_init(SmSharedMemory *smem, const CfgGpu *gpu, guint n_sm, guint n_sched,
             guint warps_per_sched)
{
  smem->free = g_new0(guint64, n_sm);
  smem->first = g_new0(guint8, n_sm);
  smem->banks = gpu->smem.banks;
  smem->bank_width = gpu->smem.bank_width_bytes;
  smem->ticks_per_access = sm_ticks_from_cycles(gpu->smem.cycles_per_access);
  smem->half_warps = gpu->smem.half_warps;
  smem->warp_apart = gpu->smem.warp_passes_apart && gpu->smem.pass_latency_cycles > 0;
  guint base =
      sm_smem_passes(smem->banks, smem->bank_width, ISA_PATTERN_COALESCED, 1, 4, FALSE, NULL);
  smem->ticks_per_pass = smem->ticks_per_access / base;
  smem->depth_ticks = smem->ticks_per_access * gpu->smem.queue_depth;
  smem->pass_latency_ticks = sm_ticks_from_cycles(gpu->smem.pass_latency_cycles);
  if (gpu->smem.queue_counts == CFG_QUEUE_ACCESSES) {
    smem->depth_accesses = gpu->smem.queue_depth;
    smem->starts = g_new0(guint64, (gsize)n_sm * smem->depth_accesses);
    smem->head = g_new0(guint, n_sm);
  }
  if (gpu->smem.throttle_order == CFG_THROTTLE_ARRIVAL)
    sm_waitq_init(&smem->waiting, n_sched, warps_per_sched);
}

void
sm_smem_clear(SmSharedMemory *smem)
{
  g_clear_pointer(&smem->free, g_free);
  g_clear_pointer(&smem->first, g_free);
  g_clear_pointer(&smem->starts, g_free);
  g_clear_pointer(&smem->head, g_free);
  sm_waitq_clear(&smem->waiting);
}
