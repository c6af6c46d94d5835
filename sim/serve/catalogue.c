/* The lab's catalogue: every GPU and kernel smsim finds by name when the server starts, read
 * once and described as the API lists them (lab.h).  Not the requests (request.c, lab.c). */
#include <math.h>
#include <string.h>

#include "../../config/find.h"
#include "../../config/ranges.h"
#include "../../traces/trace.h"
#include "../study/explain.h"
#include "../study/model.h"
#include "lab-internal.h"

/* The GPU keys a lab page offers as sliders, per memory level and once each. */
static const char *const level_keys[] = {"latency_cycles", "bytes_per_cycle"};
static const char *const gpu_keys[] = {"units.alu.latency_cycles", "shared_memory.latency_cycles"};

static void
entry_free(gpointer p)
{
  SmLabEntry *e = p;
  g_free(e->name);
  g_free(e->path);
  g_free(e->text);
  if (e->json)
    json_node_unref(e->json);
  g_free(e);
}

/* The meaning of GPU key @path ("memory.dram.latency_cycles") from the field tables. */
static const CfgField *
gpu_field(const char *path)
{
  const char *dot = strrchr(path, '.');
  g_autofree char *section = dot ? g_strndup(path, (gsize)(dot - path)) : g_strdup("");
  const char *key = dot ? dot + 1 : path;
  guint n;
  const CfgFieldTable *t = cfg_gpu_field_tables(&n);
  for (guint i = 0; i < n; i++) {
    gboolean match = strcmp(t[i].section, section) == 0 ||
                     (g_str_has_suffix(t[i].section, ".*") &&
                      strncmp(t[i].section, section, strlen(t[i].section) - 1) == 0 &&
                      strchr(section + strlen(t[i].section) - 1, '.') == NULL);
    for (guint f = 0; match && f < t[i].n_fields; f++)
      if (strcmp(t[i].fields[f].key, key) == 0)
        return &t[i].fields[f];
  }
  return NULL;
}

/* One slider's key: its value now and a span around it within what the file accepts. */
static void
add_gpu_key(JsonBuilder *b, const char *path, double value)
{
  const CfgField *f = gpu_field(path);
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "key");
  json_builder_add_string_value(b, path);
  json_builder_set_member_name(b, "value");
  json_builder_add_double_value(b, value);
  json_builder_set_member_name(b, "meaning");
  json_builder_add_string_value(b, f && f->doc ? f->doc : "");
  json_builder_set_member_name(b, "unit");
  json_builder_add_string_value(b, f && f->unit ? f->unit : "");
  /* a quarter to four times the preset's value, in whole steps */
  double lo = MAX(floor(value / 4), f ? MAX(f->min, 1) : 1), hi = MAX(ceil(value * 4), lo + 1);
  if (f && f->max > 0)
    hi = MIN(hi, f->max);
  json_builder_set_member_name(b, "min");
  json_builder_add_double_value(b, lo);
  json_builder_set_member_name(b, "max");
  json_builder_add_double_value(b, hi);
  json_builder_end_object(b);
}

/* What "gpus" lists for a loaded GPU. */
JsonNode *
sm_lab_gpu_json(const char *name, const CfgGpu *gpu)
{
  g_autoptr(JsonBuilder) b = json_builder_new();
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "name");
  json_builder_add_string_value(b, name);
  json_builder_set_member_name(b, "title");
  json_builder_add_string_value(b, gpu->name);
  json_builder_set_member_name(b, "max_warps");
  json_builder_add_int_value(b, gpu->limits.max_warps);
  json_builder_set_member_name(b, "sm_count");
  json_builder_add_int_value(b, MAX(gpu->sm_count, 1u));
  json_builder_set_member_name(b, "clock_mhz");
  json_builder_add_double_value(b, gpu->clock_mhz);
  json_builder_set_member_name(b, "peaks");
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "ipc");
  json_builder_add_double_value(b, sm_model_issue_peak(gpu));
  json_builder_set_member_name(b, "bytes_per_cycle");
  json_builder_begin_object(b);
  for (guint l = 0; l < gpu->memory.n_levels; l++) {
    json_builder_set_member_name(b, gpu->memory.levels[l].name);
    double bw = gpu->memory.levels[l].bytes_per_cycle;
    if (isinf(bw))
      json_builder_add_null_value(b);
    else
      json_builder_add_double_value(b, bw);
  }
  json_builder_end_object(b);
  json_builder_end_object(b);
  json_builder_set_member_name(b, "keys");
  json_builder_begin_array(b);
  for (guint l = 0; l < gpu->memory.n_levels; l++) {
    const CfgMemLevel *lv = &gpu->memory.levels[l];
    for (guint k = 0; k < G_N_ELEMENTS(level_keys); k++) {
      double v = k == 0 ? lv->latency_cycles : lv->bytes_per_cycle;
      if (isinf(v))
        continue;
      g_autofree char *path = g_strdup_printf("memory.%s.%s", lv->name, level_keys[k]);
      add_gpu_key(b, path, v);
    }
  }
  add_gpu_key(b, gpu_keys[0], gpu->units[ISA_UNIT_ALU].latency_cycles);
  if (gpu->smem.latency_cycles)
    add_gpu_key(b, gpu_keys[1], gpu->smem.latency_cycles);
  json_builder_end_array(b);
  json_builder_end_object(b);
  return json_builder_get_root(b);
}

/* What "kernels" lists for a kernel file. */
static JsonNode *
kernel_json(const char *name, const CfgNode *root, GError **error)
{
  g_autoptr(GPtrArray) ranges = cfg_param_ranges(root, error);
  if (ranges == NULL)
    return NULL;
  g_autoptr(JsonBuilder) b = json_builder_new();
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "name");
  json_builder_add_string_value(b, name);
  const CfgNode *desc = cfg_node_get(root, "description");
  json_builder_set_member_name(b, "description");
  json_builder_add_string_value(b, desc && desc->kind == CFG_NODE_SCALAR ? desc->value : "");
  json_builder_set_member_name(b, "sass");
  json_builder_add_boolean_value(b, cfg_node_get(root, "sass") != NULL);
  json_builder_set_member_name(b, "params");
  json_builder_begin_array(b);
  const CfgNode *params = cfg_node_get(root, "params");
  for (guint i = 0; params && params->kind == CFG_NODE_MAP && i < params->keys->len; i++) {
    const CfgNode *k = g_ptr_array_index(params->keys, i);
    const CfgNode *v = g_ptr_array_index(params->items, i);
    g_autofree char *meaning = cfg_node_comment(k);
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "name");
    json_builder_add_string_value(b, k->value);
    json_builder_set_member_name(b, "default");
    json_builder_add_string_value(b, v->kind == CFG_NODE_SCALAR ? v->value : "");
    json_builder_set_member_name(b, "meaning");
    json_builder_add_string_value(b, meaning ? meaning : "");
    for (guint r = 0; r < ranges->len; r++) {
      const CfgParamRange *pr = g_ptr_array_index(ranges, r);
      if (strcmp(pr->name, k->value) != 0)
        continue;
      if (pr->choices) {
        json_builder_set_member_name(b, "choices");
        json_builder_begin_array(b);
        for (guint c = 0; pr->choices[c]; c++)
          json_builder_add_string_value(b, pr->choices[c]);
        json_builder_end_array(b);
      } else {
        json_builder_set_member_name(b, "min");
        json_builder_add_double_value(b, pr->min);
        json_builder_set_member_name(b, "max");
        json_builder_add_double_value(b, pr->max);
        json_builder_set_member_name(b, "step");
        json_builder_add_double_value(b, pr->step > 0 ? pr->step : 1);
      }
    }
    json_builder_end_object(b);
  }
  json_builder_end_array(b);
  json_builder_end_object(b);
  return json_builder_get_root(b);
}

/* Every file of @kind, read, checked and described; files that do not load are left out. */
static GPtrArray *
catalogue(CfgFindKind kind)
{
  GPtrArray *out = g_ptr_array_new_with_free_func(entry_free);
  g_autoptr(GPtrArray) found = cfg_find_all(kind);
  for (guint i = 0; i < found->len; i++) {
    const CfgFound *f = g_ptr_array_index(found, i);
    g_autofree char *text = NULL;
    if (!cfg_read_text(f->path, &text, NULL))
      continue;
    g_autoptr(CfgNode) root = cfg_load_string(f->path, text, NULL);
    if (root == NULL)
      continue;
    JsonNode *json = NULL;
    if (kind == CFG_FIND_GPU) {
      g_autoptr(CfgGpu) gpu = cfg_gpu_load(root, NULL);
      json = gpu ? sm_lab_gpu_json(f->name, gpu) : NULL;
    } else {
      json = kernel_json(f->name, root, NULL);
    }
    if (json == NULL)
      continue;
    SmLabEntry *e = g_new0(SmLabEntry, 1);
    e->name = g_strdup(f->name);
    e->path = g_strdup(f->path);
    e->text = g_steal_pointer(&text);
    e->json = json;
    g_ptr_array_add(out, e);
  }
  return out;
}

SmLab *
sm_lab_new(const SmLabLimits *limits, GError **error)
{
  SmLab *lab = g_new0(SmLab, 1);
  lab->limits = *limits;
  lab->gpus = catalogue(CFG_FIND_GPU);
  lab->kernels = catalogue(CFG_FIND_KERNEL);
  if (lab->gpus->len == 0 || lab->kernels->len == 0) {
    sm_lab_fail(error, SM_LAB_ERROR_NOT_FOUND,
                "serve: no %s found ('smsim list' says where smsim looks; SMSIM_PATH adds folders)",
                lab->gpus->len == 0 ? "GPU" : "kernel");
    sm_lab_free(lab);
    return NULL;
  }
  return lab;
}

void
sm_lab_free(SmLab *lab)
{
  if (lab == NULL)
    return;
  g_ptr_array_unref(lab->gpus);
  g_ptr_array_unref(lab->kernels);
  g_free(lab);
}

const SmLabLimits *
sm_lab_limits(const SmLab *lab)
{
  return &lab->limits;
}

static JsonNode *
list_json(const char *member, GPtrArray *entries)
{
  g_autoptr(JsonBuilder) b = json_builder_new();
  json_builder_begin_object(b);
  json_builder_set_member_name(b, member);
  json_builder_begin_array(b);
  for (guint i = 0; i < entries->len; i++)
    json_builder_add_value(b, json_node_copy(((SmLabEntry *)g_ptr_array_index(entries, i))->json));
  json_builder_end_array(b);
  json_builder_end_object(b);
  return json_builder_get_root(b);
}

JsonNode *
sm_lab_gpus(const SmLab *lab)
{
  return list_json("gpus", lab->gpus);
}

JsonNode *
sm_lab_kernels(const SmLab *lab)
{
  return list_json("kernels", lab->kernels);
}

JsonNode *
sm_lab_explain(const SmLab *lab)
{
  guint n;
  const SmExplainTopic *t = sm_explain_topics(&n);
  g_autoptr(JsonBuilder) b = json_builder_new();
  json_builder_begin_object(b);
  for (guint part = 0; part < 2; part++) {
    json_builder_set_member_name(b, part == 0 ? "states" : "topics");
    json_builder_begin_array(b);
    /* the warp states come first, the report's topics from "cycles" on */
    gboolean states = TRUE;
    for (guint i = 0; i < n; i++) {
      if (strcmp(t[i].topic, "cycles") == 0)
        states = FALSE;
      if (states != (part == 0))
        continue;
      json_builder_begin_object(b);
      json_builder_set_member_name(b, "name");
      json_builder_add_string_value(b, t[i].topic);
      json_builder_set_member_name(b, "summary");
      json_builder_add_string_value(b, t[i].summary);
      json_builder_set_member_name(b, "body");
      json_builder_add_string_value(b, t[i].body);
      if (part == 0) {
        g_autofree char *colour = g_strdup_printf("#%06x", trace_state_colour(t[i].topic));
        json_builder_set_member_name(b, "colour");
        json_builder_add_string_value(b, colour);
      }
      json_builder_end_object(b);
    }
    json_builder_end_array(b);
  }
  json_builder_end_object(b);
  return json_builder_get_root(b);
}

JsonNode *
sm_lab_limits_json(const SmLab *lab)
{
  g_autoptr(JsonBuilder) b = json_builder_new();
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "max_cycles");
  json_builder_add_int_value(b, (gint64)lab->limits.max_cycles);
  json_builder_set_member_name(b, "max_seconds");
  json_builder_add_double_value(b, lab->limits.max_seconds);
  json_builder_set_member_name(b, "max_body_bytes");
  json_builder_add_int_value(b, (gint64)lab->limits.max_body_bytes);
  json_builder_set_member_name(b, "max_yaml_bytes");
  json_builder_add_int_value(b, (gint64)lab->limits.max_yaml_bytes);
  json_builder_set_member_name(b, "max_sweep_points");
  json_builder_add_int_value(b, lab->limits.max_sweep_points);
  json_builder_end_object(b);
  return json_builder_get_root(b);
}

const SmLabEntry *
sm_lab_find(GPtrArray *entries, const char *name)
{
  for (guint i = 0; i < entries->len; i++) {
    const SmLabEntry *e = g_ptr_array_index(entries, i);
    if (strcmp(e->name, name) == 0)
      return e;
  }
  return NULL;
}

/* "no GPU 'h10' (did you mean 'h100'?)" */
gboolean
sm_lab_not_found(GError **error, const char *what, const char *name, GPtrArray *entries)
{
  const char *best = NULL;
  guint best_d = G_MAXUINT;
  for (guint i = 0; i < entries->len; i++)
    cfg_nearer(name, ((SmLabEntry *)g_ptr_array_index(entries, i))->name, &best, &best_d);
  if (best)
    return sm_lab_fail(error, SM_LAB_ERROR_NOT_FOUND, "no %s '%s' (did you mean '%s'?)", what, name,
                       best);
  return sm_lab_fail(error, SM_LAB_ERROR_NOT_FOUND, "no %s '%s' (the server has %u: GET /api/%ss)",
                     what, name, entries->len, what);
}
