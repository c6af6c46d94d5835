/* A kernel: its launch on one SM and the per-warp instruction stream, as loaded; not how it
 * runs (sim/).
 *
 * Kernel files declare parameters with defaults under "params:"; the stream and the launch
 * keys may use them ($alpha, ${...} expressions).  "--set NAME=VALUE" changes a parameter, a
 * top-level kernel key, or a GPU key given by its dotted path (cfg_apply_sets()).
 */
#pragma once

#include "gpu.h"
#include "../isa/stream.h"

/* Warp slots of all simulated SMs together (warps_per_sm x sm_count): each has its own
 * scoreboard, so this bounds the memory a run takes (the whole H100 is 132 x 64 = 8448). */
#define CFG_MAX_WARPS_SIMULATED 65536u

typedef struct {
  char *name;
  char *description;
  guint warps_per_sm;
  guint blocks_per_sm;
  guint threads_per_block;
  guint warps_per_block;
  guint registers_per_thread;
  guint shared_memory_per_block;
  guint64 instructions_per_warp; /* 0 = every warp runs the stream once */
  guint grid_blocks;             /* blocks the kernel launches; blocks_per_sm of them resident */
  GArray *warp_passes;           /* guint per warp of a block (cycled): stream passes */
  GArray *block_passes;          /* guint per block of the grid (cycled): stream passes */
  IsaProgram *program;
  guint8 level_map[ISA_MAX_LEVELS]; /* program level -> GPU memory level */
  GPtrArray *param_names;           /* declared parameters, in file order */
  GHashTable *params;               /* name -> value text after --set */
} CfgKernel;

/* Loads a kernel from @root and binds it to @gpu (memory levels, residency limits). */
CfgKernel *cfg_kernel_load(const CfgNode *root, const CfgGpu *gpu, GError **error);
void cfg_kernel_free(CfgKernel *kernel);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(CfgKernel, cfg_kernel_free)

/* Applies "KEY=VALUE" strings: a declared kernel parameter, else a top-level kernel key,
 * else a GPU key path.  Errors name "--set KEY". */
gboolean cfg_apply_sets(CfgNode *gpu_root, CfgNode *kernel_root, const char *const *sets,
                        const char *origin, GError **error);

/* The text of a GPU file and a kernel file, read once and loaded many times (sweeps). */
typedef struct {
  char *gpu_path, *gpu_text;
  char *kernel_path, *kernel_text;
} CfgRunSource;

gboolean cfg_run_source_init(CfgRunSource *src, const char *gpu_path, const char *kernel_path,
                             GError **error);
void cfg_run_source_clear(CfgRunSource *src);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(CfgRunSource, cfg_run_source_clear)
/* Loads @src with @sets (errors name "--set KEY") then @varies ("--vary KEY"); both may be
 * NULL. */
gboolean cfg_load_run_text(const CfgRunSource *src, const char *const *sets,
                           const char *const *varies, CfgGpu **gpu, CfgKernel **kernel,
                           GError **error);
/* The same with the origin @varies' errors name instead of "--vary" ("m.csv:3:9: set"). */
gboolean cfg_load_run_text_as(const CfgRunSource *src, const char *const *sets,
                              const char *const *varies, const char *vary_origin, CfgGpu **gpu,
                              CfgKernel **kernel, GError **error);

/* Loads both files, applies @sets (may be NULL) and binds them. */
gboolean cfg_load_run(const char *gpu_path, const char *kernel_path, const char *const *sets,
                      CfgGpu **gpu, CfgKernel **kernel, GError **error);

const CfgField *cfg_kernel_fields(guint *n_fields);
