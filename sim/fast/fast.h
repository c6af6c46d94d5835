/* Above the machine: what steps it faster with the same results (fast-forward over periodic
 * steady states, SMs that run alike stepped once, SMs stepped apart on threads) and the run as
 * sm.h offers it (run.c), which decides which of them steps it.  They read and write the
 * machine through gpu/machine.h; the machine calls them only through SmAbove (sm_fast_above).
 */
#pragma once

#include "../gpu/machine.h"
#include "steady.h"

/* What only this layer keeps of a run (SmGpu.fast; NULL in a view). */
struct SmFast {
  SmSteady *steady;      /* NULL: every cycle is stepped through (steady.c) */
  SmStats *sm_counts;    /* while mirrored, per SM: its counts since they were last folded in */
  SmStats *totals;       /* sm_stats() while mirrored */
  guint *mirror_scratch; /* sm_mirror_dispatch()'s */
  guint threads;         /* sm_set_threads(): at most this many threads step the SMs */
  gboolean one_loop;     /* stepped in one loop whatever the threads (sm_restart_in_one_loop()) */
};

/* The hooks the machine calls (run.c sets them in every machine it builds). */
extern const SmAbove sm_fast_above;

/* SMs that run alike stepped once (mirror.c): set up before the first wave (every SM stands
 * for itself unless all can run alike); the block scheduler's rule while some SMs are not
 * stepped (SMs given different blocks part, one of them becoming a copy of the one it ran
 * like); the end of it (every SM a copy of the one it ran like, all stepped: for a trace). */
void sm_mirror_init(SmGpu *sm);
void sm_mirror_clear(SmGpu *sm);
void sm_mirror_dispatch(SmGpu *sm, guint64 t);
void sm_mirror_end(SmGpu *sm);
/* Adds the counts of the stepped SMs, each times the SMs it stands for, to sm->stats (before
 * reading or copying it: the end of a run, a fast-forward's snapshot). */
void sm_mirror_fold(SmGpu *sm);
/* sm->stats with those counts added, leaving both alone (sm_stats() mid-run). */
const SmStats *sm_mirror_totals(const SmGpu *sm);

/* SMs on threads (parallel.c): runs @sm like sm_run_until(@cycle) with its SMs stepped by
 * several threads, and returns FALSE (having done nothing) where that cannot give the same
 * results. */
gboolean sm_parallel_run(SmGpu *sm, guint64 cycle);
/* A view over SASS asks its SM's state into the host's caches before its window (defer.c). */
void sm_view_prefetch(SmGpu *view);
/* A view's global access of @w at @t (the instruction @ii at its pc): what the SM itself knows
 * of it is done (its L1, its count in flight) and the rest recorded for the memory system;
 * returns SM_PENDING, or its completion when the SM's L1 answers it whole (defer.c). */
guint64 sm_defer_global(SmGpu *view, SmWarp *w, const SmInsnInfo *ii, guint64 t);
/* A view's warp @w finished at its last issue: its end waits for its accesses (defer.c). */
void sm_defer_finished(SmGpu *view, SmWarp *w, guint64 known);
/* A view's block @b retired at cycle @t: its end waits for its warps' (defer.c). */
void sm_defer_retired(SmGpu *view, guint b, guint64 t);
/* A view's kernel over SASS stopped a warp at cycle @t: the run stops after the window, with
 * the error the single loop would have met first (defer.c). */
void sm_defer_error(SmGpu *view, guint64 t, GError *error);
/* A view's global access over SASS by @w's instruction at @pc, of @n lines (sectors in @masks)
 * to memory level @level, or through the caches with @op, issued at @t (or taken from the store
 * queue then), its lines reaching the L1 at @enter and its data
 * back @tail after the memory system's completion (the LD/ST stage, lsu.h): like
 * sm_defer_global() (defer.c). */
guint64 sm_defer_lines(SmGpu *view, SmWarp *w, guint32 pc, guint64 t, guint64 enter, guint64 tail,
                       guint n, const guint64 *lines, const guint8 *masks, const guint8 *partial,
                       guint level, guint op);
/* Builds @sm again as sm_new() did, keeping its threads and progress display, to be stepped in
 * one loop from cycle 0: SMs stepped apart over SASS found that one's global accesses met
 * another's in a window, whose order only the single loop knows (run.c). */
void sm_restart_in_one_loop(SmGpu *sm);

/* The machine's state that this layer copies (mirror.c: copy_warp(), copy_scheduler(),
 * copy_sm()) and encodes (steady-state.c: walk_warp(), walk_scheduler(), walk()) part by part.
 * A field added to one of these structs stops the build here: teach those functions about it
 * (a field they miss makes mirroring or fast-forward wrong without a word), then write the new
 * size.  Sizes on 64-bit hosts. */
#if GLIB_SIZEOF_VOID_P == 8
G_STATIC_ASSERT(sizeof(SmWarp) == 368);
G_STATIC_ASSERT(sizeof(SmScheduler) == 184);
G_STATIC_ASSERT(sizeof(SmBlock) == 120);
#endif
