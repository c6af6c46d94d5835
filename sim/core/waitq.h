/* Queues of warps waiting for room somewhere, in the order they found none or by age (a ring of
 * warp indices per owner: an SM, or a scheduler): room goes to the first of them.  lg_throttle's
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

/* @warp into queue @sm at place @i (0: first), those from there on one place later. */
static inline void
sm_waitq_insert(SmWaitQueue *q, guint sm, guint i, guint warp)
{
  g_assert(q->len[sm] < q->cap && i <= q->len[sm]);
  guint32 *r = q->ring + (gsize)sm * q->cap;
  for (guint k = q->len[sm]; k > i; k--) {
    guint to = q->head[sm] + k, from = to - 1;
    r[to >= q->cap ? to - q->cap : to] = r[from >= q->cap ? from - q->cap : from];
  }
  guint at = q->head[sm] + i;
  r[at >= q->cap ? at - q->cap : at] = warp;
  q->len[sm]++;
}

/* @warp out of queue @sm, wherever it is (those after it one place earlier). */
static inline void
sm_waitq_remove(SmWaitQueue *q, guint sm, guint warp)
{
  guint32 *r = q->ring + (gsize)sm * q->cap;
  guint n = q->len[sm], i = 0;
  while (i < n && sm_waitq_at(q, sm, i) != warp)
    i++;
  g_assert(i < n);
  for (; i + 1 < n; i++) {
    guint to = q->head[sm] + i, from = to + 1;
    r[to >= q->cap ? to - q->cap : to] = r[from >= q->cap ? from - q->cap : from];
  }
  q->len[sm]--;
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
