/* Validation against measurements: reads a measurement file (columns kind, alpha, ilp,
 * warps_per_sm, groups_per_warp, ..., ipc_total: the H100 calibration format), replays every
 * row with exactly the measured workload on the mix kernel, and computes the errors per row,
 * per curve and overall.  Not the command line or its output (cli/validate.c). */
#pragma once

#include "../../config/kernel.h"
#include "batch.h"
#include "plot.h"

typedef struct {
  guint line;
  char *kind;
  double alpha; /* -1: no other instruction */
  guint ilp, warps, groups;
  double measured;
  double simulated;
} SmValidateRow;

/* Rows with the same kind, alpha and ilp, in file order. */
typedef struct {
  char *label;
  GArray *rows; /* guint indices */
  double mape;
  double sim90, meas90; /* warps for 90 % of the curve's own maximum */
} SmValidateCurve;

typedef struct {
  GArray *rows;      /* SmValidateRow */
  GPtrArray *curves; /* SmValidateCurve, after sm_validation_run() */
  double total_ape;  /* sum over rows of |simulated - measured| / measured */
} SmValidation;

/* Reads and checks every row; errors are "FILE:LINE: message". */
SmValidation *sm_validation_read(const char *path, GError **error);
void sm_validation_free(SmValidation *v);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SmValidation, sm_validation_free)

/* Replays every row on @src (the mix kernel) with the GPU overrides @sets, on @jobs threads,
 * and fills simulated values, curves and errors. */
gboolean sm_validation_run(SmValidation *v, const CfgRunSource *src, const char *const *sets,
                           guint jobs, SmProgressFunc progress, gpointer progress_data,
                           GError **error);

/* Simulated curves as lines and measured rows as dots. */
SmPlot *sm_validation_plot(const SmValidation *v);
