/* smsim list: the GPUs and kernels that names find (config/find.h), and the keys --set takes. */
#include <stdio.h>
#include <string.h>

#include "../../config/kernel.h"
#include "cli.h"
#include "commands.h"

/* The files of @kind, grouped by the folder they were found in. */
static void
list_kind(CfgFindKind kind, gboolean names_only, GString *out)
{
  g_autoptr(GPtrArray) all = cfg_find_all(kind);
  if (names_only) {
    for (guint i = 0; i < all->len; i++)
      g_string_append_printf(out, "%s\n", ((CfgFound *)g_ptr_array_index(all, i))->name);
    return;
  }
  const char *what = kind == CFG_FIND_GPU ? "GPUs" : "kernels";
  if (all->len == 0) {
    g_autoptr(GPtrArray) folders = cfg_find_folders(kind);
    g_string_append_printf(out, "%s: none found (searched: %s)\n", what,
                           folders->len ? "" : "no folder exists");
    for (guint i = 0; i < folders->len; i++)
      g_string_append_printf(out, "  %s\n", (char *)g_ptr_array_index(folders, i));
    return;
  }
  gsize width = 0;
  for (guint i = 0; i < all->len; i++)
    width = MAX(width, strlen(((CfgFound *)g_ptr_array_index(all, i))->name));
  /* one block per folder, in search order (the first block wins a name) */
  g_autoptr(GPtrArray) folders = g_ptr_array_new();
  for (guint rank = 0; folders->len < all->len; rank++) {
    gboolean any = FALSE, more = FALSE;
    for (guint i = 0; i < all->len; i++) {
      const CfgFound *f = g_ptr_array_index(all, i);
      more |= f->rank > rank;
      if (f->rank == rank && !any) {
        g_ptr_array_add(folders, f->folder);
        any = TRUE;
      }
    }
    if (!more)
      break;
  }
  for (guint j = 0; j < folders->len; j++) {
    const char *folder = g_ptr_array_index(folders, j);
    gboolean head = FALSE;
    for (guint i = 0; i < all->len; i++) {
      const CfgFound *f = g_ptr_array_index(all, i);
      if (strcmp(f->folder, folder) != 0)
        continue;
      if (!head)
        g_string_append_printf(out, "%s%s in %s (%s):\n", out->len ? "\n" : "", what, folder,
                               f->origin);
      head = TRUE;
      g_string_append_printf(out, "  %-*s  %s\n", (int)width, f->name, f->description);
    }
  }
}

/* One key of the list: its name, padded, and what it means. */
static void
key_line(GString *out, gboolean names_only, const char *key, const char *meaning)
{
  if (names_only)
    g_string_append_printf(out, "%s\n", key);
  else if (meaning && *meaning)
    g_string_append_printf(out, "  %-36s %s\n", key, meaning);
  else
    g_string_append_printf(out, "  %s\n", key);
}

/* The keys of one GPU table under @prefix ("limits.", "units.fp32.", ...). */
static void
table_keys(const CfgFieldTable *t, const char *prefix, gboolean names_only, GString *out)
{
  for (guint f = 0; f < t->n_fields; f++) {
    const CfgField *field = &t->fields[f];
    if (field->type == CFG_FIELD_SECTION)
      continue;
    g_autofree char *key = g_strconcat(prefix, field->key, NULL);
    key_line(out, names_only, key, field->doc);
  }
}

/* Every key --set takes for this GPU and kernel (@kernel_root may be NULL). */
static void
list_keys(const CfgGpu *gpu, const char *gpu_arg, const CfgNode *kernel_root,
          const char *kernel_arg, gboolean names_only, GString *out)
{
  if (kernel_root) {
    const CfgNode *params = cfg_node_get(kernel_root, "params");
    if (!names_only)
      g_string_append_printf(out, "kernel parameters of %s:\n", kernel_arg);
    for (guint i = 0; params && params->kind == CFG_NODE_MAP && i < params->keys->len; i++) {
      const CfgNode *k = g_ptr_array_index(params->keys, i);
      const CfgNode *v = g_ptr_array_index(params->items, i);
      g_autofree char *meaning = cfg_node_comment(k);
      g_autofree char *text =
          g_strdup_printf("%s (default %s)", meaning ? meaning : "",
                          v->kind == CFG_NODE_SCALAR ? v->value : "not a single value");
      key_line(out, names_only, k->value, g_strstrip(text));
    }
    if (!names_only)
      g_string_append(out, "kernel keys:\n");
    guint n;
    const CfgField *kf = cfg_kernel_fields(&n);
    for (guint f = 0; f < n; f++)
      if (strcmp(kf[f].key, "params") != 0)
        key_line(out, names_only, kf[f].key, kf[f].doc);
  }
  if (!names_only)
    g_string_append_printf(out, "GPU keys of %s (dotted paths):\n", gpu_arg);
  guint n_tables;
  const CfgFieldTable *tables = cfg_gpu_field_tables(&n_tables);
  for (guint t = 0; t < n_tables; t++) {
    const char *section = tables[t].section;
    if (strcmp(section, "units.*") == 0) {
      for (guint u = 0; u < ISA_UNIT_COUNT; u++) {
        g_autofree char *prefix = g_strdup_printf("units.%s.", isa_unit_name(u));
        table_keys(&tables[t], prefix, names_only, out);
      }
    } else if (strcmp(section, "memory.*") == 0) {
      for (guint l = 0; l < gpu->memory.n_levels; l++) {
        g_autofree char *prefix = g_strdup_printf("memory.%s.", gpu->memory.levels[l].name);
        table_keys(&tables[t], prefix, names_only, out);
      }
    } else {
      g_autofree char *prefix = *section ? g_strconcat(section, ".", NULL) : g_strdup("");
      table_keys(&tables[t], prefix, names_only, out);
    }
  }
}

int
sm_cmd_list(int argc, char **argv)
{
  gboolean names_only = FALSE;
  const GOptionEntry entries[] = {
      {"names", 'n', 0, G_OPTION_ARG_NONE, &names_only,
       "Print only the names, one a line (for scripts and shell completion)", NULL},
      {NULL, 0, 0, 0, NULL, NULL, NULL}};
  if (!sm_cli_parse("list",
                    "[gpus|kernels] | keys GPU [KERNEL] - the GPUs and kernels that names find, "
                    "with where they were found; or the keys --set takes",
                    entries, &argc, &argv))
    return 2;
  g_autoptr(GString) out = g_string_new(NULL);
  const char *what = argc > 1 ? argv[1] : "";
  if (argc <= 2 && (argc == 1 || strcmp(what, "gpus") == 0 || strcmp(what, "kernels") == 0)) {
    if (argc == 1 || strcmp(what, "gpus") == 0)
      list_kind(CFG_FIND_GPU, names_only, out);
    if (argc == 1 || strcmp(what, "kernels") == 0)
      list_kind(CFG_FIND_KERNEL, names_only, out);
  } else if (strcmp(what, "keys") == 0) {
    if (argc < 3 || argc > 4)
      return sm_cli_usage("list keys needs a GPU, and may take a KERNEL after it");
    g_autofree char *gpu_path = NULL, *kernel_path = NULL;
    if (!sm_cli_find_pair(argv[2], argc == 4 ? argv[3] : NULL, &gpu_path, &kernel_path))
      return 2;
    GError *error = NULL;
    g_autoptr(CfgGpu) gpu = cfg_gpu_load_file(gpu_path, &error);
    if (gpu == NULL)
      return sm_cli_fail(error);
    g_autoptr(CfgNode) kernel_root = kernel_path ? cfg_load_file(kernel_path, &error) : NULL;
    if (kernel_path && kernel_root == NULL)
      return sm_cli_fail(error);
    list_keys(gpu, argv[2], kernel_root, argc == 4 ? argv[3] : NULL, names_only, out);
  } else {
    g_autofree char *msg = g_strdup_printf("list takes gpus, kernels or keys, not '%s'", what);
    return sm_cli_usage(msg);
  }
  fputs(out->str, stdout);
  return 0;
}
