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
 * Runs where this does not hold are stepped in one loop (sm_parallel_run() returns FALSE):
 * traces (a record per cycle, in order), fast-forward and mirroring (they cover their runs
 * without threads), kernels over SASS (lane values in shared buffers), clock reads,
 * asynchronous copies, the two-level policy (its pool reads every warp's state), grids with
 * blocks still to launch after the first wave (the block scheduler picks among all SMs), and
 * windows too short to pay.  tests/sim/test-threads.c compares every counter with the single
 * loop's. */
#include "sm-internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Windows shorter than this are not worth the threads' meeting. */
#define MIN_WINDOW 16u
/* Allowance for a variable-latency result's write port found taken for a few cycles. */
#define PORT_SLACK 64u

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
  guint16 sm;
  guint8 kind, n, n_issued; /* lines still to send; transactions counted in flight */
  guint64 lines[32];
  guint8 sectors[32];
} Deferred;

typedef struct {
  guint64 t;
  guint index; /* a warp, or a block slot */
} Ended;

struct SmDefer {
  GArray *recs;   /* Deferred, in issue order */
  GArray *warps;  /* Ended: warps whose end waits for their accesses */
  GArray *blocks; /* Ended: blocks retired */
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
  guint64 end; /* the window: every cycle before it */
  guint gen, running;
  gboolean quit;
  GPtrArray *order; /* scratch of resolve(): the records in the single loop's order */
  guint *bucket;    /* scratch of resolve(): records per cycle of the window, then offsets */
  guint64 window;
} Par;

typedef struct {
  Par *par;
  guint id;
} Worker;

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
  if (sm->n_sm < 2 || sm->trace || sm->steady || sm->mirrored || sm->clock || sm->sass ||
      sm->copy_pool || sm->policy == CFG_POLICY_TWO_LEVEL || sm->next_block < sm->grid_blocks ||
      sm_engine_next_launch(&sm->engine) != SM_NEVER)
    return 0;
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

guint64
sm_defer_global(Sm *v, SmWarp *w, const SmInsnInfo *ii, guint64 t)
{
  SmDefer *d = v->defer;
  g_array_set_size(d->recs, d->recs->len + 1);
  Deferred *r = &g_array_index(d->recs, Deferred, d->recs->len - 1);
  r->t = r->l1_done = t;
  r->seq = d->seq++;
  r->warp = (guint32)(w - v->warps);
  r->pc = w->pc;
  r->sm = (guint16)d->m;
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

void
sm_defer_finished(Sm *v, SmWarp *w)
{
  Ended e = {w->last_issue, (guint)(w - v->warps)};
  g_array_append_val(v->defer->warps, e);
}

void
sm_defer_retired(Sm *v, guint b)
{
  Ended e = {v->now, b};
  g_array_append_val(v->defer->blocks, e);
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
  mem->engine = &v->engine; /* its completions are the SM's events */
  guint64 base;
  if (r->kind == DEFER_CACHED) {
    base = sm_memory_l2_access(mem, m, r->t, r->n, r->lines, r->sectors, ii->is_store, NULL);
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
      guint bytes[32];
      for (guint i = 0; i < r->n; i++)
        bytes[i] = sm_popcount32(r->sectors[i]) * mem->sector_bytes;
      base = sm_memory_access_lines(mem, m, ii->level, r->t, r->n, r->lines, bytes, ii->is_store);
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
  if (insn->dst != ISA_NO_REG && !ii->never)
    sm_scoreboard_write(&w->sb, insn->dst, base, no_latency, (SmState)ii->result_state);
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

/* Between windows, on one thread: the views' accesses to the memory system in the single
 * loop's order (by cycle, then SM, then issue; each view's records are in cycle order, so a
 * count per cycle of the window places them).  Returns the earliest cycle any view may act. */
static guint64
resolve(Par *p, guint64 start, guint64 end)
{
  guint64 next = SM_NEVER;
  for (guint i = 0; i < p->n_views; i++)
    next = MIN(next, MIN(p->views[i]->now, sm_engine_next_cycle(&p->views[i]->engine)));
  if (p->bucket == NULL)
    return next;
  guint64 span = end - start;
  memset(p->bucket, 0, (span + 1) * sizeof(guint));
  guint total = 0;
  for (guint i = 0; i < p->n_views; i++) {
    GArray *recs = p->views[i]->defer->recs;
    for (guint k = 0; k < recs->len; k++)
      p->bucket[g_array_index(recs, Deferred, k).t - start + 1]++;
    total += recs->len;
  }
  for (guint64 c = 1; c <= span; c++)
    p->bucket[c] += p->bucket[c - 1];
  g_ptr_array_set_size(p->order, total);
  for (guint i = 0; i < p->n_views; i++) {
    GArray *recs = p->views[i]->defer->recs;
    for (guint k = 0; k < recs->len; k++) {
      Deferred *r = &g_array_index(recs, Deferred, k);
      p->order->pdata[p->bucket[r->t - start]++] = r;
    }
  }
  for (guint k = 0; k < total; k++) {
    Deferred *r = g_ptr_array_index(p->order, k);
    send(p, r);
    next = MIN(next, r->base);
  }
  return next;
}

/* On view @v's thread, before it steps on: its accesses' completions, then the ends of its
 * warps and blocks that waited for them. */
static void
view_catch_up(Sm *v)
{
  SmDefer *d = v->defer;
  for (guint k = 0; k < d->recs->len; k++)
    complete(v, &g_array_index(d->recs, Deferred, k));
  g_array_set_size(d->recs, 0);
  for (guint k = 0; k < d->warps->len; k++) {
    SmWarp *w = &v->warps[g_array_index(d->warps, Ended, k).index];
    guint64 end = MAX(w->finish, w->last_issue + 1);
    w->stats->resident_warp_cycles += end - w->launched;
    SmBlock *blk = &v->blocks[w->block];
    blk->retire = MAX(blk->retire, end);
  }
  g_array_set_size(d->warps, 0);
  for (guint k = 0; k < d->blocks->len; k++) {
    SmBlock *blk = &v->blocks[g_array_index(d->blocks, Ended, k).index];
    v->end_cycle = MAX(v->end_cycle, blk->retire);
    blk->free_at = blk->retire + v->gpu->block_launch_cycles;
  }
  g_array_set_size(d->blocks, 0);
  v->now = MIN(v->now, view_next(v));
}

static void
step_share(Par *p, guint id, guint64 end)
{
  guint lo = id * p->n_views / p->n_threads, hi = (id + 1) * p->n_views / p->n_threads;
  for (guint i = lo; i < hi; i++) {
    view_catch_up(p->views[i]);
    sm_step_view(p->views[i], end);
  }
}

static gpointer
worker(gpointer data)
{
  Worker *wk = data;
  Par *p = wk->par;
  guint gen = 0;
  for (;;) {
    pthread_mutex_lock(&p->lock);
    while (p->gen == gen && !p->quit)
      pthread_cond_wait(&p->go, &p->lock);
    if (p->quit) {
      pthread_mutex_unlock(&p->lock);
      return NULL;
    }
    gen = p->gen;
    guint64 end = p->end;
    pthread_mutex_unlock(&p->lock);
    step_share(p, wk->id, end);
    pthread_mutex_lock(&p->lock);
    if (--p->running == 0)
      pthread_cond_signal(&p->done);
    pthread_mutex_unlock(&p->lock);
  }
}

/* Every view steps the cycles before @end: thread 0 (this one) its share, the others theirs. */
static void
run_window(Par *p, guint64 end)
{
  pthread_mutex_lock(&p->lock);
  p->end = end;
  p->gen++;
  p->running = p->n_threads - 1;
  pthread_cond_broadcast(&p->go);
  pthread_mutex_unlock(&p->lock);
  step_share(p, 0, end);
  pthread_mutex_lock(&p->lock);
  while (p->running > 0)
    pthread_cond_wait(&p->done, &p->lock);
  pthread_mutex_unlock(&p->lock);
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
  Par p = {.sm = sm, .n_views = sm->n_sm};
  p.n_threads = MIN(sm->threads, sm->n_sm);
  p.views = g_new(Sm *, sm->n_sm);
  p.order = g_ptr_array_new();
  pthread_mutex_init(&p.lock, NULL);
  pthread_cond_init(&p.go, NULL);
  pthread_cond_init(&p.done, NULL);
  for (guint m = 0; m < sm->n_sm; m++)
    p.views[m] = view_new(sm, m);
  SmEvent ev;
  while (sm_engine_pop(&sm->engine, &ev)) /* completions: each to its SM */
    sm_engine_push(&p.views[ev.arg >> 8]->engine, ev.cycle, ev.priority, ev.kind, ev.arg);
  for (guint m = 0; m < sm->n_sm; m++)
    p.views[m]->now = MAX(sm->now, view_next(p.views[m]));
  Worker *workers = g_new(Worker, p.n_threads);
  GThread **threads = g_new0(GThread *, p.n_threads);
  for (guint i = 1; i < p.n_threads; i++) {
    workers[i] = (Worker){&p, i};
    threads[i] = g_thread_new("smsim-sm", worker, &workers[i]);
  }

  guint64 windows = 0, gvt = SM_NEVER;
  for (guint m = 0; m < p.n_views; m++)
    gvt = MIN(gvt, p.views[m]->now);
  if (uses_global(sm))
    p.bucket = g_new(guint, window + 2); /* else there are no records */
  for (;;) {
    guint64 retired = sm->blocks_retired;
    for (guint m = 0; m < p.n_views; m++)
      retired += p.views[m]->blocks_retired;
    if (retired == sm->grid_blocks || gvt >= cycle || sm_stop_requested())
      break;
    g_assert(gvt < SM_PENDING); /* some warp can go on */
    guint64 end = gvt + MIN(window, cycle - gvt);
    run_window(&p, end);
    gvt = resolve(&p, gvt, end);
    sm->stats.windows++;
    if (sm->progress && (++windows & 15) == 0) {
      fold_counts(&p);
      sm->now = end;
      sm->progress(sm, sm->progress_data);
    }
  }
  pthread_mutex_lock(&p.lock);
  p.quit = TRUE;
  pthread_cond_broadcast(&p.go);
  pthread_mutex_unlock(&p.lock);
  for (guint i = 1; i < p.n_threads; i++)
    g_thread_join(threads[i]);
  g_free(threads);
  g_free(workers);

  /* the machine takes back what the views held */
  gvt = SM_NEVER;
  for (guint m = 0; m < p.n_views; m++) {
    view_catch_up(p.views[m]);
    gvt = MIN(gvt, p.views[m]->now);
  }
  fold_counts(&p);
  sm->now = gvt;
  g_free(p.bucket);
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
  if (!sm_stop_requested() && sm->blocks_retired == sm->grid_blocks)
    sm_finish(sm);
  return TRUE;
}
