/* The pass over a scheduler's wake times (wake.h). */
#include "wake.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define SM_WAKE_AVX512 1
#endif

SmWakeDue
sm_wake_pass_portable(const guint64 *wake, guint n, guint64 t)
{
  return sm_wake_pass_small(wake, n, t);
}

#ifdef SM_WAKE_AVX512
__attribute__((target("avx512f"))) static SmWakeDue
pass_avx512(const guint64 *wake, guint n, guint64 t)
{
  __m512i tv = _mm512_set1_epi64((long long)t);
  __m512i least = _mm512_set1_epi64(-1);
  guint64 due = 0;
  for (guint q = 0; q < n; q += 8) {
    __mmask8 lanes = n - q >= 8 ? 0xff : (__mmask8)((1u << (n - q)) - 1);
    __m512i w = _mm512_maskz_loadu_epi64(lanes, wake + q);
    __mmask8 now = _mm512_mask_cmple_epu64_mask(lanes, w, tv);
    __mmask8 after = _mm512_mask_cmpgt_epu64_mask(lanes, w, tv);
    least = _mm512_mask_min_epu64(least, after, least, w);
    due |= (guint64)now << q;
  }
  return (SmWakeDue){due, (guint64)_mm512_reduce_min_epu64(least)};
}
#endif

SmWakePass
sm_wake_pass_choose(void)
{
#ifdef SM_WAKE_AVX512
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f"))
    return pass_avx512;
#endif
  return sm_wake_pass_portable;
}
