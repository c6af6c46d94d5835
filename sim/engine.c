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
  engine->launch_capacity = 16;
  engine->launches = g_new(guint64, engine->launch_capacity);
  engine->n_launches = 0;
}

void
sm_engine_clear(SmEngine *engine)
{
  g_clear_pointer(&engine->heap, g_free);
  engine->n = engine->capacity = 0;
  g_clear_pointer(&engine->launches, g_free);
  engine->n_launches = engine->launch_capacity = 0;
}

/* The launch cycles' heap: a block launch queued at @cycle. */
static void
launch_push(SmEngine *engine, guint64 cycle)
{
  if (engine->n_launches == engine->launch_capacity) {
    engine->launch_capacity *= 2;
    engine->launches = g_renew(guint64, engine->launches, engine->launch_capacity);
  }
  guint64 *h = engine->launches;
  guint i = engine->n_launches++;
  for (; i > 0 && cycle < h[(i - 1) / 2]; i = (i - 1) / 2)
    h[i] = h[(i - 1) / 2];
  h[i] = cycle;
}

/* ... and the earliest one left the queue (the queue's order puts it first among launches). */
static void
launch_pop(SmEngine *engine)
{
  guint64 *h = engine->launches, last = h[--engine->n_launches];
  guint i = 0, n = engine->n_launches;
  for (;;) {
    guint child = 2 * i + 1;
    if (child >= n)
      break;
    if (child + 1 < n && h[child + 1] < h[child])
      child++;
    if (h[child] >= last)
      break;
    h[i] = h[child];
    i = child;
  }
  if (n > 0)
    h[i] = last;
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
  if (G_UNLIKELY(kind == SM_EVENT_BLOCK_LAUNCH))
    launch_push(engine, cycle);
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
  if (G_UNLIKELY(out->kind == SM_EVENT_BLOCK_LAUNCH))
    launch_pop(engine);
  return TRUE;
}
