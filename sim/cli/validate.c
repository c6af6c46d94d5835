/* smsim validate: options, the per-row and per-curve tables, the CSV and the plot.  Not the
 * replay or the errors (study/validate.c). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../study/dist.h"
#include "../study/validate.h"
#include "../sm.h"
#include "cli.h"
#include "commands.h"

/* Signed error in percent of the measured value. */
static double
error_percent(const SmValidateRow *r)
{
  if (r->measured > 0)
    return 100 * (r->simulated - r->measured) / MAX(r->measured, 1e-12);
  return r->measured < 0 ? 100 * (r->simulated - r->measured) / -r->measured : 0;
}

static void
print_rows(const SmValidation *v, GString *out)
{
  if (v->format == SM_VALIDATE_MIX)
    g_string_append_printf(out, "%-8s %6s %4s %6s %10s %10s %8s\n", "kind", "alpha", "ilp", "warps",
                           "simulated", "measured", "error");
  int wk = 6, ws = 3, wm = 6; /* column widths: kernel, set, metric */
  for (guint i = 0; i < v->rows->len && v->format == SM_VALIDATE_KERNEL; i++) {
    const SmValidateRow *r = &g_array_index(v->rows, SmValidateRow, i);
    wk = MAX(wk, (int)strlen(r->kernel));
    ws = MAX(ws, (int)strlen(r->set));
    wm = MAX(wm, (int)strlen(r->metric));
  }
  if (v->format == SM_VALIDATE_KERNEL)
    g_string_append_printf(out, "%-*s %-*s %-*s %6s %12s %12s %8s\n", wk, "kernel", ws, "set", wm,
                           "metric", "warps", "simulated", "measured", "error");
  for (guint i = 0; i < v->rows->len; i++) {
    const SmValidateRow *r = &g_array_index(v->rows, SmValidateRow, i);
    if (v->format == SM_VALIDATE_MIX)
      g_string_append_printf(out, "%-8s %6g %4u %6u %10.5f %10.5f %7.1f%%\n", r->kind, r->alpha,
                             r->ilp, r->warps, r->simulated, r->measured, error_percent(r));
    else
      g_string_append_printf(out, "%-*s %-*s %-*s %6u %12.6g %12.6g %7.1f%%\n", wk, r->kernel, ws,
                             r->set, wm, r->metric, r->warps, r->simulated, r->measured,
                             error_percent(r));
  }
  guint width = 28;
  for (guint i = 0; i < v->curves->len; i++)
    width = MAX(width, (guint)strlen(((SmValidateCurve *)g_ptr_array_index(v->curves, i))->label));
  g_string_append_printf(out, "\n%-*s %6s %8s %14s\n", width, "curve", "rows", "MAPE",
                         "90%-of-max warps sim/meas");
  for (guint i = 0; i < v->curves->len; i++) {
    const SmValidateCurve *c = g_ptr_array_index(v->curves, i);
    g_string_append_printf(out, "%-*s %6u %7.1f%%", width, c->label, c->rows->len, 100 * c->mape);
    if (isnan(c->sim90) && isnan(c->meas90))
      g_string_append_printf(out, " %8s\n", "-");
    else
      g_string_append_printf(out, " %8.0f / %.0f\n", c->sim90, c->meas90);
  }
}

/* A CSV field, quoted when it holds a comma or a quote. */
static void
csv_field(GString *t, const char *s)
{
  if (strpbrk(s, ",\"") == NULL) {
    g_string_append(t, s);
    return;
  }
  g_string_append_c(t, '"');
  for (; *s; s++) {
    if (*s == '"')
      g_string_append_c(t, '"');
    g_string_append_c(t, *s);
  }
  g_string_append_c(t, '"');
}

static char *
rows_csv(const SmValidation *v)
{
  if (v->format == SM_VALIDATE_KERNEL) {
    GString *t = g_string_new("kernel,set,metric,curve,warps_per_sm,simulated,measured,"
                              "error_percent\n");
    for (guint i = 0; i < v->rows->len; i++) {
      const SmValidateRow *r = &g_array_index(v->rows, SmValidateRow, i);
      const char *fields[] = {r->kernel, r->set, r->metric, r->curve};
      for (guint f = 0; f < G_N_ELEMENTS(fields); f++) {
        csv_field(t, fields[f]);
        g_string_append_c(t, ',');
      }
      g_string_append_printf(t, "%u,%.6g,%.6g,%.3f\n", r->warps, r->simulated, r->measured,
                             error_percent(r));
    }
    return g_string_free(t, FALSE);
  }
  GString *t = g_string_new("kind,alpha,ilp,warps_per_sm,groups_per_warp,simulated_ipc_total,"
                            "measured_ipc_total,error_percent\n");
  for (guint i = 0; i < v->rows->len; i++) {
    const SmValidateRow *r = &g_array_index(v->rows, SmValidateRow, i);
    g_string_append_printf(t, "%s,%g,%u,%u,%u,%.6g,%.6g,%.3f\n", r->kind, r->alpha, r->ilp,
                           r->warps, r->groups, r->simulated, r->measured, error_percent(r));
  }
  return g_string_free(t, FALSE);
}

int
sm_cmd_validate(int argc, char **argv)
{
  g_autofree char *kernel = NULL, *csv = NULL, *plot_path = NULL, *max_cycles_text = NULL;
  g_autofree char *plot_x = NULL, *plot_per = NULL;
  g_auto(GStrv) sets = NULL, curves = NULL;
  gint jobs = 0;
  gboolean no_ff = FALSE;
  gint threads_opt = 0;
  guint threads = 1;
  const GOptionEntry entries[] = {
      {"kernel", 'k', 0, G_OPTION_ARG_FILENAME, &kernel,
       "Kernel that replays calibration-format rows, a file or a name (default: mix); "
       "kernel-format rows name their own",
       "FILE"},
      {"set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets, "Set a GPU key for every row", "K=V"},
      {"curve", 'c', 0, G_OPTION_ARG_STRING_ARRAY, &curves,
       "Only the rows of this curve (as the table names it; repeatable)", "LABEL"},
      {"csv", 0, 0, G_OPTION_ARG_FILENAME, &csv, "Write per-row results as CSV", "FILE"},
      {"plot", 0, 0, G_OPTION_ARG_FILENAME, &plot_path,
       "Draw simulated curves and measured points (.png or .svg)", "FILE"},
      {"plot-x", 0, 0, G_OPTION_ARG_STRING, &plot_x,
       "Kernel format: plot against this key of the set column (default: warps per SM)", "KEY"},
      {"plot-per", 0, 0, G_OPTION_ARG_STRING, &plot_per,
       "Kernel format: plot values divided by this key of the set column (cycles per step)", "KEY"},
      {"jobs", 'j', 0, G_OPTION_ARG_INT, &jobs, "Parallel runs (default: one per core)", "N"},
      SM_CLI_NO_FAST_FORWARD(no_ff),
      SM_CLI_THREADS(threads_opt),
      {NULL, 0, 0, 0, NULL, NULL, NULL}};
  if (!sm_cli_parse(
          "validate",
          "GPU.yaml MEASUREMENTS.csv - compare with measurements (calibration or kernel format)",
          entries, &argc, &argv))
    return 2;
  sm_set_fast_forward(!no_ff);
  sm_set_mirroring(!no_ff);
  if (argc != 3)
    return sm_cli_usage("validate needs GPU.yaml and MEASUREMENTS.csv");
  g_autofree char *gpu_file = NULL, *kernel_file = NULL;
  if (!sm_cli_find_pair(argv[1], kernel ? kernel : "mix", &gpu_file, &kernel_file))
    return 2;
  argv[1] = gpu_file;
  guint64 max_cycles;
  if (!sm_cli_check_jobs_and_plot(jobs, plot_path) ||
      !sm_cli_max_cycles(max_cycles_text, &max_cycles) || !sm_cli_threads(threads_opt, &threads))
    return 2;
  sm_batch_set_threads(threads);
  GError *error = NULL;
  g_autoptr(SmValidation) v = sm_validation_read(argv[2], &error);
  if (v == NULL || !sm_validation_keep_curves(v, (const char *const *)curves, &error) ||
      !sm_validation_plot_check(v, plot_x, plot_per, &error))
    return sm_cli_fail(error);
  if (!sm_validation_run(v, argv[1], kernel_file, (const char *const *)sets, (guint)jobs,
                         max_cycles, sm_cli_progress, "validate", &error))
    return sm_cli_fail(error);
  if (sm_dist_rank() != 0)
    return 0; /* rank 0 has every result and writes the outputs */
  g_autoptr(GString) out = g_string_new(NULL);
  print_rows(v, out);
  if (csv) {
    g_autofree char *text = rows_csv(v);
    if (!sm_cli_write_file(csv, text))
      return 1;
    g_string_append_printf(out, "wrote %s\n", csv);
  }
  if (plot_path) {
    g_autoptr(SmPlot) plot = sm_validation_plot(v, plot_x, plot_per);
    if (!sm_plot_write(plot, plot_path, &error))
      return sm_cli_write_error(error);
    g_string_append_printf(out, "wrote %s\n", plot_path);
  }
  g_string_append_printf(out, "overall MAPE: %.1f%% over %u rows\n",
                         100 * v->total_ape / v->rows->len, v->rows->len);
  fputs(out->str, stdout);
  return 0;
}
