/* Block slots and the block scheduler: which grid block runs where and when, launches,
 * retirements and BAR.SYNC.  Part of the SM loop (they work on its private state,
 * gpu/machine.h); nothing outside sim/ calls them.
 */
#pragma once

#include <glib.h>

#include "../sm/stats.h"

typedef struct SmGpu SmGpu;
typedef struct SmWarp SmWarp;

/* A block slot of an SM and the grid block it holds. */
typedef struct {
  guint grid_index;
  guint sm, first_local, n_warps; /* its warps: local slots first_local.. of SM sm */
  guint live;                     /* warps that have not finished */
  guint draining;                 /* finished warps whose stores wait in the store queue */
  guint arrived;                  /* warps waiting at BAR.SYNC */
  guint64 retire;                 /* last result of its finished warps */
  gboolean busy;                  /* holds a block */
  guint64 free_at;                /* when free: cycle it can take the next block */
  guint last[SM_MAX_SCHEDULERS];  /* block_priority: per scheduler of its SM, the position of
                                     its warp that issued last (G_MAXUINT: none yet) */
} SmBlock;

/* Cuts every SM's warp slots into block slots of warps_per_block warps. */
void sm_blocks_init(SmGpu *sm);
/* The block scheduler: while grid blocks remain and slots are free by cycle @t, the next block
 * goes to a free slot of the SM holding the fewest blocks (the lowest-numbered on ties), so a
 * wave spreads over the SMs. */
void sm_blocks_dispatch(SmGpu *sm, guint64 t);
/* How many blocks SM @m may take at @t under block_dispatch_cycles (G_MAXUINT: no limit). */
guint sm_blocks_allowed(const SmGpu *sm, guint m, guint64 t);
/* SM @m took a block at @t: its bucket holds one block fewer (a launch event looks at its free
 * slots again when the next is back, if it has none). */
void sm_blocks_dispatched(SmGpu *sm, guint m, guint64 t);
/* Grid block @index takes block slot @b at cycle @t (the block scheduler, fast/mirror.c). */
void sm_blocks_launch(SmGpu *sm, guint b, guint64 t, guint index);
/* @w issued BAR.SYNC at cycle @t: it waits until the block's other live warps arrive. */
void sm_blocks_arrive(SmGpu *sm, SmWarp *w, guint64 t);
/* @w has issued its last instruction (its end waits for its stores still in its SM's store
 * queue, if any: sm_blocks_stores_left()). */
void sm_blocks_warp_finished(SmGpu *sm, SmWarp *w);
/* The last of finished @w's stores left its SM's store queue at cycle @t (stores.c). */
void sm_blocks_stores_left(SmGpu *sm, SmWarp *w, guint64 t);
