/* The event heap: push and pop in (cycle, priority, sequence) order.  Not what events mean:
 * the SM loop (sm.c) fires them. */
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

void
sm_engine_init(SmEngine *engine, guint capacity)
{
  *engine = (SmEngine){0};
  for (guint h = 0; h < SM_ENGINE_HEAPS; h++) {
    SmHeap *q = &engine->heaps[h];
    q->capacity = h == 0 ? MAX(capacity, 16u) : 16u;
    q->ev = g_new(SmEvent, q->capacity);
  }
}

void
sm_engine_clear(SmEngine *engine)
{
  for (guint h = 0; h < SM_ENGINE_HEAPS; h++) {
    g_clear_pointer(&engine->heaps[h].ev, g_free);
    engine->heaps[h].n = engine->heaps[h].capacity = 0;
  }
  engine->n = 0;
}

void
sm_engine_push(SmEngine *engine, guint64 cycle, guint32 priority, guint32 kind, guint64 arg)
{
  SmHeap *q = &engine->heaps[kind == SM_EVENT_BLOCK_LAUNCH];
  if (q->n == q->capacity) {
    q->capacity *= 2;
    q->ev = g_renew(SmEvent, q->ev, q->capacity);
  }
  SmEvent ev = {
      .cycle = cycle, .priority = priority, .kind = kind, .seq = engine->next_seq++, .arg = arg};
  guint i = q->n++;
  engine->n++;
  while (i > 0) {
    guint parent = (i - 1) / 2;
    if (!before(&ev, &q->ev[parent]))
      break;
    q->ev[i] = q->ev[parent];
    i = parent;
  }
  q->ev[i] = ev;
}

gboolean
sm_engine_pop(SmEngine *engine, SmEvent *out)
{
  SmHeap *a = &engine->heaps[0], *b = &engine->heaps[1];
  if (a->n == 0 && b->n == 0)
    return FALSE;
  /* the earlier of the two tops */
  SmHeap *q = a->n == 0 || (b->n > 0 && before(&b->ev[0], &a->ev[0])) ? b : a;
  *out = q->ev[0];
  engine->n--;
  SmEvent last = q->ev[--q->n];
  guint i = 0, n = q->n;
  for (;;) {
    guint child = 2 * i + 1;
    if (child >= n)
      break;
    if (child + 1 < n && before(&q->ev[child + 1], &q->ev[child]))
      child++;
    if (!before(&q->ev[child], &last))
      break;
    q->ev[i] = q->ev[child];
    i = child;
  }
  if (n > 0)
    q->ev[i] = last;
  return TRUE;
}
