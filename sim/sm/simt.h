/* SIMT control flow of one warp: its active lanes, predicates, convergence barriers and the
 * paths of divergent branches still to run.  Not the warp's place in the stream (warp.h) nor
 * issue timing (gpu/loop.c).
 *
 * Volta-style reconvergence: BSSY Bn records the active lanes in barrier n.  A branch whose
 * active lanes disagree runs its fall-through lanes first and keeps the taken ones (the branch
 * target and their mask) on a stack of pending paths.  At BSYNC Bn the arriving lanes wait;
 * when every lane BSSY recorded has arrived the warp goes on with all of them, else it switches
 * to the most recently deferred path (a fetch redirect, like a taken branch).  Deferred lanes
 * that branched straight to the BSYNC are already there: they join the lanes that reach it, and
 * the BSYNC issues once for all of them (sm_simt_join()), as a SASS warp runs its lanes at the
 * lowest program counter together.  Nested regions therefore finish innermost first.
 */
#pragma once

#include "../../isa/stream.h"

typedef struct {
  guint32 *pred; /* per register slot: the lanes in which the predicate is true */
  guint32 expect[ISA_MAX_BARRIERS], arrived[ISA_MAX_BARRIERS];
  guint n_pending;
  guint32 pending_pc[32], pending_mask[32]; /* deferred paths, most recent last */
} SmSimt;

/* Which convergence-barrier instruction a step was, for its extra cycles (branch.bssy_cycles,
 * branch.bsync_cycles) */
typedef enum {
  SM_SIMT_NO_BARRIER,
  SM_SIMT_BSSY,
  SM_SIMT_BSYNC_RELEASE, /* a BSYNC that releases its lanes (one whose lanes wait does not count) */
} SmSimtBarrier;

/* What a control instruction did to the warp. */
typedef struct {
  guint32 next_pc;
  gboolean redirect; /* the next instruction is fetched from elsewhere (taken_cycles) */
  gboolean branch, divergent;
  SmSimtBarrier barrier;
} SmSimtStep;

/* A warp about to issue the BSYNC at @pc: the deferred paths that wait at that very instruction
 * (their branch jumped to it) join the active lanes (*@active grows). */
void sm_simt_join(SmSimt *simt, guint32 *active, guint32 pc);

/* Runs the control effect of @insn (at @pc) on a warp whose lanes are *@active: predicates,
 * branches, BSSY, BSYNC.  @rng draws chance() predicates. */
void sm_simt_step(SmSimt *simt, guint32 *active, const IsaProgram *prog, guint32 pc, guint64 *rng,
                  SmSimtStep *out);
