/* Kernel files over SASS (config/sass.c): the keys a kernel file gives instead of a stream.
 * Internal to config/: everything else reads the result in CfgKernel.sass (kernel.h). */
#pragma once

#include "kernel.h"
#include "occupancy.h"

/* Loads the SASS keys of @root into @k (its parameters already loaded). */
gboolean cfg_sass_kernel_load(CfgKernel *k, const CfgNode *root, const CfgGpu *gpu, GError **error);
void cfg_sass_free(CfgSass *s);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(CfgSass, cfg_sass_free)
