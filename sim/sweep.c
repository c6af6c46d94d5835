#include "sweep.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "plot.h"
#include "report.h"
#include "sm.h"

#define MAX_POINTS 1000000u

static gboolean G_GNUC_PRINTF(3, 4) vary_fail(GError **error, const char *key, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  g_autofree char *msg = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  g_set_error(error, CFG_ERROR, CFG_ERROR_INVALID, "--vary %s: %s", key, msg);
  return FALSE;
}

static gboolean
parse_number(const char *s, double *out)
{
  char *end;
  *out = g_ascii_strtod(s, &end);
  return s[0] != '\0' && *end == '\0' && isfinite(*out);
}

void
sm_vary_free(SmVary *v)
{
  if (v == NULL)
    return;
  g_free(v->key);
  g_ptr_array_free(v->values, TRUE);
  g_free(v);
}

SmVary *
sm_vary_parse(const char *arg, GError **error)
{
  const char *eq = strchr(arg, '=');
  if (eq == NULL || eq == arg) {
    vary_fail(error, arg, "expected KEY=LIST or KEY=A:B[:STEP]");
    return NULL;
  }
  g_autofree char *key = g_strndup(arg, (gsize)(eq - arg));
  const char *spec = eq + 1;
  SmVary *v = g_new0(SmVary, 1);
  v->key = g_strdup(key);
  v->values = g_ptr_array_new_with_free_func(g_free);
  if (strchr(spec, ':') != NULL && strchr(spec, ',') == NULL) {
    g_auto(GStrv) parts = g_strsplit(spec, ":", -1);
    guint n = g_strv_length(parts);
    double a, b, step = 1;
    if (n < 2 || n > 3 || !parse_number(parts[0], &a) || !parse_number(parts[1], &b) ||
        (n == 3 && !parse_number(parts[2], &step))) {
      vary_fail(error, key, "'%s' is not a range A:B or A:B:STEP of numbers", spec);
      sm_vary_free(v);
      return NULL;
    }
    if (step <= 0) {
      vary_fail(error, key, "the step of '%s' must be positive", spec);
      sm_vary_free(v);
      return NULL;
    }
    if (b < a) {
      vary_fail(error, key, "empty range '%s' (the end is below the start)", spec);
      sm_vary_free(v);
      return NULL;
    }
    double count = floor((b - a) / step + 1e-9) + 1;
    if (count > MAX_POINTS) {
      vary_fail(error, key, "'%s' has more than %u values", spec, MAX_POINTS);
      sm_vary_free(v);
      return NULL;
    }
    for (guint i = 0; i < (guint)count; i++) {
      double x = a + i * step;
      x = round(x * 1e9) / 1e9;
      g_ptr_array_add(v->values, g_strdup_printf("%.10g", x));
    }
  } else {
    g_auto(GStrv) items = g_strsplit(spec, ",", -1);
    for (guint i = 0; items[i]; i++) {
      char *item = g_strstrip(items[i]);
      if (item[0] == '\0') {
        vary_fail(error, key, "empty value in the list '%s'", spec);
        sm_vary_free(v);
        return NULL;
      }
      g_ptr_array_add(v->values, g_strdup(item));
    }
  }
  if (v->values->len == 0) {
    vary_fail(error, key, "no values");
    sm_vary_free(v);
    return NULL;
  }
  return v;
}

/* ---- the batch runner ---- */

typedef struct {
  const CfgRunSource *src;
  const char *const *sets;
  GPtrArray *points;
  SmPointResult *results;
  GMutex lock;
  GCond cond;
  guint done;
} Batch;

static gboolean
run_point(const CfgRunSource *src, const char *const *sets, const char *const *point,
          SmPointResult *r, GError **error)
{
  CfgGpu *gpu = NULL;
  CfgKernel *kernel = NULL;
  if (!cfg_load_run_text(src, sets, point, &gpu, &kernel, error))
    return FALSE;
  g_autoptr(CfgGpu) g = gpu;
  g_autoptr(CfgKernel) k = kernel;
  if (r == NULL)
    return TRUE;
  g_autoptr(Sm) sm = sm_new(g, k);
  sm_run(sm);
  r->stats = *sm_stats(sm);
  r->warps = k->warps_per_sm;
  r->has_model = sm_model_mix(g, k, &r->model);
  return TRUE;
}

static void
batch_worker(gpointer data, gpointer user)
{
  Batch *b = user;
  guint i = GPOINTER_TO_UINT(data) - 1;
  /* every point loaded once already: this cannot fail */
  gboolean ok = run_point(b->src, b->sets, g_ptr_array_index(b->points, i), &b->results[i], NULL);
  g_assert(ok);
  g_mutex_lock(&b->lock);
  b->done++;
  g_cond_signal(&b->cond);
  g_mutex_unlock(&b->lock);
}

gboolean
sm_batch_run(const CfgRunSource *src, const char *const *sets, GPtrArray *points, guint jobs,
             const char *label, SmPointResult *results, GError **error)
{
  for (guint i = 0; i < points->len; i++)
    if (!run_point(src, sets, g_ptr_array_index(points, i), NULL, error))
      return FALSE;
  if (jobs == 0)
    jobs = MAX(1u, g_get_num_processors());
  Batch b = {.src = src, .sets = sets, .points = points, .results = results};
  g_mutex_init(&b.lock);
  g_cond_init(&b.cond);
  GThreadPool *pool = g_thread_pool_new(batch_worker, &b, (gint)MIN(jobs, points->len), TRUE, NULL);
  for (guint i = 0; i < points->len; i++)
    g_thread_pool_push(pool, GUINT_TO_POINTER(i + 1), NULL);
  gboolean tty = isatty(STDERR_FILENO) && label != NULL;
  g_mutex_lock(&b.lock);
  while (b.done < points->len) {
    if (tty) {
      fprintf(stderr, "\r%s: %u/%u runs", label, b.done, points->len);
      fflush(stderr);
    }
    g_cond_wait_until(&b.cond, &b.lock, g_get_monotonic_time() + 200 * G_TIME_SPAN_MILLISECOND);
  }
  g_mutex_unlock(&b.lock);
  if (tty)
    fprintf(stderr, "\r%s: %u/%u runs\n", label, points->len, points->len);
  g_thread_pool_free(pool, FALSE, TRUE);
  g_mutex_clear(&b.lock);
  g_cond_clear(&b.cond);
  return TRUE;
}

/* ---- smsim sweep ---- */

typedef struct {
  GPtrArray *varies; /* SmVary */
  GPtrArray *points; /* GStrv */
  GArray *index;     /* guint per point per vary: value indices */
  SmPointResult *results;
  int warps_vary; /* index of warps_per_sm among varies, or -1 */
  int alpha_vary;
} Sweep;

static const char *
point_value(const Sweep *sw, guint point, guint vary)
{
  const SmVary *v = g_ptr_array_index(sw->varies, vary);
  guint vi = g_array_index(sw->index, guint, point * sw->varies->len + vary);
  return g_ptr_array_index(v->values, vi);
}

static void
make_points(Sweep *sw)
{
  guint n = 1;
  for (guint i = 0; i < sw->varies->len; i++)
    n *= ((SmVary *)g_ptr_array_index(sw->varies, i))->values->len;
  sw->points = g_ptr_array_new_with_free_func((GDestroyNotify)g_strfreev);
  sw->index = g_array_new(FALSE, FALSE, sizeof(guint));
  for (guint p = 0; p < n; p++) {
    GStrvBuilder *b = g_strv_builder_new();
    guint rest = p;
    guint idx[64];
    for (guint i = sw->varies->len; i-- > 0;) {
      const SmVary *v = g_ptr_array_index(sw->varies, i);
      idx[i] = rest % v->values->len;
      rest /= v->values->len;
    }
    for (guint i = 0; i < sw->varies->len; i++) {
      const SmVary *v = g_ptr_array_index(sw->varies, i);
      g_array_append_val(sw->index, idx[i]);
      g_autofree char *kv =
          g_strdup_printf("%s=%s", v->key, (char *)g_ptr_array_index(v->values, idx[i]));
      g_strv_builder_add(b, kv);
    }
    g_ptr_array_add(sw->points, g_strv_builder_end(b));
    g_strv_builder_unref(b);
  }
}

static const char *const csv_columns[] = {"cycles",
                                          "ipc_total",
                                          "ipc_alu",
                                          "ipc_sfu",
                                          "ipc_ldst",
                                          "mem_bytes_per_cycle",
                                          "mean_mem_latency",
                                          "achieved_occupancy",
                                          "model_latency_bound",
                                          "model_throughput_bound",
                                          "model_ipc",
                                          NULL};

static void
point_numbers(const SmPointResult *r, double *out)
{
  SmSummary m;
  sm_summary_compute(&r->stats, &m);
  out[0] = (double)r->stats.cycles;
  out[1] = m.ipc_total;
  for (guint u = 0; u < ISA_UNIT_COUNT; u++)
    out[2 + u] = m.ipc_unit[u];
  out[5] = m.bytes_per_cycle;
  out[6] = m.mean_load_latency;
  out[7] = m.achieved_occupancy;
  out[8] = r->has_model ? r->model.latency_bound : NAN;
  out[9] = r->has_model ? r->model.throughput_bound : NAN;
  out[10] = r->has_model ? r->model.ipc : NAN;
}

static void
append_number(GString *s, double v, int col)
{
  if (isnan(v))
    return;
  if (col == 0)
    g_string_append_printf(s, "%.0f", v);
  else
    g_string_append_printf(s, "%.6g", v);
}

static char *
sweep_csv(const Sweep *sw)
{
  GString *s = g_string_new(NULL);
  for (guint i = 0; i < sw->varies->len; i++)
    g_string_append_printf(s, "%s,", ((SmVary *)g_ptr_array_index(sw->varies, i))->key);
  for (guint c = 0; csv_columns[c]; c++)
    g_string_append_printf(s, "%s%s", csv_columns[c], csv_columns[c + 1] ? "," : "\n");
  for (guint p = 0; p < sw->points->len; p++) {
    for (guint i = 0; i < sw->varies->len; i++)
      g_string_append_printf(s, "%s,", point_value(sw, p, i));
    double nums[11];
    point_numbers(&sw->results[p], nums);
    for (guint c = 0; csv_columns[c]; c++) {
      append_number(s, nums[c], (int)c);
      g_string_append(s, csv_columns[c + 1] ? "," : "\n");
    }
  }
  return g_string_free(s, FALSE);
}

/* A curve: the points that share every varied value but warps_per_sm, in warps order. */
typedef struct {
  char *label;
  GArray *points; /* guint point indices */
  double max_ipc, peak_ipc;
  double warps_max[2], warps_peak[2]; /* 90 %, 95 %; NAN = not reached */
  double model_warps, cuda_guide;
  gboolean compute_bound; /* the model says ALU or issue bound, not memory */
} Curve;

static const double fractions[2] = {0.90, 0.95};

static double
warps_to_reach(const Sweep *sw, const Curve *c, double target)
{
  for (guint i = 0; i < c->points->len; i++) {
    guint p = g_array_index(c->points, guint, i);
    SmSummary m;
    sm_summary_compute(&sw->results[p].stats, &m);
    if (m.ipc_total >= target)
      return sw->results[p].warps;
  }
  return NAN;
}

static GPtrArray *
make_curves(const Sweep *sw)
{
  GPtrArray *curves = g_ptr_array_new();
  GHashTable *by_label = g_hash_table_new(g_str_hash, g_str_equal);
  for (guint p = 0; p < sw->points->len; p++) {
    GString *label = g_string_new(NULL);
    for (guint i = 0; i < sw->varies->len; i++) {
      if ((int)i == sw->warps_vary)
        continue;
      g_string_append_printf(label, "%s%s=%s", label->len ? " " : "",
                             ((SmVary *)g_ptr_array_index(sw->varies, i))->key,
                             point_value(sw, p, i));
    }
    if (label->len == 0)
      g_string_append(label, "all");
    Curve *c = g_hash_table_lookup(by_label, label->str);
    if (c == NULL) {
      c = g_new0(Curve, 1);
      c->label = g_strdup(label->str);
      c->points = g_array_new(FALSE, FALSE, sizeof(guint));
      g_ptr_array_add(curves, c);
      g_hash_table_insert(by_label, c->label, c);
    }
    g_string_free(label, TRUE);
    /* keep warps order */
    guint at = c->points->len;
    while (at > 0 &&
           sw->results[g_array_index(c->points, guint, at - 1)].warps > sw->results[p].warps)
      at--;
    g_array_insert_val(c->points, at, p);
  }
  g_hash_table_destroy(by_label);
  for (guint i = 0; i < curves->len; i++) {
    Curve *c = g_ptr_array_index(curves, i);
    c->max_ipc = 0;
    c->peak_ipc = NAN;
    c->model_warps = NAN;
    c->cuda_guide = NAN;
    for (guint j = 0; j < c->points->len; j++) {
      const SmPointResult *r = &sw->results[g_array_index(c->points, guint, j)];
      SmSummary m;
      sm_summary_compute(&r->stats, &m);
      c->max_ipc = MAX(c->max_ipc, m.ipc_total);
      if (r->has_model) {
        c->peak_ipc = r->model.throughput_bound;
        c->model_warps = r->model.warps_needed;
        c->cuda_guide = r->model.cuda_guide;
        c->compute_bound =
            strcmp(r->model.bound, "alu") == 0 || strcmp(r->model.bound, "issue") == 0;
        if (!c->compute_bound)
          c->cuda_guide = NAN; /* the guide's estimate is for compute-bound code only */
      }
    }
    for (guint f = 0; f < 2; f++) {
      c->warps_max[f] = warps_to_reach(sw, c, fractions[f] * c->max_ipc);
      c->warps_peak[f] =
          isnan(c->peak_ipc) ? NAN : warps_to_reach(sw, c, fractions[f] * c->peak_ipc);
    }
  }
  return curves;
}

static void
curve_free(gpointer p)
{
  Curve *c = p;
  g_free(c->label);
  g_array_free(c->points, TRUE);
  g_free(c);
}

static void
fmt_warps(GString *s, double w)
{
  if (isnan(w))
    g_string_append_printf(s, " %6s", "-");
  else
    g_string_append_printf(s, " %6.0f", w);
}

static void
fmt_model(GString *s, double w)
{
  if (isnan(w) || isinf(w))
    g_string_append_printf(s, " %6s", "-");
  else
    g_string_append_printf(s, " %6.1f", w);
}

static void
print_curves(const Sweep *sw, GPtrArray *curves, GString *out)
{
  guint width = 5;
  for (guint i = 0; i < curves->len; i++)
    width = MAX(width, (guint)strlen(((Curve *)g_ptr_array_index(curves, i))->label));
  g_string_append_printf(
      out, "\nwarps per SM needed for 90 %% / 95 %% of the curve's maximum and of the "
           "peak the GPU file gives\n('-': not reached; model: Volkov's Little's-law "
           "warps x 0.90 / 0.95; CUDA guide: mem_lat x alu_thru / alpha, compute-bound only)\n");
  g_string_append_printf(out, "%-*s %9s %6s %6s %9s %6s %6s %6s %6s %6s\n", width, "curve",
                         "max IPC", "90%max", "95%max", "peak IPC", "90%pk", "95%pk", "model90",
                         "model95", "guide");
  for (guint i = 0; i < curves->len; i++) {
    const Curve *c = g_ptr_array_index(curves, i);
    g_string_append_printf(out, "%-*s %9.4f", width, c->label, c->max_ipc);
    fmt_warps(out, c->warps_max[0]);
    fmt_warps(out, c->warps_max[1]);
    if (isnan(c->peak_ipc))
      g_string_append_printf(out, " %9s", "-");
    else
      g_string_append_printf(out, " %9.4f", c->peak_ipc);
    fmt_warps(out, c->warps_peak[0]);
    fmt_warps(out, c->warps_peak[1]);
    fmt_model(out, 0.90 * c->model_warps);
    fmt_model(out, 0.95 * c->model_warps);
    fmt_model(out, c->cuda_guide);
    g_string_append_c(out, '\n');
  }
  (void)sw;
}

static void
print_points(const Sweep *sw, GString *out)
{
  for (guint i = 0; i < sw->varies->len; i++)
    g_string_append_printf(out, "%14s ", ((SmVary *)g_ptr_array_index(sw->varies, i))->key);
  g_string_append_printf(out, "%12s %9s %9s %9s %10s %8s %9s\n", "cycles", "IPC", "IPC alu",
                         "B/cycle", "load lat", "occup.", "model");
  for (guint p = 0; p < sw->points->len; p++) {
    for (guint i = 0; i < sw->varies->len; i++)
      g_string_append_printf(out, "%14s ", point_value(sw, p, i));
    double n[11];
    point_numbers(&sw->results[p], n);
    g_string_append_printf(out, "%12.0f %9.4f %9.4f %9.3f %10.1f %8.3f", n[0], n[1], n[2], n[5],
                           n[6], n[7]);
    if (isnan(n[10]))
      g_string_append_printf(out, " %9s\n", "-");
    else
      g_string_append_printf(out, " %9.4f\n", n[10]);
  }
}

static char *
sweep_json(const Sweep *sw, GPtrArray *curves)
{
  g_autoptr(JsonBuilder) b = json_builder_new();
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "points");
  json_builder_begin_array(b);
  for (guint p = 0; p < sw->points->len; p++) {
    json_builder_begin_object(b);
    for (guint i = 0; i < sw->varies->len; i++) {
      json_builder_set_member_name(b, ((SmVary *)g_ptr_array_index(sw->varies, i))->key);
      json_builder_add_string_value(b, point_value(sw, p, i));
    }
    double n[11];
    point_numbers(&sw->results[p], n);
    for (guint c = 0; csv_columns[c]; c++) {
      json_builder_set_member_name(b, csv_columns[c]);
      if (isnan(n[c]))
        json_builder_add_null_value(b);
      else
        json_builder_add_double_value(b, n[c]);
    }
    json_builder_end_object(b);
  }
  json_builder_end_array(b);
  json_builder_set_member_name(b, "curves");
  json_builder_begin_array(b);
  for (guint i = 0; i < curves->len; i++) {
    const Curve *c = g_ptr_array_index(curves, i);
    json_builder_begin_object(b);
    const struct {
      const char *name;
      double v;
    } fields[] = {{"max_ipc", c->max_ipc},
                  {"warps_90_of_max", c->warps_max[0]},
                  {"warps_95_of_max", c->warps_max[1]},
                  {"peak_ipc", c->peak_ipc},
                  {"warps_90_of_peak", c->warps_peak[0]},
                  {"warps_95_of_peak", c->warps_peak[1]},
                  {"model_warps_needed", c->model_warps},
                  {"cuda_guide_warps", c->cuda_guide}};
    json_builder_set_member_name(b, "curve");
    json_builder_add_string_value(b, c->label);
    for (guint f = 0; f < G_N_ELEMENTS(fields); f++) {
      json_builder_set_member_name(b, fields[f].name);
      if (isnan(fields[f].v) || isinf(fields[f].v))
        json_builder_add_null_value(b);
      else
        json_builder_add_double_value(b, fields[f].v);
    }
    json_builder_end_object(b);
  }
  json_builder_end_array(b);
  json_builder_end_object(b);
  return sm_json_text(b);
}

static SmPlot *
throughput_plot(const Sweep *sw, GPtrArray *curves, const char *gpu_name)
{
  g_autofree char *title = g_strdup_printf("Throughput against occupancy, %s", gpu_name);
  SmPlot *plot = sm_plot_new(title, "warps per SM", "IPC per SM (warp-instructions/cycle)");
  for (guint i = 0; i < curves->len; i++) {
    const Curve *c = g_ptr_array_index(curves, i);
    SmPlotSeries *s = sm_plot_add(plot, c->label, SM_PLOT_LINE, i);
    g_autofree char *ml = g_strdup_printf("model, %s", c->label);
    SmPlotSeries *m =
        sm_plot_add(plot, curves->len == 1 ? "Volkov's model" : (i == 0 ? "models (thin)" : ""),
                    SM_PLOT_THIN, i);
    for (guint j = 0; j < c->points->len; j++) {
      guint p = g_array_index(c->points, guint, j);
      SmSummary sum;
      sm_summary_compute(&sw->results[p].stats, &sum);
      sm_plot_point(s, sw->results[p].warps, sum.ipc_total);
      if (sw->results[p].has_model)
        sm_plot_point(m, sw->results[p].warps, sw->results[p].model.ipc);
    }
  }
  return plot;
}

static SmPlot *
cusp_plot(const Sweep *sw, GPtrArray *curves, const char *gpu_name, guint max_warps)
{
  g_autofree char *title = g_strdup_printf("Warps needed for 90%% of peak, %s", gpu_name);
  SmPlot *plot =
      sm_plot_new(title, "alpha (FADDs per memory instruction, log scale)", "warps per SM");
  plot->log_x = TRUE;
  plot->hline = max_warps;
  plot->hline_label = g_strdup_printf("%u warps: the most an SM holds", max_warps);
  SmPlotSeries *sim = sm_plot_add(plot, "simulated (90% of peak)", SM_PLOT_LINE, 0);
  SmPlotSeries *dots = sm_plot_add(plot, "", SM_PLOT_DOTS, 0);
  SmPlotSeries *model = sm_plot_add(plot, "Volkov's model (x 0.9)", SM_PLOT_THIN, 10);
  SmPlotSeries *guide = sm_plot_add(plot, "CUDA guide", SM_PLOT_DASHED, 1);
  for (guint i = 0; i < curves->len; i++) {
    const Curve *c = g_ptr_array_index(curves, i);
    guint p = g_array_index(c->points, guint, 0);
    double alpha = g_ascii_strtod(point_value(sw, p, (guint)sw->alpha_vary), NULL);
    sm_plot_point(sim, alpha, c->warps_peak[0]);
    sm_plot_point(dots, alpha, c->warps_peak[0]);
    sm_plot_point(model, alpha, 0.9 * c->model_warps);
    /* the guide's estimate is meant for compute-bound code only (thesis section 4.8) */
    if (c->compute_bound)
      sm_plot_point(guide, alpha, c->cuda_guide);
  }
  return plot;
}

/* Occupancy and throughput against the first varied key (e.g. threads per block). */
static SmPlot *
occupancy_plot(const Sweep *sw, const char *gpu_name)
{
  const SmVary *v = g_ptr_array_index(sw->varies, 0);
  g_autofree char *title = g_strdup_printf("Occupancy and throughput, %s", gpu_name);
  SmPlot *plot = sm_plot_new(title, v->key, "fraction");
  SmPlotSeries *th = sm_plot_add(plot, "theoretical occupancy", SM_PLOT_THIN, 10);
  SmPlotSeries *ac = sm_plot_add(plot, "achieved occupancy", SM_PLOT_LINE, 0);
  SmPlotSeries *ipc = sm_plot_add(plot, "IPC / best IPC", SM_PLOT_DASHED, 1);
  double best = 0;
  for (guint p = 0; p < sw->points->len; p++) {
    SmSummary m;
    sm_summary_compute(&sw->results[p].stats, &m);
    best = MAX(best, m.ipc_total);
  }
  for (guint p = 0; p < sw->points->len; p++) {
    SmSummary m;
    sm_summary_compute(&sw->results[p].stats, &m);
    double x = g_ascii_strtod(point_value(sw, p, 0), NULL);
    sm_plot_point(th, x, m.theoretical_occupancy);
    sm_plot_point(ac, x, m.achieved_occupancy);
    sm_plot_point(ipc, x, best > 0 ? m.ipc_total / best : 0);
  }
  return plot;
}

static int
write_file(const char *path, const char *text)
{
  GError *error = NULL;
  if (!g_file_set_contents(path, text, -1, &error)) {
    fprintf(stderr, "%s: cannot write: %s\n", path, error->message);
    g_error_free(error);
    return 2;
  }
  return 0;
}

int
sm_cmd_sweep(int argc, char **argv)
{
  g_auto(GStrv) sets = NULL, varies = NULL;
  g_autofree char *csv = NULL, *json = NULL, *plot_path = NULL, *plot_kind = NULL;
  gint jobs = 0;
  const GOptionEntry entries[] = {
      {"vary", 'v', 0, G_OPTION_ARG_STRING_ARRAY, &varies,
       "Vary a key over a list (K=1,2,4) or range (K=A:B or K=A:B:STEP); repeatable", "K=VALUES"},
      {"set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets, "Set a key for every run", "K=V"},
      {"csv", 0, 0, G_OPTION_ARG_FILENAME, &csv, "Write every point as CSV", "FILE"},
      {"json", 0, 0, G_OPTION_ARG_FILENAME, &json, "Write points and curves as JSON", "FILE"},
      {"plot", 0, 0, G_OPTION_ARG_FILENAME, &plot_path, "Draw a plot (.png or .svg)", "FILE"},
      {"plot-kind", 0, 0, G_OPTION_ARG_STRING, &plot_kind,
       "throughput (IPC against warps), cusp (warps for 90% of peak against alpha) or occupancy "
       "(occupancy and IPC against the first varied key); default: "
       "cusp when exactly alpha and warps_per_sm vary over 5+ alphas",
       "KIND"},
      {"jobs", 'j', 0, G_OPTION_ARG_INT, &jobs, "Parallel runs (default: one per core)", "N"},
      {NULL, 0, 0, 0, NULL, NULL, NULL}};
  if (!sm_cli_parse("sweep", "GPU.yaml KERNEL.yaml - run a kernel over a grid of settings", entries,
                    &argc, &argv))
    return 2;
  if (argc != 3)
    return sm_cli_usage("sweep needs GPU.yaml and KERNEL.yaml");
  if (varies == NULL)
    return sm_cli_usage("sweep needs at least one --vary");
  if (!sm_cli_check_jobs_and_plot(jobs, plot_path))
    return 2;
  GError *error = NULL;
  if (plot_kind && strcmp(plot_kind, "throughput") != 0 && strcmp(plot_kind, "cusp") != 0 &&
      strcmp(plot_kind, "occupancy") != 0) {
    fprintf(stderr, "--plot-kind %s: must be throughput, cusp or occupancy\n", plot_kind);
    return 2;
  }
  g_autoptr(GString) out = g_string_new(NULL);
  Sweep sw = {.warps_vary = -1, .alpha_vary = -1};
  sw.varies = g_ptr_array_new_with_free_func((GDestroyNotify)sm_vary_free);
  int status = 0;
  CfgRunSource src = {0};
  GPtrArray *curves = NULL;
  for (guint i = 0; varies[i]; i++) {
    SmVary *v = sm_vary_parse(varies[i], &error);
    if (v == NULL) {
      status = sm_cli_fail(error);
      goto out;
    }
    for (guint j = 0; j < sw.varies->len; j++) {
      if (strcmp(((SmVary *)g_ptr_array_index(sw.varies, j))->key, v->key) == 0) {
        fprintf(stderr, "--vary %s: given twice\n", v->key);
        sm_vary_free(v);
        status = 2;
        goto out;
      }
    }
    if (strcmp(v->key, "warps_per_sm") == 0)
      sw.warps_vary = (int)sw.varies->len;
    if (strcmp(v->key, "alpha") == 0)
      sw.alpha_vary = (int)sw.varies->len;
    g_ptr_array_add(sw.varies, v);
  }
  if (sw.varies->len > 64) {
    fprintf(stderr, "--vary: at most 64 keys\n");
    status = 2;
    goto out;
  }
  gboolean cusp = FALSE, occupancy = FALSE;
  if (plot_path) {
    gboolean can_cusp = sw.alpha_vary >= 0 && sw.warps_vary >= 0 && sw.varies->len == 2;
    if (plot_kind && strcmp(plot_kind, "cusp") == 0 && !can_cusp) {
      fprintf(stderr, "--plot-kind cusp: needs exactly --vary alpha and --vary warps_per_sm\n");
      status = 2;
      goto out;
    }
    if (plot_kind && strcmp(plot_kind, "throughput") == 0 && sw.warps_vary < 0) {
      fprintf(stderr, "--plot-kind throughput: needs --vary warps_per_sm\n");
      status = 2;
      goto out;
    }
    occupancy = plot_kind && strcmp(plot_kind, "occupancy") == 0;
    cusp =
        plot_kind
            ? strcmp(plot_kind, "cusp") == 0
            : can_cusp && ((SmVary *)g_ptr_array_index(sw.varies, sw.alpha_vary))->values->len >= 5;
    if (!cusp && !occupancy && sw.warps_vary < 0) {
      fprintf(stderr, "--plot: a throughput plot needs --vary warps_per_sm\n");
      status = 2;
      goto out;
    }
  }
  guint64 total = 1;
  for (guint i = 0; i < sw.varies->len; i++)
    total *= ((SmVary *)g_ptr_array_index(sw.varies, i))->values->len;
  if (total > MAX_POINTS) {
    fprintf(stderr, "--vary: %" G_GUINT64_FORMAT " runs, more than the %u allowed\n", total,
            MAX_POINTS);
    status = 2;
    goto out;
  }
  if (!cfg_run_source_init(&src, argv[1], argv[2], &error)) {
    status = sm_cli_fail(error);
    goto out;
  }
  make_points(&sw);
  sw.results = g_new0(SmPointResult, sw.points->len);
  if (!sm_batch_run(&src, (const char *const *)sets, sw.points, (guint)jobs, "sweep", sw.results,
                    &error)) {
    status = sm_cli_fail(error);
    goto out;
  }
  curves = make_curves(&sw);
  if (csv == NULL && json == NULL)
    print_points(&sw, out);
  else
    g_string_append_printf(out, "%u runs\n", sw.points->len);
  if (sw.warps_vary >= 0)
    print_curves(&sw, curves, out);
  if (csv) {
    g_autofree char *text = sweep_csv(&sw);
    if ((status = write_file(csv, text)) != 0)
      goto out;
    g_string_append_printf(out, "wrote %s\n", csv);
  }
  if (json) {
    g_autofree char *text = sweep_json(&sw, curves);
    if ((status = write_file(json, text)) != 0)
      goto out;
    g_string_append_printf(out, "wrote %s\n", json);
  }
  if (plot_path) {
    CfgGpu *g = NULL;
    CfgKernel *k = NULL;
    if (!cfg_load_run_text(&src, (const char *const *)sets, NULL, &g, &k, &error)) {
      status = sm_cli_fail(error);
      goto out;
    }
    g_autoptr(SmPlot) plot = occupancy ? occupancy_plot(&sw, g->name)
                             : cusp    ? cusp_plot(&sw, curves, g->name, g->limits.max_warps)
                                       : throughput_plot(&sw, curves, g->name);
    cfg_gpu_free(g);
    cfg_kernel_free(k);
    if (!sm_plot_write(plot, plot_path, &error)) {
      status = sm_cli_fail(error);
      goto out;
    }
    g_string_append_printf(out, "wrote %s\n", plot_path);
  }
  fputs(out->str, stdout);
out:
  if (curves) {
    g_ptr_array_set_free_func(curves, curve_free);
    g_ptr_array_free(curves, TRUE);
  }
  cfg_run_source_clear(&src);
  if (sw.points)
    g_ptr_array_free(sw.points, TRUE);
  if (sw.index)
    g_array_free(sw.index, TRUE);
  g_free(sw.results);
  g_ptr_array_free(sw.varies, TRUE);
  return status;
}
