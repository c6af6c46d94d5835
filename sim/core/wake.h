/* The pass over one scheduler's wake times at the start of its look: which of its warps are
 * due, and when the others next are.  Chosen once per machine: AVX-512 where the host has it
 * (eight wake times a compare), else a portable branch-free loop; both give the same answer.
 * Not what a due warp's look does (gpu/loop.c). */
#pragma once

#include <glib.h>

/* What the pass finds: bit p of @due is set when wake[p] <= t; @later is the earliest
 * wake[p] > t (G_MAXUINT64 when none).  Two words: returned in registers. */
typedef struct {
  guint64 due, later;
} SmWakeDue;

/* The pass over @n <= 64 wake times at cycle @t. */
typedef SmWakeDue (*SmWakePass)(const guint64 *wake, guint n, guint64 t);

/* The fastest pass this host runs for eight wake times or more (fewer: sm_wake_pass_small). */
SmWakePass sm_wake_pass_choose(void);

/* The portable pass, inline: for a few wake times a call costs more than the pass itself. */
static inline SmWakeDue
sm_wake_pass_small(const guint64 *wake, guint n, guint64 t)
{
  /* two chains of minima: half the dependency length */
  guint64 due = 0, min_a = G_MAXUINT64, min_b = G_MAXUINT64;
  guint q = 0;
  for (; q + 1 < n; q += 2) {
    guint64 wa = wake[q], wb = wake[q + 1];
    due |= (guint64)(wa <= t) << q | (guint64)(wb <= t) << (q + 1);
    guint64 la = wa > t ? wa : G_MAXUINT64, lb = wb > t ? wb : G_MAXUINT64;
    min_a = la < min_a ? la : min_a;
    min_b = lb < min_b ? lb : min_b;
  }
  if (q < n) {
    guint64 wa = wake[q];
    due |= (guint64)(wa <= t) << q;
    min_a = wa > t && wa < min_a ? wa : min_a;
  }
  return (SmWakeDue){due, MIN(min_a, min_b)};
}

/* The same, out of line (the choice where the host has no AVX-512; tests compare them). */
SmWakeDue sm_wake_pass_portable(const guint64 *wake, guint n, guint64 t);
