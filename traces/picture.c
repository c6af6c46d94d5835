/* A picture of a run (.png or .svg, cairo): Volkov's Figure 4.7 at any length.  One row per
 * warp, grouped by scheduler, coloured by the warp's state (Nsight's names, as the run report
 * counts them); above each group the scheduler's issue slots used; beneath, memory transactions
 * in flight and bytes per cycle; a time axis in cycles and a legend.  A run longer than the
 * picture is wide is drawn a span of cycles a pixel column: each column of a warp's row shows the
 * state it spent most of that span in (the caption says how many cycles a column is), the issue
 * and memory rows the mean over the span.  One writer; the sink interface is trace.c's. */
#include <cairo-svg.h>
#include <cairo.h>
#include <math.h>
#include <string.h>

#include "trace.h"

#define WIDTH 1400
#define LEFT 136
#define RIGHT 24
#define BINS (WIDTH - LEFT - RIGHT) /* the finest columns: a pixel each */
#define MAX_ROWS 256
#define MAX_STATES 32

typedef struct {
  TraceSink base;
  guint64 from, bin; /* the first cycle shown, cycles a column */
  gboolean fixed;    /* a window was given: bin is set by it, never doubled */
  guint n_rows, n_states;
  guint *row_of_warp; /* G_MAXUINT: not shown */
  guint *warp_of_row;
  guint *sched_of_row;    /* learned from the warp's issues (else warp % schedulers) */
  guint8 *row_sched_seen; /* an issue told the row's scheduler */
  guint *state;           /* per row: its state ... */
  guint64 *state_from;    /* ... since this cycle */
  guint32 *counts;        /* n_rows x BINS x n_states: cycles in each state */
  guint32 *issues;        /* n_sched x BINS */
  double *inflight;       /* BINS: transaction-cycles in flight */
  double *bytes;          /* BINS: bytes requested */
  guint64 counter_value[TRACE_COUNTER_COUNT], counter_since;
  guint64 last; /* the latest cycle any record reached */
} PictureSink;

static gboolean
picture_begin(TraceSink *sink, const TraceInfo *info, GError **error)
{
  PictureSink *p = (PictureSink *)sink;
  p->from = sink->opts.has_window ? sink->opts.from : 0;
  p->fixed = sink->opts.has_window && sink->opts.to != G_MAXUINT64;
  p->bin = p->fixed ? MAX((sink->opts.to - p->from + BINS - 1) / BINS, 1) : 1;
  p->n_states = MIN(info->n_states, MAX_STATES);
  p->row_of_warp = g_new(guint, MAX(info->n_warps, 1u));
  p->warp_of_row = g_new(guint, MAX(info->n_warps, 1u));
  for (guint w = 0; w < info->n_warps; w++) {
    p->row_of_warp[w] = G_MAXUINT;
    if (trace_wants_warp(sink, w)) {
      p->warp_of_row[p->n_rows] = w;
      p->row_of_warp[w] = p->n_rows++;
    }
  }
  if (p->n_rows > MAX_ROWS) {
    g_set_error(error, TRACE_ERROR, TRACE_ERROR_ARGS,
                "%s: a picture shows at most %u warps, this run has %u; choose them with "
                "--trace-warps (e.g. 0-63)",
                sink->path, MAX_ROWS, p->n_rows);
    return FALSE;
  }
  guint n = MAX(p->n_rows, 1u);
  p->sched_of_row = g_new(guint, n);
  p->row_sched_seen = g_new0(guint8, n);
  for (guint r = 0; r < p->n_rows; r++)
    p->sched_of_row[r] = p->warp_of_row[r] % MAX(info->n_sched, 1u);
  p->state = g_new(guint, n);
  p->state_from = g_new0(guint64, n);
  for (guint r = 0; r < p->n_rows; r++) { /* each warp's state when the trace began */
    p->state[r] = info->warp_state ? info->warp_state[p->warp_of_row[r]] : G_MAXUINT;
    p->state_from[r] = p->from;
  }
  p->counts = g_new0(guint32, (gsize)n * BINS * p->n_states);
  p->issues = g_new0(guint32, (gsize)MAX(info->n_sched, 1u) * BINS);
  p->inflight = g_new0(double, BINS);
  p->bytes = g_new0(double, BINS);
  p->counter_since = p->from;
  return TRUE;
}

/* Makes the columns wide enough for @cycle (doubling the cycles a column, merging pairs). */
static void
reach(PictureSink *p, guint64 cycle)
{
  if (cycle < p->from)
    return;
  p->last = MAX(p->last, cycle);
  if (p->fixed)
    return;
  while (cycle - p->from >= (guint64)BINS * p->bin) {
    guint ns = p->n_states, nsched = MAX(p->base.info.n_sched, 1u);
    for (guint b = 0; b < BINS; b++) {
      guint lo = 2 * b, hi = 2 * b + 1;
      for (guint r = 0; r < p->n_rows; r++)
        for (guint s = 0; s < ns; s++) {
          guint32 *c = p->counts + ((gsize)r * BINS) * ns;
          c[(gsize)b * ns + s] =
              (lo < BINS ? c[(gsize)lo * ns + s] : 0) + (hi < BINS ? c[(gsize)hi * ns + s] : 0);
        }
      for (guint s = 0; s < nsched; s++) {
        guint32 *c = p->issues + (gsize)s * BINS;
        c[b] = (lo < BINS ? c[lo] : 0) + (hi < BINS ? c[hi] : 0);
      }
      p->inflight[b] = (lo < BINS ? p->inflight[lo] : 0) + (hi < BINS ? p->inflight[hi] : 0);
      p->bytes[b] = (lo < BINS ? p->bytes[lo] : 0) + (hi < BINS ? p->bytes[hi] : 0);
    }
    p->bin *= 2;
  }
}

/* Adds @weight x the cycles of [a, b) that fall in the window to each column's @acc (doubles) or
 * @counts (row state counts, when @acc is NULL). */
static void
spread(PictureSink *p, guint64 a, guint64 b, double *acc, double weight, guint32 *counts,
       guint stride)
{
  guint64 lo = MAX(a, p->from), hi = MIN(b, p->from + (guint64)BINS * p->bin);
  if (p->base.opts.to != G_MAXUINT64)
    hi = MIN(hi, p->base.opts.to);
  while (lo < hi) {
    guint64 col = (lo - p->from) / p->bin;
    guint64 end = MIN(hi, p->from + (col + 1) * p->bin);
    if (acc)
      acc[col] += weight * (double)(end - lo);
    else
      counts[(gsize)col * stride] += (guint32)(end - lo);
    lo = end;
  }
}

static void
picture_state(TraceSink *sink, guint64 cycle, guint warp, guint state)
{
  PictureSink *p = (PictureSink *)sink;
  guint row = warp < sink->info.n_warps ? p->row_of_warp[warp] : G_MAXUINT;
  if (row == G_MAXUINT)
    return;
  reach(p, cycle);
  guint old = p->state[row];
  if (old < p->n_states && cycle > p->state_from[row])
    spread(p, p->state_from[row], cycle, NULL, 0, p->counts + (gsize)row * BINS * p->n_states + old,
           p->n_states);
  p->state[row] = state;
  p->state_from[row] = cycle;
}

static void
picture_issue(TraceSink *sink, const TraceIssue *i)
{
  PictureSink *p = (PictureSink *)sink;
  reach(p, i->cycle);
  guint row = p->row_of_warp[i->warp];
  if (row != G_MAXUINT && !p->row_sched_seen[row]) {
    p->sched_of_row[row] = i->sched;
    p->row_sched_seen[row] = 1;
  }
  if (trace_in_window(sink, i->cycle) && i->cycle - p->from < (guint64)BINS * p->bin &&
      i->sched < MAX(sink->info.n_sched, 1u))
    p->issues[(gsize)i->sched * BINS + (i->cycle - p->from) / p->bin]++;
}

static void
picture_counter(TraceSink *sink, guint64 cycle, TraceCounter counter, guint64 value)
{
  PictureSink *p = (PictureSink *)sink;
  reach(p, cycle);
  if (counter == TRACE_COUNTER_MEM_OUTSTANDING) {
    spread(p, p->counter_since, cycle, p->inflight,
           (double)p->counter_value[TRACE_COUNTER_MEM_OUTSTANDING], NULL, 0);
    p->counter_since = cycle;
  } else if (counter == TRACE_COUNTER_MEM_BYTES && cycle >= p->from) {
    reach(p, cycle);
    guint64 col = (cycle - p->from) / p->bin;
    if (col < BINS && (p->base.opts.to == G_MAXUINT64 || cycle < p->base.opts.to))
      p->bytes[col] += (double)(value - p->counter_value[counter]);
  }
  p->counter_value[counter] = value;
}

/* ---- drawing ---- */

typedef struct {
  const char *name;
  guint32 rgb; /* 0xRRGGBB: each 8-bit value drawn exactly */
} StateColour;

/* Nsight's warp states, in the legend's order, each with its colour */
static const StateColour colours[] = {
    {"selected", 0x2ca02c},
    {"not_selected", 0x98df8a},
    {"wait", 0xaec7e8},
    {"math_pipe_throttle", 0x1f77b4},
    {"dispatch_stall", 0xbcbd22},
    {"short_scoreboard", 0xff9a4d},
    {"mio_throttle", 0xc49c94},
    {"long_scoreboard", 0xd62728},
    {"lg_throttle", 0x8c564b},
    {"barrier", 0x9467bd},
    {"async_copy_wait", 0x17becf},
    {"drain", 0xe377c2},
    {"no_instruction", 0xc7c7c7},
    {"inactive", 0xffffff},
};

static void
set_colour(cairo_t *cr, guint32 rgb)
{
  cairo_set_source_rgb(cr, ((rgb >> 16) & 0xff) / 255.0, ((rgb >> 8) & 0xff) / 255.0,
                       (rgb & 0xff) / 255.0);
}

static const StateColour *
colour_of(const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS(colours); i++)
    if (strcmp(colours[i].name, name) == 0)
      return &colours[i];
  static const StateColour other = {"other", 0x4d4d4d};
  return &other;
}

static void
text(cairo_t *cr, double x, double y, const char *s, double ax)
{
  cairo_text_extents_t e;
  cairo_text_extents(cr, s, &e);
  cairo_move_to(cr, x - ax * e.x_advance, y - e.y_bearing - e.height / 2);
  cairo_show_text(cr, s);
}

/* A round step for about @n ticks over @span: 1, 2 or 5 times a power of ten. */
static double
nice_step(double span, double n)
{
  double raw = span / n, p = pow(10, floor(log10(raw)));
  return raw / p < 1.5 ? p : raw / p < 3.5 ? 2 * p : raw / p < 7.5 ? 5 * p : 10 * p;
}

/* A chart of one value a column (a mean a cycle) beneath the rows. */
static void
chart(cairo_t *cr, double top, double h, const double *v, guint cols, double colw,
      const char *label, double r, double g, double b)
{
  double max = 0;
  for (guint c = 0; c < cols; c++)
    max = MAX(max, v[c]);
  cairo_set_source_rgb(cr, 0.96, 0.96, 0.96);
  cairo_rectangle(cr, LEFT, top, cols * colw, h);
  cairo_fill(cr);
  cairo_set_source_rgb(cr, r, g, b);
  for (guint c = 0; c < cols && max > 0; c++) {
    double bh = h * v[c] / max;
    cairo_rectangle(cr, LEFT + c * colw, top + h - bh, colw + 0.02, bh);
  }
  cairo_fill(cr);
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_set_font_size(cr, 11);
  text(cr, LEFT - 6, top + 8, label, 1);
  char peak[64];
  g_snprintf(peak, sizeof peak, "max %.3g", max);
  text(cr, LEFT - 6, top + 22, peak, 1);
}

static void
draw(PictureSink *p, cairo_t *cr, guint64 end, double height)
{
  const TraceInfo *info = &p->base.info;
  guint64 span = end > p->from ? end - p->from : 1;
  guint cols = (guint)MIN((span + p->bin - 1) / p->bin, (guint64)BINS);
  double colw = (double)BINS / cols;
  guint nsched = MAX(info->n_sched, 1u);
  double rh = p->n_rows ? CLAMP(floor(560.0 / p->n_rows), 3, 16) : 16;
  double gap = rh >= 8 ? 1 : 0;

  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_set_font_size(cr, 15);
  char title[512];
  g_snprintf(title, sizeof title, "%s on %s: cycles %" G_GUINT64_FORMAT " to %" G_GUINT64_FORMAT,
             info->kernel_name, info->gpu_name, p->from, p->from + span);
  text(cr, LEFT, 18, title, 0);
  cairo_set_font_size(cr, 11);
  char caption[256];
  if (p->bin > 1)
    g_snprintf(caption, sizeof caption,
               "each column is %" G_GUINT64_FORMAT " cycles: a warp's colour is the state it spent "
               "most of them in; issue and memory rows are means over them",
               p->bin);
  else
    g_snprintf(caption, sizeof caption, "each column is one cycle");
  text(cr, LEFT, 36, caption, 0);

  double y = 50;
  gboolean used[MAX_STATES] = {FALSE}, marks = FALSE;
  guint selected = G_MAXUINT;
  for (guint st = 0; st < p->n_states; st++)
    if (strcmp(info->state_names[st], "selected") == 0)
      selected = st;
  for (guint s = 0; s < nsched; s++) {
    /* the scheduler's issue row: slots used, as a share of one a cycle */
    cairo_set_font_size(cr, 10);
    cairo_set_source_rgb(cr, 0, 0, 0);
    guint64 issued = 0;
    for (guint c = 0; c < cols; c++)
      issued += p->issues[(gsize)s * BINS + c];
    char label[48];
    g_snprintf(label, sizeof label, "sched %u issue %.0f%%", s,
               100.0 * (double)issued / (double)span / MAX(info->issue_width, 1u));
    text(cr, LEFT - 6, y + 4, label, 1);
    for (guint c = 0; c < cols; c++) {
      double share =
          MIN((double)p->issues[(gsize)s * BINS + c] / (double)p->bin / MAX(info->issue_width, 1u),
              1.0);
      cairo_set_source_rgb(cr, 1 - 0.83 * share, 1 - 0.37 * share, 1 - 0.83 * share);
      cairo_rectangle(cr, LEFT + c * colw, y, colw + 0.02, 8);
      cairo_fill(cr);
    }
    cairo_set_source_rgb(cr, 0.6, 0.6, 0.6);
    cairo_set_line_width(cr, 0.5);
    cairo_rectangle(cr, LEFT, y, cols * colw, 8);
    cairo_stroke(cr);
    y += 10;
    for (guint r = 0; r < p->n_rows; r++) {
      if (p->sched_of_row[r] % nsched != s)
        continue;
      const guint32 *cnt = p->counts + (gsize)r * BINS * p->n_states;
      /* runs of columns of one dominant state, one rectangle each */
      guint run_state = G_MAXUINT, run_from = 0;
      for (guint c = 0; c <= cols; c++) {
        guint best = G_MAXUINT;
        guint32 most = 0;
        for (guint st = 0; c < cols && st < p->n_states; st++)
          if (cnt[(gsize)c * p->n_states + st] > most) {
            most = cnt[(gsize)c * p->n_states + st];
            best = st;
          }
        if (c < cols && best == run_state)
          continue;
        if (run_state != G_MAXUINT) {
          used[run_state] = TRUE;
          const StateColour *k = colour_of(info->state_names[run_state]);
          set_colour(cr, k->rgb);
          cairo_rectangle(cr, LEFT + run_from * colw, y, (c - run_from) * colw + 0.02, rh - gap);
          cairo_fill(cr);
        }
        run_state = best;
        run_from = c;
      }
      /* where the colour hides them, the spans in which the warp issued: a mark on top */
      if (selected < p->n_states && p->bin > 1) {
        cairo_set_source_rgb(cr, 0.05, 0.35, 0.05);
        guint mark_from = G_MAXUINT;
        for (guint c = 0; c <= cols; c++) {
          gboolean issuing = c < cols && cnt[(gsize)c * p->n_states + selected] > 0;
          if (issuing && mark_from == G_MAXUINT)
            mark_from = c;
          if (!issuing && mark_from != G_MAXUINT) {
            cairo_rectangle(cr, LEFT + mark_from * colw, y, (c - mark_from) * colw + 0.02,
                            MAX(1.0, floor((rh - gap) / 4)));
            marks = TRUE;
            mark_from = G_MAXUINT;
          }
        }
        cairo_fill(cr);
      }
      if (rh >= 7 || p->n_rows <= 64) {
        cairo_set_source_rgb(cr, 0, 0, 0);
        cairo_set_font_size(cr, MIN(rh, 10.0));
        char wl[32];
        g_snprintf(wl, sizeof wl, "warp %u", p->warp_of_row[r]);
        text(cr, LEFT - 6, y + (rh - gap) / 2, wl, 1);
      }
      y += rh;
    }
    y += 6;
  }
  /* memory beneath: transactions in flight, bytes a cycle (means over each column) */
  double mean[BINS], rate[BINS];
  for (guint c = 0; c < cols; c++) {
    guint64 lo = p->from + c * p->bin, hi = MIN(lo + p->bin, end);
    double len = hi > lo ? (double)(hi - lo) : 1;
    mean[c] = p->inflight[c] / len;
    rate[c] = p->bytes[c] / len;
  }
  chart(cr, y, 40, mean, cols, colw, "in flight", 0.84, 0.15, 0.16);
  y += 46;
  chart(cr, y, 40, rate, cols, colw, "bytes/cycle", 0.12, 0.47, 0.71);
  y += 44;
  /* the time axis */
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_set_line_width(cr, 1);
  cairo_move_to(cr, LEFT, y);
  cairo_line_to(cr, LEFT + cols * colw, y);
  cairo_stroke(cr);
  double step = nice_step((double)span, 10);
  cairo_set_font_size(cr, 10);
  for (double t = ceil((double)p->from / step) * step; t <= (double)(p->from + span); t += step) {
    double x = LEFT + (t - (double)p->from) / (double)p->bin * colw;
    cairo_move_to(cr, x, y);
    cairo_line_to(cr, x, y + 4);
    cairo_stroke(cr);
    char tick[32];
    g_snprintf(tick, sizeof tick, "%.0f", t);
    text(cr, x, y + 11, tick, 0.5);
  }
  text(cr, LEFT - 6, y + 11, "cycle", 1);
  y += 26;
  /* the legend: the states drawn, by Nsight's names */
  double x = LEFT;
  cairo_set_font_size(cr, 11);
  for (guint i = 0; i < G_N_ELEMENTS(colours); i++) {
    gboolean drawn = FALSE;
    for (guint st = 0; st < p->n_states; st++)
      drawn |= used[st] && strcmp(info->state_names[st], colours[i].name) == 0;
    if (!drawn)
      continue;
    cairo_text_extents_t e;
    cairo_text_extents(cr, colours[i].name, &e);
    if (x + 18 + e.x_advance > WIDTH - RIGHT) {
      x = LEFT;
      y += 16;
    }
    set_colour(cr, colours[i].rgb);
    cairo_rectangle(cr, x, y - 5, 12, 10);
    cairo_fill_preserve(cr);
    cairo_set_source_rgb(cr, 0.5, 0.5, 0.5);
    cairo_set_line_width(cr, 0.5);
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    text(cr, x + 16, y, colours[i].name, 0);
    x += 16 + e.x_advance + 18;
  }
  if (marks) {
    const char *what = "dark mark on top: the warp issued in that column";
    cairo_text_extents_t e;
    cairo_text_extents(cr, what, &e);
    if (x + 18 + e.x_advance > WIDTH - RIGHT) {
      x = LEFT;
      y += 16;
    }
    cairo_set_source_rgb(cr, 0.05, 0.35, 0.05);
    cairo_rectangle(cr, x, y - 5, 12, 3);
    cairo_fill(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    text(cr, x + 16, y, what, 0);
  }
  y += 16;
  cairo_set_source_rgb(cr, 0.25, 0.25, 0.25);
  text(cr, LEFT, y,
       "issue rows: the share of each scheduler's issue slots used (darker: more).  in flight: "
       "global memory transactions in flight.  bytes/cycle: bytes requested from memory.",
       0);
  (void)height;
}

/* The height the picture needs for its rows. */
static double
picture_height(const PictureSink *p)
{
  guint nsched = MAX(p->base.info.n_sched, 1u);
  double rh = p->n_rows ? CLAMP(floor(560.0 / p->n_rows), 3, 16) : 16;
  return 50 + nsched * 16 + p->n_rows * rh + 46 + 44 + 26 + 3 * 16 + 10;
}

static cairo_status_t
write_out(void *closure, const unsigned char *data, unsigned int length)
{
  TraceSink *sink = closure;
  if (sink->failed)
    return CAIRO_STATUS_WRITE_ERROR;
  if (fwrite(data, 1, length, sink->out) != length) {
    sink->failed = TRUE;
    return CAIRO_STATUS_WRITE_ERROR;
  }
  sink->bytes += length;
  return CAIRO_STATUS_SUCCESS;
}

static gboolean
picture_end(TraceSink *sink, guint64 cycles, GError **error)
{
  PictureSink *p = (PictureSink *)sink;
  guint64 end = cycles;
  if (sink->opts.to != G_MAXUINT64)
    end = MIN(end, sink->opts.to);
  end = MAX(end, p->from + 1);
  reach(p, end - 1);
  for (guint r = 0; r < p->n_rows; r++) /* every warp's last state, to the end */
    if (p->state[r] < p->n_states && end > p->state_from[r])
      spread(p, p->state_from[r], end, NULL, 0,
             p->counts + (gsize)r * BINS * p->n_states + p->state[r], p->n_states);
  spread(p, p->counter_since, end, p->inflight,
         (double)p->counter_value[TRACE_COUNTER_MEM_OUTSTANDING], NULL, 0);
  double height = picture_height(p);
  gboolean svg = g_str_has_suffix(sink->path, ".svg");
  cairo_surface_t *surface =
      svg ? cairo_svg_surface_create_for_stream(write_out, sink, WIDTH, height)
          : cairo_image_surface_create(CAIRO_FORMAT_RGB24, WIDTH, (int)ceil(height));
  cairo_t *cr = cairo_create(surface);
  draw(p, cr, end, height);
  cairo_destroy(cr);
  cairo_status_t st;
  if (svg) {
    cairo_surface_finish(surface);
    st = cairo_surface_status(surface);
  } else {
    st = cairo_surface_write_to_png_stream(surface, write_out, sink);
  }
  cairo_surface_destroy(surface);
  if (st != CAIRO_STATUS_SUCCESS) {
    g_set_error(error, TRACE_ERROR, TRACE_ERROR_IO, "%s: cannot write: %s", sink->path,
                cairo_status_to_string(st));
    return FALSE;
  }
  return TRUE;
}

static void
picture_free(TraceSink *sink)
{
  PictureSink *p = (PictureSink *)sink;
  g_free(p->row_of_warp);
  g_free(p->warp_of_row);
  g_free(p->sched_of_row);
  g_free(p->row_sched_seen);
  g_free(p->state);
  g_free(p->state_from);
  g_free(p->counts);
  g_free(p->issues);
  g_free(p->inflight);
  g_free(p->bytes);
}

const TraceSinkClass trace_picture_class = {
    .instance_size = sizeof(PictureSink),
    .begin = picture_begin,
    .issue = picture_issue,
    .state = picture_state,
    .counter = picture_counter,
    .end = picture_end,
    .free = picture_free,
};
