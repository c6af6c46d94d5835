/* Queues of warps waiting for room somewhere, in the order they found none (a ring of warp
 * indices per owner: an SM, or a scheduler): room goes to the first of them.  lg_throttle's
 * queue for room among an SM's transactions in flight (mem/memory.h), and with
 * shared_memory.throttle_order: arrival each scheduler's for a place in its SM's shared-memory
 * queue (sm/smem.h). */
#pragma once

#include <glib.h>

typedef struct {
  guint32 *ring; /* n_sm x cap */
  guint *head, *len;
  guint cap;
} SmWaitQueue;

/* Room for @cap warps in each of @n_sm queues. */
static inline void
sm_waitq_init(SmWaitQueue *q, guint n_sm, guint cap)
{
  q->cap = MAX(cap, 1u);
  q->ring = g_new0(guint32, (gsize)n_sm * q->cap);
  q->head = g_new0(guint, n_sm);
  q->len = g_new0(guint, n_sm);
}

static inline void
sm_waitq_clear(SmWaitQueue *q)
{
  g_clear_pointer(&q->ring, g_free);
  g_clear_pointer(&q->head, g_free);
  g_clear_pointer(&q->len, g_free);
}

/* The first warp of queue @sm (G_MAXUINT: none), the @i-th, one more at its end, the first
 * gone. */
static inline guint
sm_waitq_first(const SmWaitQueue *q, guint sm)
{
  return q->len[sm] ? q->ring[(gsize)sm * q->cap + q->head[sm]] : G_MAXUINT;
}

static inline guint
sm_waitq_at(const SmWaitQueue *q, guint sm, guint i)
{
  guint at = q->head[sm] + i;
  return q->ring[(gsize)sm * q->cap + (at >= q->cap ? at - q->cap : at)];
}

static inline void
sm_waitq_push(SmWaitQueue *q, guint sm, guint warp)
{
  g_assert(q->len[sm] < q->cap);
  guint at = q->head[sm] + q->len[sm]++;
  q->ring[(gsize)sm * q->cap + (at >= q->cap ? at - q->cap : at)] = warp;
}

static inline void
sm_waitq_pop(SmWaitQueue *q, guint sm)
{
  q->len[sm]--;
  q->head[sm] = q->head[sm] + 1 == q->cap ? 0 : q->head[sm] + 1;
}

/* Queue @to becomes queue @from, its warps' indices moved on by @shift. */
static inline void
sm_waitq_copy(SmWaitQueue *q, guint from, guint to, guint shift)
{
  q->head[to] = 0;
  q->len[to] = q->len[from];
  for (guint i = 0; i < q->len[from]; i++)
    q->ring[(gsize)to * q->cap + i] = sm_waitq_at(q, from, i) + shift;
}
