/* Reading measurement files (both formats), replaying their rows, and the errors.  Prints
 * nothing. */
#include "validate.h"

#include <math.h>
#include <string.h>

#include "dist.h"
#include "runjson.h"

/* kind -> the mix kernel's settings (the calibration README's workload table) */
typedef struct {
  const char *kind, *other, *pattern, *level, *alu_op;
} Kind;

static const Kind kinds[] = {
    {"fadd", "none", "coalesced", "dram", "FADD"}, {"gmem", "LDG", "coalesced", "dram", "FADD"},
    {"l2", "LDG", "coalesced", "l2", "FADD"},      {"stride2", "LDG", "stride2", "dram", "FADD"},
    {"random", "LDG", "random", "dram", "FADD"},   {"sfu", "MUFU.RSQ", "coalesced", "dram", "FADD"},
    {"smem", "LDS", "coalesced", "dram", "FFMA"},
};

static int
kind_index(const char *kind)
{
  for (guint i = 0; i < G_N_ELEMENTS(kinds); i++)
    if (strcmp(kinds[i].kind, kind) == 0)
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

/* The curve a row belongs to: its curve column (or kernel and metric), or kind, alpha, ilp. */
static char *
row_label(const SmValidation *v, const SmValidateRow *r)
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
    g_autofree char *label = row_label(v, &g_array_index(v->rows, SmValidateRow, i));
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

static void
add_take(GStrvBuilder *b, char *s)
{
  g_strv_builder_add(b, s);
  g_free(s);
}

/* Groups per loop iteration of the measured kernels as the compiler built them, and the
 * MOVs (address set-up) each iteration runs besides the counter update, test and branch:
 * ../shared/data/sass/h100-mix2.sass.txt and h100-mix3.sass.txt. */
typedef struct {
  double alpha;
  guint groups, movs;
  guint chain_movs; /* MOVs on each chain: alpha 0 and alpha >= 96 copy the chain's register
                       (`IMAD.MOV.U32 R8, RZ, RZ, R23`, `MOV R6, R11`) before its first load */
} LoopShape;

static const LoopShape ldg_loops[] = {{0, 64, 8, 1}, {1, 32, 0, 0}, {2, 16, 0, 0}, {4, 16, 0, 0},
                                      {8, 8, 0, 0},  {16, 8, 0, 0}, {24, 4, 0, 0}, {32, 4, 0, 0},
                                      {48, 2, 0, 0}, {64, 2, 0, 0}, {96, 1, 1, 1}};
static const LoopShape sfu_loops[] = {{0, 128, 0, 0}, {1, 64, 0, 0}, {2, 32, 0, 0}, {4, 32, 0, 0},
                                      {8, 16, 0, 0},  {16, 8, 0, 0}, {32, 4, 0, 0}, {64, 2, 0, 0}};
static const LoopShape smem_loops[] = {{0, 128, 0, 0}, {1, 128, 0, 0}, {2, 64, 0, 0},
                                       {4, 64, 0, 0},  {8, 16, 0, 0},  {16, 8, 0, 0},
                                       {32, 4, 0, 0},  {64, 2, 0, 0}};

/* The shape for @alpha: the table's entry for the largest alpha not above it. */
static LoopShape
loop_shape(const Kind *k, double alpha, guint ilp)
{
  if (strcmp(k->other, "none") == 0 || alpha < 0)
    return (LoopShape){.groups = 16}; /* 16 groups of 16 FADDs: 256 FADDs an iteration */
  const LoopShape *t = ldg_loops;
  guint n = G_N_ELEMENTS(ldg_loops);
  if (strcmp(k->other, "MUFU.RSQ") == 0) {
    t = sfu_loops;
    n = G_N_ELEMENTS(sfu_loops);
  } else if (strcmp(k->other, "LDS") == 0) {
    t = smem_loops;
    n = G_N_ELEMENTS(smem_loops);
  }
  LoopShape s = t[0];
  for (guint i = 0; i < n && t[i].alpha <= alpha; i++)
    s = t[i];
  /* ilp chains share an iteration: as many "other" instructions per iteration in all */
  s.groups = MAX(1u, s.groups / ilp);
  return s;
}

static char **
row_sets(const SmValidateRow *r)
{
  const Kind *k = &kinds[r->kind_index];
  gboolean none = r->alpha < 0 || strcmp(k->other, "none") == 0;
  LoopShape loop = loop_shape(k, r->alpha, r->ilp);
  GStrvBuilder *b = g_strv_builder_new();
  add_take(b, g_strdup_printf("warps_per_sm=%u", r->warps));
  add_take(b, g_strdup_printf("groups=%u", r->groups));
  add_take(b, g_strdup_printf("ilp=%u", r->ilp));
  add_take(b, g_strdup_printf("alu_op=%s", k->alu_op));
  add_take(b, g_strdup_printf("unroll=%u", loop.groups));
  g_strv_builder_add(b, "loop_overhead=1");
  add_take(b, g_strdup_printf("loop_movs=%u", loop.movs));
  add_take(b, g_strdup_printf("chain_movs=%u", loop.chain_movs));
  if (none) {
    /* a group of an ALU-only row is 16 rounds of ilp dependent ALU ops */
    g_strv_builder_add(b, "other=none");
    g_strv_builder_add(b, "alpha=16");
  } else {
    add_take(b, g_strdup_printf("other=%s", k->other));
    add_take(b, g_strdup_printf("alpha=%.10g", r->alpha));
    add_take(b, g_strdup_printf("pattern=%s", k->pattern));
    add_take(b, g_strdup_printf("level=%s", k->level));
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

/* The row's overrides: "a=1; b=2" -> {"a=1", "b=2"}. */
static char **
kernel_row_sets(const SmValidateRow *r)
{
  GStrvBuilder *b = g_strv_builder_new();
  g_auto(GStrv) items = g_strsplit(r->set, ";", -1);
  for (guint i = 0; items[i]; i++) {
    char *item = g_strstrip(items[i]);
    if (item[0] != '\0')
      g_strv_builder_add(b, item);
  }
  char **sets = g_strv_builder_end(b);
  g_strv_builder_unref(b);
  return sets;
}

/* The metric of a run, or NAN when the JSON has no number there. */
static double
run_metric(const CfgGpu *gpu, const CfgKernel *kernel, const SmStats *stats, const char *metric)
{
  g_autoptr(JsonNode) root = sm_run_json(gpu, kernel, stats);
  double x;
  return sm_json_lookup_number(root, metric, &x) ? x : NAN;
}

static double
measure_row(const CfgGpu *gpu, const CfgKernel *kernel, const SmStats *stats, guint point,
            gpointer data)
{
  const SmValidation *v = data;
  return run_metric(gpu, kernel, stats, g_array_index(v->rows, SmValidateRow, point).metric);
}

/* Loads row @r of the kernel format as it will run, and checks its metric on an empty run. */
static gboolean
check_kernel_row(const SmValidation *v, const SmValidateRow *r, const CfgRunSource *src,
                 const char *const *sets, char **row_sets, GError **error)
{
  g_autofree char *origin = g_strdup_printf("%s:%u:%u: set", v->path, r->line, r->set_col);
  CfgGpu *gpu = NULL;
  CfgKernel *kernel = NULL;
  if (!cfg_load_run_text_as(src, sets, (const char *const *)row_sets, origin, &gpu, &kernel,
                            error)) {
    if (!g_str_has_prefix((*error)->message, origin))
      g_prefix_error(error, "%s:%u:%u: ", v->path, r->line, r->set_col);
    return FALSE;
  }
  g_autoptr(CfgGpu) g = gpu;
  g_autoptr(CfgKernel) k = kernel;
  SmStats empty = {.n_levels = g->memory.n_levels, .schedulers = g->schedulers, .n_sm = 1};
  if (isnan(run_metric(g, k, &empty, r->metric)))
    return cfg_fail_at(error, v->path, r->line, r->metric_col,
                       "metric '%s' is not a number in the JSON of a run (smsim run --json: "
                       "for example cycles, ipc.total, memory.bytes_per_cycle)",
                       r->metric);
  return TRUE;
}

/* A throughput (more is better): the curve summary gives warps for 90 % of its maximum.  Not a
 * time (cycles, milliseconds) nor a latency. */
static gboolean
is_throughput(const char *metric)
{
  return !g_str_has_suffix(metric, "cycles") && !g_str_has_suffix(metric, "milliseconds") &&
         strstr(metric, "latency") == NULL;
}

static void
source_free(gpointer p)
{
  cfg_run_source_clear(p);
  g_free(p);
}

gboolean
sm_validation_run(SmValidation *v, const char *gpu_path, const char *mix_kernel,
                  const char *const *sets, guint jobs, guint64 max_cycles, SmProgressFunc progress,
                  gpointer progress_data, GError **error)
{
  GArray *rows = v->rows;
  g_autoptr(GHashTable) sources =
      g_hash_table_new_full(g_str_hash, g_str_equal, g_free, source_free);
  g_autofree const CfgRunSource **srcs = g_new0(const CfgRunSource *, rows->len);
  g_autoptr(GPtrArray) points = g_ptr_array_new_with_free_func((GDestroyNotify)g_strfreev);
  for (guint i = 0; i < rows->len; i++) {
    SmValidateRow *r = &g_array_index(rows, SmValidateRow, i);
    const char *kernel = v->format == SM_VALIDATE_KERNEL ? r->kernel : mix_kernel;
    CfgRunSource *src = g_hash_table_lookup(sources, kernel);
    if (src == NULL) {
      src = g_new0(CfgRunSource, 1);
      g_hash_table_insert(sources, g_strdup(kernel), src);
      if (!cfg_run_source_init(src, gpu_path, kernel, error)) {
        if (v->format == SM_VALIDATE_KERNEL && !g_str_has_prefix((*error)->message, gpu_path))
          g_prefix_error(error, "%s:%u:1: kernel: ", v->path, r->line);
        return FALSE;
      }
    }
    srcs[i] = src;
    if (v->format == SM_VALIDATE_KERNEL) {
      char **row_sets = kernel_row_sets(r);
      g_ptr_array_add(points, row_sets);
      if (!check_kernel_row(v, r, src, sets, row_sets, error))
        return FALSE;
    } else {
      g_ptr_array_add(points, row_sets(r));
    }
  }
  g_autofree SmPointResult *results = g_new0(SmPointResult, rows->len);
  SmBatch batch = {.srcs = srcs,
                   .sets = sets,
                   .points = points,
                   .jobs = jobs,
                   .max_cycles = max_cycles,
                   .measure = v->format == SM_VALIDATE_KERNEL ? measure_row : NULL,
                   .measure_data = v,
                   .progress = progress,
                   .progress_data = progress_data};
  if (!sm_dist_batch_run(&batch, results, error))
    return FALSE;
  if (sm_dist_rank() != 0)
    return TRUE; /* rank 0 has every result */
  GHashTable *by_label = g_hash_table_new(g_str_hash, g_str_equal);
  double total_ape = 0;
  for (guint i = 0; i < rows->len; i++) {
    SmValidateRow *r = &g_array_index(rows, SmValidateRow, i);
    const SmStats *s = &results[i].stats;
    g_autofree char *label = row_label(v, r);
    if (v->format == SM_VALIDATE_KERNEL) {
      r->simulated = results[i].metric;
      r->warps = results[i].warps;
    } else {
      /* the measurements count the other instructions and the FADDs (FFMAs) only, not the
       * loop's MOVs, counter update, test and branch */
      guint64 counted = s->issued - s->issued_op[ISA_OP_MOV] - s->issued_op[ISA_OP_IADD3] -
                        s->issued_op[ISA_OP_ISETP] - s->issued_op[ISA_OP_BRA];
      r->simulated = s->cycles ? (double)counted / s->cycles : 0;
    }
    double ape = r->measured != 0 ? fabs(r->simulated - r->measured) / fabs(r->measured) : 0;
    total_ape += ape;
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
    const SmValidateRow *first =
        &g_array_index(rows, SmValidateRow, g_array_index(c->rows, guint, 0));
    if (v->format == SM_VALIDATE_KERNEL && !is_throughput(first->metric)) {
      c->sim90 = c->meas90 = NAN;
      continue;
    }
    c->sim90 = warps_for_90(rows, c->rows, TRUE);
    c->meas90 = warps_for_90(rows, c->rows, FALSE);
  }
  v->total_ape = total_ape;
  return TRUE;
}

/* The number KEY=VALUE gives in a row's set column. */
static gboolean
set_value(const SmValidateRow *r, const char *key, double *out)
{
  g_auto(GStrv) parts = g_strsplit(r->set ? r->set : "", ";", -1);
  for (guint i = 0; parts[i]; i++) {
    const char *eq = strchr(parts[i], '=');
    if (eq && (gsize)(eq - parts[i]) == strlen(key) && strncmp(parts[i], key, strlen(key)) == 0) {
      char *end;
      *out = g_ascii_strtod(eq + 1, &end);
      return end != eq + 1 && *end == '\0' && isfinite(*out);
    }
  }
  return FALSE;
}

gboolean
sm_validation_plot_check(const SmValidation *v, const char *x_key, const char *per_key,
                         GError **error)
{
  if (!x_key && !per_key)
    return TRUE;
  if (v->format != SM_VALIDATE_KERNEL) {
    g_set_error(error, CFG_ERROR, CFG_ERROR_INVALID,
                "%s: --plot-x and --plot-per take keys of the kernel format's set column", v->path);
    return FALSE;
  }
  for (guint i = 0; i < v->rows->len; i++) {
    const SmValidateRow *r = &g_array_index(v->rows, SmValidateRow, i);
    const char *keys[] = {x_key, per_key};
    for (guint k = 0; k < 2; k++) {
      double d;
      if (keys[k] && (!set_value(r, keys[k], &d) || (k == 1 && d == 0)))
        return cfg_fail_at(error, v->path, r->line, r->set_col,
                           "set: no %snumber %s here (--plot-%s)", k ? "non-zero " : "", keys[k],
                           k ? "per" : "x");
    }
  }
  return TRUE;
}

SmPlot *
sm_validation_plot(const SmValidation *v, const char *x_key, const char *per_key)
{
  gboolean mix = v->format == SM_VALIDATE_MIX;
  const char *metric = "measured metric"; /* the rows' metric, when they share one */
  for (guint i = 0; v->format == SM_VALIDATE_KERNEL && i < v->rows->len; i++) {
    const char *m = g_array_index(v->rows, SmValidateRow, i).metric;
    metric = i == 0 || strcmp(m, metric) == 0 ? m : "measured metric";
  }
  g_autofree char *y_label =
      per_key ? g_strdup_printf("%s / %s", metric, per_key) : g_strdup(metric);
  SmPlot *plot = sm_plot_new(mix ? "Simulated (lines) and measured (dots) throughput"
                                 : "Simulated (lines) and measured (dots)",
                             x_key ? x_key : "warps per SM",
                             mix ? "IPC per SM (warp-instructions/cycle)" : y_label);
  double lo = INFINITY, hi = 0;
  for (guint i = 0; i < v->curves->len; i++) {
    const SmValidateCurve *c = g_ptr_array_index(v->curves, i);
    SmPlotSeries *sim = sm_plot_add(plot, c->label, SM_PLOT_LINE, i);
    SmPlotSeries *meas = sm_plot_add(plot, "", SM_PLOT_DOTS, i);
    for (guint j = 0; j < c->rows->len; j++) {
      const SmValidateRow *r =
          &g_array_index(v->rows, SmValidateRow, g_array_index(c->rows, guint, j));
      double x = r->warps, per = 1;
      if (x_key)
        set_value(r, x_key, &x);
      if (per_key)
        set_value(r, per_key, &per);
      lo = MIN(lo, x);
      hi = MAX(hi, x);
      sm_plot_point(sim, x, r->simulated / per);
      sm_plot_point(meas, x, r->measured / per);
    }
  }
  plot->log_x = x_key && lo > 0 && hi / lo >= 100; /* footprints, sizes: decades apart */
  return plot;
}
