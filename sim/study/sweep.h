/* A sweep: the cartesian product of --vary values, its points in a fixed order, their results,
 * and the per-curve summary over warps_per_sm (warps for 90 % / 95 % of max and of peak).
 * Not the command line or the output files (cli/sweep.c). */
#pragma once

#include "batch.h"
#include "plot.h"

#include <json-glib/json-glib.h>

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
  GPtrArray *varies;       /* SmVary */
  GPtrArray *points;       /* GStrv: KEY=VALUE per vary */
  GPtrArray *left_out;     /* GStrv: the points this GPU cannot run (sm_sweep_drop_impossible) */
  GArray *index;           /* guint per point per vary: value indices */
  struct SmSweepRow *rows; /* per point, once run (or read back from parts) */
  int warps_vary;          /* index of warps_per_sm among varies, or -1 */
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
/* Leaves out the points this GPU cannot hold (their launch's warps, blocks, registers or shared
 * memory: CFG_ERROR_IMPOSSIBLE), adding a line for each to @dropped; FALSE with an error when
 * another error stops a point, or when no point is left (the first one's reason). */
gboolean sm_sweep_drop_impossible(SmSweep *sweep, const CfgRunSource *src, const char *const *sets,
                                  GPtrArray *dropped, GError **error);
/* The value of vary @vary at point @point. */
const char *sm_sweep_value(const SmSweep *sweep, guint point, guint vary);

/* What a sweep keeps of a point: its CSV and JSON columns (sm_sweep_columns; NAN: no value)
 * and what the curves and plots need besides. */
extern const char *const sm_sweep_columns[];
#define SM_SWEEP_N_COLUMNS 11
typedef struct SmSweepRow {
  double v[SM_SWEEP_N_COLUMNS];
  double warps, theoretical_occupancy;
  double model_warps, cuda_guide; /* NAN without the model */
  gboolean has_model, compute_bound;
} SmSweepRow;
void sm_sweep_row_from_result(const SmPointResult *r, SmSweepRow *row);

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

/* A sweep with results as JSON: "points" (each varied key's value and the columns, null for
 * none), "left_out" (the points this GPU cannot run) and "curves" (SmCurve's numbers). */
JsonNode *sm_sweep_json(const SmSweep *sw, GPtrArray *curves);

/* What a throughput plot shows upwards: a column, per point divided by a key's value. */
typedef struct {
  guint column;    /* index into sm_sweep_columns */
  double *divisor; /* per point; NULL: none */
  char *label;     /* "cycles / elements" */
} SmPlotY;

/* Parses "COLUMN" or "COLUMN/KEY" (KEY varied by @sweep or set in @sets "K=V"); errors read
 * "--plot-y SPEC: ...".  Call after sm_sweep_make_points(). */
gboolean sm_sweep_plot_y(const SmSweep *sweep, const char *spec, const char *const *sets,
                         SmPlotY *out, GError **error);
void sm_plot_y_clear(SmPlotY *y);

/* @y (NULL: IPC, with the model's curves thin) against warps. */
SmPlot *sm_sweep_throughput_plot(const SmSweep *sweep, GPtrArray *curves, const char *gpu_name,
                                 const SmPlotY *y);
/* Warps for 90 % of peak against alpha, with the model and the CUDA guide. */
SmPlot *sm_sweep_cusp_plot(const SmSweep *sweep, GPtrArray *curves, const char *gpu_name,
                           guint max_warps);
/* Occupancy and throughput against the first varied key (e.g. threads per block). */
SmPlot *sm_sweep_occupancy_plot(const SmSweep *sweep, const char *gpu_name);

/* Shards: a sweep cut into N jobs (Slurm job arrays, shell loops) that each run the points
 * i with i % N == K - 1 and write a part file, merged into the single-run outputs later. */
typedef struct {
  char *path;
  guint shard, n_shards, n_points; /* shard is 1-based */
  char *fingerprint;               /* GPU and kernel texts, --vary and --set */
  char *gpu_path, *kernel_path, *gpu_name;
  guint max_warps;
  GPtrArray *varies, *sets; /* the --vary and --set arguments as given */
  GArray *index;            /* guint: point numbers of the rows */
  GArray *rows;             /* SmSweepRow */
} SmSweepPart;

/* Parses "K/N" (1 <= K <= N <= 100000). */
gboolean sm_sweep_parse_shard(const char *text, guint *shard, guint *n_shards, GError **error);
/* The points of shard K of N among @n_points, in order. */
GArray *sm_sweep_shard_points(guint n_points, guint shard, guint n_shards);
/* Identifies a sweep: its GPU and kernel texts, --vary and --set (16 hex digits). */
char *sm_sweep_fingerprint(const CfgRunSource *src, const char *const *varies,
                           const char *const *sets);
/* The part file of shard @part (its rows for the points in @part->index). */
char *sm_sweep_part_text(const SmSweepPart *part);
/* Reads a part file; errors are "FILE:LINE:COL: message". */
SmSweepPart *sm_sweep_part_read(const char *path, GError **error);
SmSweepPart *sm_sweep_part_parse(const char *path, const char *text, GError **error);
void sm_sweep_part_free(SmSweepPart *part);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SmSweepPart, sm_sweep_part_free)
/* Reassembles the sweep from all its parts (any order): every shard once, the same sweep,
 * every point exactly once; the first part names the sweep. */
SmSweep *sm_sweep_merge(GPtrArray *parts, GError **error);
