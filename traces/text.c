/* A timeline like Volkov's Figure 4.7: one row per warp, one column per cycle (one writer;
 * the sink interface is trace.c's).
 *
 *   *  an arithmetic (CUDA core or SFU) instruction issues    -  it executes
 *   o  a memory instruction issues                            =  it is in flight
 *   +  and @ instead of * and o: issued with some lanes inactive (a divergent path); such a
 *      warp's row is followed by a "lanes" row: its active lanes at each issue (1-9, a=10 ...
 *      v=31, # all 32)
 *
 * Under the rows, per cycle, how many instructions of each kind are in flight (issue cycle
 * included, completion cycle excluded).  Without --trace-window the first 120 cycles. */
#include <string.h>

#include "trace.h"

#define DEFAULT_WIDTH 120

typedef struct {
  TraceSink base;
  guint64 from, width;
  guint n_rows;
  guint *row_of_warp; /* G_MAXUINT: not shown */
  char *grid;         /* n_rows x width */
  guint *inflight;    /* 3 x width: arithmetic, sfu, memory */
  gboolean used[3];
  gboolean partial; /* some issue had inactive lanes */
  char *lanes;      /* n_rows x width: active lanes at each issue */
  guint8 *row_partial;
} TextSink;

static gboolean
text_begin(TraceSink *sink, const TraceInfo *info, GError **error)
{
  TextSink *t = (TextSink *)sink;
  t->from = sink->opts.has_window ? sink->opts.from : 0;
  t->width = sink->opts.has_window ? sink->opts.to - sink->opts.from : DEFAULT_WIDTH;
  if (!sink->opts.has_window) {
    sink->opts.from = 0;
    sink->opts.to = DEFAULT_WIDTH;
  }
  t->row_of_warp = g_new(guint, info->n_warps);
  for (guint w = 0; w < info->n_warps; w++)
    t->row_of_warp[w] = trace_wants_warp(sink, w) ? t->n_rows++ : G_MAXUINT;
  guint64 estimate = (guint64)(2 * t->n_rows + 8) * (t->width + 16); /* rows and lanes rows */
  if (estimate > sink->opts.max_bytes) {
    g_set_error(error, TRACE_ERROR, TRACE_ERROR_LIMIT,
                "%s: a timeline of %u warps x %" G_GUINT64_FORMAT
                " cycles would be larger than %" G_GUINT64_FORMAT
                " MB; narrow it with --trace-window or --trace-warps",
                sink->path, t->n_rows, t->width, sink->opts.max_bytes >> 20);
    return FALSE;
  }
  t->grid = g_malloc((gsize)t->n_rows * t->width);
  memset(t->grid, ' ', (gsize)t->n_rows * t->width);
  t->lanes = g_malloc((gsize)t->n_rows * t->width);
  memset(t->lanes, ' ', (gsize)t->n_rows * t->width);
  t->row_partial = g_new0(guint8, MAX(t->n_rows, 1u));
  t->inflight = g_new0(guint, 3 * t->width);
  return TRUE;
}

static void
text_issue(TraceSink *sink, const TraceIssue *i)
{
  TextSink *t = (TextSink *)sink;
  guint kind = i->memory ? 2 : (i->unit == 1 ? 1 : 0);
  guint64 lo = MAX(i->cycle, t->from), hi = MIN(i->complete, t->from + t->width);
  if (lo < hi)
    t->used[kind] = TRUE;
  for (guint64 c = lo; c < hi; c++)
    t->inflight[kind * t->width + (c - t->from)]++;
  guint row = t->row_of_warp[i->warp];
  if (row == G_MAXUINT)
    return;
  char *r = t->grid + (gsize)row * t->width;
  for (guint64 c = MAX(i->cycle + 1, t->from); c < hi; c++)
    if (r[c - t->from] == ' ')
      r[c - t->from] = i->memory ? '=' : '-';
  if (trace_in_window(sink, i->cycle)) {
    gboolean partial = i->mask != 0xffffffffu;
    t->partial |= partial;
    t->row_partial[row] |= partial;
    r[i->cycle - t->from] = i->memory ? (partial ? '@' : 'o') : (partial ? '+' : '*');
    guint n = (guint)__builtin_popcount(i->mask);
    t->lanes[(gsize)row * t->width + (i->cycle - t->from)] = n == 32  ? '#'
                                                             : n < 10 ? (char)('0' + n)
                                                                      : (char)('a' + n - 10);
  }
}

static char
count_char(guint n)
{
  if (n < 10)
    return (char)('0' + n);
  if (n < 36)
    return (char)('a' + n - 10);
  return '+';
}

static gboolean
text_end(TraceSink *sink, guint64 cycles, GError **error)
{
  TextSink *t = (TextSink *)sink;
  guint64 width = MIN(t->width, cycles > t->from ? cycles - t->from : 0);
  trace_printf(sink, "# %s on %s: cycles %" G_GUINT64_FORMAT " to %" G_GUINT64_FORMAT "\n",
               sink->info.kernel_name, sink->info.gpu_name, t->from, t->from + width);
  trace_printf(sink,
               "# * arithmetic issue, - executing; o memory issue, = in flight\n%s"
               "# last rows: instructions in flight per cycle (0-9, a=10 ... z=35, + more)\n",
               t->partial ? "# + and @: issued with some lanes inactive (a divergent path); the "
                            "lanes row: active lanes at each issue (1-9, a=10 ... v=31, # all 32)\n"
                          : "");
  /* cycle numbers every 10 columns, then a ruler */
  GString *num = g_string_new("cycle     ");
  GString *ruler = g_string_new("          ");
  for (guint64 c = 0; c < width; c++) {
    guint64 cyc = t->from + c;
    if (cyc % 10 == 0 && num->len <= 10 + c) {
      while (num->len < 10 + c)
        g_string_append_c(num, ' ');
      g_string_append_printf(num, "%" G_GUINT64_FORMAT, cyc);
    }
    g_string_append_c(ruler, (char)('0' + cyc % 10));
  }
  trace_printf(sink, "%s\n%s\n", num->str, ruler->str);
  g_string_free(num, TRUE);
  g_string_free(ruler, TRUE);
  for (guint w = 0; w < sink->info.n_warps; w++) {
    guint row = t->row_of_warp[w];
    if (row == G_MAXUINT)
      continue;
    trace_printf(sink, "warp %4u ", w);
    trace_printf(sink, "%.*s\n", (int)width, t->grid + (gsize)row * t->width);
    if (t->row_partial[row])
      trace_printf(sink, "    lanes %.*s\n", (int)width, t->lanes + (gsize)row * t->width);
  }
  static const char *const labels[3] = {"alu       ", "sfu       ", "memory    "};
  for (guint k = 0; k < 3; k++) {
    if (!t->used[k])
      continue;
    GString *line = g_string_new(labels[k]);
    for (guint64 c = 0; c < width; c++)
      g_string_append_c(line, count_char(t->inflight[k * t->width + c]));
    trace_printf(sink, "%s\n", line->str);
    g_string_free(line, TRUE);
  }
  return TRUE;
}

static void
text_free(TraceSink *sink)
{
  TextSink *t = (TextSink *)sink;
  g_free(t->row_of_warp);
  g_free(t->grid);
  g_free(t->lanes);
  g_free(t->row_partial);
  g_free(t->inflight);
}

const TraceSinkClass trace_text_class = {
    .instance_size = sizeof(TextSink),
    .begin = text_begin,
    .issue = text_issue,
    .end = text_end,
    .free = text_free,
};
