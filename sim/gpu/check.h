/* Whether a warp may issue this cycle, and if not what it waits for and until when: the
 * look of the cycle loop (loop.c) at one warp.  Its operands, its unit's pipe, a register-file
 * write port for its result, room among its SM's memory transactions in flight (and the queue
 * of the warps waiting for it, which it joins and leaves here), a place in the shared-memory
 * queue.  Included by loop.c alone: static inline, in the loop's own unit. */
#pragma once

#include "machine.h"

/* A fixed-latency instruction of @w issued at @t would find a register-file write port free
 * when its result arrives (variable-latency results have taken theirs already). */
static inline gboolean
wb_free_for(const SmGpu *sm, const SmScheduler *s, const SmWarp *w, guint64 t)
{
  const SmInsnInfo *ii = &sm->info[w->pc];
  if (!ii->fixed_latency || !ii->writes_register)
    return TRUE;
  return sm_ports_used(&s->ports, t + ii->max_latency) < sm->wb_ports;
}

/* Whether @w's global access waits for room among its SM's transactions in flight (or, a store
 * with a store queue, for a place in that queue: lsu.h): 0 if it may go, else the cycle to look
 * again (SM_NEVER: when a completion or the warp ahead wakes it).  It waits when there is no
 * room, or warps that found none before it are waiting still (it then joins their queue, at
 * its end or, memory.throttle_order oldest, behind the older ones, and goes when it is the
 * first and there is room: memory.h). */
static inline guint64
lg_throttled(SmGpu *sm, SmWarp *w, guint64 t)
{
  SmMemory *mem = &sm->mem;
  guint m = w->sm, me = (guint)(w - sm->warps);
  gboolean store = sm->info[w->pc].is_store;
  guint64 full = 0;
  gboolean room;
  if (store && sm->lsu.queue) {
    full = sm_lsu_queue_full(&sm->lsu, m, t);
    room = full == 0;
  } else {
    room = sm_memory_room(mem, m, w->n_trans, store, 0) ||
           (store &&
            sm_memory_room(mem, m, w->n_trans, store, sm_lsu_store_lines_in_stage(&sm->lsu, m, t)));
    full = room ? 0 : SM_NEVER;
  }
  if (w->lg_queued == SM_QUEUED_LG)
    return !room ? full : sm_waitq_first(&mem->lg, m) != me ? SM_NEVER : 0;
  if (room && mem->lg.len[m] == 0)
    return 0;
  w->lg_queued = SM_QUEUED_LG;
  if (sm->cfg->memory.throttle_order == CFG_LG_OLDEST) {
    /* behind the warps older than it: their blocks earlier in the grid (launched first), or
     * its own block and a lower slot; first, it goes now if there is room */
    guint at = mem->lg.len[m], mine = sm->blocks[w->block].grid_index;
    for (; at > 0; at--) {
      const SmWarp *o = &sm->warps[sm_waitq_at(&mem->lg, m, at - 1)];
      guint theirs = sm->blocks[o->block].grid_index;
      if (theirs < mine || (theirs == mine && o < w))
        break;
    }
    sm_waitq_insert(&mem->lg, m, at, me);
    if (at == 0 && room)
      return 0;
    return room ? SM_NEVER : full;
  }
  sm_waitq_push(&mem->lg, m, me);
  return room ? SM_NEVER : full;
}

/* warp_check() of @w's shared-memory access with throttle_order: arrival, its operands and pipe
 * ready: SM_STATE_ELIGIBLE, or mio_throttle while it waits for a place in its SM's queue, *@wake
 * the cycle to look again (SM_NEVER: when the warp of its scheduler ahead of it goes).  The
 * schedulers take turns at the places (gpu/loop.c), each issuing its warps waiting in the order
 * they found the queue full, not by its policy. */
static G_GNUC_NO_INLINE guint
mio_throttled(SmGpu *sm, SmWarp *w, guint64 t, guint64 *wake)
{
  gboolean full = sm_smem_full(&sm->smem, w->sm, t, wake);
  SmWaitQueue *q = &sm->smem.waiting;
  guint me = (guint)(w - sm->warps);
  if (w->lg_queued != SM_QUEUED_MIO) {
    if (!full && q->len[w->sched] == 0) {
      *wake = t + 1;
      return SM_STATE_ELIGIBLE;
    }
    sm_waitq_push(q, w->sched, me);
    w->lg_queued = SM_QUEUED_MIO;
  }
  if (sm_waitq_first(q, w->sched) != me) {
    *wake = SM_NEVER;
    return SM_STATE_MIO_THROTTLE;
  }
  if (full)
    return SM_STATE_MIO_THROTTLE;
  *wake = t + 1;
  return SM_STATE_ELIGIBLE;
}

/* The warp @next (G_MAXUINT: none), behind @w in a queue @w leaves at @t, is looked at the cycle
 * after (the room left may be enough for it). */
static inline void
wake_next(SmGpu *sm, const SmWarp *w, guint next, guint64 t)
{
  if (next == G_MAXUINT)
    return;
  const SmWarp *n = &sm->warps[next];
  SmScheduler *s = &sm->sched[n->sched];
  if (s->wake[n->pos] > t + 1) {
    s->wake[n->pos] = t + 1;
    sm->min_wake[n->sched] = MIN(sm->min_wake[n->sched], t + 1);
    if (n->sched == w->sched) /* its scheduler's look this cycle did not see it */
      sm->lg_woke = n->sched; /* (issue_picked()) */
  }
}

/* @w, waiting for a shared-memory place (throttle_order: arrival), issues at @t: the next of
 * its scheduler's warps waiting is looked at next.  A warp that keeps its scheduler (its
 * instruction does not yield, sass.yield_hints) keeps its place for its next shared access
 * right after. */
static G_GNUC_NO_INLINE void
mio_leave(SmGpu *sm, SmWarp *w, guint64 t)
{
  const SmInsnInfo *ii = &sm->info[w->pc];
  if (sm->yield_hints && ii->no_yield && ii->space == ISA_SPACE_SHARED) {
    guint32 after = sm_warp_peek_next(w, sm->prog);
    if (after < sm->prog->n_insns && sm->info[after].space == ISA_SPACE_SHARED)
      return;
  }
  SmWaitQueue *q = &sm->smem.waiting;
  sm_waitq_pop(q, w->sched);
  w->lg_queued = SM_QUEUED_NONE;
  wake_next(sm, w, sm_waitq_first(q, w->sched), t);
}

/* @w, the first of its SM's queue for room (or waiting for a shared-memory place), issues at
 * @t: the next one is looked at the cycle after. */
static G_GNUC_NO_INLINE void
lg_leave(SmGpu *sm, SmWarp *w, guint64 t)
{
  if (w->lg_queued == SM_QUEUED_MIO) {
    mio_leave(sm, w, t);
    return;
  }
  /* (oldest first, an older warp may have come in ahead of it since it found room) */
  if (sm_waitq_first(&sm->mem.lg, w->sm) == (guint)(w - sm->warps))
    sm_waitq_pop(&sm->mem.lg, w->sm);
  else
    sm_waitq_remove(&sm->mem.lg, w->sm, (guint)(w - sm->warps));
  w->lg_queued = SM_QUEUED_NONE;
  wake_next(sm, w, sm_waitq_first(&sm->mem.lg, w->sm), t);
}

/* Why @w cannot issue its next instruction at cycle @t (or SM_STATE_ELIGIBLE), and the first
 * cycle that may change (SM_NEVER: only a memory completion can). */
static inline guint
warp_check(SmGpu *sm, SmWarp *w, const SmScheduler *s, guint64 t, guint64 *wake)
{
  if (w->deps_at > t) {
    *wake = w->deps_at;
    return w->dep_state;
  }
  guint64 pipe = s->pipe_free[w->pipe];
  if (sm_pipe_busy(pipe, t)) {
    *wake = pipe >> SM_TICK_SHIFT;
    return sm->info[w->pc].throttle_state;
  }
  if (w->space == ISA_SPACE_NONE) {
    *wake = t + 1;
    if (G_UNLIKELY(sm->wb_ports) && !wb_free_for(sm, s, w, t))
      return SM_STATE_DISPATCH_STALL;
    return SM_STATE_ELIGIBLE;
  }
  if (w->space == ISA_SPACE_GLOBAL) {
    guint64 until = lg_throttled(sm, w, t);
    if (G_UNLIKELY(until)) {
      *wake = until;
      return SM_STATE_LG_THROTTLE;
    }
  }
  if (w->space == ISA_SPACE_SHARED) {
    if (G_UNLIKELY(sm->smem.waiting.ring))
      return mio_throttled(sm, w, t, wake);
    if (sm_smem_full(&sm->smem, w->sm, t, wake))
      return SM_STATE_MIO_THROTTLE;
  }
  *wake = t + 1;
  return SM_STATE_ELIGIBLE;
}
