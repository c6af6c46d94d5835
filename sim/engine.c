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
  engine->capacity = MAX(capacity, 16u);
  engine->heap = g_new(SmEvent, engine->capacity);
  engine->n = 0;
  engine->next_seq = 0;
}

void
sm_engine_clear(SmEngine *engine)
{
  g_clear_pointer(&engine->heap, g_free);
  engine->n = engine->capacity = 0;
}

void
sm_engine_push(SmEngine *engine, guint64 cycle, guint32 priority, guint32 kind, guint64 arg)
{
  if (engine->n == engine->capacity) {
    engine->capacity *= 2;
    engine->heap = g_renew(SmEvent, engine->heap, engine->capacity);
  }
  SmEvent ev = {
      .cycle = cycle, .priority = priority, .kind = kind, .seq = engine->next_seq++, .arg = arg};
  guint i = engine->n++;
  while (i > 0) {
    guint parent = (i - 1) / 2;
    if (!before(&ev, &engine->heap[parent]))
      break;
    engine->heap[i] = engine->heap[parent];
    i = parent;
  }
  engine->heap[i] = ev;
}

guint64
sm_engine_next_of(const SmEngine *engine, guint32 kind)
{
  guint64 next = SM_NEVER;
  for (guint i = 0; i < engine->n; i++)
    if (engine->heap[i].kind == kind)
      next = MIN(next, engine->heap[i].cycle);
  return next;
}

gboolean
sm_engine_pop(SmEngine *engine, SmEvent *out)
{
  if (engine->n == 0)
    return FALSE;
  *out = engine->heap[0];
  SmEvent last = engine->heap[--engine->n];
  guint i = 0, n = engine->n;
  for (;;) {
    guint child = 2 * i + 1;
    if (child >= n)
      break;
    if (child + 1 < n && before(&engine->heap[child + 1], &engine->heap[child]))
      child++;
    if (!before(&engine->heap[child], &last))
      break;
    engine->heap[i] = engine->heap[child];
    i = child;
  }
  if (n > 0)
    engine->heap[i] = last;
  return TRUE;
}
