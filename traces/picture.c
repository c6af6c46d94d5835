/* A picture of a run (.png or .svg, cairo): Volkov's Figure 4.7 at any length.  One row per
 * warp, grouped by scheduler, coloured by the warp's state (Nsight's names, as the run report
 * counts them); above each group the scheduler's issue slots used; beneath, memory transactions
 * in flight and bytes per cycle; a time axis in cycles and a legend.  A run longer than the
 * picture is wide is drawn a span of cycles a pixel column (bins.h): each column of a warp's row
 * shows the state it spent most of that span in (the caption says how many cycles a column is),
 * the issue and memory rows the mean over the span.  One writer; the sink interface is
 * trace.c's. */
#include <cairo-svg.h>
#include <cairo.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bins.h"
#include "trace.h"

#define WIDTH 1400
#define LEFT 136
#define RIGHT 24
#define BINS (WIDTH - LEFT - RIGHT) /* the finest columns: a pixel each */
#define MAX_ROWS 256

typedef struct {
  TraceSink base;
  TraceRows rows;         /* series: each scheduler's issues, then transactions in flight, bytes */
  guint *sched_of_row;    /* learned from the warp's issues (else warp % schedulers) */
  guint8 *row_sched_seen; /* an issue told the row's scheduler */
  guint64 counter_value[TRACE_COUNTER_COUNT], counter_since;
  gboolean first_sm_only; /* a GPU of many SMs: SM 0's warps drawn */
} PictureSink;

/* the series after the schedulers' */
#define INFLIGHT(p) ((p)->base.info.n_sched)
#define BYTES(p) ((p)->base.info.n_sched + 1)

static gboolean
picture_begin(TraceSink *sink, const TraceInfo *info, GError **error)
{
  PictureSink *p = (PictureSink *)sink;
  guint64 from = sink->opts.has_window ? sink->opts.from : 0;
  guint64 to = sink->opts.has_window ? sink->opts.to : G_MAXUINT64;
  trace_rows_pick(&p->rows, sink, G_MAXUINT);
  if (p->rows.n_rows > MAX_ROWS && sink->opts.warps == NULL && info->warp_slots_per_sm &&
      info->warp_slots_per_sm <= MAX_ROWS) {
    /* a whole GPU's warps: the first SM's, unless --trace-warps chose */
    trace_rows_clear(&p->rows);
    trace_rows_pick(&p->rows, sink, info->warp_slots_per_sm);
    p->first_sm_only = TRUE;
  }
  if (p->rows.n_rows > MAX_ROWS) {
    g_set_error(error, TRACE_ERROR, TRACE_ERROR_ARGS,
                "%s: a picture shows at most %u warps, this run has %u; choose them with "
                "--trace-warps (e.g. 0-63)",
                sink->path, MAX_ROWS, p->rows.n_rows);
    return FALSE;
  }
  guint n = MAX(p->rows.n_rows, 1u);
  p->sched_of_row = g_new(guint, n);
  p->row_sched_seen = g_new0(guint8, n);
  for (guint r = 0; r < p->rows.n_rows; r++)
    p->sched_of_row[r] = p->rows.warp_of_row[r] % MAX(info->n_sched, 1u);
  /* a window: its cycles over the columns; else one a column, doubled as the run grows */
  guint64 bin = to != G_MAXUINT64 ? MAX((to - from + BINS - 1) / BINS, 1) : 0;
  trace_rows_bin(&p->rows, info, from, to, bin, BINS, info->n_sched + 2);
  p->counter_since = from;
  return TRUE;
}

static void
picture_state(TraceSink *sink, guint64 cycle, guint warp, guint state)
{
  if (warp < sink->info.n_warps)
    trace_rows_state(&((PictureSink *)sink)->rows, warp, state, cycle);
}

static void
picture_issue(TraceSink *sink, const TraceIssue *i)
{
  PictureSink *p = (PictureSink *)sink;
  guint row = p->rows.row_of_warp[i->warp];
  if (row != G_MAXUINT && !p->row_sched_seen[row]) {
    p->sched_of_row[row] = i->sched;
    p->row_sched_seen[row] = 1;
  }
  if (i->sched < sink->info.n_sched)
    trace_bins_add(&p->rows.bins, i->sched, i->cycle, 1);
}

static void
picture_counter(TraceSink *sink, guint64 cycle, TraceCounter counter, guint64 value)
{
  PictureSink *p = (PictureSink *)sink;
  if (counter == TRACE_COUNTER_MEM_OUTSTANDING) {
    trace_bins_span(&p->rows.bins, INFLIGHT(p), p->counter_since, cycle,
                    (double)p->counter_value[counter]);
    p->counter_since = cycle;
  } else if (counter == TRACE_COUNTER_MEM_BYTES) {
    trace_bins_add(&p->rows.bins, BYTES(p), cycle, (double)(value - p->counter_value[counter]));
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
    {"branch_resolving", 0xdbdb8d},
    {"membar", 0x393b79},
    {"no_instruction", 0xc7c7c7},
    {"inactive", 0xffffff},
};

guint32
trace_state_colour(const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS(colours); i++)
    if (strcmp(colours[i].name, name) == 0)
      return colours[i].rgb;
  return 0x4d4d4d;
}

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

static int
by_value(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* A chart of one value a column (a mean a cycle) beneath the rows, scaled to the 98th
 * percentile of the columns (a launch burst would flatten the rest), the peaks above clipped. */
static void
chart(cairo_t *cr, double top, double h, const double *v, guint cols, double colw,
      const char *label, double r, double g, double b)
{
  g_autofree double *sorted = g_memdup2(v, sizeof(double) * cols);
  qsort(sorted, cols, sizeof(double), by_value);
  double max = cols ? sorted[cols - 1] : 0;
  double scale = cols ? sorted[(guint)floor(0.98 * (cols - 1))] : 0;
  if (scale <= 0 || scale > max)
    scale = max;
  cairo_set_source_rgb(cr, 0.96, 0.96, 0.96);
  cairo_rectangle(cr, LEFT, top, cols * colw, h);
  cairo_fill(cr);
  cairo_set_source_rgb(cr, r, g, b);
  for (guint c = 0; c < cols && scale > 0; c++) {
    double bh = h * MIN(v[c] / scale, 1.0);
    cairo_rectangle(cr, LEFT + c * colw, top + h - bh, colw + 0.02, bh);
  }
  cairo_fill(cr);
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_set_font_size(cr, 11);
  text(cr, LEFT - 6, top + 8, label, 1);
  char peak[64];
  g_snprintf(peak, sizeof peak, "top %.3g", scale);
  text(cr, LEFT - 6, top + 21, peak, 1);
  if (max > scale) {
    g_snprintf(peak, sizeof peak, "(peaks to %.3g)", max);
    cairo_set_font_size(cr, 9);
    text(cr, LEFT - 6, top + 33, peak, 1);
  }
}

/* Pixels a warp's row takes: the rows share 560, 3 to 16 each. */
static double
row_height(const PictureSink *p)
{
  return p->rows.n_rows ? CLAMP(floor(560.0 / p->rows.n_rows), 3, 16) : 16;
}

/* Whether scheduler @s is drawn: all are, but on a whole GPU only SM 0's (those with rows). */
static gboolean
sched_drawn(const PictureSink *p, guint s)
{
  guint nsched = MAX(p->base.info.n_sched, 1u);
  for (guint r = 0; r < p->rows.n_rows; r++)
    if (p->sched_of_row[r] % nsched == s)
      return TRUE;
  return !p->first_sm_only;
}

static void
draw(PictureSink *p, cairo_t *cr, guint64 end)
{
  const TraceInfo *info = &p->base.info;
  const TraceBins *b = &p->rows.bins;
  guint64 span = end > b->from ? end - b->from : 1;
  guint cols = trace_bins_used(b, end);
  double colw = (double)BINS / cols;
  guint nsched = MAX(info->n_sched, 1u);
  double rh = row_height(p);
  double gap = rh >= 8 ? 1 : 0;

  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_set_font_size(cr, 15);
  char title[512];
  g_snprintf(title, sizeof title, "%s on %s: cycles %" G_GUINT64_FORMAT " to %" G_GUINT64_FORMAT,
             info->kernel_name, info->gpu_name, b->from, b->from + span);
  text(cr, LEFT, 18, title, 0);
  cairo_set_font_size(cr, 11);
  char caption[256];
  if (b->bin > 1)
    g_snprintf(caption, sizeof caption,
               "each column is %" G_GUINT64_FORMAT " cycles: a warp's colour is the state it spent "
               "most of them in; issue and memory rows are means over them",
               b->bin);
  else
    g_snprintf(caption, sizeof caption, "each column is one cycle");
  if (p->first_sm_only) {
    g_autofree char *more = g_strdup_printf(
        "%s; the warps of SM 0 of %u (--trace-warps chooses others), memory for all of them",
        caption, info->n_sm);
    text(cr, LEFT, 36, more, 0);
  } else {
    text(cr, LEFT, 36, caption, 0);
  }

  double y = 50;
  g_autofree gboolean *used = g_new0(gboolean, MAX(b->n_states, 1u));
  gboolean marks = FALSE;
  guint selected = G_MAXUINT;
  for (guint st = 0; st < b->n_states; st++)
    if (strcmp(info->state_names[st], "selected") == 0)
      selected = st;
  for (guint s = 0; s < nsched; s++) {
    if (!sched_drawn(p, s))
      continue; /* another SM's scheduler */
    /* the scheduler's issue row: slots used, as a share of one a cycle */
    cairo_set_font_size(cr, 10);
    cairo_set_source_rgb(cr, 0, 0, 0);
    guint64 issued = 0;
    for (guint c = 0; c < cols; c++)
      issued += (guint64)trace_bins_value(b, s, c);
    char label[48];
    g_snprintf(label, sizeof label, "sched %u issue %.0f%%", s,
               100.0 * (double)issued / (double)span / MAX(info->issue_width, 1u));
    text(cr, LEFT - 6, y + 4, label, 1);
    for (guint c = 0; c < cols; c++) {
      double share =
          MIN(trace_bins_value(b, s, c) / (double)b->bin / MAX(info->issue_width, 1u), 1.0);
      cairo_set_source_rgb(cr, 1 - 0.83 * share, 1 - 0.37 * share, 1 - 0.83 * share);
      cairo_rectangle(cr, LEFT + c * colw, y, colw + 0.02, 8);
      cairo_fill(cr);
    }
    cairo_set_source_rgb(cr, 0.6, 0.6, 0.6);
    cairo_set_line_width(cr, 0.5);
    cairo_rectangle(cr, LEFT, y, cols * colw, 8);
    cairo_stroke(cr);
    y += 10;
    for (guint r = 0; r < p->rows.n_rows; r++) {
      if (p->sched_of_row[r] % nsched != s)
        continue;
      /* runs of columns of one dominant state, one rectangle each */
      guint run_state = G_MAXUINT, run_from = 0;
      for (guint c = 0; c <= cols; c++) {
        guint best = c < cols ? trace_bins_dominant(b, r, c) : G_MAXUINT;
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
      if (selected < b->n_states && b->bin > 1) {
        cairo_set_source_rgb(cr, 0.05, 0.35, 0.05);
        guint mark_from = G_MAXUINT;
        for (guint c = 0; c <= cols; c++) {
          gboolean issuing = c < cols && trace_bins_counts(b, r, c)[selected] > 0;
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
      if (rh >= 7 || p->rows.n_rows <= 64) {
        cairo_set_source_rgb(cr, 0, 0, 0);
        cairo_set_font_size(cr, MIN(rh, 10.0));
        char wl[32];
        g_snprintf(wl, sizeof wl, "warp %u", p->rows.warp_of_row[r]);
        text(cr, LEFT - 6, y + (rh - gap) / 2, wl, 1);
      }
      y += rh;
    }
    y += 6;
  }
  /* memory beneath: transactions in flight, bytes a cycle (means over each column) */
  double mean[BINS], rate[BINS];
  for (guint c = 0; c < cols; c++) {
    guint64 lo = b->from + c * b->bin, hi = MIN(lo + b->bin, end);
    double len = hi > lo ? (double)(hi - lo) : 1;
    mean[c] = trace_bins_value(b, INFLIGHT(p), c) / len;
    rate[c] = trace_bins_value(b, BYTES(p), c) / len;
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
  for (double t = ceil((double)b->from / step) * step; t <= (double)(b->from + span); t += step) {
    double x = LEFT + (t - (double)b->from) / (double)b->bin * colw;
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
    for (guint st = 0; st < b->n_states; st++)
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
}

/* The height the picture needs for its rows. */
static double
picture_height(const PictureSink *p)
{
  guint drawn = 0;
  for (guint s = 0; s < MAX(p->base.info.n_sched, 1u); s++)
    drawn += sched_drawn(p, s);
  return 50 + drawn * 16 + p->rows.n_rows * row_height(p) + 46 + 44 + 26 + 3 * 16 + 10;
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
  guint64 end = MAX(MIN(cycles, p->rows.bins.to), p->rows.bins.from + 1);
  trace_rows_finish(&p->rows, end); /* every warp's last state, to the end */
  trace_bins_span(&p->rows.bins, INFLIGHT(p), p->counter_since, end,
                  (double)p->counter_value[TRACE_COUNTER_MEM_OUTSTANDING]);
  double height = picture_height(p);
  gboolean svg = g_str_has_suffix(sink->path, ".svg");
  cairo_surface_t *surface =
      svg ? cairo_svg_surface_create_for_stream(write_out, sink, WIDTH, height)
          : cairo_image_surface_create(CAIRO_FORMAT_RGB24, WIDTH, (int)ceil(height));
  cairo_t *cr = cairo_create(surface);
  draw(p, cr, end);
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
  g_free(p->sched_of_row);
  g_free(p->row_sched_seen);
  trace_rows_clear(&p->rows);
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
