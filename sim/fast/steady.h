/* Exact fast-forward over periodic steady states.
 *
 * A kernel whose warps run long loops of deterministic instructions (ALU, SFU, shared memory
 * without random addresses) soon settles into a rhythm: every P cycles the whole machine is
 * in the same state, shifted by P cycles, with its loop counters a fixed amount lower.  From
 * then on each period repeats the last one exactly until a loop counter comes near its end.
 * The detector compares the machine's state each time a reference warp starts a loop
 * iteration; when it finds a repeat, it jumps over as many whole periods as the counters
 * allow, adding each period's counts to the statistics, and the loop carries on from there.
 * Every simulated number is the same as stepping through those cycles (tests compare both).
 *
 * When nothing but block launches couples the SM's schedulers (one SM, no memory, no barrier),
 * each scheduler also has a detector of its own and jumps at its own period, the clock staying
 * put, while no block can retire and launch another before it is due again.
 *
 * Streams that draw random numbers (global memory, random shared-memory addresses, chance
 * predicates) never repeat a state, so the detector is not even built for global memory and
 * backs off when nothing repeats.  Traces need every cycle: attaching one turns it off.
 */
#pragma once

#include <glib.h>

#include "../sm/stats.h"

typedef struct SmGpu SmGpu;
typedef struct SmSteady SmSteady;

/* Process-wide, for tests: keep at most @n states whole (0: as many as fit in 32 MiB, up to
 * 256), so that longer periods are found through the hashes of older states. */
void sm_steady_set_keep(guint n);

/* NULL when @sm's stream can never be periodic.  When only block launches couple @sm's
 * schedulers, each also gets a detector of its own and its warps count apart (read the totals
 * with sm_steady_totals()). */
SmSteady *sm_steady_new(SmGpu *sm);
/* The latest cycle a scheduler's jump reached (its warps' times are that far on; 0: none). */
guint64 sm_steady_until(const SmSteady *st);
/* @sm's counts, with those its schedulers keep apart. */
const SmStats *sm_steady_totals(const SmGpu *sm, SmSteady *st);
void sm_steady_free(SmSteady *st);
/* Stops fast-forwarding @sm for good (a trace needs every cycle), its counts kept. */
void sm_steady_end(SmGpu *sm);

/* Called after each step of the cycle loop: looks for a repeated state and, when it finds
 * one, jumps over whole periods, never to a cycle past @limit. */
void sm_steady_after_step(SmGpu *sm, SmSteady *st, guint64 limit);
/* Forgets the states seen (the machine changed under it). */
void sm_steady_forget(SmSteady *st);
