/* What gpu.c and gpu-memory.c share: the field macro and the memory path's keys.  Internal
 * to config/. */
#pragma once

#include "gpu.h"

/* a field of CfgGpu */
#define F(k, t, field, lo, hi, u, d)                                                               \
  {                                                                                                \
    .key = k, .type = t, .offset = G_STRUCT_OFFSET(CfgGpu, field), .min = lo, .max = hi,           \
    .unit = u, .doc = d                                                                            \
  }

#define CFG_N_MEMORY_FIELDS 12u
#define CFG_N_LEVEL_FIELDS 14u
#define CFG_N_L1_FIELDS 10u
#define CFG_N_L2_FIELDS 10u
#define CFG_N_BRANCH_FIELDS 5u
#define CFG_N_SASS_FIELDS 11u
#define CFG_N_CONSTANT_CACHE_FIELDS 7u
#define CFG_N_LSU_FIELDS 10u
extern const CfgField cfg_memory_fields[CFG_N_MEMORY_FIELDS];
extern const CfgField cfg_level_fields[CFG_N_LEVEL_FIELDS];
extern const CfgField cfg_l1_fields[CFG_N_L1_FIELDS], cfg_l2_fields[CFG_N_L2_FIELDS];
extern const CfgField cfg_sass_branch_fields[CFG_N_BRANCH_FIELDS];
extern const CfgField cfg_sass_fields[CFG_N_SASS_FIELDS];
extern const CfgField cfg_constant_cache_fields[CFG_N_CONSTANT_CACHE_FIELDS];
extern const CfgField cfg_lsu_fields[CFG_N_LSU_FIELDS];

/* memory: scalar keys and levels into @g; caches: l1 and l2 (@map may be NULL), after memory */
gboolean cfg_gpu_memory_load(CfgGpu *g, const CfgNode *map, GError **error);
gboolean cfg_gpu_caches_load(CfgGpu *g, const CfgNode *map, GError **error);
/* Both sections as a GPU file writes them, every key. */
void cfg_gpu_memory_print(const CfgGpu *g, GString *out);

/* constant_cache (@map may be NULL: none), and as a GPU file writes it (nothing when none) */
gboolean cfg_gpu_constant_cache_load(CfgGpu *g, const CfgNode *map, GError **error);
void cfg_gpu_constant_cache_print(const CfgGpu *g, GString *out);

/* lsu as a GPU file writes it, every key */
void cfg_gpu_lsu_print(const CfgGpu *g, GString *out);
