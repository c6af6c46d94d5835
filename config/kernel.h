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

/* A kernel argument of a kernel over SASS (in the order of the CUDA source). */
typedef enum {
  CFG_ARG_I32,
  CFG_ARG_U32,
  CFG_ARG_I64,
  CFG_ARG_U64,
  CFG_ARG_F32,
  CFG_ARG_F64,
  CFG_ARG_BUFFER, /* a pointer to a buffer of its own */
} CfgArgType;

/* What a buffer holds before the run. */
typedef enum {
  CFG_FILL_ZEROS,
  CFG_FILL_CONSTANT, /* every element the same value */
  CFG_FILL_IOTA,     /* element i holds i */
  CFG_FILL_RANDOM,   /* seeded: floats uniform in [-1, 1), integers uniform over their range */
  CFG_FILL_FILE,     /* the bytes of a file (the rest zeros) */
} CfgFill;

typedef enum { CFG_ELEM_F32, CFG_ELEM_F64, CFG_ELEM_I32, CFG_ELEM_U32, CFG_ELEM_U8 } CfgElement;

/* unnamed_level when the caches decide each access's level */
#define CFG_LEVEL_CACHED 0xFFu

typedef struct {
  char *name;
  int type;     /* CfgArgType */
  guint64 bits; /* a scalar's value as the device holds it */
  /* buffers */
  guint64 bytes;  /* allocation size */
  guint64 offset; /* the kernel gets the buffer's address plus this */
  int fill;       /* CfgFill */
  int element;    /* CfgElement of constant, iota and random fills */
  double constant;
  guint64 seed;
  char *file;   /* CFG_FILL_FILE: its path (relative paths: to the kernel file) */
  guint8 *data; /* ... and its bytes, read when the kernel file is loaded */
  gsize data_size;
  guint8 level;  /* GPU memory level of its global accesses */
  guint same_as; /* 1 + the index of the earlier buffer argument whose memory this one points
                    into (same_as: NAME; the kernel's two pointers alias), 0: its own */
} CfgArg;

/* A kernel over SASS: the function, its launch, and its arguments. */
typedef struct {
  char *path; /* the SASS file */
  SassFile *file;
  const SassFunction *fn;
  guint grid[3], block[3];
  guint static_shared_bytes, dynamic_shared_bytes, local_bytes_per_thread;
  CfgArg *args;
  guint n_args;
  CfgArg constants; /* c[0x3], the kernel's __constant__ data (bytes 0: none) */
} CfgSass;

typedef struct {
  char *name;
  char *description;
  CfgSass *sass; /* NULL: the stream is the kernel file's own */
  guint warps_per_sm;
  guint blocks_per_sm;
  guint threads_per_block;
  guint warps_per_block;
  guint registers_per_thread;
  guint shared_memory_per_block;
  guint64 instructions_per_warp; /* 0 = every warp runs the stream once */
  gboolean warm_up;              /* walk the windows before the run (sim/window.c) */
  guint64 written_before_launch; /* bytes stored to another buffer before the launch: the L2's
                                  * state at launch (sim/memory.c) */
  guint grid_blocks;             /* blocks the kernel launches; blocks_per_sm of them resident */
  GArray *warp_passes;           /* guint per warp of a block (cycled): stream passes */
  GArray *block_passes;          /* guint per block of the grid (cycled): stream passes */
  IsaProgram *program;
  guint8 level_map[ISA_MAX_LEVELS]; /* program level -> GPU memory level */
  /* GPU memory level of a global access that names none (streams: one with a window; SASS:
   * a buffer without level): CFG_LEVEL_CACHED when the GPU has caches, else dram */
  guint8 unnamed_level;
  GPtrArray *param_names; /* declared parameters, in file order */
  GHashTable *params;     /* name -> value text after --set */
} CfgKernel;

/* Loads a kernel from @root and binds it to @gpu (memory levels, residency limits). */
CfgKernel *cfg_kernel_load(const CfgNode *root, const CfgGpu *gpu, GError **error);
void cfg_kernel_free(CfgKernel *kernel);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(CfgKernel, cfg_kernel_free)

/* Applies "KEY=VALUE" strings: a declared kernel parameter, else a top-level kernel key,
 * else a GPU key path.  Errors name "--set KEY". */
/* The launch key called @key (cfg_kernel_fields()), or NULL. */
const CfgField *cfg_kernel_field(const char *key);

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
