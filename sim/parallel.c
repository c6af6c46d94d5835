/* SMs on threads, with the results of stepping them in one loop.
 *
 * The SMs of a run touch each other only through the memory system (channels, their ports'
 * queues, the L2) and the block scheduler.  Each SM is stepped by a view of its own (a copy of
 * the machine's struct whose loop looks only at that SM's schedulers, with its own event queue
 * and counters, sharing the arrays of warps, schedulers and blocks, where each SM writes only
 * its own).  Threads step the views in windows of cycles; between windows, one thread resolves
 * what the views left for the memory system, in the order the single loop would have reached
 * it: by cycle, then SM, then issue order within the SM.
 *
 * A view does at issue what its SM alone decides (its L1, its count of transactions in flight,
 * the warp's next instruction) and records the rest; the loaded register is ready at
 * SM_PENDING until then.  That gives the same run as long as nothing in the window could have
 * depended on a completion: every completion is at least the shortest unloaded latency of a
 * memory level after its issue (min_latency()), so a window of that many cycles ends before
 * any completes, less what a warp's own later work reaches beyond its issue cycle
 * (local_reach(): a fixed-latency result's register-file write port, a shared-memory or SFU
 * result's, a branch's fetch wait), which must stay short of any pending completion's port.
 * A warp's end and its block's retirement, which take its last completion, wait there too.
 *
 * Block launches: the block scheduler may give a freed slot's block to any SM with a free slot,
 * so it runs between windows (launch_blocks()), and a view with a free slot steps only to the
 * first launch that could come to it (set_limits(), sm_defer_retired()).  Accesses are sent up
 * to the bound, the first cycle some view has not stepped (resolve()).
 *
 * Kernels over SASS run their lanes on values in buffers all SMs share: a load sees what was
 * stored before it.  Within a window the SMs' order is not the single loop's, so every global
 * word keeps which window and SM touched it last (sass.c, shadow_touch()); two SMs touching one
 * word in windows whose cycles may overlap, one of them writing, is a conflict, and the run is
 * then built again and stepped in one loop from its start (sm_restart_in_one_loop()).  Kernels
 * whose blocks do not share words they write (each thread its own outputs, as the textbook's)
 * never conflict; kernels with global atomics are stepped in one loop from the start.  An
 * executor error stops the run after the window, with the error of the earliest cycle (then
 * SM): the one the single loop meets first.
 *
 * Runs where this does not hold are stepped in one loop (sm_parallel_run() returns FALSE):
 * traces (a record per cycle, in order), fast-forward and mirroring (they cover their runs
 * without threads), asynchronous copies, the two-level policy (its pool reads every warp's
 * state), and windows too short to pay.  tests/sim/test-threads.c compares every
 * counter with the single loop's. */
#include "sm-internal.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

/* Windows shorter than this are not worth the threads' meeting. */
#define MIN_WINDOW 16u
/* Allowance for a variable-latency result's write port found taken for a few cycles. */
#define PORT_SLACK 64u
/* A record's lines are its own (lines[], sectors[]) up to this many; more (an access over
 * SASS may touch up to SM_MEMORY_MAX_LINES) are kept in its view's ext_lines and ext_sectors. */
#define INLINE_LINES 32u
#define NO_EXT G_MAXUINT32

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
  guint64 base;      /* its completion, once the memory system has it */
  guint32 seq, warp, pc;
  guint32 ext; /* where its lines are in ext_lines, or NO_EXT: in lines[] */
  guint16 sm;
  guint8 kind, n, n_issued; /* lines still to send; transactions counted in flight */
  guint8 level;             /* DEFER_LINES: the memory level */
  guint64 lines[INLINE_LINES];
  guint8 sectors[INLINE_LINES];
} Deferred;

typedef struct {
  guint64 t;
  guint index; /* a warp, or a block slot */
} Ended;

struct SmDefer {
  GArray *recs;      /* Deferred, in issue order */
  guint n_sent;      /* its first n_sent have their completion */
  GArray *warps;     /* Ended: warps whose end waits for their accesses */
  GArray *blocks;    /* Ended: blocks retired */
  GArray *launches;  /* Ended: slots free again (t: from when), for the block scheduler */
  GArray *due;       /* Ended: scratch of view_catch_up() */
  GArray *retired;   /* guint64: cycles of the retirements the block scheduler may not have seen */
  GArray *ext_lines; /* guint64, guint8: the lines and sectors of records of more than */
  GArray *ext_sectors; /* INLINE_LINES lines, in the records' order */
  GError *error;       /* a kernel over SASS: the first executor error, at error_t */
  guint64 error_t;
  guint64 bound;      /* every access before it is sent: the warps and blocks that ended before it
                         can be closed */
  guint64 launch_min; /* no block launches before it (while the grid has blocks left) */
  guint32 seq;
  guint m; /* the SM */
};

typedef struct {
  Sm *sm;
  Sm **views;
  guint n_views, n_threads;
  /* POSIX rather than GLib's own (futex) locks: ThreadSanitizer sees these */
  pthread_mutex_t lock;
  pthread_cond_t go, done;
  gint phase;       /* what the threads run: PHASE_* */
  gint gen;         /* phases started */
  gint running;     /* threads besides this one still in the phase */
  GPtrArray *order; /* scratch of resolve(): the records in the single loop's order */
  guint *bucket;    /* scratch of resolve(): records per cycle of the window, then offsets */
  guint64 window;
} Par;

typedef struct {
  Par *par;
  guint id;
} Worker;

enum { PHASE_CATCH_UP, PHASE_STEP, PHASE_QUIT };

/* The shortest time from a global access's issue to its completion: a level's unloaded latency
 * (the smallest its histogram draws); queueing only adds to it.  L1 hits are the SM's own. */
static guint64
min_latency(const Sm *sm)
{
  guint64 lo = SM_NEVER;
  for (guint l = 0; l < sm->mem.n_levels; l++) {
    const SmMemLevel *lv = &sm->mem.levels[l];
    if (lv->n_latencies == 0) {
      lo = MIN(lo, lv->latency);
      continue;
    }
    for (guint b = 0; b < lv->n_latencies; b++)
      lo = MIN(lo, (guint64)MAX((gint64)lv->latency_bin[b] + lv->latency_shift, (gint64)1));
  }
  return lo;
}

/* How far past its issue cycle an instruction's effects reach inside its own SM, where a
 * pending completion could meet them: a taken branch's or convergence barrier's wait, and with
 * register-file write ports, the cycle its result takes one. */
static guint64
local_reach(const Sm *sm)
{
  const CfgGpu *g = sm->gpu;
  guint64 reach = 1 + (guint64)sm->branch_taken_cycles +
                  MAX(g->branch.bssy_cycles, g->branch.bsync_cycles) + g->branch.not_taken_cycles +
                  g->branch.divergent_cycles;
  if (!sm->wb_ports)
    return reach;
  guint64 pass = (sm->smem.ticks_per_pass + SM_TICKS_PER_CYCLE - 1) >> SM_TICK_SHIFT;
  guint64 depth = (sm->smem.depth_ticks >> SM_TICK_SHIFT) + 1;
  for (guint i = 0; i < sm->prog->n_insns; i++) {
    const SmInsnInfo *ii = &sm->info[i];
    if (sm->prog->insns[i].kind != ISA_INSN_OP || !ii->writes_register ||
        ii->space == ISA_SPACE_GLOBAL)
      continue;
    guint64 x = ii->max_latency + ii->issue_cycles;
    if (ii->space == ISA_SPACE_SHARED)
      x += depth + (ii->passes ? ii->passes : 128u) * pass;
    reach = MAX(reach, x + PORT_SLACK);
  }
  return reach;
}

static gboolean
uses_global(const Sm *sm)
{
  for (guint i = 0; i < sm->prog->n_insns; i++)
    if (sm->prog->insns[i].kind == ISA_INSN_OP && sm->info[i].space == ISA_SPACE_GLOBAL)
      return TRUE;
  return FALSE;
}

/* The window in cycles, or 0 where threads cannot give the single loop's results. */
static guint64
window_cycles(const Sm *sm)
{
  if (sm->n_sm < 2 || sm->one_loop || sm->trace || sm->steady || sm->mirrored ||
      (sm->sass && !sm_sass_apart_ok(sm)) || sm->copy_pool || sm->policy == CFG_POLICY_TWO_LEVEL)
    return 0;
  if (sm->next_block < sm->grid_blocks && sm->gpu->block_launch_cycles + 1 < MIN_WINDOW)
    return 0; /* blocks to launch would keep the windows shorter than that */
  if (!uses_global(sm))
    return SM_NEVER / 4; /* nothing couples the SMs: one window */
  guint64 lo = min_latency(sm), reach = local_reach(sm);
  return lo > reach + MIN_WINDOW ? lo - reach : 0;
}

static Sm *
view_new(Sm *sm, guint m)
{
  Sm *v = g_new(Sm, 1);
  *v = *sm;
  v->defer = g_new0(SmDefer, 1);
  v->defer->recs = g_array_new(FALSE, FALSE, sizeof(Deferred));
  v->defer->warps = g_array_new(FALSE, FALSE, sizeof(Ended));
  v->defer->blocks = g_array_new(FALSE, FALSE, sizeof(Ended));
  v->defer->launches = g_array_new(FALSE, FALSE, sizeof(Ended));
  v->defer->due = g_array_new(FALSE, FALSE, sizeof(Ended));
  v->defer->retired = g_array_new(FALSE, FALSE, sizeof(guint64));
  v->defer->ext_lines = g_array_new(FALSE, FALSE, sizeof(guint64));
  v->defer->ext_sectors = g_array_new(FALSE, FALSE, sizeof(guint8));
  v->defer->launch_min = SM_NEVER;
  v->defer->m = m;
  v->sim_sms = g_new(guint, 1);
  v->sim_sms[0] = m;
  v->n_sim_sm = 1;
  v->order = g_new0(guint, sm->sched_per_sm);
  v->n_order = 0;
  v->order_stale = TRUE;
  guint per = sm->n_warps / sm->n_sched + 1;
  v->eligible = g_new0(guint, per);
  v->prio_pos = g_new0(guint, per);
  v->prio_at = g_new0(guint, per);
  v->pool_leaves = v->pool_joins = NULL;
  sm_engine_init(&v->engine, 64);
  v->mem.engine = &v->engine;
  memset(&v->mem.counts, 0, sizeof v->mem.counts);
  v->mem.peak_outstanding = 0;
  memset(&v->stats, 0, sizeof v->stats);
  v->n_done = 0;
  v->blocks_retired = 0;
  v->lg_waiters = sm->lg_waiters ? 1 : 0; /* some may be here: the next completion looks */
  v->progress = NULL;
  v->sm_counts = NULL;
  v->totals = NULL;
  if (sm->clock) { /* its warps' reads are their own; the spans of those that end, the view's */
    v->clock = g_new(SmClock, 1);
    *v->clock = *sm->clock;
    v->clock->spans = g_array_new(FALSE, FALSE, sizeof(guint64));
  }
  sm_count_into(sm, m, &v->stats);
  return v;
}

/* The next cycle view @v has anything to do. */
static guint64
view_next(const Sm *v)
{
  guint64 next = sm_engine_next_cycle(&v->engine);
  guint first = v->defer->m * v->sched_per_sm;
  for (guint q = first; q < first + v->sched_per_sm; q++)
    next = MIN(next, v->min_wake[q]);
  return next;
}

static void
add_cache_counts(SmCacheCounts *to, const SmCacheCounts *c)
{
  to->l1_requests += c->l1_requests;
  to->l1_sectors += c->l1_sectors;
  to->l1_hits += c->l1_hits;
  to->l2_requests += c->l2_requests;
  to->l2_sectors += c->l2_sectors;
  to->l2_hits += c->l2_hits;
  to->l2_far_hits += c->l2_far_hits;
  to->write_backs += c->write_backs;
}

/* The views' counts so far into the machine's (a progress line reads them mid-run). */
static void
fold_counts(Par *p)
{
  for (guint i = 0; i < p->n_views; i++) {
    Sm *v = p->views[i];
    sm_stats_add_scaled(&p->sm->stats, &v->stats, NULL, 1);
    p->sm->stats.visited_cycles += v->stats.visited_cycles;
    memset(&v->stats, 0, sizeof v->stats);
  }
}

/* A new record of @w's access at @t, its lines its own. */
static Deferred *
new_record(Sm *v, SmWarp *w, guint64 t)
{
  SmDefer *d = v->defer;
  g_array_set_size(d->recs, d->recs->len + 1);
  Deferred *r = &g_array_index(d->recs, Deferred, d->recs->len - 1);
  r->t = r->l1_done = t;
  r->seq = d->seq++;
  r->warp = (guint32)(w - v->warps);
  r->pc = w->pc;
  r->sm = (guint16)d->m;
  r->ext = NO_EXT;
  r->level = v->info[w->pc].level;
  return r;
}

static guint64 *
rec_lines(SmDefer *d, Deferred *r)
{
  return r->ext == NO_EXT ? r->lines : &g_array_index(d->ext_lines, guint64, r->ext);
}

static guint8 *
rec_sectors(SmDefer *d, Deferred *r)
{
  return r->ext == NO_EXT ? r->sectors : &g_array_index(d->ext_sectors, guint8, r->ext);
}

guint64
sm_defer_global(Sm *v, SmWarp *w, const SmInsnInfo *ii, guint64 t)
{
  SmDefer *d = v->defer;
  Deferred *r = new_record(v, w, t);
  guint n;
  if (ii->chase_units) {
    n = sm_window_lines(v, ii, &w->chase, r->lines, r->sectors);
    r->kind = DEFER_LINES;
    r->n = (guint8)n;
    if (ii->level == CFG_LEVEL_CACHED) {
      /* the SM's own L1 now (it reads lines[i] before writing the rest at m <= i) */
      r->kind = DEFER_CACHED;
      r->n = (guint8)sm_memory_l1_access(&v->mem, d->m, t, n, r->lines, r->sectors,
                                         (SmCacheOp)ii->cache_op, ii->is_store, NULL, &r->l1_done,
                                         r->lines, r->sectors);
    }
  } else {
    n = ii->n_trans;
    r->kind = DEFER_LEVEL;
    r->n = (guint8)n;
    r->line_base = ii->random_lines ? 0 : sm_rng_next(&w->rng) >> 24;
    r->rng = w->rng;
    if (ii->random_lines) /* the lines it draws, from the warp's own generator */
      for (guint i = 0; i < n; i++)
        sm_rng_next(&w->rng);
  }
  r->n_issued = (guint8)n;
  sm_memory_count_issued(&v->mem, d->m, n);
  if (r->kind == DEFER_CACHED && r->n == 0) {
    guint64 done = r->l1_done; /* the L1 answered it whole */
    g_array_set_size(d->recs, d->recs->len - 1);
    return done;
  }
  return SM_PENDING;
}

guint64
sm_defer_lines(Sm *v, SmWarp *w, guint64 t, guint n, const guint64 *lines, const guint8 *masks,
               guint level, guint op)
{
  SmDefer *d = v->defer;
  const SmInsnInfo *ii = &v->info[w->pc];
  Deferred *r = new_record(v, w, t);
  r->level = (guint8)level;
  if (n > INLINE_LINES) {
    r->ext = d->ext_lines->len;
    g_array_set_size(d->ext_lines, r->ext + n);
    g_array_set_size(d->ext_sectors, r->ext + n);
  }
  guint64 *to_lines = rec_lines(d, r);
  guint8 *to_sectors = rec_sectors(d, r);
  if (level == CFG_LEVEL_CACHED) {
    r->kind = DEFER_CACHED; /* the SM's own L1 now, the rest later */
    r->n = (guint8)sm_memory_l1_access(&v->mem, d->m, t, n, lines, masks, (SmCacheOp)op,
                                       ii->is_store, NULL, &r->l1_done, to_lines, to_sectors);
  } else {
    r->kind = DEFER_LINES;
    r->n = (guint8)n;
    memcpy(to_lines, lines, n * sizeof *lines);
    memcpy(to_sectors, masks, n);
  }
  r->n_issued = (guint8)n;
  sm_memory_count_issued(&v->mem, d->m, n);
  if (r->kind == DEFER_CACHED && r->n == 0) {
    guint64 done = r->l1_done; /* the L1 answered it whole */
    if (r->ext != NO_EXT) {
      g_array_set_size(d->ext_lines, r->ext);
      g_array_set_size(d->ext_sectors, r->ext);
    }
    g_array_set_size(d->recs, d->recs->len - 1);
    return done;
  }
  return SM_PENDING;
}

void
sm_defer_error(Sm *v, guint64 t, GError *error)
{
  SmDefer *d = v->defer;
  if (d->error) {
    g_error_free(error);
    return;
  }
  d->error = error;
  d->error_t = t;
}

void
sm_defer_finished(Sm *v, SmWarp *w)
{
  Ended e = {w->last_issue, (guint)(w - v->warps)};
  g_array_append_val(v->defer->warps, e);
}

void
sm_defer_retired(Sm *v, guint b, guint64 t)
{
  SmDefer *d = v->defer;
  Ended e = {t, b};
  g_array_append_val(d->blocks, e);
  v->blocks[b].free_at = SM_NEVER; /* not before its warps' ends are known */
  if (v->next_block < v->grid_blocks) {
    g_array_append_val(d->retired, t);
    /* its slot is free from retire + block_launch_cycles on (at least this): a launch from
     * then on may come here, and only the block scheduler, between windows, knows */
    v->run_until = MIN(v->run_until, MAX(t + 1 + v->gpu->block_launch_cycles, d->launch_min));
  }
}

/* Record @r's access goes to the memory system, as the single loop would have sent it then:
 * its completion, and its transactions' completion events in its SM's queue. */
static void
send(Par *p, Deferred *r)
{
  Sm *sm = p->sm, *v = p->views[r->sm];
  SmMemory *mem = &sm->mem;
  const SmInsnInfo *ii = &sm->info[r->pc];
  guint m = r->sm;
  const guint64 *lines = rec_lines(v->defer, r);
  const guint8 *sectors = rec_sectors(v->defer, r);
  mem->engine = &v->engine; /* its completions are the SM's events */
  guint64 base;
  if (r->kind == DEFER_CACHED) {
    base = sm_memory_l2_access(mem, m, r->t, r->n, lines, sectors, ii->is_store, NULL);
    base = MAX(base, r->l1_done);
  } else {
    /* counted in flight at issue already */
    guint64 peak = mem->peak_outstanding;
    mem->sm_outstanding[m] -= r->n_issued;
    if (r->kind == DEFER_LEVEL) {
      guint64 rng = r->rng;
      base = sm_memory_access(mem, m, ii->level, r->t, r->n, ii->trans_bytes, r->line_base,
                              ii->random_lines, ii->is_store, &rng);
    } else {
      guint bytes[SM_MEMORY_MAX_LINES];
      for (guint i = 0; i < r->n; i++)
        bytes[i] = sm_popcount32(sectors[i]) * mem->sector_bytes;
      base = sm_memory_access_lines(mem, m, r->level, r->t, r->n, lines, bytes, ii->is_store);
    }
    mem->peak_outstanding = peak; /* the view counted its own peak at issue */
  }
  mem->engine = &sm->engine;
  r->base = base;
}

/* What sm_issue() does with record @r's completion, on view @v's thread. */
static void
complete(Sm *v, const Deferred *r)
{
  static const guint32 no_latency[ISA_UNIT_COUNT];
  const SmInsnInfo *ii = &v->info[r->pc];
  SmWarp *w = &v->warps[r->warp];
  SmScheduler *s = &v->sched[w->sched];
  guint64 base = r->base, complete = base;
  if (!ii->is_store)
    v->stats.global_load_latency += base - r->t;
  guint64 port_max = v->port_max;
  if (v->wb_ports && ii->writes_register && base <= port_max)
    g_error("threads: a result's register-file write port at cycle %" G_GUINT64_FORMAT
            " may have been taken by a later issue (one reached %" G_GUINT64_FORMAT
            "): local_reach() is too short",
            base, port_max);
  sm_issue_write_port(v, s, ii, r->t, &base, &complete);
  v->port_max = port_max; /* it counts the SM's own issues only */
  const IsaInsn *insn = &v->prog->insns[r->pc];
  if (v->sass) { /* every register slot it writes (sass.c) */
    const IsaDeps *deps = &v->prog->deps[r->pc];
    for (guint k = 0; k < deps->n_dst; k++)
      sm_scoreboard_write(&w->sb, deps->dst[k], base, no_latency, (SmState)ii->result_state);
  } else if (insn->dst != ISA_NO_REG && !ii->never) {
    sm_scoreboard_write(&w->sb, insn->dst, base, no_latency, (SmState)ii->result_state);
  }
  w->finish = MAX(w->finish, complete);
  if (w->done || w->deps_at != SM_PENDING)
    return;
  /* the warp waits for it (or waited: it looks again at its wake) */
  sm_warp_prepare(v, w);
  if (w->deps_at == SM_PENDING || s->wake[w->pos] != SM_PENDING)
    return;
  /* it has not been looked at since it found the register pending: it wakes as the single
   * loop's look found it, waiting for this completion (the last of its operands) */
  s->wake[w->pos] = w->deps_at;
  v->min_wake[w->sched] = MIN(v->min_wake[w->sched], w->deps_at);
  w->state = w->dep_state;
}

/* Between windows, on one thread: the views' accesses issued before @bound, to the memory
 * system in the single loop's order (by cycle, then SM, then issue; each view's records are in
 * cycle order, so a count per cycle from @start places them). */
static void
resolve(Par *p, guint64 start, guint64 bound)
{
  for (guint i = 0; i < p->n_views; i++)
    p->views[i]->defer->bound = bound;
  if (p->bucket == NULL)
    return;
  guint64 span = bound - start;
  memset(p->bucket, 0, (span + 1) * sizeof(guint));
  guint total = 0;
  for (guint i = 0; i < p->n_views; i++) {
    SmDefer *d = p->views[i]->defer;
    for (guint k = d->n_sent; k < d->recs->len; k++) {
      const Deferred *r = &g_array_index(d->recs, Deferred, k);
      if (r->t >= bound)
        break;
      p->bucket[r->t - start + 1]++;
      total++;
    }
  }
  for (guint64 c = 1; c <= span; c++)
    p->bucket[c] += p->bucket[c - 1];
  g_ptr_array_set_size(p->order, total);
  for (guint i = 0; i < p->n_views; i++) {
    SmDefer *d = p->views[i]->defer;
    for (; d->n_sent < d->recs->len; d->n_sent++) {
      Deferred *r = &g_array_index(d->recs, Deferred, d->n_sent);
      if (r->t >= bound)
        break;
      p->order->pdata[p->bucket[r->t - start]++] = r;
    }
  }
  for (guint k = 0; k < total; k++)
    send(p, g_ptr_array_index(p->order, k));
}

/* The entries of @ended from before @bound into @due, in their order (which run-ahead may leave
 * out of cycle order); @ended keeps the others. */
static void
take_due(GArray *ended, guint64 bound, GArray *due)
{
  g_array_set_size(due, 0);
  guint kept = 0;
  for (guint k = 0; k < ended->len; k++) {
    Ended e = g_array_index(ended, Ended, k);
    if (e.t < bound)
      g_array_append_val(due, e);
    else
      g_array_index(ended, Ended, kept++) = e;
  }
  g_array_set_size(ended, kept);
}

/* On view @v's thread: its accesses' completions, then the ends of its warps and blocks that
 * waited for them (those that ended before the bound), its slots free again. */
static void
view_catch_up(Sm *v)
{
  SmDefer *d = v->defer;
  for (guint k = 0; k < d->n_sent; k++)
    complete(v, &g_array_index(d->recs, Deferred, k));
  g_array_remove_range(d->recs, 0, d->n_sent);
  d->n_sent = 0;
  /* the lines kept apart for the records left (the latest) move to the front */
  guint first = d->ext_lines->len;
  for (guint k = 0; k < d->recs->len && first == d->ext_lines->len; k++)
    if (g_array_index(d->recs, Deferred, k).ext != NO_EXT)
      first = g_array_index(d->recs, Deferred, k).ext;
  if (first > 0) {
    g_array_remove_range(d->ext_lines, 0, first);
    g_array_remove_range(d->ext_sectors, 0, first);
    for (guint k = 0; k < d->recs->len; k++)
      if (g_array_index(d->recs, Deferred, k).ext != NO_EXT)
        g_array_index(d->recs, Deferred, k).ext -= first;
  }
  take_due(d->warps, d->bound, d->due);
  for (guint k = 0; k < d->due->len; k++) {
    SmWarp *w = &v->warps[g_array_index(d->due, Ended, k).index];
    guint64 end = MAX(w->finish, w->last_issue + 1);
    w->stats->resident_warp_cycles += end - w->launched;
    SmBlock *blk = &v->blocks[w->block];
    blk->retire = MAX(blk->retire, end);
  }
  take_due(d->blocks, d->bound, d->due);
  for (guint k = 0; k < d->due->len; k++) {
    guint b = g_array_index(d->due, Ended, k).index;
    SmBlock *blk = &v->blocks[b];
    v->end_cycle = MAX(v->end_cycle, blk->retire);
    blk->free_at = blk->retire + v->gpu->block_launch_cycles;
    Ended l = {blk->free_at, b};
    g_array_append_val(d->launches, l);
  }
  v->now = MIN(v->now, view_next(v));
}

/* Thread @id's share of the views: each catches up, or steps to its limit (run_until). */
static void
step_share(Par *p, guint id, gboolean catching_up)
{
  guint lo = id * p->n_views / p->n_threads, hi = (id + 1) * p->n_views / p->n_threads;
  for (guint i = lo; i < hi; i++) {
    view_catch_up(p->views[i]); /* (nothing left to catch up after a catch-up phase) */
    if (!catching_up)
      sm_step_view(p->views[i]);
  }
}

/* A short wait for @v to differ from @old (or, with @until_zero, to reach zero), spinning: the
 * other threads' part of a phase mostly ends within microseconds of this one's, and waking a
 * sleeping thread costs tens.  FALSE: it did not within the spin; the caller sleeps. */
static gboolean
spin(gint *v, gint old, gboolean until_zero)
{
  gint64 start = 0;
  for (guint i = 0;; i++) {
    gint x = g_atomic_int_get(v);
    if (until_zero ? x == 0 : x != old)
      return TRUE;
    if ((i & 255) == 0) {
      /* at most 50 microseconds; after 5, the core goes to any other thread that waits for
       * one (when runs share the cores, the thread waited for may be that one) */
      gint64 now = g_get_monotonic_time();
      if (start == 0)
        start = now;
      else if (now - start > 50)
        return FALSE;
      else if (now - start > 5)
        sched_yield();
    }
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  }
}

static gpointer
worker(gpointer data)
{
  Worker *wk = data;
  Par *p = wk->par;
  gint gen = 0;
  for (;;) {
    if (!spin(&p->gen, gen, FALSE)) {
      pthread_mutex_lock(&p->lock);
      while (g_atomic_int_get(&p->gen) == gen)
        pthread_cond_wait(&p->go, &p->lock);
      pthread_mutex_unlock(&p->lock);
    }
    gen = g_atomic_int_get(&p->gen);
    gint phase = g_atomic_int_get(&p->phase);
    if (phase == PHASE_QUIT)
      return NULL;
    step_share(p, wk->id, phase == PHASE_CATCH_UP);
    pthread_mutex_lock(&p->lock);
    if (g_atomic_int_dec_and_test(&p->running))
      pthread_cond_signal(&p->done);
    pthread_mutex_unlock(&p->lock);
  }
}

/* Every view catches up, or steps (@phase), or the threads end: thread 0 (this one) its share,
 * the others theirs. */
static void
run_phase(Par *p, gint phase)
{
  pthread_mutex_lock(&p->lock);
  g_atomic_int_set(&p->phase, phase);
  g_atomic_int_set(&p->running, (gint)p->n_threads - 1);
  g_atomic_int_inc(&p->gen);
  pthread_cond_broadcast(&p->go);
  pthread_mutex_unlock(&p->lock);
  if (phase == PHASE_QUIT)
    return;
  step_share(p, 0, phase == PHASE_CATCH_UP);
  if (spin(&p->running, 0, TRUE))
    return;
  pthread_mutex_lock(&p->lock);
  while (g_atomic_int_get(&p->running) > 0)
    pthread_cond_wait(&p->done, &p->lock);
  pthread_mutex_unlock(&p->lock);
}

/* Between windows, on one thread: the slots the views freed are block launches (the single
 * loop's events), and those due at @at run the block scheduler with every SM's blocks as they
 * were then (retirements at @at or later, which views ahead of it made, are counted back). */
static void
launch_blocks(Par *p, guint64 at, gboolean dispatch)
{
  Sm *sm = p->sm;
  for (guint i = 0; i < p->n_views; i++) {
    GArray *l = p->views[i]->defer->launches;
    for (guint k = 0; k < l->len; k++)
      if (sm->next_block < sm->grid_blocks)
        sm_engine_push(&sm->engine, g_array_index(l, Ended, k).t, 1, SM_EVENT_BLOCK_LAUNCH,
                       g_array_index(l, Ended, k).index);
    g_array_set_size(l, 0);
  }
  SmEvent ev;
  while (dispatch && sm_engine_next_launch(&sm->engine) <= at && sm_engine_pop(&sm->engine, &ev)) {
    for (guint i = 0; i < p->n_views; i++) {
      GArray *r = p->views[i]->defer->retired;
      for (guint k = 0; k < r->len; k++)
        sm->sm_blocks[i] += g_array_index(r, guint64, k) >= ev.cycle;
    }
    sm_blocks_dispatch(sm, ev.cycle);
    for (guint i = 0; i < p->n_views; i++) {
      GArray *r = p->views[i]->defer->retired;
      for (guint k = 0; k < r->len; k++)
        sm->sm_blocks[i] -= g_array_index(r, guint64, k) >= ev.cycle;
    }
  }
  /* no later launch is before the next one queued, or a retirement from @at on */
  guint64 first = MIN(sm_engine_next_launch(&sm->engine), at);
  for (guint i = 0; i < p->n_views; i++) {
    Sm *v = p->views[i];
    GArray *r = v->defer->retired;
    guint kept = 0;
    for (guint k = 0; k < r->len; k++)
      if (g_array_index(r, guint64, k) >= first)
        g_array_index(r, guint64, kept++) = g_array_index(r, guint64, k);
    g_array_set_size(r, kept);
    v->next_block = sm->next_block;
    v->now = MIN(v->now, view_next(v));
  }
}

/* The earliest cycle a block may launch from a window starting at @start on (SM_NEVER when the
 * grid has none left): one queued, or one a retirement in the window frees. */
static guint64
launch_min(const Par *p, guint64 start)
{
  const Sm *sm = p->sm;
  if (sm->next_block >= sm->grid_blocks)
    return SM_NEVER;
  return MIN(sm_engine_next_launch(&sm->engine), start + 1 + sm->gpu->block_launch_cycles);
}

/* How far each view may step in the window [@start, @end): to its end, or, for an SM with a
 * free slot while the grid has blocks left, to the first launch that could come to it. */
static void
set_limits(Par *p, guint64 start, guint64 end)
{
  const Sm *sm = p->sm;
  guint64 first = launch_min(p, start);
  for (guint m = 0; m < p->n_views; m++) {
    Sm *v = p->views[m];
    guint64 limit = end;
    if (first != SM_NEVER) {
      guint64 free_from = SM_NEVER;
      for (guint b = m * sm->slots_per_sm; b < (m + 1) * sm->slots_per_sm; b++)
        if (!sm->blocks[b].busy)
          free_from =
              MIN(free_from, sm->blocks[b].free_at == SM_NEVER ? first : sm->blocks[b].free_at);
      if (free_from != SM_NEVER)
        limit = MIN(end, MAX(free_from, first));
    }
    v->run_until = limit;
    v->defer->launch_min = first;
  }
}

/* Some view's kernel over SASS met an executor error. */
static gboolean
views_failed(const Par *p)
{
  for (guint m = 0; m < p->n_views; m++)
    if (p->views[m]->defer->error)
      return TRUE;
  return FALSE;
}

static gboolean apart_on = TRUE;

void
sm_set_apart(gboolean on)
{
  apart_on = on;
}

gboolean
sm_parallel_run(Sm *sm, guint64 cycle)
{
  guint64 window = apart_on ? window_cycles(sm) : 0;
  if (window == 0)
    return FALSE;
  if (sm->sass)
    sm_sass_apart_begin(sm);
  Par p = {.sm = sm, .n_views = sm->n_sm};
  p.n_threads = MIN(sm->threads, sm->n_sm);
  p.views = g_new(Sm *, sm->n_sm);
  p.order = g_ptr_array_new();
  pthread_mutex_init(&p.lock, NULL);
  pthread_cond_init(&p.go, NULL);
  pthread_cond_init(&p.done, NULL);
  for (guint m = 0; m < sm->n_sm; m++)
    p.views[m] = view_new(sm, m);
  /* completions go to their SM's queue; block launches stay with the block scheduler */
  SmEngine launches;
  sm_engine_init(&launches, 16);
  SmEvent ev;
  while (sm_engine_pop(&sm->engine, &ev)) {
    if (ev.kind == SM_EVENT_BLOCK_LAUNCH)
      sm_engine_push(&launches, ev.cycle, ev.priority, ev.kind, ev.arg);
    else
      sm_engine_push(&p.views[ev.arg >> 8]->engine, ev.cycle, ev.priority, ev.kind, ev.arg);
  }
  while (sm_engine_pop(&launches, &ev))
    sm_engine_push(&sm->engine, ev.cycle, ev.priority, ev.kind, ev.arg);
  sm_engine_clear(&launches);
  for (guint m = 0; m < sm->n_sm; m++)
    p.views[m]->now = MAX(sm->now, view_next(p.views[m]));
  Worker *workers = g_new(Worker, p.n_threads);
  GThread **threads = g_new0(GThread *, p.n_threads);
  for (guint i = 1; i < p.n_threads; i++) {
    workers[i] = (Worker){&p, i};
    threads[i] = g_thread_new("smsim-sm", worker, &workers[i]);
  }

  /* B: every view has stepped the cycles before it, and every access before it is sent */
  guint64 windows = 0, bound = SM_NEVER, end = 0;
  for (guint m = 0; m < p.n_views; m++)
    bound = MIN(bound, p.views[m]->now);
  bound = MIN(bound, sm_engine_next_launch(&sm->engine));
  end = bound;
  if (uses_global(sm))
    p.bucket = g_new(guint, window + 2); /* else there are no records */
  for (;;) {
    guint64 retired = sm->blocks_retired;
    for (guint m = 0; m < p.n_views; m++)
      retired += p.views[m]->blocks_retired;
    if (retired == sm->grid_blocks || bound >= cycle || sm_stop_requested())
      break;
    g_assert(bound < SM_PENDING); /* some warp can go on */
    if (sm->next_block < sm->grid_blocks) {
      /* the warps and blocks that ended before the bound, then the block scheduler */
      run_phase(&p, PHASE_CATCH_UP);
      launch_blocks(&p, bound, TRUE);
    }
    end = bound + MIN(window, cycle - bound);
    set_limits(&p, bound, end);
    if (sm->sass)
      sm_sass_window(sm, bound, end);
    run_phase(&p, PHASE_STEP);
    guint64 next = MIN(end, launch_min(&p, bound));
    for (guint m = 0; m < p.n_views; m++)
      next = MIN(next, p.views[m]->now);
    resolve(&p, bound, next);
    bound = next;
    sm->stats.windows++;
    if (sm->sass && (sm_sass_conflicted(sm) || views_failed(&p) || sm_error(sm)))
      break; /* (an error at a launch, between windows, is the machine's own) */
    if (sm->progress && (++windows & 15) == 0) {
      fold_counts(&p);
      sm->now = bound;
      sm->progress(sm, sm->progress_data);
    }
  }
  run_phase(&p, PHASE_QUIT);
  for (guint i = 1; i < p.n_threads; i++)
    g_thread_join(threads[i]);
  g_free(threads);
  g_free(workers);

  /* the machine takes back what the views held: the accesses stepped past the bound go to
   * the memory system too (everything before @end was stepped) */
  resolve(&p, bound, MAX(bound, end));
  guint64 now = SM_NEVER;
  for (guint m = 0; m < p.n_views; m++) {
    view_catch_up(p.views[m]);
    now = MIN(now, p.views[m]->now);
  }
  launch_blocks(&p, 0, FALSE);
  fold_counts(&p);
  sm->now = MIN(now, sm_engine_next_launch(&sm->engine));
  g_free(p.bucket);
  GError *first_error = NULL;
  guint64 first_error_t = 0;
  for (guint m = 0; m < p.n_views; m++) {
    Sm *v = p.views[m];
    add_cache_counts(&sm->mem.counts, &v->mem.counts);
    sm->mem.peak_outstanding = MAX(sm->mem.peak_outstanding, v->mem.peak_outstanding);
    sm->n_done += v->n_done;
    sm->blocks_retired += v->blocks_retired;
    sm->end_cycle = MAX(sm->end_cycle, v->end_cycle);
    sm->lg_waiters += v->lg_waiters;
    while (sm_engine_pop(&v->engine, &ev))
      sm_engine_push(&sm->engine, ev.cycle, ev.priority, ev.kind, ev.arg);
    sm_count_into(sm, m, &sm->stats);
    sm_engine_clear(&v->engine);
    g_array_free(v->defer->recs, TRUE);
    g_array_free(v->defer->warps, TRUE);
    g_array_free(v->defer->blocks, TRUE);
    g_array_free(v->defer->launches, TRUE);
    g_array_free(v->defer->due, TRUE);
    g_array_free(v->defer->retired, TRUE);
    if (v->clock) { /* (in any order: only their median, minimum and maximum are read) */
      g_array_append_vals(sm->clock->spans, v->clock->spans->data, v->clock->spans->len);
      g_array_free(v->clock->spans, TRUE);
      g_free(v->clock);
    }
    g_array_free(v->defer->ext_lines, TRUE);
    g_array_free(v->defer->ext_sectors, TRUE);
    if (v->defer->error && (!first_error || v->defer->error_t < first_error_t)) {
      g_clear_error(&first_error); /* the earliest, then the lowest SM: the single loop's */
      first_error = v->defer->error;
      first_error_t = v->defer->error_t;
    } else if (v->defer->error) {
      g_error_free(v->defer->error);
    }
    g_free(v->defer);
    g_free(v->sim_sms);
    g_free(v->order);
    g_free(v->eligible);
    g_free(v->prio_pos);
    g_free(v->prio_at);
    g_free(v);
  }
  sm->order_stale = TRUE;
  g_free(p.views);
  g_ptr_array_free(p.order, TRUE);
  pthread_mutex_destroy(&p.lock);
  pthread_cond_destroy(&p.go);
  pthread_cond_destroy(&p.done);
  if (sm->sass && sm_sass_conflicted(sm)) {
    g_clear_error(&first_error);
    sm_restart_in_one_loop(sm); /* the caller steps it in one loop from its start */
    return FALSE;
  }
  if (first_error || (sm->sass && sm_error(sm))) {
    if (first_error && !sm_error(sm))
      sm_sass_set_error(sm, first_error); /* the run stops here; the caller reports it */
    else
      g_clear_error(&first_error);
    return TRUE;
  }
  if (!sm_stop_requested() && sm->blocks_retired == sm->grid_blocks)
    sm_finish(sm);
  return TRUE;
}
