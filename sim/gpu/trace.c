/* Records of a running SM for a trace sink: warp states, issues, counters, and the run's
 * description.  Only called when a trace is attached; no simulated result depends on it. */
#include "machine.h"

void
sm_trace_state(SmGpu *sm, SmWarp *w, SmState state, guint64 at)
{
  if (sm->trace->klass->state)
    sm->trace->klass->state(sm->trace, at, (guint)(w - sm->warps), state);
}

void
sm_trace_issue(SmGpu *sm, SmScheduler *s, SmWarp *w, guint64 t, guint slot, guint64 complete,
               guint passes)
{
  const IsaInsn *insn = &sm->prog->insns[w->pc];
  const SmInsnInfo *ii = &sm->info[w->pc];
  TraceIssue rec = {.cycle = t,
                    .complete = complete,
                    .pipe_free = sm_ticks_ceil_cycle(s->pipe_free[ii->pipe]),
                    .sched = (guint)(s - sm->sched),
                    .slot = slot,
                    .warp = (guint)(w - sm->warps),
                    .pc = w->pc,
                    .op = sm->sass ? w->pc : insn->op, /* SASS: its opcode (sass.c) */
                    .unit = ii->unit,
                    .memory = ii->space != ISA_SPACE_NONE,
                    .passes = passes,
                    .mask = w->active,
                    .l1_hits = sm->outcome.l1_hits,
                    .l2_hits = sm->outcome.l2_hits,
                    .misses = sm->outcome.misses};
  sm->outcome = (SmCacheOutcome){0};
  sm->trace->klass->issue(sm->trace, &rec);
}

void
sm_trace_counters(SmGpu *sm, guint64 t)
{
  guint64 bytes = 0;
  for (guint l = 0; l < sm->mem.n_levels; l++)
    bytes += sm->mem.levels[l].bytes;
  const guint64 now[TRACE_COUNTER_COUNT] = {sm->mem.outstanding, sm->mem.queued, bytes};
  for (guint c = 0; c < TRACE_COUNTER_COUNT; c++) {
    if (now[c] != sm->traced_counter[c]) {
      sm->traced_counter[c] = now[c];
      if (sm->trace->klass->counter)
        sm->trace->klass->counter(sm->trace, t, c, now[c]);
    }
  }
}

gboolean
sm_machine_attach_trace(SmGpu *sm, TraceSink *sink, GError **error)
{
  static const char *unit_names[ISA_UNIT_COUNT];
  static const char *state_names[SM_STATE_COUNT];
  static const char *op_names[ISA_OP_COUNT];
  for (guint u = 0; u < ISA_UNIT_COUNT; u++)
    unit_names[u] = isa_unit_name(u);
  for (guint i = 0; i < SM_STATE_COUNT; i++)
    state_names[i] = sm_state_name(i);
  for (guint i = 0; i < ISA_OP_COUNT; i++)
    op_names[i] = isa_op_info(i)->mnemonic;
  g_free(sm->warp_exists);
  sm->warp_exists = g_new0(guint8, sm->n_warps);
  g_free(sm->warp_state);
  sm->warp_state = g_new0(guint8, sm->n_warps);
  for (guint i = 0; i < sm->n_warps; i++) {
    sm->warp_exists[i] = sm->warps[i].exists;
    sm->warp_state[i] = sm->warps[i].state;
  }
  sink->info = (TraceInfo){.n_warps = sm->n_warps,
                           .warp_exists = sm->warp_exists,
                           .warp_state = sm->warp_state,
                           .n_sched = sm->n_sched,
                           .issue_width = sm->issue_width,
                           .n_sm = sm->n_sm,
                           .warp_slots_per_sm = sm->warp_slots_per_sm,
                           .n_states = SM_STATE_COUNT,
                           .state_names = state_names,
                           .n_units = ISA_UNIT_COUNT,
                           .unit_names = unit_names,
                           .op_names = op_names,
                           .n_ops = ISA_OP_COUNT,
                           .gpu_name = sm->cfg->name,
                           .kernel_name = sm->kernel->name,
                           .caches = sm_uses_caches(sm)};
  if (sm->sass)
    sink->info.op_names = sm_sass_op_names(sm, &sink->info.n_ops);
  if (!sink->klass->begin(sink, &sink->info, error))
    return FALSE;
  sm->trace = sink;
  sm->mem.count_queued = TRUE;
  return TRUE;
}
