/* Many runs with different overrides, on a thread pool, results in a fixed order whatever the
 * thread count.  Not what the runs mean (sweep.c, validate.c). */
#pragma once

#include "../../config/kernel.h"
#include "../sm.h"
#include "../sm/stats.h"
#include "model.h"

typedef struct {
  SmStats stats;
  SmModelPoint model;
  gboolean has_model;
  guint warps;
  double metric; /* SmBatch.measure's value */
} SmPointResult;

/* Called on the calling thread about five times a second while a batch runs, and once at the
 * end with done == total. */
typedef void (*SmProgressFunc)(guint done, guint total, gpointer data);

/* Reads one number of a finished run (on a worker thread, while its GPU and kernel exist). */
typedef double (*SmMeasureFunc)(const CfgGpu *gpu, const CfgKernel *kernel, const SmStats *stats,
                                guint point, gpointer data);

typedef struct {
  const CfgRunSource *src;   /* GPU + kernel of every point ... */
  const CfgRunSource **srcs; /* ... or, when set, of each point */
  const char *const *sets;   /* overrides for every point (errors name "--set KEY") */
  GPtrArray *points;         /* GStrv per point: its overrides (errors name "--vary KEY") */
  guint jobs;                /* threads; 0 = one per core */
  SmMeasureFunc measure;     /* optional: fills SmPointResult.metric */
  gpointer measure_data;
  guint first_point;       /* added to the point numbers measure sees (slices of a batch) */
  gboolean check_only;     /* only load every point (results may be NULL) */
  guint64 max_cycles;      /* a run that reaches it fails the batch (0: SM_DEFAULT_MAX_CYCLES) */
  SmProgressFunc progress; /* optional */
  gpointer progress_data;
  guint threads_per_run; /* set by sm_batch_run() */
} SmBatch;

/* What may end one run early besides its cycle limit: a flag another thread raises (a client
 * gone away) and a wall-clock deadline (g_get_monotonic_time(); 0: none).  Looked at between
 * slices of the run, a few tens of milliseconds of work each. */
typedef struct {
  const gint *cancel; /* read with g_atomic_int_get; NULL: none */
  gint64 deadline;
} SmRunBounds;

typedef enum {
  SM_RUN_FINISHED,   /* every warp done (or a kernel over SASS failed: sm_error()) */
  SM_RUN_MAX_CYCLES, /* it reached the cycle limit */
  SM_RUN_CANCELLED,  /* the flag was raised */
  SM_RUN_DEADLINE,   /* the wall-clock deadline passed */
  SM_RUN_STOPPED     /* sm_request_stop() (a signal) */
} SmRunEnd;

/* Runs @sm to its end, or until @max_cycles or @bounds (NULL: none) stop it; the same results
 * as one sm_run_until(). */
SmRunEnd sm_run_bounded(SmGpu *sm, guint64 max_cycles, const SmRunBounds *bounds);

/* Process-wide: the threads a batch's runs share (smsim --threads): each of the runs going at
 * once steps its SMs on an equal part of them, at least one.  1 by default. */
void sm_batch_set_threads(guint n);

/* Runs every point.  Every point is loaded first, so a bad point fails before anything runs.
 * results[i] belongs to points[i]. */
gboolean sm_batch_run(const SmBatch *batch, SmPointResult *results, GError **error);
