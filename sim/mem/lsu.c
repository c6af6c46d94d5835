/* The LD/ST path's L1TEX stage and store buffer, per SM (lsu.h). */
#include "lsu.h"
#include "write-cost.h"

#include "../../config/kernel.h"
#include "../core/fixed.h"

#include <math.h>

#include <string.h>

void
sm_lsu_init(SmLsu *lsu, const CfgGpu *gpu, guint n_sm, guint grid_sms)
{
  memset(lsu, 0, sizeof *lsu);
  lsu->on = cfg_gpu_has_lsu(gpu);
  if (!lsu->on)
    return;
  lsu->load_line = gpu->lsu.load_line_cycles;
  lsu->return_line = gpu->lsu.return_line_cycles;
  lsu->store_line = gpu->lsu.store_line_cycles;
  lsu->partial_sector = gpu->lsu.partial_sector_cycles;
  lsu->store_bytes = gpu->lsu.store_bytes_per_cycle;
  lsu->read = gpu->lsu.store_read_cycles;
  lsu->buffer = gpu->lsu.store_buffer;
  lsu->free = g_new0(guint64, n_sm);
  lsu->data_free = g_new0(guint64, n_sm);
  lsu->n_sm = n_sm;
  lsu->staged = g_new0(GArray *, n_sm);
  lsu->staged_head = g_new0(guint, n_sm);
  for (guint m = 0; m < n_sm; m++)
    lsu->staged[m] = g_array_new(FALSE, FALSE, sizeof(SmLsuStaged));
  if (lsu->buffer) {
    lsu->buf_done = g_new0(guint64, (gsize)n_sm * lsu->buffer);
    lsu->buf_head = g_new0(guint, n_sm);
  }
  if (gpu->lsu.store_backlog_cycles) {
    lsu->backlog = (guint64)gpu->lsu.store_backlog_cycles << SM_TICK_SHIFT;
    lsu->share_free = g_new0(guint64, n_sm);
    lsu->gpu = gpu;
    lsu->share = (double)CLAMP(grid_sms, 1u, n_sm) / n_sm;
  }
  lsu->queue = gpu->lsu.store_queue;
  lsu->hold = gpu->lsu.store_queue_hold_cycles;
  if (lsu->queue) {
    lsu->q = g_new0(SmLsuQueue, n_sm);
    for (guint m = 0; m < n_sm; m++) {
      SmLsuQueue *q = &lsu->q[m];
      q->waiting = g_array_new(FALSE, FALSE, sizeof(SmLsuWaiting));
      q->lines = g_array_new(FALSE, FALSE, sizeof(guint64));
      q->bytes = g_array_new(FALSE, FALSE, sizeof(guint));
      q->masks = g_array_new(FALSE, FALSE, sizeof(guint8));
      q->partial = g_array_new(FALSE, FALSE, sizeof(guint8));
      q->unread = g_array_new(FALSE, FALSE, sizeof(guint64));
    }
  }
}

void
sm_lsu_clear(SmLsu *lsu)
{
  g_free(lsu->free);
  g_free(lsu->data_free);
  for (guint m = 0; lsu->staged && m < lsu->n_sm; m++)
    g_array_free(lsu->staged[m], TRUE);
  g_free(lsu->staged);
  g_free(lsu->staged_head);
  g_free(lsu->buf_done);
  g_free(lsu->buf_head);
  g_free(lsu->share_free);
  for (guint m = 0; lsu->q && m < lsu->n_sm; m++) {
    SmLsuQueue *q = &lsu->q[m];
    g_array_free(q->waiting, TRUE);
    g_array_free(q->lines, TRUE);
    g_array_free(q->bytes, TRUE);
    g_array_free(q->masks, TRUE);
    g_array_free(q->partial, TRUE);
    g_array_free(q->unread, TRUE);
  }
  g_free(lsu->q);
  memset(lsu, 0, sizeof *lsu);
}

static void forget_staged(SmLsu *lsu, guint m, guint64 t);

guint64
sm_lsu_store_share(const SmLsu *lsu, guint level, guint n, const guint8 *masks,
                   const guint8 *partial)
{
  const CfgGpu *g = lsu->gpu;
  if (!g)
    return 0;
  if (level == CFG_LEVEL_CACHED) {
    int l = g->caches.l2.bytes ? g->caches.l2.hit_level_index : g->caches.l2.miss_level_index;
    if (l < 0)
      return 0;
    level = (guint)l;
  }
  if (level >= g->memory.n_levels)
    return 0;
  const CfgMemLevel *lv = &g->memory.levels[level];
  if (isinf(lv->bytes_per_cycle) || lv->bytes_per_cycle <= 0)
    return 0;
  /* what each line costs a channel (write-cost.h), at least the level's smallest access */
  SmWriteCosts costs = sm_write_costs(lv, g->memory.sector_bytes);
  double bytes = 0;
  for (guint i = 0; i < n; i++)
    bytes += MAX(sm_write_cost(&costs, masks[i], partial[i]), lv->min_access_bytes);
  /* the level's rate is bytes_per_cycle an SM: an SM's share of all SMs' is that over the
   * share of the SMs the grid occupies */
  guint64 ticks = (guint64)(bytes * lsu->share * SM_TICKS_PER_CYCLE / lv->bytes_per_cycle + 0.5);
  return MAX(ticks, 1u);
}

/* Stage cycles of a store: its lines, the sectors it writes in part. */
static guint64
store_cycles(const SmLsu *lsu, guint n, const guint8 *partial)
{
  guint64 cycles = 0;
  for (guint i = 0; i < n; i++)
    cycles += lsu->store_line + (guint64)sm_popcount32(partial[i]) * lsu->partial_sector;
  return cycles;
}

SmLsuPass
sm_lsu_pass(SmLsu *lsu, guint m, guint64 t, gboolean store, guint64 share, guint n,
            const guint8 *partial, guint data_bytes)
{
  SmLsuPass p = {.enter = t, .tail = 0, .read = t};
  if (!lsu->on || n == 0)
    return p;
  guint64 cycles = store ? store_cycles(lsu, n, partial) : (guint64)n * lsu->load_line;
  guint64 start = MAX(t, lsu->free[m]);
  p.enter = start + cycles;
  lsu->free[m] = p.enter;
  if (store && lsu->store_bytes) {
    /* its data crosses the store data path meanwhile, in issue order: the store has reached the
     * L1 when both are done with it (loads take only the stage) */
    guint64 data = ((guint64)data_bytes + lsu->store_bytes - 1) / lsu->store_bytes;
    guint64 moved = MAX(t, lsu->data_free[m]) + data;
    lsu->data_free[m] = moved;
    p.enter = MAX(p.enter, moved);
  }
  if (!store) {
    p.tail = (guint64)(n - 1) * lsu->return_line;
    return p;
  }
  if (share && lsu->backlog) {
    /* its lines leave at the SM's share of their level's write rate, after the stores before
     * it: the stage holds the store (and the stores behind it wait) while they would find more
     * than the backlog ahead of them */
    guint64 *busy = &lsu->share_free[m], at = p.enter << SM_TICK_SHIFT;
    if (*busy > at + lsu->backlog) {
      at = *busy - lsu->backlog;
      p.enter = (at + SM_TICKS_PER_CYCLE - 1) >> SM_TICK_SHIFT;
      lsu->free[m] = p.enter;
    }
    *busy = MAX(*busy, at) + share;
    p.taken = (*busy + SM_TICKS_PER_CYCLE - 1) >> SM_TICK_SHIFT;
  }
  SmLsuStaged st = {p.enter, n};
  forget_staged(lsu, m, t);
  g_array_append_val(lsu->staged[m], st);
  p.read = t + lsu->read;
  if (lsu->buffer) {
    guint64 *done = &lsu->buf_done[(gsize)m * lsu->buffer];
    guint *head = &lsu->buf_head[m];
    p.read = MAX(p.read, done[*head]); /* a place: the stage done with the store `buffer` back */
    done[*head] = p.enter;
    *head = *head + 1 == lsu->buffer ? 0 : *head + 1;
  }
  if (lsu->queue) { /* its place frees then (in issue order, so in order of their reads) */
    guint64 leaves = p.read + lsu->hold;
    g_array_append_val(lsu->q[m].unread, leaves);
  }
  return p;
}

guint64
sm_lsu_queue_full(SmLsu *lsu, guint m, guint64 t)
{
  SmLsuQueue *q = &lsu->q[m];
  const guint64 *r = (const guint64 *)(void *)q->unread->data;
  while (q->unread_head < q->unread->len && r[q->unread_head] <= t)
    q->unread_head++;
  if (q->unread_head > 64 && q->unread_head * 2 > q->unread->len) {
    g_array_remove_range(q->unread, 0, q->unread_head);
    q->unread_head = 0;
    r = (const guint64 *)(void *)q->unread->data;
  }
  guint unread = q->unread->len - q->unread_head, held = unread + sm_lsu_waiting(lsu, m);
  if (held < lsu->queue)
    return 0;
  /* a place frees when the (held - queue + 1)-th of the unread leaves it */
  guint k = held - lsu->queue;
  return k < unread ? r[q->unread_head + k] : G_MAXUINT64;
}

void
sm_lsu_wait(SmLsu *lsu, guint m, SmLsuWaiting w, const guint64 *lines, const guint *bytes,
            const guint8 *masks, const guint8 *partial)
{
  SmLsuQueue *q = &lsu->q[m];
  w.at = q->lines->len;
  g_array_append_val(q->waiting, w);
  g_array_append_vals(q->lines, lines, w.n);
  g_array_append_vals(q->bytes, bytes, w.n);
  g_array_append_vals(q->masks, masks, w.n);
  g_array_append_vals(q->partial, partial, w.n);
}

const SmLsuWaiting *
sm_lsu_waiting_at(const SmLsu *lsu, guint m, guint i, const guint64 **lines, const guint **bytes,
                  const guint8 **masks, const guint8 **partial)
{
  const SmLsuQueue *q = &lsu->q[m];
  const SmLsuWaiting *w = &g_array_index(q->waiting, SmLsuWaiting, q->head + i);
  if (lines) {
    *lines = &g_array_index(q->lines, guint64, w->at);
    *bytes = &g_array_index(q->bytes, guint, w->at);
    *masks = &g_array_index(q->masks, guint8, w->at);
    *partial = &g_array_index(q->partial, guint8, w->at);
  }
  return w;
}

void
sm_lsu_waiting_pop(SmLsu *lsu, guint m)
{
  SmLsuQueue *q = &lsu->q[m];
  q->head++;
  if (q->head < 256 || q->head * 2 < q->waiting->len)
    return;
  /* the stores gone leave the front of every array (the queue may never be empty for long) */
  guint gone = q->head == q->waiting->len ? q->lines->len
                                          : g_array_index(q->waiting, SmLsuWaiting, q->head).at;
  g_array_remove_range(q->waiting, 0, q->head);
  g_array_remove_range(q->lines, 0, gone);
  g_array_remove_range(q->bytes, 0, gone);
  g_array_remove_range(q->masks, 0, gone);
  g_array_remove_range(q->partial, 0, gone);
  q->head = 0;
  for (guint i = 0; i < q->waiting->len; i++)
    g_array_index(q->waiting, SmLsuWaiting, i).at -= gone;
}

/* SM @m's stores the stage was done with before @t - 1 are forgotten. */
static void
forget_staged(SmLsu *lsu, guint m, guint64 t)
{
  GArray *a = lsu->staged[m];
  guint *head = &lsu->staged_head[m];
  const SmLsuStaged *s = (const SmLsuStaged *)(void *)a->data;
  while (*head < a->len && s[*head].enter + 1 < t)
    (*head)++;
  if (*head > 64 && *head * 2 > a->len) {
    g_array_remove_range(a, 0, *head);
    *head = 0;
  }
}

guint64
sm_lsu_store_lines_in_stage(SmLsu *lsu, guint m, guint64 t)
{
  if (!lsu->on)
    return 0;
  forget_staged(lsu, m, t);
  GArray *a = lsu->staged[m];
  const guint *head = &lsu->staged_head[m];
  const SmLsuStaged *s = (const SmLsuStaged *)(void *)a->data;
  guint64 n = 0;
  for (guint i = a->len; i-- > *head && s[i].enter > t;)
    n += s[i].lines;
  return n;
}
