/* Sweeps: --vary values, points, curves and their plots.  Runs go through batch.c; nothing
 * here prints or writes files. */
#include "sweep.h"

#include <math.h>
#include <string.h>

#include "../sm/stats.h"

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
    if (count > SM_SWEEP_MAX_POINTS) {
      vary_fail(error, key, "'%s' has more than %u values", spec, SM_SWEEP_MAX_POINTS);
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

SmSweep *
sm_sweep_new(void)
{
  SmSweep *sw = g_new0(SmSweep, 1);
  sw->varies = g_ptr_array_new_with_free_func((GDestroyNotify)sm_vary_free);
  sw->warps_vary = sw->alpha_vary = -1;
  return sw;
}

void
sm_sweep_free(SmSweep *sw)
{
  if (sw == NULL)
    return;
  if (sw->points)
    g_ptr_array_free(sw->points, TRUE);
  if (sw->left_out)
    g_ptr_array_free(sw->left_out, TRUE);
  if (sw->index)
    g_array_free(sw->index, TRUE);
  g_free(sw->rows);
  g_ptr_array_free(sw->varies, TRUE);
  g_free(sw);
}

gboolean
sm_sweep_add_vary(SmSweep *sw, SmVary *v, GError **error)
{
  for (guint j = 0; j < sw->varies->len; j++) {
    if (strcmp(((SmVary *)g_ptr_array_index(sw->varies, j))->key, v->key) == 0) {
      g_set_error(error, CFG_ERROR, CFG_ERROR_INVALID, "--vary %s: given twice", v->key);
      sm_vary_free(v);
      return FALSE;
    }
  }
  if (sw->varies->len >= SM_SWEEP_MAX_VARIES) {
    g_set_error(error, CFG_ERROR, CFG_ERROR_INVALID, "--vary: at most %u keys",
                SM_SWEEP_MAX_VARIES);
    sm_vary_free(v);
    return FALSE;
  }
  guint64 total = v->values->len;
  for (guint i = 0; i < sw->varies->len; i++)
    total *= ((SmVary *)g_ptr_array_index(sw->varies, i))->values->len;
  if (total > SM_SWEEP_MAX_POINTS) {
    g_set_error(error, CFG_ERROR, CFG_ERROR_INVALID,
                "--vary: %" G_GUINT64_FORMAT " runs, more than the %u allowed", total,
                SM_SWEEP_MAX_POINTS);
    sm_vary_free(v);
    return FALSE;
  }
  if (strcmp(v->key, "warps_per_sm") == 0)
    sw->warps_vary = (int)sw->varies->len;
  if (strcmp(v->key, "alpha") == 0)
    sw->alpha_vary = (int)sw->varies->len;
  g_ptr_array_add(sw->varies, v);
  return TRUE;
}

const char *
sm_sweep_value(const SmSweep *sw, guint point, guint vary)
{
  const SmVary *v = g_ptr_array_index(sw->varies, vary);
  guint vi = g_array_index(sw->index, guint, point * sw->varies->len + vary);
  return g_ptr_array_index(v->values, vi);
}

void
sm_sweep_make_points(SmSweep *sw)
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

gboolean
sm_sweep_drop_impossible(SmSweep *sw, const CfgRunSource *src, const char *const *sets,
                         GPtrArray *dropped, GError **error)
{
  GError *first = NULL;
  guint nv = sw->varies->len, kept = 0, n = sw->points->len;
  for (guint p = 0; p < n; p++) {
    char **point = g_ptr_array_index(sw->points, kept);
    CfgGpu *g = NULL;
    CfgKernel *k = NULL;
    GError *e = NULL;
    if (cfg_load_run_text(src, sets, (const char *const *)point, &g, &k, &e)) {
      cfg_gpu_free(g);
      cfg_kernel_free(k);
      kept++;
      continue;
    }
    if (!g_error_matches(e, CFG_ERROR, CFG_ERROR_IMPOSSIBLE)) {
      g_clear_error(&first);
      g_propagate_error(error, e);
      return FALSE;
    }
    g_autofree char *where = g_strjoinv(" ", point);
    g_ptr_array_add(dropped, g_strdup_printf("%s: left out, it cannot run: %s", where, e->message));
    if (first == NULL)
      first = e;
    else
      g_error_free(e);
    if (sw->left_out == NULL)
      sw->left_out = g_ptr_array_new_with_free_func((GDestroyNotify)g_strfreev);
    g_ptr_array_add(sw->left_out, g_ptr_array_steal_index(sw->points, kept));
    g_array_remove_range(sw->index, kept * nv, nv);
  }
  if (kept == 0) { /* nothing left to run: the first reason is the error */
    g_propagate_error(error, first);
    return FALSE;
  }
  g_clear_error(&first);
  return TRUE;
}

const char *const sm_sweep_columns[] = {"cycles",
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

void
sm_sweep_row_from_result(const SmPointResult *r, SmSweepRow *row)
{
  SmSummary m;
  sm_summary_compute(&r->stats, &m);
  double *out = row->v;
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
  row->warps = r->warps;
  row->theoretical_occupancy = m.theoretical_occupancy;
  row->has_model = r->has_model;
  row->model_warps = r->has_model ? r->model.warps_needed : NAN;
  row->cuda_guide = r->has_model ? r->model.cuda_guide : NAN;
  row->compute_bound =
      r->has_model && (strcmp(r->model.bound, "alu") == 0 || strcmp(r->model.bound, "issue") == 0);
}

static void
curve_free(gpointer p)
{
  SmCurve *c = p;
  g_free(c->label);
  g_array_free(c->points, TRUE);
  g_free(c);
}

static const double fractions[2] = {0.90, 0.95};

static double
warps_to_reach(const SmSweep *sw, const SmCurve *c, double target)
{
  for (guint i = 0; i < c->points->len; i++) {
    guint p = g_array_index(c->points, guint, i);
    if (sw->rows[p].v[1] >= target)
      return sw->rows[p].warps;
  }
  return NAN;
}

GPtrArray *
sm_sweep_curves(const SmSweep *sw)
{
  GPtrArray *curves = g_ptr_array_new_with_free_func(curve_free);
  GHashTable *by_label = g_hash_table_new(g_str_hash, g_str_equal);
  for (guint p = 0; p < sw->points->len; p++) {
    GString *label = g_string_new(NULL);
    for (guint i = 0; i < sw->varies->len; i++) {
      if ((int)i == sw->warps_vary)
        continue;
      g_string_append_printf(label, "%s%s=%s", label->len ? " " : "",
                             ((SmVary *)g_ptr_array_index(sw->varies, i))->key,
                             sm_sweep_value(sw, p, i));
    }
    if (label->len == 0)
      g_string_append(label, "all");
    SmCurve *c = g_hash_table_lookup(by_label, label->str);
    if (c == NULL) {
      c = g_new0(SmCurve, 1);
      c->label = g_strdup(label->str);
      c->points = g_array_new(FALSE, FALSE, sizeof(guint));
      g_ptr_array_add(curves, c);
      g_hash_table_insert(by_label, c->label, c);
    }
    g_string_free(label, TRUE);
    /* keep warps order */
    guint at = c->points->len;
    while (at > 0 && sw->rows[g_array_index(c->points, guint, at - 1)].warps > sw->rows[p].warps)
      at--;
    g_array_insert_val(c->points, at, p);
  }
  g_hash_table_destroy(by_label);
  for (guint i = 0; i < curves->len; i++) {
    SmCurve *c = g_ptr_array_index(curves, i);
    c->max_ipc = 0;
    c->peak_ipc = NAN;
    c->model_warps = NAN;
    c->cuda_guide = NAN;
    for (guint j = 0; j < c->points->len; j++) {
      const SmSweepRow *r = &sw->rows[g_array_index(c->points, guint, j)];
      c->max_ipc = MAX(c->max_ipc, r->v[1]);
      if (r->has_model) {
        c->peak_ipc = r->v[9];
        c->model_warps = r->model_warps;
        c->cuda_guide = r->cuda_guide;
        c->compute_bound = r->compute_bound;
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

gboolean
sm_sweep_plot_y(const SmSweep *sw, const char *spec, const char *const *sets, SmPlotY *out,
                GError **error)
{
  *out = (SmPlotY){0};
  g_auto(GStrv) parts = g_strsplit(spec, "/", 2);
  guint c = 0;
  while (sm_sweep_columns[c] && strcmp(sm_sweep_columns[c], parts[0]) != 0)
    c++;
  if (sm_sweep_columns[c] == NULL) {
    g_autofree char *known = g_strjoinv(", ", (char **)sm_sweep_columns);
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "--plot-y %s: '%s' is not a column (%s), optionally /KEY", spec, parts[0], known);
    return FALSE;
  }
  out->column = c;
  if (parts[1] == NULL) {
    out->label = g_strdup(parts[0]);
    return TRUE;
  }
  const char *key = parts[1];
  int vary = -1;
  for (guint v = 0; v < sw->varies->len; v++)
    if (strcmp(((SmVary *)g_ptr_array_index(sw->varies, v))->key, key) == 0)
      vary = (int)v;
  const char *fixed = NULL;
  gsize klen = strlen(key);
  for (guint i = 0; vary < 0 && sets && sets[i]; i++)
    if (strncmp(sets[i], key, klen) == 0 && sets[i][klen] == '=')
      fixed = sets[i] + klen + 1; /* the last one wins, as for --set */
  if (vary < 0 && fixed == NULL) {
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "--plot-y %s: %s is neither varied nor set (give it with --vary or --set)", spec,
                key);
    return FALSE;
  }
  out->divisor = g_new(double, MAX(sw->points->len, 1u));
  for (guint p = 0; p < sw->points->len; p++) {
    const char *text = vary >= 0 ? sm_sweep_value(sw, p, (guint)vary) : fixed;
    char *end;
    double d = g_ascii_strtod(text, &end);
    if (*end != '\0' || end == text || !(d > 0) || !isfinite(d)) {
      g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                  "--plot-y %s: %s=%s is not a positive number", spec, key, text);
      sm_plot_y_clear(out);
      return FALSE;
    }
    out->divisor[p] = d;
  }
  out->label = g_strdup_printf("%s / %s", parts[0], key);
  return TRUE;
}

void
sm_plot_y_clear(SmPlotY *y)
{
  g_clear_pointer(&y->divisor, g_free);
  g_clear_pointer(&y->label, g_free);
}

SmPlot *
sm_sweep_throughput_plot(const SmSweep *sw, GPtrArray *curves, const char *gpu_name,
                         const SmPlotY *y)
{
  if (y && (y->column != 1 || y->divisor)) {
    g_autofree char *title = g_strdup_printf("%s against occupancy, %s", y->label, gpu_name);
    SmPlot *plot = sm_plot_new(title, "warps per SM", y->label);
    for (guint i = 0; i < curves->len; i++) {
      const SmCurve *c = g_ptr_array_index(curves, i);
      SmPlotSeries *s = sm_plot_add(plot, c->label, SM_PLOT_LINE, i);
      for (guint j = 0; j < c->points->len; j++) {
        guint p = g_array_index(c->points, guint, j);
        double v = sw->rows[p].v[y->column];
        if (isfinite(v))
          sm_plot_point(s, sw->rows[p].warps, y->divisor ? v / y->divisor[p] : v);
      }
    }
    return plot;
  }
  g_autofree char *title = g_strdup_printf("Throughput against occupancy, %s", gpu_name);
  SmPlot *plot = sm_plot_new(title, "warps per SM", "IPC per SM (warp-instructions/cycle)");
  for (guint i = 0; i < curves->len; i++) {
    const SmCurve *c = g_ptr_array_index(curves, i);
    SmPlotSeries *s = sm_plot_add(plot, c->label, SM_PLOT_LINE, i);
    g_autofree char *ml = g_strdup_printf("model, %s", c->label);
    SmPlotSeries *m =
        sm_plot_add(plot, curves->len == 1 ? "Volkov's model" : (i == 0 ? "models (thin)" : ""),
                    SM_PLOT_THIN, i);
    for (guint j = 0; j < c->points->len; j++) {
      guint p = g_array_index(c->points, guint, j);
      sm_plot_point(s, sw->rows[p].warps, sw->rows[p].v[1]);
      if (sw->rows[p].has_model)
        sm_plot_point(m, sw->rows[p].warps, sw->rows[p].v[10]);
    }
  }
  return plot;
}

SmPlot *
sm_sweep_cusp_plot(const SmSweep *sw, GPtrArray *curves, const char *gpu_name, guint max_warps)
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
    const SmCurve *c = g_ptr_array_index(curves, i);
    guint p = g_array_index(c->points, guint, 0);
    double alpha = g_ascii_strtod(sm_sweep_value(sw, p, (guint)sw->alpha_vary), NULL);
    sm_plot_point(sim, alpha, c->warps_peak[0]);
    sm_plot_point(dots, alpha, c->warps_peak[0]);
    sm_plot_point(model, alpha, 0.9 * c->model_warps);
    /* the guide's estimate is meant for compute-bound code only (thesis section 4.8) */
    if (c->compute_bound)
      sm_plot_point(guide, alpha, c->cuda_guide);
  }
  return plot;
}

SmPlot *
sm_sweep_occupancy_plot(const SmSweep *sw, const char *gpu_name)
{
  const SmVary *v = g_ptr_array_index(sw->varies, 0);
  g_autofree char *title = g_strdup_printf("Occupancy and throughput, %s", gpu_name);
  SmPlot *plot = sm_plot_new(title, v->key, "fraction");
  SmPlotSeries *th = sm_plot_add(plot, "theoretical occupancy", SM_PLOT_THIN, 10);
  SmPlotSeries *ac = sm_plot_add(plot, "achieved occupancy", SM_PLOT_LINE, 0);
  SmPlotSeries *ipc = sm_plot_add(plot, "IPC / best IPC", SM_PLOT_DASHED, 1);
  double best = 0;
  for (guint p = 0; p < sw->points->len; p++)
    best = MAX(best, sw->rows[p].v[1]);
  for (guint p = 0; p < sw->points->len; p++) {
    double x = g_ascii_strtod(sm_sweep_value(sw, p, 0), NULL);
    sm_plot_point(th, x, sw->rows[p].theoretical_occupancy);
    sm_plot_point(ac, x, sw->rows[p].v[7]);
    sm_plot_point(ipc, x, best > 0 ? sw->rows[p].v[1] / best : 0);
  }
  return plot;
}

/* The points (and left_out) and curves: what `smsim sweep --json` prints and the lab's sweeps
 * return (serve/). */
JsonNode *
sm_sweep_json(const SmSweep *sw, GPtrArray *curves)
{
  g_autoptr(JsonBuilder) b = json_builder_new();
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "points");
  json_builder_begin_array(b);
  for (guint p = 0; p < sw->points->len; p++) {
    json_builder_begin_object(b);
    for (guint i = 0; i < sw->varies->len; i++) {
      json_builder_set_member_name(b, ((SmVary *)g_ptr_array_index(sw->varies, i))->key);
      json_builder_add_string_value(b, sm_sweep_value(sw, p, i));
    }
    const double *n = sw->rows[p].v;
    for (guint c = 0; sm_sweep_columns[c]; c++) {
      json_builder_set_member_name(b, sm_sweep_columns[c]);
      if (isnan(n[c]))
        json_builder_add_null_value(b);
      else
        json_builder_add_double_value(b, n[c]);
    }
    json_builder_end_object(b);
  }
  json_builder_end_array(b);
  /* the points this GPU cannot run: their values */
  json_builder_set_member_name(b, "left_out");
  json_builder_begin_array(b);
  for (guint p = 0; sw->left_out && p < sw->left_out->len; p++) {
    char **point = g_ptr_array_index(sw->left_out, p);
    json_builder_begin_object(b);
    for (guint i = 0; point[i]; i++) {
      const char *eq = strchr(point[i], '=');
      g_autofree char *key = eq ? g_strndup(point[i], (gsize)(eq - point[i])) : g_strdup(point[i]);
      json_builder_set_member_name(b, key);
      json_builder_add_string_value(b, eq ? eq + 1 : "");
    }
    json_builder_end_object(b);
  }
  json_builder_end_array(b);
  json_builder_set_member_name(b, "curves");
  json_builder_begin_array(b);
  for (guint i = 0; i < curves->len; i++) {
    const SmCurve *c = g_ptr_array_index(curves, i);
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
  return json_builder_get_root(b);
}
