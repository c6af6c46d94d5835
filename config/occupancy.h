/* The occupancy calculator: how many blocks of a launch one SM holds, and what limits it; not
 * the block scheduler that places them (sim/blocks.h).
 * Same rules as NVIDIA's CUDA occupancy calculator: warps, blocks, registers (allocated per
 * warp or per block in units, warps rounded to a granularity) and shared memory (in units). */
#pragma once

#include "gpu.h"

typedef enum {
  CFG_LIMIT_WARPS,
  CFG_LIMIT_BLOCKS,
  CFG_LIMIT_REGISTERS,
  CFG_LIMIT_SHARED_MEMORY,
  CFG_LIMIT_COUNT
} CfgLimit;

const char *cfg_limit_name(CfgLimit limit);

typedef struct {
  guint threads_per_block, warps_per_block, registers_per_thread, shared_memory_per_block;
  guint registers_per_block;     /* as allocated */
  guint shared_memory_allocated; /* per block, as allocated */
  guint limit_blocks[CFG_LIMIT_COUNT];
  gboolean binds[CFG_LIMIT_COUNT]; /* limits equal to the result */
  guint blocks, warps;             /* resident per SM */
  double occupancy;                /* warps / max_warps */
} CfgOccupancy;

/* Fails (CFG_ERROR_INVALID, message without position) when the block cannot run at all:
 * too many threads, registers over the per-thread cap, more shared memory than a block may
 * have, or a block that alone needs more registers than the SM has. */
gboolean cfg_occupancy(const CfgGpu *gpu, guint threads_per_block, guint registers_per_thread,
                       guint shared_memory_per_block, CfgOccupancy *out, GError **error);

/* The binding limits as text, e.g. "registers" or "warps, registers" (newly allocated). */
char *cfg_occupancy_binding(const CfgOccupancy *occ);
