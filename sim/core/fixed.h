/* Sub-cycle time for rates that are not whole cycles (e.g. 12.3 cycles per 128-byte line,
 * or half a cycle per warp-instruction on a 64-lane pipe).  Times in "ticks" are cycles
 * scaled by 2^SM_TICK_SHIFT; integer arithmetic keeps runs bit-identical everywhere. */
#pragma once

#include <glib.h>

#define SM_TICK_SHIFT 16
#define SM_TICKS_PER_CYCLE ((guint64)1 << SM_TICK_SHIFT)

static inline guint64
sm_ticks(guint64 cycles)
{
  return cycles << SM_TICK_SHIFT;
}

/* First whole cycle at or after @ticks. */
static inline guint64
sm_ticks_ceil_cycle(guint64 ticks)
{
  return (ticks + SM_TICKS_PER_CYCLE - 1) >> SM_TICK_SHIFT;
}

/* Converts a duration in (fractional) cycles to ticks, rounding to nearest. */
static inline guint64
sm_ticks_from_cycles(double cycles)
{
  return (guint64)(cycles * (double)SM_TICKS_PER_CYCLE + 0.5);
}

/* xorshift64* step: the project's one pseudo-random source (seeded per warp / level). */
static inline guint64
sm_rng_next(guint64 *state)
{
  guint64 x = *state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *state = x;
  return x * 0x2545F4914F6CDD1DULL;
}

/* splitmix64 finaliser: hashes addresses onto channels and seeds generators. */
static inline guint64
sm_hash64(guint64 x)
{
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

/* Set bits of a 32-bit mask (portable: no popcnt instruction assumed). */
static inline guint
sm_popcount32(guint32 x)
{
  x = x - ((x >> 1) & 0x55555555u);
  x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
  x = (x + (x >> 4)) & 0x0f0f0f0fu;
  return (x * 0x01010101u) >> 24;
}
