/* smsim occupancy: the occupancy calculator (config/occupancy.c) on the command line, one
 * launch and the same launch for every block size. */
#include <stdio.h>
#include <string.h>

#include "../../config/occupancy.h"
#include "cli.h"
#include "commands.h"

int
sm_cmd_occupancy(int argc, char **argv)
{
  gint threads = -1, regs = 0, smem = 0;
  g_auto(GStrv) sets = NULL;
  const GOptionEntry entries[] = {
      {"threads-per-block", 't', 0, G_OPTION_ARG_INT, &threads, "Threads per block", "T"},
      {"regs-per-thread", 'r', 0, G_OPTION_ARG_INT, &regs, "Registers per thread (default 0)", "R"},
      {"smem-per-block", 'm', 0, G_OPTION_ARG_INT, &smem,
       "Shared memory per block in bytes (default 0)", "B"},
      {"set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets, "Set a GPU key (dotted path)", "K=V"},
      {NULL, 0, 0, 0, NULL, NULL, NULL}};
  if (!sm_cli_parse("occupancy", "GPU.yaml - blocks and warps per SM for a launch", entries, &argc,
                    &argv))
    return 2;
  if (argc != 2)
    return sm_cli_usage("occupancy needs GPU.yaml");
  g_autofree char *gpu_file = sm_cli_find(argv[1], CFG_FIND_GPU);
  if (gpu_file == NULL)
    return 2;
  argv[1] = gpu_file;
  if (threads < 0)
    return sm_cli_usage("occupancy needs --threads-per-block");
  if (regs < 0 || smem < 0) {
    fprintf(stderr, "--regs-per-thread and --smem-per-block must not be negative\n");
    return 2;
  }
  GError *error = NULL;
  g_autoptr(CfgGpu) g = cfg_gpu_load_file_with_sets(argv[1], (const char *const *)sets, &error);
  if (g == NULL)
    return sm_cli_fail(error);
  CfgOccupancy o;
  if (!cfg_occupancy(g, (guint)threads, (guint)regs, (guint)smem, &o, &error))
    return sm_cli_fail(error);
  g_autoptr(GString) out = g_string_new(NULL);
  g_string_append_printf(out, "gpu            %s\n", g->name);
  g_string_append_printf(out,
                         "per SM         %u warps, %u blocks, %u registers (allocated per %s in "
                         "units of %u), %u bytes of shared memory (units of %u)\n",
                         g->limits.max_warps, g->limits.max_blocks, g->limits.registers,
                         g->limits.register_alloc_granularity == CFG_REG_PER_BLOCK ? "block"
                                                                                   : "warp",
                         g->limits.register_alloc_unit, g->limits.shared_memory_bytes,
                         g->limits.shared_memory_alloc_unit);
  g_string_append_printf(out,
                         "block          %u threads = %u warps, %u registers/thread, %u bytes "
                         "of shared memory\n",
                         o.threads_per_block, o.warps_per_block, o.registers_per_thread,
                         o.shared_memory_per_block);
  g_string_append(out, "blocks per SM allowed by each limit\n");
  g_string_append_printf(out, "  warps          %4u   %u warps / %u per block\n",
                         o.limit_blocks[CFG_LIMIT_WARPS], g->limits.max_warps, o.warps_per_block);
  g_string_append_printf(out, "  blocks         %4u\n", o.limit_blocks[CFG_LIMIT_BLOCKS]);
  if (regs)
    g_string_append_printf(out, "  registers      %4u   %u registers per block as allocated\n",
                           o.limit_blocks[CFG_LIMIT_REGISTERS], o.registers_per_block);
  else
    g_string_append_printf(out, "  registers      %4u   (no registers given)\n",
                           o.limit_blocks[CFG_LIMIT_REGISTERS]);
  guint reserved = g->limits.reserved_shared_memory_per_block;
  if (o.shared_memory_allocated && reserved)
    g_string_append_printf(out,
                           "  shared memory  %4u   %u bytes per block as allocated (%u of them "
                           "reserved by the runtime)\n",
                           o.limit_blocks[CFG_LIMIT_SHARED_MEMORY], o.shared_memory_allocated,
                           reserved);
  else if (o.shared_memory_allocated)
    g_string_append_printf(out, "  shared memory  %4u   %u bytes per block as allocated\n",
                           o.limit_blocks[CFG_LIMIT_SHARED_MEMORY], o.shared_memory_allocated);
  else
    g_string_append_printf(out, "  shared memory  %4u   (no shared memory given)\n",
                           o.limit_blocks[CFG_LIMIT_SHARED_MEMORY]);
  g_autofree char *binds = cfg_occupancy_binding(&o);
  g_string_append_printf(out, "limited by     %s\nresident       %u block%s, %u warps per SM\n",
                         binds, o.blocks, o.blocks == 1 ? "" : "s", o.warps);
  g_string_append_printf(out, "occupancy      %.3f (theoretical: %u of %u warps)\n", o.occupancy,
                         o.warps, g->limits.max_warps);
  g_string_append_printf(out,
                         "\nthe same launch with other block sizes (%u registers/thread, %u "
                         "bytes of shared memory per block)\n",
                         o.registers_per_thread, o.shared_memory_per_block);
  g_string_append_printf(out, "%8s %6s %7s %7s %10s  %s\n", "threads", "warps", "blocks",
                         "warps/SM", "occupancy", "limited by");
  for (guint t = 32; t <= g->limits.max_threads_per_block; t += 32) {
    CfgOccupancy r;
    GError *e = NULL;
    if (!cfg_occupancy(g, t, (guint)regs, (guint)smem, &r, &e)) {
      g_string_append_printf(out, "%8u %6u %7s %7s %10s  %s\n", t, (t + 31) / 32, "-", "-", "-",
                             e->message);
      g_error_free(e);
      continue;
    }
    g_string_append_printf(out, "%8u %6u %7u %7u %10.3f  ", t, r.warps_per_block, r.blocks, r.warps,
                           r.occupancy);
    g_autofree char *rb = cfg_occupancy_binding(&r);
    g_string_append_printf(out, "%s\n", rb);
  }
  fputs(out->str, stdout);
  return 0;
}
