/* Warp states and series binned into columns of cycles (bins.h). */
#include "bins.h"

#include <string.h>

void
trace_bins_init(TraceBins *b, guint64 from, guint64 to, guint64 bin, guint cols, guint n_rows,
                guint n_states, guint n_series)
{
  *b = (TraceBins){.from = from,
                   .to = to,
                   .bin = bin ? bin : 1,
                   .fixed = bin != 0,
                   .cols = MAX(cols, 1u),
                   .n_rows = n_rows,
                   .n_states = n_states,
                   .n_series = n_series,
                   .last = from};
  b->counts = g_new0(guint32, (gsize)MAX(n_rows, 1u) * b->cols * MAX(n_states, 1u));
  b->series = g_new0(double, (gsize)MAX(n_series, 1u) * b->cols);
}

void
trace_bins_clear(TraceBins *b)
{
  g_clear_pointer(&b->counts, g_free);
  g_clear_pointer(&b->series, g_free);
}

/* Twice the columns, the first ones kept where they are. */
static void
add_columns(TraceBins *b)
{
  guint cols = b->cols * 2;
  guint32 *counts = g_new0(guint32, (gsize)MAX(b->n_rows, 1u) * cols * MAX(b->n_states, 1u));
  for (guint r = 0; r < b->n_rows; r++)
    memcpy(counts + (gsize)r * cols * b->n_states, b->counts + (gsize)r * b->cols * b->n_states,
           sizeof(guint32) * b->cols * b->n_states);
  double *series = g_new0(double, (gsize)MAX(b->n_series, 1u) * cols);
  for (guint s = 0; s < b->n_series; s++)
    memcpy(series + (gsize)s * cols, b->series + (gsize)s * b->cols, sizeof(double) * b->cols);
  g_free(b->counts);
  g_free(b->series);
  b->counts = counts;
  b->series = series;
  b->cols = cols;
}

/* Twice the cycles a column: each pair of columns merged into the first half. */
static void
merge_pairs(TraceBins *b)
{
  guint ns = b->n_states;
  for (guint c = 0; c < b->cols; c++) {
    guint lo = 2 * c, hi = 2 * c + 1; /* read ahead of where c writes */
    for (guint r = 0; r < b->n_rows; r++) {
      guint32 *row = b->counts + (gsize)r * b->cols * ns;
      for (guint s = 0; s < ns; s++)
        row[(gsize)c * ns + s] = (lo < b->cols ? row[(gsize)lo * ns + s] : 0) +
                                 (hi < b->cols ? row[(gsize)hi * ns + s] : 0);
    }
    for (guint s = 0; s < b->n_series; s++) {
      double *v = b->series + (gsize)s * b->cols;
      v[c] = (lo < b->cols ? v[lo] : 0) + (hi < b->cols ? v[hi] : 0);
    }
  }
  b->bin *= 2;
}

void
trace_bins_reach(TraceBins *b, guint64 cycle)
{
  if (cycle < b->from || cycle >= b->to)
    return;
  b->last = MAX(b->last, cycle);
  while (cycle - b->from >= (guint64)b->cols * b->bin) {
    if (b->fixed)
      add_columns(b);
    else
      merge_pairs(b);
  }
}

/* Calls back for each column [@a, @z) overlaps within the window, with the cycles it covers. */
#define EACH_COLUMN(b, a, z, col, n, body)                                                         \
  do {                                                                                             \
    guint64 lo_ = MAX((a), (b)->from), hi_ = MIN((z), (b)->to);                                    \
    if (hi_ > lo_)                                                                                 \
      trace_bins_reach((b), hi_ - 1);                                                              \
    while (lo_ < hi_) {                                                                            \
      guint64 col = (lo_ - (b)->from) / (b)->bin;                                                  \
      guint64 end_ = MIN(hi_, (b)->from + (col + 1) * (b)->bin);                                   \
      guint64 n = end_ - lo_;                                                                      \
      body;                                                                                        \
      lo_ = end_;                                                                                  \
    }                                                                                              \
  } while (0)

void
trace_bins_state(TraceBins *b, guint row, guint state, guint64 a, guint64 z)
{
  if (row >= b->n_rows || state >= b->n_states)
    return;
  EACH_COLUMN(b, a, z, col, n,
              { b->counts[((gsize)row * b->cols + col) * b->n_states + state] += (guint32)n; });
}

void
trace_bins_span(TraceBins *b, guint s, guint64 a, guint64 z, double weight)
{
  EACH_COLUMN(b, a, z, col, n, { b->series[(gsize)s * b->cols + col] += weight * (double)n; });
}

void
trace_bins_add(TraceBins *b, guint s, guint64 cycle, double amount)
{
  if (cycle < b->from || cycle >= b->to)
    return;
  trace_bins_reach(b, cycle);
  b->series[(gsize)s * b->cols + (cycle - b->from) / b->bin] += amount;
}

guint
trace_bins_used(const TraceBins *b, guint64 end)
{
  end = MIN(end, b->to);
  if (end <= b->from)
    return 1;
  return (guint)MIN((end - b->from + b->bin - 1) / b->bin, (guint64)b->cols);
}

guint
trace_bins_dominant(const TraceBins *b, guint row, guint col)
{
  const guint32 *c = trace_bins_counts(b, row, col);
  guint best = G_MAXUINT;
  guint32 most = 0;
  for (guint s = 0; s < b->n_states; s++)
    if (c[s] > most) {
      most = c[s];
      best = s;
    }
  return best;
}

void
trace_rows_pick(TraceRows *r, const TraceSink *sink, guint limit)
{
  const TraceInfo *info = &sink->info;
  r->row_of_warp = g_new(guint, MAX(info->n_warps, 1u));
  r->warp_of_row = g_new(guint, MAX(info->n_warps, 1u));
  r->n_rows = 0;
  for (guint w = 0; w < info->n_warps; w++) {
    r->row_of_warp[w] = G_MAXUINT;
    if (w < limit && trace_wants_warp(sink, w)) {
      r->warp_of_row[r->n_rows] = w;
      r->row_of_warp[w] = r->n_rows++;
    }
  }
}

void
trace_rows_bin(TraceRows *r, const TraceInfo *info, guint64 from, guint64 to, guint64 bin,
               guint cols, guint n_series)
{
  trace_bins_init(&r->bins, from, to, bin, cols, r->n_rows, info->n_states, n_series);
  trace_warp_states_init(&r->states, info, from);
}

void
trace_rows_state(TraceRows *r, guint warp, guint state, guint64 cycle)
{
  if (r->row_of_warp == NULL || r->states.state == NULL)
    return;
  guint row = r->row_of_warp[warp];
  if (row == G_MAXUINT)
    return;
  guint old;
  guint64 from;
  trace_warp_states_set(&r->states, warp, state, cycle, &old, &from);
  trace_bins_state(&r->bins, row, old, from, cycle);
}

void
trace_rows_finish(TraceRows *r, guint64 end)
{
  if (end > r->bins.from)
    trace_bins_reach(&r->bins, end - 1);
  for (guint row = 0; row < r->n_rows; row++) {
    guint w = r->warp_of_row[row];
    trace_bins_state(&r->bins, row, r->states.state[w], r->states.since[w], end);
  }
}

void
trace_rows_clear(TraceRows *r)
{
  g_clear_pointer(&r->row_of_warp, g_free);
  g_clear_pointer(&r->warp_of_row, g_free);
  trace_warp_states_clear(&r->states);
  trace_bins_clear(&r->bins);
}
