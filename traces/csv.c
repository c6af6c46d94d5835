/* The CSV trace writers: one row per issued instruction (FILE.csv), or one row per span of a
 * warp in one state (FILE.states.csv: the run report's states, by Nsight's names; none where
 * the slot holds no warp; rows in the order the spans end). */
#include <string.h>

#include "trace.h"

static gboolean
csv_begin(TraceSink *sink, const TraceInfo *info, GError **error)
{
  trace_printf(sink,
               "cycle,scheduler,warp,pc,op,unit,completion_cycle,bank_passes,active_lanes%s\n",
               info->caches ? ",l1_hit_sectors,l2_hit_sectors,miss_sectors" : "");
  return TRUE;
}

static void
csv_issue(TraceSink *sink, const TraceIssue *i)
{
  if (!trace_wants_warp(sink, i->warp) || !trace_in_window(sink, i->cycle))
    return;
  trace_printf(sink, "%" G_GUINT64_FORMAT ",%u,%u,%u,%s,%s,%" G_GUINT64_FORMAT ",%u,0x%08x",
               i->cycle, i->sched, i->warp, i->pc, sink->info.op_names[i->op],
               sink->info.unit_names[i->unit], i->complete, i->passes, i->mask);
  if (sink->info.caches)
    trace_printf(sink, ",%u,%u,%u", i->l1_hits, i->l2_hits, i->misses);
  trace_printf(sink, "\n");
}

static gboolean
csv_end(TraceSink *sink, guint64 cycles, GError **error)
{
  return TRUE;
}

const TraceSinkClass trace_csv_class = {
    .instance_size = sizeof(TraceSink),
    .begin = csv_begin,
    .issue = csv_issue,
    .end = csv_end,
};

typedef struct {
  TraceSink base;
  guint *state;        /* per warp: its state ... */
  guint64 *state_from; /* ... since this cycle */
} StatesSink;

static gboolean
states_begin(TraceSink *sink, const TraceInfo *info, GError **error)
{
  StatesSink *s = (StatesSink *)sink;
  s->state = g_new(guint, MAX(info->n_warps, 1u));
  s->state_from = g_new0(guint64, MAX(info->n_warps, 1u));
  for (guint w = 0; w < info->n_warps; w++)
    s->state[w] = info->warp_state ? info->warp_state[w] : G_MAXUINT;
  trace_printf(sink, "warp,state,from_cycle,to_cycle,cycles\n");
  return TRUE;
}

/* Warp @w's span in its state up to @end, clipped to the window. */
static void
states_row(StatesSink *s, guint w, guint64 end)
{
  TraceSink *sink = &s->base;
  guint st = s->state[w];
  guint64 a = MAX(s->state_from[w], sink->opts.from), b = MIN(end, sink->opts.to);
  if (st >= sink->info.n_states || strcmp(sink->info.state_names[st], "inactive") == 0 || a >= b)
    return;
  trace_printf(sink, "%u,%s,%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT "\n", w,
               sink->info.state_names[st], a, b, b - a);
}

static void
states_state(TraceSink *sink, guint64 cycle, guint warp, guint state)
{
  StatesSink *s = (StatesSink *)sink;
  if (warp >= sink->info.n_warps || !trace_wants_warp(sink, warp))
    return;
  states_row(s, warp, cycle);
  s->state[warp] = state;
  s->state_from[warp] = cycle;
}

static void
states_issue(TraceSink *sink, const TraceIssue *i)
{
}

static gboolean
states_end(TraceSink *sink, guint64 cycles, GError **error)
{
  StatesSink *s = (StatesSink *)sink;
  for (guint w = 0; w < sink->info.n_warps; w++) /* every warp's last state, to the end */
    if (trace_wants_warp(sink, w))
      states_row(s, w, cycles);
  return TRUE;
}

static void
states_free(TraceSink *sink)
{
  StatesSink *s = (StatesSink *)sink;
  g_free(s->state);
  g_free(s->state_from);
}

const TraceSinkClass trace_csv_states_class = {
    .instance_size = sizeof(StatesSink),
    .begin = states_begin,
    .issue = states_issue,
    .state = states_state,
    .end = states_end,
    .free = states_free,
};
