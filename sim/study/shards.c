/* Shards of a sweep: which points a shard runs, its part file (written and read), and the
 * merge of all parts back into the sweep.  Not the sweep's points or curves (sweep.c). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sweep.h"

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
