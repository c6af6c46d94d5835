/* Nelder-Mead over GPU keys against a validation's overall MAPE (fit.h). */
#include "fit.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_multimin.h>
#include <math.h>
#include <string.h>

#include "../../config/gpu.h"
#include "../../config/load.h"

/* Section @section ("memory.*") matches @prefix ("memory.dram"): '*' stands for one name. */
static gboolean
section_matches(const char *section, const char *prefix)
{
  g_auto(GStrv) s = g_strsplit(section, ".", -1), p = g_strsplit(prefix, ".", -1);
  if (g_strv_length(s) != g_strv_length(p))
    return FALSE;
  for (guint i = 0; s[i]; i++)
    if (strcmp(s[i], "*") != 0 && strcmp(s[i], p[i]) != 0)
      return FALSE;
  return TRUE;
}

/* The field of dotted GPU @key and its table, or NULL. */
static const CfgField *
key_field(const char *key, const CfgFieldTable **table)
{
  const char *dot = strrchr(key, '.');
  g_autofree char *prefix = dot ? g_strndup(key, (gsize)(dot - key)) : g_strdup("");
  const char *name = dot ? dot + 1 : key;
  guint n_tables;
  const CfgFieldTable *tables = cfg_gpu_field_tables(&n_tables);
  for (guint t = 0; t < n_tables; t++) {
    if (!section_matches(tables[t].section, prefix))
      continue;
    for (guint f = 0; f < tables[t].n_fields; f++)
      if (strcmp(tables[t].fields[f].key, name) == 0) {
        *table = &tables[t];
        return &tables[t].fields[f];
      }
  }
  return NULL;
}

gboolean
sm_fit_key_value(const CfgGpu *gpu, const char *key, double *value)
{
  const CfgFieldTable *table;
  const CfgField *field = key_field(key, &table);
  if (field == NULL || !table->in_gpu)
    return FALSE;
  const guint8 *at = (const guint8 *)gpu + field->offset;
  switch (field->type) {
  case CFG_FIELD_UINT:
    *value = *(const guint *)(gconstpointer)at;
    return TRUE;
  case CFG_FIELD_UINT64:
    *value = (double)*(const guint64 *)(gconstpointer)at;
    return TRUE;
  case CFG_FIELD_DOUBLE:
    *value = *(const double *)(gconstpointer)at;
    return TRUE;
  default:
    return FALSE;
  }
}

gboolean
sm_fit_key_info(const char *key, gboolean *integer, double *min, double *max, GError **error)
{
  const CfgFieldTable *table;
  const CfgField *field = key_field(key, &table);
  if (field == NULL) {
    g_set_error(error, CFG_ERROR, CFG_ERROR_INVALID,
                "--free %s: no such GPU key (a dotted path such as memory.dram.latency_cycles; "
                "smsim describe lists them)",
                key);
    return FALSE;
  }
  if (field->type != CFG_FIELD_UINT && field->type != CFG_FIELD_UINT64 &&
      field->type != CFG_FIELD_DOUBLE) {
    g_set_error(error, CFG_ERROR, CFG_ERROR_INVALID,
                "--free %s: not a number (only numeric GPU keys can be fitted)", key);
    return FALSE;
  }
  *integer = field->type != CFG_FIELD_DOUBLE;
  *min = field->min;
  *max = field->max;
  return TRUE;
}

static double
rounded(const SmFitParam *p, double x)
{
  x = CLAMP(x, p->lo, p->hi);
  return p->integer ? floor(x + 0.5) : x;
}

char *
sm_fit_value_text(const SmFitParam *p, double x)
{
  if (p->integer)
    return g_strdup_printf("%.0f", x);
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  return g_strdup(g_ascii_formatd(buf, sizeof buf, "%.6g", x));
}

gboolean
sm_fit_mape(const SmFitSetup *setup, const SmFitParam *params, guint n, const double *values,
            double *mape, GError **error)
{
  g_autoptr(GPtrArray) sets = g_ptr_array_new_with_free_func(g_free);
  for (guint i = 0; setup->sets && setup->sets[i]; i++)
    g_ptr_array_add(sets, g_strdup(setup->sets[i]));
  for (guint i = 0; i < n; i++) {
    g_autofree char *v = sm_fit_value_text(&params[i], values ? values[i] : params[i].start);
    g_ptr_array_add(sets, g_strdup_printf("%s=%s", params[i].key, v));
  }
  g_ptr_array_add(sets, NULL);
  g_autoptr(SmValidation) v =
      sm_validation_parse(setup->measurements_path, setup->measurements_text, error);
  if (v == NULL || !sm_validation_keep_curves(v, setup->curves, error))
    return FALSE;
  if (!sm_validation_run(v, setup->gpu_path, setup->mix_kernel, (const char *const *)sets->pdata,
                         setup->jobs, setup->max_cycles, NULL, NULL, error))
    return FALSE;
  *mape = v->rows->len ? v->total_ape / v->rows->len : 0;
  return TRUE;
}

typedef struct {
  const SmFitSetup *setup;
  const SmFitParam *params;
  guint n;
  GHashTable *seen; /* "v1,v2,..." -> double * MAPE */
  GError *error;
  guint evaluations; /* runs made */
  guint calls;       /* points asked for, runs made or remembered */
  double best;
  double *best_x;
} Objective;

static void
to_values(const Objective *o, const gsl_vector *u, double *x)
{
  for (guint i = 0; i < o->n; i++) {
    const SmFitParam *p = &o->params[i];
    x[i] = rounded(p, p->lo + (p->hi - p->lo) * (1 + sin(gsl_vector_get(u, i))) / 2);
  }
}

static double
objective(const gsl_vector *u, void *data)
{
  Objective *o = data;
  if (o->error)
    return GSL_NAN;
  double x[64];
  o->calls++;
  to_values(o, u, x);
  GString *k = g_string_new(NULL);
  for (guint i = 0; i < o->n; i++)
    g_string_append_printf(k, "%.17g,", x[i]);
  double *known = g_hash_table_lookup(o->seen, k->str);
  if (known) {
    g_string_free(k, TRUE);
    return *known;
  }
  double mape;
  GError *error = NULL;
  if (!sm_fit_mape(o->setup, o->params, o->n, x, &mape, &error)) {
    if (error->domain == CFG_ERROR &&
        (error->code == CFG_ERROR_INVALID || error->code == CFG_ERROR_LIMIT)) {
      /* a point the GPU file cannot have (lanes that do not divide 32, ...) or a run that
       * does not end: the simplex goes elsewhere */
      g_error_free(error);
      mape = G_MAXDOUBLE;
      g_hash_table_insert(o->seen, g_string_free(k, FALSE), g_memdup2(&mape, sizeof mape));
      return mape;
    }
    o->error = error;
    g_string_free(k, TRUE);
    return GSL_NAN;
  }
  o->evaluations++;
  if (mape < o->best) {
    o->best = mape;
    memcpy(o->best_x, x, o->n * sizeof *x);
  }
  g_hash_table_insert(o->seen, g_string_free(k, FALSE), g_memdup2(&mape, sizeof mape));
  if (o->setup->progress)
    o->setup->progress(o->evaluations, mape, o->best, o->setup->progress_data);
  return mape;
}

gboolean
sm_fit_run(const SmFitSetup *setup, SmFitParam *params, guint n, double *before, double *after,
           GError **error)
{
  g_return_val_if_fail(n > 0 && n <= 64, FALSE);
  double start[64];
  for (guint i = 0; i < n; i++)
    start[i] = rounded(&params[i], params[i].start);
  if (!sm_fit_mape(setup, params, n, start, before, error))
    return FALSE;
  Objective o = {.setup = setup,
                 .params = params,
                 .n = n,
                 .seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free),
                 .best = *before,
                 .best_x = g_memdup2(start, n * sizeof *start)};
  gsl_set_error_handler_off();
  gsl_vector *u = gsl_vector_alloc(n), *step = gsl_vector_alloc(n);
  for (guint i = 0; i < n; i++) {
    const SmFitParam *p = &params[i];
    double s = p->hi > p->lo ? 2 * (start[i] - p->lo) / (p->hi - p->lo) - 1 : 0;
    gsl_vector_set(u, i, asin(CLAMP(s, -1.0, 1.0)));
    gsl_vector_set(step, i, 0.4); /* radians: a few tenths of the range near the middle */
  }
  gsl_multimin_function f = {.f = objective, .n = n, .params = &o};
  gsl_multimin_fminimizer *m = gsl_multimin_fminimizer_alloc(gsl_multimin_fminimizer_nmsimplex2, n);
  gsl_multimin_fminimizer_set(m, &f, u, step);
  guint max_evaluations = setup->max_evaluations ? setup->max_evaluations : 100;
  /* a simplex that only meets rounded points already run stops too */
  while (o.error == NULL && o.evaluations < max_evaluations && o.calls < 10 * max_evaluations) {
    if (gsl_multimin_fminimizer_iterate(m) != GSL_SUCCESS)
      break;
    if (gsl_multimin_test_size(gsl_multimin_fminimizer_size(m), 1e-3) == GSL_SUCCESS)
      break;
  }
  gsl_multimin_fminimizer_free(m);
  gsl_vector_free(u);
  gsl_vector_free(step);
  g_hash_table_destroy(o.seen);
  if (o.error) {
    g_propagate_error(error, o.error);
    g_free(o.best_x);
    return FALSE;
  }
  for (guint i = 0; i < n; i++)
    params[i].value = o.best_x[i];
  *after = o.best;
  g_free(o.best_x);
  return TRUE;
}
