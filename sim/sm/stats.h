/* Counters of one run and the per-SM rates derived from them; not how they are printed
 * (cli/report.c).  Every warp-cycle of the run is in exactly one SmState. */
#pragma once

#include "../../config/gpu.h"

/* Warp states, named as Nsight Compute names stall reasons. */
typedef enum {
  SM_STATE_SELECTED,           /* issued an instruction this cycle */
  SM_STATE_NOT_SELECTED,       /* could issue, the scheduler picked another warp or was busy */
  SM_STATE_WAIT,               /* waiting on a fixed-latency (CUDA core) result */
  SM_STATE_LONG_SCOREBOARD,    /* waiting on a global memory result */
  SM_STATE_SHORT_SCOREBOARD,   /* waiting on a shared memory or SFU result */
  SM_STATE_MATH_PIPE_THROTTLE, /* CUDA core / SFU pipe still busy with earlier instructions */
  SM_STATE_LG_THROTTLE,        /* LD/ST pipe busy or too many memory transactions in flight */
  SM_STATE_MIO_THROTTLE,       /* shared-memory queue full */
  SM_STATE_BARRIER,            /* waiting at BAR.SYNC */
  SM_STATE_NO_INSTRUCTION,     /* launched, its first instruction not yet looked at; or after a
                                  taken branch (SASS), past its stall count and branch_resolving */
  SM_STATE_DISPATCH_STALL,     /* ready, but its result would find no register-file write port */
  SM_STATE_ASYNC_COPY_WAIT,    /* at DEPBAR: waiting for groups of asynchronous copies to land */
  SM_STATE_DRAIN,              /* exited, its memory accesses (stores too) still in flight */
  SM_STATE_BRANCH_RESOLVING,   /* after a taken branch (SASS), past its stall count: the target
                                  is being resolved (sass.branch_resolving_cycles) */
  SM_STATE_MEMBAR,             /* at a fence (MEMBAR at GPU scope): waiting for its accesses
                                  to complete, then for the fence's own trip (memory.fence) */
  /* not a resident warp's: the slot holds no warp (none launched yet, or the last one exited
   * with nothing left in flight).  Shares of the others are of resident warp-cycles. */
  SM_STATE_INACTIVE,
  SM_STATE_COUNT
} SmState;

const char *sm_state_name(SmState state);

#define SM_MAX_SCHEDULERS 16u

/* Steps between a warp's consecutive clock reads kept apart: from its first read to its
 * second (step 0), ..., up to its SM_CLOCK_STEPS + 1-th read; later reads count in its span
 * only (clock.h). */
#define SM_CLOCK_STEPS 16u

typedef struct {
  guint64 cycles;              /* first warp start to last warp end */
  guint64 kernel_end;          /* cycles, or the block dispatcher's last turn if that ends later
                                * (block_dispatch_cycles): elapsed_cycles less the launch */
  guint64 visited_cycles;      /* cycles the loop stepped through (the rest were skipped) */
  guint64 fast_forward_cycles; /* cycles jumped over as repeats of a periodic state */
  guint stepped_sms;           /* most SMs stepped at once; the others ran like one of them */
  guint64 windows;    /* windows the SMs were stepped apart in (fast/parallel.c); 0: none */
  guint64 view_steps; /* a view stepping on from where it stopped, in those windows */
  guint warps, max_warps, schedulers; /* all SMs together */
  guint n_sm;
  /* What warps and schedulers count as they run, from issued to async_copies: every field
   * between them is a guint64 count that adds up over SMs and periods, and
   * sm_stats_add_scaled() adds them all (a new count goes among them, or it is not added) */
  guint64 issued;
  guint64 thread_instructions;          /* sum over issues of the active lanes */
  guint64 branches, divergent_branches; /* BRA issued; those whose active lanes split */
  guint64 issued_unit[ISA_UNIT_COUNT];
  guint64 issued_op[ISA_OP_COUNT];
  guint64 state_cycles[SM_STATE_COUNT]; /* warp-cycles per state; they sum to warps x cycles */
  guint64 sched_issue_cycles[SM_MAX_SCHEDULERS]; /* cycles each scheduler issued something */
  guint64 resident_warp_cycles;                  /* sum over warps of their lifetime */
  guint64 global_loads;                          /* LDG instructions */
  guint64 global_stores;
  guint64 global_load_latency; /* sum over LDG of completion - issue */
  guint64 shared_accesses;
  guint64 shared_passes; /* bank passes of those accesses */
  guint64 shared_stores;
  guint64 async_copies; /* LDGSTS instructions */
  /* (the end of the counts warps and schedulers add up) */
  guint shared_base_passes; /* passes of a conflict-free 32-bit warp-access (1 with 32 banks) */
  guint64 transactions[CFG_MAX_LEVELS];
  guint64 bytes[CFG_MAX_LEVELS];       /* read + written */
  guint64 write_bytes[CFG_MAX_LEVELS]; /* written by stores */
  guint n_levels;
  guint64 peak_outstanding;
  /* caches (caches.l1, caches.l2): requests (transactions) looked up, their sectors, the
   * sectors found; LTS hits in the line's home partition when that is not the SM's own; dirty
   * sectors written back to the miss level, and read from it for stores that write them in part
   * (caches.l2.fill_partial) */
  gboolean caches;
  guint64 l1_requests, l1_sectors, l1_hits;
  guint64 l2_requests, l2_sectors, l2_hits, l2_far_hits, write_backs, fills;
  /* kernels over SASS that read the clock (CS2R / S2R SR_CLOCKLO): over the warps that read it
   * twice or more, the cycles between each warp's first and last read */
  guint clock_warps;
  guint64 clock_median, clock_min, clock_max;
  guint64 clock_span;                  /* the earliest first read to the latest last read */
  guint64 clock_steps[SM_CLOCK_STEPS]; /* per step between consecutive reads (first to second, ...):
                              the upper median over the warps that took it (sm/clock.h) */
  guint clock_n_steps;
} SmStats;

/* Derived per-run numbers, the same in text and JSON. */
typedef struct {
  double ipc_total;
  double ipc_unit[ISA_UNIT_COUNT];
  double requests_per_cycle, bytes_per_cycle;
  double read_bytes_per_cycle, write_bytes_per_cycle;
  double shared_passes_per_access; /* in conflict-free 32-bit accesses: the conflict degree */
  double simt_efficiency;          /* mean active lanes / 32 */
  double branch_divergence;        /* % of branches whose active lanes split */
  double control_flow_divergence;  /* % of the 32 x warp-instructions lanes left idle */
  double level_requests_per_cycle[CFG_MAX_LEVELS], level_bytes_per_cycle[CFG_MAX_LEVELS];
  double mean_load_latency; /* cycles; 0 without loads */
  /* in Nsight Compute's words: L1TEX and LTS sector hit rates (%), sectors per request */
  double l1_hit_rate, l1_sectors_per_request, l2_hit_rate, l2_far_hit_rate, l2_sectors_per_request;
  double theoretical_occupancy, achieved_occupancy;
  double state_share[SM_STATE_COUNT];     /* of resident warp-cycles; inactive: of all */
  double state_per_issue[SM_STATE_COUNT]; /* warp-cycles per issued instruction */
  double issue_utilisation[SM_MAX_SCHEDULERS];
  double eligible_per_cycle, active_per_cycle;
} SmSummary;

void sm_summary_compute(const SmStats *stats, SmSummary *out);

/* Adds to @to @n times what the counts of warps' work (instructions, accesses, warp-cycles by
 * state, ...) in @a exceed those in @b (NULL: zero): a fast-forward over @n periods (@to = @a,
 * @b the state a period ago), or the counts of one SM made for @n that run alike.  Cycles and
 * the memory system's counts are left alone. */
void sm_stats_add_scaled(SmStats *to, const SmStats *a, const SmStats *b, guint64 n);
