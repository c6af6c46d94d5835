/* The LD/ST path of each SM between its warps and the memory system (the GPU file's `lsu`):
 * the L1TEX stage that looks up a global warp-access's lines before they go on, and the data
 * of stores, read from the register file into a buffer of the SM's in front of that stage.
 *
 * The stage takes one access at a time per SM, in issue order: a load for load_line_cycles a
 * line, a store for store_line_cycles a line plus partial_sector_cycles a sector it writes only
 * in part.  A store's data crosses the store data path meanwhile, its bytes over
 * store_bytes_per_cycle, stores in issue order (loads do not use it).  An access reaches the L1
 * (and the levels behind it) when both are done with it; a load's data then comes back a line
 * at a time (return_line_cycles after the first).  A store's registers (address and data) are
 * read store_read_cycles after its issue, but no earlier than a place in the store buffer is
 * free (the stage is done with the store that many before it): until then an instruction that
 * writes one of them waits (Nsight's long_scoreboard on a store's registers).  The stage is the
 * SM's own: nothing of another SM reaches it, so an SM stepped on a thread keeps it.
 *
 * With a store queue (store_queue), a store that finds no room among its SM's stores in flight
 * (memory.max_store_outstanding) does not hold its warp at issue: it waits here, in issue
 * order, its registers unread, until completions make room (the loop takes it then: sass.c,
 * sm_sass_stores_resume()); an instruction that writes one of its registers waits
 * (long_scoreboard), and an EXIT waits for it (drain).  A global store issued while the queue
 * holds store_queue stores whose registers are unread waits at issue (lg_throttle); a store
 * keeps its place store_queue_hold_cycles past its read (memory.throttle_order says who takes
 * a place that frees).
 *
 * With a backlog (store_backlog_cycles), a store's lines go on to their level at no more than
 * its SM's share of the level's write rate (the level's rate an SM times the SMs over those the
 * grid occupies, a line costing what it costs a channel): the stage holds a store while the
 * SM's stores before it would leave more than the backlog ahead of it, and the accesses behind
 * it wait.  The share is the SM's own, so this too stays with its SM.
 *
 * Kernels over SASS only: an assembled stream's accesses reach the memory system at issue.  So
 * neither the fast-forward nor mirroring (streams only) encodes or copies this state; SMs
 * stepped on threads each keep their own (free[m], their buffer), as the single loop does. */
#pragma once

#include <glib.h>

#include "../../config/gpu.h"

/* A store taken by the stage: when the stage is done with it, and its lines. */
typedef struct {
  guint64 enter;
  guint64 lines;
} SmLsuStaged;

/* A store waiting in the queue for room: its warp (an index into the warps), its instruction,
 * its lines (at @at in its SM's arrays of lines) and what it writes. */
typedef struct {
  guint32 warp, pc;
  guint32 n, data_bytes;
  guint32 at;
  guint8 level, op;
} SmLsuWaiting;

/* Per SM: the stores waiting (from head on) and their lines, bytes, sector masks and partial
 * sectors; when the stores taken since leave their places (their registers read, and
 * store_queue_hold_cycles more; in order: from unread_head on). */
typedef struct {
  GArray *waiting, *lines, *bytes, *masks, *partial;
  guint head;
  GArray *unread;
  guint unread_head;
} SmLsuQueue;

typedef struct {
  gboolean on;
  guint n_sm;
  guint load_line, return_line, store_line, partial_sector, store_bytes, read, buffer;
  guint64 *free;      /* per SM: the cycle the stage is done with the accesses it took */
  guint64 *data_free; /* per SM: the cycle the store data path is done with the stores' data */
  guint64 *buf_done;  /* per SM x buffer: when the stage is done with each of the last stores */
  GArray **staged;    /* per SM: SmLsuStaged of its stores in issue order, from staged_head on */
  guint *staged_head;
  guint *buf_head;     /* per SM: the oldest of them */
  guint queue;         /* store_queue (0: none) */
  guint hold;          /* store_queue_hold_cycles */
  SmLsuQueue *q;       /* per SM, with a queue */
  guint64 backlog;     /* store_backlog_cycles, in ticks (0: the stage never waits for the level) */
  guint64 *share_free; /* per SM: ticks its share of the stores' level is busy until */
  const CfgGpu *gpu;   /* (with a backlog) the levels' write costs and rates */
  double share;        /* an SM's share of a level: the SMs over those the grid occupies */
} SmLsu;

/* What one access gets: when it reaches the L1 (its lines' time in the memory system), what
 * its data's return adds to the memory system's completion (loads), and for a store when its
 * registers are read. */
typedef struct {
  guint64 enter;
  guint64 tail;
  guint64 read;
  guint64 taken; /* a store paced at its SM's share of its level (store_backlog_cycles): the
                    cycle that share has taken its lines (0: not paced) */
} SmLsuPass;

/* @grid_sms: the SMs the grid occupies (an SM's share of a level's write rate is its rate
 * over them). */
void sm_lsu_init(SmLsu *lsu, const CfgGpu *gpu, guint n_sm, guint grid_sms);
/* Whether a store's lines are paced at its SM's share of their level (store_backlog_cycles). */
static inline gboolean
sm_lsu_paces(const SmLsu *lsu)
{
  return lsu->backlog != 0;
}
void sm_lsu_clear(SmLsu *lsu);

/* The lines of SM @m's stores still in its stage at cycle @t: they have not reached the memory
 * system yet.  Forgets the stores the stage was done with before @t - 1 (the loop asks at a
 * cycle or the next, never earlier). */
guint64 sm_lsu_store_lines_in_stage(SmLsu *lsu, guint m, guint64 t);

/* A global access by SM @m at cycle @t of @n lines takes its turn at the stage; a store writes
 * @data_bytes in all and the sectors @partial[i] (a mask) of line i only in part.  With the stage
 * off, it enters at @t, adds nothing and a store's registers are read at @t. */
/* The ticks a store's @n lines (@masks their sectors, @partial those written in part) take
 * its SM's share of @level (CFG_LEVEL_CACHED: through the caches, to the L2) at the channels'
 * cost of each line; 0 where the level has no rate. */
guint64 sm_lsu_store_share(const SmLsu *lsu, guint level, guint n, const guint8 *masks,
                           const guint8 *partial);
/* @share: the ticks a store's lines take its SM's share of their level (0: not paced). */
SmLsuPass sm_lsu_pass(SmLsu *lsu, guint m, guint64 t, gboolean store, guint64 share, guint n,
                      const guint8 *partial, guint data_bytes);

/* Stores of SM @m waiting in its queue for room. */
static inline guint
sm_lsu_waiting(const SmLsu *lsu, guint m)
{
  return lsu->q[m].waiting->len - lsu->q[m].head;
}

/* SM @m's queue has no place for a store at @t: 0 if it has one, else the cycle a place frees
 * (a store taken has its registers read, and store_queue_hold_cycles more), or SM_NEVER
 * (G_MAXUINT64) when only a store's room can free one. */
guint64 sm_lsu_queue_full(SmLsu *lsu, guint m, guint64 t);

/* A store of @n lines waits at the end of SM @m's queue (@w: its header, less its lines). */
void sm_lsu_wait(SmLsu *lsu, guint m, SmLsuWaiting w, const guint64 *lines, const guint *bytes,
                 const guint8 *masks, const guint8 *partial);

/* The @i-th store waiting in SM @m's queue (0: the first), and its arrays. */
const SmLsuWaiting *sm_lsu_waiting_at(const SmLsu *lsu, guint m, guint i, const guint64 **lines,
                                      const guint **bytes, const guint8 **masks,
                                      const guint8 **partial);

/* The first store waiting in SM @m's queue leaves it (after its turn at the stage). */
void sm_lsu_waiting_pop(SmLsu *lsu, guint m);
