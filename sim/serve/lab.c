/* The lab's catalogue and its answers: runs and sweeps as JSON (lab.h).  Not HTTP (server.c). */
#include "lab.h"

#include <math.h>
#include <string.h>

#include "../../config/find.h"
#include "../../config/ranges.h"
#include "../sm.h"
#include "../study/batch.h"
#include "../study/explain.h"
#include "../study/model.h"
#include "../study/runjson.h"
#include "../study/sweep.h"

G_DEFINE_QUARK(smsim - lab - error - quark, sm_lab_error)

/* A GPU or kernel file of the catalogue, read once. */
typedef struct {
  char *name, *path, *text;
  JsonNode *json; /* what "gpus" or "kernels" lists for it */
} Entry;

struct SmLab {
  SmLabLimits limits;
  GPtrArray *gpus, *kernels; /* Entry */
};

/* The GPU keys a lab page offers as sliders, per memory level and once each. */
static const char *const level_keys[] = {"latency_cycles", "bytes_per_cycle"};
static const char *const gpu_keys[] = {"units.alu.latency_cycles", "shared_memory.latency_cycles"};

static void
entry_free(gpointer p)
{
  Entry *e = p;
  g_free(e->name);
  g_free(e->path);
  g_free(e->text);
  if (e->json)
    json_node_unref(e->json);
  g_free(e);
}

static gboolean fail(GError **error, SmLabErrorCode code, const char *fmt, ...) G_GNUC_PRINTF(3, 4);

static gboolean
fail(GError **error, SmLabErrorCode code, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  g_autofree char *msg = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  g_set_error_literal(error, SM_LAB_ERROR, code, msg);
  return FALSE;
}

/* A load error from config/: a bad request, with its own words ("pasted.yaml:3:5: ..."). */
static gboolean
bad_config(GError **error, GError *local)
{
  gboolean r = fail(error, SM_LAB_ERROR_BAD_REQUEST, "%s", local->message);
  g_error_free(local);
  return r;
}

/* The same, naming the catalogue's files by name ("mix.yaml:45:12: ..."), not by where this
 * server keeps them. */
static gboolean
bad_file(GError **error, GError *local, const char *path, const char *name)
{
  if (path && g_str_has_prefix(local->message, path)) {
    char *msg = g_strdup_printf("%s.yaml%s", name, local->message + strlen(path));
    g_free(local->message);
    local->message = msg;
  }
  return bad_config(error, local);
}

/* ---- the catalogue ---- */

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
static JsonNode *
gpu_json(const char *name, const CfgGpu *gpu)
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
      json = gpu ? gpu_json(f->name, gpu) : NULL;
    } else {
      json = kernel_json(f->name, root, NULL);
    }
    if (json == NULL)
      continue;
    Entry *e = g_new0(Entry, 1);
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
    fail(error, SM_LAB_ERROR_NOT_FOUND,
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
    json_builder_add_value(b, json_node_copy(((Entry *)g_ptr_array_index(entries, i))->json));
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

static const Entry *
find_entry(GPtrArray *entries, const char *name)
{
  for (guint i = 0; i < entries->len; i++) {
    const Entry *e = g_ptr_array_index(entries, i);
    if (strcmp(e->name, name) == 0)
      return e;
  }
  return NULL;
}

/* "no GPU 'h10' (did you mean 'h100'?)" */
static gboolean
not_found(GError **error, const char *what, const char *name, GPtrArray *entries)
{
  const char *best = NULL;
  guint best_d = G_MAXUINT;
  for (guint i = 0; i < entries->len; i++)
    cfg_nearer(name, ((Entry *)g_ptr_array_index(entries, i))->name, &best, &best_d);
  if (best)
    return fail(error, SM_LAB_ERROR_NOT_FOUND, "no %s '%s' (did you mean '%s'?)", what, name, best);
  return fail(error, SM_LAB_ERROR_NOT_FOUND, "no %s '%s' (the server has %u: GET /api/%ss)", what,
              name, entries->len, what);
}

/* ---- requests ---- */

typedef struct {
  CfgRunSource src; /* borrowed texts and names: never cleared */
  char *pasted;     /* the pasted GPU's text, owned */
  GPtrArray *sets;  /* "KEY=VALUE", NULL-terminated */
  gboolean picture, mark;
  char *warps;    /* the sweep's warps as --vary takes them */
  char *vary_key; /* the sweep's other key, or NULL */
  char *vary_values;
  const char *gpu_name;    /* the catalogue's name, or "pasted" */
  const char *kernel_name; /* the catalogue's name */
} Request;

static void
request_clear(Request *r)
{
  g_free(r->pasted);
  if (r->sets)
    g_ptr_array_unref(r->sets);
  g_free(r->warps);
  g_free(r->vary_key);
  g_free(r->vary_values);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(Request, request_clear)

/* A JSON scalar as --set takes it: a string as it is, a number in the shortest exact form. */
static char *
scalar_text(JsonNode *node)
{
  if (!JSON_NODE_HOLDS_VALUE(node))
    return NULL;
  GType t = json_node_get_value_type(node);
  if (t == G_TYPE_STRING)
    return g_strdup(json_node_get_string(node));
  if (t == G_TYPE_INT64)
    return g_strdup_printf("%" G_GINT64_FORMAT, json_node_get_int(node));
  if (t == G_TYPE_DOUBLE) {
    char buf[G_ASCII_DTOSTR_BUF_SIZE];
    return g_strdup(g_ascii_dtostr(buf, sizeof buf, json_node_get_double(node)));
  }
  if (t == G_TYPE_BOOLEAN)
    return g_strdup(json_node_get_boolean(node) ? "1" : "0");
  return NULL;
}

/* A member's value fit to follow "KEY=" on a command line. */
static gboolean
check_value(const char *key, const char *value, GError **error)
{
  if (value == NULL || value[0] == '\0')
    return fail(error, SM_LAB_ERROR_BAD_REQUEST, "set.%s: a value is a string or a number", key);
  if (strlen(value) > 256)
    return fail(error, SM_LAB_ERROR_BAD_REQUEST, "set.%s: a value is at most 256 characters", key);
  for (const char *c = value; *c; c++)
    if ((guchar)*c < 0x20)
      return fail(error, SM_LAB_ERROR_BAD_REQUEST, "set.%s: a value is one line", key);
  return TRUE;
}

/* "set": parameters of the kernel and GPU keys, never the kernel file's other keys. */
static gboolean
read_sets(JsonObject *set, const CfgNode *kernel_root, Request *r, GError **error)
{
  const CfgNode *params = cfg_node_get(kernel_root, "params");
  g_autoptr(GList) members = json_object_get_members(set);
  for (GList *m = members; m; m = m->next) {
    const char *key = m->data;
    if (key[0] == '\0' || strlen(key) > 128 || strchr(key, '='))
      return fail(error, SM_LAB_ERROR_BAD_REQUEST, "set: '%s' is not a key", key);
    gboolean param = params && params->kind == CFG_NODE_MAP && cfg_node_get(params, key);
    if (!param && cfg_kernel_field(key))
      return fail(error, SM_LAB_ERROR_BAD_REQUEST,
                  "set.%s: the lab sets the kernel's parameters and GPU keys only, not the "
                  "kernel file's '%s'",
                  key, key);
    g_autofree char *value = scalar_text(json_object_get_member(set, key));
    if (!check_value(key, value, error))
      return FALSE;
    g_ptr_array_add(r->sets, g_strdup_printf("%s=%s", key, value));
  }
  return TRUE;
}

/* A list of values as --vary takes it ("1,2,4"), or the text of a range ("1:64"). */
static char *
values_text(JsonNode *node, const char *what, GError **error)
{
  if (JSON_NODE_HOLDS_VALUE(node) && json_node_get_value_type(node) == G_TYPE_STRING) {
    const char *s = json_node_get_string(node);
    if (!check_value(what, s, error))
      return NULL;
    return g_strdup(s);
  }
  if (!JSON_NODE_HOLDS_ARRAY(node) || json_array_get_length(json_node_get_array(node)) == 0) {
    fail(error, SM_LAB_ERROR_BAD_REQUEST, "%s: a list of values or \"A:B[:STEP]\"", what);
    return NULL;
  }
  JsonArray *a = json_node_get_array(node);
  GString *out = g_string_new(NULL);
  for (guint i = 0; i < json_array_get_length(a); i++) {
    g_autofree char *v = scalar_text(json_array_get_element(a, i));
    if (v == NULL || v[0] == '\0' || strchr(v, ',') || strchr(v, '=')) {
      fail(error, SM_LAB_ERROR_BAD_REQUEST, "%s: item %u is not a value", what, i + 1);
      g_string_free(out, TRUE);
      return NULL;
    }
    g_string_append_printf(out, "%s%s", i ? "," : "", v);
  }
  if (out->len > 16384) {
    fail(error, SM_LAB_ERROR_TOO_LARGE, "%s: too many values", what);
    g_string_free(out, TRUE);
    return NULL;
  }
  return g_string_free(out, FALSE);
}

/* Parses a request body of @kind ("run", "sweep", "gpu") into @r. */
static gboolean
read_request(const SmLab *lab, const char *kind, const char *body, gsize length, Request *r,
             GError **error)
{
  memset(r, 0, sizeof *r);
  r->picture = TRUE;
  r->sets = g_ptr_array_new_with_free_func(g_free);
  if (length > lab->limits.max_body_bytes)
    return fail(error, SM_LAB_ERROR_TOO_LARGE, "the request is %zu bytes; at most %zu", length,
                lab->limits.max_body_bytes);
  g_autoptr(JsonParser) parser = json_parser_new();
  GError *local = NULL;
  if (!json_parser_load_from_data(parser, body, (gssize)length, &local)) {
    fail(error, SM_LAB_ERROR_BAD_REQUEST, "the request is not JSON: %s", local->message);
    g_error_free(local);
    return FALSE;
  }
  JsonNode *root = json_parser_get_root(parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT(root))
    return fail(error, SM_LAB_ERROR_BAD_REQUEST, "the request is a JSON object");
  JsonObject *o = json_node_get_object(root);
  static const char *const run_members[] = {"gpu", "gpu_yaml", "kernel", "set", "picture", NULL};
  static const char *const sweep_members[] = {"gpu",   "gpu_yaml", "kernel", "set",
                                              "warps", "vary",     "mark",   NULL};
  static const char *const gpu_members[] = {"gpu_yaml", NULL};
  const char *const *known = strcmp(kind, "run") == 0     ? run_members
                             : strcmp(kind, "sweep") == 0 ? sweep_members
                                                          : gpu_members;
  g_autoptr(GList) members = json_object_get_members(o);
  for (GList *m = members; m; m = m->next)
    if (!g_strv_contains(known, m->data)) {
      g_autofree char *list = g_strjoinv(", ", (char **)known);
      return fail(error, SM_LAB_ERROR_BAD_REQUEST,
                  "unknown member '%s' in a %s request (known: %s)", (char *)m->data, kind, list);
    }
  /* the GPU: a name, or pasted YAML */
  JsonNode *gpu = json_object_get_member(o, "gpu"), *yaml = json_object_get_member(o, "gpu_yaml");
  if ((gpu != NULL) == (yaml != NULL))
    return fail(error, SM_LAB_ERROR_BAD_REQUEST,
                strcmp(kind, "gpu") == 0
                    ? "a gpu request has gpu_yaml"
                    : "give either gpu (a name) or gpu_yaml (a GPU file's text)");
  if (yaml) {
    const char *text =
        JSON_NODE_HOLDS_VALUE(yaml) && json_node_get_value_type(yaml) == G_TYPE_STRING
            ? json_node_get_string(yaml)
            : NULL;
    if (text == NULL)
      return fail(error, SM_LAB_ERROR_BAD_REQUEST, "gpu_yaml is the text of a GPU file");
    if (strlen(text) > lab->limits.max_yaml_bytes)
      return fail(error, SM_LAB_ERROR_TOO_LARGE, "gpu_yaml is %zu bytes; at most %zu", strlen(text),
                  lab->limits.max_yaml_bytes);
    r->pasted = g_strdup(text);
    r->src.gpu_path = (char *)"pasted.yaml";
    r->src.gpu_text = r->pasted;
    r->gpu_name = "pasted";
  } else {
    const char *name = JSON_NODE_HOLDS_VALUE(gpu) && json_node_get_value_type(gpu) == G_TYPE_STRING
                           ? json_node_get_string(gpu)
                           : NULL;
    if (name == NULL)
      return fail(error, SM_LAB_ERROR_BAD_REQUEST, "gpu is a GPU's name (GET /api/gpus)");
    const Entry *e = find_entry(lab->gpus, name);
    if (e == NULL)
      return not_found(error, "gpu", name, lab->gpus);
    r->src.gpu_path = e->path;
    r->src.gpu_text = e->text;
    r->gpu_name = e->name;
  }
  if (strcmp(kind, "gpu") == 0)
    return TRUE;
  /* the kernel, by name */
  JsonNode *kernel = json_object_get_member(o, "kernel");
  const char *kname =
      kernel && JSON_NODE_HOLDS_VALUE(kernel) && json_node_get_value_type(kernel) == G_TYPE_STRING
          ? json_node_get_string(kernel)
          : NULL;
  if (kname == NULL)
    return fail(error, SM_LAB_ERROR_BAD_REQUEST, "kernel is a kernel's name (GET /api/kernels)");
  const Entry *k = find_entry(lab->kernels, kname);
  if (k == NULL)
    return not_found(error, "kernel", kname, lab->kernels);
  r->src.kernel_path = k->path;
  r->src.kernel_text = k->text;
  r->kernel_name = k->name;
  g_autoptr(CfgNode) kernel_root = cfg_load_string(k->path, k->text, NULL);
  JsonNode *set = json_object_get_member(o, "set");
  if (set && !JSON_NODE_HOLDS_OBJECT(set))
    return fail(error, SM_LAB_ERROR_BAD_REQUEST, "set is an object of KEY: VALUE");
  if (set && !read_sets(json_node_get_object(set), kernel_root, r, error))
    return FALSE;
  g_ptr_array_add(r->sets, NULL);
  for (guint i = 0; i < 2; i++) {
    const char *name = i == 0 ? "picture" : "mark";
    JsonNode *flag = json_object_get_member(o, name);
    if (flag == NULL)
      continue;
    if (!JSON_NODE_HOLDS_VALUE(flag) || json_node_get_value_type(flag) != G_TYPE_BOOLEAN)
      return fail(error, SM_LAB_ERROR_BAD_REQUEST, "%s is true or false", name);
    *(i == 0 ? &r->picture : &r->mark) = json_node_get_boolean(flag);
  }
  JsonNode *warps = json_object_get_member(o, "warps");
  if (warps && !(r->warps = values_text(warps, "warps", error)))
    return FALSE;
  JsonNode *vary = json_object_get_member(o, "vary");
  if (vary) {
    JsonObject *v = JSON_NODE_HOLDS_OBJECT(vary) ? json_node_get_object(vary) : NULL;
    JsonNode *key = v ? json_object_get_member(v, "key") : NULL;
    JsonNode *values = v ? json_object_get_member(v, "values") : NULL;
    if (!key || !values || json_object_get_size(v) != 2 || !JSON_NODE_HOLDS_VALUE(key) ||
        json_node_get_value_type(key) != G_TYPE_STRING)
      return fail(error, SM_LAB_ERROR_BAD_REQUEST, "vary is {\"key\": KEY, \"values\": [V, ...]}");
    const char *kk = json_node_get_string(key);
    const CfgNode *params = cfg_node_get(kernel_root, "params");
    gboolean param = params && params->kind == CFG_NODE_MAP && cfg_node_get(params, kk);
    if (!param && cfg_kernel_field(kk))
      return fail(error, SM_LAB_ERROR_BAD_REQUEST,
                  "vary.key: the lab varies the kernel's parameters and GPU keys only, not '%s'",
                  kk);
    if (strcmp(kk, "warps_per_sm") == 0)
      return fail(error, SM_LAB_ERROR_BAD_REQUEST,
                  "vary.key: warps are the sweep's own axis (warps); vary another key");
    if (!check_value("vary.key", kk, error) || strchr(kk, '=') ||
        !(r->vary_values = values_text(values, "vary.values", error)))
      return FALSE;
    r->vary_key = g_strdup(kk);
  }
  return TRUE;
}

/* The run's GPU and kernel, loaded and checked as the command line does. */
static gboolean
load(const Request *r, const char *const *vary, CfgGpu **gpu, CfgKernel **kernel, GError **error)
{
  GError *local = NULL;
  if (!cfg_load_run_text(&r->src, (const char *const *)r->sets->pdata, vary, gpu, kernel, &local)) {
    gboolean kernel_file = g_str_has_prefix(local->message, r->src.kernel_path);
    return bad_file(error, local, kernel_file ? r->src.kernel_path : r->src.gpu_path,
                    kernel_file ? r->kernel_name : r->gpu_name);
  }
  return TRUE;
}

JsonNode *
sm_lab_gpu(const SmLab *lab, const char *body, gsize length, GError **error)
{
  g_auto(Request) r = {0};
  if (!read_request(lab, "gpu", body, length, &r, error))
    return NULL;
  GError *local = NULL;
  g_autoptr(CfgNode) root = cfg_load_string(r.src.gpu_path, r.src.gpu_text, &local);
  if (root == NULL)
    return bad_config(error, local), NULL;
  g_autoptr(CfgGpu) gpu = cfg_gpu_load(root, &local);
  if (gpu == NULL)
    return bad_config(error, local), NULL;
  return gpu_json("pasted", gpu);
}

/* Runs @sm within the lab's bounds; FALSE with an error saying which stopped it. */
static gboolean
run_bounded(const SmLab *lab, SmGpu *sm, const SmRunBounds *bounds, const char *what,
            GError **error)
{
  switch (sm_run_bounded(sm, lab->limits.max_cycles, bounds)) {
  case SM_RUN_FINISHED:
    if (sm_error(sm))
      return fail(error, SM_LAB_ERROR_BAD_REQUEST, "%s: %s", what, sm_error(sm)->message);
    return TRUE;
  case SM_RUN_MAX_CYCLES:
    return fail(error, SM_LAB_ERROR_LIMIT,
                "%s reached %" G_GUINT64_FORMAT
                " simulated cycles unfinished, the most this server runs (smsim serve "
                "--max-cycles); ask for less work (fewer groups or iterations)",
                what, lab->limits.max_cycles);
  case SM_RUN_DEADLINE:
    return fail(error, SM_LAB_ERROR_LIMIT,
                "%s took more than %g s of the server's time (at cycle %" G_GUINT64_FORMAT
                "), the most it gives a request (smsim serve --max-seconds); ask for less work",
                what, lab->limits.max_seconds, sm_now(sm));
  case SM_RUN_CANCELLED:
  case SM_RUN_STOPPED:
    break;
  }
  return fail(error, SM_LAB_ERROR_CANCELLED, "%s: cancelled", what);
}

static SmRunBounds
bounds_from_now(const SmLab *lab, const gint *cancel)
{
  return (SmRunBounds){.cancel = cancel,
                       .deadline = g_get_monotonic_time() +
                                   (gint64)(lab->limits.max_seconds * G_USEC_PER_SEC)};
}

/* One number against its peak: {"value", "peak", "share"} (peak and share null where the GPU
 * sets none). */
static void
put_against(JsonBuilder *b, const char *member, double value, double peak)
{
  json_builder_set_member_name(b, member);
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "value");
  json_builder_add_double_value(b, value);
  json_builder_set_member_name(b, "peak");
  if (isfinite(peak) && peak > 0)
    json_builder_add_double_value(b, peak);
  else
    json_builder_add_null_value(b);
  json_builder_set_member_name(b, "share");
  if (isfinite(peak) && peak > 0)
    json_builder_add_double_value(b, value / peak);
  else
    json_builder_add_null_value(b);
  json_builder_end_object(b);
}

/* The run's IPC, issue slots and each memory level's bytes a cycle against the GPU's peaks. */
static void
put_peaks(JsonBuilder *b, const CfgGpu *gpu, JsonNode *run)
{
  double ipc = 0, v;
  sm_json_lookup_number(run, "ipc.total", &ipc);
  json_builder_set_member_name(b, "against_peaks");
  json_builder_begin_object(b);
  put_against(b, "ipc", ipc, sm_model_issue_peak(gpu));
  double slots = 0;
  guint n = 0;
  for (; n < 64; n++) {
    g_autofree char *path = g_strdup_printf("issue_slot_utilisation.%u", n);
    if (!sm_json_lookup_number(run, path, &v))
      break;
    slots += v;
  }
  put_against(b, "issue_slots", n ? slots / n : 0, 1);
  json_builder_set_member_name(b, "bytes_per_cycle");
  json_builder_begin_object(b);
  for (guint l = 0; l < gpu->memory.n_levels; l++) {
    const CfgMemLevel *lv = &gpu->memory.levels[l];
    g_autofree char *path = g_strdup_printf("memory.levels.%s.bytes_per_cycle", lv->name);
    v = 0;
    sm_json_lookup_number(run, path, &v);
    put_against(b, lv->name, v, lv->bytes_per_cycle);
  }
  json_builder_end_object(b);
  json_builder_end_object(b);
}

/* cairo numbers the surfaces of a process in one sequence ("surface6" in the fifth SVG drawn):
 * numbered again from 1 in each document, the same request gives the same bytes as the first,
 * and as the command line's file. */
static gboolean
renumber_surface(const GMatchInfo *match, GString *out, gpointer data)
{
  GHashTable *ids = data;
  g_autofree char *old = g_match_info_fetch(match, 1);
  gpointer id = g_hash_table_lookup(ids, old);
  if (id == NULL) {
    id = GUINT_TO_POINTER(g_hash_table_size(ids) + 1);
    g_hash_table_insert(ids, g_strdup(old), id);
  }
  g_string_append_printf(out, "surface%u", GPOINTER_TO_UINT(id));
  return FALSE;
}

static void
put_svg(JsonBuilder *b, const char *member, GBytes *svg)
{
  static GRegex *surface; /* made once: GRegex is safe to share between threads */
  if (g_once_init_enter(&surface))
    g_once_init_leave(&surface, g_regex_new("surface([0-9]+)", G_REGEX_OPTIMIZE, 0, NULL));
  gsize n;
  const char *data = g_bytes_get_data(svg, &n);
  g_autoptr(GHashTable) ids = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  g_autofree char *text =
      g_regex_replace_eval(surface, data, (gssize)n, 0, 0, renumber_surface, ids, NULL);
  json_builder_set_member_name(b, member);
  json_builder_add_string_value(b, text ? text : "");
}

JsonNode *
sm_lab_run(const SmLab *lab, const char *body, gsize length, const gint *cancel, GError **error)
{
  gint64 start = g_get_monotonic_time();
  SmRunBounds bounds = bounds_from_now(lab, cancel);
  g_auto(Request) r = {0};
  CfgGpu *gpu = NULL;
  CfgKernel *kernel = NULL;
  if (!read_request(lab, "run", body, length, &r, error) || !load(&r, NULL, &gpu, &kernel, error))
    return NULL;
  g_autoptr(CfgGpu) g = gpu;
  g_autoptr(CfgKernel) k = kernel;
  g_autoptr(SmGpu) sm = sm_new(g, k);
  TraceSink *sink = NULL;
  if (r.picture) {
    TraceOptions opts = {.from = 0, .to = G_MAXUINT64, .max_bytes = 64u << 20};
    sink = trace_sink_open_memory("timeline.svg", &opts, error);
    if (sink == NULL || !sm_attach_trace(sm, sink, error)) {
      trace_sink_free(sink);
      return NULL;
    }
  }
  if (!run_bounded(lab, sm, &bounds, "the run", error)) {
    trace_sink_free(sink);
    return NULL;
  }
  g_autoptr(GBytes) svg = NULL;
  if (sink) {
    gboolean ok = trace_sink_finish(sink, sm_stats(sm)->cycles, error);
    if (ok)
      svg = trace_sink_take_memory(sink);
    trace_sink_free(sink);
    if (!ok)
      return NULL;
  }
  g_autoptr(JsonBuilder) b = json_builder_new();
  json_builder_begin_object(b);
  JsonNode *run = sm_run_json(g, k, sm_stats(sm));
  put_peaks(b, g, run);
  json_builder_set_member_name(b, "run");
  json_builder_add_value(b, run);
  if (svg)
    put_svg(b, "picture_svg", svg);
  /* the GPU as this run has it (its keys after "set"): peaks to hold the results against */
  json_builder_set_member_name(b, "gpu");
  json_builder_add_value(b, gpu_json(r.gpu_name, g));
  SmModelPoint m;
  g_autoptr(GPtrArray) lines = NULL;
  json_builder_set_member_name(b, "littles_law");
  json_builder_begin_array(b);
  if (sm_explain_littles_law(g, k, &m, &lines))
    for (guint i = 0; i < lines->len; i++) {
      const SmLittle *l = g_ptr_array_index(lines, i);
      json_builder_begin_object(b);
      json_builder_set_member_name(b, "name");
      json_builder_add_string_value(b, l->name);
      json_builder_set_member_name(b, "warps");
      json_builder_add_double_value(b, l->warps);
      json_builder_set_member_name(b, "how");
      json_builder_add_string_value(b, l->how);
      json_builder_end_object(b);
    }
  json_builder_end_array(b);
  json_builder_set_member_name(b, "seconds");
  json_builder_add_double_value(b, (double)(g_get_monotonic_time() - start) / G_USEC_PER_SEC);
  json_builder_end_object(b);
  return json_builder_get_root(b);
}

/* The varied values of the run's own setting: "KEY=VALUE" of @r's sets, or NULL. */
static const char *
set_value(const Request *r, const char *key)
{
  gsize n = strlen(key);
  for (guint i = 0; r->sets->pdata[i]; i++) {
    const char *s = r->sets->pdata[i];
    if (strncmp(s, key, n) == 0 && s[n] == '=')
      return s + n + 1;
  }
  return NULL;
}

/* Draws the point of the run's own setting (its warps and the varied key's value) on @plot. */
static void
mark_setting(SmPlot *plot, const SmSweep *sw, const Request *r, const CfgKernel *kernel)
{
  guint warps = kernel->warps_per_sm;
  const char *vary_value = r->vary_key ? set_value(r, r->vary_key) : NULL;
  for (guint p = 0; p < sw->points->len; p++) {
    if (sw->rows[p].warps != warps)
      continue;
    if (r->vary_key) {
      /* with another key varied, the point of the setting's value (as set, else none) */
      if (vary_value == NULL || strcmp(sm_sweep_value(sw, p, 0), vary_value) != 0)
        continue;
    }
    SmPlotSeries *s = sm_plot_add(plot, "this setting", SM_PLOT_DOTS, 7);
    sm_plot_point(s, sw->rows[p].warps, sw->rows[p].v[1]);
    return;
  }
}

JsonNode *
sm_lab_sweep(const SmLab *lab, const char *body, gsize length, const gint *cancel, GError **error)
{
  gint64 start = g_get_monotonic_time();
  SmRunBounds bounds = bounds_from_now(lab, cancel);
  g_auto(Request) r = {0};
  CfgGpu *gpu = NULL;
  CfgKernel *kernel = NULL;
  if (!read_request(lab, "sweep", body, length, &r, error) || !load(&r, NULL, &gpu, &kernel, error))
    return NULL;
  g_autoptr(CfgGpu) g = gpu;
  g_autoptr(CfgKernel) k = kernel;
  g_autoptr(SmSweep) sw = sm_sweep_new();
  GError *local = NULL;
  /* the other key first: the curves run over warps, the key that changes fastest */
  g_autofree char *warps_arg = g_strdup_printf("warps_per_sm=%s", r.warps ? r.warps : "1:64");
  if (r.warps == NULL) {
    g_free(warps_arg);
    warps_arg = g_strdup_printf("warps_per_sm=1:%u", g->limits.max_warps);
  }
  g_autofree char *vary_arg =
      r.vary_key ? g_strdup_printf("%s=%s", r.vary_key, r.vary_values) : NULL;
  for (guint i = 0; i < 2; i++) {
    const char *arg = i == 0 ? vary_arg : warps_arg;
    if (arg == NULL)
      continue;
    SmVary *v = sm_vary_parse(arg, &local);
    if (v == NULL || !sm_sweep_add_vary(sw, v, &local))
      return bad_config(error, local), NULL;
  }
  sm_sweep_make_points(sw);
  if (sw->points->len > lab->limits.max_sweep_points)
    return fail(error, SM_LAB_ERROR_TOO_LARGE,
                "the sweep has %u points; this server runs at most %u (smsim serve "
                "--max-points)",
                sw->points->len, lab->limits.max_sweep_points),
           NULL;
  g_autoptr(GPtrArray) dropped = g_ptr_array_new_with_free_func(g_free);
  if (!sm_sweep_drop_impossible(sw, &r.src, (const char *const *)r.sets->pdata, dropped, &local))
    return bad_file(error, local, r.src.kernel_path, r.kernel_name), NULL;
  sw->rows = g_new0(SmSweepRow, sw->points->len);
  for (guint p = 0; p < sw->points->len; p++) {
    CfgGpu *pg = NULL;
    CfgKernel *pk = NULL;
    if (!load(&r, g_ptr_array_index(sw->points, p), &pg, &pk, error))
      return NULL;
    g_autoptr(CfgGpu) gp = pg;
    g_autoptr(CfgKernel) kp = pk;
    g_autoptr(SmGpu) sm = sm_new(gp, kp);
    g_autofree char *what = g_strjoinv(" ", g_ptr_array_index(sw->points, p));
    g_autofree char *run_of = g_strdup_printf("the run of %s", what);
    if (!run_bounded(lab, sm, &bounds, run_of, error))
      return NULL;
    SmPointResult res = {.stats = *sm_stats(sm), .warps = kp->warps_per_sm};
    res.has_model = sm_model_mix(gp, kp, &res.model);
    sm_sweep_row_from_result(&res, &sw->rows[p]);
  }
  g_autoptr(GPtrArray) curves = sm_sweep_curves(sw);
  g_autoptr(SmPlot) plot = sm_sweep_throughput_plot(sw, curves, g->name, NULL);
  if (r.mark)
    mark_setting(plot, sw, &r, k);
  g_autoptr(GBytes) svg = sm_plot_svg(plot, error);
  if (svg == NULL)
    return NULL;
  g_autoptr(JsonBuilder) b = json_builder_new();
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "sweep");
  json_builder_add_value(b, sm_sweep_json(sw, curves));
  put_svg(b, "plot_svg", svg);
  json_builder_set_member_name(b, "seconds");
  json_builder_add_double_value(b, (double)(g_get_monotonic_time() - start) / G_USEC_PER_SEC);
  json_builder_end_object(b);
  return json_builder_get_root(b);
}

guint
sm_lab_error_status(const GError *error)
{
  if (error->domain != SM_LAB_ERROR)
    return 500;
  switch ((SmLabErrorCode)error->code) {
  case SM_LAB_ERROR_BAD_REQUEST:
    return 400;
  case SM_LAB_ERROR_NOT_FOUND:
    return 404;
  case SM_LAB_ERROR_TOO_LARGE:
    return 413;
  case SM_LAB_ERROR_LIMIT:
    return 422;
  case SM_LAB_ERROR_CANCELLED:
    return 499;
  case SM_LAB_ERROR_BUSY:
    return 503;
  case SM_LAB_ERROR_METHOD:
    return 405;
  case SM_LAB_ERROR_LENGTH:
    return 411;
  }
  return 500;
}

JsonNode *
sm_lab_error_json(const GError *error)
{
  g_autoptr(JsonBuilder) b = json_builder_new();
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "error");
  json_builder_add_string_value(b, error->message);
  json_builder_set_member_name(b, "status");
  json_builder_add_int_value(b, sm_lab_error_status(error));
  json_builder_end_object(b);
  return json_builder_get_root(b);
}
