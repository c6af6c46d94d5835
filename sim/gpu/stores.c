/* A global access over SASS from its SM's LD/ST path on: its turn at the stage (lsu.h), a
 * store's registers held until the stage reads them, its lines into the memory system; and the
 * stores that wait in the SM's store queue for room among its stores in flight, taken in issue
 * order when completions make room.  Not the rest of an instruction's issue (sass.c). */
#include "machine.h"

#include "blocks.h"

/* @a goes on from the stage at @t: returns its completion (SM_PENDING: known later), *@read the
 * cycle a store's registers are read. */
static guint64
reach(SmGpu *sm, SmWarp *w, guint32 pc, guint64 t, const SmAccess *a, guint64 *read)
{
  gboolean store = sm->info[pc].is_store;
  guint64 share = store && sm_lsu_paces(&sm->lsu)
                      ? sm_lsu_store_share(&sm->lsu, a->level, a->n, a->masks, a->partial)
                      : 0;
  SmLsuPass p = sm_lsu_pass(&sm->lsu, w->sm, t, store, share, a->n, a->partial, a->data_bytes);
  *read = p.read;
  if (G_UNLIKELY(sm->defer)) /* known later (fast/parallel.c; never with fences: lookahead.c) */
    return sm->above->defer_lines(sm, w, pc, t, p.enter, p.tail, a->n, a->lines, a->masks,
                                  a->partial, a->level, a->op);
  if (G_UNLIKELY(sm->fences)) /* what a fence waits for of this access: memory.h */
    sm_memory_clear_store_record(&sm->mem);
  guint64 base;
  if (a->level == CFG_LEVEL_CACHED) {
    base = sm_memory_access_cached(&sm->mem, w->sm, p.enter, a->n, a->lines, a->masks, a->partial,
                                   (SmCacheOp)a->op, store, sm->trace ? &sm->outcome : NULL) +
           p.tail;
  } else {
    base = sm_memory_access_lines(&sm->mem, w->sm, a->level, p.enter, a->n, a->lines, a->bytes,
                                  store) +
           p.tail;
    sm_memory_count_issued(&sm->mem, w->sm, a->n, store);
  }
  if (G_UNLIKELY(sm->fences) && store)
    sm_fence_store(sm, w->sm, base, p.taken);
  return base;
}

/* Room among SM @m's transactions in flight at @t for a store of @n lines (its stores still in
 * the stage not counted: memory.h); a store alone always has room, however many its lines. */
static gboolean
room(SmGpu *sm, guint m, guint n, guint64 t)
{
  return sm->mem.sm_outstanding[m] == 0 ||
         sm_memory_room(&sm->mem, m, n, TRUE, sm_lsu_store_lines_in_stage(&sm->lsu, m, t));
}

guint64
sm_sass_access(SmGpu *sm, SmWarp *w, guint32 pc, guint64 t, const SmAccess *a)
{
  const IsaDeps *deps = &sm->prog->deps[pc];
  guint m = w->sm;
  gboolean store = sm->info[pc].is_store;
  if (store && sm->lsu.queue && (sm_lsu_waiting(&sm->lsu, m) > 0 || !room(sm, m, a->n, t))) {
    SmLsuWaiting q = {.warp = (guint32)(w - sm->warps),
                      .pc = pc,
                      .n = a->n,
                      .data_bytes = a->data_bytes,
                      .level = (guint8)a->level,
                      .op = (guint8)a->op};
    sm_lsu_wait(&sm->lsu, m, q, a->lines, a->bytes, a->masks, a->partial);
    sm_scoreboard_hold(&w->sb, deps, SM_NEVER, SM_STATE_LONG_SCOREBOARD);
    w->stores_queued++;
    return SM_PENDING;
  }
  guint64 read;
  guint64 base = reach(sm, w, pc, t, a, &read);
  if (store && w->sb.held)
    sm_scoreboard_hold(&w->sb, deps, read, SM_STATE_LONG_SCOREBOARD);
  return base;
}

/* Whether a store of warp @warp still waiting in SM @m's queue reads register slot @reg. */
static gboolean
still_held(const SmGpu *sm, guint m, guint32 warp, guint reg)
{
  for (guint i = 0, n = sm_lsu_waiting(&sm->lsu, m); i < n; i++) {
    const SmLsuWaiting *q = sm_lsu_waiting_at(&sm->lsu, m, i, NULL, NULL, NULL, NULL);
    if (q->warp != warp)
      continue;
    const IsaDeps *d = &sm->prog->deps[q->pc];
    for (guint k = 0; k < d->n_src; k++)
      if (d->src[k] == reg)
        return TRUE;
  }
  return FALSE;
}

void
sm_sass_stores_resume(SmGpu *sm, guint m, guint64 t)
{
  SmLsu *lsu = &sm->lsu;
  sm->room_freed[m] = 0;
  while (sm_lsu_waiting(lsu, m) > 0) {
    const guint64 *lines;
    const guint *bytes;
    const guint8 *masks, *partial;
    const SmLsuWaiting *q = sm_lsu_waiting_at(lsu, m, 0, &lines, &bytes, &masks, &partial);
    if (!room(sm, m, q->n, t))
      return;
    SmWarp *w = &sm->warps[q->warp];
    guint32 pc = q->pc, warp = q->warp;
    SmAccess a = {q->n, lines, bytes, masks, partial, q->level, q->op, q->data_bytes};
    guint64 read;
    guint64 base = reach(sm, w, pc, t, &a, &read);
    sm_lsu_waiting_pop(lsu, m); /* (its arrays may move: q and a are not used past here) */
    if (base != SM_PENDING)
      w->finish = MAX(w->finish, base);
    /* its registers are read then, unless a later store of the warp still waiting reads them */
    const IsaDeps *d = &sm->prog->deps[pc];
    for (guint k = 0; k < d->n_src; k++)
      if (!still_held(sm, m, warp, d->src[k]))
        w->sb.held[d->src[k]] = read;
    w->stores_queued--;
    if (!w->done) {
      guint64 before = w->deps_at;
      sm_warp_prepare(sm, w); /* what it waits for may have been this store's read */
      if (w->deps_at != before)
        sm_wake_warp(sm, w, t);
    } else if (w->stores_queued == 0) {
      sm_blocks_stores_left(sm, w, t); /* its EXIT waited for this store to leave the queue */
    }
  }
}
