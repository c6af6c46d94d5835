/* Reading measurement files, replaying their rows on the mix kernel, and the errors.  Prints
 * nothing. */
#include "validate.h"

#include <math.h>
#include <string.h>

/* kind -> the mix kernel's settings (the calibration README's workload table) */
typedef struct {
  const char *kind, *other, *pattern, *level, *alu_op;
  gboolean mov;
} Kind;

static const Kind kinds[] = {
    {"fadd", "none", "coalesced", "dram", "FADD", FALSE},
    {"gmem", "LDG", "coalesced", "dram", "FADD", TRUE},
    {"l2", "LDG", "coalesced", "l2", "FADD", TRUE},
    {"stride2", "LDG", "stride2", "dram", "FADD", TRUE},
    {"random", "LDG", "random", "dram", "FADD", TRUE},
    {"sfu", "MUFU.RSQ", "coalesced", "dram", "FADD", FALSE},
    {"smem", "LDS", "coalesced", "dram", "FFMA", FALSE},
};

static int
kind_index(const char *kind)
{
  for (guint i = 0; i < G_N_ELEMENTS(kinds); i++)
    if (strcmp(kinds[i].kind, kind) == 0)
      return (int)i;
  return -1;
}

static gboolean G_GNUC_PRINTF(4, 5)
    csv_fail(GError **error, const char *path, guint line, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  g_autofree char *msg = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  g_set_error(error, CFG_ERROR, CFG_ERROR_INVALID, "%s:%u: %s", path, line, msg);
  return FALSE;
}

static gboolean
field_number(const char *path, guint line, const char *name, const char *text, double min,
             double max, gboolean whole, double *out, GError **error)
{
  char *end;
  double v = g_ascii_strtod(text, &end);
  if (text[0] == '\0' || *end != '\0' || !isfinite(v))
    return csv_fail(error, path, line, "%s: expected a number, got '%s'", name, text);
  if (v < min || v > max || (whole && v != floor(v)))
    return csv_fail(error, path, line, "%s: %s must be %s from %g to %g", name, text,
                    whole ? "a whole number" : "a number", min, max);
  *out = v;
  return TRUE;
}

static GArray *
read_rows(const char *path, GError **error)
{
  g_autofree char *text = NULL;
  GError *local = NULL;
  if (!g_file_get_contents(path, &text, NULL, &local)) {
    g_set_error(error, CFG_ERROR, CFG_ERROR_IO, "%s: cannot read: %s", path, local->message);
    g_error_free(local);
    return NULL;
  }
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  static const char *const need[] = {"kind",         "alpha",           "ilp",
                                     "warps_per_sm", "groups_per_warp", "ipc_total"};
  int col[G_N_ELEMENTS(need)];
  if (lines[0] == NULL || lines[0][0] == '\0') {
    csv_fail(error, path, 1, "empty file: expected a header line");
    return NULL;
  }
  g_strchomp(lines[0]);
  g_auto(GStrv) header = g_strsplit(lines[0], ",", -1);
  guint n_cols = g_strv_length(header);
  for (guint i = 0; i < G_N_ELEMENTS(need); i++) {
    col[i] = -1;
    for (guint c = 0; c < n_cols; c++)
      if (strcmp(g_strstrip(header[c]), need[i]) == 0)
        col[i] = (int)c;
    if (col[i] < 0) {
      csv_fail(error, path, 1, "no column '%s' in the header", need[i]);
      return NULL;
    }
  }
  GArray *rows = g_array_new(FALSE, TRUE, sizeof(SmValidateRow));
  for (guint l = 1; lines[l]; l++) {
    g_strchomp(lines[l]);
    if (lines[l][0] == '\0' || lines[l][0] == '#')
      continue;
    g_auto(GStrv) f = g_strsplit(lines[l], ",", -1);
    if (g_strv_length(f) != n_cols) {
      csv_fail(error, path, l + 1, "%u fields, the header has %u", g_strv_length(f), n_cols);
      goto fail;
    }
    SmValidateRow r = {.line = l + 1};
    double v;
    const char *kind = g_strstrip(f[col[0]]);
    if (kind_index(kind) < 0) {
      csv_fail(error, path, l + 1,
               "kind '%s' is not one of fadd, gmem, l2, stride2, random, sfu, smem", kind);
      goto fail;
    }
    r.kind = g_strdup(kind);
    if (!field_number(path, l + 1, "alpha", f[col[1]], -1, 1e6, FALSE, &r.alpha, error))
      goto fail_row;
    if (r.alpha < 0 && r.alpha != -1) {
      csv_fail(error, path, l + 1, "alpha: %s must be -1 (no other instruction) or >= 0",
               f[col[1]]);
      goto fail_row;
    }
    if (!field_number(path, l + 1, "ilp", f[col[2]], 1, 32, TRUE, &v, error))
      goto fail_row;
    r.ilp = (guint)v;
    if (!field_number(path, l + 1, "warps_per_sm", f[col[3]], 1, 1024, TRUE, &v, error))
      goto fail_row;
    r.warps = (guint)v;
    if (!field_number(path, l + 1, "groups_per_warp", f[col[4]], 1, 1e7, TRUE, &v, error))
      goto fail_row;
    r.groups = (guint)v;
    if (!field_number(path, l + 1, "ipc_total", f[col[5]], 0, 1e6, FALSE, &r.measured, error))
      goto fail_row;
    g_array_append_val(rows, r);
    continue;
  fail_row:
    g_free(r.kind);
    goto fail;
  }
  if (rows->len == 0) {
    csv_fail(error, path, 2, "no measurement rows");
    goto fail;
  }
  return rows;
fail:
  for (guint i = 0; i < rows->len; i++)
    g_free(g_array_index(rows, SmValidateRow, i).kind);
  g_array_free(rows, TRUE);
  return NULL;
}

static void
add_take(GStrvBuilder *b, char *s)
{
  g_strv_builder_add(b, s);
  g_free(s);
}

static char **
row_sets(const SmValidateRow *r)
{
  const Kind *k = &kinds[kind_index(r->kind)];
  gboolean none = r->alpha < 0 || strcmp(k->other, "none") == 0;
  GStrvBuilder *b = g_strv_builder_new();
  add_take(b, g_strdup_printf("warps_per_sm=%u", r->warps));
  add_take(b, g_strdup_printf("groups=%u", r->groups));
  add_take(b, g_strdup_printf("ilp=%u", r->ilp));
  add_take(b, g_strdup_printf("alu_op=%s", k->alu_op));
  if (none) {
    /* a group of an ALU-only row is 16 rounds of ilp dependent ALU ops */
    g_strv_builder_add(b, "other=none");
    g_strv_builder_add(b, "alpha=16");
  } else {
    add_take(b, g_strdup_printf("other=%s", k->other));
    add_take(b, g_strdup_printf("alpha=%.10g", r->alpha));
    add_take(b, g_strdup_printf("pattern=%s", k->pattern));
    add_take(b, g_strdup_printf("level=%s", k->level));
    add_take(b, g_strdup_printf("mov_per_load=%d", k->mov ? 1 : 0));
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

SmValidation *
sm_validation_read(const char *path, GError **error)
{
  GArray *rows = read_rows(path, error);
  if (rows == NULL)
    return NULL;
  SmValidation *v = g_new0(SmValidation, 1);
  v->rows = rows;
  v->curves = g_ptr_array_new();
  return v;
}

void
sm_validation_free(SmValidation *v)
{
  if (v == NULL)
    return;
  for (guint i = 0; i < v->curves->len; i++) {
    SmValidateCurve *c = g_ptr_array_index(v->curves, i);
    g_free(c->label);
    g_array_free(c->rows, TRUE);
    g_free(c);
  }
  g_ptr_array_free(v->curves, TRUE);
  for (guint i = 0; i < v->rows->len; i++)
    g_free(g_array_index(v->rows, SmValidateRow, i).kind);
  g_array_free(v->rows, TRUE);
  g_free(v);
}

gboolean
sm_validation_run(SmValidation *v, const CfgRunSource *src, const char *const *sets, guint jobs,
                  SmProgressFunc progress, gpointer progress_data, GError **error)
{
  GArray *rows = v->rows;
  g_autoptr(GPtrArray) points = g_ptr_array_new_with_free_func((GDestroyNotify)g_strfreev);
  for (guint i = 0; i < rows->len; i++)
    g_ptr_array_add(points, row_sets(&g_array_index(rows, SmValidateRow, i)));
  g_autofree SmPointResult *results = g_new0(SmPointResult, rows->len);
  if (!sm_batch_run(src, sets, points, jobs, progress, progress_data, results, error))
    return FALSE;
  GHashTable *by_label = g_hash_table_new(g_str_hash, g_str_equal);
  double total_ape = 0;
  for (guint i = 0; i < rows->len; i++) {
    SmValidateRow *r = &g_array_index(rows, SmValidateRow, i);
    const SmStats *s = &results[i].stats;
    /* the measurements do not count the MOV that goes with each load */
    r->simulated = s->cycles ? (double)(s->issued - s->issued_op[ISA_OP_MOV]) / s->cycles : 0;
    double ape = r->measured > 0 ? fabs(r->simulated - r->measured) / r->measured : 0;
    total_ape += ape;
    g_autofree char *label = g_strdup_printf("%s alpha=%g ilp=%u", r->kind, r->alpha, r->ilp);
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
    c->sim90 = warps_for_90(rows, c->rows, TRUE);
    c->meas90 = warps_for_90(rows, c->rows, FALSE);
  }
  v->total_ape = total_ape;
  return TRUE;
}

SmPlot *
sm_validation_plot(const SmValidation *v)
{
  SmPlot *plot = sm_plot_new("Simulated (lines) and measured (dots) throughput", "warps per SM",
                             "IPC per SM (warp-instructions/cycle)");
  for (guint i = 0; i < v->curves->len; i++) {
    const SmValidateCurve *c = g_ptr_array_index(v->curves, i);
    SmPlotSeries *sim = sm_plot_add(plot, c->label, SM_PLOT_LINE, i);
    SmPlotSeries *meas = sm_plot_add(plot, "", SM_PLOT_DOTS, i);
    for (guint j = 0; j < c->rows->len; j++) {
      const SmValidateRow *r =
          &g_array_index(v->rows, SmValidateRow, g_array_index(c->rows, guint, j));
      sm_plot_point(sim, r->warps, r->simulated);
      sm_plot_point(meas, r->warps, r->measured);
    }
  }
  return plot;
}
