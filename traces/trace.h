/* Per-cycle traces: one narrow interface between the engine and the writers.
 *
 * The engine reports plain records (it never hands out its own structs): an instruction issued,
 * a warp changing state, a counter changing, the end.  Writers never look inside the simulator.
 * Records arrive in the order the engine makes them, which is not always time order (a warp's
 * state for the cycle after an issue is known at the issue); TraceQueue sorts them for writers
 * that need time order.  With no trace open the engine makes no records at all.
 */
#pragma once

#include <glib.h>
#include <stdio.h>

#define TRACE_ERROR (trace_error_quark())
GQuark trace_error_quark(void);
typedef enum { TRACE_ERROR_LIMIT, TRACE_ERROR_IO, TRACE_ERROR_ARGS } TraceErrorCode;

/* What a run looks like, given to begin(). */
typedef struct {
  guint n_warps, n_sched;
  guint issue_width;         /* instructions a scheduler may issue a cycle */
  guint n_sm;                /* SMs: warps are numbered SM by SM ... */
  guint warp_slots_per_sm;   /* ... this many each (0: not known) */
  const guint8 *warp_exists; /* n_warps: 0 for slots that never hold a warp */
  const guint8 *warp_state;  /* n_warps: each warp's state when the trace begins */
  guint n_states;
  const char *const *state_names; /* n_states */
  guint n_units;
  const char *const *unit_names; /* n_units */
  const char *const *op_names;   /* indexed by op */
  guint n_ops;
  const char *gpu_name, *kernel_name;
  gboolean caches; /* the GPU has caches: issues say where their sectors were found */
} TraceInfo;

typedef struct {
  guint64 cycle;     /* issue */
  guint64 complete;  /* result written */
  guint64 pipe_free; /* the pipe accepts its next instruction */
  guint sched, slot; /* slot: 0 .. issue_width-1 within the cycle */
  guint warp, pc, op, unit;
  gboolean memory; /* a load or store (global or shared) */
  guint passes;    /* shared-memory accesses: bank passes (1 without conflicts); else 0 */
  guint32 mask;    /* the warp's active lanes */
  /* global accesses through the caches: sectors found in the L1, in the L2, and missed */
  guint l1_hits, l2_hits, misses;
} TraceIssue;

typedef enum {
  TRACE_COUNTER_MEM_OUTSTANDING, /* global transactions in flight */
  TRACE_COUNTER_MEM_QUEUED,      /* transactions waiting for a busy channel */
  TRACE_COUNTER_MEM_BYTES,       /* bytes requested from the memory levels so far (read and
                                    written; the run report's bytes per cycle is its rate) */
  TRACE_COUNTER_COUNT
} TraceCounter;

extern const char *const trace_counter_names[TRACE_COUNTER_COUNT];

typedef struct TraceSink TraceSink;

typedef struct {
  gsize instance_size; /* the writer's struct, which starts with a TraceSink */
  /* begin, issue and end are required; the others may be NULL */
  gboolean (*begin)(TraceSink *sink, const TraceInfo *info, GError **error);
  void (*issue)(TraceSink *sink, const TraceIssue *issue);
  void (*state)(TraceSink *sink, guint64 cycle, guint warp, guint state);
  void (*counter)(TraceSink *sink, guint64 cycle, TraceCounter counter, guint64 value);
  /* every record before @cycle has been given */
  void (*advance)(TraceSink *sink, guint64 cycle);
  gboolean (*end)(TraceSink *sink, guint64 cycles, GError **error);
  void (*free)(TraceSink *sink);
} TraceSinkClass;

/* What to write and how much. */
typedef struct {
  guint64 from, to; /* cycle window [from, to); to = G_MAXUINT64: to the end */
  gboolean has_window;
  guint8 *warps; /* NULL: every warp; else warps[w] != 0 for the warps to show */
  guint n_warp_mask;
  guint64 max_bytes; /* stop with TRACE_ERROR_LIMIT beyond this */
  guint64 scale;     /* the text timeline's cycles a column (0: as many as fit 120 columns) */
} TraceOptions;

struct TraceSink {
  const TraceSinkClass *klass;
  TraceOptions opts;
  TraceInfo info;
  char *path, *tmp_path; /* tmp_path NULL: written to memory (trace_sink_open_memory) */
  FILE *out;
  char *memory; /* the memory stream's bytes */
  size_t memory_size;
  guint64 bytes;
  gboolean failed; /* the size limit was hit or a write failed: ignore further records */
  GError *error;
};

/* Opens a writer chosen by @path's extension: .txt (timeline), .vcd, .json (Chrome trace
 * events), .csv (one row per instruction), .states.csv (one row per warp state span), .png or
 * .svg (a picture: picture.c).  The file is
 * written under a temporary name and renamed by trace_sink_finish() only if everything was written.
 */
TraceSink *trace_sink_open(const char *path, const TraceOptions *opts, GError **error);
/* The same writer into memory, chosen by @name's extension ("timeline.svg"), which its
 * errors name; after trace_sink_finish(), trace_sink_take_memory() hands over the bytes. */
TraceSink *trace_sink_open_memory(const char *name, const TraceOptions *opts, GError **error);
GBytes *trace_sink_take_memory(TraceSink *sink);
gboolean trace_sink_finish(TraceSink *sink, guint64 cycles, GError **error);
void trace_sink_free(TraceSink *sink);
/* TRUE once writing failed (size limit, disk full): the run should stop. */
static inline gboolean
trace_sink_failed(const TraceSink *sink)
{
  return sink->failed;
}

/* The colour (0xRRGGBB) a picture draws warp state @name in (Nsight's names; grey for others),
 * for legends drawn elsewhere (the lab page). */
guint32 trace_state_colour(const char *name);

/* Parses "A:B" (cycles), "0,2,5-9" (warps) and "N" (cycles a column of the text timeline) for
 * the options; errors name the option. */
gboolean trace_parse_window(const char *text, TraceOptions *opts, GError **error);
gboolean trace_parse_scale(const char *text, TraceOptions *opts, GError **error);
gboolean trace_parse_warps(const char *text, TraceOptions *opts, GError **error);
void trace_options_clear(TraceOptions *opts);

/* ---- for writers ---- */

/* printf into the file, counting bytes against the limit. */
void trace_printf(TraceSink *sink, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
gboolean trace_wants_warp(const TraceSink *sink, guint warp);
gboolean trace_in_window(const TraceSink *sink, guint64 cycle);

/* Each warp's state and since when, from the states the warps were in when the trace began: what
 * the writers that show state spans keep. */
typedef struct {
  guint *state;   /* per warp (G_MAXUINT: not known) */
  guint64 *since; /* per warp */
} TraceWarpStates;

void trace_warp_states_init(TraceWarpStates *s, const TraceInfo *info, guint64 from);
void trace_warp_states_clear(TraceWarpStates *s);
/* Warp @warp is in @state from @cycle on; *@old and *@from get the span it leaves. */
static inline void
trace_warp_states_set(TraceWarpStates *s, guint warp, guint state, guint64 cycle, guint *old,
                      guint64 *from)
{
  *old = s->state[warp];
  *from = s->since[warp];
  s->state[warp] = state;
  s->since[warp] = cycle;
}
/* Whether state @st is one a warp is in (not "inactive", an empty slot's, nor unknown). */
gboolean trace_state_is_a_warps(const TraceInfo *info, guint st);

/* Time-ordered pending changes: (cycle, kind, index, value), popped in (cycle, push) order. */
typedef struct {
  guint64 cycle, seq;
  guint kind, index;
  gint64 value;
} TraceChange;

typedef struct {
  GArray *heap; /* TraceChange */
  guint64 seq;
} TraceQueue;

void trace_queue_init(TraceQueue *q);
void trace_queue_clear(TraceQueue *q);
void trace_queue_push(TraceQueue *q, guint64 cycle, guint kind, guint index, gint64 value);
/* Pops the earliest change if its cycle is < @before. */
gboolean trace_queue_pop(TraceQueue *q, guint64 before, TraceChange *out);

extern const TraceSinkClass trace_text_class, trace_vcd_class, trace_json_class, trace_csv_class,
    trace_csv_states_class, trace_picture_class;
