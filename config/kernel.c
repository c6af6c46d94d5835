/* Loading a kernel file: parameters, the launch and its checks against the GPU, and assembling
 * the stream.  Not the stream language itself (isa/), nor --set routing and loading a run's
 * GPU and kernel together (run.c). */
#include "kernel.h"

#include <math.h>
#include <string.h>

#include "../isa/asm.h"
#include "occupancy.h"
#include "ranges.h"
#include "sass-config.h"

void
cfg_kernel_free(CfgKernel *k)
{
  if (k == NULL)
    return;
  g_free(k->name);
  g_free(k->description);
  cfg_sass_free(k->sass);
  isa_program_free(k->program);
  if (k->warp_passes)
    g_array_free(k->warp_passes, TRUE);
  if (k->block_passes)
    g_array_free(k->block_passes, TRUE);
  if (k->param_names)
    g_ptr_array_free(k->param_names, TRUE);
  if (k->params)
    g_hash_table_unref(k->params);
  g_free(k);
}

/* A numeric launch key: a number, or an expression over the parameters. */
static gboolean
launch_value(const CfgNode *node, const CfgField *f, GHashTable *params, guint64 *out,
             GError **error)
{
  if (node->kind != CFG_NODE_SCALAR)
    return cfg_fail(error, node, "'%s' must be a number or an expression", f->key);
  double v;
  g_autofree char *str = NULL;
  GError *local = NULL;
  if (!isa_asm_eval(node->value, params, &v, &str, &local)) {
    gboolean r = cfg_fail(error, node, "%s: %s", f->key, local->message);
    g_error_free(local);
    return r;
  }
  if (str)
    return cfg_fail(error, node, "'%s' must be a number, got '%s'", f->key, str);
  double r = round(v);
  if (!isfinite(v) || fabs(v - r) > 1e-9 || r < f->min || r > f->max)
    return cfg_fail(error, node, "'%s' must be a whole number from %.0f to %.0f, got %.15g", f->key,
                    f->min, f->max, v);
  *out = (guint64)r;
  return TRUE;
}

static gboolean
load_params(CfgKernel *k, const CfgNode *params, GError **error)
{
  k->param_names = g_ptr_array_new_with_free_func(g_free);
  k->params = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  if (params == NULL)
    return TRUE;
  if (!cfg_node_expect_map(params, "params", error))
    return FALSE;
  for (guint i = 0; i < params->keys->len; i++) {
    const CfgNode *key = g_ptr_array_index(params->keys, i);
    const CfgNode *value = g_ptr_array_index(params->items, i);
    if (!g_ascii_isalpha(key->value[0]) && key->value[0] != '_')
      return cfg_fail(error, key, "parameter names start with a letter, got '%s'", key->value);
    for (const char *c = key->value; *c; c++)
      if (!g_ascii_isalnum(*c) && *c != '_')
        return cfg_fail(error, key, "parameter names use letters, digits and '_', got '%s'",
                        key->value);
    if (value->kind != CFG_NODE_SCALAR)
      return cfg_fail(error, value, "parameter '%s' must be a single value", key->value);
    if (value->value[0] == '\0')
      return cfg_fail(error, value, "parameter '%s' has an empty value", key->value);
    g_ptr_array_add(k->param_names, g_strdup(key->value));
    g_hash_table_insert(k->params, g_strdup(key->value), g_strdup(value->value));
  }
  return TRUE;
}

/* A list of whole numbers (or expressions), e.g. [1, 1, 2, 4]. */
static gboolean
load_passes(const CfgNode *root, const char *key, GHashTable *params, GArray **out, GError **error)
{
  *out = g_array_new(FALSE, FALSE, sizeof(guint));
  const CfgNode *list = cfg_node_get(root, key);
  if (list == NULL) {
    guint one = 1;
    g_array_append_val(*out, one);
    return TRUE;
  }
  if (list->kind != CFG_NODE_SEQ || list->items->len == 0)
    return cfg_fail(error, list, "'%s' must be a list of whole numbers, e.g. [1, 1, 2]", key);
  static const CfgField item = {.key = "pass count", .min = 0, .max = 1e6};
  for (guint i = 0; i < list->items->len; i++) {
    guint64 v;
    if (!launch_value(g_ptr_array_index(list->items, i), &item, params, &v, error))
      return FALSE;
    guint u = (guint)v;
    g_array_append_val(*out, u);
  }
  return TRUE;
}

static gboolean
bind_levels(CfgKernel *k, const CfgNode *stream, const CfgGpu *gpu, GError **error)
{
  int dram = cfg_gpu_level(gpu, "dram");
  k->unnamed_level = cfg_gpu_has_caches(gpu) ? CFG_LEVEL_CACHED : (guint8)MAX(dram, 0);
  for (guint i = 0; i < k->program->n_insns && k->unnamed_level != CFG_LEVEL_CACHED && dram < 0;
       i++) {
    const IsaInsn *insn = &k->program->insns[i];
    if (insn->kind == ISA_INSN_OP && isa_op_info(insn->op)->space == ISA_SPACE_GLOBAL &&
        insn->level == ISA_LEVEL_NONE) {
      g_autofree char *where = cfg_node_where_in_text(stream, insn->line, 1);
      g_set_error(error, CFG_ERROR, CFG_ERROR_INVALID,
                  "%s: this access names no level, and the GPU file has neither caches nor a "
                  "dram level",
                  where);
      return FALSE;
    }
  }
  for (guint l = 0; l < k->program->n_levels; l++) {
    int idx = cfg_gpu_level(gpu, k->program->levels[l]);
    if (idx >= 0) {
      k->level_map[l] = (guint8)idx;
      continue;
    }
    guint line = 1;
    for (guint i = 0; i < k->program->n_insns; i++) {
      const IsaInsn *insn = &k->program->insns[i];
      if (insn->kind == ISA_INSN_OP && isa_op_info(insn->op)->space == ISA_SPACE_GLOBAL &&
          insn->level == l) {
        line = insn->line;
        break;
      }
    }
    GString *known = g_string_new(NULL);
    for (guint i = 0; i < gpu->memory.n_levels; i++)
      g_string_append_printf(known, "%s%s", i ? ", " : "", gpu->memory.levels[i].name);
    g_autofree char *where = cfg_node_where_in_text(stream, line, 1);
    g_set_error(error, CFG_ERROR, CFG_ERROR_INVALID,
                "%s: memory level '%s' is not in the GPU file (it has: %s)", where,
                k->program->levels[l], known->str);
    g_string_free(known, TRUE);
    return FALSE;
  }
  return TRUE;
}

/* Ops the GPU or the launch cannot run: asynchronous copies before compute capability 8.0, or
 * into a block that declares no shared memory. */
static gboolean
check_ops(const CfgKernel *k, const CfgNode *stream, const CfgGpu *gpu, GError **error)
{
  for (guint i = 0; i < k->program->n_insns; i++) {
    const IsaInsn *insn = &k->program->insns[i];
    if (insn->kind != ISA_INSN_OP)
      continue;
    gboolean async = isa_op_is_async(insn->op);
    const char *why = NULL;
    if (async && !gpu->smem.async_copy)
      why = "has no asynchronous copies (shared_memory.async_copy is false)";
    else if (insn->op == ISA_OP_LDGSTS && k->shared_memory_per_block == 0)
      why = "needs shared memory: the kernel declares no shared_memory_per_block";
    g_autofree char *where = cfg_node_where_in_text(stream, insn->line, 1);
    if (why == NULL && isa_op_info(insn->op)->space == ISA_SPACE_GLOBAL && insn->access &&
        k->program->accesses[insn->access - 1].window &&
        gpu->memory.line_bytes / gpu->memory.sector_bytes > 8) {
      g_set_error(error, CFG_ERROR, CFG_ERROR_INVALID,
                  "%s: window= needs lines of at most 8 sectors (memory.line_bytes %u / "
                  "sector_bytes %u)",
                  where, gpu->memory.line_bytes, gpu->memory.sector_bytes);
      return FALSE;
    }
    if (why == NULL)
      continue;
    if (insn->op == ISA_OP_LDGSTS && gpu->smem.async_copy)
      g_set_error(error, CFG_ERROR, CFG_ERROR_INVALID, "%s: LDGSTS %s", where, why);
    else
      g_set_error(error, CFG_ERROR, CFG_ERROR_INVALID, "%s: %s: %s %s", where,
                  isa_op_info(insn->op)->mnemonic, gpu->name ? gpu->name : "this GPU", why);
    return FALSE;
  }
  return TRUE;
}

static gboolean check_launch_fits(CfgKernel *k, const CfgNode *root, const CfgGpu *gpu,
                                  GError **error);

/* Whether the launch fits the GPU; if not, a CFG_ERROR_IMPOSSIBLE error saying why. */
static gboolean
check_launch(CfgKernel *k, const CfgNode *root, const CfgGpu *gpu, GError **error)
{
  GError *local = NULL;
  if (check_launch_fits(k, root, gpu, &local))
    return TRUE;
  local->code = CFG_ERROR_IMPOSSIBLE;
  g_propagate_error(error, local);
  return FALSE;
}

static gboolean
check_launch_fits(CfgKernel *k, const CfgNode *root, const CfgGpu *gpu, GError **error)
{
  const CfgNode *at = cfg_node_get(root, "warps_per_sm");
  if (!at)
    at = cfg_node_get(root, "threads_per_block");
  if (!at)
    at = cfg_node_key(root, "stream");
  if (!at)
    at = cfg_node_get(root, "block");
  if (!at)
    at = root;
  if (k->warps_per_sm > gpu->limits.max_warps)
    return cfg_fail(error, at, "%u warps per SM is impossible: the GPU holds at most %u",
                    k->warps_per_sm, gpu->limits.max_warps);
  if (k->blocks_per_sm > gpu->limits.max_blocks)
    return cfg_fail(error, at, "%u blocks per SM is impossible: the GPU holds at most %u",
                    k->blocks_per_sm, gpu->limits.max_blocks);
  /* every warp slot of every SM gets a scoreboard: bound the memory before allocating it */
  guint64 slots = (guint64)k->warps_per_sm * gpu->sm_count;
  if (slots > CFG_MAX_WARPS_SIMULATED)
    return cfg_fail(error, at,
                    "%u warps per SM x %u SMs = %" G_GUINT64_FORMAT
                    " warps, more than the %u smsim simulates at once",
                    k->warps_per_sm, gpu->sm_count, slots, CFG_MAX_WARPS_SIMULATED);
  if (k->threads_per_block > gpu->limits.max_threads_per_block)
    return cfg_fail(error, at, "blocks of %u threads are impossible: at most %u",
                    k->threads_per_block, gpu->limits.max_threads_per_block);
  const CfgNode *rat = cfg_node_get(root, "registers_per_thread");
  if (!rat)
    rat = at;
  if (k->registers_per_thread > gpu->limits.max_registers_per_thread)
    return cfg_fail(error, rat, "%u registers per thread is over the limit of %u",
                    k->registers_per_thread, gpu->limits.max_registers_per_thread);
  guint64 regs = (guint64)k->registers_per_thread * 32 * k->warps_per_sm;
  if (regs > gpu->limits.registers)
    return cfg_fail(error, rat,
                    "%u warps x 32 threads x %u registers = %" G_GUINT64_FORMAT
                    " registers, more than the %u the SM has",
                    k->warps_per_sm, k->registers_per_thread, regs, gpu->limits.registers);
  guint64 smem = (guint64)k->shared_memory_per_block * k->blocks_per_sm;
  if (smem > gpu->limits.shared_memory_bytes) {
    const CfgNode *sat = cfg_node_get(root, "shared_memory_per_block");
    return cfg_fail(error, sat ? sat : at,
                    "%u blocks x %u bytes of shared memory = %" G_GUINT64_FORMAT
                    " bytes, more than the %u the SM has",
                    k->blocks_per_sm, k->shared_memory_per_block, smem,
                    gpu->limits.shared_memory_bytes);
  }
  /* and the occupancy calculator's verdict, with allocation units and granularities */
  CfgOccupancy occ;
  GError *local = NULL;
  if (!cfg_occupancy(gpu, k->threads_per_block, k->registers_per_thread, k->shared_memory_per_block,
                     &occ, &local)) {
    gboolean r = cfg_fail(error, at, "%s", local->message);
    g_error_free(local);
    return r;
  }
  if (k->blocks_per_sm > occ.blocks) {
    g_autofree char *why = cfg_occupancy_binding(&occ);
    gboolean r =
        cfg_fail(error, at, "%u blocks of %u threads per SM do not fit: at most %u (limited by %s)",
                 k->blocks_per_sm, k->threads_per_block, occ.blocks, why);
    return r;
  }
  return TRUE;
}

/* require: [{that: "$grid == ($n / 32) * ($n / 32)", else: "grid is (n / 32)^2 blocks"}] */
static gboolean
check_requirements(const CfgNode *list, GHashTable *params, GError **error)
{
  if (!list)
    return TRUE;
  if (list->kind != CFG_NODE_SEQ)
    return cfg_fail(error, list, "'require' must be a list of {that: EXPRESSION, else: MESSAGE}");
  for (guint i = 0; i < list->items->len; i++) {
    const CfgNode *item = g_ptr_array_index(list->items, i);
    const CfgNode *that = item->kind == CFG_NODE_MAP ? cfg_node_get(item, "that") : NULL;
    const CfgNode *otherwise = item->kind == CFG_NODE_MAP ? cfg_node_get(item, "else") : NULL;
    if (!that || !otherwise || that->kind != CFG_NODE_SCALAR ||
        otherwise->kind != CFG_NODE_SCALAR || item->keys->len != 2)
      return cfg_fail(error, item, "a requirement is {that: EXPRESSION, else: MESSAGE}");
    double v;
    g_autofree char *str = NULL;
    GError *local = NULL;
    if (!isa_asm_eval(that->value, params, &v, &str, &local)) {
      gboolean r = cfg_fail(error, that, "require: %s", local->message);
      g_error_free(local);
      return r;
    }
    if (str)
      return cfg_fail(error, that, "require: '%s' is not a condition", that->value);
    if (v == 0)
      return cfg_fail(error, that, "%s", otherwise->value);
  }
  return TRUE;
}

static CfgKernel *
kernel_load(const CfgNode *root, const CfgGpu *gpu, GError **error)
{
  g_autoptr(CfgKernel) k = g_new0(CfgKernel, 1);
  k->name = g_strdup("unnamed kernel");
  k->description = g_strdup("");
  if (cfg_is_gpu_file(root))
    return (cfg_fail(error, root,
                     "this is a GPU file (it has 'schedulers', 'units' or 'memory'), not a "
                     "kernel: the GPU file comes first (smsim run GPU.yaml KERNEL.yaml)"),
            NULL);
  for (guint i = 0; i < root->keys->len; i++) {
    const CfgNode *key = g_ptr_array_index(root->keys, i);
    if (cfg_kernel_field(key->value) == NULL) {
      GString *known = g_string_new(NULL);
      guint n_fields;
      const CfgField *fields = cfg_kernel_fields(&n_fields);
      for (guint j = 0; j < n_fields; j++)
        g_string_append_printf(known, "%s%s", j ? ", " : "", fields[j].key);
      gboolean r = cfg_fail(error, key, "unknown key '%s' in the kernel file (known keys: %s)",
                            key->value, known->str);
      g_string_free(known, TRUE);
      (void)r;
      return NULL;
    }
  }
  if (!load_params(k, cfg_node_get(root, "params"), error))
    return NULL;
  for (guint i = 0; i < 2; i++) {
    const CfgField *f = cfg_kernel_field(i == 0 ? "name" : "description");
    const CfgNode *v = cfg_node_get(root, f->key);
    if (v && v->kind != CFG_NODE_SCALAR)
      return (cfg_fail(error, v, "'%s' must be text", f->key), NULL);
    if (v) {
      char **dst = i == 0 ? &k->name : &k->description;
      g_free(*dst);
      *dst = g_strdup(v->value);
    }
  }
  if (!check_requirements(cfg_node_get(root, "require"), k->params, error))
    return NULL;
  g_autoptr(GPtrArray) ranges = cfg_param_ranges(root, error);
  if (ranges == NULL)
    return NULL;
  const CfgNode *written = cfg_node_get(root, "written_before_launch");
  if (written && !launch_value(written, cfg_kernel_field("written_before_launch"), k->params,
                               &k->written_before_launch, error))
    return NULL;
  if (cfg_node_get(root, "sass")) {
    if (!cfg_sass_kernel_load(k, root, gpu, error) || !check_launch(k, root, gpu, error))
      return NULL;
    return g_steal_pointer(&k);
  }
  static const char *const sass_only[] = {"function",
                                          "grid",
                                          "block",
                                          "dynamic_shared_bytes",
                                          "static_shared_bytes",
                                          "local_bytes_per_thread",
                                          "arguments",
                                          "constants"};
  for (guint i = 0; i < G_N_ELEMENTS(sass_only); i++)
    if (cfg_node_get(root, sass_only[i]))
      return (cfg_fail(error, cfg_node_key(root, sass_only[i]),
                       "'%s' is for kernels over SASS (with a 'sass' file)", sass_only[i]),
              NULL);
  guint64 vals[5] = {0, 0, 0, 32, 0};
  static const char *const launch_keys[] = {"warps_per_sm", "threads_per_block", "blocks_per_sm",
                                            "registers_per_thread", "shared_memory_per_block"};
  for (guint i = 0; i < G_N_ELEMENTS(launch_keys); i++) {
    const CfgNode *v = cfg_node_get(root, launch_keys[i]);
    if (v && !launch_value(v, cfg_kernel_field(launch_keys[i]), k->params, &vals[i], error))
      return NULL;
  }
  const CfgNode *ipw = cfg_node_get(root, "instructions_per_warp");
  if (ipw && !launch_value(ipw, cfg_kernel_field("instructions_per_warp"), k->params,
                           &k->instructions_per_warp, error))
    return NULL;
  const CfgNode *warm = cfg_node_get(root, "warm_up");
  guint64 warm_up = 0;
  if (warm && !launch_value(warm, cfg_kernel_field("warm_up"), k->params, &warm_up, error))
    return NULL;
  k->warm_up = warm_up != 0;
  guint64 grid = 0;
  const CfgNode *grid_node = cfg_node_get(root, "blocks");
  if (grid_node && !launch_value(grid_node, cfg_kernel_field("blocks"), k->params, &grid, error))
    return NULL;
  if (!load_passes(root, "warp_passes", k->params, &k->warp_passes, error) ||
      !load_passes(root, "block_passes", k->params, &k->block_passes, error))
    return NULL;
  guint64 warps = vals[0], tpb = vals[1], blocks = vals[2];
  if (warps == 0 && tpb == 0)
    return (cfg_fail(error, root, "the kernel needs warps_per_sm or threads_per_block"), NULL);
  if (warps != 0 && tpb != 0) {
    const CfgNode *v = cfg_node_get(root, "threads_per_block");
    return (cfg_fail(error, v,
                     "give warps_per_sm or threads_per_block (with blocks_per_sm), "
                     "not both"),
            NULL);
  }
  gboolean warps_given = warps != 0;
  if (warps != 0) {
    /* blocks as large as the GPU allows, split evenly (the calibration workload's launch) */
    if (blocks == 0)
      blocks =
          (warps * 32 + gpu->limits.max_threads_per_block - 1) / gpu->limits.max_threads_per_block;
    if (blocks > warps)
      blocks = warps;
    k->warps_per_block = (guint)((warps + blocks - 1) / blocks);
    k->threads_per_block = k->warps_per_block * 32;
  } else {
    if (blocks == 0)
      blocks = 1;
    k->threads_per_block = (guint)tpb;
    k->warps_per_block = (guint)((tpb + 31) / 32);
    warps = blocks * k->warps_per_block;
  }
  k->warps_per_sm = (guint)MIN(warps, G_MAXUINT);
  k->blocks_per_sm = (guint)blocks;
  k->grid_blocks = (guint)MIN(blocks * gpu->sm_count, G_MAXUINT); /* every SM full */
  if (grid_node) {
    if (warps_given) {
      return (
          cfg_fail(error, grid_node, "a grid of blocks needs threads_per_block, not warps_per_sm"),
          NULL);
    }
    /* the SM holds as many blocks as fit (or blocks_per_sm if given), the grid has the rest */
    CfgOccupancy occ;
    GError *local = NULL;
    if (!cfg_occupancy(gpu, k->threads_per_block, (guint)vals[3], (guint)vals[4], &occ, &local)) {
      cfg_fail(error, grid_node, "%s", local->message);
      g_error_free(local);
      return NULL;
    }
    guint resident =
        cfg_node_get(root, "blocks_per_sm") ? MIN(k->blocks_per_sm, occ.blocks) : occ.blocks;
    k->grid_blocks = (guint)grid;
    k->blocks_per_sm = MIN(resident, k->grid_blocks);
    k->warps_per_sm = k->blocks_per_sm * k->warps_per_block;
  }
  k->registers_per_thread = (guint)vals[3];
  k->shared_memory_per_block = (guint)vals[4];
  if (!check_launch(k, root, gpu, error))
    return NULL;

  const CfgNode *stream = cfg_node_get(root, "stream");
  if (stream == NULL)
    return (cfg_fail(error, root, "the kernel needs a stream"), NULL);
  if (stream->kind != CFG_NODE_SCALAR)
    return (cfg_fail(error, stream, "'stream' must be text (use a block scalar: stream: |)"), NULL);
  guint line = 0, col = 0;
  GError *local = NULL;
  k->program = isa_asm_parse(stream->value, k->params, &line, &col, &local);
  if (k->program == NULL) {
    g_autofree char *where = cfg_node_where_in_text(stream, line, col);
    g_set_error(error, CFG_ERROR, CFG_ERROR_INVALID, "%s: %s", where, local->message);
    g_error_free(local);
    return NULL;
  }
  if (!bind_levels(k, stream, gpu, error) || !check_ops(k, stream, gpu, error))
    return NULL;
  return g_steal_pointer(&k);
}

CfgKernel *
cfg_kernel_load(const CfgNode *root, const CfgGpu *gpu, GError **error)
{
  GError *local = NULL;
  CfgKernel *k = kernel_load(root, gpu, &local);
  if (k)
    return k;
  /* a bad value set on the command line shows up where the kernel uses it: say so */
  const CfgNode *params = cfg_node_get(root, "params");
  GString *set = g_string_new(NULL);
  for (guint i = 0; params && params->kind == CFG_NODE_MAP && i < params->keys->len; i++) {
    const CfgNode *v = g_ptr_array_index(params->items, i);
    if (v->set_key && v->kind == CFG_NODE_SCALAR)
      g_string_append_printf(set, "%s%s=%s", set->len ? ", " : "",
                             ((CfgNode *)g_ptr_array_index(params->keys, i))->value, v->value);
  }
  if (set->len && !g_str_has_prefix(local->message, "--")) {
    char *msg = g_strdup_printf("%s (parameters set with --set: %s)", local->message, set->str);
    g_free(local->message);
    local->message = msg;
  }
  g_string_free(set, TRUE);
  g_propagate_error(error, local);
  return NULL;
}
