/* The event queue and clock; not what the events mean (gpu/loop.c fires them).
 *
 * Events are ordered by (cycle, priority, sequence number): two events at the same cycle
 * fire in priority order, and events of equal priority in the order they were scheduled, so
 * the same input always gives the same run.  The queue is a binary heap in one array; it is
 * sized up front and only grows (by doubling) if an estimate was too small.  Beside it, the
 * block launches queued are kept again in a small heap of their own: the earliest launch
 * (which bounds how far a warp may run ahead, gpu/loop.c) is read often, and a walk over thousands
 * of memory events would cost more than the launches themselves.
 */
#pragma once

#include <glib.h>

#define SM_NEVER G_MAXUINT64

typedef enum {
  SM_EVENT_MEM_DONE,     /* a global memory transaction left the memory system: arg = level */
  SM_EVENT_MEM_START,    /* a queued transaction started service (only while tracing) */
  SM_EVENT_BLOCK_LAUNCH, /* a block slot is free again: the block scheduler runs */
  SM_EVENT_KIND_COUNT
} SmEventKind;

typedef struct {
  guint64 cycle;
  guint32 priority;
  guint32 kind;
  guint64 seq;
  guint64 arg;
} SmEvent;

/* A binary heap of events in (cycle, priority, sequence) order. */
typedef struct {
  SmEvent *ev;
  guint n, capacity;
} SmHeap;

typedef struct {
  SmHeap queue;    /* every event */
  SmHeap launches; /* the block launches among them, again */
  guint64 next_seq;
  /* when set, events pushed go here (in push order, with their sequence numbers: a list, not a
   * heap) instead of into the heaps, until sm_engine_take_held(): another thread schedules them,
   * and the queue's owner puts them in its heaps on its own thread, with the same order
   * (parallel.c) */
  SmHeap *held;
} SmEngine;

void sm_engine_init(SmEngine *engine, guint capacity);
void sm_engine_clear(SmEngine *engine);
void sm_engine_push(SmEngine *engine, guint64 cycle, guint32 priority, guint32 kind, guint64 arg);
/* Cycle of the earliest event, or SM_NEVER when the queue is empty. */
static inline guint64
sm_engine_next_cycle(const SmEngine *engine)
{
  return engine->queue.n ? engine->queue.ev[0].cycle : SM_NEVER;
}
/* Cycle of the earliest block launch, or SM_NEVER. */
static inline guint64
sm_engine_next_launch(const SmEngine *engine)
{
  return engine->launches.n ? engine->launches.ev[0].cycle : SM_NEVER;
}
/* The events held in @held go into the heaps (@engine->held is NULL again by then), which
 * leaves @held empty (its storage kept for the next ones; g_free(held->ev) frees it). */
void sm_engine_take_held(SmEngine *engine, SmHeap *held);
/* Removes the earliest event into *out; FALSE when empty. */
gboolean sm_engine_pop(SmEngine *engine, SmEvent *out);
