/* A view: one SM's copy of the machine, stepped on a thread (parallel.c), and what it hands back
 * to the machine at the end. */
#include "defer.h"

#include <string.h>

SmGpu *
sm_view_new(SmGpu *sm, guint m)
{
  SmGpu *v = g_new(SmGpu, 1);
  *v = *sm;
  v->defer = sm_defer_new(m);
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
  v->fast = NULL; /* no fast-forward, mirroring or threads of its own */
  if (sm->clock)  /* its warps' reads are their own; the spans of those that end, the view's */
    v->clock = sm_clock_view(sm->clock);
  sm_count_into(sm, m, &v->stats);
  return v;
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
  to->fills += c->fills;
}

void
sm_views_fold_counts(SmGpu *sm, SmGpu **views, guint n)
{
  for (guint i = 0; i < n; i++) {
    SmGpu *v = views[i];
    sm_stats_add_scaled(&sm->stats, &v->stats, NULL, 1);
    sm->stats.visited_cycles += v->stats.visited_cycles;
    sm->stats.view_steps += v->stats.view_steps;
    memset(&v->stats, 0, sizeof v->stats);
  }
}

void
sm_view_hand_back(SmGpu *sm, SmGpu *v, guint m, GError **first, guint64 *first_t)
{
  SmEvent ev;
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
  if (v->clock)
    sm_clock_merge(sm->clock, v->clock);
  if (v->defer->error && (!*first || v->defer->error_t < *first_t)) {
    g_clear_error(first); /* the earliest, then the lowest SM: the single loop's */
    *first = g_steal_pointer(&v->defer->error);
    *first_t = v->defer->error_t;
  }
  sm_defer_free(v->defer);
  g_free(v->sim_sms);
  g_free(v->order);
  g_free(v->eligible);
  g_free(v->prio_pos);
  g_free(v->prio_at);
  g_free(v);
}
