/* A run's GPU and kernel loaded together: --set routing (kernel parameters, kernel keys, GPU
 * keys by dotted path) and the sources they are read from.  Not what the keys mean (gpu.c,
 * kernel.c). */
#include <string.h>

#include "find.h"
#include "kernel.h"

gboolean
cfg_apply_sets(CfgNode *gpu_root, CfgNode *kernel_root, const char *const *sets, const char *origin,
               GError **error)
{
  guint n_gpu_tables;
  const CfgFieldTable *gpu_tables = cfg_gpu_field_tables(&n_gpu_tables);
  for (guint i = 0; sets && sets[i]; i++) {
    const char *eq = strchr(sets[i], '=');
    if (eq == NULL || eq == sets[i]) {
      g_set_error(error, CFG_ERROR, CFG_ERROR_INVALID, "%s %s: expected KEY=VALUE", origin,
                  sets[i]);
      return FALSE;
    }
    g_autofree char *key = g_strndup(sets[i], (gsize)(eq - sets[i]));
    const char *value = eq + 1;
    if (*value == '\0') {
      g_set_error(error, CFG_ERROR, CFG_ERROR_INVALID, "%s %s: empty value", origin, key);
      return FALSE;
    }
    const CfgNode *params = cfg_node_get(kernel_root, "params");
    if (!strchr(key, '.') && cfg_node_get(params, key) != NULL) {
      g_autofree char *path = g_strdup_printf("params.%s", key);
      if (!cfg_node_set_path(kernel_root, path, value, origin, error))
        return FALSE;
      continue;
    }
    if (!strchr(key, '.') && cfg_kernel_field(key) && strcmp(key, "params") != 0) {
      if (!cfg_node_set_path(kernel_root, key, value, origin, error))
        return FALSE;
      continue;
    }
    g_auto(GStrv) parts = g_strsplit(key, ".", 2);
    gboolean known = FALSE;
    for (guint f = 0; f < gpu_tables[0].n_fields; f++)
      known |= strcmp(gpu_tables[0].fields[f].key, parts[0]) == 0;
    if (!known) {
      GString *names = g_string_new(NULL);
      const char *best = NULL;
      guint best_d = G_MAXUINT;
      for (guint p = 0; params && p < params->keys->len; p++) {
        const char *name = ((CfgNode *)g_ptr_array_index(params->keys, p))->value;
        g_string_append_printf(names, "%s%s", p ? ", " : "", name);
        cfg_nearer(key, name, &best, &best_d);
      }
      guint n_fields;
      const CfgField *kf = cfg_kernel_fields(&n_fields);
      for (guint f = 0; f < n_fields; f++)
        cfg_nearer(key, kf[f].key, &best, &best_d);
      const char *kernel_best = best;
      for (guint f = 0; f < gpu_tables[0].n_fields; f++)
        cfg_nearer(parts[0], gpu_tables[0].fields[f].key, &best, &best_d);
      /* a GPU key keeps the rest of its dotted path */
      g_autofree char *hint = best == NULL ? g_strdup("")
                              : best != kernel_best && parts[1]
                                  ? g_strdup_printf("; did you mean '%s.%s'?", best, parts[1])
                                  : g_strdup_printf("; did you mean '%s'?", best);
      g_set_error(error, CFG_ERROR, CFG_ERROR_INVALID,
                  "%s %s: no kernel parameter (%s), kernel key or GPU key of that name%s", origin,
                  key, names->len ? names->str : "none declared", hint);
      g_string_free(names, TRUE);
      return FALSE;
    }
    if (!cfg_node_set_path(gpu_root, key, value, origin, error))
      return FALSE;
  }
  return TRUE;
}

gboolean
cfg_load_run_text(const CfgRunSource *src, const char *const *sets, const char *const *varies,
                  CfgGpu **gpu, CfgKernel **kernel, GError **error)
{
  return cfg_load_run_text_as(src, sets, varies, "--vary", gpu, kernel, error);
}

gboolean
cfg_load_run_text_as(const CfgRunSource *src, const char *const *sets, const char *const *varies,
                     const char *vary_origin, CfgGpu **gpu, CfgKernel **kernel, GError **error)
{
  g_autoptr(CfgNode) groot = cfg_load_string(src->gpu_path, src->gpu_text, error);
  if (groot == NULL)
    return FALSE;
  g_autoptr(CfgNode) kroot = cfg_load_string(src->kernel_path, src->kernel_text, error);
  if (kroot == NULL)
    return FALSE;
  if (!cfg_apply_sets(groot, kroot, sets, "--set", error) ||
      !cfg_apply_sets(groot, kroot, varies, vary_origin, error))
    return FALSE;
  g_autoptr(CfgGpu) g = cfg_gpu_load(groot, error);
  if (g == NULL)
    return FALSE;
  CfgKernel *k = cfg_kernel_load(kroot, g, error);
  if (k == NULL)
    return FALSE;
  *gpu = g_steal_pointer(&g);
  *kernel = k;
  return TRUE;
}

gboolean
cfg_run_source_init(CfgRunSource *src, const char *gpu_path, const char *kernel_path,
                    GError **error)
{
  *src = (CfgRunSource){.gpu_path = g_strdup(gpu_path), .kernel_path = g_strdup(kernel_path)};
  return cfg_read_text(gpu_path, &src->gpu_text, error) &&
         cfg_read_text(kernel_path, &src->kernel_text, error);
}

void
cfg_run_source_clear(CfgRunSource *src)
{
  g_free(src->gpu_path);
  g_free(src->gpu_text);
  g_free(src->kernel_path);
  g_free(src->kernel_text);
}

gboolean
cfg_load_run(const char *gpu_path, const char *kernel_path, const char *const *sets, CfgGpu **gpu,
             CfgKernel **kernel, GError **error)
{
  CfgRunSource src;
  gboolean ok = cfg_run_source_init(&src, gpu_path, kernel_path, error) &&
                cfg_load_run_text(&src, sets, NULL, gpu, kernel, error);
  cfg_run_source_clear(&src);
  return ok;
}
