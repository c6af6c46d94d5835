/* The event heap: push and pop in (cycle, priority, sequence) order.  Not what events mean:
 * the SM loop (gpu/loop.c) fires them. */
#include "engine.h"

static inline gboolean
before(const SmEvent *a, const SmEvent *b)
{
  if (a->cycle != b->cycle)
    return a->cycle < b->cycle;
  if (a->priority != b->priority)
    return a->priority < b->priority;
  return a->seq < b->seq;
}

static void
heap_init(SmHeap *h, guint capacity)
{
  h->capacity = MAX(capacity, 16u);
  h->ev = g_new(SmEvent, h->capacity);
  h->n = 0;
}

static inline void
heap_push(SmHeap *h, const SmEvent *ev)
{
  if (h->n == h->capacity) {
    h->capacity *= 2;
    h->ev = g_renew(SmEvent, h->ev, h->capacity);
  }
  guint i = h->n++;
  while (i > 0) {
    guint parent = (i - 1) / 2;
    if (!before(ev, &h->ev[parent]))
      break;
    h->ev[i] = h->ev[parent];
    i = parent;
  }
  h->ev[i] = *ev;
}

/* Removes the earliest event (the heap is not empty) into *@out. */
static inline void
heap_pop(SmHeap *h, SmEvent *out)
{
  *out = h->ev[0];
  SmEvent last = h->ev[--h->n];
  guint i = 0, n = h->n;
  for (;;) {
    guint child = 2 * i + 1;
    if (child >= n)
      break;
    if (child + 1 < n && before(&h->ev[child + 1], &h->ev[child]))
      child++;
    if (!before(&h->ev[child], &last))
      break;
    h->ev[i] = h->ev[child];
    i = child;
  }
  if (n > 0)
    h->ev[i] = last;
}

void
sm_engine_init(SmEngine *engine, guint capacity)
{
  heap_init(&engine->queue, capacity);
  heap_init(&engine->launches, 16);
  engine->next_seq = 0;
  engine->held = NULL;
}

void
sm_engine_clear(SmEngine *engine)
{
  g_clear_pointer(&engine->queue.ev, g_free);
  g_clear_pointer(&engine->launches.ev, g_free);
  engine->queue.n = engine->queue.capacity = engine->launches.n = engine->launches.capacity = 0;
}

void
sm_engine_push(SmEngine *engine, guint64 cycle, guint32 priority, guint32 kind, guint64 arg)
{
  SmEvent ev = {
      .cycle = cycle, .priority = priority, .kind = kind, .seq = engine->next_seq++, .arg = arg};
  if (G_UNLIKELY(engine->held)) {
    SmHeap *h = engine->held;
    if (h->n == h->capacity) {
      h->capacity = MAX(2 * h->capacity, 64u);
      h->ev = g_renew(SmEvent, h->ev, h->capacity);
    }
    h->ev[h->n++] = ev;
    return;
  }
  heap_push(&engine->queue, &ev);
  if (G_UNLIKELY(kind == SM_EVENT_BLOCK_LAUNCH))
    heap_push(&engine->launches, &ev);
}

void
sm_engine_take_held(SmEngine *engine, SmHeap *held)
{
  for (guint i = 0; i < held->n; i++) {
    const SmEvent *ev = &held->ev[i];
    heap_push(&engine->queue, ev);
    if (G_UNLIKELY(ev->kind == SM_EVENT_BLOCK_LAUNCH))
      heap_push(&engine->launches, ev);
  }
  held->n = 0;
}

gboolean
sm_engine_pop(SmEngine *engine, SmEvent *out)
{
  if (engine->queue.n == 0)
    return FALSE;
  heap_pop(&engine->queue, out);
  if (G_UNLIKELY(out->kind == SM_EVENT_BLOCK_LAUNCH)) {
    SmEvent same; /* the queue's order puts it first among the launches too */
    heap_pop(&engine->launches, &same);
  }
  return TRUE;
}
