/* Analytic numbers derived from a GPU file: peaks, and Little's-law concurrency.  These are
 * printed next to simulated results for comparison; they are not the simulation, which never
 * uses them. */
#pragma once

#include "../../config/kernel.h"

/* Warp-instructions per cycle per SM the schedulers can issue. */
double sm_model_issue_peak(const CfgGpu *gpu);
/* Peak warp-instructions per cycle per SM of the unit's ops, counting pipe width and issue
 * cost (an op costing k issue cycles can issue at most schedulers/k per cycle). */
double sm_model_unit_peak(const CfgGpu *gpu, IsaUnit unit);
/* Peak shared-memory warp-accesses per cycle per SM. */
double sm_model_smem_peak(const CfgGpu *gpu);
/* Peak coalesced warp-loads (one line each) per cycle per SM from memory level @level. */
double sm_model_level_peak(const CfgGpu *gpu, guint level);

/* Volkov's model (thesis section 4.1) for a kernel built like isa/kernels/mix.yaml: one
 * "other" instruction (or 1/alpha of them) and alpha dependent ALU ops per group, ilp chains
 * per warp.  IPC counts every issued instruction (the MOV of mov_per_load too). */
typedef struct {
  double warps;            /* n */
  double latency;          /* cycles per group of one chain, alone */
  double latency_bound;    /* IPC: n x ilp / latency x instructions per group */
  double throughput_bound; /* IPC: the tightest of other unit, ALU, issue */
  double ipc;              /* min of the two */
  double warps_needed;     /* Little's law: latency x throughput / ilp */
  double groups_per_cycle; /* the throughput bound in groups (chains' steps) a cycle */
  double other_latency;    /* the other instruction's latency alone (a load's: its level's) */
  int level;               /* the memory level a global load goes to (-1: none) */
  double cuda_guide;       /* CUDA C Programming Guide estimate, mem_lat x alu_thru / alpha; NAN
                              where it does not apply (alpha = 0, no other instruction) */
  const char *bound; /* what limits throughput: "memory", "shared memory", "sfu", "alu", "issue" */
} SmModelPoint;

/* FALSE when the kernel lacks the mix parameters (alpha, other) or they do not parse. */
gboolean sm_model_mix(const CfgGpu *gpu, const CfgKernel *kernel, SmModelPoint *out);

/* The names SmModelPoint.bound takes, numbered so a result can travel between processes. */
guint sm_model_bound_index(const char *bound);
const char *sm_model_bound_name(guint index);
