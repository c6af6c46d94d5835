/* The occupancy calculator's arithmetic: per-limit block counts with allocation units and
 * granularities.  Not the command that prints it (sim/cli/occupancy.c). */
#include "occupancy.h"

static const char *const limit_names[CFG_LIMIT_COUNT] = {"warps", "blocks", "registers",
                                                         "shared memory"};

const char *
cfg_limit_name(CfgLimit limit)
{
  return limit < CFG_LIMIT_COUNT ? limit_names[limit] : "?";
}

static guint
round_up(guint x, guint unit)
{
  return (x + unit - 1) / unit * unit;
}

gboolean
cfg_occupancy(const CfgGpu *gpu, guint threads, guint regs, guint smem, CfgOccupancy *o,
              GError **error)
{
  *o = (CfgOccupancy){
      .threads_per_block = threads, .registers_per_thread = regs, .shared_memory_per_block = smem};
  guint max_smem_block = gpu->limits.max_shared_memory_per_block
                             ? gpu->limits.max_shared_memory_per_block
                             : gpu->limits.shared_memory_bytes;
  if (threads == 0 || threads > gpu->limits.max_threads_per_block) {
    g_set_error(error, CFG_ERROR, CFG_ERROR_INVALID,
                "blocks of %u threads are impossible: 1 to %u threads", threads,
                gpu->limits.max_threads_per_block);
    return FALSE;
  }
  if (regs > gpu->limits.max_registers_per_thread) {
    g_set_error(error, CFG_ERROR, CFG_ERROR_INVALID,
                "%u registers per thread is over the limit of %u", regs,
                gpu->limits.max_registers_per_thread);
    return FALSE;
  }
  if (smem > max_smem_block) {
    g_set_error(error, CFG_ERROR, CFG_ERROR_INVALID,
                "%u bytes of shared memory per block is over the limit of %u", smem,
                max_smem_block);
    return FALSE;
  }
  guint wpb = (threads + 31) / 32;
  o->warps_per_block = wpb;
  o->limit_blocks[CFG_LIMIT_WARPS] = gpu->limits.max_warps / wpb;
  o->limit_blocks[CFG_LIMIT_BLOCKS] = gpu->limits.max_blocks;
  guint unit = gpu->limits.register_alloc_unit;
  if (regs == 0) {
    o->limit_blocks[CFG_LIMIT_REGISTERS] = gpu->limits.max_blocks;
  } else if (gpu->limits.register_alloc_granularity == CFG_REG_PER_BLOCK) {
    o->registers_per_block = round_up(regs * 32 * wpb, unit);
    o->limit_blocks[CFG_LIMIT_REGISTERS] = gpu->limits.registers / o->registers_per_block;
  } else {
    guint per_warp = round_up(regs * 32, unit);
    guint g = gpu->limits.warp_alloc_granularity;
    guint warps = gpu->limits.registers / per_warp / g * g;
    o->registers_per_block = per_warp * wpb;
    /* the hardware checks a block against the register file as if its warps were rounded up
     * to the granularity (allocated in every scheduler's partition at once) */
    if ((guint64)per_warp * round_up(wpb, g) > gpu->limits.registers)
      warps = 0;
    o->limit_blocks[CFG_LIMIT_REGISTERS] = warps / wpb;
  }
  guint smem_used = smem + gpu->limits.reserved_shared_memory_per_block;
  if (smem_used == 0) {
    o->limit_blocks[CFG_LIMIT_SHARED_MEMORY] = gpu->limits.max_blocks;
  } else {
    o->shared_memory_allocated = round_up(smem_used, gpu->limits.shared_memory_alloc_unit);
    o->limit_blocks[CFG_LIMIT_SHARED_MEMORY] =
        gpu->limits.shared_memory_bytes / o->shared_memory_allocated;
  }
  o->blocks = G_MAXUINT;
  for (guint i = 0; i < CFG_LIMIT_COUNT; i++)
    o->blocks = MIN(o->blocks, o->limit_blocks[i]);
  for (guint i = 0; i < CFG_LIMIT_COUNT; i++)
    o->binds[i] = o->limit_blocks[i] == o->blocks;
  if (o->limit_blocks[CFG_LIMIT_REGISTERS] == 0) {
    g_set_error(error, CFG_ERROR, CFG_ERROR_INVALID,
                "one block of %u threads x %u registers needs %u registers, more than the SM's "
                "%u: it cannot run",
                threads, regs, o->registers_per_block, gpu->limits.registers);
    return FALSE;
  }
  if (o->blocks == 0) {
    g_set_error(error, CFG_ERROR, CFG_ERROR_INVALID,
                "one block needs %u bytes of shared memory as allocated (%u reserved by the "
                "runtime), more than the SM's %u: it cannot run",
                o->shared_memory_allocated, gpu->limits.reserved_shared_memory_per_block,
                gpu->limits.shared_memory_bytes);
    return FALSE;
  }
  o->warps = o->blocks * wpb;
  o->occupancy = (double)o->warps / gpu->limits.max_warps;
  return TRUE;
}

char *
cfg_occupancy_binding(const CfgOccupancy *o)
{
  GString *s = g_string_new(NULL);
  for (guint i = 0; i < CFG_LIMIT_COUNT; i++)
    if (o->binds[i])
      g_string_append_printf(s, "%s%s", s->len ? ", " : "", cfg_limit_name(i));
  return g_string_free(s, FALSE);
}
