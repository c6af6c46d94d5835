/* smsim sweep: options, the points table, the per-curve summary, CSV, JSON and the plot.
 * Not the sweep itself (study/sweep.c) nor the runs (study/batch.c). */
#include "commands.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../study/dist.h"
#include "../study/runjson.h"
#include "../study/sweep.h"
#include "../sm.h"
#include "cli.h"
#include "report.h"

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
sweep_csv(const SmSweep *sw)
{
  GString *s = g_string_new(NULL);
  for (guint i = 0; i < sw->varies->len; i++)
    g_string_append_printf(s, "%s,", ((SmVary *)g_ptr_array_index(sw->varies, i))->key);
  for (guint c = 0; sm_sweep_columns[c]; c++)
    g_string_append_printf(s, "%s%s", sm_sweep_columns[c], sm_sweep_columns[c + 1] ? "," : "\n");
  for (guint p = 0; p < sw->points->len; p++) {
    for (guint i = 0; i < sw->varies->len; i++)
      g_string_append_printf(s, "%s,", sm_sweep_value(sw, p, i));
    const double *nums = sw->rows[p].v;
    for (guint c = 0; sm_sweep_columns[c]; c++) {
      append_number(s, nums[c], (int)c);
      g_string_append(s, sm_sweep_columns[c + 1] ? "," : "\n");
    }
  }
  /* the points this GPU cannot run, after the others: their values, no results */
  for (guint p = 0; sw->left_out && p < sw->left_out->len; p++) {
    char **point = g_ptr_array_index(sw->left_out, p);
    for (guint i = 0; point[i]; i++) {
      const char *eq = strchr(point[i], '=');
      g_string_append_printf(s, "%s,", eq ? eq + 1 : point[i]);
    }
    for (guint c = 0; sm_sweep_columns[c]; c++)
      g_string_append(s, sm_sweep_columns[c + 1] ? "," : "\n");
  }
  return g_string_free(s, FALSE);
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
print_curves(const SmSweep *sw, GPtrArray *curves, GString *out)
{
  guint width = 5;
  for (guint i = 0; i < curves->len; i++)
    width = MAX(width, (guint)strlen(((SmCurve *)g_ptr_array_index(curves, i))->label));
  g_string_append_printf(
      out, "\nwarps per SM needed for 90 %% / 95 %% of the curve's maximum and of the "
           "peak the GPU file gives\n('-': not reached; model: Volkov's Little's-law "
           "warps x 0.90 / 0.95; CUDA guide: mem_lat x alu_thru / alpha, compute-bound only)\n");
  g_string_append_printf(out, "%-*s %9s %6s %6s %9s %6s %6s %6s %6s %6s\n", width, "curve",
                         "max IPC", "90%max", "95%max", "peak IPC", "90%pk", "95%pk", "model90",
                         "model95", "guide");
  for (guint i = 0; i < curves->len; i++) {
    const SmCurve *c = g_ptr_array_index(curves, i);
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
print_points(const SmSweep *sw, GString *out)
{
  for (guint i = 0; i < sw->varies->len; i++)
    g_string_append_printf(out, "%14s ", ((SmVary *)g_ptr_array_index(sw->varies, i))->key);
  g_string_append_printf(out, "%12s %9s %9s %9s %10s %8s %9s\n", "cycles", "IPC", "IPC alu",
                         "B/cycle", "load lat", "occup.", "model");
  for (guint p = 0; p < sw->points->len; p++) {
    for (guint i = 0; i < sw->varies->len; i++)
      g_string_append_printf(out, "%14s ", sm_sweep_value(sw, p, i));
    const double *n = sw->rows[p].v;
    g_string_append_printf(out, "%12.0f %9.4f %9.4f %9.3f %10.1f %8.3f", n[0], n[1], n[2], n[5],
                           n[6], n[7]);
    if (isnan(n[10]))
      g_string_append_printf(out, " %9s\n", "-");
    else
      g_string_append_printf(out, " %9.4f\n", n[10]);
  }
}

/* Which plot the options ask for; on a bad combination prints one line and returns FALSE. */
static gboolean
choose_plot(const SmSweep *sw, const char *plot_path, const char *plot_kind, gboolean *cusp,
            gboolean *occupancy)
{
  *cusp = *occupancy = FALSE;
  if (plot_kind && strcmp(plot_kind, "throughput") != 0 && strcmp(plot_kind, "cusp") != 0 &&
      strcmp(plot_kind, "occupancy") != 0) {
    fprintf(stderr, "--plot-kind %s: must be throughput, cusp or occupancy\n", plot_kind);
    return FALSE;
  }
  if (plot_path == NULL)
    return TRUE;
  gboolean can_cusp = sw->alpha_vary >= 0 && sw->warps_vary >= 0 && sw->varies->len == 2;
  if (plot_kind && strcmp(plot_kind, "cusp") == 0 && !can_cusp) {
    sm_cli_usage_error("--plot-kind cusp: needs exactly --vary alpha and --vary warps_per_sm");
    return FALSE;
  }
  if (plot_kind && strcmp(plot_kind, "throughput") == 0 && sw->warps_vary < 0) {
    sm_cli_usage_error("--plot-kind throughput: needs --vary warps_per_sm");
    return FALSE;
  }
  *occupancy = plot_kind && strcmp(plot_kind, "occupancy") == 0;
  *cusp =
      plot_kind
          ? strcmp(plot_kind, "cusp") == 0
          : can_cusp && ((SmVary *)g_ptr_array_index(sw->varies, sw->alpha_vary))->values->len >= 5;
  if (!*cusp && !*occupancy && sw->warps_vary < 0) {
    sm_cli_usage_error("--plot: a throughput plot needs --vary warps_per_sm");
    return FALSE;
  }
  return TRUE;
}

typedef struct {
  char *csv, *json, *plot_path, *plot_kind;
  gboolean cusp, occupancy;
  SmPlotY *plot_y; /* NULL: IPC */
} Outputs;

/* --plot-y: only for a throughput plot; NULL when not given. */
static gboolean
choose_plot_y(const SmSweep *sw, const Outputs *o, const char *spec, const char *const *sets,
              SmPlotY *y)
{
  if (spec == NULL)
    return TRUE;
  if (o->plot_path == NULL || o->cusp || o->occupancy) {
    sm_cli_usage_error("--plot-y: only for a throughput plot (--plot with --vary warps_per_sm)");
    return FALSE;
  }
  GError *error = NULL;
  if (!sm_sweep_plot_y(sw, spec, sets, y, &error)) {
    sm_cli_fail(error);
    return FALSE;
  }
  return TRUE;
}

/* Most points printed as a table beside --csv or --json */
#define TABLE_WITH_FILES 60

/* The tables on stdout and the files a sweep (or a merge of its parts) writes. */
static int
write_outputs(const SmSweep *sw, const Outputs *o, const char *gpu_name, guint max_warps)
{
  g_autoptr(GPtrArray) curves = sm_sweep_curves(sw);
  g_autoptr(GString) out = g_string_new(NULL);
  /* the points on the terminal too, unless a file holds more of them than a screen shows */
  if ((o->csv == NULL && o->json == NULL) || sw->points->len <= TABLE_WITH_FILES)
    print_points(sw, out);
  else
    g_string_append_printf(out, "%u runs (every point in %s)\n", sw->points->len,
                           o->csv ? o->csv : o->json);
  if (sw->warps_vary >= 0)
    print_curves(sw, curves, out);
  if (o->csv) {
    g_autofree char *text = sweep_csv(sw);
    if (!sm_cli_write_file(o->csv, text))
      return 1;
    g_string_append_printf(out, "wrote %s\n", o->csv);
  }
  if (o->json) {
    g_autoptr(JsonNode) node = sm_sweep_json(sw, curves);
    g_autofree char *text = sm_json_node_text(node);
    if (!sm_cli_write_file(o->json, text))
      return 1;
    g_string_append_printf(out, "wrote %s\n", o->json);
  }
  if (o->plot_path) {
    GError *error = NULL;
    g_autoptr(SmPlot) plot = o->occupancy ? sm_sweep_occupancy_plot(sw, gpu_name)
                             : o->cusp    ? sm_sweep_cusp_plot(sw, curves, gpu_name, max_warps)
                                       : sm_sweep_throughput_plot(sw, curves, gpu_name, o->plot_y);
    if (!sm_plot_write(plot, o->plot_path, &error))
      return sm_cli_write_error(error);
    g_string_append_printf(out, "wrote %s\n", o->plot_path);
  }
  fputs(out->str, stdout);
  return 0;
}

/* Runs shard K/N of the sweep and writes its part file. */
static int
run_shard(const SmSweep *sw, const CfgRunSource *src, char **sets, char **varies, guint jobs,
          guint64 max_cycles, guint shard, guint n_shards, const char *path)
{
  GError *error = NULL;
  g_autoptr(GArray) mine = sm_sweep_shard_points(sw->points->len, shard, n_shards);
  g_autoptr(GPtrArray) points = g_ptr_array_new();
  for (guint i = 0; i < mine->len; i++)
    g_ptr_array_add(points, g_ptr_array_index(sw->points, g_array_index(mine, guint, i)));
  g_autofree SmPointResult *results = g_new0(SmPointResult, MAX(mine->len, 1u));
  SmBatch batch = {.src = src,
                   .sets = (const char *const *)sets,
                   .points = points,
                   .jobs = jobs,
                   .max_cycles = max_cycles,
                   .progress = sm_cli_progress,
                   .progress_data = "sweep shard"};
  if (mine->len > 0 && !sm_dist_batch_run(&batch, results, &error))
    return sm_cli_fail(error);
  if (sm_dist_rank() != 0)
    return 0;
  CfgGpu *g = NULL;
  CfgKernel *k = NULL;
  if (!cfg_load_run_text(src, (const char *const *)sets, NULL, &g, &k, &error))
    return sm_cli_fail(error);
  g_autoptr(CfgGpu) gpu = g;
  g_autoptr(CfgKernel) kernel = k;
  SmSweepPart part = {.shard = shard,
                      .n_shards = n_shards,
                      .n_points = sw->points->len,
                      .fingerprint = sm_sweep_fingerprint(src, (const char *const *)varies,
                                                          (const char *const *)sets),
                      .gpu_path = src->gpu_path,
                      .kernel_path = src->kernel_path,
                      .gpu_name = gpu->name,
                      .max_warps = gpu->limits.max_warps,
                      .varies = g_ptr_array_new(),
                      .sets = g_ptr_array_new(),
                      .index = mine,
                      .rows = g_array_sized_new(FALSE, FALSE, sizeof(SmSweepRow), mine->len)};
  for (guint i = 0; varies[i]; i++)
    g_ptr_array_add(part.varies, varies[i]);
  for (guint i = 0; sets && sets[i]; i++)
    g_ptr_array_add(part.sets, sets[i]);
  for (guint i = 0; i < mine->len; i++) {
    SmSweepRow row;
    sm_sweep_row_from_result(&results[i], &row);
    g_array_append_val(part.rows, row);
  }
  g_autofree char *text = sm_sweep_part_text(&part);
  g_free(part.fingerprint);
  g_ptr_array_free(part.varies, TRUE);
  g_ptr_array_free(part.sets, TRUE);
  g_array_free(part.rows, TRUE);
  if (!sm_cli_write_file(path, text))
    return 1;
  printf("shard %u/%u: %u of %u runs\nwrote %s\n", shard, n_shards, mine->len, sw->points->len,
         path);
  return 0;
}

int
sm_cmd_sweep(int argc, char **argv)
{
  g_auto(GStrv) sets = NULL, varies = NULL;
  g_autofree char *csv = NULL, *json = NULL, *plot_path = NULL, *plot_kind = NULL, *shard = NULL;
  g_autofree char *max_cycles_text = NULL, *plot_y_spec = NULL;
  gint jobs = 0;
  gboolean no_ff = FALSE;
  gint threads_opt = 0;
  guint threads = 1;
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
      {"plot-y", 0, 0, G_OPTION_ARG_STRING, &plot_y_spec,
       "What a throughput plot shows upwards: a CSV column (default ipc_total), optionally "
       "divided by a varied or set key (cycles/elements)",
       "COLUMN[/KEY]"},
      {"jobs", 'j', 0, G_OPTION_ARG_INT, &jobs, "Parallel runs (default: one per core)", "N"},
      {"shard", 0, 0, G_OPTION_ARG_STRING, &shard,
       "Run only shard K of N (points i with i % N = K - 1) and write a part file with --csv; "
       "smsim merge joins the parts",
       "K/N"},
      {"max-cycles", 0, 0, G_OPTION_ARG_STRING, &max_cycles_text,
       "A run that reaches this many cycles fails the sweep (default 10^12)", "N"},
      SM_CLI_NO_FAST_FORWARD(no_ff),
      SM_CLI_THREADS(threads_opt),
      {NULL, 0, 0, 0, NULL, NULL, NULL}};
  if (!sm_cli_parse("sweep", "GPU.yaml KERNEL.yaml - run a kernel over a grid of settings", entries,
                    &argc, &argv))
    return 2;
  sm_set_fast_forward(!no_ff);
  sm_set_mirroring(!no_ff);
  if (argc != 3)
    return sm_cli_usage("sweep needs GPU.yaml and KERNEL.yaml");
  g_autofree char *gpu_file = NULL, *kernel_file = NULL;
  if (!sm_cli_find_pair(argv[1], argv[2], &gpu_file, &kernel_file))
    return 2;
  argv[1] = gpu_file;
  argv[2] = kernel_file;
  if (varies == NULL)
    return sm_cli_usage("sweep needs at least one --vary");
  guint64 max_cycles;
  if (!sm_cli_check_jobs_and_plot(jobs, plot_path) ||
      !sm_cli_max_cycles(max_cycles_text, &max_cycles) || !sm_cli_threads(threads_opt, &threads))
    return 2;
  sm_batch_set_threads(threads);
  GError *error = NULL;
  guint k = 0, n = 0;
  if (shard && !sm_sweep_parse_shard(shard, &k, &n, &error))
    return sm_cli_fail(error);
  if (shard && (csv == NULL || json || plot_path))
    return sm_cli_usage_error("--shard K/N: writes one part file, given with --csv (no --json or "
                              "--plot: smsim merge makes them from all the parts)");
  g_autoptr(SmSweep) sw = sm_sweep_new();
  for (guint i = 0; varies[i]; i++) {
    SmVary *v = sm_vary_parse(varies[i], &error);
    if (v == NULL || !sm_sweep_add_vary(sw, v, &error))
      return sm_cli_fail(error);
  }
  Outputs o = {.csv = csv, .json = json, .plot_path = plot_path, .plot_kind = plot_kind};
  if (!choose_plot(sw, plot_path, plot_kind, &o.cusp, &o.occupancy))
    return 2;
  g_auto(CfgRunSource) src = {0};
  if (!cfg_run_source_init(&src, argv[1], argv[2], &error))
    return sm_cli_fail(error);
  sm_sweep_make_points(sw);
  g_autoptr(GPtrArray) dropped = g_ptr_array_new_with_free_func(g_free);
  if (!sm_sweep_drop_impossible(sw, &src, (const char *const *)sets, dropped, &error))
    return sm_cli_fail(error);
  for (guint i = 0; i < dropped->len && sm_dist_rank() == 0; i++)
    g_printerr("smsim sweep: %s\n", (const char *)g_ptr_array_index(dropped, i));
  SmPlotY plot_y = {0};
  if (!choose_plot_y(sw, &o, plot_y_spec, (const char *const *)sets, &plot_y))
    return 2;
  o.plot_y = plot_y_spec ? &plot_y : NULL;
  if (shard)
    return run_shard(sw, &src, sets, varies, (guint)jobs, max_cycles, k, n, csv);
  g_autofree SmPointResult *results = g_new0(SmPointResult, sw->points->len);
  SmBatch batch = {.src = &src,
                   .sets = (const char *const *)sets,
                   .points = sw->points,
                   .jobs = (guint)jobs,
                   .max_cycles = max_cycles,
                   .progress = sm_cli_progress,
                   .progress_data = "sweep"};
  if (!sm_dist_batch_run(&batch, results, &error))
    return sm_cli_fail(error);
  if (sm_dist_rank() != 0)
    return 0; /* rank 0 has every result and writes the outputs */
  sw->rows = g_new0(SmSweepRow, sw->points->len);
  for (guint p = 0; p < sw->points->len; p++)
    sm_sweep_row_from_result(&results[p], &sw->rows[p]);
  g_autofree char *gpu_name = NULL;
  guint max_warps = 0;
  if (plot_path) {
    CfgGpu *g = NULL;
    CfgKernel *kern = NULL;
    if (!cfg_load_run_text(&src, (const char *const *)sets, NULL, &g, &kern, &error))
      return sm_cli_fail(error);
    gpu_name = g_strdup(g->name);
    max_warps = g->limits.max_warps;
    cfg_gpu_free(g);
    cfg_kernel_free(kern);
  }
  int status = write_outputs(sw, &o, gpu_name, max_warps);
  if (status == 0 && dropped->len) {
    /* the points left out, once more where the results are (each said why on stderr) */
    GString *left = g_string_new(NULL);
    for (guint i = 0; i < dropped->len; i++) {
      const char *d = g_ptr_array_index(dropped, i);
      g_string_append_printf(left, "%s%.*s", i ? "; " : "", (int)(strstr(d, ": left out") - d), d);
    }
    printf("left out: %u point%s this GPU cannot run (%s)\n", dropped->len,
           dropped->len == 1 ? "" : "s", left->str);
    g_string_free(left, TRUE);
  }
  sm_plot_y_clear(&plot_y);
  return status;
}

int
sm_cmd_merge(int argc, char **argv)
{
  g_autofree char *csv = NULL, *json = NULL, *plot_path = NULL, *plot_kind = NULL;
  g_autofree char *plot_y_spec = NULL;
  const GOptionEntry entries[] = {
      {"csv", 0, 0, G_OPTION_ARG_FILENAME, &csv, "Write every point as CSV", "FILE"},
      {"json", 0, 0, G_OPTION_ARG_FILENAME, &json, "Write points and curves as JSON", "FILE"},
      {"plot", 0, 0, G_OPTION_ARG_FILENAME, &plot_path, "Draw a plot (.png or .svg)", "FILE"},
      {"plot-kind", 0, 0, G_OPTION_ARG_STRING, &plot_kind,
       "throughput, cusp or occupancy (as for smsim sweep)", "KIND"},
      {"plot-y", 0, 0, G_OPTION_ARG_STRING, &plot_y_spec,
       "What a throughput plot shows upwards (as for smsim sweep)", "COLUMN[/KEY]"},
      {NULL, 0, 0, 0, NULL, NULL, NULL}};
  if (!sm_cli_parse("merge", "PART.csv... - join the parts of a sharded sweep", entries, &argc,
                    &argv))
    return 2;
  if (argc < 2)
    return sm_cli_usage("merge needs the part files of a sweep run with --shard");
  if (!sm_cli_check_jobs_and_plot(0, plot_path))
    return 2;
  GError *error = NULL;
  g_autoptr(GPtrArray) parts = g_ptr_array_new_with_free_func((GDestroyNotify)sm_sweep_part_free);
  for (int i = 1; i < argc; i++) {
    SmSweepPart *part = sm_sweep_part_read(argv[i], &error);
    if (part == NULL)
      return sm_cli_fail(error);
    g_ptr_array_add(parts, part);
  }
  g_autoptr(SmSweep) sw = sm_sweep_merge(parts, &error);
  if (sw == NULL)
    return sm_cli_fail(error);
  Outputs o = {.csv = csv, .json = json, .plot_path = plot_path, .plot_kind = plot_kind};
  if (!choose_plot(sw, plot_path, plot_kind, &o.cusp, &o.occupancy))
    return 2;
  const SmSweepPart *first = g_ptr_array_index(parts, 0);
  /* the sweep's --set arguments, as a NULL-terminated list */
  g_autofree const char **sets = g_new0(const char *, first->sets->len + 1);
  for (guint i = 0; i < first->sets->len; i++)
    sets[i] = g_ptr_array_index(first->sets, i);
  SmPlotY plot_y = {0};
  if (!choose_plot_y(sw, &o, plot_y_spec, sets, &plot_y))
    return 2;
  o.plot_y = plot_y_spec ? &plot_y : NULL;
  int status = write_outputs(sw, &o, first->gpu_name, first->max_warps);
  sm_plot_y_clear(&plot_y);
  return status;
}
