/* The lab's answers: runs and sweeps within the server's bounds, a pasted GPU checked, refusals
 * as JSON (lab.h).  The catalogue is catalogue.c's, the requests request.c's; not HTTP
 * (server.c). */
#include <math.h>
#include <string.h>

#include "../sm.h"
#include "../study/batch.h"
#include "../study/explain.h"
#include "../study/model.h"
#include "../study/runjson.h"
#include "../study/sweep.h"
#include "lab-internal.h"

G_DEFINE_QUARK(smsim - lab - error - quark, sm_lab_error)

gboolean
sm_lab_fail(GError **error, SmLabErrorCode code, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  g_autofree char *msg = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  g_set_error_literal(error, SM_LAB_ERROR, code, msg);
  return FALSE;
}

gboolean
sm_lab_bad_file(GError **error, GError *local, const char *path, const char *name)
{
  if (path && g_str_has_prefix(local->message, path)) {
    char *msg = g_strdup_printf("%s.yaml%s", name, local->message + strlen(path));
    g_free(local->message);
    local->message = msg;
  }
  gboolean r = sm_lab_fail(error, SM_LAB_ERROR_BAD_REQUEST, "%s", local->message);
  g_error_free(local);
  return r;
}

JsonNode *
sm_lab_gpu(const SmLab *lab, const char *body, gsize length, GError **error)
{
  g_auto(SmLabRequest) r = {0};
  if (!sm_lab_read_request(lab, "gpu", body, length, &r, error))
    return NULL;
  GError *local = NULL;
  g_autoptr(CfgNode) root = cfg_load_string(r.src.gpu_path, r.src.gpu_text, &local);
  if (root == NULL)
    return sm_lab_bad_file(error, local, NULL, NULL), NULL;
  g_autoptr(CfgGpu) gpu = cfg_gpu_load(root, &local);
  if (gpu == NULL)
    return sm_lab_bad_file(error, local, NULL, NULL), NULL;
  return sm_lab_gpu_json("pasted", gpu);
}

/* Runs @sm within the lab's bounds; FALSE with an error saying which stopped it. */
static gboolean
run_bounded(const SmLab *lab, SmGpu *sm, const SmRunBounds *bounds, const char *what,
            GError **error)
{
  switch (sm_run_bounded(sm, lab->limits.max_cycles, bounds)) {
  case SM_RUN_FINISHED:
    if (sm_error(sm))
      return sm_lab_fail(error, SM_LAB_ERROR_BAD_REQUEST, "%s: %s", what, sm_error(sm)->message);
    return TRUE;
  case SM_RUN_MAX_CYCLES:
    return sm_lab_fail(error, SM_LAB_ERROR_LIMIT,
                       "%s reached %" G_GUINT64_FORMAT
                       " simulated cycles unfinished, the most this server runs (smsim serve "
                       "--max-cycles); ask for less work (fewer groups or iterations)",
                       what, lab->limits.max_cycles);
  case SM_RUN_DEADLINE:
    return sm_lab_fail(
        error, SM_LAB_ERROR_LIMIT,
        "%s took more than %g s of the server's time (at cycle %" G_GUINT64_FORMAT
        "), the most it gives a request (smsim serve --max-seconds); ask for less work",
        what, lab->limits.max_seconds, sm_now(sm));
  case SM_RUN_CANCELLED:
  case SM_RUN_STOPPED:
    break;
  }
  return sm_lab_fail(error, SM_LAB_ERROR_CANCELLED, "%s: cancelled", what);
}

static SmRunBounds
bounds_from_now(const SmLab *lab, const gint *cancel)
{
  return (SmRunBounds){.cancel = cancel,
                       .deadline = g_get_monotonic_time() +
                                   (gint64)(lab->limits.max_seconds * G_USEC_PER_SEC)};
}

/* One number against its peak: {"value", "peak", "share"} (peak and share null where the GPU
 * sets none). */
static void
put_against(JsonBuilder *b, const char *member, double value, double peak)
{
  json_builder_set_member_name(b, member);
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "value");
  json_builder_add_double_value(b, value);
  json_builder_set_member_name(b, "peak");
  if (isfinite(peak) && peak > 0)
    json_builder_add_double_value(b, peak);
  else
    json_builder_add_null_value(b);
  json_builder_set_member_name(b, "share");
  if (isfinite(peak) && peak > 0)
    json_builder_add_double_value(b, value / peak);
  else
    json_builder_add_null_value(b);
  json_builder_end_object(b);
}

/* The run's IPC, issue slots and each memory level's bytes a cycle against the GPU's peaks. */
static void
put_peaks(JsonBuilder *b, const CfgGpu *gpu, JsonNode *run)
{
  double ipc = 0, v;
  sm_json_lookup_number(run, "ipc.total", &ipc);
  json_builder_set_member_name(b, "against_peaks");
  json_builder_begin_object(b);
  put_against(b, "ipc", ipc, sm_model_issue_peak(gpu));
  double slots = 0;
  guint n = 0;
  for (; n < 64; n++) {
    g_autofree char *path = g_strdup_printf("issue_slot_utilisation.%u", n);
    if (!sm_json_lookup_number(run, path, &v))
      break;
    slots += v;
  }
  put_against(b, "issue_slots", n ? slots / n : 0, 1);
  json_builder_set_member_name(b, "bytes_per_cycle");
  json_builder_begin_object(b);
  for (guint l = 0; l < gpu->memory.n_levels; l++) {
    const CfgMemLevel *lv = &gpu->memory.levels[l];
    g_autofree char *path = g_strdup_printf("memory.levels.%s.bytes_per_cycle", lv->name);
    v = 0;
    sm_json_lookup_number(run, path, &v);
    put_against(b, lv->name, v, lv->bytes_per_cycle);
  }
  json_builder_end_object(b);
  json_builder_end_object(b);
}

/* cairo numbers the surfaces of a process in one sequence ("surface6" in the fifth SVG drawn):
 * numbered again from 1 in each document, the same request gives the same bytes as the first,
 * and as the command line's file. */
static gboolean
renumber_surface(const GMatchInfo *match, GString *out, gpointer data)
{
  GHashTable *ids = data;
  g_autofree char *old = g_match_info_fetch(match, 1);
  gpointer id = g_hash_table_lookup(ids, old);
  if (id == NULL) {
    id = GUINT_TO_POINTER(g_hash_table_size(ids) + 1);
    g_hash_table_insert(ids, g_strdup(old), id);
  }
  g_string_append_printf(out, "surface%u", GPOINTER_TO_UINT(id));
  return FALSE;
}

static void
put_svg(JsonBuilder *b, const char *member, GBytes *svg)
{
  static GRegex *surface; /* made once: GRegex is safe to share between threads */
  if (g_once_init_enter(&surface))
    g_once_init_leave(&surface, g_regex_new("surface([0-9]+)", G_REGEX_OPTIMIZE, 0, NULL));
  gsize n;
  const char *data = g_bytes_get_data(svg, &n);
  g_autoptr(GHashTable) ids = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  g_autofree char *text =
      g_regex_replace_eval(surface, data, (gssize)n, 0, 0, renumber_surface, ids, NULL);
  json_builder_set_member_name(b, member);
  json_builder_add_string_value(b, text ? text : "");
}

JsonNode *
sm_lab_run(const SmLab *lab, const char *body, gsize length, const gint *cancel, GError **error)
{
  gint64 start = g_get_monotonic_time();
  SmRunBounds bounds = bounds_from_now(lab, cancel);
  g_auto(SmLabRequest) r = {0};
  CfgGpu *gpu = NULL;
  CfgKernel *kernel = NULL;
  if (!sm_lab_read_request(lab, "run", body, length, &r, error) ||
      !sm_lab_load(&r, NULL, &gpu, &kernel, error))
    return NULL;
  g_autoptr(CfgGpu) g = gpu;
  g_autoptr(CfgKernel) k = kernel;
  g_autoptr(SmGpu) sm = sm_new(g, k);
  TraceSink *sink = NULL;
  if (r.picture) {
    TraceOptions opts = {.from = 0, .to = G_MAXUINT64, .max_bytes = 64u << 20};
    sink = trace_sink_open_memory("timeline.svg", &opts, error);
    if (sink == NULL || !sm_attach_trace(sm, sink, error)) {
      trace_sink_free(sink);
      return NULL;
    }
  }
  if (!run_bounded(lab, sm, &bounds, "the run", error)) {
    trace_sink_free(sink);
    return NULL;
  }
  g_autoptr(GBytes) svg = NULL;
  if (sink) {
    gboolean ok = trace_sink_finish(sink, sm_stats(sm)->cycles, error);
    if (ok)
      svg = trace_sink_take_memory(sink);
    trace_sink_free(sink);
    if (!ok)
      return NULL;
  }
  g_autoptr(JsonBuilder) b = json_builder_new();
  json_builder_begin_object(b);
  JsonNode *run = sm_run_json(g, k, sm_stats(sm));
  put_peaks(b, g, run);
  json_builder_set_member_name(b, "run");
  json_builder_add_value(b, run);
  if (svg)
    put_svg(b, "picture_svg", svg);
  /* the GPU as this run has it (its keys after "set"): peaks to hold the results against */
  json_builder_set_member_name(b, "gpu");
  json_builder_add_value(b, sm_lab_gpu_json(r.gpu_name, g));
  SmModelPoint m;
  g_autoptr(GPtrArray) lines = NULL;
  json_builder_set_member_name(b, "littles_law");
  json_builder_begin_array(b);
  if (sm_explain_littles_law(g, k, &m, &lines))
    for (guint i = 0; i < lines->len; i++) {
      const SmLittle *l = g_ptr_array_index(lines, i);
      json_builder_begin_object(b);
      json_builder_set_member_name(b, "name");
      json_builder_add_string_value(b, l->name);
      json_builder_set_member_name(b, "warps");
      json_builder_add_double_value(b, l->warps);
      json_builder_set_member_name(b, "how");
      json_builder_add_string_value(b, l->how);
      json_builder_end_object(b);
    }
  json_builder_end_array(b);
  json_builder_set_member_name(b, "seconds");
  json_builder_add_double_value(b, (double)(g_get_monotonic_time() - start) / G_USEC_PER_SEC);
  json_builder_end_object(b);
  return json_builder_get_root(b);
}

/* The varied values of the run's own setting: "KEY=VALUE" of @r's sets, or NULL. */
static const char *
set_value(const SmLabRequest *r, const char *key)
{
  gsize n = strlen(key);
  for (guint i = 0; r->sets->pdata[i]; i++) {
    const char *s = r->sets->pdata[i];
    if (strncmp(s, key, n) == 0 && s[n] == '=')
      return s + n + 1;
  }
  return NULL;
}

/* Draws the point of the run's own setting (its warps and the varied key's value) on @plot. */
static void
mark_setting(SmPlot *plot, const SmSweep *sw, const SmLabRequest *r, const CfgKernel *kernel)
{
  guint warps = kernel->warps_per_sm;
  const char *vary_value = r->vary_key ? set_value(r, r->vary_key) : NULL;
  for (guint p = 0; p < sw->points->len; p++) {
    if (sw->rows[p].warps != warps)
      continue;
    if (r->vary_key) {
      /* with another key varied, the point of the setting's value (as set, else none) */
      if (vary_value == NULL || strcmp(sm_sweep_value(sw, p, 0), vary_value) != 0)
        continue;
    }
    SmPlotSeries *s = sm_plot_add(plot, "this setting", SM_PLOT_DOTS, 7);
    sm_plot_point(s, sw->rows[p].warps, sw->rows[p].v[1]);
    return;
  }
}

JsonNode *
sm_lab_sweep(const SmLab *lab, const char *body, gsize length, const gint *cancel, GError **error)
{
  gint64 start = g_get_monotonic_time();
  SmRunBounds bounds = bounds_from_now(lab, cancel);
  g_auto(SmLabRequest) r = {0};
  CfgGpu *gpu = NULL;
  CfgKernel *kernel = NULL;
  if (!sm_lab_read_request(lab, "sweep", body, length, &r, error) ||
      !sm_lab_load(&r, NULL, &gpu, &kernel, error))
    return NULL;
  g_autoptr(CfgGpu) g = gpu;
  g_autoptr(CfgKernel) k = kernel;
  g_autoptr(SmSweep) sw = sm_sweep_new();
  GError *local = NULL;
  /* the other key first: the curves run over warps, the key that changes fastest */
  g_autofree char *warps_arg = g_strdup_printf("warps_per_sm=%s", r.warps ? r.warps : "1:64");
  if (r.warps == NULL) {
    g_free(warps_arg);
    warps_arg = g_strdup_printf("warps_per_sm=1:%u", g->limits.max_warps);
  }
  g_autofree char *vary_arg =
      r.vary_key ? g_strdup_printf("%s=%s", r.vary_key, r.vary_values) : NULL;
  for (guint i = 0; i < 2; i++) {
    const char *arg = i == 0 ? vary_arg : warps_arg;
    if (arg == NULL)
      continue;
    SmVary *v = sm_vary_parse(arg, &local);
    if (v == NULL || !sm_sweep_add_vary(sw, v, &local))
      return sm_lab_bad_file(error, local, NULL, NULL), NULL;
  }
  sm_sweep_make_points(sw);
  if (sw->points->len > lab->limits.max_sweep_points)
    return sm_lab_fail(error, SM_LAB_ERROR_TOO_LARGE,
                       "the sweep has %u points; this server runs at most %u (smsim serve "
                       "--max-points)",
                       sw->points->len, lab->limits.max_sweep_points),
           NULL;
  g_autoptr(GPtrArray) dropped = g_ptr_array_new_with_free_func(g_free);
  if (!sm_sweep_drop_impossible(sw, &r.src, (const char *const *)r.sets->pdata, dropped, &local))
    return sm_lab_bad_file(error, local, r.src.kernel_path, r.kernel_name), NULL;
  sw->rows = g_new0(SmSweepRow, sw->points->len);
  for (guint p = 0; p < sw->points->len; p++) {
    CfgGpu *pg = NULL;
    CfgKernel *pk = NULL;
    if (!sm_lab_load(&r, g_ptr_array_index(sw->points, p), &pg, &pk, error))
      return NULL;
    g_autoptr(CfgGpu) gp = pg;
    g_autoptr(CfgKernel) kp = pk;
    g_autoptr(SmGpu) sm = sm_new(gp, kp);
    g_autofree char *what = g_strjoinv(" ", g_ptr_array_index(sw->points, p));
    g_autofree char *run_of = g_strdup_printf("the run of %s", what);
    if (!run_bounded(lab, sm, &bounds, run_of, error))
      return NULL;
    SmPointResult res = {.stats = *sm_stats(sm), .warps = kp->warps_per_sm};
    res.has_model = sm_model_mix(gp, kp, &res.model);
    sm_sweep_row_from_result(&res, &sw->rows[p]);
  }
  g_autoptr(GPtrArray) curves = sm_sweep_curves(sw);
  g_autoptr(SmPlot) plot = sm_sweep_throughput_plot(sw, curves, g->name, NULL);
  if (r.mark)
    mark_setting(plot, sw, &r, k);
  g_autoptr(GBytes) svg = sm_plot_svg(plot, error);
  if (svg == NULL)
    return NULL;
  g_autoptr(JsonBuilder) b = json_builder_new();
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "sweep");
  json_builder_add_value(b, sm_sweep_json(sw, curves));
  put_svg(b, "plot_svg", svg);
  json_builder_set_member_name(b, "seconds");
  json_builder_add_double_value(b, (double)(g_get_monotonic_time() - start) / G_USEC_PER_SEC);
  json_builder_end_object(b);
  return json_builder_get_root(b);
}

guint
sm_lab_error_status(const GError *error)
{
  if (error->domain != SM_LAB_ERROR)
    return 500;
  switch ((SmLabErrorCode)error->code) {
  case SM_LAB_ERROR_BAD_REQUEST:
    return 400;
  case SM_LAB_ERROR_NOT_FOUND:
    return 404;
  case SM_LAB_ERROR_TOO_LARGE:
    return 413;
  case SM_LAB_ERROR_LIMIT:
    return 422;
  case SM_LAB_ERROR_CANCELLED:
    return 499;
  case SM_LAB_ERROR_BUSY:
    return 503;
  case SM_LAB_ERROR_METHOD:
    return 405;
  case SM_LAB_ERROR_LENGTH:
    return 411;
  }
  return 500;
}

JsonNode *
sm_lab_error_json(const GError *error)
{
  g_autoptr(JsonBuilder) b = json_builder_new();
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "error");
  json_builder_add_string_value(b, error->message);
  json_builder_set_member_name(b, "status");
  json_builder_add_int_value(b, sm_lab_error_status(error));
  json_builder_end_object(b);
  return json_builder_get_root(b);
}
