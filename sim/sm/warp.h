/* One resident warp: where it is in the stream, its scoreboard, and its current state.
 * Not how it is chosen to issue (scheduler.h) nor what its instructions cost (pipe.h).
 */
#pragma once

#include "exec.h"
#include "../core/fixed.h"
#include "scoreboard.h"
#include "simt.h"
#include "stats.h"

/* The queue a warp waits in for room, if any (SmWarp.lg_queued) */
enum { SM_QUEUED_NONE, SM_QUEUED_LG, SM_QUEUED_MIO };

typedef struct SmWarp {
  /* read every visited cycle: kept together at the front */
  guint64 deps_at;  /* operands of the instruction at pc are ready (fixed until it issues) */
  guint8 dep_state; /* SmState while waiting for deps_at */
  guint8 done;      /* no more instructions */
  guint8 state;     /* SmState since state_since */
  guint16 sched;    /* scheduler index (all SMs' schedulers numbered together) */
  guint8 local;     /* ... within its SM */
  guint8 lg_queued; /* SM_QUEUED_LG: in its SM's queue for room among the transactions in flight
                       (memory.h); SM_QUEUED_MIO: in its queue for a place in the shared-memory
                       queue (smem.h) */
  guint16 pos;      /* its position in that scheduler's warps[] */
  guint8 pipe;      /* the pipe the instruction at pc holds (SmInsnInfo.pipe) */
  guint8 space;     /* IsaSpace of the instruction at pc */
  guint16 n_trans;  /* its memory transactions (global ops) */
  guint32 pc;       /* index of the next real instruction (ISA_INSN_OP) */
  guint8 depth;     /* open repeat blocks */
  guint32 loop_body[ISA_MAX_LOOP_DEPTH];
  guint32 loop_left[ISA_MAX_LOOP_DEPTH];
  guint64 state_since; /* cycle state began */
  guint64 issued;
  guint64 last_issue;
  guint64 finish;        /* cycle the last result of the warp is written */
  guint64 rng;           /* addresses */
  guint64 chase;         /* its place in the chase of windows (chase.h) */
  guint64 launched;      /* cycle its block launched */
  guint32 passes_left;   /* runs of the stream still to start after this one */
  guint16 block;         /* block slot (all SMs numbered together) */
  guint16 sm;            /* SM it belongs to */
  guint8 exists;         /* a real slot (not padding to a multiple of the schedulers) */
  guint8 fetch_after;    /* set by a taken branch's issue, taken at once by the loop: its wait
                            from this many cycles after the issue on is no_instruction (0: none) */
  guint8 fetch_at;       /* ... branch_resolving up to this many, then no_instruction ... */
  guint8 fetch_until;    /* ... up to this many (then the next instruction's operands' wait); a
                            warp that exits: drain from fetch_at on */
  guint16 stores_queued; /* its stores in its SM's store queue (lsu.h): not yet at the stage */
  guint32 fetch_pc;      /* sass.fetch_turns: past a taken branch, the first instruction its
                            target's fetch did not bring ... */
  guint64 fetch_ready;   /* ... and the cycle it can issue, fetched at the warp's next turn (0:
                            nothing waits) */
  SmScoreboard sb;
  SmStats *stats;           /* where its counts go: the run's, or its SM's (fast/mirror.c) */
  guint64 smem_stores_done; /* its shared-memory stores have completed (BAR.SYNC waits) */
  guint64 smem_own;         /* ticks its next shared-memory access may start (warp_passes_apart) */
  /* asynchronous copies (LDGSTS): groups closed by LDGDEPBAR, waited for by DEPBAR */
  guint64 copy_open;   /* completion of the copies in the group still open */
  guint64 copy_groups; /* groups closed so far */
  guint64 copy_older;  /* latest completion among groups that left copy_done */
  guint64 *copy_done;  /* SM_COPY_RING groups' completions, by group % SM_COPY_RING; NULL when
                          the stream has no LDGDEPBAR */
  guint32 lanes;       /* the warp's threads (fewer than 32 in a block's last partial warp) */
  guint32 active;      /* lanes running the current path */
  guint32 n_active;    /* how many: sm_popcount32(active) */
  SmSimt *simt;        /* predicates and reconvergence; NULL unless the stream needs them */
  ExecWarp *exec;      /* kernels over SASS: its lanes' values, which say what runs next */
} SmWarp;

#define SM_COPY_RING (ISA_MAX_DEPBAR + 1u)

/* LDGDEPBAR: the open group is closed with the copies issued since the last one. */
static inline void
sm_warp_close_copy_group(SmWarp *w)
{
  guint64 *slot = &w->copy_done[w->copy_groups % SM_COPY_RING];
  if (w->copy_groups >= SM_COPY_RING)
    w->copy_older = MAX(w->copy_older, *slot);
  *slot = w->copy_open;
  w->copy_open = 0;
  w->copy_groups++;
}

/* DEPBAR.LE SB0, @n: the cycle from which at most @n groups are outstanding (every group but
 * the newest @n has completed). */
static inline guint64
sm_warp_copies_ready(const SmWarp *w, guint n)
{
  if (w->copy_groups <= n)
    return 0;
  guint64 ready = w->copy_older,
          first = w->copy_groups > SM_COPY_RING ? w->copy_groups - SM_COPY_RING : 0;
  for (guint64 g = first; g < w->copy_groups - n; g++)
    ready = MAX(ready, w->copy_done[g % SM_COPY_RING]);
  return ready;
}

/* Follows loop markers from *@pc to the next real instruction or the stream's end, with the
 * open repeat blocks in @depth, @body and @left. */
static inline void
sm_loops_walk(const IsaProgram *prog, guint32 *pc, guint8 *depth, guint32 *body, guint32 *left)
{
  while (*pc < prog->n_insns) {
    const IsaInsn *insn = &prog->insns[*pc];
    if (insn->kind == ISA_INSN_OP)
      break;
    if (insn->kind == ISA_INSN_LOOP) {
      if (insn->iterations == 0) {
        *pc = insn->partner + 1;
      } else {
        body[*depth] = *pc + 1;
        left[*depth] = insn->iterations;
        (*depth)++;
        (*pc)++;
      }
    } else if (--left[*depth - 1] > 0) {
      *pc = body[*depth - 1];
    } else {
      (*depth)--;
      (*pc)++;
    }
  }
}

/* The instruction @w issues after the one at pc, when that one is not a SIMT step: its index,
 * or prog->n_insns when the stream ends there (it may start again).  Changes nothing. */
static inline guint32
sm_warp_peek_next(const SmWarp *w, const IsaProgram *prog)
{
  guint32 pc = w->pc + 1;
  if (pc >= prog->n_insns)
    return pc;
  const IsaInsn *insn = &prog->insns[pc];
  if (insn->kind == ISA_INSN_OP)
    return pc; /* the common cases: no marker in between, */
  if (insn->kind == ISA_INSN_END && w->loop_left[w->depth - 1] > 1 &&
      prog->insns[w->loop_body[w->depth - 1]].kind == ISA_INSN_OP)
    return w->loop_body[w->depth - 1]; /* or a repeat body going round again */
  guint8 depth = w->depth;
  guint32 body[ISA_MAX_LOOP_DEPTH], left[ISA_MAX_LOOP_DEPTH];
  for (guint i = 0; i < depth; i++) {
    body[i] = w->loop_body[i];
    left[i] = w->loop_left[i];
  }
  sm_loops_walk(prog, &pc, &depth, body, left);
  return pc;
}

/* Moves @w to the next real instruction from pc (which is at a loop marker or past the end).
 * @limit: instructions a warp issues before it stops (0 = one pass over the stream). */
static inline void
sm_warp_settle(SmWarp *w, const IsaProgram *prog, guint64 limit)
{
  for (;;) {
    guint32 pc = w->pc;
    guint8 depth = w->depth;
    sm_loops_walk(prog, &pc, &depth, w->loop_body, w->loop_left);
    w->pc = pc;
    w->depth = depth;
    if (w->pc < prog->n_insns && (limit == 0 || w->issued < limit))
      return;
    if (limit != 0 && w->issued < limit && prog->dynamic_count > 0) {
      w->pc = 0; /* run the stream again */
      w->active = w->lanes;
      w->n_active = sm_popcount32(w->lanes);
      continue;
    }
    if (limit == 0 && w->passes_left > 0 && w->pc >= prog->n_insns) {
      w->passes_left--; /* another pass (work imbalance: warp_passes, block_passes) */
      w->pc = 0;
      w->active = w->lanes;
      w->n_active = sm_popcount32(w->lanes);
      continue;
    }
    w->done = TRUE;
    return;
  }
}
