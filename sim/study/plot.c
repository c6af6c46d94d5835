/* Drawing SmPlot charts with cairo to PNG or SVG through a temporary file.  Not what a plot
 * shows (sweep.c, validate.c). */
#include "plot.h"

#include "../sm.h"

#include <cairo-svg.h>
#include <cairo.h>
#include <errno.h>
#include <fontconfig/fontconfig.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define WIDTH 800
#define HEIGHT 500
#define LEFT 78
#define RIGHT 200
#define TOP 40
#define BOTTOM 58

static const double palette[][3] = {
    {0.12, 0.47, 0.71}, {0.84, 0.15, 0.16}, {0.17, 0.63, 0.17}, {1.00, 0.50, 0.05},
    {0.58, 0.40, 0.74}, {0.55, 0.34, 0.29}, {0.89, 0.47, 0.76}, {0.50, 0.50, 0.50},
    {0.74, 0.74, 0.13}, {0.09, 0.75, 0.81}, {0.00, 0.00, 0.00},
};

SmPlot *
sm_plot_new(const char *title, const char *x_label, const char *y_label)
{
  SmPlot *p = g_new0(SmPlot, 1);
  p->title = g_strdup(title);
  p->x_label = g_strdup(x_label);
  p->y_label = g_strdup(y_label);
  p->hline = NAN;
  p->series = g_ptr_array_new();
  return p;
}

void
sm_plot_free(SmPlot *p)
{
  if (p == NULL)
    return;
  for (guint i = 0; i < p->series->len; i++) {
    SmPlotSeries *s = g_ptr_array_index(p->series, i);
    g_free(s->label);
    g_array_free(s->x, TRUE);
    g_array_free(s->y, TRUE);
    g_free(s);
  }
  g_ptr_array_free(p->series, TRUE);
  g_free(p->title);
  g_free(p->x_label);
  g_free(p->y_label);
  g_free(p->hline_label);
  g_free(p);
}

SmPlotSeries *
sm_plot_add(SmPlot *plot, const char *label, SmPlotStyle style, guint color)
{
  SmPlotSeries *s = g_new0(SmPlotSeries, 1);
  s->label = g_strdup(label);
  s->x = g_array_new(FALSE, FALSE, sizeof(double));
  s->y = g_array_new(FALSE, FALSE, sizeof(double));
  s->style = style;
  s->color = color;
  g_ptr_array_add(plot->series, s);
  return s;
}

void
sm_plot_point(SmPlotSeries *s, double x, double y)
{
  if (!isfinite(x) || !isfinite(y))
    return;
  g_array_append_val(s->x, x);
  g_array_append_val(s->y, y);
}

gboolean
sm_plot_check_path(const char *path, GError **error)
{
  if (g_str_has_suffix(path, ".png") || g_str_has_suffix(path, ".svg"))
    return TRUE;
  g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s: plots are written as .png or .svg",
              path);
  return FALSE;
}

/* "nice" tick step for a range: 1, 2 or 5 x 10^k */
static double
nice_step(double range, int ticks)
{
  double raw = range / ticks;
  double mag = pow(10, floor(log10(raw)));
  double f = raw / mag;
  return (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * mag;
}

typedef struct {
  double x0, x1, y0, y1;
  gboolean log_x;
} Frame;

static double
px(const Frame *f, double x)
{
  double a = f->log_x ? log10(x) : x, lo = f->log_x ? log10(f->x0) : f->x0,
         hi = f->log_x ? log10(f->x1) : f->x1;
  return LEFT + (a - lo) / (hi - lo) * (WIDTH - LEFT - RIGHT);
}

static double
py(const Frame *f, double y)
{
  return HEIGHT - BOTTOM - (y - f->y0) / (f->y1 - f->y0) * (HEIGHT - TOP - BOTTOM);
}

static void
text_at(cairo_t *cr, double x, double y, const char *s, double align_x, double align_y)
{
  cairo_text_extents_t e;
  cairo_text_extents(cr, s, &e);
  cairo_move_to(cr, x - e.width * align_x - e.x_bearing, y - e.height * align_y - e.y_bearing);
  cairo_show_text(cr, s);
}

static void
format_tick(double v, char *buf, gsize n)
{
  if (fabs(v) < 1e-12)
    v = 0;
  g_snprintf(buf, n, "%g", v);
}

static void
draw(cairo_t *cr, const SmPlot *p)
{
  Frame f = {INFINITY, -INFINITY, 0, -INFINITY, p->log_x};
  for (guint i = 0; i < p->series->len; i++) {
    const SmPlotSeries *s = g_ptr_array_index(p->series, i);
    for (guint j = 0; j < s->x->len; j++) {
      double x = g_array_index(s->x, double, j), y = g_array_index(s->y, double, j);
      if (p->log_x && x <= 0)
        continue;
      f.x0 = MIN(f.x0, x);
      f.x1 = MAX(f.x1, x);
      f.y1 = MAX(f.y1, y);
      f.y0 = MIN(f.y0, y);
    }
  }
  if (isfinite(p->hline))
    f.y1 = MAX(f.y1, p->hline);
  if (!isfinite(f.x0))
    f.x0 = 0, f.x1 = 1;
  if (f.x1 <= f.x0)
    f.x1 = f.x0 + 1;
  if (!isfinite(f.y1) || f.y1 <= f.y0)
    f.y1 = f.y0 + 1;
  double ystep = nice_step(f.y1 - f.y0, 6);
  f.y1 = ceil(f.y1 * 1.04 / ystep) * ystep;
  if (p->log_x) {
    f.x0 = pow(10, floor(log10(f.x0)));
    f.x1 = pow(10, ceil(log10(f.x1)));
  }

  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  char buf[64];

  /* grid and ticks */
  cairo_set_line_width(cr, 1);
  cairo_set_font_size(cr, 12);
  for (double y = f.y0; y <= f.y1 + ystep * 1e-6; y += ystep) {
    cairo_set_source_rgb(cr, 0.9, 0.9, 0.9);
    cairo_move_to(cr, LEFT, py(&f, y));
    cairo_line_to(cr, WIDTH - RIGHT, py(&f, y));
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    format_tick(y, buf, sizeof buf);
    text_at(cr, LEFT - 6, py(&f, y), buf, 1, 0.5);
  }
  if (p->log_x) {
    for (double d = f.x0; d <= f.x1 * 1.0001; d *= 10) {
      for (int m = 1; m < 10; m++) {
        double x = d * m;
        if (x > f.x1 * 1.0001)
          break;
        cairo_set_source_rgb(cr, m == 1 ? 0.85 : 0.95, m == 1 ? 0.85 : 0.95, m == 1 ? 0.85 : 0.95);
        cairo_move_to(cr, px(&f, x), TOP);
        cairo_line_to(cr, px(&f, x), HEIGHT - BOTTOM);
        cairo_stroke(cr);
        if (m == 1) {
          cairo_set_source_rgb(cr, 0, 0, 0);
          format_tick(x, buf, sizeof buf);
          text_at(cr, px(&f, x), HEIGHT - BOTTOM + 6, buf, 0.5, 0);
        }
      }
    }
  } else {
    double xstep = nice_step(f.x1 - f.x0, 8);
    for (double x = ceil(f.x0 / xstep) * xstep; x <= f.x1 + xstep * 1e-6; x += xstep) {
      cairo_set_source_rgb(cr, 0.9, 0.9, 0.9);
      cairo_move_to(cr, px(&f, x), TOP);
      cairo_line_to(cr, px(&f, x), HEIGHT - BOTTOM);
      cairo_stroke(cr);
      cairo_set_source_rgb(cr, 0, 0, 0);
      format_tick(x, buf, sizeof buf);
      text_at(cr, px(&f, x), HEIGHT - BOTTOM + 6, buf, 0.5, 0);
    }
  }
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_rectangle(cr, LEFT, TOP, WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM);
  cairo_stroke(cr);

  /* labels */
  cairo_set_font_size(cr, 15);
  text_at(cr, (LEFT + WIDTH - RIGHT) / 2.0, TOP / 2.0, p->title, 0.5, 0.5);
  cairo_set_font_size(cr, 13);
  text_at(cr, (LEFT + WIDTH - RIGHT) / 2.0, HEIGHT - 16, p->x_label, 0.5, 0.5);
  cairo_save(cr);
  cairo_translate(cr, 18, (TOP + HEIGHT - BOTTOM) / 2.0);
  cairo_rotate(cr, -G_PI / 2);
  text_at(cr, 0, 0, p->y_label, 0.5, 0.5);
  cairo_restore(cr);

  /* data, clipped to the frame */
  cairo_save(cr);
  cairo_rectangle(cr, LEFT, TOP, WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM);
  cairo_clip(cr);
  if (isfinite(p->hline)) {
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
    cairo_set_line_width(cr, 1.2);
    double dash[] = {6, 4};
    cairo_set_dash(cr, dash, 2, 0);
    cairo_move_to(cr, LEFT, py(&f, p->hline));
    cairo_line_to(cr, WIDTH - RIGHT, py(&f, p->hline));
    cairo_stroke(cr);
    cairo_set_dash(cr, NULL, 0, 0);
    if (p->hline_label) {
      cairo_set_font_size(cr, 11);
      text_at(cr, LEFT + 6, py(&f, p->hline) - 4, p->hline_label, 0, 1);
    }
  }
  for (guint i = 0; i < p->series->len; i++) {
    const SmPlotSeries *s = g_ptr_array_index(p->series, i);
    const double *c = palette[s->color % G_N_ELEMENTS(palette)];
    cairo_set_source_rgb(cr, c[0], c[1], c[2]);
    if (s->style == SM_PLOT_DOTS) {
      for (guint j = 0; j < s->x->len; j++) {
        double x = g_array_index(s->x, double, j), y = g_array_index(s->y, double, j);
        if (p->log_x && x <= 0)
          continue;
        cairo_arc(cr, px(&f, x), py(&f, y), 3.2, 0, 2 * G_PI);
        cairo_fill(cr);
      }
      continue;
    }
    cairo_set_line_width(cr, s->style == SM_PLOT_LINE ? 2.2 : 1.0);
    if (s->style == SM_PLOT_DASHED) {
      double dash[] = {5, 3};
      cairo_set_dash(cr, dash, 2, 0);
    }
    gboolean started = FALSE;
    for (guint j = 0; j < s->x->len; j++) {
      double x = g_array_index(s->x, double, j), y = g_array_index(s->y, double, j);
      if (p->log_x && x <= 0)
        continue;
      if (started)
        cairo_line_to(cr, px(&f, x), py(&f, y));
      else
        cairo_move_to(cr, px(&f, x), py(&f, y));
      started = TRUE;
    }
    cairo_stroke(cr);
    cairo_set_dash(cr, NULL, 0, 0);
  }
  cairo_restore(cr);

  /* legend */
  cairo_set_font_size(cr, 11);
  double ly = TOP + 8;
  for (guint i = 0; i < p->series->len && ly < HEIGHT - 20; i++) {
    const SmPlotSeries *s = g_ptr_array_index(p->series, i);
    if (s->label == NULL || s->label[0] == '\0')
      continue;
    const double *c = palette[s->color % G_N_ELEMENTS(palette)];
    cairo_set_source_rgb(cr, c[0], c[1], c[2]);
    double lx = WIDTH - RIGHT + 12;
    if (s->style == SM_PLOT_DOTS) {
      cairo_arc(cr, lx + 10, ly, 3.2, 0, 2 * G_PI);
      cairo_fill(cr);
    } else {
      cairo_set_line_width(cr, s->style == SM_PLOT_LINE ? 2.2 : 1.0);
      if (s->style == SM_PLOT_DASHED) {
        double dash[] = {5, 3};
        cairo_set_dash(cr, dash, 2, 0);
      }
      cairo_move_to(cr, lx, ly);
      cairo_line_to(cr, lx + 20, ly);
      cairo_stroke(cr);
      cairo_set_dash(cr, NULL, 0, 0);
    }
    cairo_set_source_rgb(cr, 0, 0, 0);
    text_at(cr, lx + 26, ly, s->label, 0, 0.5);
    ly += 17;
  }
}

gboolean
sm_plot_write(const SmPlot *plot, const char *path, GError **error)
{
  if (!sm_plot_check_path(path, error))
    return FALSE;
  g_autofree char *dir = g_path_get_dirname(path);
  g_autofree char *base = g_path_get_basename(path);
  g_autofree char *tmpl = g_strdup_printf("%s/.%s.XXXXXX", dir, base);
  int fd = g_mkstemp(tmpl);
  if (fd < 0) {
    int e = errno;
    g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(e), "%s: cannot write: %s", path,
                g_strerror(e));
    return FALSE;
  }
  /* mkstemp makes the file private; give it the mode any new file would get */
  mode_t mask = umask(0);
  umask(mask);
  fchmod(fd, 0666 & ~mask);
  close(fd);
  gboolean svg = g_str_has_suffix(path, ".svg");
  cairo_surface_t *surface = svg ? cairo_svg_surface_create(tmpl, WIDTH, HEIGHT)
                                 : cairo_image_surface_create(CAIRO_FORMAT_RGB24, WIDTH, HEIGHT);
  cairo_t *cr = cairo_create(surface);
  draw(cr, plot);
  cairo_destroy(cr);
  cairo_status_t st;
  if (svg) {
    cairo_surface_finish(surface);
    st = cairo_surface_status(surface);
  } else {
    st = cairo_surface_write_to_png(surface, tmpl);
  }
  cairo_surface_destroy(surface);
  if (st == CAIRO_STATUS_SUCCESS && sm_stop_requested()) {
    g_unlink(tmpl); /* interrupted: no file under the final name */
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INTR, "%s: interrupted", path);
    return FALSE;
  }
  if (st != CAIRO_STATUS_SUCCESS || g_rename(tmpl, path) != 0) {
    int e = errno;
    g_unlink(tmpl);
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "%s: cannot write: %s", path,
                st != CAIRO_STATUS_SUCCESS ? cairo_status_to_string(st) : g_strerror(e));
    return FALSE;
  }
  return TRUE;
}

static cairo_status_t
append_bytes(void *closure, const unsigned char *data, unsigned int length)
{
  g_byte_array_append(closure, data, length);
  return CAIRO_STATUS_SUCCESS;
}

GBytes *
sm_plot_svg(const SmPlot *plot, GError **error)
{
  GByteArray *bytes = g_byte_array_new();
  cairo_surface_t *surface =
      cairo_svg_surface_create_for_stream(append_bytes, bytes, WIDTH, HEIGHT);
  cairo_t *cr = cairo_create(surface);
  draw(cr, plot);
  cairo_destroy(cr);
  cairo_surface_finish(surface);
  cairo_status_t st = cairo_surface_status(surface);
  cairo_surface_destroy(surface);
  if (st != CAIRO_STATUS_SUCCESS) {
    g_byte_array_unref(bytes);
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "plot: %s", cairo_status_to_string(st));
    return NULL;
  }
  return g_byte_array_free_to_bytes(bytes);
}

void
sm_plot_shutdown(void)
{
  cairo_debug_reset_static_data();
  FcFini();
}
