/* A kernel's 'ranges': what each parameter sensibly takes, for interactive front ends (the lab
 * page of smsim serve offers a slider from min to max, or a menu of the listed values).  A
 * hint, not a check: runs outside a range are not refused ('require' refuses). */
#include "ranges.h"

#include <math.h>
#include <string.h>

void
cfg_param_range_free(CfgParamRange *r)
{
  if (r == NULL)
    return;
  g_free(r->name);
  g_strfreev(r->choices);
  g_free(r);
}

static gboolean
number(const CfgNode *v, const char *what, double *out, GError **error)
{
  if (v->kind != CFG_NODE_SCALAR)
    return cfg_fail(error, v, "%s must be a number", what);
  char *end;
  *out = g_ascii_strtod(v->value, &end);
  if (end == v->value || *end != '\0' || !isfinite(*out))
    return cfg_fail(error, v, "%s must be a number, got '%s'", what, v->value);
  return TRUE;
}

/* {min: A, max: B[, step: S]} */
static gboolean
numeric_range(const CfgNode *key, const CfgNode *map, CfgParamRange *r, GError **error)
{
  r->step = 0;
  gboolean has_min = FALSE, has_max = FALSE;
  for (guint i = 0; i < map->keys->len; i++) {
    const CfgNode *k = g_ptr_array_index(map->keys, i);
    const CfgNode *v = g_ptr_array_index(map->items, i);
    g_autofree char *what = g_strdup_printf("ranges.%s.%s", key->value, k->value);
    if (strcmp(k->value, "min") == 0) {
      if (!number(v, what, &r->min, error))
        return FALSE;
      has_min = TRUE;
    } else if (strcmp(k->value, "max") == 0) {
      if (!number(v, what, &r->max, error))
        return FALSE;
      has_max = TRUE;
    } else if (strcmp(k->value, "step") == 0) {
      if (!number(v, what, &r->step, error))
        return FALSE;
      if (r->step <= 0)
        return cfg_fail(error, v, "%s must be above 0", what);
    } else {
      return cfg_fail(error, k, "unknown key '%s' in ranges.%s (known keys: min, max, step)",
                      k->value, key->value);
    }
  }
  if (!has_min || !has_max)
    return cfg_fail(error, map, "ranges.%s needs both min and max", key->value);
  if (r->min > r->max)
    return cfg_fail(error, map, "ranges.%s: min %g is above max %g", key->value, r->min, r->max);
  return TRUE;
}

GPtrArray *
cfg_param_ranges(const CfgNode *root, GError **error)
{
  g_autoptr(GPtrArray) out = g_ptr_array_new_with_free_func((GDestroyNotify)cfg_param_range_free);
  const CfgNode *ranges = cfg_node_get(root, "ranges");
  if (ranges == NULL)
    return g_steal_pointer(&out);
  if (!cfg_node_expect_map(ranges, "ranges", error))
    return NULL;
  const CfgNode *params = cfg_node_get(root, "params");
  for (guint i = 0; i < ranges->keys->len; i++) {
    const CfgNode *key = g_ptr_array_index(ranges->keys, i);
    const CfgNode *v = g_ptr_array_index(ranges->items, i);
    if (params == NULL || params->kind != CFG_NODE_MAP || cfg_node_get(params, key->value) == NULL)
      return (cfg_fail(error, key, "ranges.%s: the kernel has no parameter '%s'", key->value,
                       key->value),
              NULL);
    for (guint j = 0; j < out->len; j++)
      if (strcmp(((CfgParamRange *)g_ptr_array_index(out, j))->name, key->value) == 0)
        return (cfg_fail(error, key, "ranges.%s is given twice", key->value), NULL);
    CfgParamRange *r = g_new0(CfgParamRange, 1);
    r->name = g_strdup(key->value);
    g_ptr_array_add(out, r);
    if (v->kind == CFG_NODE_MAP) {
      if (!numeric_range(key, v, r, error))
        return NULL;
    } else if (v->kind == CFG_NODE_SEQ && v->items->len > 0) {
      r->choices = g_new0(char *, v->items->len + 1);
      for (guint j = 0; j < v->items->len; j++) {
        const CfgNode *c = g_ptr_array_index(v->items, j);
        if (c->kind != CFG_NODE_SCALAR || c->value[0] == '\0')
          return (
              cfg_fail(error, c, "ranges.%s: each value is a single word or number", key->value),
              NULL);
        r->choices[j] = g_strdup(c->value);
      }
    } else {
      return (cfg_fail(error, v,
                       "ranges.%s is {min: A, max: B} (and optionally step: S), or a list of the "
                       "values the parameter takes",
                       key->value),
              NULL);
    }
  }
  return g_steal_pointer(&out);
}
