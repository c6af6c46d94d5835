/* Many runs of one GPU + kernel with different overrides, on a thread pool, results in a fixed
 * order whatever the thread count.  Not what the runs mean (sweep.c, validate.c). */
#pragma once

#include "../../config/kernel.h"
#include "../stats.h"
#include "model.h"

typedef struct {
  SmStats stats;
  SmModelPoint model;
  gboolean has_model;
  guint warps;
} SmPointResult;

/* Called on the calling thread about five times a second while a batch runs, and once at the
 * end with done == total. */
typedef void (*SmProgressFunc)(guint done, guint total, gpointer data);

/* Runs every point of @points (each a NULL-terminated list of KEY=VALUE overrides) on @src
 * with @sets, on @jobs threads (0 = one per core).  Every point is loaded first, so a bad
 * point fails before anything runs.  results[i] belongs to points[i]. */
gboolean sm_batch_run(const CfgRunSource *src, const char *const *sets, GPtrArray *points,
                      guint jobs, SmProgressFunc progress, gpointer progress_data,
                      SmPointResult *results, GError **error);
