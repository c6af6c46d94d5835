/* Warp schedulers: their warps, wake cycles and pipe state, and which eligible warp issues.
 * Not eligibility itself: the SM loop (gpu/loop.c) decides which warps can issue. */
#pragma once

#include "../../config/gpu.h"
#include "../core/ports.h"
#include "stats.h"

/* The pipes a scheduler's instructions hold: one per unit (IsaUnit), then two beside the CUDA
 * cores that a GPU file's sass.ops can send opcodes to: the integer pipe (logic, shifts,
 * compares, integer adds: Nsight's alu pipe) and the FMA pipe's heavy half (integer
 * multiply-adds: Nsight's fmaheavy).  A pipe takes a warp-instruction every 32 / lanes cycles. */
enum { SM_PIPE_INT = ISA_UNIT_COUNT, SM_PIPE_FMAHEAVY, SM_N_PIPES };

typedef struct {
  guint *warps;  /* warp indices, oldest first */
  guint64 *wake; /* per position: nothing about that warp can change before this cycle
                    (SM_NEVER: finished, or waiting for a memory completion) */
  guint n_warps;
  guint local;    /* its number within its SM */
  SmStats *stats; /* where its counts go: the run's, or its SM's (fast/mirror.c) */
  guint last;     /* position in warps[] of the last warp that issued (block_priority: per block) */
  guint slot0;    /* the warp slot at position 0; position p's is slot0 + p * schedulers per SM */
  guint64 busy_until;            /* no issue before this cycle (multi-cycle issue) */
  guint64 pipe_free[SM_N_PIPES]; /* ticks: pipe accepts its next instruction */
  SmPorts ports;     /* register-file write ports taken per cycle (when the SM checks them) */
  guint64 *age;      /* per position: cycle its warp's block launched (policy oldest) */
  guint32 *grid;     /* per position: grid index of its warp's block (block_priority; a copy of
                        what the blocks hold, so the fast-forward need not encode it) */
  guint64 *resumed;  /* per position: cycle its warp launched or last stopped waiting on global
                        memory (policy last_resumed) */
  guint8 *in_pool;   /* per position: in the active pool (policy two_level) */
  guint64 *issued;   /* per position (sass.fair_window; else NULL): bit j set if its warp issued
                        at its last issue - j */
  guint16 pool_n;    /* warps in the active pool (a scheduler has at most 1 024) */
  guint16 pool_next; /* where the search for the next warp to admit starts */
  guint keep;  /* position of the warp whose last issue did not ask it to yield (sass.yield_hints):
                  it issues first the cycle after that issue if it can (G_MAXUINT: none) */
  guint64 hot; /* positions eligible again next cycle without a look (see gpu/loop.c, schedule) */
} SmScheduler;

#define SM_SCHEDULER_TAKEN G_MAXUINT

/* Chooses among the eligible warps (positions into sched->warps, ascending; entries equal to
 * SM_SCHEDULER_TAKEN already issued this cycle and are skipped) by @policy and returns an
 * index into @eligible, or G_MAXUINT when none is left.  @last: the position that issued last
 * among the warps taking part (round robin starts after it, gto stays with it).  two_level
 * picks like lrr among the warps its pool admits (the SM loop keeps the pool:
 * sm_scheduler_pool).  last_resumed picks like lrr among the eligible warps that resumed at
 * most @window cycles before the latest resumed eligible warp. */
guint sm_scheduler_pick(const SmScheduler *sched, CfgPolicy policy, guint64 window, guint last,
                        const guint *eligible, guint n_eligible);

/* Two-level scheduling: @leaves[p] says position p left the active pool (it waits on a
 * long-latency result or finished); @can_join[p] that it may enter.  Updates the pool (up to
 * @size warps, admitting in round-robin order) and keeps in @eligible only its members;
 * returns their number. */
guint sm_scheduler_pool(SmScheduler *sched, guint size, const guint8 *leaves,
                        const guint8 *can_join, guint *eligible, guint n_eligible);
