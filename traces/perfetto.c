/* Chrome trace-event JSON, for ui.perfetto.dev and chrome://tracing (one writer; the sink
 * interface, ordering and size limits are trace.c's).
 *
 * One process (the SM), one thread per warp: each instruction is an "X" slice from its issue to
 * its completion.  Slices on one thread must nest, and a warp's instructions can overlap without
 * nesting (a MOV issued while a load is in flight), so each warp gets as many threads ("warp 3",
 * "warp 3 #2", ...) as it has overlapping instructions.  Counter tracks: instructions in flight
 * per kind, memory transactions in flight and queued.  A second process, "warp states", has a
 * thread per warp whose slices are its state spans (the run report's states, by Nsight's names;
 * no slice where the slot holds no warp).  Time: ts is in microseconds by the
 * format, so one cycle is written as 0.001 and displayTimeUnit "ns" shows it as 1 ns. */
#include "trace.h"

#define MAX_LANES 32

enum { CHANGE_INFLIGHT, CHANGE_COUNTER };

typedef struct {
  TraceSink base;
  TraceQueue q;
  guint64 (*lane_end)[MAX_LANES]; /* per warp */
  guint8 *lanes;                  /* lanes named so far, per warp */
  gint64 inflight[3];
  guint64 counters[TRACE_COUNTER_COUNT];
  gboolean first;
  guint64 now;
  gboolean inflight_dirty, counters_dirty;
  TraceWarpStates states;
  guint8 *state_named; /* per warp: its state thread's name given */
} JsonSink;

static void
event_sep(JsonSink *j)
{
  trace_printf(&j->base, "%s\n", j->first ? "" : ",");
  j->first = FALSE;
}

static void
json_string(TraceSink *sink, const char *s)
{
  trace_printf(sink, "\"");
  for (const char *c = s; *c; c++) {
    if (*c == '"' || *c == '\\')
      trace_printf(sink, "\\%c", *c);
    else if ((unsigned char)*c < 0x20)
      trace_printf(sink, "\\u%04x", *c);
    else
      trace_printf(sink, "%c", *c);
  }
  trace_printf(sink, "\"");
}

static gboolean
json_begin(TraceSink *sink, const TraceInfo *info, GError **error)
{
  JsonSink *j = (JsonSink *)sink;
  trace_queue_init(&j->q);
  j->lane_end = g_malloc0(sizeof(guint64) * MAX_LANES * MAX(info->n_warps, 1u));
  j->lanes = g_new0(guint8, info->n_warps);
  j->first = TRUE;
  trace_printf(sink, "{\"displayTimeUnit\": \"ns\",\n\"otherData\": {\"generator\": \"smsim\", "
                     "\"gpu\": ");
  json_string(sink, info->gpu_name);
  trace_printf(sink, ", \"kernel\": ");
  json_string(sink, info->kernel_name);
  trace_printf(sink, ", \"time\": \"1 ns on the time axis = 1 SM cycle\"},\n\"traceEvents\": [");
  event_sep(j);
  trace_printf(sink,
               "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, \"args\": {\"name\": ");
  g_autofree char *pname = g_strdup_printf("SM 0 (%s)", info->gpu_name);
  json_string(sink, pname);
  trace_printf(sink, "}}");
  event_sep(j);
  trace_printf(sink, "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 2, \"args\": "
                     "{\"name\": \"warp states\"}}");
  trace_warp_states_init(&j->states, info, 0);
  j->state_named = g_new0(guint8, MAX(info->n_warps, 1u));
  return TRUE;
}

static double
ts(guint64 cycle)
{
  return (double)cycle / 1000.0;
}

static void
flush_counters(JsonSink *j)
{
  if (j->inflight_dirty) {
    event_sep(j);
    trace_printf(&j->base,
                 "{\"name\": \"instructions in flight\", \"ph\": \"C\", \"pid\": 1, \"ts\": %.3f, "
                 "\"args\": {\"alu\": %" G_GINT64_FORMAT ", \"sfu\": %" G_GINT64_FORMAT
                 ", \"memory\": %" G_GINT64_FORMAT "}}",
                 ts(j->now), j->inflight[0], j->inflight[1], j->inflight[2]);
  }
  if (j->counters_dirty) {
    event_sep(j);
    trace_printf(&j->base,
                 "{\"name\": \"memory transactions\", \"ph\": \"C\", \"pid\": 1, \"ts\": %.3f, "
                 "\"args\": {\"in_flight\": %" G_GUINT64_FORMAT ", \"queued\": %" G_GUINT64_FORMAT
                 "}}",
                 ts(j->now), j->counters[TRACE_COUNTER_MEM_OUTSTANDING],
                 j->counters[TRACE_COUNTER_MEM_QUEUED]);
  }
  j->inflight_dirty = j->counters_dirty = FALSE;
}

static void
json_flush(JsonSink *j, guint64 before)
{
  TraceChange c;
  while (trace_queue_pop(&j->q, before, &c)) {
    if (c.cycle != j->now) {
      if (trace_in_window(&j->base, j->now))
        flush_counters(j);
      j->inflight_dirty = j->counters_dirty = FALSE;
      j->now = c.cycle;
    }
    if (c.kind == CHANGE_INFLIGHT) {
      j->inflight[c.index] += c.value;
      j->inflight_dirty = TRUE;
    } else if (j->counters[c.index] != (guint64)c.value) {
      j->counters[c.index] = (guint64)c.value;
      j->counters_dirty = TRUE;
    }
  }
  /* every record before @before has arrived: the group at j->now is complete */
  if (j->now < before && (j->inflight_dirty || j->counters_dirty)) {
    if (trace_in_window(&j->base, j->now))
      flush_counters(j);
    j->inflight_dirty = j->counters_dirty = FALSE;
  }
}

static void
json_issue(TraceSink *sink, const TraceIssue *i)
{
  JsonSink *j = (JsonSink *)sink;
  guint kind = i->memory ? 2 : (i->unit == 1 ? 1 : 0);
  if (i->complete > i->cycle) {
    trace_queue_push(&j->q, i->cycle, CHANGE_INFLIGHT, kind, 1);
    trace_queue_push(&j->q, i->complete, CHANGE_INFLIGHT, kind, -1);
  }
  if (!trace_wants_warp(sink, i->warp) || !trace_in_window(sink, i->cycle))
    return;
  /* counters up to this cycle first: timestamps stay in order */
  json_flush(j, i->cycle);
  guint lane = 0;
  while (lane < MAX_LANES - 1 && j->lane_end[i->warp][lane] > i->cycle)
    lane++;
  j->lane_end[i->warp][lane] = MAX(i->complete, i->cycle + 1);
  guint tid = i->warp * MAX_LANES + lane + 1;
  if (lane >= j->lanes[i->warp]) {
    for (guint l = j->lanes[i->warp]; l <= lane; l++) {
      event_sep(j);
      g_autofree char *name = l == 0 ? g_strdup_printf("warp %u", i->warp)
                                     : g_strdup_printf("warp %u #%u", i->warp, l + 1);
      trace_printf(sink,
                   "{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": %u, "
                   "\"args\": {\"name\": ",
                   i->warp * MAX_LANES + l + 1);
      json_string(sink, name);
      trace_printf(sink, "}}");
      event_sep(j);
      trace_printf(sink,
                   "{\"name\": \"thread_sort_index\", \"ph\": \"M\", \"pid\": 1, \"tid\": %u, "
                   "\"args\": {\"sort_index\": %u}}",
                   i->warp * MAX_LANES + l + 1, i->warp * MAX_LANES + l + 1);
    }
    j->lanes[i->warp] = (guint8)(lane + 1);
  }
  event_sep(j);
  trace_printf(sink,
               "{\"name\": \"%s\", \"cat\": \"%s\", \"ph\": \"X\", \"pid\": 1, \"tid\": %u, "
               "\"ts\": %.3f, \"dur\": %.3f, \"args\": {\"pc\": %u, \"scheduler\": %u, "
               "\"complete_cycle\": %" G_GUINT64_FORMAT,
               sink->info.op_names[i->op], sink->info.unit_names[i->unit], tid, ts(i->cycle),
               ts(i->complete - i->cycle), i->pc, i->sched, i->complete);
  if (i->passes)
    trace_printf(sink, ", \"bank_passes\": %u", i->passes);
  if (i->l1_hits + i->l2_hits + i->misses)
    trace_printf(sink, ", \"l1_hit_sectors\": %u, \"l2_hit_sectors\": %u, \"miss_sectors\": %u",
                 i->l1_hits, i->l2_hits, i->misses);
  if (i->mask != 0xffffffffu)
    trace_printf(sink, ", \"active_lanes\": \"0x%08x\", \"active_count\": %d", i->mask,
                 __builtin_popcount(i->mask));
  trace_printf(sink, "}}");
}

/* Warp @w's span [@from, @end) in @st, as a slice of its state thread (clipped to the window;
 * none for an empty slot). */
static void
state_span(JsonSink *j, guint w, guint st, guint64 from, guint64 end)
{
  TraceSink *sink = &j->base;
  guint64 a = MAX(from, sink->opts.from), b = MIN(end, sink->opts.to);
  if (!trace_state_is_a_warps(&sink->info, st) || a >= b)
    return;
  if (!j->state_named[w]) {
    j->state_named[w] = 1;
    event_sep(j);
    trace_printf(sink,
                 "{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 2, \"tid\": %u, "
                 "\"args\": {\"name\": \"warp %u\"}}",
                 w + 1, w);
    event_sep(j);
    trace_printf(sink,
                 "{\"name\": \"thread_sort_index\", \"ph\": \"M\", \"pid\": 2, \"tid\": %u, "
                 "\"args\": {\"sort_index\": %u}}",
                 w + 1, w + 1);
  }
  event_sep(j);
  trace_printf(sink,
               "{\"name\": \"%s\", \"cat\": \"state\", \"ph\": \"X\", \"pid\": 2, \"tid\": %u, "
               "\"ts\": %.3f, \"dur\": %.3f, \"args\": {\"cycles\": %" G_GUINT64_FORMAT "}}",
               sink->info.state_names[st], w + 1, ts(a), ts(b - a), b - a);
}

static void
json_state(TraceSink *sink, guint64 cycle, guint warp, guint state)
{
  JsonSink *j = (JsonSink *)sink;
  if (warp >= sink->info.n_warps || !trace_wants_warp(sink, warp))
    return;
  guint old;
  guint64 from;
  trace_warp_states_set(&j->states, warp, state, cycle, &old, &from);
  state_span(j, warp, old, from, cycle);
}

static void
json_counter(TraceSink *sink, guint64 cycle, TraceCounter counter, guint64 value)
{
  JsonSink *j = (JsonSink *)sink;
  trace_queue_push(&j->q, cycle, CHANGE_COUNTER, counter, (gint64)value);
}

static void
json_advance(TraceSink *sink, guint64 cycle)
{
  json_flush((JsonSink *)sink, cycle);
}

static gboolean
json_end(TraceSink *sink, guint64 cycles, GError **error)
{
  JsonSink *j = (JsonSink *)sink;
  json_flush(j, G_MAXUINT64);
  if (trace_in_window(sink, j->now))
    flush_counters(j);
  for (guint w = 0; w < sink->info.n_warps; w++) /* every warp's last state, to the end */
    if (trace_wants_warp(sink, w))
      state_span(j, w, j->states.state[w], j->states.since[w], cycles);
  trace_printf(sink, "\n]}\n");
  return TRUE;
}

static void
json_free(TraceSink *sink)
{
  JsonSink *j = (JsonSink *)sink;
  trace_queue_clear(&j->q);
  g_free(j->lane_end);
  g_free(j->lanes);
  trace_warp_states_clear(&j->states);
  g_free(j->state_named);
}

const TraceSinkClass trace_json_class = {
    .instance_size = sizeof(JsonSink),
    .begin = json_begin,
    .issue = json_issue,
    .state = json_state,
    .counter = json_counter,
    .advance = json_advance,
    .end = json_end,
    .free = json_free,
};
