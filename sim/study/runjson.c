/* The JSON object of one run: what `smsim run --json` prints and what kernel-measurement
 * validation reads metrics from (by dotted path).  Not its printing (cli/run.c). */
#include "runjson.h"

#include <math.h>

#include "model.h"

/* One member of the object being built. */
static void
put_double(JsonBuilder *b, const char *name, double v)
{
  json_builder_set_member_name(b, name);
  json_builder_add_double_value(b, v);
}

static void
put_int(JsonBuilder *b, const char *name, guint64 v)
{
  json_builder_set_member_name(b, name);
  json_builder_add_int_value(b, (gint64)v);
}

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
  put_int(b, "warps_per_sm", s->warps / MAX(s->n_sm, 1u));
  put_int(b, "sm_count", MAX(s->n_sm, 1u));
  put_int(b, "grid_blocks", k->grid_blocks);
  put_int(b, "cycles", s->cycles);
  /* at the GPU's clock: what a measuring program times with events */
  /* the kernel's whole time: its warps' cycles and what its launch and end add */
  guint64 elapsed = s->kernel_end + gpu->launch_cycles;
  put_int(b, "elapsed_cycles", elapsed);
  put_double(b, "milliseconds", (double)elapsed / (gpu->clock_mhz * 1e3));
  put_int(b, "fast_forward_cycles", s->fast_forward_cycles);
  put_int(b, "stepped_sms", s->stepped_sms);
  /* timed as measuring programs time it: clock reads of kernels over SASS */
  json_builder_set_member_name(b, "clock");
  json_builder_begin_object(b);
  put_int(b, "warps", s->clock_warps);
  put_int(b, "per_warp_median", s->clock_median);
  put_int(b, "per_warp_min", s->clock_min);
  put_int(b, "per_warp_max", s->clock_max);
  put_int(b, "span", s->clock_span);
  /* from each read to the next, the median over the warps (from the first to the second: 0) */
  json_builder_set_member_name(b, "steps");
  json_builder_begin_array(b);
  for (guint i = 0; i < s->clock_n_steps; i++)
    json_builder_add_int_value(b, (gint64)s->clock_steps[i]);
  json_builder_end_array(b);
  json_builder_end_object(b);
  if (s->caches) { /* in Nsight Compute's words */
    json_builder_set_member_name(b, "caches");
    json_builder_begin_object(b);
    put_double(b, "l1tex_hit_rate", m.l1_hit_rate);
    put_int(b, "l1tex_requests", s->l1_requests);
    put_int(b, "l1tex_sectors", s->l1_sectors);
    put_int(b, "l1tex_sector_hits", s->l1_hits);
    put_double(b, "l1tex_sectors_per_request", m.l1_sectors_per_request);
    put_double(b, "lts_hit_rate", m.l2_hit_rate);
    put_double(b, "lts_far_hit_rate", m.l2_far_hit_rate);
    put_int(b, "lts_requests", s->l2_requests);
    put_int(b, "lts_sectors", s->l2_sectors);
    put_int(b, "lts_sector_hits", s->l2_hits);
    put_double(b, "lts_sectors_per_request", m.l2_sectors_per_request);
    put_int(b, "write_back_sectors", s->write_backs);
    put_int(b, "fill_sectors", s->fills);
    json_builder_end_object(b);
  }
  json_builder_set_member_name(b, "issued");
  json_builder_begin_object(b);
  put_int(b, "total", s->issued);
  for (guint u = 0; u < ISA_UNIT_COUNT; u++) {
    json_builder_set_member_name(b, isa_unit_name(u));
    json_builder_add_int_value(b, (gint64)s->issued_unit[u]);
  }
  json_builder_end_object(b);
  json_builder_set_member_name(b, "ipc");
  json_builder_begin_object(b);
  put_double(b, "total", m.ipc_total);
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
  put_double(b, "requests_per_cycle", m.requests_per_cycle);
  put_double(b, "bytes_per_cycle", m.bytes_per_cycle);
  put_double(b, "read_bytes_per_cycle", m.read_bytes_per_cycle);
  put_double(b, "write_bytes_per_cycle", m.write_bytes_per_cycle);
  /* read and written by all simulated SMs together, per second at the GPU's clock */
  put_double(b, "gigabytes_per_second",
             m.bytes_per_cycle * MAX(s->n_sm, 1u) * gpu->clock_mhz * 1e6 / 1e9);
  put_int(b, "loads", s->global_loads);
  put_int(b, "stores", s->global_stores);
  put_int(b, "async_copies", s->async_copies);
  put_double(b, "mean_load_latency_cycles", m.mean_load_latency);
  json_builder_set_member_name(b, "levels");
  json_builder_begin_object(b);
  for (guint l = 0; l < s->n_levels; l++) {
    json_builder_set_member_name(b, gpu->memory.levels[l].name);
    json_builder_begin_object(b);
    put_double(b, "requests_per_cycle", m.level_requests_per_cycle[l]);
    put_double(b, "bytes_per_cycle", m.level_bytes_per_cycle[l]);
    json_builder_end_object(b);
  }
  json_builder_end_object(b);
  json_builder_end_object(b);
  json_builder_set_member_name(b, "simt");
  json_builder_begin_object(b);
  put_int(b, "thread_instructions", s->thread_instructions);
  put_double(b, "efficiency", m.simt_efficiency);
  put_int(b, "branches", s->branches);
  put_int(b, "divergent_branches", s->divergent_branches);
  put_double(b, "branch_divergence_percent", m.branch_divergence);
  put_double(b, "control_flow_divergence_percent", m.control_flow_divergence);
  json_builder_end_object(b);
  json_builder_set_member_name(b, "shared_memory");
  json_builder_begin_object(b);
  put_int(b, "accesses", s->shared_accesses);
  put_int(b, "stores", s->shared_stores);
  put_double(b, "passes_per_access", m.shared_passes_per_access);
  json_builder_end_object(b);
  json_builder_set_member_name(b, "occupancy");
  json_builder_begin_object(b);
  put_double(b, "theoretical", m.theoretical_occupancy);
  put_double(b, "achieved", m.achieved_occupancy);
  json_builder_end_object(b);
  json_builder_set_member_name(b, "issue_slot_utilisation");
  json_builder_begin_array(b);
  for (guint i = 0; i < s->schedulers; i++)
    json_builder_add_double_value(b, m.issue_utilisation[i]);
  json_builder_end_array(b);
  put_double(b, "eligible_warps_per_cycle", m.eligible_per_cycle);
  put_double(b, "active_warps_per_cycle", m.active_per_cycle);
  json_builder_set_member_name(b, "warp_states");
  json_builder_begin_object(b);
  for (guint i = 0; i < SM_STATE_COUNT; i++) {
    json_builder_set_member_name(b, sm_state_name(i));
    json_builder_begin_object(b);
    put_int(b, "warp_cycles", s->state_cycles[i]);
    put_double(b, "share", m.state_share[i]);
    put_double(b, "per_issued", m.state_per_issue[i]);
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
