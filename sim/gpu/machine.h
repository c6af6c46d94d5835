/* The machine's own state, shared by the files of gpu/: loop.c (the cycle loop), new.c (building
 * it), issue.c, blocks.c (block scheduler, barriers), sass.c (kernels over SASS), trace.c
 * (records for a trace), finish.c.  Its parts are the units of sm/, mem/ and core/ below.
 * The layer above (fast/: fast-forward, mirroring, SMs on threads, the run) reads and writes it
 * through this header; the machine calls that layer only through SmAbove.  Not for use outside
 * sim/: study/ and cli/ go through sm.h.
 */
#pragma once

#include "blocks.h"
#include "../sm/clock.h"
#include "../core/engine.h"
#include "../mem/lsu.h"
#include "../mem/memory.h"
#include "../sm/pipe.h"
#include "../sm/pools.h"
#include "../sm/scheduler.h"
#include "../sm.h"
#include "../sm/smem.h"
#include "../core/wake.h"
#include "../sm/warp.h"

#define SM_STATE_ELIGIBLE SM_STATE_COUNT

/* A global access's completion while it is not yet known: a register it loads is ready then,
 * and a warp waiting for it wakes then (an SM stepped on a thread: fast/parallel.c).  Later than
 * any cycle the run reaches, earlier than SM_NEVER and the hot mark (loop.c). */
#define SM_PENDING (SM_NEVER - 2)

typedef struct SmSass SmSass;
typedef struct SmDefer SmDefer; /* a view's records (fast/defer.h) */
typedef struct SmFast SmFast;   /* what only the layer above keeps (fast/fast.h) */

/* What the machine asks of the layer above it (fast/), which sets SmGpu.above when it takes
 * part: the machine knows that layer only through these. */
typedef struct {
  /* fast-forward (SmGpu.watched): looks at the state after each step of sm_machine_run_until()
   * and may jump over whole periods, never to @limit or past it */
  void (*after_step)(SmGpu *sm, guint64 limit);
  /* some SMs are not stepped (SmGpu.mirrored: fast/mirror.c): the block scheduler's rule while
   * they are; the stepped SMs' counts folded into sm->stats, each times the SMs it stands for */
  void (*dispatch)(SmGpu *sm, guint64 t);
  void (*fold)(SmGpu *sm);
  /* a view of one SM stepped on a thread (SmGpu.defer set: fast/defer.c): a global access
   * whose completion the memory system, which the SMs share, gives later (SM_PENDING, or its
   * completion when the SM's L1 answers it whole), over a stream (@ii at the warp's pc) or
   * over SASS (the instruction at @pc: @n lines, sectors in @masks, to memory level @level or
   * through the caches with @op, its lines reaching the L1 at @enter and its data back @tail after
   * the memory system's completion: lsu.h); a warp finished, all it issued known at @known (its
   * last issue, or when its last store left the store queue), a block retired at @t (their ends
   * wait for their accesses); an executor's error at @t (the run stops after the window) */
  guint64 (*defer_global)(SmGpu *view, SmWarp *w, const SmInsnInfo *ii, guint64 t);
  guint64 (*defer_lines)(SmGpu *view, SmWarp *w, guint32 pc, guint64 t, guint64 enter, guint64 tail,
                         guint n, const guint64 *lines, const guint8 *masks, const guint8 *partial,
                         guint level, guint op);
  void (*defer_finished)(SmGpu *view, SmWarp *w, guint64 known);
  void (*defer_retired)(SmGpu *view, guint b, guint64 t);
  void (*defer_error)(SmGpu *view, guint64 t, GError *error);
  /* a view over SASS asks its SM's state into the host's caches before its window */
  void (*prefetch)(SmGpu *view);
} SmAbove;

/* One SM of the GPU: what it owns.  Its schedulers, warp slots and block slots are its slices
 * of the GPU's arrays below, which hold every SM's SM by SM (sched_per_sm, warp_slots_per_sm
 * and slots_per_sm each: a thread stepping one SM touches only its own); the scoreboards and
 * per-position scheduler arrays follow its warps and schedulers.  Its port to the memory system
 * and its L1 are in SmMemory, its shared memory's queue in SmSharedMemory, each per SM
 * (memory.h, smem.h): the memory system's code reaches them by SM number. */
typedef struct {
  SmScheduler *sched;   /* its schedulers: SmGpu.sched from m * sched_per_sm */
  SmWarp *warps;        /* its warp slots: SmGpu.warps from m * warp_slots_per_sm */
  SmBlock *blocks;      /* its block slots: SmGpu.blocks from m * slots_per_sm */
  guint n_blocks;       /* its block slots holding a block */
  guint64 dispatch_tat; /* block_dispatch_cycles' bucket: it is full from this tick on */
  /* SMs that run alike are stepped once (fast/mirror.c): an SM the loop steps stands for weight SMs
   * (its counts go into the totals that many times), one it does not for none (weight 0); rep
   * is the SM stepped for it.  Otherwise each SM stands for itself (weight 1, rep itself). */
  guint rep;
  guint64 weight;
} SmMp;

/* The whole GPU: its SMs and what they share. */
struct SmGpu {
  /* what every part reads: the GPU file, the kernel, its instructions' costs */
  const CfgGpu *cfg; /* the GPU file */
  const CfgKernel *kernel;
  const IsaProgram *prog;
  SmInsnInfo *info;
  SmSass *sass;   /* kernels over SASS: the executor's side (sass.c); NULL for streams */
  SmClock *clock; /* a kernel that reads the clock: its warps' reads (clock.h); else NULL */
  guint issue_width;
  CfgDualIssue dual_issue;
  CfgPolicy policy;
  CfgBlockPriority block_priority;
  gboolean yield_hints;  /* kernels over SASS with sass.yield_hints: schedulers keep a warp whose
                            instruction does not yield, and their turn moves on only past one
                            that yields (loop.c, pick() and issue_taken()) */
  gboolean fences;       /* the stream has a fence at GPU scope and memory.fence is not none */
  guint fence_cycles;    /* memory.fence_cycles */
  guint64 *fence_stores; /* per SM with fences: when the stores it issued so far are done for a
                            fence (memory.fence: sm_fence_store()) */
  guint64 limit;
  const CfgBranch *branch; /* the GPU's branch costs: sass.branch for kernels over SASS */
  guint wb_ports;          /* register-file write ports per scheduler; 0: unlimited */
  gboolean hot_ok;         /* eligible warps may stay eligible unseen (schedule(): SM_HOT) */
  gboolean single_cycle_pipe[SM_N_PIPES]; /* every instruction on it: at most one cycle apart */

  /* The SMs: mp[m] is SM m's (SmMp); the arrays hold every SM's part, SM by SM */
  SmMp *mp;
  guint n_sm, sched_per_sm, warps_per_sm;
  guint warp_slots_per_sm; /* warps_per_sm rounded up to a multiple of sched_per_sm */
  SmWarp *warps;           /* every SM's warp slots (sm_sched_warp()) */
  guint n_warps, n_done;
  SmPools pools;      /* the storage of every SM's warps' and schedulers' arrays (sm/pools.h) */
  SmScheduler *sched; /* n_sched: every SM's schedulers */
  guint n_sched;
  guint64 *min_wake; /* per scheduler: the minimum of its wake[], nothing to do before it (kept
                        apart from SmScheduler: the loop reads every scheduler's every cycle) */
  SmBlock *blocks;   /* every SM's block slots */
  guint n_block_slots, slots_per_sm, warps_per_block; /* block slots: all SMs, per SM */
  SmSharedMemory smem;                                /* each SM's shared memory queue */
  guint lg_waiters; /* warps in lg_throttle until a memory transaction completes */
  guint lg_woke;    /* the scheduler whose warp lg_leave() (loop.c) woke from its own issue, or
                       G_MAXUINT: its look this cycle did not see that warp due next cycle */

  /* What the SMs share: the memory system below their ports (each SM's port and L1 inside),
   * the block scheduler, the event queue */
  SmMemory mem;
  SmLsu lsu;              /* each SM's LD/ST stage and store buffer (lsu.h): SM by SM */
  guint8 *room_freed;     /* per SM with a store queue: a completion may have made room for
                             its first store waiting (taken before its schedulers look) */
  SmCacheOutcome outcome; /* tracing: where the last cached access found its sectors */
  guint grid_blocks, next_block, blocks_retired;
  guint64 dispatch_tat; /* block_dispatch_cycles: the dispatcher's last turn ends (ticks) */
  guint64 end_cycle;    /* latest retirement so far */
  SmEngine engine;

  /* The loop (loop.c): which SMs it steps, in what order, and its scratch */
  guint *sim_sms, n_sim_sm; /* the SMs stepped (SmMp.weight > 0), in ascending order */
  guint *order;             /* the schedulers of the SMs stepped, in the order they look this cycle
                               (sm_smem_turn(), fast/mirror.c) */
  guint n_order;
  gboolean order_stale; /* smem.first changed: order is rebuilt before the next cycle */
  guint *eligible;
  SmWakePass wake_pass;             /* schedule()'s pass over a scheduler's wake times (wake.h) */
  guint *prio_pos, *prio_at;        /* scratch of pick(): the priority block's eligible warps */
  guint8 *pool_leaves, *pool_joins; /* scratch of one scheduler's two_level step */
  /* a warp alone on its scheduler issues on without the loop visiting its cycles (loop.c,
   * run_ahead()): set when nothing but its own scheduler can wake a warp there (no barriers,
   * no two-level pool) and a warp issues one instruction a cycle; run_until is the cycle
   * sm_run_until() stops at */
  gboolean run_ahead_ok;
  guint64 run_until;
  guint64 now;
  gboolean finished;

  /* counts */
  SmStats stats;

  /* how it runs */
  TraceSink *trace;      /* NULL: no records at all */
  SmProgressFn progress; /* NULL: none (sm_set_progress) */
  gpointer progress_data;
  guint8 *warp_exists; /* for the trace */
  guint8 *warp_state;  /* for the trace: each warp's state when it was attached */
  guint64 traced_counter[TRACE_COUNTER_COUNT];

  /* the layer above (fast/): its hooks, what it keeps (NULL in a view), and what it tells the
   * machine: some SMs are not stepped (fast/mirror.c); the state is read between steps
   * (fast-forward: no run-ahead); a view of one SM stepped on a thread (fast/parallel.c), whose
   * global accesses and warps' ends wait for the memory system (NULL in the machine itself), and
   * the latest cycle one of its own issues took a write port for */
  const SmAbove *above;
  SmFast *fast;
  gboolean mirrored;
  gboolean watched;
  SmDefer *defer;
  guint64 port_max;
};

/* Reads the scoreboard once for the instruction now at pc: its operands' readiness cannot
 * change until it issues (memory results are known at issue). */
static inline void
sm_warp_prepare(const SmGpu *sm, SmWarp *w)
{
  if (w->done)
    return;
  const SmInsnInfo *ii = &sm->info[w->pc];
  SmState why = SM_STATE_WAIT;
  if (G_UNLIKELY(sm->sass != NULL))
    w->deps_at = sm_scoreboard_deps_ready(&w->sb, &sm->prog->deps[w->pc], ii->unit, &why);
  else
    w->deps_at = sm_scoreboard_operands_ready(&w->sb, &sm->prog->insns[w->pc], ii->unit, &why);
  w->dep_state = (guint8)why;
  w->pipe = ii->pipe;
  w->space = ii->space;
  w->n_trans = ii->n_trans;
  if (G_UNLIKELY(ii->special == SM_SPECIAL_BAR) && w->smem_stores_done > w->deps_at) {
    w->deps_at = w->smem_stores_done; /* a barrier is a fence for shared-memory stores */
    w->dep_state = SM_STATE_BARRIER;
  } else if (G_UNLIKELY(ii->special == SM_SPECIAL_DEPBAR)) {
    guint64 ready = sm_warp_copies_ready(w, sm->prog->insns[w->pc].groups);
    if (ready > w->deps_at) {
      w->deps_at = ready;
      w->dep_state = SM_STATE_ASYNC_COPY_WAIT;
    }
  } else if (G_UNLIKELY(ii->special == SM_SPECIAL_FENCE) && sm->fences) {
    /* its own trip back (fence_cycles from its arrival), its own loads' data back, and the
     * stores its SM issued before it acknowledged (its own still in the store queue: not yet
     * known, the queue prepares it again as each leaves) */
    guint64 ready = w->stores_queued ? SM_NEVER
                                     : MAX(MAX(w->last_issue + 1 + sm->fence_cycles, w->finish),
                                           sm->fence_stores[w->sm]);
    if (ready > w->deps_at) {
      w->deps_at = ready;
      w->dep_state = SM_STATE_MEMBAR;
    }
  }
}

/* With fences: a store of SM @m that the memory system returned as @base (its lines taken by
 * their SM's share of the level at @taken, 0: not paced) is acknowledged to a fence then
 * (memory.fence, fence_ack_cycles; sm->mem's store_taken and store_done hold its channels' take
 * and completion), and no earlier than its lines had their ways (store_way: the write-backs of
 * the lines they replace taken, caches.l2.clean_ways). */
static inline void
sm_fence_store(SmGpu *sm, guint m, guint64 base, guint64 taken)
{
  const SmMemory *mem = &sm->mem;
  guint64 done = sm->cfg->memory.fence == CFG_FENCE_COMPLETION ? MAX(base, mem->store_done)
                 : taken                                       ? MAX(taken, mem->store_way)
                                                               : mem->store_taken;
  sm->fence_stores[m] = MAX(sm->fence_stores[m], done + sm->cfg->memory.fence_ack_cycles);
}

/* Warp slots are numbered SM by SM, as the hardware holds them: SM k's are
 * k * warp_slots_per_sm ... (k + 1) * warp_slots_per_sm - 1, together in memory (a thread
 * stepping one SM touches only its own), and within an SM, slot l belongs to the SM's scheduler
 * l % sched_per_sm at position l / sched_per_sm.  Scheduler @s's warp at position @p: */
static inline SmWarp *
sm_sched_warp(const SmGpu *sm, const SmScheduler *s, guint p)
{
  return &sm->warps[s->slot0 + p * sm->sched_per_sm];
}

/* Local slot @i of block @blk (on SM blk->sm). */
static inline SmWarp *
sm_block_warp(SmGpu *sm, const SmBlock *blk, guint i)
{
  return &sm->warps[blk->sm * sm->warp_slots_per_sm + blk->first_local + i];
}

/* @w belongs to an SM the loop steps (the others run like one of those: fast/mirror.c). */
static inline gboolean
sm_warp_stepped(const SmGpu *sm, const SmWarp *w)
{
  return w->exists && sm->mp[w->sm].weight > 0;
}

/* Position of @w in its scheduler's warps[]. */
static inline guint
sm_warp_pos(const SmGpu *sm, const SmWarp *w)
{
  return w->pos;
}

/* Nothing about @w changes before cycle @at: its scheduler looks at it again then. */
static inline void
sm_wake_warp(SmGpu *sm, SmWarp *w, guint64 at)
{
  SmScheduler *s = &sm->sched[w->sched];
  s->wake[sm_warp_pos(sm, w)] = at;
  sm->min_wake[w->sched] = MIN(sm->min_wake[w->sched], at);
}

/* SM @m's schedulers look from its local scheduler @first on, in index order, from the next
 * cycle (round robin for the shared-memory queue's free places: the one after the last that
 * queued an access); loop.c rebuilds sm->order before the next cycle. */
static inline void
sm_smem_turn(SmGpu *sm, guint m, guint first)
{
  if (sm->smem.first[m] != first) {
    sm->smem.first[m] = (guint8)first;
    sm->order_stale = TRUE;
  }
}

/* @sm's stream draws random numbers (addresses, latencies, chance predicates): every warp
 * draws its own, so no two SMs (fast/mirror.c), and no two periods (fast/steady.c), are alike.
 * new.c */
gboolean sm_draws_random(const SmGpu *sm);
/* Some of @sm's global accesses go through the caches (they name no level on a GPU with
 * caches).  new.c; sass.c for kernels over SASS */
gboolean sm_uses_caches(const SmGpu *sm);
gboolean sm_sass_uses_caches(const SmGpu *sm);

/* Windows (window.c): the lines of @ii's next access along the chase at *@x (up to 32, with
 * their sectors), and the warm-up pass before a run of a kernel with warm_up. */
guint sm_window_lines(const SmGpu *sm, const SmInsnInfo *ii, guint64 *x, guint64 *lines,
                      guint8 *sectors);
void sm_window_warm(SmGpu *sm);

/* The events due by cycle @t (events.c): block launches, memory completions (the warps waiting
 * for room among their SM's transactions in flight wake). */
void sm_fire_events(SmGpu *sm, guint64 t);

/* What issuing does alike for streams (issue.c) and SASS (sass.c). */

/* A global access of @w completing at @base (issued at @t): its counts, an asynchronous copy's
 * landing. */
static inline void
sm_issue_global_counted(SmGpu *sm, SmWarp *w, const SmInsnInfo *ii, guint64 t, guint64 base)
{
  if (ii->is_store) {
    sm->stats.global_stores++;
  } else {
    sm->stats.global_loads++;
    if (G_LIKELY(base != SM_PENDING)) /* else when it is known (fast/parallel.c) */
      sm->stats.global_load_latency += base - t;
  }
  if (ii->special == SM_SPECIAL_LDGSTS) {
    sm->stats.async_copies++;
    w->copy_open = MAX(w->copy_open, base); /* the data is in shared memory then */
  }
}

/* A shared-memory access of @passes bank passes by @w at @now_ticks: the cycle its data is
 * there, its counts, the turn at the queue, a store's completion (BAR.SYNC waits for it). */
static inline guint64
sm_issue_shared(SmGpu *sm, SmWarp *w, SmStats *st, const SmInsnInfo *ii, guint64 now_ticks,
                guint passes, guint64 *first_pass)
{
  guint64 first;
  guint64 base = sm_smem_access(&sm->smem, w->sm, now_ticks, passes, &w->smem_own, &first);
  *first_pass = first;
  sm_smem_turn(sm, w->sm, w->local + 1u == sm->sched_per_sm ? 0 : w->local + 1u);
  st->shared_accesses++;
  st->shared_passes += passes;
  if (ii->is_store) {
    st->shared_stores++;
    w->smem_stores_done = MAX(w->smem_stores_done, base + ii->max_latency);
  }
  return base;
}

/* The result's register-file write: a fixed-latency one was checked free at issue; a
 * variable-latency one waits for the first free port from its arrival (*@base and *@complete
 * move with it). */
static inline void
sm_issue_write_port(SmGpu *sm, SmScheduler *s, const SmInsnInfo *ii, guint64 t, guint64 *base,
                    guint64 *complete)
{
  if (G_LIKELY(!sm->wb_ports) || !ii->writes_register || *base == SM_PENDING)
    return; /* a pending access takes its port when its completion is known (fast/parallel.c) */
  guint n = ii->write_cycles;
  if (G_LIKELY(n == 1)) {
    while (!ii->fixed_latency && sm_ports_used(&s->ports, *complete) >= sm->wb_ports) {
      (*complete)++;
      (*base)++;
    }
    sm_ports_take(&s->ports, t, *complete);
  } else {
    /* a load's result wider than a port takes (register_write_bytes) holds it n cycles in a
     * row, from the first cycle at which they are all free */
    for (guint k = 0; k < n;) {
      if (sm_ports_used(&s->ports, *complete + k) < sm->wb_ports) {
        k++;
      } else {
        *complete += k + 1;
        *base += k + 1;
        k = 0;
      }
    }
    for (guint k = 0; k < n; k++)
      sm_ports_take(&s->ports, t, *complete + k);
  }
  if (G_UNLIKELY(sm->defer))
    sm->port_max = MAX(sm->port_max, *complete + n - 1);
}

/* One more instruction of (lowered) op @op issued by @w at @t. */
static inline void
sm_issue_count(SmWarp *w, SmStats *st, const SmInsnInfo *ii, guint op, guint64 t)
{
  w->issued++;
  w->last_issue = t;
  st->issued++;
  st->issued_unit[ii->unit]++;
  st->issued_op[op]++;
  st->thread_instructions += w->n_active;
}

/* The machine built into the zeroed @sm, before its first wave of blocks (new.c); the first wave
 * launched, the run's constant counts set; what sm_machine_init() built freed, leaving the
 * struct.  The layer above builds a run from these (fast/run.c: sm_new()). */
void sm_machine_init(SmGpu *sm, const CfgGpu *gpu, const CfgKernel *kernel);
void sm_machine_start(SmGpu *sm);
void sm_machine_clear(SmGpu *sm);
/* SM @m's warps and schedulers count into @stats (new.c). */
void sm_count_into(SmGpu *sm, guint m, SmStats *stats);
/* The cycle loop (loop.c): every cycle with work before @cycle in one loop (then sm->now >=
 * @cycle, or the run finished or stopped); a view's cycles before its run_until. */
void sm_machine_run_until(SmGpu *sm, guint64 cycle);
void sm_step_view(SmGpu *view);
/* The trace's records from now on (trace.c; the layer above first stops what a trace cannot
 * follow: sm_attach_trace() in fast/run.c). */
gboolean sm_machine_attach_trace(SmGpu *sm, TraceSink *sink, GError **error);
/* SMs stepped apart over SASS (sass.c): whether they may be (no global atomics); the memory
 * image's record of which window and SM touched each word, set up before the first window and
 * asked before every global access until the windows end; a window from cycle @start to @end
 * begins (its accesses may meet those of the windows that end after @start); whether two SMs'
 * accesses met, one of them a write (then the run is stepped again in one loop); the error
 * that stops the run (the earliest of the views'). */
gboolean sm_sass_apart_ok(const SmGpu *sm);
void sm_sass_apart_begin(SmGpu *sm);
void sm_sass_apart_end(SmGpu *sm);
void sm_sass_window(SmGpu *sm, guint64 start, guint64 end);
gboolean sm_sass_conflicted(const SmGpu *sm);
void sm_sass_set_error(SmGpu *sm, GError *error);
/* The run's end: closes the warps' states and sets the counters (finish.c). */
void sm_finish(SmGpu *sm);

/* Issues the instruction at @w's pc on scheduler @s at cycle @t in issue slot @slot (issue.c). */
void sm_issue(SmGpu *sm, SmScheduler *s, SmWarp *w, guint64 t, guint slot);

/* Kernels over SASS (sass.c): the memory image and the executor's kernel (after
 * sm_blocks_init()); a block's lane state when it launches into slot @b; a launched warp's
 * first instruction; issuing one instruction (sm_issue() for a warp with an executor). */
void sm_sass_init(SmGpu *sm);
void sm_sass_clear(SmGpu *sm);
void sm_sass_launch(SmGpu *sm, guint b);
void sm_sass_settle(SmGpu *sm, SmWarp *w);
void sm_sass_issue(SmGpu *sm, SmScheduler *s, SmWarp *w, guint64 t, guint slot);
/* A global access over SASS, its lines known (sass-lanes.c): @n lines, their bytes and sectors
 * (masks), a store's sectors written in part, the level of memory it goes to or through the
 * caches with @op, and a store's bytes in all. */
typedef struct {
  guint n;
  const guint64 *lines;
  const guint *bytes;
  const guint8 *masks, *partial;
  guint level, op, data_bytes;
} SmAccess;
/* From the SM's LD/ST stage on (stores.c): @w's access @a by its instruction at @pc at @t takes
 * its turn at the stage and goes into the memory system; returns its completion (SM_PENDING:
 * known later) and sets *@read to when a store's registers are read.  A store that finds no
 * room among its SM's stores in flight, or stores before it still waiting, waits in the SM's
 * store queue instead (its registers held, the warp going on): returns SM_PENDING then, and
 * sm_sass_stores_resume() takes it on; with no queue (lsu.store_queue 0) it never waits. */
guint64 sm_sass_access(SmGpu *sm, SmWarp *w, guint32 pc, guint64 t, const SmAccess *a);
/* SM @m's stores waiting for room take their turns while there is room, before its schedulers
 * look at @t: their warps' registers are read, and a warp that exited leaves once its last is
 * gone (stores.c). */
void sm_sass_stores_resume(SmGpu *sm, guint m, guint64 t);
/* What an executed instruction's lanes touch (sass-lanes.c): the lines of a global access (at
 * most SM_MEMORY_MAX_LINES), with the bytes and mask of the sectors touched in each, and (when
 * @partial is not NULL) which of those sectors the lanes touch only in part; the bank
 * passes of a shared one (the most distinct words any bank serves, at least those its bytes
 * need). */
guint sm_sass_lines(const SmGpu *sm, const ExecStep *st, guint64 *lines, guint *bytes,
                    guint8 *masks, guint8 *partial);
guint sm_sass_bank_passes(const SmGpu *sm, const ExecStep *st);
/* Each instruction's opcode with its modifiers ("IMAD.WIDE.U32"), by its index: a trace names
 * a SASS kernel's instructions so. */
const char *const *sm_sass_op_names(SmGpu *sm, guint *n);

/* Trace records (trace.c); called only when sm->trace is set, kept out of line so the
 * untraced hot path stays small. */
G_GNUC_NO_INLINE __attribute__((cold)) void sm_trace_state(SmGpu *sm, SmWarp *w, SmState state,
                                                           guint64 at);
G_GNUC_NO_INLINE __attribute__((cold)) void sm_trace_issue(SmGpu *sm, SmScheduler *s, SmWarp *w,
                                                           guint64 t, guint slot, guint64 complete,
                                                           guint passes);
G_GNUC_NO_INLINE __attribute__((cold)) void sm_trace_counters(SmGpu *sm, guint64 t);

/* @w is in @state from cycle @at on (its time in the state before is counted). */
static inline void
sm_set_state(SmGpu *sm, SmWarp *w, SmState state, guint64 at)
{
  if (w->state == state)
    return;
  w->stats->state_cycles[w->state] += at - w->state_since;
  if (w->state == SM_STATE_LONG_SCOREBOARD && sm->policy == CFG_POLICY_LAST_RESUMED)
    sm->sched[w->sched].resumed[sm_warp_pos(sm, w)] = at;
  if (G_UNLIKELY(sm->trace))
    sm_trace_state(sm, w, state, at);
  w->state = (guint8)state;
  w->state_since = at;
}

/* @w exited at its last issue and was in drain since; its last access completes at @end (at
 * least the cycle after that issue): from then on its slot is inactive. */
static inline void
sm_warp_drained(SmGpu *sm, SmWarp *w, guint64 end)
{
  w->stats->state_cycles[SM_STATE_DRAIN] += end - w->state_since;
  w->state = SM_STATE_INACTIVE;
  w->state_since = end;
  if (G_UNLIKELY(sm->trace))
    sm_trace_state(sm, w, SM_STATE_INACTIVE, end);
}
