/* The CSV trace writers: one row per issued instruction (FILE.csv), or one row per span of a
 * warp in one state (FILE.states.csv: the run report's states, by Nsight's names; none where
 * the slot holds no warp; rows in the order the spans end). */
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
  TraceWarpStates states;
} StatesSink;

static gboolean
states_begin(TraceSink *sink, const TraceInfo *info, GError **error)
{
  trace_warp_states_init(&((StatesSink *)sink)->states, info, 0);
  trace_printf(sink, "warp,state,from_cycle,to_cycle,cycles\n");
  return TRUE;
}

/* Warp @w's span [@from, @end) in @st, clipped to the window. */
static void
states_row(TraceSink *sink, guint w, guint st, guint64 from, guint64 end)
{
  guint64 a = MAX(from, sink->opts.from), b = MIN(end, sink->opts.to);
  if (!trace_state_is_a_warps(&sink->info, st) || a >= b)
    return;
  trace_printf(sink, "%u,%s,%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT "\n", w,
               sink->info.state_names[st], a, b, b - a);
}

static void
states_state(TraceSink *sink, guint64 cycle, guint warp, guint state)
{
  if (warp >= sink->info.n_warps || !trace_wants_warp(sink, warp))
    return;
  guint old;
  guint64 from;
  trace_warp_states_set(&((StatesSink *)sink)->states, warp, state, cycle, &old, &from);
  states_row(sink, warp, old, from, cycle);
}

static void
states_issue(TraceSink *sink, const TraceIssue *i)
{
}

static gboolean
states_end(TraceSink *sink, guint64 cycles, GError **error)
{
  const TraceWarpStates *s = &((StatesSink *)sink)->states;
  for (guint w = 0; w < sink->info.n_warps; w++) /* every warp's last state, to the end */
    if (trace_wants_warp(sink, w))
      states_row(sink, w, s->state[w], s->since[w], cycles);
  return TRUE;
}

static void
states_free(TraceSink *sink)
{
  trace_warp_states_clear(&((StatesSink *)sink)->states);
}

const TraceSinkClass trace_csv_states_class = {
    .instance_size = sizeof(StatesSink),
    .begin = states_begin,
    .issue = states_issue,
    .state = states_state,
    .end = states_end,
    .free = states_free,
};
