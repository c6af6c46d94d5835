/* Replaying a measurement file's rows, their curves and errors, and the plot.  Prints nothing.
 * Not reading the files (validate-read.c). */
#include "validate-internal.h"

#include <math.h>
#include <string.h>

#include "dist.h"
#include "find.h"
#include "runjson.h"

static void
add_take(GStrvBuilder *b, char *s)
{
  g_strv_builder_add(b, s);
  g_free(s);
}

/* Groups per loop iteration of the measured kernels as the compiler built them, and the
 * MOVs (address set-up) each iteration runs besides the counter update, test and branch:
 * ../shared/data/sass/h100-mix2.sass.txt and h100-mix3.sass.txt. */
typedef struct {
  double alpha;
  guint groups, movs;
  guint chain_movs; /* MOVs on each chain: alpha 0 and alpha >= 96 copy the chain's register
                       (`IMAD.MOV.U32 R8, RZ, RZ, R23`, `MOV R6, R11`) before its first load */
} LoopShape;

static const LoopShape ldg_loops[] = {{0, 64, 8, 1}, {1, 32, 0, 0}, {2, 16, 0, 0}, {4, 16, 0, 0},
                                      {8, 8, 0, 0},  {16, 8, 0, 0}, {24, 4, 0, 0}, {32, 4, 0, 0},
                                      {48, 2, 0, 0}, {64, 2, 0, 0}, {96, 1, 1, 1}};
static const LoopShape sfu_loops[] = {{0, 128, 0, 0}, {1, 64, 0, 0}, {2, 32, 0, 0}, {4, 32, 0, 0},
                                      {8, 16, 0, 0},  {16, 8, 0, 0}, {32, 4, 0, 0}, {64, 2, 0, 0}};
static const LoopShape smem_loops[] = {{0, 128, 0, 0}, {1, 128, 0, 0}, {2, 64, 0, 0},
                                       {4, 64, 0, 0},  {8, 16, 0, 0},  {16, 8, 0, 0},
                                       {32, 4, 0, 0},  {64, 2, 0, 0}};

/* The shape for @alpha: the table's entry for the largest alpha not above it. */
static LoopShape
loop_shape(const SmValidateKind *k, double alpha, guint ilp)
{
  if (strcmp(k->other, "none") == 0 || alpha < 0)
    return (LoopShape){.groups = 16}; /* 16 groups of 16 FADDs: 256 FADDs an iteration */
  const LoopShape *t = ldg_loops;
  guint n = G_N_ELEMENTS(ldg_loops);
  if (strcmp(k->other, "MUFU.RSQ") == 0) {
    t = sfu_loops;
    n = G_N_ELEMENTS(sfu_loops);
  } else if (strcmp(k->other, "LDS") == 0) {
    t = smem_loops;
    n = G_N_ELEMENTS(smem_loops);
  }
  LoopShape s = t[0];
  for (guint i = 0; i < n && t[i].alpha <= alpha; i++)
    s = t[i];
  /* ilp chains share an iteration: as many "other" instructions per iteration in all */
  s.groups = MAX(1u, s.groups / ilp);
  return s;
}

static char **
row_sets(const SmValidateRow *r)
{
  const SmValidateKind *k = &sm_validate_kinds[r->kind_index];
  gboolean none = r->alpha < 0 || strcmp(k->other, "none") == 0;
  LoopShape loop = loop_shape(k, r->alpha, r->ilp);
  GStrvBuilder *b = g_strv_builder_new();
  add_take(b, g_strdup_printf("warps_per_sm=%u", r->warps));
  add_take(b, g_strdup_printf("groups=%u", r->groups));
  add_take(b, g_strdup_printf("ilp=%u", r->ilp));
  add_take(b, g_strdup_printf("alu_op=%s", k->alu_op));
  add_take(b, g_strdup_printf("unroll=%u", loop.groups));
  g_strv_builder_add(b, "loop_overhead=1");
  add_take(b, g_strdup_printf("loop_movs=%u", loop.movs));
  add_take(b, g_strdup_printf("chain_movs=%u", loop.chain_movs));
  if (none) {
    /* a group of an ALU-only row is 16 rounds of ilp dependent ALU ops */
    g_strv_builder_add(b, "other=none");
    g_strv_builder_add(b, "alpha=16");
  } else {
    add_take(b, g_strdup_printf("other=%s", k->other));
    add_take(b, g_strdup_printf("alpha=%.10g", r->alpha));
    add_take(b, g_strdup_printf("pattern=%s", k->pattern));
    add_take(b, g_strdup_printf("level=%s", k->level));
  }
  char **sets = g_strv_builder_end(b);
  g_strv_builder_unref(b);
  return sets;
}

static double
warps_for_90(GArray *rows, const GArray *idx, gboolean simulated)
{
  double max = 0;
  for (guint i = 0; i < idx->len; i++) {
    const SmValidateRow *r = &g_array_index(rows, SmValidateRow, g_array_index(idx, guint, i));
    max = MAX(max, simulated ? r->simulated : r->measured);
  }
  double best = NAN;
  for (guint i = 0; i < idx->len; i++) {
    const SmValidateRow *r = &g_array_index(rows, SmValidateRow, g_array_index(idx, guint, i));
    double v = simulated ? r->simulated : r->measured;
    if (v >= 0.9 * max && (isnan(best) || r->warps < best))
      best = r->warps;
  }
  return best;
}

/* The row's overrides: "a=1; b=2" -> {"a=1", "b=2"}. */
static char **
kernel_row_sets(const SmValidateRow *r)
{
  GStrvBuilder *b = g_strv_builder_new();
  g_auto(GStrv) items = g_strsplit(r->set, ";", -1);
  for (guint i = 0; items[i]; i++) {
    char *item = g_strstrip(items[i]);
    if (item[0] != '\0')
      g_strv_builder_add(b, item);
  }
  char **sets = g_strv_builder_end(b);
  g_strv_builder_unref(b);
  return sets;
}

/* The metric of a run, or NAN when the JSON has no number there. */
static double
run_metric(const CfgGpu *gpu, const CfgKernel *kernel, const SmStats *stats, const char *metric)
{
  g_autoptr(JsonNode) root = sm_run_json(gpu, kernel, stats);
  double x;
  return sm_json_lookup_number(root, metric, &x) ? x : NAN;
}

static double
measure_row(const CfgGpu *gpu, const CfgKernel *kernel, const SmStats *stats, guint point,
            gpointer data)
{
  const SmValidation *v = data;
  return run_metric(gpu, kernel, stats, g_array_index(v->rows, SmValidateRow, point).metric);
}

/* Loads row @r of the kernel format as it will run, and checks its metric on an empty run. */
static gboolean
check_kernel_row(const SmValidation *v, const SmValidateRow *r, const CfgRunSource *src,
                 const char *const *sets, char **row_sets, GError **error)
{
  g_autofree char *origin = g_strdup_printf("%s:%u:%u: set", v->path, r->line, r->set_col);
  CfgGpu *gpu = NULL;
  CfgKernel *kernel = NULL;
  if (!cfg_load_run_text_as(src, sets, (const char *const *)row_sets, origin, &gpu, &kernel,
                            error)) {
    if (!g_str_has_prefix((*error)->message, origin))
      g_prefix_error(error, "%s:%u:%u: ", v->path, r->line, r->set_col);
    return FALSE;
  }
  g_autoptr(CfgGpu) g = gpu;
  g_autoptr(CfgKernel) k = kernel;
  SmStats empty = {.n_levels = g->memory.n_levels,
                   .schedulers = g->schedulers,
                   .n_sm = 1,
                   .clock_n_steps = SM_CLOCK_STEPS}; /* (a run has the steps its warps took) */
  if (isnan(run_metric(g, k, &empty, r->metric)))
    return cfg_fail_at(error, v->path, r->line, r->metric_col,
                       "metric '%s' is not a number in the JSON of a run (smsim run --json: "
                       "for example cycles, ipc.total, memory.bytes_per_cycle)",
                       r->metric);
  return TRUE;
}

/* A throughput (more is better): the curve summary gives warps for 90 % of its maximum.  Not a
 * time (cycles, milliseconds) nor a latency. */
static gboolean
is_throughput(const char *metric)
{
  return !g_str_has_suffix(metric, "cycles") && !g_str_has_suffix(metric, "milliseconds") &&
         strstr(metric, "latency") == NULL;
}

static void
source_free(gpointer p)
{
  cfg_run_source_clear(p);
  g_free(p);
}

gboolean
sm_validation_run(SmValidation *v, const char *gpu_path, const char *mix_kernel,
                  const char *const *sets, guint jobs, guint64 max_cycles, SmProgressFunc progress,
                  gpointer progress_data, GError **error)
{
  GArray *rows = v->rows;
  g_autoptr(GHashTable) sources =
      g_hash_table_new_full(g_str_hash, g_str_equal, g_free, source_free);
  g_autofree const CfgRunSource **srcs = g_new0(const CfgRunSource *, rows->len);
  g_autoptr(GPtrArray) points = g_ptr_array_new_with_free_func((GDestroyNotify)g_strfreev);
  for (guint i = 0; i < rows->len; i++) {
    SmValidateRow *r = &g_array_index(rows, SmValidateRow, i);
    const char *kernel = v->format == SM_VALIDATE_KERNEL ? r->kernel : mix_kernel;
    CfgRunSource *src = g_hash_table_lookup(sources, kernel);
    if (src == NULL) {
      src = g_new0(CfgRunSource, 1);
      g_hash_table_insert(sources, g_strdup(kernel), src);
      /* a row's kernel: a path from the folder smsim runs in, or a name (config/find.h) */
      g_autofree char *file = cfg_find_file(kernel, CFG_FIND_KERNEL, error);
      if (file == NULL || !cfg_run_source_init(src, gpu_path, file, error)) {
        if (v->format == SM_VALIDATE_KERNEL && !g_str_has_prefix((*error)->message, gpu_path))
          g_prefix_error(error, "%s:%u:1: kernel: ", v->path, r->line);
        return FALSE;
      }
    }
    srcs[i] = src;
    if (v->format == SM_VALIDATE_KERNEL) {
      char **row_sets = kernel_row_sets(r);
      g_ptr_array_add(points, row_sets);
      if (!check_kernel_row(v, r, src, sets, row_sets, error))
        return FALSE;
    } else {
      g_ptr_array_add(points, row_sets(r));
    }
  }
  g_autofree SmPointResult *results = g_new0(SmPointResult, rows->len);
  SmBatch batch = {.srcs = srcs,
                   .sets = sets,
                   .points = points,
                   .jobs = jobs,
                   .max_cycles = max_cycles,
                   .measure = v->format == SM_VALIDATE_KERNEL ? measure_row : NULL,
                   .measure_data = v,
                   .progress = progress,
                   .progress_data = progress_data};
  if (!sm_dist_batch_run(&batch, results, error))
    return FALSE;
  if (sm_dist_rank() != 0)
    return TRUE; /* rank 0 has every result */
  GHashTable *by_label = g_hash_table_new(g_str_hash, g_str_equal);
  double total_ape = 0;
  for (guint i = 0; i < rows->len; i++) {
    SmValidateRow *r = &g_array_index(rows, SmValidateRow, i);
    const SmStats *s = &results[i].stats;
    g_autofree char *label = sm_validate_row_label(v, r);
    if (v->format == SM_VALIDATE_KERNEL) {
      r->simulated = results[i].metric;
      r->warps = results[i].warps;
    } else {
      /* the measurements count the other instructions and the FADDs (FFMAs) only, not the
       * loop's MOVs, counter update, test and branch */
      guint64 counted = s->issued - s->issued_op[ISA_OP_MOV] - s->issued_op[ISA_OP_IADD3] -
                        s->issued_op[ISA_OP_ISETP] - s->issued_op[ISA_OP_BRA];
      r->simulated = s->cycles ? (double)counted / s->cycles : 0;
    }
    double ape = r->measured != 0 ? fabs(r->simulated - r->measured) / fabs(r->measured) : 0;
    total_ape += ape;
    SmValidateCurve *c = g_hash_table_lookup(by_label, label);
    if (c == NULL) {
      c = g_new0(SmValidateCurve, 1);
      c->label = g_strdup(label);
      c->rows = g_array_new(FALSE, FALSE, sizeof(guint));
      g_ptr_array_add(v->curves, c);
      g_hash_table_insert(by_label, c->label, c);
    }
    g_array_append_val(c->rows, i);
    c->mape += ape;
  }
  g_hash_table_destroy(by_label);
  for (guint i = 0; i < v->curves->len; i++) {
    SmValidateCurve *c = g_ptr_array_index(v->curves, i);
    c->mape /= c->rows->len;
    const SmValidateRow *first =
        &g_array_index(rows, SmValidateRow, g_array_index(c->rows, guint, 0));
    if (v->format == SM_VALIDATE_KERNEL && !is_throughput(first->metric)) {
      c->sim90 = c->meas90 = NAN;
      continue;
    }
    c->sim90 = warps_for_90(rows, c->rows, TRUE);
    c->meas90 = warps_for_90(rows, c->rows, FALSE);
  }
  v->total_ape = total_ape;
  return TRUE;
}

/* The number KEY=VALUE gives in a row's set column. */
static gboolean
set_value(const SmValidateRow *r, const char *key, double *out)
{
  g_auto(GStrv) parts = g_strsplit(r->set ? r->set : "", ";", -1);
  for (guint i = 0; parts[i]; i++) {
    const char *eq = strchr(parts[i], '=');
    if (eq && (gsize)(eq - parts[i]) == strlen(key) && strncmp(parts[i], key, strlen(key)) == 0) {
      char *end;
      *out = g_ascii_strtod(eq + 1, &end);
      return end != eq + 1 && *end == '\0' && isfinite(*out);
    }
  }
  return FALSE;
}

gboolean
sm_validation_plot_check(const SmValidation *v, const char *x_key, const char *per_key,
                         GError **error)
{
  if (!x_key && !per_key)
    return TRUE;
  if (v->format != SM_VALIDATE_KERNEL) {
    g_set_error(error, CFG_ERROR, CFG_ERROR_INVALID,
                "%s: --plot-x and --plot-per take keys of the kernel format's set column", v->path);
    return FALSE;
  }
  for (guint i = 0; i < v->rows->len; i++) {
    const SmValidateRow *r = &g_array_index(v->rows, SmValidateRow, i);
    const char *keys[] = {x_key, per_key};
    for (guint k = 0; k < 2; k++) {
      double d;
      if (keys[k] && (!set_value(r, keys[k], &d) || (k == 1 && d == 0)))
        return cfg_fail_at(error, v->path, r->line, r->set_col,
                           "set: no %snumber %s here (--plot-%s)", k ? "non-zero " : "", keys[k],
                           k ? "per" : "x");
    }
  }
  return TRUE;
}

SmPlot *
sm_validation_plot(const SmValidation *v, const char *x_key, const char *per_key)
{
  gboolean mix = v->format == SM_VALIDATE_MIX;
  const char *metric = "measured metric"; /* the rows' metric, when they share one */
  for (guint i = 0; v->format == SM_VALIDATE_KERNEL && i < v->rows->len; i++) {
    const char *m = g_array_index(v->rows, SmValidateRow, i).metric;
    metric = i == 0 || strcmp(m, metric) == 0 ? m : "measured metric";
  }
  g_autofree char *y_label =
      per_key ? g_strdup_printf("%s / %s", metric, per_key) : g_strdup(metric);
  SmPlot *plot = sm_plot_new(mix ? "Simulated (lines) and measured (dots) throughput"
                                 : "Simulated (lines) and measured (dots)",
                             x_key ? x_key : "warps per SM",
                             mix ? "IPC per SM (warp-instructions/cycle)" : y_label);
  double lo = INFINITY, hi = 0;
  for (guint i = 0; i < v->curves->len; i++) {
    const SmValidateCurve *c = g_ptr_array_index(v->curves, i);
    SmPlotSeries *sim = sm_plot_add(plot, c->label, SM_PLOT_LINE, i);
    SmPlotSeries *meas = sm_plot_add(plot, "", SM_PLOT_DOTS, i);
    for (guint j = 0; j < c->rows->len; j++) {
      const SmValidateRow *r =
          &g_array_index(v->rows, SmValidateRow, g_array_index(c->rows, guint, j));
      double x = r->warps, per = 1;
      if (x_key)
        set_value(r, x_key, &x);
      if (per_key)
        set_value(r, per_key, &per);
      lo = MIN(lo, x);
      hi = MAX(hi, x);
      sm_plot_point(sim, x, r->simulated / per);
      sm_plot_point(meas, x, r->measured / per);
    }
  }
  plot->log_x = x_key && lo > 0 && hi / lo >= 100; /* footprints, sizes: decades apart */
  return plot;
}
