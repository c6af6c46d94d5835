/* A GPU file's sass.ops: how each SASS opcode runs there (unit, latency, issue cycles, lanes),
 * read and printed back. */
#include "sass-config.h"

#include "gpu-internal.h"

#include <string.h>

/* The settings of one entry of sass.ops, @value, for @op (with @mod, or SASS_MOD_COUNT for the
 * opcode alone) named by @key.  An opcode's entry may hold its modifiers' own
 * (IMAD: {WIDE: {...}}, what --set sass.ops.IMAD.WIDE.KEY makes), as IMAD.WIDE: {...}. */
static gboolean
load_op(CfgGpu *g, const CfgNode *key, SassOp op, SassMod mod, const CfgNode *value, GError **error)
{
  g_autofree char *section =
      mod == SASS_MOD_COUNT
          ? g_strdup_printf("sass.ops.%s", sass_op_name(op))
          : g_strdup_printf("sass.ops.%s.%s", sass_op_name(op), sass_mod_name(mod));
  if (!cfg_node_expect_map(value, section, error))
    return FALSE;
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
  /* its own keys apart from its modifiers' entries */
  CfgNode fields = *value;
  fields.keys = g_ptr_array_new();
  fields.items = g_ptr_array_new();
  gboolean ok = TRUE;
  for (guint k = 0; ok && k < value->keys->len; k++) {
    const CfgNode *sub = g_ptr_array_index(value->keys, k);
    const CfgNode *item = g_ptr_array_index(value->items, k);
    SassMod m;
    if (mod == SASS_MOD_COUNT && item->kind == CFG_NODE_MAP && sass_mod_lookup(sub->value, &m)) {
      ok = load_op(g, sub, op, m, item, error);
      continue;
    }
    g_ptr_array_add(fields.keys, (gpointer)sub);
    g_ptr_array_add(fields.items, (gpointer)item);
  }
  ok = ok && cfg_load_fields(&fields, section, op_fields, G_N_ELEMENTS(op_fields), &o, error);
  g_ptr_array_unref(fields.keys);
  g_ptr_array_unref(fields.items);
  if (!ok)
    return FALSE;
  guint lowered = sass_op_lowered(op);
  if (o.unit >= 0 && isa_op_info((IsaOp)lowered)->space != ISA_SPACE_NONE &&
      (guint)o.unit != ISA_UNIT_LDST)
    return cfg_fail(error, cfg_node_get(value, "unit"), "%s accesses memory: it runs on ldst",
                    section + strlen("sass.ops."));
  IsaUnit runs_on = o.unit >= 0 ? (IsaUnit)o.unit : isa_op_info((IsaOp)lowered)->unit;
  if (o.pipe != CFG_SASS_PIPE_UNIT && runs_on != ISA_UNIT_ALU)
    return cfg_fail(error, cfg_node_get(value, "pipe"),
                    "%s runs on %s: only an opcode of the CUDA cores (alu) has another pipe",
                    section + strlen("sass.ops."), isa_unit_name(runs_on));
  if (o.lanes && !(32 % o.lanes == 0 || o.lanes % 32 == 0))
    return cfg_fail(error, cfg_node_get(value, "lanes_per_scheduler"),
                    "lanes_per_scheduler must divide 32 or be a multiple of 32, got %u", o.lanes);
  if (mod == SASS_MOD_COUNT) {
    g->sass.unit[op] = (guint8)(o.unit + 1);
    g->sass.latency[op] = o.latency_cycles;
    g->sass.issue_cycles[op] = o.issue_cycles;
    g->sass.lanes[op] = o.lanes;
    g->sass.pipe[op] = (guint8)o.pipe;
    return TRUE;
  }
  for (guint k = 0; k < g->sass.n_mod_ops; k++)
    if (g->sass.mod_ops[k].op == op && g->sass.mod_ops[k].mod == mod)
      return cfg_fail(error, key, "sass.ops.%s.%s is given twice", sass_op_name(op),
                      sass_mod_name(mod));
  if (g->sass.n_mod_ops == CFG_SASS_MOD_OPS)
    return cfg_fail(error, key, "sass.ops: at most %d opcodes with a modifier", CFG_SASS_MOD_OPS);
  g->sass.mod_ops[g->sass.n_mod_ops++] = (CfgSassModOp){
      .op = (guint16)op,
      .mod = (guint16)mod,
      .unit = (guint8)(o.unit + 1),
      .pipe = (guint8)o.pipe,
      .latency = o.latency_cycles,
      .issue_cycles = o.issue_cycles,
      .lanes = o.lanes,
  };
  return TRUE;
}

/* the sass section's own keys (its branch section's are cfg_sass_branch_fields) */
const CfgField cfg_sass_fields[CFG_N_SASS_FIELDS] = {
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
    {.key = "fetch_turns",
     .type = CFG_FIELD_BOOL,
     .offset = G_STRUCT_OFFSET(CfgGpu, sass.fetch_turns),
     .doc = "a scheduler fetches for its warps in turn, one a cycle: a taken branch's target "
            "waits for its warp's turn once the branch resolves, and the instructions past its "
            "first two for the turn after"},
    {.key = "fetch_cycles",
     .type = CFG_FIELD_UINT,
     .offset = G_STRUCT_OFFSET(CfgGpu, sass.fetch_cycles),
     .min = 0,
     .max = 255,
     .doc = "with fetch_turns: from a warp's turn to the fetched instructions' issue"},
    {.key = "exit_cycles",
     .type = CFG_FIELD_UINT,
     .offset = G_STRUCT_OFFSET(CfgGpu, sass.exit_cycles),
     .min = 0,
     .max = 255,
     .doc = "an EXIT's wait past its stall count (branch_resolving): before the next "
            "instruction of the lanes it leaves, or before the warp that exits leaves its "
            "slot (then drain, for its accesses in flight)"},
    {.key = "fair_window",
     .type = CFG_FIELD_UINT,
     .offset = G_STRUCT_OFFSET(CfgGpu, sass.fair_window),
     .min = 0,
     .max = 64,
     .doc = "with yield_hints: past a yield, the scheduler's turn skips a warp that issued in "
            "more than fair_margin cycles more of the last this many than the eligible warp of "
            "its block that issued in fewest (0: the next eligible warp in turn)"},
    {.key = "fair_margin",
     .type = CFG_FIELD_UINT,
     .offset = G_STRUCT_OFFSET(CfgGpu, sass.fair_margin),
     .min = 0,
     .max = 64,
     .doc = "with fair_window: the issue cycles a warp may be ahead of the eligible warp "
            "that issued in fewest and still take its turn"},
    {.key = "ops", .type = CFG_FIELD_SECTION, .doc = "how each SASS opcode runs"},
    {.key = "branch",
     .type = CFG_FIELD_SECTION,
     .doc = "what branches cost kernels over SASS, where it differs from the branch section"},
};

/* sass: {stall_counts: true, yield_hints: true, branch: {bsync_cycles: 13, ...},
 *        ops: {DFMA: {unit: alu, latency_cycles: 8, ...}, ...}}; after the branch section */
gboolean
cfg_sass_ops_load(CfgGpu *g, const CfgNode *map, GError **error)
{
  if (map == NULL)
    return TRUE;
  if (!cfg_node_expect_map(map, "sass", error))
    return FALSE;
  if (!cfg_load_fields(map, "sass", cfg_sass_fields, CFG_N_SASS_FIELDS, g, error))
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
    /* OPCODE, or OPCODE.MODIFIER for the instructions of the opcode that carry the modifier */
    g_auto(GStrv) parts = g_strsplit(key->value, ".", 3);
    SassOp op;
    SassMod mod = SASS_MOD_COUNT;
    if (!sass_op_lookup(parts[0], &op))
      return cfg_fail(error, key, "unknown SASS opcode '%s' in sass.ops", parts[0]);
    if (parts[1] && parts[2])
      return cfg_fail(error, key, "sass.ops.%s: an opcode with one modifier at most (%s.%s)",
                      key->value, parts[0], parts[1]);
    if (parts[1] && !sass_mod_lookup(parts[1], &mod))
      return cfg_fail(error, key, "unknown SASS modifier '%s' in sass.ops.%s", parts[1],
                      key->value);
    if (!load_op(g, key, op, mod, g_ptr_array_index(ops->items, i), error))
      return FALSE;
  }
  return TRUE;
}

/* one line of sass.ops: "    IMAD.WIDE: {pipe: fmaheavy, lanes_per_scheduler: 8}" (a field of
 * 0 is not written) */
static void
print_op(GString *body, const char *name, guint unit, guint latency, guint issue_cycles,
         guint lanes, guint pipe)
{
  GString *fields = g_string_new(NULL);
  if (unit)
    g_string_append_printf(fields, ", unit: %s", isa_unit_name(unit - 1u));
  if (latency)
    g_string_append_printf(fields, ", latency_cycles: %u", latency);
  if (issue_cycles)
    g_string_append_printf(fields, ", issue_cycles: %u", issue_cycles);
  if (lanes)
    g_string_append_printf(fields, ", lanes_per_scheduler: %u", lanes);
  if (pipe)
    g_string_append_printf(fields, ", pipe: %s", pipe == CFG_SASS_PIPE_INT ? "int" : "fmaheavy");
  g_string_append_printf(body, "    %s: {%s}\n", name, fields->len ? fields->str + 2 : "");
  g_string_free(fields, TRUE);
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
  if (g->sass.fetch_turns)
    g_string_append(body, "  fetch_turns: true\n");
  if (g->sass.fetch_cycles)
    g_string_append_printf(body, "  fetch_cycles: %u\n", g->sass.fetch_cycles);
  if (g->sass.exit_cycles)
    g_string_append_printf(body, "  exit_cycles: %u\n", g->sass.exit_cycles);
  if (g->sass.fair_window)
    g_string_append_printf(body, "  fair_window: %u\n  fair_margin: %u\n", g->sass.fair_window,
                           g->sass.fair_margin);
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
    print_op(body, sass_op_name((SassOp)op), g->sass.unit[op], g->sass.latency[op],
             g->sass.issue_cycles[op], g->sass.lanes[op], g->sass.pipe[op]);
  }
  for (guint i = 0; i < g->sass.n_mod_ops; i++) {
    if (!any)
      g_string_append(body, "  ops:\n");
    any = TRUE;
    g_autofree char *name = g_strdup_printf("%s.%s", sass_op_name((SassOp)g->sass.mod_ops[i].op),
                                            sass_mod_name((SassMod)g->sass.mod_ops[i].mod));
    print_op(body, name, g->sass.mod_ops[i].unit, g->sass.mod_ops[i].latency,
             g->sass.mod_ops[i].issue_cycles, g->sass.mod_ops[i].lanes, g->sass.mod_ops[i].pipe);
  }
  if (body->len)
    g_string_append_printf(out, "sass:\n%s", body->str);
  g_string_free(body, TRUE);
}
