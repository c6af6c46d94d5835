/* Validation against measurements: reads a measurement file, replays every row with exactly
 * the measured workload, and computes the errors per row, per curve and overall.  Two formats:
 *  - the H100 calibration format (columns kind, alpha, ilp, warps_per_sm, groups_per_warp, ...,
 *    ipc_total), replayed on the mix kernel;
 *  - the kernel-measurement format (header kernel,set,metric,measured,curve): any kernel file,
 *    --set style overrides, and a dotted path into the object `smsim run --json` prints.
 * Not the command line or its output (cli/validate.c). */
#pragma once

#include "../../config/kernel.h"
#include "batch.h"
#include "plot.h"

/* Rows a measurement file may have. */
#define SM_VALIDATE_MAX_ROWS 1000000u

typedef enum { SM_VALIDATE_MIX, SM_VALIDATE_KERNEL } SmValidateFormat;

typedef struct {
  guint line;
  /* the calibration format */
  char *kind;
  int kind_index; /* the workload it runs (gilp2 runs gmem's) */
  double alpha;   /* -1: no other instruction */
  guint ilp, groups;
  /* the kernel-measurement format */
  char *kernel, *set, *metric, *curve;
  guint set_col, metric_col;
  guint warps; /* warps_per_sm (kernel format: of the run, known after it) */
  double measured;
  double simulated;
} SmValidateRow;

/* Rows with the same label (kind, alpha and ilp; or the curve column), in file order. */
typedef struct {
  char *label;
  GArray *rows; /* guint indices */
  double mape;
  double sim90, meas90; /* warps for 90 % of the curve's own maximum (NAN: not computed) */
} SmValidateCurve;

typedef struct {
  char *path;
  SmValidateFormat format;
  GArray *rows;      /* SmValidateRow */
  GPtrArray *curves; /* SmValidateCurve, after sm_validation_run() */
  double total_ape;  /* sum over rows of |simulated - measured| / measured */
} SmValidation;

/* Reads and checks every row's fields; errors are "FILE:LINE:COL: message". */
SmValidation *sm_validation_read(const char *path, GError **error);
/* The same for a file's text already read (@path names it in errors). */
SmValidation *sm_validation_parse(const char *path, const char *text, GError **error);
void sm_validation_free(SmValidation *v);
/* Keeps only the rows of the curves named in @labels (NULL-terminated; NULL or empty: all), as
 * the per-curve table names them ("gmem alpha=0 ilp=1", or a kernel file's curve column).  A
 * label that names no curve is an error. */
gboolean sm_validation_keep_curves(SmValidation *v, const char *const *labels, GError **error);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SmValidation, sm_validation_free)

/* Replays every row on the GPU file @gpu_path with the GPU overrides @sets, on @jobs threads,
 * and fills simulated values, curves and errors.  Calibration rows run on @mix_kernel; rows of
 * the kernel format name their kernel (relative to the current directory).  Every row is
 * loaded and its metric checked before anything runs; errors name the row. */
gboolean sm_validation_run(SmValidation *v, const char *gpu_path, const char *mix_kernel,
                           const char *const *sets, guint jobs, guint64 max_cycles,
                           SmProgressFunc progress, gpointer progress_data, GError **error);

/* Simulated curves as lines and measured rows as dots, against warps per SM. */
/* Simulated curves and measured points against warps per SM, or (kernel format) against the
 * number @x_key has in each row's set column; values divided by @per_key's (NULL: as they
 * are).  Logarithmic x when the values span 100x or more. */
SmPlot *sm_validation_plot(const SmValidation *v, const char *x_key, const char *per_key);
/* Every row has numbers for @x_key and @per_key (either may be NULL): before anything runs. */
gboolean sm_validation_plot_check(const SmValidation *v, const char *x_key, const char *per_key,
                                  GError **error);
