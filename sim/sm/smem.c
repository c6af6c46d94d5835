/* Shared memory's queues and bank passes.  The per-access queue work is inline in smem.h. */
#include "smem.h"

static int
cmp_u64(const void *a, const void *b)
{
  guint64 x = *(const guint64 *)a, y = *(const guint64 *)b;
  return x < y ? -1 : x > y;
}

guint
sm_smem_passes(guint banks, guint bank_width, IsaPatternKind pattern, guint stride, guint width,
               guint64 *rng)
{
  width = MAX(width, 1u);
  guint per_phase = CLAMP(banks * bank_width / width, 1u, 32u);
  guint words_per_lane = (width + bank_width - 1) / bank_width;
  guint64 words[32 * 64];
  guint16 in_bank[1024];
  guint passes = 0;
  for (guint first = 0; first < 32; first += per_phase) {
    guint n = 0;
    for (guint lane = first; lane < MIN(first + per_phase, 32u); lane++) {
      guint64 element = pattern == ISA_PATTERN_BROADCAST ? 0
                        : pattern == ISA_PATTERN_RANDOM  ? sm_rng_next(rng) % (32ull * banks)
                        : pattern == ISA_PATTERN_STRIDE  ? (guint64)lane * stride
                                                         : lane;
      guint64 byte = element * width;
      for (guint k = 0; k < words_per_lane && n < G_N_ELEMENTS(words); k++)
        words[n++] = byte / bank_width + k;
    }
    /* distinct words per bank: the most crowded bank sets the phase's passes */
    qsort(words, n, sizeof words[0], cmp_u64);
    guint most = 0;
    for (guint i = 0; i < n; i++)
      in_bank[words[i] % banks] = 0;
    for (guint i = 0; i < n; i++) {
      if (i > 0 && words[i] == words[i - 1])
        continue;
      guint c = ++in_bank[words[i] % banks];
      most = MAX(most, c);
    }
    passes += most;
  }
  return MAX(passes, 1u);
}

void
sm_smem_init(SmSharedMemory *smem, const CfgGpu *gpu, guint n_sm)
{
  smem->free = g_new0(guint64, n_sm);
  smem->first = g_new0(guint8, n_sm);
  smem->banks = gpu->smem.banks;
  smem->bank_width = gpu->smem.bank_width_bytes;
  smem->ticks_per_access = sm_ticks_from_cycles(gpu->smem.cycles_per_access);
  guint base = sm_smem_passes(smem->banks, smem->bank_width, ISA_PATTERN_COALESCED, 1, 4, NULL);
  smem->ticks_per_pass = smem->ticks_per_access / base;
  smem->depth_ticks = smem->ticks_per_access * gpu->smem.queue_depth;
  smem->pass_latency_ticks = sm_ticks_from_cycles(gpu->smem.pass_latency_cycles);
}

void
sm_smem_clear(SmSharedMemory *smem)
{
  g_clear_pointer(&smem->free, g_free);
  g_clear_pointer(&smem->first, g_free);
}
