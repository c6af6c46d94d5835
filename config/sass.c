/* Kernel files over SASS: the SASS file and function, the launch (1-, 2- or 3-D grid and
 * block, shared and local memory), and the kernel's arguments in order, scalars and buffers.
 * Loading only: the buffers are made and filled when a machine is built (sim/sass.c). */
#include "sass-config.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>

#include "../isa/asm.h"

static const char *const arg_type_names[] = {"i32", "u32", "i64",    "u64",
                                             "f32", "f64", "buffer", NULL};
static const char *const fill_names[] = {"zeros", "constant", "iota", "random", "file", NULL};
static const char *const element_names[] = {"f32", "f64", "i32", "u32", "u8", NULL};

/* keys of an assembled kernel that a kernel over SASS does not take */
static const char *const stream_only[] = {
    "stream",      "warps_per_sm", "threads_per_block",       "blocks", "instructions_per_warp",
    "warp_passes", "block_passes", "shared_memory_per_block", "warm_up"};

/* a number or an expression over the parameters */
static gboolean
number(const CfgNode *node, const char *what, GHashTable *params, double *out, GError **error)
{
  if (node->kind != CFG_NODE_SCALAR)
    return cfg_fail(error, node, "'%s' must be a number or an expression", what);
  g_autofree char *str = NULL;
  GError *local = NULL;
  if (!isa_asm_eval(node->value, params, out, &str, &local)) {
    gboolean r = cfg_fail(error, node, "%s: %s", what, local->message);
    g_error_free(local);
    return r;
  }
  if (str)
    return cfg_fail(error, node, "'%s' must be a number, got '%s'", what, str);
  if (!isfinite(*out))
    return cfg_fail(error, node, "'%s' must be finite", what);
  return TRUE;
}

static gboolean
whole(const CfgNode *node, const char *what, GHashTable *params, double min, double max,
      guint64 *out, GError **error)
{
  double v;
  if (!number(node, what, params, &v, error))
    return FALSE;
  double r = round(v);
  if (fabs(v - r) > 1e-9 || r < min || r > max)
    return cfg_fail(error, node, "'%s' must be a whole number from %.0f to %.0f, got %g", what, min,
                    max, v);
  *out = (guint64)r;
  return TRUE;
}

/* text (not an expression): a name */
static gboolean
text(const CfgNode *node, const char *what, const char **out, GError **error)
{
  if (node->kind != CFG_NODE_SCALAR || node->value[0] == '\0')
    return cfg_fail(error, node, "'%s' must be text", what);
  *out = node->value;
  return TRUE;
}

/* grid: 264, [64, 64], [8, 8, 2] */
static gboolean
dims(const CfgNode *node, const char *what, GHashTable *params, double max, guint out[3],
     GError **error)
{
  out[0] = out[1] = out[2] = 1;
  if (node->kind == CFG_NODE_SEQ) {
    if (node->items->len == 0 || node->items->len > 3)
      return cfg_fail(error, node, "'%s' must be a number or a list of 1 to 3 numbers", what);
    for (guint i = 0; i < node->items->len; i++) {
      guint64 v;
      if (!whole(g_ptr_array_index(node->items, i), what, params, 1, max, &v, error))
        return FALSE;
      out[i] = (guint)v;
    }
    return TRUE;
  }
  guint64 v;
  if (!whole(node, what, params, 1, max, &v, error))
    return FALSE;
  out[0] = (guint)v;
  return TRUE;
}

static gboolean
enum_value(const CfgNode *node, const char *what, const char *const *names, int *out,
           GError **error)
{
  if (node->kind == CFG_NODE_SCALAR)
    for (int i = 0; names[i]; i++)
      if (strcmp(names[i], node->value) == 0) {
        *out = i;
        return TRUE;
      }
  g_autofree char *list = g_strjoinv(", ", (char **)names);
  return cfg_fail(error, node, "'%s' must be one of %s", what, list);
}

/* @node's text with "$name" and "${EXPRESSION}" replaced by their values (a function name
 * that depends on template parameters: "_Z8k_unrollILi${work}ELi${pdist}EEvPKfiPf").  Inside
 * ${...}, "TEXT" is a string (empty too), for names whose parts come and go. */
static char *
interpolate(const CfgNode *node, GHashTable *params, GError **error)
{
  GString *out = g_string_new(NULL);
  for (const char *p = node->value; *p;) {
    if (p[0] != '$') {
      g_string_append_c(out, *p++);
      continue;
    }
    g_autofree char *expr = NULL;
    if (p[1] == '{') {
      const char *close = strchr(p, '}');
      if (!close) {
        cfg_fail(error, node, "'${' without its '}' in '%s'", node->value);
        return g_string_free(out, TRUE), NULL;
      }
      expr = g_strndup(p + 2, (gsize)(close - p - 2));
      p = close + 1;
      if (g_hash_table_contains(params, expr)) { /* ${name}: the parameter */
        char *named = g_strdup_printf("$%s", expr);
        g_free(expr);
        expr = named;
      }
    } else {
      const char *q = p + 1;
      while (g_ascii_isalnum(*q) || *q == '_')
        q++;
      expr = g_strndup(p, (gsize)(q - p));
      p = q;
    }
    /* quoted strings become parameters of their own */
    g_autoptr(GHashTable) with = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    GHashTableIter it;
    gpointer key, val;
    g_hash_table_iter_init(&it, params);
    while (g_hash_table_iter_next(&it, &key, &val))
      g_hash_table_insert(with, g_strdup(key), g_strdup(val));
    GString *e = g_string_new(NULL);
    guint n_str = 0;
    for (const char *q = expr; *q; q++) {
      const char *close = *q == '"' ? strchr(q + 1, '"') : NULL;
      if (!close) {
        g_string_append_c(e, *q);
        continue;
      }
      char *name = g_strdup_printf("quoted_%u", n_str++);
      g_string_append_printf(e, "$%s", name);
      g_hash_table_insert(with, name, g_strndup(q + 1, (gsize)(close - q - 1)));
      q = close;
    }
    double v;
    g_autofree char *str = NULL;
    GError *local = NULL;
    gboolean ok = isa_asm_eval(e->str, with, &v, &str, &local);
    g_string_free(e, TRUE);
    if (!ok) {
      cfg_fail(error, node, "%s", local->message);
      g_error_free(local);
      return g_string_free(out, TRUE), NULL;
    }
    if (str)
      g_string_append(out, str);
    else
      g_string_append_printf(out, "%.15g", v);
  }
  return g_string_free(out, FALSE);
}

/* a path relative to the directory of the file @at was read from */
static char *
beside(const CfgNode *at, const CfgNode *root, const char *path)
{
  if (g_path_is_absolute(path))
    return g_strdup(path);
  const char *file = cfg_node_file(at);
  if (!file)
    file = cfg_node_file(root);
  g_autofree char *dir = g_path_get_dirname(file ? file : ".");
  return g_build_filename(dir, path, NULL);
}

/* Whether every key of the mapping @item is one of @keys (NULL-terminated); else an error
 * naming the key, @where it is and the known ones. */
static gboolean
known_keys(const CfgNode *item, const char *const *keys, const char *where, GError **error)
{
  for (guint i = 0; i < item->keys->len; i++) {
    const CfgNode *key = g_ptr_array_index(item->keys, i);
    if (!g_strv_contains(keys, key->value)) {
      g_autofree char *known = g_strjoinv(", ", (char **)keys);
      return cfg_fail(error, key, "unknown key '%s' in %s (known keys: %s)", key->value, where,
                      known);
    }
  }
  return TRUE;
}

/* A buffer's (or the constant bank's) size and what it holds before the run: bytes (1 to
 * @max_bytes), fill, element, value, seed, file; @what names it in messages. */
static gboolean
load_contents(CfgArg *a, const char *what, const CfgNode *item, const CfgNode *root,
              GHashTable *params, double max_bytes, GError **error)
{
  const CfgNode *value = cfg_node_get(item, "value");
  const CfgNode *bytes = cfg_node_get(item, "bytes");
  if (!bytes)
    return cfg_fail(error, item, "%s needs its size: bytes", what);
  if (!whole(bytes, "bytes", params, 1, max_bytes, &a->bytes, error))
    return FALSE;
  const CfgNode *fill = cfg_node_get(item, "fill"), *element = cfg_node_get(item, "element");
  if (fill && !enum_value(fill, "fill", fill_names, &a->fill, error))
    return FALSE;
  if (element && !enum_value(element, "element", element_names, &a->element, error))
    return FALSE;
  if (value && a->fill != CFG_FILL_CONSTANT)
    return cfg_fail(error, value, "'value' of a buffer is its constant fill: fill: constant");
  if (a->fill == CFG_FILL_CONSTANT) {
    if (!value)
      return cfg_fail(error, fill, "fill: constant needs a value");
    if (!number(value, "value", params, &a->constant, error))
      return FALSE;
  }
  const CfgNode *seed = cfg_node_get(item, "seed");
  a->seed = 1;
  if (seed && !whole(seed, "seed", params, 0, 4294967295.0, &a->seed, error))
    return FALSE;
  const CfgNode *file = cfg_node_get(item, "file");
  if ((a->fill == CFG_FILL_FILE) != (file != NULL))
    return cfg_fail(error, file ? file : fill,
                    file ? "'file' needs fill: file" : "fill: file needs a file");
  if (file) {
    const char *f = NULL;
    if (!text(file, "file", &f, error))
      return FALSE;
    a->file = beside(file, root, f);
    GError *local = NULL;
    GStatBuf st;
    if (g_stat(a->file, &st) == 0 && !S_ISREG(st.st_mode))
      return cfg_fail(error, file, "%s is not a regular file", a->file);
    if (!g_file_get_contents(a->file, (char **)&a->data, &a->data_size, &local)) {
      gboolean r = cfg_fail(error, file, "cannot read %s: %s", a->file, local->message);
      g_error_free(local);
      return r;
    }
    if (a->data_size > a->bytes)
      return cfg_fail(error, file, "%s has %zu bytes, more than %s (%" G_GUINT64_FORMAT " bytes)",
                      a->file, a->data_size, what, a->bytes);
  }
  return TRUE;
}

static gboolean
load_arg(CfgArg *a, const CfgArg *earlier, guint n_earlier, const CfgNode *item,
         const CfgNode *root, GHashTable *params, const CfgGpu *gpu, GError **error)
{
  static const char *const keys[] = {"name",    "type", "value", "bytes", "offset",  "fill",
                                     "element", "seed", "file",  "level", "same_as", NULL};
  if (item->kind != CFG_NODE_MAP)
    return cfg_fail(error, item,
                    "an argument is a mapping: {name: n, type: i32, value: 4096} or "
                    "{name: x, type: buffer, bytes: 4096, fill: random}");
  if (!known_keys(item, keys, "an argument", error))
    return FALSE;
  const CfgNode *name = cfg_node_get(item, "name"), *type = cfg_node_get(item, "type");
  if (!name)
    return cfg_fail(error, item, "an argument needs a name (as in the CUDA source)");
  if (!type)
    return cfg_fail(error, item, "argument '%s' needs a type (%s)", name->value,
                    "i32, u32, i64, u64, f32, f64 or buffer");
  const char *nm = NULL;
  if (!text(name, "name", &nm, error) || !enum_value(type, "type", arg_type_names, &a->type, error))
    return FALSE;
  a->name = g_strdup(nm);
  const CfgNode *value = cfg_node_get(item, "value");
  if (a->type != CFG_ARG_BUFFER) {
    static const char *const buffer_only[] = {"bytes", "offset", "fill",  "element",
                                              "seed",  "file",   "level", "same_as"};
    for (guint i = 0; i < G_N_ELEMENTS(buffer_only); i++)
      if (cfg_node_get(item, buffer_only[i]))
        return cfg_fail(error, cfg_node_key(item, buffer_only[i]),
                        "'%s' is for buffers; argument '%s' is a %s", buffer_only[i], a->name,
                        arg_type_names[a->type]);
    if (!value)
      return cfg_fail(error, item, "argument '%s' needs a value", a->name);
    double v;
    if (!number(value, a->name, params, &v, error))
      return FALSE;
    switch (a->type) {
    case CFG_ARG_F32: {
      float f = (float)v;
      guint32 u;
      memcpy(&u, &f, 4);
      a->bits = u;
      break;
    }
    case CFG_ARG_F64:
      memcpy(&a->bits, &v, 8);
      break;
    default: {
      static const double lo[] = {-2147483648.0, 0, -9223372036854775808.0, 0},
                          hi[] = {2147483647.0, 4294967295.0, 9223372036854775807.0,
                                  18446744073709551615.0};
      if (v != round(v) || v < lo[a->type] || v > hi[a->type])
        return cfg_fail(error, value, "argument '%s' (%s) must be a whole number from %.0f to %.0f",
                        a->name, arg_type_names[a->type], lo[a->type], hi[a->type]);
      a->bits = v < 0 ? (guint64)(gint64)v : (guint64)v;
      if (a->type == CFG_ARG_I32)
        a->bits &= 0xffffffffu;
      break;
    }
    }
    return TRUE;
  }
  const CfgNode *same_as = cfg_node_get(item, "same_as");
  if (same_as) {
    /* a second pointer into an earlier buffer's memory: its size and level are that buffer's */
    static const char *const own[] = {"bytes", "value", "fill", "element", "seed", "file", "level"};
    for (guint i = 0; i < G_N_ELEMENTS(own); i++)
      if (cfg_node_get(item, own[i]))
        return cfg_fail(error, cfg_node_key(item, own[i]),
                        "'%s' is the memory's own: buffer '%s' points into another's (same_as)",
                        own[i], a->name);
    const char *target = NULL;
    if (!text(same_as, "same_as", &target, error))
      return FALSE;
    const CfgArg *t = NULL;
    for (guint j = 0; j < n_earlier && !t; j++)
      if (earlier[j].type == CFG_ARG_BUFFER && strcmp(earlier[j].name, target) == 0)
        t = &earlier[j];
    if (!t)
      return cfg_fail(error, same_as, "same_as: no buffer argument named '%s' before '%s'", target,
                      a->name);
    a->same_as = t->same_as ? t->same_as : (guint)(t - earlier) + 1;
    a->bytes = t->bytes;
    a->level = t->level;
    const CfgNode *offset = cfg_node_get(item, "offset");
    return !offset || whole(offset, "offset", params, 0, (double)a->bytes, &a->offset, error);
  }
  g_autofree char *what = g_strdup_printf("buffer '%s'", a->name);
  if (!load_contents(a, what, item, root, params, (double)(1ull << 36), error))
    return FALSE;
  const CfgNode *offset = cfg_node_get(item, "offset");
  if (offset && !whole(offset, "offset", params, 0, (double)a->bytes, &a->offset, error))
    return FALSE;
  /* level: a memory level of the GPU file, or cached (the caches decide, from its addresses,
   * as without a level on a GPU with caches); "$name" and "${EXPRESSION}" are replaced */
  const CfgNode *level = cfg_node_get(item, "level");
  int lv = cfg_gpu_level(gpu, "dram");
  gboolean cached = !level && cfg_gpu_has_caches(gpu);
  if (level) {
    const char *l = NULL;
    if (!text(level, "level", &l, error))
      return FALSE;
    g_autofree char *named = interpolate(level, params, error);
    if (!named)
      return FALSE;
    cached = strcmp(named, "cached") == 0;
    if (cached && !cfg_gpu_has_caches(gpu))
      return cfg_fail(error, level,
                      "level cached needs caches in the GPU file (caches.l1, caches.l2)");
    if (!cached && (lv = cfg_gpu_level(gpu, named)) < 0)
      return cfg_fail(error, level, "memory level '%s' is not in the GPU file", named);
  }
  a->level = cached ? CFG_LEVEL_CACHED : (guint8)(lv < 0 ? 0 : lv);
  return TRUE;
}

void
cfg_sass_free(CfgSass *s)
{
  if (!s)
    return;
  for (guint i = 0; i < s->n_args; i++) {
    g_free(s->args[i].name);
    g_free(s->args[i].file);
    g_free(s->args[i].data);
  }
  g_free(s->args);
  g_free(s->constants.file);
  g_free(s->constants.data);
  sass_file_free(s->file);
  g_free(s->path);
  g_free(s);
}

gboolean
cfg_sass_kernel_load(CfgKernel *k, const CfgNode *root, const CfgGpu *gpu, GError **error)
{
  for (guint i = 0; i < G_N_ELEMENTS(stream_only); i++)
    if (cfg_node_get(root, stream_only[i]))
      return cfg_fail(error, cfg_node_key(root, stream_only[i]),
                      "'%s' is for kernels with a stream; a kernel over SASS gives grid, "
                      "block and dynamic_shared_bytes",
                      stream_only[i]);
  g_autoptr(CfgSass) s = g_new0(CfgSass, 1);
  const CfgNode *sass = cfg_node_get(root, "sass");
  const char *path = NULL;
  if (!text(sass, "sass", &path, error))
    return FALSE;
  s->path = beside(sass, root, path);
  GError *local = NULL;
  s->file = sass_file_load(s->path, &local);
  if (!s->file) {
    gboolean r = cfg_fail(error, sass, "%s", local->message);
    g_error_free(local);
    return r;
  }
  const CfgNode *fn = cfg_node_get(root, "function");
  const char *fname = NULL;
  if (fn && !text(fn, "function", &fname, error))
    return FALSE;
  g_autofree char *expanded = fn ? interpolate(fn, k->params, error) : NULL;
  if (fn && !expanded)
    return FALSE;
  fname = expanded;
  s->fn = sass_file_function(s->file, fname, &local);
  if (!s->fn) {
    gboolean r = cfg_fail(error, fn ? fn : sass, "%s", local->message);
    g_error_free(local);
    return r;
  }
  const CfgNode *grid = cfg_node_get(root, "grid"), *block = cfg_node_get(root, "block");
  if (!grid || !block)
    return cfg_fail(error, root, "a kernel over SASS needs its launch: grid and block");
  if (!dims(grid, "grid", k->params, 2147483647.0, s->grid, error) ||
      !dims(block, "block", k->params, 1024, s->block, error))
    return FALSE;
  struct {
    const char *key;
    guint *out;
    double max;
  } sizes[] = {
      {"dynamic_shared_bytes", &s->dynamic_shared_bytes, 1u << 30},
      {"static_shared_bytes", &s->static_shared_bytes, 1u << 30},
      {"local_bytes_per_thread", &s->local_bytes_per_thread, 1u << 20},
      {"registers_per_thread", &k->registers_per_thread, 1024},
  };
  k->registers_per_thread = 0;
  for (guint i = 0; i < G_N_ELEMENTS(sizes); i++) {
    const CfgNode *v = cfg_node_get(root, sizes[i].key);
    guint64 x = 0;
    if (v && !whole(v, sizes[i].key, k->params, 0, sizes[i].max, &x, error))
      return FALSE;
    *sizes[i].out = (guint)x;
  }
  if (k->registers_per_thread == 0)
    return cfg_fail(error, root,
                    "a kernel over SASS needs registers_per_thread (cuobjdump -res-usage: REG)");
  const CfgNode *args = cfg_node_get(root, "arguments");
  if (args && args->kind != CFG_NODE_SEQ)
    return cfg_fail(error, args, "'arguments' must be a list, in the order of the CUDA source");
  s->n_args = args ? args->items->len : 0;
  s->args = g_new0(CfgArg, MAX(s->n_args, 1u));
  gsize param_bytes = 0;
  for (guint i = 0; i < s->n_args; i++) {
    CfgArg *a = &s->args[i];
    const CfgNode *item = g_ptr_array_index(args->items, i);
    if (!load_arg(a, s->args, i, item, root, k->params, gpu, error))
      return FALSE;
    for (guint j = 0; j < i; j++)
      if (strcmp(s->args[j].name, a->name) == 0)
        return cfg_fail(error, cfg_node_get(item, "name"), "two arguments named '%s'", a->name);
    gsize size = a->type == CFG_ARG_I32 || a->type == CFG_ARG_U32 || a->type == CFG_ARG_F32 ? 4 : 8;
    param_bytes = (param_bytes + size - 1) / size * size + size;
  }
  const CfgNode *constants = cfg_node_get(root, "constants");
  if (constants) {
    static const char *const keys[] = {"bytes", "fill", "element", "value", "seed", "file", NULL};
    if (constants->kind != CFG_NODE_MAP)
      return cfg_fail(error, constants,
                      "'constants' is the kernel's __constant__ data (c[0x3]), a mapping: "
                      "{bytes: 65536, fill: zeros}");
    if (!known_keys(constants, keys, "constants", error))
      return FALSE;
    s->constants.type = CFG_ARG_BUFFER;
    if (!load_contents(&s->constants, "the constant bank", constants, root, k->params, 65536.0,
                       error))
      return FALSE;
  }
  if (param_bytes > 4096 - 0x210)
    return cfg_fail(error, args, "%zu bytes of arguments: a kernel takes at most %u", param_bytes,
                    4096 - 0x210);
  /* the launch as the machine counts it: blocks of threads, the grid's blocks in order */
  guint64 threads = (guint64)s->block[0] * s->block[1] * s->block[2];
  if (threads > 1024)
    return cfg_fail(error, block, "blocks of %" G_GUINT64_FORMAT " threads: at most 1024", threads);
  guint64 blocks = (guint64)s->grid[0] * s->grid[1] * s->grid[2];
  if (blocks > G_MAXINT32)
    return cfg_fail(error, grid, "a grid of %" G_GUINT64_FORMAT " blocks is more than smsim runs",
                    blocks);
  k->threads_per_block = (guint)threads;
  k->warps_per_block = (guint)((threads + 31) / 32);
  k->shared_memory_per_block = s->static_shared_bytes + s->dynamic_shared_bytes;
  k->grid_blocks = (guint)blocks;
  CfgOccupancy occ;
  if (!cfg_occupancy(gpu, k->threads_per_block, k->registers_per_thread, k->shared_memory_per_block,
                     &occ, &local)) {
    gboolean r = cfg_fail(error, block, "%s", local->message);
    g_error_free(local);
    return r;
  }
  guint resident = occ.blocks;
  const CfgNode *bps = cfg_node_get(root, "blocks_per_sm");
  if (bps) {
    guint64 v;
    if (!whole(bps, "blocks_per_sm", k->params, 1, 1024, &v, error))
      return FALSE;
    if (v > occ.blocks) {
      g_autofree char *why = cfg_occupancy_binding(&occ);
      return cfg_fail(error, bps,
                      "%u blocks of %u threads per SM do not fit: at most %u "
                      "(limited by %s)",
                      (guint)v, k->threads_per_block, occ.blocks, why);
    }
    resident = (guint)v;
  }
  k->blocks_per_sm = MIN(resident, k->grid_blocks);
  k->warps_per_sm = k->blocks_per_sm * k->warps_per_block;
  guint one = 1;
  k->warp_passes = g_array_new(FALSE, FALSE, sizeof(guint));
  k->block_passes = g_array_new(FALSE, FALSE, sizeof(guint));
  g_array_append_val(k->warp_passes, one);
  g_array_append_val(k->block_passes, one);
  k->program = sass_lower(s->fn, s->path, &local);
  if (!k->program) {
    gboolean r = cfg_fail(error, sass, "%s", local->message);
    g_error_free(local);
    return r;
  }
  int dram = cfg_gpu_level(gpu, "dram");
  k->level_map[0] = (guint8)(dram < 0 ? 0 : dram);
  k->unnamed_level = k->level_map[0];
  for (guint i = 0; i < s->fn->n_insns; i++) {
    SassOp op = (SassOp)s->fn->insns[i].op;
    if ((op == SASS_OP_LDGSTS || op == SASS_OP_LDGDEPBAR || op == SASS_OP_DEPBAR) &&
        !gpu->smem.async_copy)
      return cfg_fail(error, sass,
                      "%s:%u: %s: %s has no asynchronous copies "
                      "(shared_memory.async_copy is false)",
                      s->path, s->fn->insns[i].line, sass_op_name(op),
                      gpu->name ? gpu->name : "this GPU");
  }
  k->sass = g_steal_pointer(&s);
  return TRUE;
}
