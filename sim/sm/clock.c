/* Clock reads per warp and their spans (clock.h). */
#include "clock.h"

SmClock *
sm_clock_new(guint n_warp_slots)
{
  SmClock *c = g_new0(SmClock, 1);
  c->first = g_new0(guint64, n_warp_slots);
  c->last = g_new0(guint64, n_warp_slots);
  c->reads = g_new0(guint, n_warp_slots);
  c->spans = g_array_new(FALSE, FALSE, sizeof(guint64));
  c->span_first = G_MAXUINT64;
  return c;
}

void
sm_clock_free(SmClock *c)
{
  if (c == NULL)
    return;
  g_free(c->first);
  g_free(c->last);
  g_free(c->reads);
  g_array_free(c->spans, TRUE);
  g_free(c);
}

void
sm_clock_done(SmClock *c, guint slot)
{
  if (c->reads[slot] >= 2) {
    guint64 span = c->last[slot] - c->first[slot];
    g_array_append_val(c->spans, span);
    c->span_first = MIN(c->span_first, c->first[slot]);
    c->span_last = MAX(c->span_last, c->last[slot]);
  }
  c->reads[slot] = 0;
}

static gint
compare_u64(gconstpointer a, gconstpointer b)
{
  guint64 x = *(const guint64 *)a, y = *(const guint64 *)b;
  return x < y ? -1 : x > y;
}

void
sm_clock_finish(const SmClock *c, SmStats *st)
{
  st->clock_warps = c->spans->len;
  if (c->spans->len == 0)
    return;
  g_autoptr(GArray) v = g_array_copy(c->spans);
  g_array_sort(v, compare_u64);
  const guint64 *s = (const guint64 *)v->data;
  guint n = v->len;
  st->clock_min = s[0];
  st->clock_max = s[n - 1];
  /* the upper of the two middle spans for an even count, as the measurement programs take it
   * (v[v.size() / 2] after a sort): two blocks' warps in two groups give a span of one of them,
   * not the midpoint between them that no warp took */
  st->clock_median = s[n / 2];
  st->clock_span = c->span_last - c->span_first;
}
