/* A GPU file's sass.ops: how each SASS opcode runs there (unit, latency, issue cycles, lanes),
 * read and printed back. */
#include "sass-config.h"

#include "gpu-internal.h"

#include <string.h>

/* sass: {stall_counts: true, yield_hints: true, branch: {bsync_cycles: 13, ...},
 *        ops: {DFMA: {unit: alu, latency_cycles: 8, ...}, ...}}; after the branch section */
gboolean
cfg_sass_ops_load(CfgGpu *g, const CfgNode *map, GError **error)
{
  if (map == NULL)
    return TRUE;
  if (!cfg_node_expect_map(map, "sass", error))
    return FALSE;
  static const CfgField sass_fields[] = {
      {.key = "stall_counts",
       .type = CFG_FIELD_BOOL,
       .offset = G_STRUCT_OFFSET(CfgGpu, sass.stall_counts),
       .doc = "a warp waits after each instruction the cycles of its SASS's stall count"},
      {.key = "yield_hints",
       .type = CFG_FIELD_BOOL,
       .offset = G_STRUCT_OFFSET(CfgGpu, sass.yield_hints),
       .doc = "a warp whose SASS instruction does not ask it to yield keeps its scheduler the "
              "next cycle, if it can issue then"},
      {.key = "branch_resolving_cycles",
       .type = CFG_FIELD_UINT,
       .offset = G_STRUCT_OFFSET(CfgGpu, sass.branch_resolving_cycles),
       .min = 0,
       .max = 255,
       .doc = "of a taken branch's wait past its stall count, the first cycles are Nsight's "
              "branch_resolving, the rest no_instruction"},
      {.key = "launch_fetch_cycles",
       .type = CFG_FIELD_UINT,
       .offset = G_STRUCT_OFFSET(CfgGpu, sass.launch_fetch_cycles),
       .min = 0,
       .max = 255,
       .doc = "a warp's first instruction issues no sooner than this after the warp starts "
              "(no_instruction: it is fetched)"},
      {.key = "exit_cycles",
       .type = CFG_FIELD_UINT,
       .offset = G_STRUCT_OFFSET(CfgGpu, sass.exit_cycles),
       .min = 0,
       .max = 255,
       .doc = "an EXIT's wait past its stall count (branch_resolving): before the next "
              "instruction of the lanes it leaves, or before the warp that exits leaves its "
              "slot (then drain, for its accesses in flight)"},
      {.key = "ops", .type = CFG_FIELD_SECTION, .doc = "how each SASS opcode runs"},
      {.key = "branch",
       .type = CFG_FIELD_SECTION,
       .doc = "what branches cost kernels over SASS, where it differs from the branch section"},
  };
  if (!cfg_load_fields(map, "sass", sass_fields, G_N_ELEMENTS(sass_fields), g, error))
    return FALSE;
  if (!cfg_load_fields(cfg_node_get(map, "branch"), "sass.branch", cfg_sass_branch_fields,
                       CFG_N_BRANCH_FIELDS, g, error))
    return FALSE;
  const CfgNode *ops = cfg_node_get(map, "ops");
  if (ops == NULL)
    return TRUE;
  if (!cfg_node_expect_map(ops, "sass.ops", error))
    return FALSE;
  for (guint i = 0; i < ops->keys->len; i++) {
    const CfgNode *key = g_ptr_array_index(ops->keys, i);
    SassOp op;
    if (!sass_op_lookup(key->value, &op))
      return cfg_fail(error, key, "unknown SASS opcode '%s' in sass.ops", key->value);
    struct {
      int unit;
      guint latency_cycles, issue_cycles, lanes;
      int pipe;
    } o = {.unit = -1, .pipe = CFG_SASS_PIPE_UNIT};
    static const char *const unit_names[] = {"alu", "sfu", "ldst", NULL};
    static const char *const pipe_names[] = {"unit", "int", "fmaheavy", NULL};
    static const CfgField op_fields[] = {
        {.key = "unit", .type = CFG_FIELD_ENUM, .names = unit_names, .doc = "alu, sfu or ldst"},
        {.key = "latency_cycles",
         .type = CFG_FIELD_UINT,
         .offset = sizeof(int),
         .min = 1,
         .max = 1u << 20},
        {.key = "issue_cycles",
         .type = CFG_FIELD_UINT,
         .offset = sizeof(int) + sizeof(guint),
         .min = 1,
         .max = 64},
        {.key = "lanes_per_scheduler",
         .type = CFG_FIELD_UINT,
         .offset = sizeof(int) + 2 * sizeof(guint),
         .min = 1,
         .max = 1024},
        {.key = "pipe",
         .type = CFG_FIELD_ENUM,
         .names = pipe_names,
         .offset = sizeof(int) + 3 * sizeof(guint),
         .doc = "unit (its unit's pipe), int or fmaheavy (a pipe of its own beside the CUDA "
                "cores, of the opcode's lanes)"},
    };
    g_autofree char *section = g_strdup_printf("sass.ops.%s", key->value);
    const CfgNode *value = g_ptr_array_index(ops->items, i);
    if (!cfg_load_fields(value, section, op_fields, G_N_ELEMENTS(op_fields), &o, error))
      return FALSE;
    guint lowered = sass_op_lowered(op);
    if (o.unit >= 0 && isa_op_info((IsaOp)lowered)->space != ISA_SPACE_NONE &&
        (guint)o.unit != ISA_UNIT_LDST)
      return cfg_fail(error, cfg_node_get(value, "unit"), "%s accesses memory: it runs on ldst",
                      key->value);
    IsaUnit runs_on = o.unit >= 0 ? (IsaUnit)o.unit : isa_op_info((IsaOp)lowered)->unit;
    if (o.pipe != CFG_SASS_PIPE_UNIT && runs_on != ISA_UNIT_ALU)
      return cfg_fail(error, cfg_node_get(value, "pipe"),
                      "%s runs on %s: only an opcode of the CUDA cores (alu) has another pipe",
                      key->value, isa_unit_name(runs_on));
    if (o.lanes && !(32 % o.lanes == 0 || o.lanes % 32 == 0))
      return cfg_fail(error, cfg_node_get(value, "lanes_per_scheduler"),
                      "lanes_per_scheduler must divide 32 or be a multiple of 32, got %u", o.lanes);
    g->sass.unit[op] = (guint8)(o.unit + 1);
    g->sass.latency[op] = o.latency_cycles;
    g->sass.issue_cycles[op] = o.issue_cycles;
    g->sass.lanes[op] = o.lanes;
    g->sass.pipe[op] = (guint8)o.pipe;
  }
  return TRUE;
}

void
cfg_sass_ops_print(const CfgGpu *g, GString *out)
{
  GString *body = g_string_new(NULL);
  if (g->sass.stall_counts)
    g_string_append(body, "  stall_counts: true\n");
  if (g->sass.yield_hints)
    g_string_append(body, "  yield_hints: true\n");
  if (g->sass.branch_resolving_cycles)
    g_string_append_printf(body, "  branch_resolving_cycles: %u\n",
                           g->sass.branch_resolving_cycles);
  if (g->sass.launch_fetch_cycles)
    g_string_append_printf(body, "  launch_fetch_cycles: %u\n", g->sass.launch_fetch_cycles);
  if (g->sass.exit_cycles)
    g_string_append_printf(body, "  exit_cycles: %u\n", g->sass.exit_cycles);
  const CfgBranch *b = &g->sass.branch, *a = &g->branch;
  if (memcmp(b, a, sizeof *b) != 0) {
    /* only the keys that differ, so the file reads back the same */
    g_string_append(body, "  branch:\n");
    const guint mine[] = {b->taken_cycles, b->bssy_cycles, b->bsync_cycles, b->not_taken_cycles,
                          b->divergent_cycles};
    const guint theirs[] = {a->taken_cycles, a->bssy_cycles, a->bsync_cycles, a->not_taken_cycles,
                            a->divergent_cycles};
    G_STATIC_ASSERT(G_N_ELEMENTS(mine) == CFG_N_BRANCH_FIELDS);
    for (guint k = 0; k < CFG_N_BRANCH_FIELDS; k++)
      if (mine[k] != theirs[k])
        g_string_append_printf(body, "    %s: %u\n", cfg_sass_branch_fields[k].key, mine[k]);
  }
  gboolean any = FALSE;
  for (guint op = 0; op < SASS_OP_COUNT; op++) {
    if (!g->sass.unit[op] && !g->sass.latency[op] && !g->sass.issue_cycles[op] &&
        !g->sass.lanes[op] && !g->sass.pipe[op])
      continue;
    if (!any)
      g_string_append(body, "  ops:\n");
    any = TRUE;
    GString *fields = g_string_new(NULL);
    if (g->sass.unit[op])
      g_string_append_printf(fields, ", unit: %s", isa_unit_name(g->sass.unit[op] - 1u));
    if (g->sass.latency[op])
      g_string_append_printf(fields, ", latency_cycles: %u", g->sass.latency[op]);
    if (g->sass.issue_cycles[op])
      g_string_append_printf(fields, ", issue_cycles: %u", g->sass.issue_cycles[op]);
    if (g->sass.lanes[op])
      g_string_append_printf(fields, ", lanes_per_scheduler: %u", g->sass.lanes[op]);
    if (g->sass.pipe[op])
      g_string_append_printf(fields, ", pipe: %s",
                             g->sass.pipe[op] == CFG_SASS_PIPE_INT ? "int" : "fmaheavy");
    g_string_append_printf(body, "    %s: {%s}\n", sass_op_name((SassOp)op), fields->str + 2);
    g_string_free(fields, TRUE);
  }
  if (body->len)
    g_string_append_printf(out, "sass:\n%s", body->str);
  g_string_free(body, TRUE);
}
