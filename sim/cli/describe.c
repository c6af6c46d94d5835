/* smsim describe: a GPU file with its defaults filled in and the model values derived from it
 * (peaks, Little's-law warps). */
#include <stdio.h>
#include <string.h>

#include "../study/model.h"
#include "cli.h"
#include "commands.h"

static void
describe_derived(const CfgGpu *g, GString *out)
{
  g_string_append(out, "\n# derived (model values, not simulation results)\nderived:\n");
  g_string_append_printf(out, "  peak_issue_ipc: %g            # schedulers x issue_width\n",
                         sm_model_issue_peak(g));
  g_string_append(out, "  peak_ipc:                     # warp-instructions/cycle/SM\n");
  for (guint u = 0; u < ISA_UNIT_COUNT; u++)
    g_string_append_printf(out, "    %s: %g\n", isa_unit_name(u), sm_model_unit_peak(g, u));
  g_string_append_printf(out, "    shared_memory: %g\n", sm_model_smem_peak(g));
  g_string_append_printf(out, "  peak_flops_per_cycle: %g      # FADD lanes: 32 x peak alu\n",
                         32 * sm_model_unit_peak(g, ISA_UNIT_ALU));
  g_string_append(out, "  memory:\n");
  for (guint l = 0; l < g->memory.n_levels; l++) {
    const CfgMemLevel *lv = &g->memory.levels[l];
    g_string_append_printf(out,
                           "    %s: {peak_bytes_per_cycle: %g, peak_line_loads_per_cycle: %.4g, "
                           "gbytes_per_s_per_sm: %.3g}\n",
                           lv->name, lv->bytes_per_cycle, sm_model_level_peak(g, l),
                           lv->bytes_per_cycle * g->clock_mhz / 1000);
  }
  g_string_append(out, "  littles_law_warps:            # latency x peak throughput, one "
                       "dependent chain per warp\n");
  for (guint u = 0; u < ISA_UNIT_COUNT; u++) {
    if (u == ISA_UNIT_LDST)
      continue;
    guint lat = g->units[u].latency_cycles;
    double thru = sm_model_unit_peak(g, u);
    g_string_append_printf(out, "    %s: %.1f                  # %u x %g\n", isa_unit_name(u),
                           lat * thru, lat, thru);
  }
  g_string_append_printf(out, "    shared_memory: %.1f        # %u x %g\n",
                         g->smem.latency_cycles * sm_model_smem_peak(g), g->smem.latency_cycles,
                         sm_model_smem_peak(g));
  for (guint l = 0; l < g->memory.n_levels; l++) {
    const CfgMemLevel *lv = &g->memory.levels[l];
    double thru = sm_model_level_peak(g, l);
    g_string_append_printf(out, "    %s: %.1f                 # %u x %.4g\n", lv->name,
                           lv->latency_cycles * thru, lv->latency_cycles, thru);
  }
  if (!cfg_gpu_has_caches(g))
    return;
  const CfgCache *l1 = &g->caches.l1, *l2 = &g->caches.l2;
  guint line = g->memory.line_bytes;
  /* L1 hits are limited by the LD/ST pipe alone; L2 hits in a far partition by the hit level */
  double ldst = sm_model_unit_peak(g, ISA_UNIT_LDST);
  if (l1->bytes || l1->unified_bytes) {
    guint64 bytes = l1->unified_bytes ? l1->unified_bytes : l1->bytes;
    g_string_append_printf(out, "    l1_hit: %.1f                # %u x %g (the LD/ST pipe)\n",
                           l1->latency_cycles * ldst, l1->latency_cycles, ldst);
    g_string_append_printf(out,
                           "  l1: {bytes_per_sm: %" G_GUINT64_FORMAT ", lines: %" G_GUINT64_FORMAT
                           ", sets: %" G_GUINT64_FORMAT "}%s\n",
                           bytes, bytes / line, bytes / line / l1->ways,
                           l1->unified_bytes ? "   # with no shared memory in use" : "");
  }
  if (l2->bytes) {
    guint hit = g->memory.levels[l2->hit_level_index].latency_cycles;
    guint far = l2->far_latency_cycles ? l2->far_latency_cycles : hit;
    double thru = sm_model_level_peak(g, (guint)l2->hit_level_index);
    g_string_append_printf(
        out,
        "  l2: {bytes: %" G_GUINT64_FORMAT ", bytes_per_partition: %" G_GUINT64_FORMAT
        ", lines: %" G_GUINT64_FORMAT ", near_latency: %u, far_latency: %u, "
        "littles_law_warps_far: %.1f}\n",
        l2->bytes, l2->bytes / l2->partitions, l2->bytes / line, hit, far, far * thru);
  }
}

/* A kernel file: its name, description, parameters with their defaults and meanings (the
 * comments written beside them), and what they must satisfy. */
static void
describe_kernel(const char *path, const CfgNode *root, GString *out)
{
  const CfgNode *name = cfg_node_get(root, "name"), *desc = cfg_node_get(root, "description");
  g_string_append_printf(out, "# %s: a kernel file (smsim run GPU.yaml %s --set NAME=VALUE ...)\n",
                         path, path);
  if (name && name->kind == CFG_NODE_SCALAR)
    g_string_append_printf(out, "name: %s\n", name->value);
  if (desc && desc->kind == CFG_NODE_SCALAR) {
    g_autofree char *d = g_strstrip(g_strdup(desc->value));
    g_string_append_printf(out, "description: %s\n", d);
  }
  const CfgNode *params = cfg_node_get(root, "params");
  if (params && params->kind == CFG_NODE_MAP && params->keys->len > 0) {
    GPtrArray *heads = g_ptr_array_new_with_free_func(g_free);
    gsize width = 0;
    for (guint i = 0; i < params->keys->len; i++) {
      const CfgNode *k = g_ptr_array_index(params->keys, i),
                    *v = g_ptr_array_index(params->items, i);
      char *head = g_strdup_printf("  %s: %s", k->value,
                                   v->kind == CFG_NODE_SCALAR ? v->value : "(not a value)");
      width = MAX(width, strlen(head));
      g_ptr_array_add(heads, head);
    }
    g_string_append_printf(out, "%-*s # the default, and what it means\n", (int)width, "params:");
    for (guint i = 0; i < params->keys->len; i++) {
      g_autofree char *meaning = cfg_node_comment(g_ptr_array_index(params->keys, i));
      const char *head = g_ptr_array_index(heads, i);
      if (meaning)
        g_string_append_printf(out, "%-*s # %s\n", (int)width, head, meaning);
      else
        g_string_append_printf(out, "%s\n", head);
    }
    g_ptr_array_free(heads, TRUE);
  } else {
    g_string_append(out, "params: {}   # none: the file sets everything itself\n");
  }
  const CfgNode *req = cfg_node_get(root, "require");
  if (req && req->kind == CFG_NODE_SEQ && req->items->len > 0) {
    g_string_append(out, "require:     # what the parameters must satisfy\n");
    for (guint i = 0; i < req->items->len; i++) {
      const CfgNode *r = g_ptr_array_index(req->items, i);
      const CfgNode *that = r->kind == CFG_NODE_MAP ? cfg_node_get(r, "that") : NULL;
      const CfgNode *why = r->kind == CFG_NODE_MAP ? cfg_node_get(r, "else") : NULL;
      if (why && why->kind == CFG_NODE_SCALAR)
        g_string_append_printf(out, "  - %s\n", why->value);
      else if (that && that->kind == CFG_NODE_SCALAR)
        g_string_append_printf(out, "  - %s\n", that->value);
    }
  }
}

int
sm_cmd_describe(int argc, char **argv)
{
  g_auto(GStrv) sets = NULL;
  const GOptionEntry entries[] = {
      {"set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets, "Set a GPU key (dotted path)", "KEY=VALUE"},
      {NULL, 0, 0, 0, NULL, NULL, NULL}};
  if (!sm_cli_parse("describe",
                    "GPU.yaml|KERNEL.yaml - print a GPU with defaults and derived values, or a "
                    "kernel's parameters with their defaults and meanings",
                    entries, &argc, &argv))
    return 2;
  if (argc != 2)
    return sm_cli_usage("describe needs GPU.yaml or KERNEL.yaml");
  g_autofree char *file = sm_cli_find(argv[1], CFG_FIND_ANY);
  if (file == NULL)
    return 2;
  argv[1] = file;
  GError *error = NULL;
  {
    g_autoptr(CfgNode) root = cfg_load_file(argv[1], &error);
    if (root == NULL)
      return sm_cli_fail(error);
    if (cfg_is_kernel_file(root)) {
      if (sets)
        return sm_cli_usage("describe KERNEL.yaml takes no --set (it lists the defaults)");
      g_autoptr(GString) out = g_string_new(NULL);
      describe_kernel(argv[1], root, out);
      fputs(out->str, stdout);
      return 0;
    }
  }
  g_autoptr(CfgGpu) g = cfg_gpu_load_file_with_sets(argv[1], (const char *const *)sets, &error);
  if (g == NULL)
    return sm_cli_fail(error);
  g_autoptr(GString) out = g_string_new(NULL);
  cfg_gpu_print(g, out);
  describe_derived(g, out);
  fputs(out->str, stdout);
  return 0;
}
