/* Typed values from nodes, driven by field tables (load.h: cfg_load_fields()), and what a file's
 * root says it is (a GPU or a kernel).  Not the YAML parsing (load.c). */
#include "load.h"

#include <math.h>
#include <string.h>

static const char *
kind_name(const CfgNode *node)
{
  return node->kind == CFG_NODE_MAP   ? "a mapping"
         : node->kind == CFG_NODE_SEQ ? "a list"
                                      : "a value";
}

/* cfg_node_to_uint64(), its messages naming @key after the node's place where @key is not NULL
 * (a file's line and column say only where; --set's place names the key already) */
static gboolean
to_uint64(const CfgNode *node, const char *key, guint64 min, guint64 max, guint64 *out,
          GError **error)
{
  const char *k = key ? key : "", *sep = key ? ": " : "";
  if (node->kind != CFG_NODE_SCALAR)
    return cfg_fail(error, node, "%s%sexpected a whole number, got %s", k, sep, kind_name(node));
  const char *s = node->value;
  gboolean negative = s[0] == '-';
  char *end = NULL;
  errno = 0;
  guint64 v = g_ascii_strtoull(negative ? s + 1 : s, &end, 10);
  if (s[0] == '\0' || end == (negative ? s + 1 : s) || *end != '\0' || errno == ERANGE ||
      !g_ascii_isdigit(negative ? s[1] : s[0]))
    return cfg_fail(error, node, "%s%sexpected a whole number, got '%s'", k, sep, s);
  if ((negative && v != 0) || v < min)
    return cfg_fail(error, node, "%s%smust be at least %" G_GUINT64_FORMAT ", got %s", k, sep, min,
                    s);
  if (v > max)
    return cfg_fail(error, node, "%s%smust be at most %" G_GUINT64_FORMAT ", got %s", k, sep, max,
                    s);
  *out = v;
  return TRUE;
}

gboolean
cfg_node_to_uint64(const CfgNode *node, guint64 min, guint64 max, guint64 *out, GError **error)
{
  return to_uint64(node, NULL, min, max, out, error);
}

/* cfg_node_to_double(), its messages naming @key as to_uint64()'s */
static gboolean
to_double(const CfgNode *node, const char *key, double min, double max, double *out, GError **error)
{
  const char *k = key ? key : "", *sep = key ? ": " : "";
  if (node->kind != CFG_NODE_SCALAR)
    return cfg_fail(error, node, "%s%sexpected a number, got %s", k, sep, kind_name(node));
  const char *s = node->value;
  double v;
  if (g_ascii_strcasecmp(s, "inf") == 0 || g_ascii_strcasecmp(s, ".inf") == 0) {
    v = INFINITY;
  } else {
    char *end = NULL;
    v = g_ascii_strtod(s, &end);
    if (s[0] == '\0' || *end != '\0' || isnan(v) || g_ascii_isspace(s[0]))
      return cfg_fail(error, node, "%s%sexpected a number, got '%s'", k, sep, s);
  }
  if (v < min)
    return cfg_fail(error, node, "%s%smust be at least %g, got %s", k, sep, min, s);
  if (v > max)
    return cfg_fail(error, node, "%s%smust be at most %g, got %s", k, sep, max, s);
  *out = v;
  return TRUE;
}

gboolean
cfg_node_to_double(const CfgNode *node, double min, double max, double *out, GError **error)
{
  return to_double(node, NULL, min, max, out, error);
}

gboolean
cfg_node_expect_map(const CfgNode *node, const char *section, GError **error)
{
  if (node == NULL || node->kind == CFG_NODE_MAP)
    return TRUE;
  return cfg_fail(error, node, "'%s' must be a mapping of keys to values, got %s", section,
                  kind_name(node));
}

static gboolean
load_field(const CfgNode *v, const CfgField *f, gpointer base, GError **error)
{
  gpointer p = (char *)base + f->offset;
  const char *named = v->set_key ? NULL : f->key; /* (--set's place names the key) */
  switch (f->type) {
  case CFG_FIELD_UINT: {
    guint64 x;
    if (!to_uint64(v, named, (guint64)f->min, (guint64)f->max, &x, error))
      return FALSE;
    *(guint *)p = (guint)x;
    return TRUE;
  }
  case CFG_FIELD_UINT64:
    return to_uint64(v, named, (guint64)f->min, (guint64)f->max, (guint64 *)p, error);
  case CFG_FIELD_DOUBLE:
    return to_double(v, named, f->min, f->max, (double *)p, error);
  case CFG_FIELD_BOOL:
    if (v->kind == CFG_NODE_SCALAR) {
      if (g_strv_contains((const char *const[]){"true", "yes", "on", NULL}, v->value)) {
        *(gboolean *)p = TRUE;
        return TRUE;
      }
      if (g_strv_contains((const char *const[]){"false", "no", "off", NULL}, v->value)) {
        *(gboolean *)p = FALSE;
        return TRUE;
      }
    }
    return cfg_fail(error, v, "'%s' must be true or false", f->key);
  case CFG_FIELD_ENUM:
    if (v->kind == CFG_NODE_SCALAR) {
      for (guint i = 0; f->names[i]; i++) {
        if (strcmp(f->names[i], v->value) == 0) {
          *(int *)p = (int)i;
          return TRUE;
        }
      }
    }
    {
      g_autofree char *list = g_strjoinv(", ", (char **)f->names);
      return cfg_fail(error, v, "'%s' must be one of %s, got '%s'", f->key, list,
                      v->kind == CFG_NODE_SCALAR ? v->value : kind_name(v));
    }
  case CFG_FIELD_STRING:
    if (v->kind != CFG_NODE_SCALAR)
      return cfg_fail(error, v, "'%s' must be text, got %s", f->key, kind_name(v));
    g_free(*(char **)p);
    *(char **)p = g_strdup(v->value);
    return TRUE;
  case CFG_FIELD_SECTION:
    return cfg_node_expect_map(v, f->key, error);
  case CFG_FIELD_LIST:
    if (v->kind != CFG_NODE_SEQ)
      return cfg_fail(error, v, "%s must be a list", f->key);
    return TRUE;
  }
  return TRUE;
}

gboolean
cfg_load_fields(const CfgNode *map, const char *section, const CfgField *fields, guint n_fields,
                gpointer base, GError **error)
{
  if (map == NULL)
    return TRUE;
  if (!cfg_node_expect_map(map, section, error))
    return FALSE;
  for (guint i = 0; i < map->keys->len; i++) {
    const CfgNode *key = g_ptr_array_index(map->keys, i);
    const CfgNode *value = g_ptr_array_index(map->items, i);
    const CfgField *field = NULL;
    for (guint j = 0; j < n_fields; j++)
      if (strcmp(fields[j].key, key->value) == 0)
        field = &fields[j];
    if (field == NULL) {
      GString *known = g_string_new(NULL);
      for (guint j = 0; j < n_fields; j++)
        g_string_append_printf(known, "%s%s", j ? ", " : "", fields[j].key);
      gboolean r = cfg_fail(error, key, "unknown key '%s' in %s (known keys: %s)", key->value,
                            section, known->str);
      g_string_free(known, TRUE);
      return r;
    }
    if (!load_field(value, field, base, error))
      return FALSE;
  }
  return TRUE;
}

gboolean
cfg_is_kernel_file(const CfgNode *root)
{
  gboolean kernel = cfg_node_get(root, "stream") || cfg_node_get(root, "function") ||
                    cfg_node_get(root, "params");
  return kernel && !cfg_node_get(root, "schedulers") && !cfg_node_get(root, "memory");
}

gboolean
cfg_is_gpu_file(const CfgNode *root)
{
  gboolean gpu = cfg_node_get(root, "schedulers") || cfg_node_get(root, "units") ||
                 cfg_node_get(root, "memory");
  return gpu && !cfg_node_get(root, "stream") && !cfg_node_get(root, "function") &&
         !cfg_node_get(root, "params");
}
