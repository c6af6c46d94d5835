/* A sweep: the cartesian product of --vary values, its points in a fixed order, their results,
 * and the per-curve summary over warps_per_sm (warps for 90 % / 95 % of max and of peak).
 * Not the command line or the output files (cli/sweep.c). */
#pragma once

#include "batch.h"
#include "plot.h"

#define SM_SWEEP_MAX_POINTS 1000000u
#define SM_SWEEP_MAX_VARIES 64u

/* One --vary KEY=LIST|A:B[:STEP]. */
typedef struct {
  char *key;
  GPtrArray *values; /* char *, as they will be passed to --set */
} SmVary;

/* Parses @arg; errors read "--vary KEY: ...". */
SmVary *sm_vary_parse(const char *arg, GError **error);
void sm_vary_free(SmVary *vary);

typedef struct {
  GPtrArray *varies; /* SmVary */
  GPtrArray *points; /* GStrv: KEY=VALUE per vary */
  GArray *index;     /* guint per point per vary: value indices */
  SmPointResult *results;
  int warps_vary; /* index of warps_per_sm among varies, or -1 */
  int alpha_vary;
} SmSweep;

SmSweep *sm_sweep_new(void);
void sm_sweep_free(SmSweep *sweep);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SmSweep, sm_sweep_free)
/* Adds a parsed --vary (taken); FALSE with an error when its key is already varied or there
 * are too many keys or points. */
gboolean sm_sweep_add_vary(SmSweep *sweep, SmVary *vary, GError **error);
/* Makes the points: the last varied key changes fastest. */
void sm_sweep_make_points(SmSweep *sweep);
/* The value of vary @vary at point @point. */
const char *sm_sweep_value(const SmSweep *sweep, guint point, guint vary);

/* Numbers of a point, as the CSV and JSON columns name them (NAN: no value). */
extern const char *const sm_sweep_columns[];
#define SM_SWEEP_N_COLUMNS 11
void sm_sweep_point_numbers(const SmPointResult *r, double out[SM_SWEEP_N_COLUMNS]);

/* A curve: the points that share every varied value but warps_per_sm, in warps order. */
typedef struct {
  char *label;
  GArray *points; /* guint point indices */
  double max_ipc, peak_ipc;
  double warps_max[2], warps_peak[2]; /* 90 %, 95 %; NAN = not reached */
  double model_warps, cuda_guide;
  gboolean compute_bound; /* the model says ALU or issue bound, not memory */
} SmCurve;

/* The curves of a sweep that has results (SmCurve, freed with the array). */
GPtrArray *sm_sweep_curves(const SmSweep *sweep);

/* Throughput against warps (model curves thin). */
SmPlot *sm_sweep_throughput_plot(const SmSweep *sweep, GPtrArray *curves, const char *gpu_name);
/* Warps for 90 % of peak against alpha, with the model and the CUDA guide. */
SmPlot *sm_sweep_cusp_plot(const SmSweep *sweep, GPtrArray *curves, const char *gpu_name,
                           guint max_warps);
/* Occupancy and throughput against the first varied key (e.g. threads per block). */
SmPlot *sm_sweep_occupancy_plot(const SmSweep *sweep, const char *gpu_name);
