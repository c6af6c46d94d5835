/* A timeline like Volkov's Figure 4.7: one row per warp, one column per cycle or per span of
 * cycles (one writer; the sink interface is trace.c's).
 *
 * A column a cycle (a run or window of at most 120 cycles, or --trace-scale 1):
 *   *  an arithmetic (CUDA core or SFU) instruction issues    -  it executes
 *   o  a memory instruction issues                            =  it is in flight
 *   +  and @ instead of * and o: issued with some lanes inactive (a divergent path); such a
 *      warp's row is followed by a "lanes" row: its active lanes at each issue (1-9, a=10 ...
 *      v=31, # all 32)
 *   and where none of its instructions runs, the warp's state as a letter (state_letter()).
 * A column a span of cycles (longer runs: as many cycles a column as fit 120 columns, or
 * --trace-scale N): the letter of the state the warp spent most of the span in, * where that
 * is issuing, lowercase where it also issued in the span.
 *
 * Under the rows, per column, how many instructions of each kind are in flight (issue cycle
 * included, completion cycle excluded; over a span, the mean). */
#include <string.h>

#include "bins.h"
#include "trace.h"

#define FIT_COLUMNS 120

typedef struct {
  TraceSink base;
  TraceRows rows; /* series: instructions in flight of each kind */
  /* a column a cycle: the first @grid_width cycles, grown up to @grid_cap (G_MAXUINT64: no
   * bound but the size limit) */
  guint64 grid_width, grid_cap;
  char *grid;      /* n_rows x grid_width */
  char *lanes;     /* n_rows x grid_width: active lanes at each issue */
  guint *inflight; /* 3 x grid_width: arithmetic, sfu, memory */
  gboolean used[3];
  gboolean partial; /* some issue had inactive lanes */
  guint8 *row_partial;
} TextSink;

/* A state's letter: '.' ready but not picked, '*' issuing, ' ' no warp, else a capital. */
static char
state_letter(const char *name)
{
  static const struct {
    const char *name;
    char letter;
  } letters[] = {
      {"selected", '*'},
      {"not_selected", '.'},
      {"wait", 'W'},
      {"long_scoreboard", 'L'},
      {"short_scoreboard", 'S'},
      {"math_pipe_throttle", 'P'},
      {"lg_throttle", 'T'},
      {"mio_throttle", 'M'},
      {"barrier", 'B'},
      {"async_copy_wait", 'A'},
      {"drain", 'D'},
      {"branch_resolving", 'R'},
      {"membar", 'F'},
      {"no_instruction", 'N'},
      {"dispatch_stall", 'X'},
      {"inactive", ' '},
  };
  for (guint i = 0; i < G_N_ELEMENTS(letters); i++)
    if (strcmp(letters[i].name, name) == 0)
      return letters[i].letter;
  return '?';
}

/* Widens the grid to @width columns (blank). */
static void
grow_grid(TextSink *t, guint64 width)
{
  guint64 old = t->grid_width;
  gsize rows = MAX(t->rows.n_rows, 1u);
  char *grid = g_malloc((gsize)(rows * width)), *lanes = g_malloc((gsize)(rows * width));
  memset(grid, ' ', (gsize)(rows * width));
  memset(lanes, ' ', (gsize)(rows * width));
  guint *inflight = g_new0(guint, 3 * width);
  for (gsize r = 0; r < t->rows.n_rows && old; r++) {
    memcpy(grid + r * width, t->grid + r * old, old);
    memcpy(lanes + r * width, t->lanes + r * old, old);
  }
  for (guint k = 0; k < 3 && old; k++)
    memcpy(inflight + k * width, t->inflight + k * old, sizeof(guint) * old);
  g_free(t->grid);
  g_free(t->lanes);
  g_free(t->inflight);
  t->grid = grid;
  t->lanes = lanes;
  t->inflight = inflight;
  t->grid_width = width;
}

static gboolean
text_begin(TraceSink *sink, const TraceInfo *info, GError **error)
{
  TextSink *t = (TextSink *)sink;
  const TraceOptions *o = &sink->opts;
  guint64 from = o->has_window ? o->from : 0;
  guint64 width = o->has_window ? o->to - o->from : 0;
  trace_rows_pick(&t->rows, sink, G_MAXUINT);
  /* cycles a column: the scale asked for, a window's cycles over 120 columns, or one doubled as
   * the run grows (0) */
  guint64 bin = o->scale ? o->scale : width ? (width + FIT_COLUMNS - 1) / FIT_COLUMNS : 0;
  gboolean one = bin == 1 || bin == 0;
  t->grid_cap = !one ? 0 : width ? width : bin == 1 ? G_MAXUINT64 : FIT_COLUMNS;
  guint64 columns = width ? (width + MAX(bin, 1) - 1) / MAX(bin, 1) : FIT_COLUMNS;
  guint64 estimate = (guint64)(2 * t->rows.n_rows + 8) * (MIN(columns, t->grid_cap) + 16);
  if (width && estimate > o->max_bytes) {
    g_set_error(error, TRACE_ERROR, TRACE_ERROR_LIMIT,
                "%s: a timeline of %u warps x %" G_GUINT64_FORMAT
                " columns would be larger than %" G_GUINT64_FORMAT
                " MB; narrow it with --trace-window or --trace-warps, or raise --trace-scale",
                sink->path, t->rows.n_rows, columns, o->max_bytes >> 20);
    return FALSE;
  }
  guint n = MAX(t->rows.n_rows, 1u);
  trace_rows_bin(&t->rows, info, from, o->has_window ? o->to : G_MAXUINT64, bin,
                 (guint)MIN(columns, (guint64)FIT_COLUMNS), 3);
  t->row_partial = g_new0(guint8, n);
  if (t->grid_cap)
    grow_grid(t, MIN(t->grid_cap, (guint64)FIT_COLUMNS));
  return TRUE;
}

static void
text_state(TraceSink *sink, guint64 cycle, guint warp, guint state)
{
  if (warp < sink->info.n_warps)
    trace_rows_state(&((TextSink *)sink)->rows, warp, state, cycle);
}

static void
text_issue(TraceSink *sink, const TraceIssue *i)
{
  TextSink *t = (TextSink *)sink;
  guint kind = i->memory ? 2 : (i->unit == 1 ? 1 : 0);
  guint64 from = t->rows.bins.from;
  if (i->complete > i->cycle && MAX(i->cycle, from) < MIN(i->complete, t->rows.bins.to))
    t->used[kind] = TRUE;
  trace_bins_span(&t->rows.bins, kind, i->cycle, i->complete, 1);
  if (t->grid_cap == 0)
    return;
  /* a column a cycle, while the run is short enough for it */
  if (i->cycle >= from && i->cycle - from >= t->grid_width && i->cycle - from < t->grid_cap)
    grow_grid(t, MIN(t->grid_cap, MAX(2 * t->grid_width, i->cycle - from + 1)));
  guint64 lo = MAX(i->cycle, from), hi = MIN(i->complete, from + t->grid_width);
  for (guint64 c = lo; c < hi; c++)
    t->inflight[kind * t->grid_width + (c - from)]++;
  guint row = t->rows.row_of_warp[i->warp];
  if (row == G_MAXUINT)
    return;
  char *r = t->grid + (gsize)row * t->grid_width;
  for (guint64 c = MAX(i->cycle + 1, from); c < hi; c++)
    if (r[c - from] == ' ')
      r[c - from] = i->memory ? '=' : '-';
  if (i->cycle >= from && i->cycle - from < t->grid_width && trace_in_window(sink, i->cycle)) {
    gboolean partial = i->mask != 0xffffffffu;
    t->partial |= partial;
    t->row_partial[row] |= partial;
    r[i->cycle - from] = i->memory ? (partial ? '@' : 'o') : (partial ? '+' : '*');
    guint n = (guint)__builtin_popcount(i->mask);
    t->lanes[(gsize)row * t->grid_width + (i->cycle - from)] = n == 32  ? '#'
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

/* "cycle" with the cycle at every tenth column, and (a column a cycle) a ruler of last digits. */
static void
print_axis(TraceSink *sink, guint64 from, guint64 bin, guint cols)
{
  GString *num = g_string_new("cycle     ");
  GString *ruler = g_string_new("          ");
  for (guint c = 0; c < cols; c++) {
    guint64 cyc = from + c * bin;
    if ((bin == 1 ? cyc % 10 == 0 : c % 10 == 0) && num->len <= 10 + c) {
      while (num->len < 10 + c)
        g_string_append_c(num, ' ');
      g_string_append_printf(num, "%" G_GUINT64_FORMAT, cyc);
    }
    g_string_append_c(ruler, (char)('0' + cyc % 10));
  }
  trace_printf(sink, "%s\n", num->str);
  if (bin == 1)
    trace_printf(sink, "%s\n", ruler->str);
  g_string_free(num, TRUE);
  g_string_free(ruler, TRUE);
}

/* The letters @seen (by state) with their states' names, for the legend. */
static char *
letters_legend(const TraceInfo *info, const gboolean *seen)
{
  GString *s = g_string_new(NULL);
  for (guint st = 0; st < info->n_states; st++) {
    char l = state_letter(info->state_names[st]);
    if (seen[st] && l != ' ' && l != '*')
      g_string_append_printf(s, "%s%c %s", s->len ? ", " : "", l, info->state_names[st]);
  }
  return g_string_free(s, FALSE);
}

static gboolean
text_end(TraceSink *sink, guint64 cycles, GError **error)
{
  TextSink *t = (TextSink *)sink;
  TraceBins *b = &t->rows.bins;
  guint64 end = MAX(MIN(cycles, b->to), b->from);
  trace_rows_finish(&t->rows, end); /* every warp's last state, to the end */
  const TraceInfo *info = &sink->info;
  g_autofree gboolean *seen = g_new0(gboolean, MAX(info->n_states, 1u));
  guint cols = end > b->from ? trace_bins_used(b, end) : 0;
  gboolean per_cycle = b->bin == 1 && t->grid_cap > 0;
  if (per_cycle && end - b->from > t->grid_width && t->grid_cap > t->grid_width)
    grow_grid(t, MIN(t->grid_cap, end - b->from));
  if (per_cycle)
    cols = (guint)MIN((guint64)cols, t->grid_width);
  guint64 bytes = (guint64)(2 * t->rows.n_rows + 8) * (cols + 16);
  if (bytes > sink->opts.max_bytes) {
    g_set_error(error, TRACE_ERROR, TRACE_ERROR_LIMIT,
                "%s: a timeline of %u warps x %u columns would be larger than %" G_GUINT64_FORMAT
                " MB; narrow it with --trace-window or --trace-warps, or raise --trace-scale",
                sink->path, t->rows.n_rows, cols, sink->opts.max_bytes >> 20);
    return FALSE;
  }
  /* each row's cells, and the states they show */
  GPtrArray *rows = g_ptr_array_new_with_free_func(g_free);
  guint selected = G_MAXUINT;
  for (guint st = 0; st < info->n_states; st++)
    if (strcmp(info->state_names[st], "selected") == 0)
      selected = st;
  for (guint r = 0; r < t->rows.n_rows; r++) {
    char *cells = g_malloc(cols + 1);
    for (guint c = 0; c < cols; c++) {
      guint st = trace_bins_dominant(b, r, c);
      char l = st < info->n_states ? state_letter(info->state_names[st]) : ' ';
      if (per_cycle && t->grid[(gsize)r * t->grid_width + c] != ' ') {
        cells[c] = t->grid[(gsize)r * t->grid_width + c]; /* something of the warp runs */
        continue;
      }
      if (!per_cycle && l != '*' && g_ascii_isupper(l) && selected < info->n_states &&
          trace_bins_counts(b, r, c)[selected] > 0)
        l = g_ascii_tolower(l); /* it issued in the span too */
      if (st < info->n_states)
        seen[st] = TRUE;
      cells[c] = l;
    }
    cells[cols] = '\0';
    g_ptr_array_add(rows, cells);
  }
  g_autofree char *legend = letters_legend(info, seen);
  trace_printf(sink, "# %s on %s: cycles %" G_GUINT64_FORMAT " to %" G_GUINT64_FORMAT,
               info->kernel_name, info->gpu_name, b->from,
               b->from + (per_cycle ? cols : end - b->from));
  if (!per_cycle)
    trace_printf(sink, ", %" G_GUINT64_FORMAT " cycles a column", b->bin);
  trace_printf(sink, "\n");
  if (per_cycle) {
    trace_printf(sink, "# * arithmetic issue, - executing; o memory issue, = in flight\n%s",
                 t->partial ? "# + and @: issued with some lanes inactive (a divergent path); the "
                              "lanes row: active lanes at each issue (1-9, a=10 ... v=31, # all "
                              "32)\n"
                            : "");
    if (*legend)
      trace_printf(sink, "# where none of its instructions runs, the warp's state: %s\n", legend);
    trace_printf(sink,
                 "# last rows: instructions in flight per cycle (0-9, a=10 ... z=35, + more)\n");
  } else {
    trace_printf(sink,
                 "# each column: the state the warp spent most of its cycles in (* issuing; "
                 "lowercase: it also issued in them): %s\n"
                 "# last rows: instructions in flight, the mean over each column (0-9, a=10 ... "
                 "z=35, + more)\n",
                 legend);
  }
  print_axis(sink, b->from, b->bin, cols);
  for (guint w = 0; w < info->n_warps; w++) {
    guint row = t->rows.row_of_warp[w];
    if (row == G_MAXUINT)
      continue;
    trace_printf(sink, "warp %4u %s\n", w, (char *)g_ptr_array_index(rows, row));
    if (per_cycle && t->row_partial[row])
      trace_printf(sink, "    lanes %.*s\n", (int)cols, t->lanes + (gsize)row * t->grid_width);
  }
  g_ptr_array_free(rows, TRUE);
  static const char *const labels[3] = {"alu       ", "sfu       ", "memory    "};
  for (guint k = 0; k < 3; k++) {
    if (!t->used[k])
      continue;
    GString *line = g_string_new(labels[k]);
    for (guint c = 0; c < cols; c++) {
      guint64 lo = b->from + c * b->bin, hi = MIN(lo + b->bin, end);
      double mean = trace_bins_value(b, k, c) / (double)MAX(hi - lo, 1);
      g_string_append_c(line, per_cycle ? count_char(t->inflight[k * t->grid_width + c])
                                        : count_char((guint)(mean + 0.5)));
    }
    trace_printf(sink, "%s\n", line->str);
    g_string_free(line, TRUE);
  }
  return TRUE;
}

static void
text_free(TraceSink *sink)
{
  TextSink *t = (TextSink *)sink;
  g_free(t->grid);
  g_free(t->lanes);
  g_free(t->row_partial);
  g_free(t->inflight);
  trace_rows_clear(&t->rows);
}

const TraceSinkClass trace_text_class = {
    .instance_size = sizeof(TextSink),
    .begin = text_begin,
    .issue = text_issue,
    .state = text_state,
    .end = text_end,
    .free = text_free,
};
