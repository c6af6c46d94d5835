/* The CSV trace writer: one row per issued instruction.  Not warp states or counters (vcd.c,
 * perfetto.c show those). */
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
