/* smsim describe: a GPU file with its defaults filled in and the model values derived from it
 * (peaks, Little's-law warps). */
#include <stdio.h>

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

int
sm_cmd_describe(int argc, char **argv)
{
  g_auto(GStrv) sets = NULL;
  const GOptionEntry entries[] = {
      {"set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets, "Set a GPU key (dotted path)", "KEY=VALUE"},
      {NULL, 0, 0, 0, NULL, NULL, NULL}};
  if (!sm_cli_parse("describe", "GPU.yaml - print a GPU with defaults and derived values", entries,
                    &argc, &argv))
    return 2;
  if (argc != 2)
    return sm_cli_usage("describe needs GPU.yaml");
  GError *error = NULL;
  g_autoptr(CfgGpu) g = cfg_gpu_load_file_with_sets(argv[1], (const char *const *)sets, &error);
  if (g == NULL)
    return sm_cli_fail(error);
  g_autoptr(GString) out = g_string_new(NULL);
  cfg_gpu_print(g, out);
  describe_derived(g, out);
  fputs(out->str, stdout);
  return 0;
}
