/* A run's results as text for people and JSON for programs (smsim run).  Not the numbers
 * themselves: they come from stats.c's summary. */
#include "report.h"

#include <json-glib/json-glib.h>
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
  g_string_append_printf(out, "\nwarps       %u per SM (%u blocks of %u threads), %u schedulers",
                         k->warps_per_sm, k->blocks_per_sm, k->threads_per_block, s->schedulers);
  if (s->n_sm > 1)
    g_string_append_printf(out, ", %u SMs", s->n_sm);
  if (k->grid_blocks != k->blocks_per_sm * MAX(s->n_sm, 1u))
    g_string_append_printf(out, "; grid of %u blocks", k->grid_blocks);
  g_string_append_c(out, '\n');
  g_string_append_printf(out, "cycles      %" G_GUINT64_FORMAT "\n", s->cycles);
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
  }
  g_string_append_printf(out,
                         "\nmemory      %.4f requests/cycle, %.3f bytes/cycle; %" G_GUINT64_FORMAT
                         " loads, mean load latency %.1f cycles\n",
                         m.requests_per_cycle, m.bytes_per_cycle, s->global_loads,
                         m.mean_load_latency);
  for (guint l = 0; l < s->n_levels; l++)
    if (s->transactions[l])
      g_string_append_printf(out, "  %-9s %.4f requests/cycle, %.3f bytes/cycle\n",
                             gpu->memory.levels[l].name, m.level_requests_per_cycle[l],
                             m.level_bytes_per_cycle[l]);
  g_string_append_printf(out, "occupancy   theoretical %.3f, achieved %.3f (of %u warps per SM)\n",
                         m.theoretical_occupancy, m.achieved_occupancy,
                         s->max_warps / MAX(s->n_sm, 1u));
  g_string_append_printf(out, "issue slots");
  for (guint i = 0; i < s->schedulers; i++)
    g_string_append_printf(out, " %.1f%%", 100 * m.issue_utilisation[i]);
  g_string_append_printf(out, " busy; eligible warps %.2f/cycle, active %.2f/cycle\n",
                         m.eligible_per_cycle, m.active_per_cycle);
  g_string_append(out, "warp states  share of warp-cycles, warp-cycles per issued instruction\n");
  for (guint i = 0; i < SM_STATE_COUNT; i++)
    g_string_append_printf(out, "  %-20s %6.2f%% %9.3f\n", sm_state_name(i), 100 * m.state_share[i],
                           m.state_per_issue[i]);
}

char *
sm_report_json(const CfgGpu *gpu, const CfgKernel *k, const SmStats *s)
{
  SmSummary m;
  sm_summary_compute(s, &m);
  g_autoptr(JsonBuilder) b = json_builder_new();
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "gpu");
  json_builder_add_string_value(b, gpu->name);
  json_builder_set_member_name(b, "kernel");
  json_builder_add_string_value(b, k->name);
  json_builder_set_member_name(b, "params");
  json_builder_begin_object(b);
  for (guint i = 0; i < k->param_names->len; i++) {
    const char *name = g_ptr_array_index(k->param_names, i);
    json_builder_set_member_name(b, name);
    json_builder_add_string_value(b, g_hash_table_lookup(k->params, name));
  }
  json_builder_end_object(b);
  json_builder_set_member_name(b, "warps_per_sm");
  json_builder_add_int_value(b, s->warps / MAX(s->n_sm, 1u));
  json_builder_set_member_name(b, "sm_count");
  json_builder_add_int_value(b, MAX(s->n_sm, 1u));
  json_builder_set_member_name(b, "grid_blocks");
  json_builder_add_int_value(b, k->grid_blocks);
  json_builder_set_member_name(b, "cycles");
  json_builder_add_int_value(b, (gint64)s->cycles);
  json_builder_set_member_name(b, "issued");
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "total");
  json_builder_add_int_value(b, (gint64)s->issued);
  for (guint u = 0; u < ISA_UNIT_COUNT; u++) {
    json_builder_set_member_name(b, isa_unit_name(u));
    json_builder_add_int_value(b, (gint64)s->issued_unit[u]);
  }
  json_builder_end_object(b);
  json_builder_set_member_name(b, "ipc");
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "total");
  json_builder_add_double_value(b, m.ipc_total);
  for (guint u = 0; u < ISA_UNIT_COUNT; u++) {
    json_builder_set_member_name(b, isa_unit_name(u));
    json_builder_add_double_value(b, m.ipc_unit[u]);
  }
  json_builder_end_object(b);
  SmModelPoint model;
  if (sm_model_mix(gpu, k, &model)) {
    json_builder_set_member_name(b, "model");
    json_builder_begin_object(b);
    const struct {
      const char *name;
      double v;
    } fields[] = {{"ipc", model.ipc},
                  {"latency_bound", model.latency_bound},
                  {"throughput_bound", model.throughput_bound},
                  {"warps_needed", model.warps_needed},
                  {"cuda_guide_warps", model.cuda_guide}};
    for (guint i = 0; i < G_N_ELEMENTS(fields); i++) {
      json_builder_set_member_name(b, fields[i].name);
      if (isfinite(fields[i].v))
        json_builder_add_double_value(b, fields[i].v);
      else
        json_builder_add_null_value(b);
    }
    json_builder_set_member_name(b, "bound");
    json_builder_add_string_value(b, model.bound);
    json_builder_end_object(b);
  }
  json_builder_set_member_name(b, "memory");
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "requests_per_cycle");
  json_builder_add_double_value(b, m.requests_per_cycle);
  json_builder_set_member_name(b, "bytes_per_cycle");
  json_builder_add_double_value(b, m.bytes_per_cycle);
  json_builder_set_member_name(b, "loads");
  json_builder_add_int_value(b, (gint64)s->global_loads);
  json_builder_set_member_name(b, "mean_load_latency_cycles");
  json_builder_add_double_value(b, m.mean_load_latency);
  json_builder_set_member_name(b, "levels");
  json_builder_begin_object(b);
  for (guint l = 0; l < s->n_levels; l++) {
    json_builder_set_member_name(b, gpu->memory.levels[l].name);
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "requests_per_cycle");
    json_builder_add_double_value(b, m.level_requests_per_cycle[l]);
    json_builder_set_member_name(b, "bytes_per_cycle");
    json_builder_add_double_value(b, m.level_bytes_per_cycle[l]);
    json_builder_end_object(b);
  }
  json_builder_end_object(b);
  json_builder_end_object(b);
  json_builder_set_member_name(b, "occupancy");
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "theoretical");
  json_builder_add_double_value(b, m.theoretical_occupancy);
  json_builder_set_member_name(b, "achieved");
  json_builder_add_double_value(b, m.achieved_occupancy);
  json_builder_end_object(b);
  json_builder_set_member_name(b, "issue_slot_utilisation");
  json_builder_begin_array(b);
  for (guint i = 0; i < s->schedulers; i++)
    json_builder_add_double_value(b, m.issue_utilisation[i]);
  json_builder_end_array(b);
  json_builder_set_member_name(b, "eligible_warps_per_cycle");
  json_builder_add_double_value(b, m.eligible_per_cycle);
  json_builder_set_member_name(b, "active_warps_per_cycle");
  json_builder_add_double_value(b, m.active_per_cycle);
  json_builder_set_member_name(b, "warp_states");
  json_builder_begin_object(b);
  for (guint i = 0; i < SM_STATE_COUNT; i++) {
    json_builder_set_member_name(b, sm_state_name(i));
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "warp_cycles");
    json_builder_add_int_value(b, (gint64)s->state_cycles[i]);
    json_builder_set_member_name(b, "share");
    json_builder_add_double_value(b, m.state_share[i]);
    json_builder_set_member_name(b, "per_issued");
    json_builder_add_double_value(b, m.state_per_issue[i]);
    json_builder_end_object(b);
  }
  json_builder_end_object(b);
  json_builder_end_object(b);
  return sm_json_text(b);
}

char *
sm_json_text(JsonBuilder *builder)
{
  g_autoptr(JsonGenerator) gen = json_generator_new();
  g_autoptr(JsonNode) root = json_builder_get_root(builder);
  json_generator_set_root(gen, root);
  json_generator_set_pretty(gen, TRUE);
  return json_generator_to_data(gen, NULL);
}
