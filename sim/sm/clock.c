/* Clock reads per warp and their spans (clock.h). */
#include "clock.h"

SmClock *
sm_clock_new(guint n_warp_slots)
{
  SmClock *c = g_new0(SmClock, 1);
  c->first = g_new0(guint64, n_warp_slots);
  c->last = g_new0(guint64, n_warp_slots);
  c->reads = g_new0(guint, n_warp_slots);
  c->at = g_new0(guint64, (gsize)n_warp_slots * (SM_CLOCK_STEPS + 1));
  c->spans = g_array_new(FALSE, FALSE, sizeof(guint64));
  for (guint k = 0; k < SM_CLOCK_STEPS; k++)
    c->steps[k] = g_array_new(FALSE, FALSE, sizeof(guint64));
  c->span_first = G_MAXUINT64;
  return c;
}

SmClock *
sm_clock_view(const SmClock *c)
{
  SmClock *v = g_new(SmClock, 1);
  *v = *c;
  v->spans = g_array_new(FALSE, FALSE, sizeof(guint64));
  for (guint k = 0; k < SM_CLOCK_STEPS; k++)
    v->steps[k] = g_array_new(FALSE, FALSE, sizeof(guint64));
  return v;
}

void
sm_clock_merge(SmClock *c, SmClock *view)
{
  g_array_append_vals(c->spans, view->spans->data, view->spans->len);
  g_array_free(view->spans, TRUE);
  for (guint k = 0; k < SM_CLOCK_STEPS; k++) {
    g_array_append_vals(c->steps[k], view->steps[k]->data, view->steps[k]->len);
    g_array_free(view->steps[k], TRUE);
  }
  c->span_first = MIN(c->span_first, view->span_first);
  c->span_last = MAX(c->span_last, view->span_last);
  g_free(view);
}

void
sm_clock_free(SmClock *c)
{
  if (c == NULL)
    return;
  g_free(c->first);
  g_free(c->last);
  g_free(c->reads);
  g_free(c->at);
  g_array_free(c->spans, TRUE);
  for (guint k = 0; k < SM_CLOCK_STEPS; k++)
    g_array_free(c->steps[k], TRUE);
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
    const guint64 *at = &c->at[(gsize)slot * (SM_CLOCK_STEPS + 1)];
    for (guint k = 0; k + 1 < MIN(c->reads[slot], SM_CLOCK_STEPS + 1); k++) {
      guint64 step = at[k + 1] - at[k];
      g_array_append_val(c->steps[k], step);
    }
  }
  c->reads[slot] = 0;
}

static gint
compare_u64(gconstpointer a, gconstpointer b)
{
  guint64 x = *(const guint64 *)a, y = *(const guint64 *)b;
  return x < y ? -1 : x > y;
}

/* the upper of the two middle values for an even count, as the measurement programs take it
 * (v[v.size() / 2] after a sort): two blocks' warps in two groups give a span of one of them,
 * not the midpoint between them that no warp took; @v is sorted */
static guint64
upper_median(GArray *v)
{
  g_array_sort(v, compare_u64);
  return g_array_index(v, guint64, v->len / 2);
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
  st->clock_median = upper_median(v);
  st->clock_span = c->span_last - c->span_first;
  st->clock_n_steps = 0;
  for (guint k = 0; k < SM_CLOCK_STEPS && c->steps[k]->len > 0; k++) {
    g_autoptr(GArray) w = g_array_copy(c->steps[k]);
    st->clock_steps[k] = upper_median(w);
    st->clock_n_steps = k + 1;
  }
}
