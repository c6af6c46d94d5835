/* smsim fit: options, start values and bounds of the keys to fit, the result lines and the
 * fitted GPU file.  Not the search (study/fit.c). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../../config/gpu.h"
#include "../../config/load.h"
#include "../study/fit.h"
#include "../sm.h"
#include "cli.h"
#include "commands.h"

/* The scalar at dotted @key under @root, or NULL. */
static const CfgNode *
node_at(const CfgNode *root, const char *key)
{
  g_auto(GStrv) parts = g_strsplit(key, ".", -1);
  const CfgNode *n = root;
  for (guint i = 0; parts[i] && n; i++)
    n = n->kind == CFG_NODE_MAP ? cfg_node_get(n, parts[i]) : NULL;
  return n && n->kind == CFG_NODE_SCALAR ? n : NULL;
}

/* "KEY" or "KEY=LO:HI" into @p, its start value from @file (the GPU file with --set applied)
 * or else @all (every key with its default, as cfg_gpu_print writes them) or else @gpu (a
 * section the print leaves out when it has nothing but defaults: sass). */
static gboolean
parse_free(const char *arg, const CfgNode *file, const CfgNode *all, const CfgGpu *gpu,
           SmFitParam *p, GError **error)
{
  const char *eq = strchr(arg, '=');
  p->key = eq ? g_strndup(arg, (gsize)(eq - arg)) : g_strdup(arg);
  double min, max;
  if (!sm_fit_key_info(p->key, &p->integer, &min, &max, error))
    return FALSE;
  const CfgNode *n = node_at(file, p->key);
  if (n == NULL && g_str_has_prefix(p->key, "sass.branch."))
    n = node_at(file, p->key + strlen("sass.")); /* sass.branch's keys start as branch's */
  if (n == NULL)
    n = node_at(all, p->key);
  if (n == NULL && g_str_has_prefix(p->key, "sass.branch."))
    n = node_at(all, p->key + strlen("sass."));
  gboolean number = FALSE;
  p->start = NAN;
  if (n) {
    char *end = NULL;
    p->start = g_ascii_strtod(n->value, &end);
    number = end != n->value && *end == '\0';
  } else {
    number = sm_fit_key_value(gpu, p->key, &p->start);
  }
  if (!number || !isfinite(p->start)) {
    g_set_error(error, CFG_ERROR, CFG_ERROR_INVALID, "--free %s: the GPU has no finite value of it",
                p->key);
    return FALSE;
  }
  if (eq) {
    char *colon = NULL;
    p->lo = g_ascii_strtod(eq + 1, &colon);
    char *hi_end = NULL;
    p->hi = colon && *colon == ':' ? g_ascii_strtod(colon + 1, &hi_end) : NAN;
    if (colon == eq + 1 || *colon != ':' || hi_end == colon + 1 || *hi_end || !isfinite(p->lo) ||
        !isfinite(p->hi) || !(p->lo < p->hi)) {
      g_set_error(error, CFG_ERROR, CFG_ERROR_INVALID,
                  "--free %s: expected KEY=LO:HI with numbers LO < HI", arg);
      return FALSE;
    }
  } else if (p->start > 0) {
    p->lo = p->start / 4;
    p->hi = p->start * 4;
  } else {
    g_set_error(error, CFG_ERROR, CFG_ERROR_INVALID,
                "--free %s: its value is %g; give its range (--free %s=LO:HI)", arg, p->start,
                p->key);
    return FALSE;
  }
  p->lo = MAX(p->lo, min);
  p->hi = MIN(p->hi, max);
  if (!(p->lo < p->hi)) {
    g_set_error(error, CFG_ERROR, CFG_ERROR_INVALID,
                "--free %s: the range is outside what the key allows (%g to %g)", arg, min, max);
    return FALSE;
  }
  return TRUE;
}

static void
progress(guint evaluation, double mape, double best, gpointer data)
{
  (void)data;
  if (!isatty(STDERR_FILENO))
    return;
  fprintf(stderr, "\rfit: evaluation %u, MAPE %.2f%% (best %.2f%%)   ", evaluation, 100 * mape,
          100 * best);
  fflush(stderr);
}

/* Byte offset of (line, col) in @text, both 1-based; -1 if there is no such place. */
static gssize
offset_of(const char *text, guint line, guint col)
{
  const char *p = text;
  for (guint l = 1; l < line; l++) {
    p = strchr(p, '\n');
    if (p == NULL)
      return -1;
    p++;
  }
  for (guint c = 1; c < col; c++, p++)
    if (*p == '\0' || *p == '\n')
      return -1;
  return p - text;
}

/* The GPU file's text with the fitted values in place of the old ones (comments and layout
 * kept), or NULL when a key is not written plainly in it (a default, or set by --set). */
static char *
edit_in_place(const char *text, const CfgNode *root, const SmFitParam *params, guint n)
{
  typedef struct {
    gssize at;
    gsize len;
    char *value;
  } Edit;
  g_autoptr(GArray) edits = g_array_new(FALSE, FALSE, sizeof(Edit));
  gboolean ok = TRUE;
  for (guint i = 0; i < n && ok; i++) {
    const CfgNode *node = node_at(root, params[i].key);
    gssize at = node && node->source ? offset_of(text, node->line, node->col) : -1;
    gsize len = node ? strlen(node->value) : 0;
    ok = at >= 0 && strncmp(text + at, node->value, len) == 0;
    if (ok) {
      Edit e = {at, len, sm_fit_value_text(&params[i], params[i].value)};
      g_array_append_val(edits, e);
    }
  }
  GString *out = ok ? g_string_new(text) : NULL;
  /* from the last place to the first, so earlier offsets stay right */
  for (guint done = 0; ok && done < edits->len; done++) {
    guint last = 0;
    for (guint i = 1; i < edits->len; i++)
      if (g_array_index(edits, Edit, i).at > g_array_index(edits, Edit, last).at)
        last = i;
    Edit *e = &g_array_index(edits, Edit, last);
    g_string_erase(out, e->at, (gssize)e->len);
    g_string_insert(out, e->at, e->value);
    e->at = -1;
  }
  for (guint i = 0; i < edits->len; i++)
    g_free(g_array_index(edits, Edit, i).value);
  return out ? g_string_free(out, FALSE) : NULL;
}

int
sm_cmd_fit(int argc, char **argv)
{
  g_autofree char *kernel = NULL, *out_path = NULL;
  g_auto(GStrv) sets = NULL, frees = NULL, curves = NULL;
  gint jobs = 0, max_evaluations = 100, threads_opt = 0;
  guint threads = 1;
  const GOptionEntry entries[] = {
      {"free", 'f', 0, G_OPTION_ARG_STRING_ARRAY, &frees,
       "A GPU key to fit, within LO..HI (default: a quarter to four times its value)",
       "KEY[=LO:HI]"},
      {"set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets, "Set a GPU key for every run", "K=V"},
      {"curve", 'c', 0, G_OPTION_ARG_STRING_ARRAY, &curves,
       "Fit to this curve's rows only (as validate's table names it; repeatable)", "LABEL"},
      {"out", 'o', 0, G_OPTION_ARG_FILENAME, &out_path, "Write the GPU file with the fitted values",
       "FILE.yaml"},
      {"kernel", 'k', 0, G_OPTION_ARG_FILENAME, &kernel,
       "Kernel that replays calibration-format rows: a file or a name (default: mix)", "FILE"},
      {"jobs", 'j', 0, G_OPTION_ARG_INT, &jobs, "Parallel runs (default: one per core)", "N"},
      {"max-evaluations", 0, 0, G_OPTION_ARG_INT, &max_evaluations,
       "Stop after this many validations (default 100)", "N"},
      SM_CLI_THREADS(threads_opt),
      {NULL, 0, 0, 0, NULL, NULL, NULL}};
  if (!sm_cli_parse(
          "fit",
          "GPU.yaml MEASUREMENTS.csv --free KEY[=LO:HI]... - fit GPU keys to measurements "
          "(the overall MAPE of validate, by the Nelder-Mead simplex)",
          entries, &argc, &argv))
    return 2;
  if (argc != 3)
    return sm_cli_usage("fit needs GPU.yaml and MEASUREMENTS.csv");
  g_autofree char *gpu_file = NULL, *kernel_file = NULL;
  if (!sm_cli_find_pair(argv[1], kernel ? kernel : "mix", &gpu_file, &kernel_file))
    return 2;
  argv[1] = gpu_file;
  if (frees == NULL || frees[0] == NULL)
    return sm_cli_usage("fit needs at least one --free KEY");
  guint n = g_strv_length(frees);
  if (n > 16)
    return sm_cli_usage_error("fit: at most 16 --free keys");
  if (max_evaluations < 1 || max_evaluations > 100000)
    return sm_cli_usage_error("--max-evaluations: expected 1 to 100000");
  if (!sm_cli_check_jobs_and_plot(jobs, NULL) || !sm_cli_threads(threads_opt, &threads))
    return 2;
  sm_batch_set_threads(threads);
  GError *error = NULL;
  g_autofree char *gpu_text = NULL, *csv_text = NULL;
  if (!cfg_read_text(argv[1], &gpu_text, &error) || !cfg_read_text(argv[2], &csv_text, &error))
    return sm_cli_fail(error);
  g_autoptr(CfgGpu) gpu = cfg_gpu_load_file_with_sets(argv[1], (const char *const *)sets, &error);
  if (gpu == NULL)
    return sm_cli_fail(error);
  g_autoptr(SmValidation) check = sm_validation_parse(argv[2], csv_text, &error);
  if (check == NULL || !sm_validation_keep_curves(check, (const char *const *)curves, &error))
    return sm_cli_fail(error);
  /* the file's tree with --set applied: start values; without --set, also where to edit */
  g_autoptr(CfgNode) with_sets = cfg_load_string(argv[1], gpu_text, &error);
  if (with_sets == NULL)
    return sm_cli_fail(error);
  for (guint i = 0; sets && sets[i]; i++) {
    const char *eq = strchr(sets[i], '=');
    g_autofree char *key = g_strndup(sets[i], (gsize)(eq - sets[i]));
    cfg_node_set_path(with_sets, key, eq + 1, "--set", NULL); /* checked by the load above */
  }
  g_autoptr(GString) printed = g_string_new(NULL);
  cfg_gpu_print(gpu, printed);
  g_autoptr(CfgNode) all = cfg_load_string("the GPU's keys", printed->str, &error);
  if (all == NULL)
    return sm_cli_fail(error);
  SmFitParam *params = g_new0(SmFitParam, n);
  int status = 0;
  for (guint i = 0; i < n && status == 0; i++) {
    for (guint j = 0; j < i; j++)
      if (params[j].key && strncmp(frees[i], params[j].key, strlen(params[j].key)) == 0 &&
          (frees[i][strlen(params[j].key)] == '\0' || frees[i][strlen(params[j].key)] == '=')) {
        g_set_error(&error, CFG_ERROR, CFG_ERROR_INVALID, "--free %s: named twice", params[j].key);
        break;
      }
    if (error || !parse_free(frees[i], with_sets, all, gpu, &params[i], &error))
      status = sm_cli_fail(error);
  }
  SmFitSetup setup = {.gpu_path = argv[1],
                      .measurements_path = argv[2],
                      .measurements_text = csv_text,
                      .mix_kernel = kernel_file,
                      .sets = (const char *const *)sets,
                      .curves = (const char *const *)curves,
                      .jobs = (guint)jobs,
                      .max_evaluations = (guint)max_evaluations,
                      .progress = progress};
  double before = 0, after = 0;
  if (status == 0 && !sm_fit_run(&setup, params, n, &before, &after, &error))
    status = sm_cli_fail(error);
  if (status == 0 && isatty(STDERR_FILENO))
    fputc('\n', stderr);
  g_autoptr(GString) out = g_string_new(NULL);
  for (guint i = 0; i < n && status == 0; i++) {
    g_autofree char *v = sm_fit_value_text(&params[i], params[i].value);
    g_autofree char *was = sm_fit_value_text(&params[i], params[i].start);
    g_string_append_printf(out, "%s = %s (was %s)\n", params[i].key, v, was);
  }
  if (status == 0)
    g_string_append_printf(out, "MAPE: %.2f%% before, %.2f%% after, over %u rows\n", 100 * before,
                           100 * after, check->rows->len);
  if (status == 0 && out_path) {
    g_autofree char *text = sets ? NULL : edit_in_place(gpu_text, with_sets, params, n);
    if (text == NULL) { /* every key written out, with the fitted values */
      g_autoptr(GPtrArray) all_sets = g_ptr_array_new_with_free_func(g_free);
      for (guint i = 0; sets && sets[i]; i++)
        g_ptr_array_add(all_sets, g_strdup(sets[i]));
      for (guint i = 0; i < n; i++) {
        g_autofree char *v = sm_fit_value_text(&params[i], params[i].value);
        g_ptr_array_add(all_sets, g_strdup_printf("%s=%s", params[i].key, v));
      }
      g_ptr_array_add(all_sets, NULL);
      g_autoptr(CfgGpu) fitted =
          cfg_gpu_load_file_with_sets(argv[1], (const char *const *)all_sets->pdata, &error);
      if (fitted == NULL) {
        status = sm_cli_fail(error);
      } else {
        GString *t = g_string_new(NULL);
        g_string_append_printf(t, "# %s fitted to %s by smsim fit (every key written out)\n",
                               argv[1], argv[2]);
        cfg_gpu_print(fitted, t);
        text = g_string_free(t, FALSE);
      }
    }
    if (status == 0 && !sm_cli_write_file(out_path, text))
      status = 1;
    if (status == 0)
      g_string_append_printf(out, "wrote %s\n", out_path);
  }
  if (status == 0)
    fputs(out->str, stdout);
  for (guint i = 0; i < n; i++)
    g_free(params[i].key);
  g_free(params);
  return sm_cli_finish_stdout(status);
}
