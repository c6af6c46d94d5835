/* IEEE 1364 value change dump, for GTKWave or Surfer (one writer; the sink interface is
 * trace.c's).  One time unit is one cycle.
 *
 * Signals: per scheduler the warp issued in slot 0 (x when none), its op number and the running
 * count of instructions issued; per shown warp its state (a number: see the $comment block)
 * and the active lanes of its last issued instruction (32 bits, lane 0 lowest);
 * per scheduler and unit whether the pipe is busy; instructions in flight per kind; memory
 * transactions in flight and queued.  Only changes are written. */
#include <string.h>

#include "trace.h"

enum { SIG_WARP, SIG_OP, SIG_ISSUED, SIG_STATE, SIG_BUSY, SIG_INFLIGHT, SIG_COUNTER };

typedef struct {
  char id[8];
  guint width;
  gint64 value, printed; /* -1: x */
  gboolean dirty, declared;
} Signal;

typedef struct {
  TraceSink base;
  TraceQueue q;
  GArray *sigs; /* Signal */
  guint sched_base, state_base, mask_base, busy_base, inflight_base, counter_base;
  guint64 *issued;
  gint64 inflight[3];
  guint64 now;   /* time of the changes being collected */
  guint64 stamp; /* last "#time" written */
  gboolean dumped;
  guint n_dirty;
  guint *dirty;
} VcdSink;

static void
make_id(guint n, char *out)
{
  /* printable identifiers '!'..'~' in base 94 */
  guint i = 0;
  do {
    out[i++] = (char)('!' + n % 94);
    n /= 94;
  } while (n && i < 6);
  out[i] = '\0';
}

static guint
add_signal(VcdSink *v, guint width, gint64 initial)
{
  Signal s = {.width = width, .value = initial, .printed = G_MININT64};
  make_id(v->sigs->len, s.id);
  g_array_append_val(v->sigs, s);
  return v->sigs->len - 1;
}

static void
declare(VcdSink *v, guint sig, const char *name)
{
  Signal *s = &g_array_index(v->sigs, Signal, sig);
  s->declared = TRUE;
  trace_printf(&v->base, "$var %s %u %s %s $end\n", s->width == 1 ? "wire" : "reg", s->width, s->id,
               name);
}

static gboolean
vcd_begin(TraceSink *sink, const TraceInfo *info, GError **error)
{
  VcdSink *v = (VcdSink *)sink;
  trace_queue_init(&v->q);
  v->sigs = g_array_new(FALSE, TRUE, sizeof(Signal));
  v->issued = g_new0(guint64, info->n_sched);
  trace_printf(sink, "$comment smsim: %s on %s; one time unit = one SM cycle $end\n",
               info->kernel_name, info->gpu_name);
  trace_printf(sink, "$comment warp state values:");
  for (guint i = 0; i < info->n_states; i++)
    trace_printf(sink, " %u=%s", i, info->state_names[i]);
  trace_printf(sink, " $end\n$comment op values:");
  for (guint i = 0; i < info->n_ops; i++)
    trace_printf(sink, " %u=%s", i, info->op_names[i]);
  trace_printf(sink, " $end\n$timescale 1ns $end\n$scope module sm $end\n");
  v->sched_base = v->sigs->len;
  for (guint s = 0; s < info->n_sched; s++) {
    char name[64];
    trace_printf(sink, "$scope module scheduler%u $end\n", s);
    guint a = add_signal(v, 16, -1), b = add_signal(v, 8, -1), c = add_signal(v, 32, 0);
    g_snprintf(name, sizeof name, "issued_warp");
    declare(v, a, name);
    declare(v, b, "issued_op");
    declare(v, c, "issued_count");
    trace_printf(sink, "$upscope $end\n");
  }
  v->state_base = v->sigs->len;
  trace_printf(sink, "$scope module warps $end\n");
  for (guint w = 0; w < info->n_warps; w++) {
    guint sig = add_signal(v, 8, (gint64)info->n_states - 1);
    if (trace_wants_warp(sink, w)) {
      char name[32];
      g_snprintf(name, sizeof name, "warp%u_state", w);
      declare(v, sig, name);
    }
  }
  v->mask_base = v->sigs->len;
  for (guint w = 0; w < info->n_warps; w++) {
    guint sig = add_signal(v, 32, 0xffffffff);
    if (trace_wants_warp(sink, w)) {
      char name[32];
      g_snprintf(name, sizeof name, "warp%u_mask", w);
      declare(v, sig, name);
    }
  }
  trace_printf(sink, "$upscope $end\n$scope module pipes $end\n");
  v->busy_base = v->sigs->len;
  for (guint s = 0; s < info->n_sched; s++) {
    for (guint u = 0; u < info->n_units; u++) {
      char name[64];
      g_snprintf(name, sizeof name, "sched%u_%s_busy", s, info->unit_names[u]);
      declare(v, add_signal(v, 1, 0), name);
    }
  }
  trace_printf(sink, "$upscope $end\n$scope module counters $end\n");
  v->inflight_base = v->sigs->len;
  static const char *const kinds[3] = {"inflight_alu", "inflight_sfu", "inflight_mem"};
  for (guint k = 0; k < 3; k++)
    declare(v, add_signal(v, 32, 0), kinds[k]);
  v->counter_base = v->sigs->len;
  for (guint c = 0; c < TRACE_COUNTER_COUNT; c++)
    declare(v, add_signal(v, 32, 0), trace_counter_names[c]);
  trace_printf(sink, "$upscope $end\n$upscope $end\n$enddefinitions $end\n");
  v->dirty = g_new(guint, v->sigs->len);
  return TRUE;
}

static void
print_value(VcdSink *v, Signal *s)
{
  if (s->width == 1) {
    trace_printf(&v->base, "%c%s\n", s->value ? '1' : '0', s->id);
    return;
  }
  if (s->value < 0) {
    trace_printf(&v->base, "bx %s\n", s->id);
    return;
  }
  char bits[72];
  guint64 x = (guint64)s->value;
  int n = 0;
  do {
    bits[n++] = (char)('0' + (x & 1));
    x >>= 1;
  } while (x);
  char out[72];
  for (int i = 0; i < n; i++)
    out[i] = bits[n - 1 - i];
  out[n] = '\0';
  trace_printf(&v->base, "b%s %s\n", out, s->id);
}

/* Prints the changes collected for time v->now. */
static void
emit(VcdSink *v)
{
  TraceSink *sink = &v->base;
  gboolean visible = trace_in_window(sink, v->now);
  if (visible && !v->dumped) {
    trace_printf(sink, "#%" G_GUINT64_FORMAT "\n$dumpvars\n", v->now);
    v->stamp = v->now;
    for (guint i = 0; i < v->sigs->len; i++) {
      Signal *s = &g_array_index(v->sigs, Signal, i);
      if (s->declared)
        print_value(v, s);
      s->printed = s->value;
      s->dirty = FALSE;
    }
    trace_printf(sink, "$end\n");
    v->dumped = TRUE;
    v->n_dirty = 0;
    return;
  }
  gboolean stamped = FALSE;
  for (guint i = 0; i < v->n_dirty; i++) {
    Signal *s = &g_array_index(v->sigs, Signal, v->dirty[i]);
    s->dirty = FALSE;
    if (!visible || !s->declared || s->value == s->printed)
      continue;
    if (!stamped) {
      trace_printf(sink, "#%" G_GUINT64_FORMAT "\n", v->now);
      v->stamp = v->now;
      stamped = TRUE;
    }
    print_value(v, s);
    s->printed = s->value;
  }
  v->n_dirty = 0;
}

static void
set_sig(VcdSink *v, guint sig, gint64 value)
{
  Signal *s = &g_array_index(v->sigs, Signal, sig);
  s->value = value;
  if (!s->dirty) {
    s->dirty = TRUE;
    v->dirty[v->n_dirty++] = sig;
  }
}

static void
vcd_flush(VcdSink *v, guint64 before)
{
  TraceChange c;
  while (trace_queue_pop(&v->q, before, &c)) {
    if (c.cycle != v->now) {
      emit(v);
      if (!v->dumped && v->now < v->base.opts.from && c.cycle > v->base.opts.from) {
        v->now = v->base.opts.from; /* the window opens between two changes */
        emit(v);
      }
      v->now = c.cycle;
    }
    if (c.kind == SIG_INFLIGHT) {
      v->inflight[c.index] += c.value;
      set_sig(v, v->inflight_base + c.index, v->inflight[c.index]);
    } else {
      set_sig(v, c.index, c.value);
    }
  }
}

static void
vcd_issue(TraceSink *sink, const TraceIssue *i)
{
  VcdSink *v = (VcdSink *)sink;
  guint base = v->sched_base + 3 * i->sched;
  v->issued[i->sched]++;
  trace_queue_push(&v->q, i->cycle, SIG_ISSUED, base + 2, (gint64)v->issued[i->sched]);
  if (trace_wants_warp(sink, i->warp))
    trace_queue_push(&v->q, i->cycle, SIG_STATE, v->mask_base + i->warp, i->mask);
  if (trace_wants_warp(sink, i->warp) && i->slot == 0) {
    trace_queue_push(&v->q, i->cycle, SIG_WARP, base, i->warp);
    trace_queue_push(&v->q, i->cycle, SIG_OP, base + 1, i->op);
    trace_queue_push(&v->q, i->cycle + 1, SIG_WARP, base, -1);
    trace_queue_push(&v->q, i->cycle + 1, SIG_OP, base + 1, -1);
  }
  guint busy = v->busy_base + i->sched * sink->info.n_units + i->unit;
  trace_queue_push(&v->q, i->cycle, SIG_BUSY, busy, 1);
  trace_queue_push(&v->q, MAX(i->pipe_free, i->cycle + 1), SIG_BUSY, busy, 0);
  guint kind = i->memory ? 2 : (i->unit == 1 ? 1 : 0);
  if (i->complete > i->cycle) {
    trace_queue_push(&v->q, i->cycle, SIG_INFLIGHT, kind, 1);
    trace_queue_push(&v->q, i->complete, SIG_INFLIGHT, kind, -1);
  }
}

static void
vcd_state(TraceSink *sink, guint64 cycle, guint warp, guint state)
{
  VcdSink *v = (VcdSink *)sink;
  if (trace_wants_warp(sink, warp))
    trace_queue_push(&v->q, cycle, SIG_STATE, v->state_base + warp, state);
}

static void
vcd_counter(TraceSink *sink, guint64 cycle, TraceCounter counter, guint64 value)
{
  VcdSink *v = (VcdSink *)sink;
  trace_queue_push(&v->q, cycle, SIG_COUNTER, v->counter_base + counter, (gint64)value);
}

static void
vcd_advance(TraceSink *sink, guint64 cycle)
{
  vcd_flush((VcdSink *)sink, cycle);
}

static gboolean
vcd_end(TraceSink *sink, guint64 cycles, GError **error)
{
  VcdSink *v = (VcdSink *)sink;
  vcd_flush(v, G_MAXUINT64);
  emit(v);
  guint64 last = MIN(cycles, sink->opts.to);
  if (!v->dumped) {
    v->now = sink->opts.from;
    emit(v);
  }
  if (last > v->stamp)
    trace_printf(sink, "#%" G_GUINT64_FORMAT "\n", last); /* the run ends here */
  return TRUE;
}

static void
vcd_free(TraceSink *sink)
{
  VcdSink *v = (VcdSink *)sink;
  trace_queue_clear(&v->q);
  if (v->sigs)
    g_array_free(v->sigs, TRUE);
  g_free(v->issued);
  g_free(v->dirty);
}

const TraceSinkClass trace_vcd_class = {
    .instance_size = sizeof(VcdSink),
    .begin = vcd_begin,
    .issue = vcd_issue,
    .state = vcd_state,
    .counter = vcd_counter,
    .advance = vcd_advance,
    .end = vcd_end,
    .free = vcd_free,
};
