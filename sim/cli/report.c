/* A run's results as text for people (smsim run).  Not the numbers themselves (stats.c's
 * summary) nor the JSON object (study/runjson.c). */
#include "report.h"

#include <math.h>

#include "../study/model.h"

static void
params_line(const CfgKernel *k, GString *out)
{
  for (guint i = 0; i < k->param_names->len; i++) {
    const char *name = g_ptr_array_index(k->param_names, i);
    g_string_append_printf(out, " %s=%s", name, (const char *)g_hash_table_lookup(k->params, name));
  }
}

void
sm_report_text(const CfgGpu *gpu, const CfgKernel *k, const SmStats *s, GString *out)
{
  SmSummary m;
  sm_summary_compute(s, &m);
  g_string_append_printf(out, "gpu         %s\n", gpu->name);
  g_string_append_printf(out, "kernel      %s:", k->name);
  params_line(k, out);
  g_string_append_printf(out, "\nwarps       %u per SM (%u block%s of %u threads), %u schedulers",
                         k->warps_per_sm, k->blocks_per_sm, k->blocks_per_sm == 1 ? "" : "s",
                         k->threads_per_block, s->schedulers);
  if (s->n_sm > 1)
    g_string_append_printf(out, ", %u SMs", s->n_sm);
  if (k->grid_blocks != k->blocks_per_sm * MAX(s->n_sm, 1u))
    g_string_append_printf(out, "; grid of %u block%s", k->grid_blocks,
                           k->grid_blocks == 1 ? "" : "s");
  g_string_append_c(out, '\n');
  g_string_append_printf(out, "cycles      %" G_GUINT64_FORMAT, s->cycles);
  /* how the loop got there: cycles jumped over, SMs stepped as one */
  const char *sep = " (";
  if (s->fast_forward_cycles) {
    g_string_append_printf(out, "%s%" G_GUINT64_FORMAT " fast-forwarded: a periodic state repeated",
                           sep, s->fast_forward_cycles);
    sep = "; ";
  }
  gboolean alike = s->stepped_sms > 0 && s->stepped_sms < s->n_sm;
  if (alike && s->stepped_sms == 1)
    g_string_append_printf(out, "%sthe %u SMs ran alike: one stepped for all", sep, s->n_sm);
  else if (alike)
    g_string_append_printf(out, "%sthe %u SMs ran as %u kinds: one of each stepped", sep, s->n_sm,
                           s->stepped_sms);
  if (s->fast_forward_cycles || alike)
    g_string_append_c(out, ')');
  g_string_append_c(out, '\n');
  g_string_append_printf(out, "issued      %" G_GUINT64_FORMAT " warp-instructions:", s->issued);
  for (guint u = 0; u < ISA_UNIT_COUNT; u++)
    g_string_append_printf(out, " %s %" G_GUINT64_FORMAT, isa_unit_name(u), s->issued_unit[u]);
  g_string_append_printf(out, "\nIPC/SM      %.4f:", m.ipc_total);
  for (guint u = 0; u < ISA_UNIT_COUNT; u++)
    g_string_append_printf(out, " %s %.4f", isa_unit_name(u), m.ipc_unit[u]);
  SmModelPoint model;
  if (sm_model_mix(gpu, k, &model)) {
    g_string_append_printf(out,
                           "\nmodel       Volkov: %.4f (latency bound %.4f, %s-bound peak %.4f), "
                           "Little's law needs %.1f warps",
                           model.ipc, model.latency_bound, model.bound, model.throughput_bound,
                           model.warps_needed);
    if (model.warps_needed > gpu->limits.max_warps)
      g_string_append_printf(out,
                             "\nnote        Little's law needs %.1f warps, more than the %u this "
                             "GPU holds per SM: warps alone cannot hide the latency ('smsim "
                             "explain littles-law')",
                             model.warps_needed, gpu->limits.max_warps);
  }
  g_string_append_printf(out,
                         "\nmemory      %.4f requests/cycle, %.3f bytes/cycle; %" G_GUINT64_FORMAT
                         " loads, mean load latency %.1f cycles\n",
                         m.requests_per_cycle, m.bytes_per_cycle, s->global_loads,
                         m.mean_load_latency);
  if (s->global_stores)
    g_string_append_printf(
        out,
        "            of which read %.3f, written %.3f bytes/cycle (%" G_GUINT64_FORMAT " stores)\n",
        m.read_bytes_per_cycle, m.write_bytes_per_cycle, s->global_stores);
  if (s->async_copies)
    g_string_append_printf(out, "            %" G_GUINT64_FORMAT " asynchronous copies (LDGSTS)\n",
                           s->async_copies);
  for (guint l = 0; l < s->n_levels; l++)
    if (s->transactions[l])
      g_string_append_printf(out, "  %-9s %.4f requests/cycle, %.3f bytes/cycle\n",
                             gpu->memory.levels[l].name, m.level_requests_per_cycle[l],
                             m.level_bytes_per_cycle[l]);
  /* sectors read for stores that wrote them in part (caches.l2.fill_partial), where any */
  g_autofree char *fills =
      s->fills
          ? g_strdup_printf("; %" G_GUINT64_FORMAT " read for stores written in part", s->fills)
          : g_strdup("");
  if (s->l1_requests + s->l2_requests)
    g_string_append_printf(
        out,
        "caches      L1TEX hit rate %.1f%% of %" G_GUINT64_FORMAT
        " sectors (%.2f a request); LTS hit rate %.1f%% of %" G_GUINT64_FORMAT
        " sectors (%.2f a request; %.1f%% in a far partition); %" G_GUINT64_FORMAT
        " sectors written back%s\n",
        m.l1_hit_rate, s->l1_sectors, m.l1_sectors_per_request, m.l2_hit_rate, s->l2_sectors,
        m.l2_sectors_per_request, m.l2_far_hit_rate, s->write_backs, fills);
  g_string_append_printf(
      out,
      "simt        %" G_GUINT64_FORMAT
      " thread-instructions, efficiency %.1f%%; branch divergence %.1f%% (%" G_GUINT64_FORMAT
      " of %" G_GUINT64_FORMAT " branches), control-flow divergence %.1f%%\n",
      s->thread_instructions, 100 * m.simt_efficiency, m.branch_divergence, s->divergent_branches,
      s->branches, m.control_flow_divergence);
  if (s->shared_accesses)
    g_string_append_printf(out,
                           "shared      %" G_GUINT64_FORMAT " accesses (%" G_GUINT64_FORMAT
                           " stores), %.2f bank passes per access\n",
                           s->shared_accesses, s->shared_stores, m.shared_passes_per_access);
  if (s->clock_warps)
    g_string_append_printf(out,
                           "clock       %" G_GUINT64_FORMAT " cycles between a warp's first and "
                           "last clock read (median of %u warps; %" G_GUINT64_FORMAT
                           " to %" G_GUINT64_FORMAT ")\n",
                           s->clock_median, s->clock_warps, s->clock_min, s->clock_max);
  if (s->clock_n_steps > 1) {
    g_string_append(out, "clock steps");
    for (guint i = 0; i < s->clock_n_steps; i++)
      g_string_append_printf(out, " %" G_GUINT64_FORMAT, s->clock_steps[i]);
    g_string_append(out, " (from each read to the next, median over the warps)\n");
  }
  g_string_append_printf(out, "occupancy   theoretical %.3f, achieved %.3f (of %u warps per SM)\n",
                         m.theoretical_occupancy, m.achieved_occupancy,
                         s->max_warps / MAX(s->n_sm, 1u));
  g_string_append_printf(out, "issue slots");
  for (guint i = 0; i < s->schedulers; i++)
    g_string_append_printf(out, " %.1f%%", 100 * m.issue_utilisation[i]);
  g_string_append_printf(out, " busy; eligible warps %.2f/cycle, active %.2f/cycle\n",
                         m.eligible_per_cycle, m.active_per_cycle);
  g_string_append(out, "warp states  share of resident warp-cycles, warp-cycles per issued "
                       "instruction\n");
  for (guint i = 0; i < SM_STATE_COUNT; i++)
    if (i != SM_STATE_INACTIVE)
      g_string_append_printf(out, "  %-20s %6.2f%% %9.3f\n", sm_state_name(i),
                             100 * m.state_share[i], m.state_per_issue[i]);
  g_string_append_printf(out, "  %-20s %6.2f%% of warp-slot cycles: no warp resident\n",
                         sm_state_name(SM_STATE_INACTIVE), 100 * m.state_share[SM_STATE_INACTIVE]);
}
