/* Many runs of one GPU + kernel with different overrides, in parallel, in a fixed order. */
#pragma once

#include "model.h"
#include "stats.h"

/* One --vary KEY=LIST|A:B[:STEP]. */
typedef struct {
  char *key;
  GPtrArray *values; /* char *, as they will be passed to --set */
} SmVary;

/* Parses @arg; errors read "--vary KEY: ...". */
SmVary *sm_vary_parse(const char *arg, GError **error);
void sm_vary_free(SmVary *vary);

typedef struct {
  SmStats stats;
  SmModelPoint model;
  gboolean has_model;
  guint warps;
} SmPointResult;

/* Runs every point of @points (each a NULL-terminated list of KEY=VALUE overrides reported as
 * "--vary KEY") on @src with @sets, on @jobs threads (0 = one per core).  Every point is
 * loaded first, so a bad point fails before anything runs.  @label names the progress line
 * shown on stderr when it is a terminal.  results[i] belongs to points[i]. */
gboolean sm_batch_run(const CfgRunSource *src, const char *const *sets, GPtrArray *points,
                      guint jobs, const char *label, SmPointResult *results, GError **error);

/* smsim sweep */
int sm_cmd_sweep(int argc, char **argv);
