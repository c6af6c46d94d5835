/* A run's warp states and series binned into columns of cycles, for the writers that draw a
 * whole run in a fixed width (picture.c, text.c).  A column holds @bin cycles: fixed (a window
 * or a scale was given), or doubled as the run grows past the columns there are, pairs of
 * columns merging, so any length fits.  Per row (a warp shown) and column: the cycles spent in
 * each state; per series and column: a sum (time-weighted values, or events). */
#pragma once

#include <glib.h>

#include "trace.h"

typedef struct {
  guint64 from, bin; /* the first cycle, cycles a column */
  guint64 to;        /* the window's end (G_MAXUINT64: none) */
  gboolean fixed;    /* bin never doubles: columns are added instead */
  guint cols;        /* columns allocated */
  guint n_rows, n_states, n_series;
  guint32 *counts; /* n_rows x cols x n_states */
  double *series;  /* n_series x cols */
  guint64 last;    /* the latest cycle reached */
} TraceBins;

/* @cols columns from cycle @from; @bin 0: start at one cycle a column and double as needed;
 * else @bin cycles a column, columns added as needed. */
void trace_bins_init(TraceBins *b, guint64 from, guint64 to, guint64 bin, guint cols, guint n_rows,
                     guint n_states, guint n_series);
void trace_bins_clear(TraceBins *b);

/* Makes room for @cycle (doubling the cycles a column, or adding columns). */
void trace_bins_reach(TraceBins *b, guint64 cycle);
/* Row @row spent [@a, @b) in @state. */
void trace_bins_state(TraceBins *b, guint row, guint state, guint64 a, guint64 z);
/* Series @s: @weight for each cycle of [@a, @z) (a value held over a time). */
void trace_bins_span(TraceBins *b, guint s, guint64 a, guint64 z, double weight);
/* Series @s: @amount at @cycle (an event). */
void trace_bins_add(TraceBins *b, guint s, guint64 cycle, double amount);

/* The columns a run ending at @end fills. */
guint trace_bins_used(const TraceBins *b, guint64 end);
static inline const guint32 *
trace_bins_counts(const TraceBins *b, guint row, guint col)
{
  return b->counts + ((gsize)row * b->cols + col) * b->n_states;
}
static inline double
trace_bins_value(const TraceBins *b, guint s, guint col)
{
  return b->series[(gsize)s * b->cols + col];
}
/* The state row @row spent most of column @col in (G_MAXUINT: none). */
guint trace_bins_dominant(const TraceBins *b, guint row, guint col);

/* The warps a trace shows, a row each, their states binned: what the writers that draw a whole
 * run keep (picture.c, text.c). */
typedef struct {
  TraceBins bins;
  TraceWarpStates states;
  guint n_rows;
  guint *row_of_warp; /* G_MAXUINT: not shown */
  guint *warp_of_row;
} TraceRows;

/* The rows: the warps @sink shows, in order, below warp @limit. */
void trace_rows_pick(TraceRows *r, const TraceSink *sink, guint limit);
/* Then the bins (trace_bins_init()'s arguments) and the warps' states from @from. */
void trace_rows_bin(TraceRows *r, const TraceInfo *info, guint64 from, guint64 to, guint64 bin,
                    guint cols, guint n_series);
/* Warp @warp (shown or not) is in @state from @cycle. */
void trace_rows_state(TraceRows *r, guint warp, guint state, guint64 cycle);
/* The run ends at @end: every row's last state to it. */
void trace_rows_finish(TraceRows *r, guint64 end);
void trace_rows_clear(TraceRows *r);
