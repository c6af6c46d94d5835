/* Clock reads (CS2R / S2R Rd, SR_CLOCKLO): the cycle each warp reads the clock, as a
 * clock64-timed measurement records it.  Over all warps of a run that read the clock at least
 * twice, the cycles between each one's first and last read give SmStats.clock_* (median,
 * minimum, maximum), and the cycles from the earliest first read to the latest last read the
 * span of them all (clock_span: what a program that times every warp's loop sees of the
 * block).  Not how the read issues (gpu/issue.c, sass.c). */
#pragma once

#include <glib.h>

#include "stats.h"

typedef struct {
  guint64 *first, *last;         /* per warp slot: its first and last clock read */
  guint *reads;                  /* per warp slot: reads so far */
  guint64 *at;                   /* per warp slot: its first SM_CLOCK_STEPS + 1 reads */
  GArray *spans;                 /* guint64: last - first of every warp that read the clock twice */
  GArray *steps[SM_CLOCK_STEPS]; /* guint64: step k of every warp that read the clock k + 2 times */
  guint64 span_first, span_last; /* over those warps: the earliest first read, the latest last */
} SmClock;

SmClock *sm_clock_new(guint n_warp_slots);
void sm_clock_free(SmClock *c);

/* A copy of @c sharing its per-slot reads, with no spans or steps of its own yet: what an SM
 * stepped on a thread keeps (fast/view.c); sm_clock_merge() gives them back. */
SmClock *sm_clock_view(const SmClock *c);
/* Adds @view's spans and steps to @c's (in any order: only medians, minima and maxima are read)
 * and frees @view. */
void sm_clock_merge(SmClock *c, SmClock *view);

/* The warp in @slot reads the clock at cycle @t. */
static inline void
sm_clock_read(SmClock *c, guint slot, guint64 t)
{
  guint n = c->reads[slot]++;
  if (n == 0)
    c->first[slot] = t;
  if (n <= SM_CLOCK_STEPS)
    c->at[(gsize)slot * (SM_CLOCK_STEPS + 1) + n] = t;
  c->last[slot] = t;
}

/* The warp in @slot ended: its span counts once, and the slot starts afresh. */
void sm_clock_done(SmClock *c, guint slot);

/* At the end of a run: the spans into @st (clock_warps, clock_median: the upper median, as
 * measurement programs take it; clock_min, clock_max, clock_span) and the steps' upper medians
 * (clock_steps, clock_n_steps: the steps some warp took). */
void sm_clock_finish(const SmClock *c, SmStats *st);
