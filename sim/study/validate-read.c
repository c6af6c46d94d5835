/* Reading measurement files (both formats) into rows, their errors, and keeping some curves.
 * Not replaying the rows (validate.c). */
#include "validate-internal.h"

#include <math.h>
#include <string.h>

const SmValidateKind sm_validate_kinds[] = {
    {"fadd", "none", "coalesced", "dram", "FADD"}, {"gmem", "LDG", "coalesced", "dram", "FADD"},
    {"l2", "LDG", "coalesced", "l2", "FADD"},      {"stride2", "LDG", "stride2", "dram", "FADD"},
    {"random", "LDG", "random", "dram", "FADD"},   {"sfu", "MUFU.RSQ", "coalesced", "dram", "FADD"},
    {"smem", "LDS", "coalesced", "dram", "FFMA"},
};

static int
kind_index(const char *kind)
{
  for (guint i = 0; i < G_N_ELEMENTS(sm_validate_kinds); i++)
    if (strcmp(sm_validate_kinds[i].kind, kind) == 0)
      return (int)i;
  return -1;
}

/* The measuring programs' names for their ILP variants (../shared/data/kernels/mix2.cu,
 * mix3.cu): gilpK is gmem with K chains, filpK fadd with K chains.  Returns the kind they run
 * (-1: not such a name) and sets *chains to K. */
static int
ilp_kind_index(const char *kind, guint *chains)
{
  const char *base = g_str_has_prefix(kind, "gilp")   ? "gmem"
                     : g_str_has_prefix(kind, "filp") ? "fadd"
                                                      : NULL;
  if (base == NULL || !g_ascii_isdigit(kind[4]))
    return -1;
  char *end;
  guint64 k = g_ascii_strtoull(kind + 4, &end, 10);
  if (*end != '\0' || k < 1 || k > 32)
    return -1;
  *chains = (guint)k;
  return kind_index(base);
}

/* One field of a CSV line: its text (quotes removed, blanks trimmed) and 1-based column. */
typedef struct {
  char *text;
  guint col;
} Field;

static void
field_clear(gpointer p)
{
  g_free(((Field *)p)->text);
}

/* Splits @line at commas; a field may be quoted ("a, b" with "" for a quote). */
static GArray *
split_fields(const char *line)
{
  GArray *fields = g_array_new(FALSE, TRUE, sizeof(Field));
  g_array_set_clear_func(fields, field_clear);
  const char *p = line;
  for (;;) {
    while (*p == ' ' || *p == '\t')
      p++;
    Field f = {.col = (guint)(p - line) + 1};
    GString *t = g_string_new(NULL);
    if (*p == '"') {
      p++;
      while (*p && !(*p == '"' && p[1] != '"')) {
        if (*p == '"')
          p++;
        g_string_append_c(t, *p++);
      }
      if (*p == '"')
        p++;
      while (*p && *p != ',')
        p++;
    } else {
      while (*p && *p != ',')
        g_string_append_c(t, *p++);
    }
    f.text = g_strstrip(g_string_free(t, FALSE));
    g_array_append_val(fields, f);
    if (*p != ',')
      break;
    p++;
  }
  return fields;
}

#define FIELD(fields, i) (&g_array_index(fields, Field, i))

static gboolean
field_number(const char *path, guint line, const Field *f, const char *name, double min, double max,
             gboolean whole, double *out, GError **error)
{
  char *end;
  double v = g_ascii_strtod(f->text, &end);
  if (f->text[0] == '\0' || *end != '\0' || !isfinite(v))
    return cfg_fail_at(error, path, line, f->col, "%s: expected a number, got '%s'", name, f->text);
  if (v < min || v > max || (whole && v != floor(v)))
    return cfg_fail_at(error, path, line, f->col, "%s: %s must be %s from %g to %g", name, f->text,
                       whole ? "a whole number" : "a number", min, max);
  *out = v;
  return TRUE;
}

/* Groups per loop iteration in the measuring programs' source (the `unroll` of their variant
 * tables, ../shared/data/kernels/mix2.cu and mix3.cu): their `iters` counts iterations. */
static guint
measured_unroll(double alpha, guint ilp)
{
  if (alpha < 0)
    return ilp == 1 ? 16 : ilp == 2 ? 8 : 4;
  if (alpha == 0)
    return MAX(1u, 32 / ilp);
  static const struct {
    double alpha;
    guint unroll;
  } t[] = {{1, 16}, {4, 8}, {8, 4}, {16, 2}, {32, 1}};
  guint u = 16;
  for (guint i = 0; i < G_N_ELEMENTS(t) && t[i].alpha <= alpha; i++)
    u = t[i].unroll;
  return u;
}

/* A row of the calibration format; @iters: the file counts loop iterations (the measuring
 * programs' own output), not groups. */
static gboolean
mix_row(const char *path, guint line, GArray *f, const int *col, gboolean iters, SmValidateRow *r,
        GError **error)
{
  double v;
  const Field *kind = FIELD(f, col[0]);
  guint chains = 0;
  r->kind_index = kind_index(kind->text);
  if (r->kind_index < 0)
    r->kind_index = ilp_kind_index(kind->text, &chains);
  if (r->kind_index < 0)
    return cfg_fail_at(error, path, line, kind->col,
                       "kind '%s' is not one of fadd, gmem, l2, stride2, random, sfu, smem, "
                       "gilpK or filpK (gmem or fadd with K chains)",
                       kind->text);
  r->kind = g_strdup(kind->text);
  if (!field_number(path, line, FIELD(f, col[1]), "alpha", -1, 1e6, FALSE, &r->alpha, error))
    return FALSE;
  if (r->alpha < 0 && r->alpha != -1)
    return cfg_fail_at(error, path, line, FIELD(f, col[1])->col,
                       "alpha: %s must be -1 (no other instruction) or >= 0",
                       FIELD(f, col[1])->text);
  if (!field_number(path, line, FIELD(f, col[2]), "ilp", 1, 32, TRUE, &v, error))
    return FALSE;
  r->ilp = (guint)v;
  if (chains && r->ilp != chains)
    return cfg_fail_at(error, path, line, FIELD(f, col[2])->col,
                       "ilp: %u, but kind '%s' runs %u chains", r->ilp, r->kind, chains);
  if (!field_number(path, line, FIELD(f, col[3]), "warps_per_sm", 1, 1024, TRUE, &v, error))
    return FALSE;
  r->warps = (guint)v;
  /* groups, or iterations of `unroll` groups each: at most 10^7 groups either way */
  guint per = iters ? measured_unroll(r->alpha, r->ilp) : 1;
  if (!field_number(path, line, FIELD(f, col[4]), iters ? "iters" : "groups_per_warp", 1,
                    floor(1e7 / per), TRUE, &v, error))
    return FALSE;
  r->groups = (guint)v * per;
  return field_number(path, line, FIELD(f, col[5]), "ipc_total", 0, 1e6, FALSE, &r->measured,
                      error);
}

static gboolean
kernel_row(const char *path, guint line, GArray *f, const int *col, SmValidateRow *r,
           GError **error)
{
  const Field *kernel = FIELD(f, col[0]), *set = FIELD(f, col[1]), *metric = FIELD(f, col[2]);
  if (kernel->text[0] == '\0')
    return cfg_fail_at(error, path, line, kernel->col, "kernel: no kernel file given");
  if (metric->text[0] == '\0')
    return cfg_fail_at(error, path, line, metric->col, "metric: no metric given");
  r->kernel = g_strdup(kernel->text);
  r->set = g_strdup(set->text);
  r->set_col = set->col;
  r->metric = g_strdup(metric->text);
  r->metric_col = metric->col;
  r->curve = g_strdup(FIELD(f, col[4])->text);
  return field_number(path, line, FIELD(f, col[3]), "measured", -1e300, 1e300, FALSE, &r->measured,
                      error);
}

static void
row_clear(gpointer p)
{
  SmValidateRow *r = p;
  g_free(r->kind);
  g_free(r->kernel);
  g_free(r->set);
  g_free(r->metric);
  g_free(r->curve);
}

static const char *const mix_columns[] = {"kind",         "alpha",           "ilp",
                                          "warps_per_sm", "groups_per_warp", "ipc_total"};
static const char *const mix_iters_columns[] = {"kind",         "alpha", "ilp",
                                                "warps_per_sm", "iters", "ipc_total"};
static const char *const kernel_columns[] = {"kernel", "set", "metric", "measured", "curve"};

/* Column indices of @names in @header; FALSE with an error naming the first missing one (and
 * @hint) if any is missing. */
static gboolean
find_columns(const char *path, GArray *header, const char *const *names, guint n, const char *hint,
             int *col, GError **error)
{
  for (guint i = 0; i < n; i++) {
    col[i] = -1;
    for (guint c = 0; c < header->len; c++)
      if (strcmp(FIELD(header, c)->text, names[i]) == 0)
        col[i] = (int)c;
    if (col[i] < 0)
      return cfg_fail_at(error, path, 1, 1, "no column '%s' in the header%s", names[i], hint);
  }
  return TRUE;
}

SmValidation *
sm_validation_read(const char *path, GError **error)
{
  g_autofree char *text = NULL;
  if (!cfg_read_text(path, &text, error))
    return NULL;
  return sm_validation_parse(path, text, error);
}

SmValidation *
sm_validation_parse(const char *path, const char *text, GError **error)
{
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  if (lines[0] == NULL || g_strstrip(lines[0])[0] == '\0') {
    cfg_fail_at(error, path, 1, 1, "empty file: expected a header line");
    return NULL;
  }
  g_autoptr(GArray) header = split_fields(lines[0]);
  int col[6];
  g_autoptr(SmValidation) v = g_new0(SmValidation, 1);
  v->path = g_strdup(path);
  v->rows = g_array_new(FALSE, TRUE, sizeof(SmValidateRow));
  g_array_set_clear_func(v->rows, row_clear);
  v->curves = g_ptr_array_new();
  guint n_need = G_N_ELEMENTS(mix_columns);
  gboolean kernel_format = FALSE, groups = FALSE, iters = FALSE;
  for (guint c = 0; c < header->len; c++) {
    kernel_format |= strcmp(FIELD(header, c)->text, "kernel") == 0;
    groups |= strcmp(FIELD(header, c)->text, "groups_per_warp") == 0;
    iters |= strcmp(FIELD(header, c)->text, "iters") == 0;
  }
  iters = iters && !groups; /* the measuring programs' output counts iterations */
  if (kernel_format) {
    v->format = SM_VALIDATE_KERNEL;
    n_need = G_N_ELEMENTS(kernel_columns);
  }
  const char *hint = kernel_format ? " (kernel format: kernel,set,metric,measured,curve)"
                                   : " (calibration format: kind,alpha,ilp,warps_per_sm,"
                                     "groups_per_warp (or iters),ipc_total; or kernel format: "
                                     "kernel,set,metric,measured,curve)";
  if (!find_columns(path, header,
                    kernel_format ? kernel_columns
                    : iters       ? mix_iters_columns
                                  : mix_columns,
                    n_need, hint, col, error)) {
    return NULL;
  }
  for (guint l = 1; lines[l]; l++) {
    g_strchomp(lines[l]);
    const char *start = lines[l];
    while (*start == ' ' || *start == '\t')
      start++;
    if (*start == '\0' || *start == '#')
      continue;
    g_autoptr(GArray) f = split_fields(lines[l]);
    if (f->len != header->len) {
      cfg_fail_at(error, path, l + 1, 1, "%u fields, the header has %u", f->len, header->len);
      return NULL;
    }
    if (v->rows->len == SM_VALIDATE_MAX_ROWS) {
      cfg_fail_at(error, path, l + 1, 1, "more than %u measurement rows", SM_VALIDATE_MAX_ROWS);
      return NULL;
    }
    SmValidateRow r = {.line = l + 1};
    gboolean ok = v->format == SM_VALIDATE_KERNEL ? kernel_row(path, l + 1, f, col, &r, error)
                                                  : mix_row(path, l + 1, f, col, iters, &r, error);
    if (!ok) {
      row_clear(&r);
      return NULL;
    }
    g_array_append_val(v->rows, r);
  }
  if (v->rows->len == 0) {
    cfg_fail_at(error, path, 2, 1, "no measurement rows");
    return NULL;
  }
  return g_steal_pointer(&v);
}

char *
sm_validate_row_label(const SmValidation *v, const SmValidateRow *r)
{
  if (v->format == SM_VALIDATE_KERNEL)
    return r->curve[0] ? g_strdup(r->curve) : g_strdup_printf("%s %s", r->kernel, r->metric);
  return g_strdup_printf("%s alpha=%g ilp=%u", r->kind, r->alpha, r->ilp);
}

gboolean
sm_validation_keep_curves(SmValidation *v, const char *const *labels, GError **error)
{
  if (labels == NULL || labels[0] == NULL)
    return TRUE;
  guint n = g_strv_length((char **)labels);
  g_autofree gboolean *used = g_new0(gboolean, n);
  for (guint i = v->rows->len; i-- > 0;) {
    g_autofree char *label = sm_validate_row_label(v, &g_array_index(v->rows, SmValidateRow, i));
    gboolean keep = FALSE;
    for (guint k = 0; k < n; k++)
      if (strcmp(label, labels[k]) == 0)
        keep = used[k] = TRUE;
    if (!keep)
      g_array_remove_index(v->rows, i);
  }
  for (guint k = 0; k < n; k++)
    if (!used[k]) {
      g_set_error(error, CFG_ERROR, CFG_ERROR_INVALID,
                  "--curve %s: %s has no such curve (validate's table lists them)", labels[k],
                  v->path);
      return FALSE;
    }
  return TRUE;
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
  g_array_free(v->rows, TRUE);
  g_free(v->path);
  g_free(v);
}
