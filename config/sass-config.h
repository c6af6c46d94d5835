/* What config/ knows of SASS: kernel files over SASS (sass.c: the keys a kernel file gives
 * instead of a stream) and a GPU file's sass.ops (sass-ops.c).  Internal to config/: everything
 * else reads the results in CfgKernel.sass (kernel.h) and CfgGpu.sass (gpu.h). */
#pragma once

#include "kernel.h"
#include "occupancy.h"

/* Loads the SASS keys of @root into @k (its parameters already loaded). */
gboolean cfg_sass_kernel_load(CfgKernel *k, const CfgNode *root, const CfgGpu *gpu, GError **error);
void cfg_sass_free(CfgSass *s);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(CfgSass, cfg_sass_free)

/* sass: {ops: {DFMA: {unit: alu, latency_cycles: 8, lanes_per_scheduler: 16}, ...}} into @g
 * (@map may be NULL); and the ops it sets, as a GPU file writes them. */
gboolean cfg_sass_ops_load(CfgGpu *g, const CfgNode *map, GError **error);
void cfg_sass_ops_print(const CfgGpu *g, GString *out);
