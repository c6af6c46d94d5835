/* What a view of one SM (parallel.c) leaves for the memory system the SMs share, and takes
 * back: its global accesses as records, in issue order, sent between windows in the single
 * loop's order; the ends of its warps and blocks, which wait for their accesses' completions.
 * Not the windows, the threads or the block scheduler (parallel.c). */
#pragma once

#include "fast.h"

/* A record's lines are its own (lines[], sectors[]) up to this many; more (an access over
 * SASS may touch up to SM_MEMORY_MAX_LINES) are kept in its set's ext_lines and ext_sectors. */
#define INLINE_LINES 32u
#define NO_EXT G_MAXUINT32
/* Windows shorter than this are not worth the threads' meeting (lookahead.c, parallel.c). */
#define MIN_WINDOW 16u

typedef enum {
  DEFER_LEVEL,  /* to a named level, lines from a base or drawn: sm_memory_access() */
  DEFER_LINES,  /* a window's lines to a named level: sm_memory_access_lines() */
  DEFER_CACHED, /* a window's lines the L1 did not answer: sm_memory_l2_access() */
} DeferKind;

typedef struct {
  guint64 t;         /* issue cycle */
  guint64 rng;       /* DEFER_LEVEL: the warp's generator where the access draws its lines */
  guint64 line_base; /* DEFER_LEVEL */
  guint64 l1_done;   /* DEFER_CACHED: the lines the L1 answered are back (t: none) */
  guint32 seq, warp, pc;
  guint32 ext; /* where its lines are in ext_lines, or NO_EXT: in lines[] */
  guint16 sm;
  guint8 kind, n, n_issued; /* lines still to send; transactions counted in flight */
  guint8 level;             /* DEFER_LINES: the memory level */
  guint32 delay;            /* its lines reach the L1 this long after its issue (lsu.h) */
  guint32 tail;             /* its data is back this long after the memory system's completion */
  guint64 lines[INLINE_LINES];
  guint8 sectors[INLINE_LINES];
  guint8 partial[INLINE_LINES]; /* a store's sectors written in part (memory.h) */
} Deferred;

/* A record's issue cycle, written by its view, and its completion, by the thread that sends it:
 * apart from the records, many to a cache line, so that neither thread reads the other's lines
 * one record at a time */
typedef struct {
  guint64 t, base;
} DeferTime;

typedef struct {
  guint64 t;
  guint index; /* a warp, or a block slot */
} Ended;

/* Records in issue order, with what sending them gave */
typedef struct {
  Deferred *recs; /* n_recs records (room for cap_recs), and their times */
  DeferTime *times;
  guint n_recs, cap_recs;
  guint n_sent;        /* its first n_sent have their completion */
  GArray *ext_lines;   /* guint64, guint8, guint8: the lines, sectors and partial sectors of */
  GArray *ext_sectors; /* records of more than INLINE_LINES lines, in the records' order */
  GArray *ext_partial;
  SmHeap events; /* its transactions' completions, scheduled while its records were sent
                    (SmEngine.held: a list in push order), for its queue on its own thread */
} DeferSet;

struct SmDefer {
  /* Two sets of records: a window's issues go to set[cur]; while the views step one window,
   * the records of the one before may be sent from the other (parallel.c) */
  DeferSet set[2];
  guint cur;
  SmEngine post;      /* what the sending schedules completions on: held, a set's events */
  GArray *warps;      /* Ended: warps whose end waits for their accesses */
  GArray *blocks;     /* Ended: blocks retired */
  GArray *launches;   /* Ended: slots free again (t: from when), for the block scheduler */
  GArray *due;        /* Ended: scratch of sm_defer_catch_up() */
  GArray *retired;    /* guint64: cycles of the retirements the block scheduler may not have seen */
  gboolean port_late; /* a completion's write port may have been taken by a later issue */
  GError *error;      /* a kernel over SASS: the first executor error, at error_t */
  guint64 error_t;
  guint64 bound;      /* every access before it is sent: the warps and blocks that ended before it
                         can be closed */
  guint64 launch_min; /* no block launches before it (while the grid has blocks left) */
  guint32 seq;
  guint m; /* the SM */
};

/* A view's records, for SM @m; freed with what they still hold. */
SmDefer *sm_defer_new(guint m);
void sm_defer_free(SmDefer *d);
/* Record @r of view @v, in @set, goes to @sm's memory system, as the single loop would have sent
 * it then: its transactions' completion events go to the set's events, and its completion is
 * returned (one thread: between windows, or beside the views stepping the next). */
guint64 sm_defer_send(SmGpu *sm, SmGpu *v, DeferSet *set, Deferred *r);
/* On view @v's thread: the sent records' completions of its set[cur] (with their events) into
 * scoreboards and write ports, then the warps and blocks that ended before the bound, their
 * slots free again. */
void sm_defer_catch_up(SmGpu *v);
/* The next cycle view @v has anything to do. */
guint64 sm_view_next(const SmGpu *v);

/* A view of SM @m of @sm: a copy of the machine's struct that steps only that SM, with its own
 * records, event queue and counters (view.c). */
SmGpu *sm_view_new(SmGpu *sm, guint m);
/* The @n views' counts so far into @sm's (a progress line reads them mid-run). */
void sm_views_fold_counts(SmGpu *sm, SmGpu **views, guint n);
/* View @v of SM @m hands its counts, queued events and clock spans back to @sm and is freed; its
 * executor error becomes *@first when none is, or when it came before *@first_t. */
void sm_view_hand_back(SmGpu *sm, SmGpu *v, guint m, GError **first, guint64 *first_t);

/* Some instruction of the run accesses global memory (lookahead.c). */
gboolean sm_uses_global(const SmGpu *sm);
/* The window SMs stepped apart run in, in cycles, or 0 where threads cannot give the single
 * loop's results (lookahead.c). */
guint64 sm_window_cycles(const SmGpu *sm);

/* Which way the sending goes once no block is left to launch (sm_pipe_way(), lookahead.c):
 * timed in turns, without the pipe and with it, then the faster kept for a while, and timed
 * again. */
typedef struct {
  guint stage;     /* 0: keeping the faster way (or not begun); 1 to 2 PIPE_TURNS: timing turns */
  gboolean way;    /* sending beside the stepping */
  guint64 timed;   /* the bound from which the turn is timed (SM_NEVER: it is being timed) */
  guint64 until;   /* the bound at which the turn, or the keeping, ends */
  gint64 t0;       /* the wall clock when the timing began, in microseconds */
  guint64 n0;      /* warp-instructions issued by then */
  gint64 time[2];  /* each way's timed wall time over its turns */
  guint64 work[2]; /* and the warp-instructions issued in it */
} SmPipeWay;
/* Whether the window starting at @bound sends the accesses of the window before beside the
 * views stepping (windows half as long; no block left to launch, more than one thread), for the
 * views @views of @sm in windows of @window cycles (lookahead.c). */
gboolean sm_pipe_way(SmPipeWay *q, const SmGpu *sm, SmGpu *const *views, guint n_views,
                     guint64 bound, guint64 window);
