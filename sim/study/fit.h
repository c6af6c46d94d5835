/* Fitting GPU keys to measurements: the overall MAPE of a validation (validate.h) as a function
 * of some numeric GPU keys, minimised by the Nelder-Mead simplex (GSL's nmsimplex2) inside
 * each key's bounds.  Bounds hold by construction: the simplex moves in u, and a key is
 * lo + (hi - lo) (1 + sin u) / 2; integer keys are rounded before a run, and runs already
 * made are remembered.  Not the command line (cli/fit.c). */
#pragma once

#include "validate.h"

typedef struct {
  char *key;        /* dotted GPU key, e.g. memory.dram.latency_cycles */
  double lo, hi;    /* bounds */
  double start;     /* the GPU file's value */
  double value;     /* the fitted value */
  gboolean integer; /* an integer key: rounded */
} SmFitParam;

/* @x as a GPU file or --set writes it: rounded for an integer key, 6 digits otherwise. */
char *sm_fit_value_text(const SmFitParam *p, double x);

/* Called after every evaluation: its number, its MAPE and the best so far (fractions). */
typedef void (*SmFitProgressFunc)(guint evaluation, double mape, double best, gpointer data);

typedef struct {
  const char *gpu_path;
  const char *measurements_path; /* for messages */
  const char *measurements_text;
  const char *mix_kernel;    /* calibration-format rows run on it */
  const char *const *sets;   /* fixed GPU overrides (may be NULL) */
  const char *const *curves; /* only these curves' rows (NULL: all) */
  guint jobs;
  guint max_evaluations; /* 0: 100 */
  guint64 max_cycles;
  SmFitProgressFunc progress; /* optional */
  gpointer progress_data;
} SmFitSetup;

/* Finds the key's type and bounds from the GPU field tables: integer or not, and the range a
 * GPU file allows.  FALSE with an error naming the key if it is not a numeric GPU key. */
/* The value in @gpu of dotted numeric key @key, where its table's fields lie in CfgGpu itself
 * (FALSE: not such a key). */
gboolean sm_fit_key_value(const CfgGpu *gpu, const char *key, double *value);
gboolean sm_fit_key_info(const char *key, gboolean *integer, double *min, double *max,
                         GError **error);

/* The overall MAPE (a fraction) with @params at @values (NULL: their start values). */
gboolean sm_fit_mape(const SmFitSetup *setup, const SmFitParam *params, guint n,
                     const double *values, double *mape, GError **error);

/* Fits @params (value filled in); *before and *after are the MAPE at the start values and at
 * the fitted ones. */
gboolean sm_fit_run(const SmFitSetup *setup, SmFitParam *params, guint n, double *before,
                    double *after, GError **error);
