/* A GPU file's sass.ops: how each SASS opcode runs there (unit, latency, issue cycles, lanes),
 * read and printed back. */
#include "sass-config.h"

#include <string.h>

/* sass: {stall_counts: true, ops: {DFMA: {unit: alu, latency_cycles: 8, ...}, ...}} */
gboolean
cfg_sass_ops_load(CfgGpu *g, const CfgNode *map, GError **error)
{
  if (map == NULL)
    return TRUE;
  if (!cfg_node_expect_map(map, "sass", error))
    return FALSE;
  for (guint i = 0; i < map->keys->len; i++) {
    const CfgNode *key = g_ptr_array_index(map->keys, i);
    if (strcmp(key->value, "ops") != 0 && strcmp(key->value, "stall_counts") != 0)
      return cfg_fail(error, key, "unknown key '%s' in sass (known keys: ops, stall_counts)",
                      key->value);
  }
  static const CfgField sass_fields[] = {
      {.key = "stall_counts",
       .type = CFG_FIELD_BOOL,
       .offset = G_STRUCT_OFFSET(CfgGpu, sass.stall_counts),
       .doc = "a warp waits after each instruction the cycles of its SASS's stall count"},
      {.key = "ops", .type = CFG_FIELD_SECTION, .doc = "how each SASS opcode runs"},
  };
  if (!cfg_load_fields(map, "sass", sass_fields, G_N_ELEMENTS(sass_fields), g, error))
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
    } o = {.unit = -1};
    static const char *const unit_names[] = {"alu", "sfu", "ldst", NULL};
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
    if (o.lanes && !(32 % o.lanes == 0 || o.lanes % 32 == 0))
      return cfg_fail(error, cfg_node_get(value, "lanes_per_scheduler"),
                      "lanes_per_scheduler must divide 32 or be a multiple of 32, got %u", o.lanes);
    g->sass.unit[op] = (guint8)(o.unit + 1);
    g->sass.latency[op] = o.latency_cycles;
    g->sass.issue_cycles[op] = o.issue_cycles;
    g->sass.lanes[op] = o.lanes;
  }
  return TRUE;
}

void
cfg_sass_ops_print(const CfgGpu *g, GString *out)
{
  gboolean any = FALSE;
  for (guint op = 0; op < SASS_OP_COUNT; op++) {
    if (!g->sass.unit[op] && !g->sass.latency[op] && !g->sass.issue_cycles[op] &&
        !g->sass.lanes[op])
      continue;
    if (!any)
      g_string_append(out, g->sass.stall_counts ? "sass:\n  stall_counts: true\n  ops:\n"
                                                : "sass:\n  ops:\n");
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
    g_string_append_printf(out, "    %s: {%s}\n", sass_op_name((SassOp)op), fields->str + 2);
    g_string_free(fields, TRUE);
  }
  if (!any && g->sass.stall_counts)
    g_string_append(out, "sass:\n  stall_counts: true\n");
}
