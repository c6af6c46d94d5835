/* Windows (window= in a stream): a warp's accesses walk a random cycle over a window's units,
 * as a pointer chase over a random permutation does, without a table: a full-period linear
 * congruential sequence over 2^bits values, scrambled by a bijection of those bits, with the
 * values past the window's end skipped.  Every unit comes once per cycle, in the same order for
 * every warp; each warp starts at its own place. */
#pragma once

#include "../core/fixed.h"

/* windows' lines start here: far from the lines drawn at random (below 2^40) */
#define SM_WINDOW_LINE_BASE (1ull << 44)

/* bits of a sequence covering @n units: the smallest 2^bits >= n */
static inline guint
sm_chase_bits(guint64 n)
{
  guint bits = 0;
  while (bits < 63 && (1ull << bits) < n)
    bits++;
  return bits;
}

/* a bijection of the low @bits bits */
static inline guint64
sm_chase_scramble(guint64 v, guint bits)
{
  if (bits < 2)
    return v;
  guint64 mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;
  guint s = (bits + 1) / 2;
  v ^= v >> s;
  v = (v * 0x9E3779B97F4A7C15ULL) & mask;
  v ^= v >> s;
  v = (v * 0xBF58476D1CE4E5B9ULL) & mask;
  v ^= v >> s;
  return v;
}

#define SM_CHASE_A 6364136223846793005ULL
#define SM_CHASE_C 1442695040888963407ULL

/* The next unit (< @n) of the cycle from state *@x. */
static inline guint64
sm_chase_next(guint64 *x, guint64 n, guint bits)
{
  guint64 mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;
  for (;;) {
    *x = *x * SM_CHASE_A + SM_CHASE_C;
    guint64 u = sm_chase_scramble(*x & mask, bits);
    if (u < n)
      return u;
  }
}

/* The state before *@x (the sequence run backwards): a warm-up walks up to a warp's start. */
static inline void
sm_chase_back(guint64 *x)
{
  *x = (*x - SM_CHASE_C) * 0xC097EF87329E28A5ULL; /* SM_CHASE_A's inverse modulo 2^64 */
}
