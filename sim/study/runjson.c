/* The JSON object of one run: what `smsim run --json` prints and what kernel-measurement
 * validation reads metrics from (by dotted path).  Not its printing (cli/run.c). */
#include "runjson.h"

#include <math.h>

#include "model.h"

JsonNode *
sm_run_json(const CfgGpu *gpu, const CfgKernel *k, const SmStats *s)
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
  json_builder_set_member_name(b, "read_bytes_per_cycle");
  json_builder_add_double_value(b, m.read_bytes_per_cycle);
  json_builder_set_member_name(b, "write_bytes_per_cycle");
  json_builder_add_double_value(b, m.write_bytes_per_cycle);
  json_builder_set_member_name(b, "loads");
  json_builder_add_int_value(b, (gint64)s->global_loads);
  json_builder_set_member_name(b, "stores");
  json_builder_add_int_value(b, (gint64)s->global_stores);
  json_builder_set_member_name(b, "async_copies");
  json_builder_add_int_value(b, (gint64)s->async_copies);
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
  json_builder_set_member_name(b, "simt");
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "thread_instructions");
  json_builder_add_int_value(b, (gint64)s->thread_instructions);
  json_builder_set_member_name(b, "efficiency");
  json_builder_add_double_value(b, m.simt_efficiency);
  json_builder_set_member_name(b, "branches");
  json_builder_add_int_value(b, (gint64)s->branches);
  json_builder_set_member_name(b, "divergent_branches");
  json_builder_add_int_value(b, (gint64)s->divergent_branches);
  json_builder_set_member_name(b, "branch_divergence_percent");
  json_builder_add_double_value(b, m.branch_divergence);
  json_builder_set_member_name(b, "control_flow_divergence_percent");
  json_builder_add_double_value(b, m.control_flow_divergence);
  json_builder_end_object(b);
  json_builder_set_member_name(b, "shared_memory");
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "accesses");
  json_builder_add_int_value(b, (gint64)s->shared_accesses);
  json_builder_set_member_name(b, "stores");
  json_builder_add_int_value(b, (gint64)s->shared_stores);
  json_builder_set_member_name(b, "passes_per_access");
  json_builder_add_double_value(b, m.shared_passes_per_access);
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
  return json_builder_get_root(b);
}

char *
sm_json_node_text(JsonNode *root)
{
  g_autoptr(JsonGenerator) gen = json_generator_new();
  json_generator_set_root(gen, root);
  json_generator_set_pretty(gen, TRUE);
  return json_generator_to_data(gen, NULL);
}

char *
sm_json_text(JsonBuilder *builder)
{
  g_autoptr(JsonNode) root = json_builder_get_root(builder);
  return sm_json_node_text(root);
}

gboolean
sm_json_lookup_number(JsonNode *root, const char *path, double *out)
{
  g_auto(GStrv) parts = g_strsplit(path, ".", -1);
  JsonNode *node = root;
  for (guint i = 0; parts[i]; i++) {
    if (node == NULL)
      return FALSE;
    if (JSON_NODE_HOLDS_OBJECT(node)) {
      JsonObject *o = json_node_get_object(node);
      node = json_object_has_member(o, parts[i]) ? json_object_get_member(o, parts[i]) : NULL;
    } else if (JSON_NODE_HOLDS_ARRAY(node)) {
      JsonArray *a = json_node_get_array(node);
      char *end;
      guint64 idx = g_ascii_strtoull(parts[i], &end, 10);
      if (parts[i][0] == '\0' || *end != '\0' || idx >= json_array_get_length(a))
        return FALSE;
      node = json_array_get_element(a, (guint)idx);
    } else {
      return FALSE;
    }
  }
  if (node == NULL || !JSON_NODE_HOLDS_VALUE(node))
    return FALSE;
  GType t = json_node_get_value_type(node);
  if (t == G_TYPE_INT64)
    *out = (double)json_node_get_int(node);
  else if (t == G_TYPE_DOUBLE)
    *out = json_node_get_double(node);
  else
    return FALSE;
  return TRUE;
}
