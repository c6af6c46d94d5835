/* Stall-state names and the per-SM rates derived from a run's counters.  Not how they are
 * printed (cli/report.c). */
#include "stats.h"

#include <stddef.h>

static const char *const state_names[SM_STATE_COUNT] = {
    "selected",           "not_selected",    "wait",         "long_scoreboard",  "short_scoreboard",
    "math_pipe_throttle", "lg_throttle",     "mio_throttle", "barrier",          "no_instruction",
    "dispatch_stall",     "async_copy_wait", "drain",        "branch_resolving", "membar",
    "inactive",
};

const char *
sm_state_name(SmState state)
{
  g_return_val_if_fail(state < SM_STATE_COUNT, "?");
  return state_names[state];
}

static double
per(guint64 a, guint64 b)
{
  return b ? (double)a / (double)b : 0.0;
}

void
sm_summary_compute(const SmStats *s, SmSummary *o)
{
  *o = (SmSummary){0};
  /* rates are per SM: totals over cycles x SMs */
  guint64 sm_cycles = s->cycles * MAX(s->n_sm, 1u);
  o->ipc_total = per(s->issued, sm_cycles);
  for (guint u = 0; u < ISA_UNIT_COUNT; u++)
    o->ipc_unit[u] = per(s->issued_unit[u], sm_cycles);
  guint64 trans = 0, bytes = 0, written = 0;
  for (guint l = 0; l < s->n_levels; l++) {
    trans += s->transactions[l];
    bytes += s->bytes[l];
    written += s->write_bytes[l];
    o->level_requests_per_cycle[l] = per(s->transactions[l], sm_cycles);
    o->level_bytes_per_cycle[l] = per(s->bytes[l], sm_cycles);
  }
  o->requests_per_cycle = per(trans, sm_cycles);
  o->bytes_per_cycle = per(bytes, sm_cycles);
  o->read_bytes_per_cycle = per(bytes - written, sm_cycles);
  o->write_bytes_per_cycle = per(written, sm_cycles);
  o->simt_efficiency = per(s->thread_instructions, 32 * s->issued);
  o->branch_divergence = 100 * per(s->divergent_branches, s->branches);
  o->control_flow_divergence =
      s->issued ? 100 * per(32 * s->issued - s->thread_instructions, 32 * s->issued) : 0;
  o->shared_passes_per_access =
      per(s->shared_passes, s->shared_accesses * MAX(s->shared_base_passes, 1u));
  o->mean_load_latency = per(s->global_load_latency, s->global_loads);
  o->l1_hit_rate = 100 * per(s->l1_hits, s->l1_sectors);
  o->l1_sectors_per_request = per(s->l1_sectors, s->l1_requests);
  o->l2_hit_rate = 100 * per(s->l2_hits, s->l2_sectors);
  o->l2_far_hit_rate = 100 * per(s->l2_far_hits, s->l2_sectors);
  o->l2_sectors_per_request = per(s->l2_sectors, s->l2_requests);
  o->theoretical_occupancy = per(s->warps, s->max_warps);
  o->achieved_occupancy = per(s->resident_warp_cycles, s->cycles * s->max_warps);
  /* a resident warp's states as shares of resident warp-cycles (as Nsight samples only
   * resident warps); inactive as a share of all warp slots' cycles */
  guint64 slot_cycles = 0;
  for (guint i = 0; i < SM_STATE_COUNT; i++)
    slot_cycles += s->state_cycles[i];
  guint64 resident = slot_cycles - s->state_cycles[SM_STATE_INACTIVE];
  for (guint i = 0; i < SM_STATE_COUNT; i++) {
    o->state_share[i] = per(s->state_cycles[i], i == SM_STATE_INACTIVE ? slot_cycles : resident);
    o->state_per_issue[i] = per(s->state_cycles[i], s->issued);
  }
  for (guint i = 0; i < s->schedulers; i++)
    o->issue_utilisation[i] = per(s->sched_issue_cycles[i], sm_cycles);
  o->eligible_per_cycle =
      per(s->state_cycles[SM_STATE_SELECTED] + s->state_cycles[SM_STATE_NOT_SELECTED], sm_cycles);
  o->active_per_cycle = per(s->resident_warp_cycles, sm_cycles);
}

void
sm_stats_add_scaled(SmStats *to, const SmStats *a, const SmStats *b, guint64 n)
{
  static const SmStats zero;
  if (b == NULL)
    b = &zero;
  /* the counts from issued to async_copies, one run of guint64 (stats.h) */
  const gsize first = offsetof(SmStats, issued);
  const gsize end = offsetof(SmStats, async_copies) + sizeof(guint64);
  G_STATIC_ASSERT(offsetof(SmStats, async_copies) % sizeof(guint64) == 0);
  guint64 *t = (guint64 *)(void *)((char *)to + first);
  const guint64 *x = (const guint64 *)(const void *)((const char *)a + first);
  const guint64 *y = (const guint64 *)(const void *)((const char *)b + first);
  for (gsize i = 0; i < (end - first) / sizeof(guint64); i++)
    t[i] += n * (x[i] - y[i]);
}
