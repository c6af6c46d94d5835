/* The lab's requests read from their JSON: the members each kind takes, names found in the
 * catalogue, --set values checked (lab-internal.h).  Not what they run (lab.c). */
#include <string.h>

#include "lab-internal.h"

void
sm_lab_request_clear(SmLabRequest *r)
{
  g_free(r->pasted);
  if (r->sets)
    g_ptr_array_unref(r->sets);
  g_free(r->warps);
  g_free(r->vary_key);
  g_free(r->vary_values);
}

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
    return sm_lab_fail(error, SM_LAB_ERROR_BAD_REQUEST, "set.%s: a value is a string or a number",
                       key);
  if (strlen(value) > 256)
    return sm_lab_fail(error, SM_LAB_ERROR_BAD_REQUEST, "set.%s: a value is at most 256 characters",
                       key);
  for (const char *c = value; *c; c++)
    if ((guchar)*c < 0x20)
      return sm_lab_fail(error, SM_LAB_ERROR_BAD_REQUEST, "set.%s: a value is one line", key);
  return TRUE;
}

/* A key a request may set or vary: a parameter of the kernel, or a GPU key, never another key
 * of the kernel file (sass, arguments: no file is named from a request). */
static gboolean
settable(const CfgNode *kernel_root, const char *key)
{
  const CfgNode *params = cfg_node_get(kernel_root, "params");
  gboolean param = params && params->kind == CFG_NODE_MAP && cfg_node_get(params, key);
  return param || cfg_kernel_field(key) == NULL;
}

/* "set": parameters of the kernel and GPU keys, never the kernel file's other keys. */
static gboolean
read_sets(JsonObject *set, const CfgNode *kernel_root, SmLabRequest *r, GError **error)
{
  g_autoptr(GList) members = json_object_get_members(set);
  for (GList *m = members; m; m = m->next) {
    const char *key = m->data;
    if (key[0] == '\0' || strlen(key) > 128 || strchr(key, '='))
      return sm_lab_fail(error, SM_LAB_ERROR_BAD_REQUEST, "set: '%s' is not a key", key);
    if (!settable(kernel_root, key))
      return sm_lab_fail(error, SM_LAB_ERROR_BAD_REQUEST,
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
    sm_lab_fail(error, SM_LAB_ERROR_BAD_REQUEST, "%s: a list of values or \"A:B[:STEP]\"", what);
    return NULL;
  }
  JsonArray *a = json_node_get_array(node);
  GString *out = g_string_new(NULL);
  for (guint i = 0; i < json_array_get_length(a); i++) {
    g_autofree char *v = scalar_text(json_array_get_element(a, i));
    if (v == NULL || v[0] == '\0' || strchr(v, ',') || strchr(v, '=')) {
      sm_lab_fail(error, SM_LAB_ERROR_BAD_REQUEST, "%s: item %u is not a value", what, i + 1);
      g_string_free(out, TRUE);
      return NULL;
    }
    g_string_append_printf(out, "%s%s", i ? "," : "", v);
  }
  if (out->len > 16384) {
    sm_lab_fail(error, SM_LAB_ERROR_TOO_LARGE, "%s: too many values", what);
    g_string_free(out, TRUE);
    return NULL;
  }
  return g_string_free(out, FALSE);
}

/* Parses a request body of @kind ("run", "sweep", "gpu") into @r. */
gboolean
sm_lab_read_request(const SmLab *lab, const char *kind, const char *body, gsize length,
                    SmLabRequest *r, GError **error)
{
  memset(r, 0, sizeof *r);
  r->picture = TRUE;
  r->sets = g_ptr_array_new_with_free_func(g_free);
  if (length > lab->limits.max_body_bytes)
    return sm_lab_fail(error, SM_LAB_ERROR_TOO_LARGE, "the request is %zu bytes; at most %zu",
                       length, lab->limits.max_body_bytes);
  g_autoptr(JsonParser) parser = json_parser_new();
  GError *local = NULL;
  if (!json_parser_load_from_data(parser, body, (gssize)length, &local)) {
    sm_lab_fail(error, SM_LAB_ERROR_BAD_REQUEST, "the request is not JSON: %s", local->message);
    g_error_free(local);
    return FALSE;
  }
  JsonNode *root = json_parser_get_root(parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT(root))
    return sm_lab_fail(error, SM_LAB_ERROR_BAD_REQUEST, "the request is a JSON object");
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
      return sm_lab_fail(error, SM_LAB_ERROR_BAD_REQUEST,
                         "unknown member '%s' in a %s request (known: %s)", (char *)m->data, kind,
                         list);
    }
  /* the GPU: a name, or pasted YAML */
  JsonNode *gpu = json_object_get_member(o, "gpu"), *yaml = json_object_get_member(o, "gpu_yaml");
  if ((gpu != NULL) == (yaml != NULL))
    return sm_lab_fail(error, SM_LAB_ERROR_BAD_REQUEST,
                       strcmp(kind, "gpu") == 0
                           ? "a gpu request has gpu_yaml"
                           : "give either gpu (a name) or gpu_yaml (a GPU file's text)");
  if (yaml) {
    const char *text =
        JSON_NODE_HOLDS_VALUE(yaml) && json_node_get_value_type(yaml) == G_TYPE_STRING
            ? json_node_get_string(yaml)
            : NULL;
    if (text == NULL)
      return sm_lab_fail(error, SM_LAB_ERROR_BAD_REQUEST, "gpu_yaml is the text of a GPU file");
    if (strlen(text) > lab->limits.max_yaml_bytes)
      return sm_lab_fail(error, SM_LAB_ERROR_TOO_LARGE, "gpu_yaml is %zu bytes; at most %zu",
                         strlen(text), lab->limits.max_yaml_bytes);
    r->pasted = g_strdup(text);
    r->src.gpu_path = (char *)"pasted.yaml";
    r->src.gpu_text = r->pasted;
    r->gpu_name = "pasted";
  } else {
    const char *name = JSON_NODE_HOLDS_VALUE(gpu) && json_node_get_value_type(gpu) == G_TYPE_STRING
                           ? json_node_get_string(gpu)
                           : NULL;
    if (name == NULL)
      return sm_lab_fail(error, SM_LAB_ERROR_BAD_REQUEST, "gpu is a GPU's name (GET /api/gpus)");
    const SmLabEntry *e = sm_lab_find(lab->gpus, name);
    if (e == NULL)
      return sm_lab_not_found(error, "gpu", name, lab->gpus);
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
    return sm_lab_fail(error, SM_LAB_ERROR_BAD_REQUEST,
                       "kernel is a kernel's name (GET /api/kernels)");
  const SmLabEntry *k = sm_lab_find(lab->kernels, kname);
  if (k == NULL)
    return sm_lab_not_found(error, "kernel", kname, lab->kernels);
  r->src.kernel_path = k->path;
  r->src.kernel_text = k->text;
  r->kernel_name = k->name;
  g_autoptr(CfgNode) kernel_root = cfg_load_string(k->path, k->text, NULL);
  JsonNode *set = json_object_get_member(o, "set");
  if (set && !JSON_NODE_HOLDS_OBJECT(set))
    return sm_lab_fail(error, SM_LAB_ERROR_BAD_REQUEST, "set is an object of KEY: VALUE");
  if (set && !read_sets(json_node_get_object(set), kernel_root, r, error))
    return FALSE;
  g_ptr_array_add(r->sets, NULL);
  for (guint i = 0; i < 2; i++) {
    const char *name = i == 0 ? "picture" : "mark";
    JsonNode *flag = json_object_get_member(o, name);
    if (flag == NULL)
      continue;
    if (!JSON_NODE_HOLDS_VALUE(flag) || json_node_get_value_type(flag) != G_TYPE_BOOLEAN)
      return sm_lab_fail(error, SM_LAB_ERROR_BAD_REQUEST, "%s is true or false", name);
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
      return sm_lab_fail(error, SM_LAB_ERROR_BAD_REQUEST,
                         "vary is {\"key\": KEY, \"values\": [V, ...]}");
    const char *kk = json_node_get_string(key);
    if (!settable(kernel_root, kk))
      return sm_lab_fail(
          error, SM_LAB_ERROR_BAD_REQUEST,
          "vary.key: the lab varies the kernel's parameters and GPU keys only, not '%s'", kk);
    if (strcmp(kk, "warps_per_sm") == 0)
      return sm_lab_fail(error, SM_LAB_ERROR_BAD_REQUEST,
                         "vary.key: warps are the sweep's own axis (warps); vary another key");
    if (!check_value("vary.key", kk, error) || strchr(kk, '=') ||
        !(r->vary_values = values_text(values, "vary.values", error)))
      return FALSE;
    r->vary_key = g_strdup(kk);
  }
  return TRUE;
}

/* The run's GPU and kernel, loaded and checked as the command line does. */
gboolean
sm_lab_load(const SmLabRequest *r, const char *const *vary, CfgGpu **gpu, CfgKernel **kernel,
            GError **error)
{
  GError *local = NULL;
  if (!cfg_load_run_text(&r->src, (const char *const *)r->sets->pdata, vary, gpu, kernel, &local)) {
    gboolean kernel_file = g_str_has_prefix(local->message, r->src.kernel_path);
    return sm_lab_bad_file(error, local, kernel_file ? r->src.kernel_path : r->src.gpu_path,
                           kernel_file ? r->kernel_name : r->gpu_name);
  }
  return TRUE;
}
