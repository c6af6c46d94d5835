/* Line and dot charts with cairo, PNG or SVG chosen by the file name; not what they show.
 * Files are drawn to a temporary name in the same folder and renamed, so a failed plot leaves
 * no half file. */
#pragma once

#include <glib.h>

typedef enum { SM_PLOT_LINE, SM_PLOT_THIN, SM_PLOT_DASHED, SM_PLOT_DOTS } SmPlotStyle;

typedef struct {
  char *label;
  GArray *x, *y; /* double */
  SmPlotStyle style;
  guint color; /* index into the palette; series with the same index share a color */
} SmPlotSeries;

typedef struct {
  char *title, *x_label, *y_label;
  gboolean log_x;
  double hline; /* a labelled horizontal line (NAN: none) */
  char *hline_label;
  GPtrArray *series; /* SmPlotSeries */
} SmPlot;

SmPlot *sm_plot_new(const char *title, const char *x_label, const char *y_label);
void sm_plot_free(SmPlot *plot);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SmPlot, sm_plot_free)
SmPlotSeries *sm_plot_add(SmPlot *plot, const char *label, SmPlotStyle style, guint color);
void sm_plot_point(SmPlotSeries *series, double x, double y);

/* Checks the extension (.png or .svg) without drawing. */
gboolean sm_plot_check_path(const char *path, GError **error);
gboolean sm_plot_write(const SmPlot *plot, const char *path, GError **error);
/* The plot as SVG, in memory. */
GBytes *sm_plot_svg(const SmPlot *plot, GError **error);
/* Releases cairo's and fontconfig's process-wide caches; call once before exit. */
void sm_plot_shutdown(void);
