/* Sweeps: --vary values, points, curves and their plots.  Runs go through batch.c; nothing
 * here prints or writes files. */
#include "sweep.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../stats.h"

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

SmPlot *
sm_sweep_throughput_plot(const SmSweep *sw, GPtrArray *curves, const char *gpu_name)
{
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

/* ---- shards ---- */

gboolean
sm_sweep_parse_shard(const char *text, guint *shard, guint *n_shards, GError **error)
{
  guint64 k = 0, n = 0;
  g_auto(GStrv) parts = g_strsplit(text, "/", -1);
  if (g_strv_length(parts) != 2 || !g_ascii_string_to_unsigned(parts[0], 10, 1, 100000, &k, NULL) ||
      !g_ascii_string_to_unsigned(parts[1], 10, 1, 100000, &n, NULL) || k > n) {
    g_set_error(error, CFG_ERROR, CFG_ERROR_INVALID,
                "--shard %s: expected K/N with 1 <= K <= N <= 100000", text);
    return FALSE;
  }
  *shard = (guint)k;
  *n_shards = (guint)n;
  return TRUE;
}

GArray *
sm_sweep_shard_points(guint n_points, guint shard, guint n_shards)
{
  GArray *a = g_array_new(FALSE, FALSE, sizeof(guint));
  for (guint i = shard - 1; i < n_points; i += n_shards)
    g_array_append_val(a, i);
  return a;
}

char *
sm_sweep_fingerprint(const CfgRunSource *src, const char *const *varies, const char *const *sets)
{
  g_autoptr(GChecksum) sum = g_checksum_new(G_CHECKSUM_SHA256);
  const char *texts[] = {src->gpu_text, src->kernel_text};
  for (guint i = 0; i < G_N_ELEMENTS(texts); i++)
    g_checksum_update(sum, (const guchar *)texts[i], (gssize)strlen(texts[i]) + 1);
  const char *const *lists[] = {varies, sets};
  for (guint l = 0; l < 2; l++) {
    g_checksum_update(sum, (const guchar *)(l ? "set" : "vary"), 4);
    for (guint i = 0; lists[l] && lists[l][i]; i++)
      g_checksum_update(sum, (const guchar *)lists[l][i], (gssize)strlen(lists[l][i]) + 1);
  }
  return g_strndup(g_checksum_get_string(sum), 16);
}

static const char *const row_extra[] = {
    "warps", "theoretical_occupancy", "model_warps", "cuda_guide", "has_model", "compute_bound"};

static void
append_exact(GString *s, double v)
{
  if (isnan(v))
    g_string_append(s, "nan");
  else if (isinf(v))
    g_string_append(s, v > 0 ? "inf" : "-inf");
  else
    g_string_append_printf(s, "%.17g", v);
}

char *
sm_sweep_part_text(const SmSweepPart *part)
{
  GString *s = g_string_new(NULL);
  g_string_append_printf(s, "# smsim sweep part %u/%u\n# fingerprint: %s\n# points: %u\n",
                         part->shard, part->n_shards, part->fingerprint, part->n_points);
  g_string_append_printf(s, "# gpu: %s\n# gpu-name: %s\n# max-warps: %u\n# kernel: %s\n",
                         part->gpu_path, part->gpu_name, part->max_warps, part->kernel_path);
  for (guint i = 0; i < part->varies->len; i++)
    g_string_append_printf(s, "# vary: %s\n", (char *)g_ptr_array_index(part->varies, i));
  for (guint i = 0; i < part->sets->len; i++)
    g_string_append_printf(s, "# set: %s\n", (char *)g_ptr_array_index(part->sets, i));
  g_string_append(s, "point");
  for (guint c = 0; sm_sweep_columns[c]; c++)
    g_string_append_printf(s, ",%s", sm_sweep_columns[c]);
  for (guint c = 0; c < G_N_ELEMENTS(row_extra); c++)
    g_string_append_printf(s, ",%s", row_extra[c]);
  g_string_append_c(s, '\n');
  for (guint r = 0; r < part->index->len; r++) {
    const SmSweepRow *row = &g_array_index(part->rows, SmSweepRow, r);
    g_string_append_printf(s, "%u", g_array_index(part->index, guint, r));
    const double extra[] = {row->warps,       row->theoretical_occupancy,
                            row->model_warps, row->cuda_guide,
                            row->has_model,   row->compute_bound};
    for (guint c = 0; c < SM_SWEEP_N_COLUMNS; c++) {
      g_string_append_c(s, ',');
      append_exact(s, row->v[c]);
    }
    for (guint c = 0; c < G_N_ELEMENTS(extra); c++) {
      g_string_append_c(s, ',');
      append_exact(s, extra[c]);
    }
    g_string_append_c(s, '\n');
  }
  return g_string_free(s, FALSE);
}

void
sm_sweep_part_free(SmSweepPart *part)
{
  if (part == NULL)
    return;
  g_free(part->path);
  g_free(part->fingerprint);
  g_free(part->gpu_path);
  g_free(part->kernel_path);
  g_free(part->gpu_name);
  if (part->varies)
    g_ptr_array_free(part->varies, TRUE);
  if (part->sets)
    g_ptr_array_free(part->sets, TRUE);
  if (part->index)
    g_array_free(part->index, TRUE);
  if (part->rows)
    g_array_free(part->rows, TRUE);
  g_free(part);
}

/* "# KEY: VALUE" -> VALUE when the line has that key. */
static const char *
header_value(const char *line, const char *key)
{
  gsize n = strlen(key);
  if (!g_str_has_prefix(line, "# ") || strncmp(line + 2, key, n) != 0 || line[2 + n] != ':' ||
      line[3 + n] != ' ')
    return NULL;
  return line + 4 + n;
}

static gboolean
part_row(SmSweepPart *part, const char *line, guint lineno, GError **error)
{
  g_auto(GStrv) f = g_strsplit(line, ",", -1);
  guint want = 1 + SM_SWEEP_N_COLUMNS + G_N_ELEMENTS(row_extra);
  if (g_strv_length(f) != want)
    return cfg_fail_at(error, part->path, lineno, 1, "%u fields, expected %u", g_strv_length(f),
                       want);
  guint64 index;
  if (!g_ascii_string_to_unsigned(f[0], 10, 0, part->n_points - 1, &index, NULL))
    return cfg_fail_at(error, part->path, lineno, 1, "point '%s' is not one of 0 to %u", f[0],
                       part->n_points - 1);
  if ((index % part->n_shards) + 1 != part->shard)
    return cfg_fail_at(error, part->path, lineno, 1, "point %s does not belong to shard %u/%u",
                       f[0], part->shard, part->n_shards);
  double x[SM_SWEEP_N_COLUMNS + G_N_ELEMENTS(row_extra)];
  guint col = (guint)strlen(f[0]) + 2;
  for (guint i = 0; i < G_N_ELEMENTS(x); i++) {
    char *end;
    x[i] = g_ascii_strtod(f[i + 1], &end);
    if (f[i + 1][0] == '\0' || *end != '\0')
      return cfg_fail_at(error, part->path, lineno, col, "expected a number, got '%s'", f[i + 1]);
    col += (guint)strlen(f[i + 1]) + 1;
  }
  SmSweepRow row = {0};
  memcpy(row.v, x, sizeof(row.v));
  const double *e = x + SM_SWEEP_N_COLUMNS;
  row.warps = e[0];
  row.theoretical_occupancy = e[1];
  row.model_warps = e[2];
  row.cuda_guide = e[3];
  row.has_model = e[4] != 0;
  row.compute_bound = e[5] != 0;
  guint i = (guint)index;
  g_array_append_val(part->index, i);
  g_array_append_val(part->rows, row);
  return TRUE;
}

SmSweepPart *
sm_sweep_part_read(const char *path, GError **error)
{
  g_autofree char *text = NULL;
  if (!cfg_read_text(path, &text, error))
    return NULL;
  return sm_sweep_part_parse(path, text, error);
}

SmSweepPart *
sm_sweep_part_parse(const char *path, const char *text, GError **error)
{
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  g_autoptr(SmSweepPart) part = g_new0(SmSweepPart, 1);
  part->path = g_strdup(path);
  part->varies = g_ptr_array_new_with_free_func(g_free);
  part->sets = g_ptr_array_new_with_free_func(g_free);
  part->index = g_array_new(FALSE, FALSE, sizeof(guint));
  part->rows = g_array_new(FALSE, FALSE, sizeof(SmSweepRow));
  if (lines[0] == NULL ||
      sscanf(lines[0], "# smsim sweep part %u/%u", &part->shard, &part->n_shards) != 2 ||
      part->shard == 0 || part->shard > part->n_shards || part->n_shards > 100000) {
    cfg_fail_at(error, path, 1, 1,
                "not a part of a sweep (the first line of one reads "
                "'# smsim sweep part K/N')");
    return NULL;
  }
  static const struct {
    const char *key;
    glong offset;
  } texts[] = {{"fingerprint", G_STRUCT_OFFSET(SmSweepPart, fingerprint)},
               {"gpu", G_STRUCT_OFFSET(SmSweepPart, gpu_path)},
               {"gpu-name", G_STRUCT_OFFSET(SmSweepPart, gpu_name)},
               {"kernel", G_STRUCT_OFFSET(SmSweepPart, kernel_path)}};
  guint l = 1;
  for (; lines[l] && lines[l][0] == '#'; l++) {
    const char *v;
    for (guint t = 0; t < G_N_ELEMENTS(texts); t++) {
      if ((v = header_value(lines[l], texts[t].key)) == NULL)
        continue;
      char **slot = G_STRUCT_MEMBER_P(part, texts[t].offset);
      if (*slot != NULL) {
        cfg_fail_at(error, path, l + 1, 1, "a second '%s' line", texts[t].key);
        return NULL;
      }
      *slot = g_strdup(v);
    }
    if ((v = header_value(lines[l], "points")))
      part->n_points = (guint)MIN(g_ascii_strtoull(v, NULL, 10), SM_SWEEP_MAX_POINTS);
    else if ((v = header_value(lines[l], "max-warps")))
      part->max_warps = (guint)g_ascii_strtoull(v, NULL, 10);
    else if ((v = header_value(lines[l], "vary")))
      g_ptr_array_add(part->varies, g_strdup(v));
    else if ((v = header_value(lines[l], "set")))
      g_ptr_array_add(part->sets, g_strdup(v));
  }
  if (part->fingerprint == NULL || part->n_points == 0 || part->varies->len == 0 ||
      part->gpu_name == NULL) {
    cfg_fail_at(error, path, l, 1,
                "the part's header lacks its fingerprint, points, gpu-name or "
                "vary lines");
    return NULL;
  }
  if (lines[l] == NULL || !g_str_has_prefix(lines[l], "point,")) {
    cfg_fail_at(error, path, l + 1, 1, "expected the column line 'point,...'");
    return NULL;
  }
  for (l++; lines[l]; l++) {
    if (lines[l][0] == '\0')
      continue;
    if (!part_row(part, lines[l], l + 1, error))
      return NULL;
  }
  return g_steal_pointer(&part);
}

SmSweep *
sm_sweep_merge(GPtrArray *parts, GError **error)
{
  const SmSweepPart *first = g_ptr_array_index(parts, 0);
  g_autofree const SmSweepPart **by_shard = g_new0(const SmSweepPart *, first->n_shards);
  for (guint i = 0; i < parts->len; i++) {
    const SmSweepPart *p = g_ptr_array_index(parts, i);
    if (strcmp(p->fingerprint, first->fingerprint) != 0 || p->n_shards != first->n_shards ||
        p->n_points != first->n_points) {
      g_set_error(error, CFG_ERROR, CFG_ERROR_INVALID,
                  "%s: part of another sweep (fingerprint %s, %u shards, %u points; %s has %s, "
                  "%u shards, %u points)",
                  p->path, p->fingerprint, p->n_shards, p->n_points, first->path,
                  first->fingerprint, first->n_shards, first->n_points);
      return NULL;
    }
    if (by_shard[p->shard - 1] != NULL) {
      g_set_error(error, CFG_ERROR, CFG_ERROR_INVALID, "%s: shard %u/%u again (also %s)", p->path,
                  p->shard, p->n_shards, by_shard[p->shard - 1]->path);
      return NULL;
    }
    by_shard[p->shard - 1] = p;
  }
  g_autoptr(GString) missing = g_string_new(NULL);
  for (guint k = 0; k < first->n_shards; k++)
    if (by_shard[k] == NULL)
      g_string_append_printf(missing, "%s%u", missing->len ? ", " : "", k + 1);
  if (missing->len) {
    g_set_error(error, CFG_ERROR, CFG_ERROR_INVALID, "shard%s %s of %u missing",
                strchr(missing->str, ',') ? "s" : "", missing->str, first->n_shards);
    return NULL;
  }
  g_autoptr(SmSweep) sw = sm_sweep_new();
  for (guint i = 0; i < first->varies->len; i++) {
    SmVary *v = sm_vary_parse(g_ptr_array_index(first->varies, i), error);
    if (v == NULL || !sm_sweep_add_vary(sw, v, error)) {
      g_prefix_error(error, "%s: ", first->path);
      return NULL;
    }
  }
  sm_sweep_make_points(sw);
  if (sw->points->len != first->n_points) {
    g_set_error(error, CFG_ERROR, CFG_ERROR_INVALID, "%s: %u points, but its --vary lines make %u",
                first->path, first->n_points, sw->points->len);
    return NULL;
  }
  sw->rows = g_new0(SmSweepRow, sw->points->len);
  g_autofree gboolean *seen = g_new0(gboolean, sw->points->len);
  for (guint i = 0; i < parts->len; i++) {
    const SmSweepPart *p = g_ptr_array_index(parts, i);
    for (guint r = 0; r < p->index->len; r++) {
      guint at = g_array_index(p->index, guint, r);
      if (seen[at]) {
        g_set_error(error, CFG_ERROR, CFG_ERROR_INVALID, "%s: point %u twice", p->path, at);
        return NULL;
      }
      seen[at] = TRUE;
      sw->rows[at] = g_array_index(p->rows, SmSweepRow, r);
    }
  }
  for (guint at = 0; at < sw->points->len; at++) {
    if (!seen[at]) {
      guint k = at % first->n_shards;
      g_set_error(error, CFG_ERROR, CFG_ERROR_INVALID, "%s: point %u is missing (a cut-off part?)",
                  by_shard[k]->path, at);
      return NULL;
    }
  }
  return g_steal_pointer(&sw);
}
