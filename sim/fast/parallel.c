/* SMs on threads, with the results of stepping them in one loop.
 *
 * The SMs of a run touch each other only through the memory system (channels, their ports'
 * queues, the L2) and the block scheduler.  Each SM is stepped by a view of its own (a copy of
 * the GPU's struct whose loop looks only at that SM's schedulers, with its own event queue
 * and counters, sharing the arrays of warps, schedulers and blocks, where each SM writes only
 * its own slices: SmMp).  Threads step the views in windows of cycles; between windows, one thread
 * resolves what the views left for the memory system, in the order the single loop would have
 * reached it: by cycle, then SM, then issue order within the SM.
 *
 * A view does at issue what its SM alone decides (its L1, its count of transactions in flight,
 * the warp's next instruction) and records the rest; the loaded register is ready at
 * SM_PENDING until then.  That gives the same run as long as nothing in the window could have
 * depended on a completion: every completion is at least the shortest unloaded latency of a
 * memory level it can reach after its issue (min_latency() in lookahead.c), so a window of that
 * many cycles ends before any completes, less what a warp's own later work reaches beyond its issue
 * cycle (local_reach(): a fixed-latency result's register-file write port, a shared-memory or SFU
 * result's, a branch's fetch wait), which must stay short of any pending completion's port.
 * A warp's end and its block's retirement, which take its last completion, wait there too.
 *
 * Block launches: the block scheduler may give a freed slot's block to any SM with a free slot,
 * so it runs between windows (launch_blocks()), and a view with a free slot steps only to the
 * first launch that could come to it (set_limits(), sm_defer_retired()).  Accesses are sent up
 * to the bound, the first cycle some view has not stepped (resolve()).
 *
 * Once no block is left to launch, on more than one thread, the sending may overlap the
 * stepping: windows half as long, and thread 0 sends one window's records (from one of each
 * view's two sets) while the views step the next (putting theirs in the other set); a view
 * catches up the window before last at the start of each.  Every access then completes after the
 * window that follows its own, as before after its own.  Whether that is faster than sending
 * alone between full windows depends on the run and the host: it is timed on the run
 * (sm_pipe_way(), lookahead.c), and either way gives the same results.
 *
 * Kernels over SASS run their lanes on values in buffers all SMs share: a load sees what was
 * stored before it.  Within a window the SMs' order is not the single loop's, so every global
 * word keeps which window and SM touched it last (shadow.c, shadow_touch()); two SMs touching one
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
#include "defer.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* resolve() asks for the record this many places ahead while it sends one */
#define RESOLVE_AHEAD 8u
/* A thread's own views of a phase that no thread has taken yet: from the low 32 bits up to the
 * high 32 bits (on a line of its own: the thread takes them from the front, another thread that
 * has none left from the back) */
typedef struct {
  _Alignas(64) _Atomic guint64 left;
} Share;

typedef struct {
  SmGpu *sm;
  SmGpu **views;
  SmDefer **defer; /* each view's records: resolve() finds them here, not through the view */
  guint n_views, n_threads;
  Share *shares; /* per thread */
  /* POSIX rather than GLib's own (futex) locks: ThreadSanitizer sees these */
  pthread_mutex_t lock;
  pthread_cond_t go, done;
  gint phase;    /* what the threads run: PHASE_* */
  gint gen;      /* phases started */
  gint running;  /* threads besides this one still in the phase */
  GArray *order; /* scratch of resolve(): the records in the single loop's order (guint64:
                    view << 32 | its record) */
  guint *bucket; /* scratch of resolve(): records per cycle of the window, then offsets */
  guint64 window;
  /* with the views stepping a window, thread 0 first sends the one before's records: those
   * before send_end in set[send_set], from send_start */
  gboolean send;
  guint64 send_start, send_end;
  guint send_set;
  /* what each view takes at the start of a phase, on its own thread (view_begin()): its lines
   * then stay in its core's cache */
  guint64 bound;   /* every access before it is sent */
  guint cur;       /* the set the views catch up, and put the window's records in */
  guint64 end_all; /* every view steps to it (no block left to launch limits one), or 0 */
} Par;

typedef struct {
  Par *par;
  guint id;
} Worker;

enum { PHASE_CATCH_UP, PHASE_STEP, PHASE_QUIT };

/* On one thread: the views' accesses in their set[@s] issued before @bound, to the memory system
 * in the single loop's order (by cycle, then SM, then issue; each view's records are in cycle
 * order, so a count per cycle from @start places them).  Their completions' events wait in the
 * set for each view's own thread (the heap's lines are in its core's cache, not this one's). */
static void
resolve(Par *p, guint64 start, guint64 bound, guint s)
{
  if (p->bucket == NULL)
    return;
  guint64 span = bound - start;
  memset(p->bucket, 0, (span + 1) * sizeof(guint));
  guint total = 0;
  for (guint i = 0; i < p->n_views; i++) {
    const DeferSet *set = &p->defer[i]->set[s];
    for (guint k = set->n_sent; k < set->n_recs && set->times[k].t < bound; k++) {
      p->bucket[set->times[k].t - start + 1]++;
      total++;
    }
  }
  for (guint64 c = 1; c <= span; c++)
    p->bucket[c] += p->bucket[c - 1];
  g_array_set_size(p->order, total);
  guint64 *order = (guint64 *)(gpointer)p->order->data;
  for (guint i = 0; i < p->n_views; i++) {
    DeferSet *set = &p->defer[i]->set[s];
    for (; set->n_sent < set->n_recs && set->times[set->n_sent].t < bound; set->n_sent++)
      order[p->bucket[set->times[set->n_sent].t - start]++] = (guint64)i << 32 | set->n_sent;
  }
  for (guint k = 0; k < total; k++) {
    if (k + RESOLVE_AHEAD < total) {
      /* written on another thread: in another core's cache, a record later asked for now */
      guint64 o = order[k + RESOLVE_AHEAD];
      const guint8 *next = (const guint8 *)&p->defer[o >> 32]->set[s].recs[(guint32)o];
      __builtin_prefetch(next);
      __builtin_prefetch(next + 64);
    }
    guint i = (guint)(order[k] >> 32), n = (guint32)order[k];
    DeferSet *set = &p->defer[i]->set[s];
    set->times[n].base = sm_defer_send(p->sm, p->views[i], set, &set->recs[n]);
  }
}

/* Every view's records are sent (none stepped past the last bound). */
static gboolean
all_sent(const Par *p)
{
  for (guint i = 0; i < p->n_views; i++)
    for (guint s = 0; s < 2; s++)
      if (p->defer[i]->set[s].n_sent < p->defer[i]->set[s].n_recs)
        return FALSE;
  return TRUE;
}

/* Every view's records before @bound are sent: the warps and blocks that ended before it can be
 * closed, and the next catch-up takes the set @cur (between phases). */
static void
set_bound(Par *p, guint64 bound, guint cur)
{
  p->bound = bound;
  p->cur = cur;
}

/* View @v takes the phase's bound and set, and in a step phase its limit when every view has the
 * same one (set_limits()). */
static inline void
view_begin(const Par *p, SmGpu *v, gboolean stepping)
{
  v->defer->bound = p->bound;
  v->defer->cur = p->cur;
  if (stepping && p->end_all) {
    v->run_until = p->end_all;
    v->defer->launch_min = SM_NEVER;
  }
}

/* Every thread's views for the next phase: an equal share each, SM by SM. */
static void
shares_reset(Par *p)
{
  for (guint id = 0; id < p->n_threads; id++) {
    guint64 lo = id * p->n_views / p->n_threads, hi = (id + 1) * p->n_views / p->n_threads;
    atomic_store_explicit(&p->shares[id].left, lo | hi << 32, memory_order_relaxed);
  }
}

/* The next view of @s not taken (its first, or with @from_back its last), taken now; G_MAXUINT:
 * none is left. */
static guint
take(Share *s, gboolean from_back)
{
  guint64 v = atomic_load_explicit(&s->left, memory_order_relaxed);
  for (;;) {
    guint lo = (guint32)v, hi = (guint32)(v >> 32);
    if (lo >= hi)
      return G_MAXUINT;
    guint64 rest = from_back ? v - ((guint64)1 << 32) : v + 1;
    if (atomic_compare_exchange_weak_explicit(&s->left, &v, rest, memory_order_relaxed,
                                              memory_order_relaxed))
      return from_back ? hi - 1 : lo;
  }
}

/* Thread @id's part of a phase: each view it takes catches up, or steps to its limit
 * (run_until).  It takes its own share's views in order, then the other threads' last ones
 * until none is left: a thread that a busy machine slows, or whose SMs have more to do in this
 * window, is not waited for.  Within a window the views touch nothing of each other's, so which
 * thread steps a view changes nothing in the results. */
static void
step_share(Par *p, guint id, gboolean catching_up)
{
  for (guint k = 0; k < p->n_threads; k++) {
    Share *s = &p->shares[(id + k) % p->n_threads];
    for (guint i; (i = take(s, k > 0)) != G_MAXUINT;) {
      view_begin(p, p->views[i], !catching_up);
      sm_defer_catch_up(p->views[i]); /* (nothing left to catch up after a catch-up phase) */
      if (!catching_up)
        sm_step_view(p->views[i]);
    }
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
  shares_reset(p);
  pthread_mutex_lock(&p->lock);
  g_atomic_int_set(&p->phase, phase);
  g_atomic_int_set(&p->running, (gint)p->n_threads - 1);
  g_atomic_int_inc(&p->gen);
  pthread_cond_broadcast(&p->go);
  pthread_mutex_unlock(&p->lock);
  if (phase == PHASE_QUIT)
    return;
  if (p->send) {
    resolve(p, p->send_start, p->send_end, p->send_set);
    p->send = FALSE;
  }
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
  SmGpu *sm = p->sm;
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
        sm->mp[i].n_blocks += g_array_index(r, guint64, k) >= ev.cycle;
    }
    sm_blocks_dispatch(sm, ev.cycle);
    for (guint i = 0; i < p->n_views; i++) {
      GArray *r = p->views[i]->defer->retired;
      for (guint k = 0; k < r->len; k++)
        sm->mp[i].n_blocks -= g_array_index(r, guint64, k) >= ev.cycle;
    }
  }
  /* no later launch is before the next one queued, or a retirement from @at on */
  guint64 first = MIN(sm_engine_next_launch(&sm->engine), at);
  for (guint i = 0; i < p->n_views; i++) {
    SmGpu *v = p->views[i];
    GArray *r = v->defer->retired;
    guint kept = 0;
    for (guint k = 0; k < r->len; k++)
      if (g_array_index(r, guint64, k) >= first)
        g_array_index(r, guint64, kept++) = g_array_index(r, guint64, k);
    g_array_set_size(r, kept);
    v->next_block = sm->next_block;
    v->now = MIN(v->now, sm_view_next(v));
  }
}

/* The earliest cycle a block may launch from a window starting at @start on (SM_NEVER when the
 * grid has none left): one queued, or one a retirement in the window frees. */
static guint64
launch_min(const Par *p, guint64 start)
{
  const SmGpu *sm = p->sm;
  if (sm->next_block >= sm->grid_blocks)
    return SM_NEVER;
  return MIN(sm_engine_next_launch(&sm->engine), start + 1 + sm->cfg->block_launch_cycles);
}

/* How far each view may step in the window [@start, @end): to its end, or, for an SM with a
 * free slot while the grid has blocks left, to the first launch that could come to it.  With
 * none left, every view takes the end itself (view_begin()). */
static void
set_limits(Par *p, guint64 start, guint64 end)
{
  const SmGpu *sm = p->sm;
  guint64 first = launch_min(p, start);
  p->end_all = first == SM_NEVER ? end : 0;
  for (guint m = 0; m < p->n_views && !p->end_all; m++) {
    SmGpu *v = p->views[m];
    guint64 limit = end;
    if (first != SM_NEVER) {
      guint64 free_from = SM_NEVER;
      for (guint b = 0; b < sm->slots_per_sm; b++) {
        const SmBlock *blk = &sm->mp[m].blocks[b];
        if (!blk->busy)
          free_from = MIN(free_from, blk->free_at == SM_NEVER ? first : blk->free_at);
      }
      if (free_from != SM_NEVER)
        limit = MIN(end, MAX(free_from, first));
    }
    v->run_until = limit;
    v->defer->launch_min = first;
  }
}

/* Every view catches up on this thread; returns the earliest cycle one has anything to do. */
static guint64
catch_up_here(Par *p)
{
  guint64 now = SM_NEVER;
  for (guint m = 0; m < p->n_views; m++) {
    view_begin(p, p->views[m], FALSE);
    sm_defer_catch_up(p->views[m]);
    now = MIN(now, p->views[m]->now);
  }
  return now;
}

/* Some view's window went wrong: its kernel over SASS met an executor error (@errors), or (else)
 * one of its own later issues may have taken a completion's register-file write port first
 * (sm_defer_catch_up()), which the single loop might have ordered otherwise: the run is then
 * stepped again in one loop. */
static gboolean
any_view(const Par *p, gboolean errors)
{
  for (guint m = 0; m < p->n_views; m++) {
    const SmDefer *d = p->views[m]->defer;
    if (errors ? d->error != NULL : d->port_late)
      return TRUE;
  }
  return FALSE;
}

static gboolean apart_on = TRUE;

void
sm_set_apart(gboolean on)
{
  apart_on = on;
}

gboolean
sm_parallel_run(SmGpu *sm, guint64 cycle)
{
  guint64 window = apart_on ? sm_window_cycles(sm) : 0;
  if (window == 0)
    return FALSE;
  if (sm->sass)
    sm_sass_apart_begin(sm);
  Par p = {.sm = sm, .n_views = sm->n_sm};
  p.n_threads = MIN(sm->fast->threads, sm->n_sm);
  p.views = g_new(SmGpu *, sm->n_sm);
  p.shares = aligned_alloc(_Alignof(Share), p.n_threads * sizeof(Share));
  if (p.shares == NULL)
    g_error("out of memory"); /* as g_new() */
  p.order = g_array_new(FALSE, FALSE, sizeof(guint64));
  p.defer = g_new(SmDefer *, sm->n_sm);
  pthread_mutex_init(&p.lock, NULL);
  pthread_cond_init(&p.go, NULL);
  pthread_cond_init(&p.done, NULL);
  for (guint m = 0; m < sm->n_sm; m++) {
    p.views[m] = sm_view_new(sm, m);
    p.defer[m] = p.views[m]->defer;
  }
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
    p.views[m]->now = MAX(sm->now, sm_view_next(p.views[m]));
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
  if (sm_uses_global(sm))
    p.bucket = g_new(guint, window + 2); /* else there are no records */
  /* Once no block is left to launch, on more than one thread, where timed faster: windows half
   * as long, each window's records sent while the views step the next (an access completes at
   * least a whole window after its issue: after the next), and caught up before the one after
   * that */
  gboolean pipe_ok = p.n_threads > 1 && p.bucket && window / 2 >= MIN_WINDOW;
  SmPipeWay pipe = {0};
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
    gboolean want = pipe_ok && sm->next_block >= sm->grid_blocks &&
                    sm_pipe_way(&pipe, p.sm, p.views, p.n_views, bound, window);
    if (p.send && !want) {
      /* back to sending alone: the views catch up the set sent while they stepped the window
       * before while thread 0 sends that window's (run_phase()), which the next phase catches
       * up (as at the end) */
      set_bound(&p, p.send_start, p.send_set ^ 1);
      run_phase(&p, PHASE_CATCH_UP);
      set_bound(&p, p.send_end, p.send_set);
    }
    gboolean piped = want && (p.send || all_sent(&p));
    if (piped || end <= bound)
      end = bound + MIN(piped ? window / 2 : window, cycle - bound);
    /* else the bound stopped short of the end (a launch that could come, a retirement): the
     * next window ends there too, so that the views already there do not step again only the
     * cycles cut off; those behind step to it, blocks launching on the way */
    set_limits(&p, bound, end);
    if (sm->sass)
      sm_sass_window(sm, bound, end);
    if (piped) {
      /* the views catch up the set sent while they stepped the window before, and put this
       * window's records in it; the other set is sent meanwhile */
      guint cur = p.send ? p.send_set ^ 1 : p.cur;
      set_bound(&p, p.send ? p.send_start : bound, cur);
      run_phase(&p, PHASE_STEP);
      /* every view stepped to the end (no launch limits one): its records are all before it */
      p.send = TRUE;
      p.send_start = bound;
      p.send_end = bound = end;
      p.send_set = cur;
    } else {
      run_phase(&p, PHASE_STEP);
      guint64 next = MIN(end, launch_min(&p, bound));
      for (guint m = 0; m < p.n_views; m++)
        next = MIN(next, p.views[m]->now);
      resolve(&p, bound, next, p.cur);
      set_bound(&p, next, p.cur);
      bound = next;
    }
    sm->stats.windows++;
    if (any_view(&p, FALSE) ||
        (sm->sass && (sm_sass_conflicted(sm) || any_view(&p, TRUE) || sm_error(sm))))
      break; /* (an error at a launch, between windows, is the machine's own) */
    if (sm->progress && (++windows & 15) == 0) {
      sm_views_fold_counts(sm, p.views, p.n_views);
      sm->now = bound;
      sm->progress(sm, sm->progress_data);
    }
  }
  run_phase(&p, PHASE_QUIT);
  for (guint i = 1; i < p.n_threads; i++)
    g_thread_join(threads[i]);
  g_free(threads);
  g_free(workers);
  if (sm->sass)
    sm_sass_apart_end(sm);

  /* the machine takes back what the views held: the accesses stepped past the bound go to
   * the memory system too (everything before @end was stepped) */
  guint s = p.cur;
  if (p.send) { /* the last window's records, after those of the one before it */
    s = p.send_set;
    resolve(&p, p.send_start, p.send_end, s);
    set_bound(&p, p.send_start, s ^ 1); /* (the warps that ended before its first) */
    catch_up_here(&p);
  }
  resolve(&p, bound, MAX(bound, end), s);
  set_bound(&p, MAX(bound, end), s);
  guint64 now = catch_up_here(&p);
  gboolean again = any_view(&p, FALSE) || (sm->sass && sm_sass_conflicted(sm));
  launch_blocks(&p, 0, FALSE);
  sm_views_fold_counts(sm, p.views, p.n_views);
  sm->now = MIN(now, sm_engine_next_launch(&sm->engine));
  g_free(p.bucket);
  GError *first_error = NULL;
  guint64 first_error_t = 0;
  for (guint m = 0; m < p.n_views; m++)
    sm_view_hand_back(sm, p.views[m], m, &first_error, &first_error_t);
  sm->order_stale = TRUE;
  sm->mem.outstanding = 0; /* the views counted their own: the machine's is what is in flight */
  for (guint m = 0; m < sm->n_sm; m++)
    sm->mem.outstanding += sm->mem.sm_outstanding[m];
  g_free(p.views);
  free(p.shares);
  g_array_free(p.order, TRUE);
  g_free(p.defer);
  pthread_mutex_destroy(&p.lock);
  pthread_cond_destroy(&p.go);
  pthread_cond_destroy(&p.done);
  if (again) {
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
