/* The state the fast-forward detector compares (steady.c): one walk over the machine, or over
 * one scheduler of it, in two modes, encoding the state relative to the current cycle or
 * shifting it by whole periods, so that the two can never disagree about what the state is. */
#include "steady-state.h"

#include <string.h>

/* One walk over the state: ENCODE appends it to out relative to cycle t (times before t are
 * all alike: nothing compares them with an earlier cycle, and t itself is kept apart because
 * some tests are strict); SHIFT moves every time by dt. */
typedef enum { ENCODE, SHIFT } Mode;

typedef struct {
  Mode mode;
  guint64 t, dt;
  SmStateBuf *out;
} Walk;

static inline void
put(Walk *k, guint64 v)
{
  if (k->mode != ENCODE)
    return;
  SmStateBuf *b = k->out;
  if (G_UNLIKELY(b->len + 10 > b->cap)) {
    b->cap = MAX(2 * b->cap, 4096u);
    b->data = g_realloc(b->data, b->cap);
  }
  guint8 *p = b->data + b->len;
  while (v >= 0x80) {
    *p++ = (guint8)(v | 0x80);
    v >>= 7;
  }
  *p++ = (guint8)v;
  b->len = (gsize)(p - b->data);
}

/* A cycle number (SM_NEVER and SM_HOT are markers, not times). */
static inline void
cycle(Walk *k, guint64 *v)
{
  if (*v >= (SM_NEVER - 1)) {
    put(k, *v);
  } else if (k->mode == SHIFT) {
    *v += k->dt;
  } else {
    put(k, *v < k->t ? 0 : *v - k->t + 1);
  }
}

/* A time in ticks. */
static inline void
ticks(Walk *k, guint64 *v)
{
  if (k->mode == SHIFT) {
    *v += sm_ticks(k->dt);
  } else {
    guint64 now = sm_ticks(k->t);
    put(k, *v < now ? 0 : *v - now + 1);
  }
}

static void
walk_warp(SmGpu *sm, SmWarp *w, Walk *k)
{
  guint n_regs = MAX(sm->prog->n_regs, 1u);
  put(k, w->exists | (guint64)w->done << 8 | (guint64)w->state << 16 | (guint64)w->dep_state << 24 |
             (guint64)w->pipe << 32 | (guint64)w->space << 40 | (guint64)w->depth << 48);
  if (!w->exists)
    return;
  put(k, w->pc | (guint64)w->n_trans << 32 | (guint64)w->block << 48);
  put(k, w->rng);
  put(k, w->passes_left | (guint64)w->lanes << 32);
  put(k, w->active | (guint64)w->n_active << 32 | (guint64)w->stores_queued << 48);
  for (guint d = 0; d < w->depth; d++)
    put(k, w->loop_body[d]);
  cycle(k, &w->deps_at);
  put(k, w->fetch_pc);
  cycle(k, &w->fetch_ready);
  cycle(k, &w->state_since);
  cycle(k, &w->last_issue);
  cycle(k, &w->finish);
  cycle(k, &w->smem_stores_done);
  ticks(k, &w->smem_own);
  if (w->done)
    return; /* the scoreboard of a finished warp is never read */
  for (guint i = 0; i < n_regs * ISA_UNIT_COUNT; i++)
    cycle(k, &w->sb.ready[i]);
  for (guint r = 0; r < n_regs; r++)
    put(k, w->sb.producer[r]);
  if (w->simt) {
    for (guint r = 0; r < n_regs; r++)
      put(k, w->simt->pred[r]);
    for (guint b = 0; b < ISA_MAX_BARRIERS; b++)
      put(k, w->simt->expect[b] | (guint64)w->simt->arrived[b] << 32);
    put(k, w->simt->n_pending);
    for (guint i = 0; i < w->simt->n_pending; i++)
      put(k, w->simt->pending_pc[i] | (guint64)w->simt->pending_mask[i] << 32);
  }
}

static void
walk_scheduler(SmGpu *sm, SmScheduler *s, Walk *k)
{
  for (guint p = 0; p < s->n_warps; p++) {
    cycle(k, &s->wake[p]);
    put(k, s->age[p]); /* a launch cycle: only its order counts, and it does not move */
    if (s->in_pool)
      put(k, s->in_pool[p]);
    if (s->issued)
      put(k, s->issued[p]); /* relative to its warp's last issue */
  }
  /* resume cycles (policy last_resumed): their order, every later one being larger than all of
   * them; with a resume window also whether any two, or one and a later one, are more than
   * the window apart: the gap to the next earlier one and the age, both capped past it */
  guint64 window = sm->cfg->resume_window, cap = window + 1;
  for (guint p = 0; sm->policy == CFG_POLICY_LAST_RESUMED && p < s->n_warps; p++) {
    if (k->mode == SHIFT) {
      s->resumed[p] += k->dt;
      continue;
    }
    guint64 r = s->resumed[p], below = 0;
    guint rank = 0;
    for (guint q = 0; q < s->n_warps; q++) {
      rank += s->resumed[q] < r;
      if (s->resumed[q] < r)
        below = MAX(below, s->resumed[q]);
    }
    put(k, rank);
    if (window > 0) {
      put(k, rank == 0 ? cap : MIN(r - below, cap));
      put(k, r > k->t ? cap + r - k->t : MIN(k->t - r, cap));
    }
  }
  if (sm->sass && sm->cfg->sass.fetch_turns && k->mode != SHIFT)
    put(k, k->t); /* whose fetch turn it is depends on the cycle itself (sass.fetch_turns; kernels
                     over SASS only, which are stepped today): no two cycles repeat */
  cycle(k, &sm->min_wake[s - sm->sched]);
  cycle(k, &s->busy_until);
  put(k, s->last);
  put(k, s->keep); /* valid at its warp's last issue + 1 (walk_warp() has that cycle) */
  put(k, s->hot);
  put(k, s->pool_n | (guint64)s->pool_next << 32);
  for (guint u = 0; u < SM_N_PIPES; u++)
    ticks(k, &s->pipe_free[u]);
  if (s->ports.counts) {
    /* write ports taken from t on (nothing reads an earlier cycle) */
    SmPorts *ports = &s->ports;
    guint64 hi = sm_ports_last(ports);
    if (k->mode == ENCODE) {
      for (guint64 c = k->t; c <= hi; c++)
        put(k, sm_ports_used(ports, c));
      put(k, hi <= k->t ? 0 : hi - k->t);
    } else if (hi >= k->t) {
      gsize n = hi - k->t + 1;
      guint8 *used = g_new(guint8, n);
      for (gsize i = 0; i < n; i++)
        used[i] = (guint8)sm_ports_used(ports, k->t + i);
      guint64 to = k->t + k->dt;
      sm_ports_reset(ports);
      for (gsize i = 0; i < n; i++)
        for (guint j = 0; j < used[i]; j++)
          sm_ports_take(ports, to, to + i);
      g_free(used);
    } else {
      sm_ports_reset(ports);
    }
  }
}

static void
walk(SmGpu *sm, Walk *k, guint scope)
{
  if (scope != SM_SCOPE_SM) {
    /* a scheduler's own state; block priority also reads its blocks' places */
    SM_FOR_SCOPE_WARPS (sm, scope, i)
      walk_warp(sm, &sm->warps[i], k);
    const SmScheduler *s = &sm->sched[scope];
    walk_scheduler(sm, &sm->sched[scope], k);
    if (sm->block_priority != CFG_BLOCK_PRIORITY_NONE) {
      for (guint p = 0; p < s->n_warps; p++)
        put(k, s->grid[p]); /* which block is older */
      for (guint b = 0; b < sm->n_block_slots; b++)
        put(k, sm->blocks[b].last[s->local]);
    }
    return;
  }
  /* the SMs stepped and what each stands for (the others run like one of them: mirror.c) */
  for (guint i = 0; i < sm->n_warps; i++)
    if (sm->mp[sm->warps[i].sm].weight > 0)
      walk_warp(sm, &sm->warps[i], k);
  for (guint i = 0; i < sm->n_sched; i++)
    if (sm->mp[i / sm->sched_per_sm].weight > 0)
      walk_scheduler(sm, &sm->sched[i], k);
  for (guint b = 0; b < sm->n_block_slots; b++) {
    if (sm->mp[sm->blocks[b].sm].weight == 0)
      continue;
    SmBlock *blk = &sm->blocks[b];
    put(k, blk->busy | (guint64)blk->live << 8 | (guint64)blk->arrived << 32 |
               (guint64)blk->draining << 48);
    put(k, blk->grid_index);
    if (sm->block_priority != CFG_BLOCK_PRIORITY_NONE)
      for (guint q = 0; q < sm->sched_per_sm; q++)
        put(k, blk->last[q]);
    cycle(k, &blk->retire);
    cycle(k, &blk->free_at);
  }
  for (guint m = 0; m < sm->n_sm; m++) {
    put(k, sm->mp[m].weight);
    if (sm->mp[m].weight == 0)
      continue;
    put(k, sm->mp[m].n_blocks | (guint64)sm->smem.first[m] << 32);
    ticks(k, &sm->mp[m].dispatch_tat);
    ticks(k, &sm->smem.free[m]);
    /* the accesses in the shared-memory queue, oldest first */
    for (guint i = 0, d = sm->smem.depth_accesses; i < d; i++) {
      guint at = sm->smem.head[m] + i;
      ticks(k, &sm->smem.starts[(gsize)m * d + (at >= d ? at - d : at)]);
    }
    /* the queue for room among the transactions in flight, and each scheduler's for places in
     * the shared-memory queue, in their order */
    const SmWaitQueue *lg = &sm->mem.lg, *mio = &sm->smem.waiting;
    put(k, lg->len[m]);
    for (guint i = 0; i < lg->len[m]; i++)
      put(k, sm_waitq_at(lg, m, i));
    for (guint q = m * sm->sched_per_sm; mio->ring && q < (m + 1) * sm->sched_per_sm; q++) {
      put(k, mio->len[q]);
      for (guint i = 0; i < mio->len[q]; i++)
        put(k, sm_waitq_at(mio, q, i));
    }
  }
  put(k, sm->n_done | (guint64)sm->next_block << 32);
  ticks(k, &sm->dispatch_tat);
  put(k, sm->blocks_retired | (guint64)sm->lg_waiters << 32);
}

void
sm_state_encode(SmGpu *sm, guint scope, guint64 t, SmStateBuf *out)
{
  Walk k = {ENCODE, t, 0, out};
  walk(sm, &k, scope);
}

void
sm_state_shift(SmGpu *sm, guint scope, guint64 now, guint64 dt)
{
  Walk k = {SHIFT, now, dt, NULL};
  walk(sm, &k, scope);
}
