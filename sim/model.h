/* Analytic numbers derived from a GPU file: peaks, and Little's-law concurrency.  These are
 * printed next to simulated results for comparison; the simulator never uses them. */
#pragma once

#include "../config/gpu.h"

/* Warp-instructions per cycle per SM the schedulers can issue. */
double sm_model_issue_peak(const CfgGpu *gpu);
/* Peak warp-instructions per cycle per SM of the unit's ops, counting pipe width and issue
 * cost (an op costing k issue cycles can issue at most schedulers/k per cycle). */
double sm_model_unit_peak(const CfgGpu *gpu, IsaUnit unit);
/* Peak shared-memory warp-accesses per cycle per SM. */
double sm_model_smem_peak(const CfgGpu *gpu);
/* Peak coalesced warp-loads (one line each) per cycle per SM from memory level @level. */
double sm_model_level_peak(const CfgGpu *gpu, guint level);
