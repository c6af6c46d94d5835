/* Loading a GPU file: the key table, defaults, range checks and derived values (latency per
 * consumer, issue costs).  Not YAML parsing (load.c) nor occupancy rules (occupancy.c). */
#include "gpu.h"

#include "gpu-internal.h"
#include "sass-config.h"

#include <math.h>
#include <string.h>

static const char *const policy_names[] = {"lrr",       "gto",          "oldest",
                                           "two_level", "last_resumed", NULL};
static const char *const dual_names[] = {"same_warp", "any_warp", NULL};
static const char *const block_priority_names[] = {"none", "oldest", "youngest", NULL};
static const char *const block_priority_at_names[] = {"every_pick", "yields", NULL};
static const char *const granularity_names[] = {"warp", "block", NULL};
static const char *const queue_count_names[] = {"passes", "accesses", NULL};
static const char *const throttle_order_names[] = {"turns", "arrival", NULL};
static const char *const store_read_at_names[] = {"last_pass", "first_pass", NULL};

#define FE(k, field, n, d)                                                                         \
  {                                                                                                \
    .key = k, .type = CFG_FIELD_ENUM, .offset = G_STRUCT_OFFSET(CfgGpu, field), .names = n,        \
    .doc = d                                                                                       \
  }
#define FS(k, d)                                                                                   \
  {                                                                                                \
    .key = k, .type = CFG_FIELD_SECTION, .doc = d                                                  \
  }

static const CfgField top_fields[] = {
    F("name", CFG_FIELD_STRING, name, 0, 0, NULL, "display name"),
    F("clock_mhz", CFG_FIELD_DOUBLE, clock_mhz, 1, 1e5, "MHz", "SM clock, to convert to seconds"),
    F("schedulers", CFG_FIELD_UINT, schedulers, 1, 16, "per SM", "warp schedulers"),
    F("issue_width", CFG_FIELD_UINT, issue_width, 1, 4, "instructions/cycle",
      "instructions one scheduler may issue per cycle"),
    FE("dual_issue", dual_issue, dual_names,
       "same_warp: extra issues come from the same warp; any_warp: from different warps"),
    FE("policy", policy, policy_names, "warp scheduling policy"),
    FE("block_priority", block_priority, block_priority_names,
       "oldest / youngest: a scheduler issues from the warps of the earliest / latest launched "
       "block that has one ready, by policy among them (each block keeps its own round-robin "
       "place); none: all warps alike"),
    FE("block_priority_at", block_priority_at, block_priority_at_names,
       "every_pick: block_priority decides every pick; yields: only after an instruction that "
       "yields (sass.yield_hints): when the warp whose instruction did not yield cannot go on, "
       "the next warp in turn issues, whatever its block"),
    F("sm_count", CFG_FIELD_UINT, sm_count, 1, CFG_MAX_SM_COUNT, "SMs",
      "SMs simulated together; memory bandwidth and channels are per SM and add up"),
    F("launch_cycles", CFG_FIELD_UINT, launch_cycles, 0, 1u << 24, "cycles",
      "a kernel lasts this much beyond its warps (from its launch to its first block's start and "
      "from its last warp's end to its own, together): what an empty kernel lasts; in "
      "elapsed_cycles and milliseconds, not in cycles"),
    F("block_launch_cycles", CFG_FIELD_UINT, block_launch_cycles, 0, 1u << 20, "cycles",
      "a block slot freed by a retiring block takes the next block this much later"),
    F("block_dispatch_cycles", CFG_FIELD_DOUBLE, block_dispatch_cycles, 0, 1e6, "cycles",
      "the GPU's block dispatcher takes this long a block, shared by the sm_count SMs: an SM "
      "takes blocks at most once in sm_count times this on average, however many of its slots "
      "are free, block_dispatch_burst at once, and a kernel ends no sooner than its last "
      "block's turn (0: no dispatcher)"),
    F("block_dispatch_burst", CFG_FIELD_UINT, block_dispatch_burst, 1, 1024, "blocks",
      "blocks an SM may take at once under block_dispatch_cycles: at the launch, or after as "
      "long without one (a token bucket of this many, one back every sm_count x "
      "block_dispatch_cycles)"),
    F("warp_launch_cycles", CFG_FIELD_UINT, warp_launch_cycles, 0, 1u << 16, "cycles",
      "a launched block's warps start this long apart, in their order: warp k of the block "
      "k times this after its first"),
    F("register_write_ports", CFG_FIELD_UINT, register_write_ports, 0, 8, "results/cycle",
      "results each scheduler's register file takes per cycle (0: as many as arrive)"),
    F("register_write_bytes", CFG_FIELD_UINT, register_write_bytes, 0, 1024, "bytes",
      "bytes a lane one register-file write port takes in a cycle: a load whose result is wider "
      "(LDS.128, LDG.E.128: 16 bytes) holds its port that many cycles (0: any result in one)"),
    F("two_level_pool", CFG_FIELD_UINT, two_level_pool, 1, 1024, "warps",
      "policy two_level: warps per scheduler in the active pool"),
    F("resume_window", CFG_FIELD_UINT, resume_window, 0, 1u << 20, "cycles",
      "policy last_resumed: warps that resumed within this many cycles of the latest resumed "
      "eligible warp take turns with it (0: only those that resumed in the same cycle)"),
    FS("limits", "residency limits"),
    FS("units", "execution pipelines"),
    FS("shared_memory", "shared memory"),
    FS("branch", "branches"),
    FS("memory", "global memory levels"),
    FS("caches", "an L1 per SM and a shared L2 in front of the memory levels: caches.l1, "
                 "caches.l2"),
    FS("lsu", "the LD/ST path (kernels over SASS): the L1TEX stage a global warp-access's lines "
              "pass, and the store data it reads"),
    FS("constant_cache", "the constant cache an SM reads LDC's words through (kernels over SASS)"),
    FS("sass", "how SASS opcodes run (kernels over SASS): sass.ops.OPCODE: {unit, "
               "latency_cycles, issue_cycles, lanes_per_scheduler}"),
};

static const CfgField limit_fields[] = {
    F("max_warps", CFG_FIELD_UINT, limits.max_warps, 1, 1024, "warps", "resident warps per SM"),
    F("max_blocks", CFG_FIELD_UINT, limits.max_blocks, 1, 1024, "blocks", "resident blocks per SM"),
    F("registers", CFG_FIELD_UINT, limits.registers, 1, 1u << 24, "32-bit registers",
      "register file per SM"),
    F("max_registers_per_thread", CFG_FIELD_UINT, limits.max_registers_per_thread, 1, 1024,
      "registers", "registers one thread may use"),
    F("shared_memory_bytes", CFG_FIELD_UINT, limits.shared_memory_bytes, 0, 1u << 30, "bytes",
      "shared memory per SM"),
    F("max_threads_per_block", CFG_FIELD_UINT, limits.max_threads_per_block, 32, 1u << 16,
      "threads", "largest block"),
    F("register_alloc_unit", CFG_FIELD_UINT, limits.register_alloc_unit, 1, 1u << 16, "registers",
      "registers are allocated in multiples of this"),
    FE("register_alloc_granularity", limits.register_alloc_granularity, granularity_names,
       "registers are allocated per warp or per block"),
    F("warp_alloc_granularity", CFG_FIELD_UINT, limits.warp_alloc_granularity, 1, 64, "warps",
      "the warps the register file can hold round down to a multiple of this"),
    F("max_shared_memory_per_block", CFG_FIELD_UINT, limits.max_shared_memory_per_block, 0,
      1u << 30, "bytes", "most shared memory one block may use (0: all of the SM's)"),
    F("shared_memory_alloc_unit", CFG_FIELD_UINT, limits.shared_memory_alloc_unit, 1, 1u << 20,
      "bytes", "shared memory is allocated in multiples of this"),
    F("reserved_shared_memory_per_block", CFG_FIELD_UINT, limits.reserved_shared_memory_per_block,
      0, 1u << 20, "bytes",
      "shared memory the runtime keeps for itself in every block (compute capability >= 8.0)"),
};

#define FU(k, t, field, lo, hi, u, d)                                                              \
  {                                                                                                \
    .key = k, .type = t, .offset = G_STRUCT_OFFSET(CfgUnit, field), .min = lo, .max = hi,          \
    .unit = u, .doc = d                                                                            \
  }

static const CfgField unit_fields[] = {
    FU("lanes_per_scheduler", CFG_FIELD_UINT, lanes_per_scheduler, 1, 128, "lanes",
       "a warp-instruction occupies the pipe 32/lanes cycles; must divide 32 or be a multiple of "
       "32"),
    FU("latency_cycles", CFG_FIELD_UINT, latency_cycles, 1, 1u << 20, "cycles",
       "dependent-issue latency of the unit's ops"),
    FU("issue_cycles", CFG_FIELD_UINT, issue_cycles, 1, 64, "cycles",
       "scheduler cycles one issue of the unit's ops takes"),
    FU("through_mio", CFG_FIELD_BOOL, through_mio, 0, 0, "",
       "its instructions reach it through the MIO's queue, as the special-function unit's do from "
       "Volta on: a warp that finds its pipe busy waits in mio_throttle, not math_pipe_throttle"),
    {.key = "latency_to",
     .type = CFG_FIELD_SECTION,
     .doc = "map consumer unit (alu, sfu, ldst) -> latency seen by that consumer, cycles"},
    {.key = "ops",
     .type = CFG_FIELD_SECTION,
     .doc = "map op (e.g. IMAD) -> {latency_cycles, issue_cycles} overriding the unit's"},
};

#define FM(k, t, field, lo, hi, u, d)                                                              \
  {                                                                                                \
    .key = k, .type = t, .offset = G_STRUCT_OFFSET(CfgGpu, field), .min = lo, .max = hi,           \
    .unit = u, .doc = d                                                                            \
  }

static const CfgField smem_fields[] = {
    F("latency_cycles", CFG_FIELD_UINT, smem.latency_cycles, 1, 1u << 20, "cycles",
      "LDS result latency"),
    {.key = "latency_to",
     .type = CFG_FIELD_SECTION,
     .doc = "map consumer unit -> LDS latency seen by that consumer, cycles"},
    F("cycles_per_access", CFG_FIELD_DOUBLE, smem.cycles_per_access, 1.0 / 64, 1024, "cycles",
      "bank throughput: one warp-access per this many cycles per SM"),
    F("issue_cycles", CFG_FIELD_UINT, smem.issue_cycles, 1, 64, "cycles", "issue cost of LDS/STS"),
    F("pass_latency_cycles", CFG_FIELD_UINT, smem.pass_latency_cycles, 0, 1024, "cycles",
      "each bank pass beyond an access's first delays its result (or, for a store, the read of "
      "its registers) this much, however fast the banks serve passes to many warps (0: "
      "cycles_per_access)"),
    F("queue_depth", CFG_FIELD_UINT, smem.queue_depth, 1, 1u << 16, "accesses",
      "accesses waiting for the banks before LDS/STS stall with mio_throttle"),
    F("half_warps", CFG_FIELD_BOOL, smem.half_warps, 0, 1, NULL,
      "accesses wider than a bank's word are served by half-warps, a half-warp whose words fit "
      "one pass in one (an LDS.128 broadcast: 2 passes); false: in phases alone, a warp whose "
      "words fit one pass in one"),
    F("warp_passes_apart", CFG_FIELD_BOOL, smem.warp_passes_apart, 0, 0, NULL,
      "a warp's own passes go pass_latency_cycles apart across its accesses too: its next "
      "access's first pass starts no sooner than that after its last one (other warps' passes "
      "may come between)"),
    FE("store_read_at", smem.store_read_at, store_read_at_names,
       "kernels over SASS, with lsu.store_read_cycles or store_buffer: a shared-memory store's "
       "registers are free to be written again after its last bank pass (last_pass) or once its "
       "first pass starts (first_pass: its data read as it leaves the queue)"),
    F("store_read_cycles", CFG_FIELD_UINT, smem.store_read_cycles, 0, 1024, "cycles",
      "with first_pass: a store's first data register is read this long after its first pass "
      "starts"),
    F("store_register_cycles", CFG_FIELD_UINT, smem.store_register_cycles, 0, 1024, "cycles",
      "... and each further 4-byte register (32 lanes' word; STS.64 has 2, STS.128 4) this "
      "long after the one before; the registers are free to be written again after the last"),
    FE("queue_counts", smem.queue_counts, queue_count_names,
       "what fills the queue: passes (an access of d passes counts d times, by the banks' time "
       "it waits for) or accesses (each one once, however many passes)"),
    FE("throttle_order", smem.throttle_order, throttle_order_names,
       "who takes a place that frees in a full queue: the schedulers take turns at them, each "
       "issuing the warp its policy picks (turns) or its warps waiting in mio_throttle in the "
       "order they found the queue full (arrival; with sass.yield_hints a warp whose "
       "instruction does not yield keeps its place for its next shared access)"),
    F("banks", CFG_FIELD_UINT, smem.banks, 1, 1024, "banks",
      "banks; lanes whose different words fall in one bank are served in separate passes"),
    F("bank_width_bytes", CFG_FIELD_UINT, smem.bank_width_bytes, 1, 256, "bytes",
      "bytes one bank delivers per pass"),
    F("async_copy", CFG_FIELD_BOOL, smem.async_copy, 0, 0, NULL,
      "LDGSTS, LDGDEPBAR and DEPBAR exist (compute capability 8.0 and later)"),
};

/* the branch section's keys, and sass.branch's (the same, for kernels over SASS) */
#define BRANCH_FIELDS(b)                                                                           \
  F("taken_cycles", CFG_FIELD_UINT, b.taken_cycles, 0, 1u << 16, "cycles",                         \
    "cycles a warp waits after a taken BRA (or a switch to a deferred path) before its next "      \
    "instruction can issue"),                                                                      \
      F("bssy_cycles", CFG_FIELD_UINT, b.bssy_cycles, 0, 1u << 16, "cycles",                       \
        "cycles a warp waits after a BSSY"),                                                       \
      F("bsync_cycles", CFG_FIELD_UINT, b.bsync_cycles, 0, 1u << 16, "cycles",                     \
        "cycles a warp waits after a BSYNC"),                                                      \
      F("not_taken_cycles", CFG_FIELD_UINT, b.not_taken_cycles, 0, 1u << 16, "cycles",             \
        "kernels over SASS: cycles a warp waits after a predicated BRA none of its lanes takes "   \
        "(the warp waits for the branch's outcome either way)"),                                   \
      F("divergent_cycles", CFG_FIELD_UINT, b.divergent_cycles, 0, 1u << 16, "cycles",             \
        "cycles a warp waits, beyond the branch's own, after a branch that splits its lanes")

static const CfgField branch_fields[] = {BRANCH_FIELDS(branch)};
const CfgField cfg_sass_branch_fields[CFG_N_BRANCH_FIELDS] = {BRANCH_FIELDS(sass.branch)};
G_STATIC_ASSERT(G_N_ELEMENTS(branch_fields) == CFG_N_BRANCH_FIELDS);

static const CfgFieldTable tables[] = {
    {"", top_fields, G_N_ELEMENTS(top_fields), TRUE},
    {"limits", limit_fields, G_N_ELEMENTS(limit_fields), TRUE},
    {"units.*", unit_fields, G_N_ELEMENTS(unit_fields), FALSE},
    {"shared_memory", smem_fields, G_N_ELEMENTS(smem_fields), TRUE},
    {"branch", branch_fields, G_N_ELEMENTS(branch_fields), TRUE},
    {"sass", cfg_sass_fields, CFG_N_SASS_FIELDS, TRUE},
    {"sass.branch", cfg_sass_branch_fields, CFG_N_BRANCH_FIELDS, TRUE},
    {"lsu", cfg_lsu_fields, CFG_N_LSU_FIELDS, TRUE},
    {"constant_cache", cfg_constant_cache_fields, CFG_N_CONSTANT_CACHE_FIELDS, TRUE},
    {"memory", cfg_memory_fields, CFG_N_MEMORY_FIELDS, TRUE},
    {"memory.*", cfg_level_fields, CFG_N_LEVEL_FIELDS, FALSE},
    {"caches.l1", cfg_l1_fields, CFG_N_L1_FIELDS, FALSE},
    {"caches.l2", cfg_l2_fields, CFG_N_L2_FIELDS, FALSE},
};

const CfgFieldTable *
cfg_gpu_field_tables(guint *n_tables)
{
  *n_tables = G_N_ELEMENTS(tables);
  return tables;
}

static void
set_defaults(CfgGpu *g)
{
  g->name = g_strdup("unnamed GPU");
  g->clock_mhz = 1000;
  g->schedulers = 4;
  g->issue_width = 1;
  g->dual_issue = CFG_DUAL_SAME_WARP;
  g->policy = CFG_POLICY_LRR;
  g->two_level_pool = 8;
  g->block_launch_cycles = 150;
  g->block_dispatch_burst = 1;
  g->sm_count = 1;
  g->limits.max_warps = 64;
  g->limits.max_blocks = 32;
  g->limits.registers = 65536;
  g->limits.max_registers_per_thread = 255;
  g->limits.shared_memory_bytes = 65536;
  g->limits.max_threads_per_block = 1024;
  g->limits.register_alloc_unit = 256;
  g->limits.register_alloc_granularity = CFG_REG_PER_WARP;
  g->limits.warp_alloc_granularity = 1;
  g->limits.shared_memory_alloc_unit = 256;
  for (guint u = 0; u < ISA_UNIT_COUNT; u++) /* the unit table's defaults (isa/isa-units.def) */
    g->units[u] = (CfgUnit){.lanes_per_scheduler = isa_unit_table[u].lanes_per_scheduler,
                            .latency_cycles = isa_unit_table[u].latency_cycles,
                            .issue_cycles = isa_unit_table[u].issue_cycles};
  g->smem.latency_cycles = 24;
  g->smem.cycles_per_access = 1;
  g->smem.issue_cycles = 1;
  g->smem.queue_depth = 32;
  g->smem.banks = 32;
  g->smem.bank_width_bytes = 4;
  g->memory.line_bytes = 128;
  g->memory.sector_bytes = 32;
  g->memory.max_outstanding = 4096;
  g->memory.sm_bytes_per_cycle = INFINITY;
  g->memory.seed = 1;
  for (guint c = 0; c < 2; c++) {
    CfgCache *k = c ? &g->caches.l2 : &g->caches.l1;
    k->ways = c ? 16 : 4;
    k->latency_cycles = 32;
    k->partitions = 1;
    k->hit_level_index = k->miss_level_index = -1;
  }
  g->caches.l2.hit_level = g_strdup("l2");
  g->caches.l2.miss_level = g_strdup("dram");
}

static gboolean
load_latency_to(const CfgNode *map, const char *section, guint *latency_to, GError **error)
{
  if (map == NULL)
    return TRUE;
  if (!cfg_node_expect_map(map, section, error))
    return FALSE;
  for (guint i = 0; i < map->keys->len; i++) {
    const CfgNode *key = g_ptr_array_index(map->keys, i);
    IsaUnit u;
    if (!isa_unit_lookup(key->value, &u))
      return cfg_fail(error, key, "unknown unit '%s' in %s (alu, sfu, ldst)", key->value, section);
    guint64 v;
    if (!cfg_node_to_uint64(g_ptr_array_index(map->items, i), 1, 1u << 20, &v, error))
      return FALSE;
    latency_to[u] = (guint)v;
  }
  return TRUE;
}

static gboolean
load_unit(CfgGpu *g, IsaUnit u, const CfgNode *map, GError **error)
{
  CfgUnit *unit = &g->units[u];
  g_autofree char *section = g_strdup_printf("units.%s", isa_unit_name(u));
  if (!cfg_load_fields(map, section, unit_fields, G_N_ELEMENTS(unit_fields), unit, error))
    return FALSE;
  if (map == NULL)
    return TRUE;
  const CfgNode *lanes = cfg_node_get(map, "lanes_per_scheduler");
  guint l = unit->lanes_per_scheduler;
  if (lanes && !(32 % l == 0 || l % 32 == 0))
    return cfg_fail(error, lanes,
                    "lanes_per_scheduler must divide 32 or be a multiple of 32, got %u", l);
  g_autofree char *lt = g_strdup_printf("%s.latency_to", section);
  if (!load_latency_to(cfg_node_get(map, "latency_to"), lt, unit->latency_to, error))
    return FALSE;
  const CfgNode *ops = cfg_node_get(map, "ops");
  if (ops == NULL)
    return TRUE;
  for (guint i = 0; i < ops->keys->len; i++) {
    const CfgNode *key = g_ptr_array_index(ops->keys, i);
    IsaOp op;
    if (!isa_op_lookup(key->value, &op))
      return cfg_fail(error, key, "unknown op '%s' in %s.ops", key->value, section);
    if (isa_op_info(op)->unit != u)
      return cfg_fail(error, key, "%s does not run on %s (it runs on %s)", key->value,
                      isa_unit_name(u), isa_unit_name(isa_op_info(op)->unit));
    struct {
      guint latency_cycles, issue_cycles;
    } o = {0, 0};
    static const CfgField op_fields[] = {
        {.key = "latency_cycles", .type = CFG_FIELD_UINT, .min = 1, .max = 1u << 20},
        {.key = "issue_cycles",
         .type = CFG_FIELD_UINT,
         .offset = sizeof(guint),
         .min = 1,
         .max = 64},
    };
    g_autofree char *os = g_strdup_printf("%s.ops.%s", section, key->value);
    if (!cfg_load_fields(g_ptr_array_index(ops->items, i), os, op_fields, 2, &o, error))
      return FALSE;
    unit->op_latency[op] = o.latency_cycles;
    unit->op_issue_cycles[op] = o.issue_cycles;
  }
  return TRUE;
}

CfgGpu *
cfg_gpu_load(const CfgNode *root, GError **error)
{
  g_autoptr(CfgGpu) g = g_new0(CfgGpu, 1);
  set_defaults(g);
  if (cfg_is_kernel_file(root))
    return (cfg_fail(error, root,
                     "this is a kernel file (it has 'stream', 'function' or 'params'), not a GPU: "
                     "the GPU file comes first (smsim run GPU.yaml KERNEL.yaml; smsim describe "
                     "KERNEL.yaml lists a kernel's parameters)"),
            NULL);
  if (!cfg_load_fields(root, "the GPU file", top_fields, G_N_ELEMENTS(top_fields), g, error))
    return NULL;
  if (!cfg_load_fields(cfg_node_get(root, "limits"), "limits", limit_fields,
                       G_N_ELEMENTS(limit_fields), g, error))
    return NULL;
  const CfgNode *units = cfg_node_get(root, "units");
  if (units) {
    for (guint i = 0; i < units->keys->len; i++) {
      const CfgNode *key = g_ptr_array_index(units->keys, i);
      IsaUnit u;
      if (!isa_unit_lookup(key->value, &u))
        return (cfg_fail(error, key, "unknown unit '%s' in units (alu, sfu, ldst)", key->value),
                NULL);
    }
  }
  for (guint u = 0; u < ISA_UNIT_COUNT; u++)
    if (!load_unit(g, u, cfg_node_get(units, isa_unit_name(u)), error))
      return NULL;
  const CfgNode *smem = cfg_node_get(root, "shared_memory");
  if (!cfg_load_fields(smem, "shared_memory", smem_fields, G_N_ELEMENTS(smem_fields), g, error))
    return NULL;
  if (!load_latency_to(cfg_node_get(smem, "latency_to"), "shared_memory.latency_to",
                       g->smem.latency_to, error))
    return NULL;
  if (!cfg_load_fields(cfg_node_get(root, "branch"), "branch", branch_fields,
                       G_N_ELEMENTS(branch_fields), g, error))
    return NULL;
  g->sass.branch = g->branch; /* sass.branch (below) gives only what differs */
  if (!cfg_load_fields(cfg_node_get(root, "lsu"), "lsu", cfg_lsu_fields, CFG_N_LSU_FIELDS, g,
                       error))
    return NULL;
  if (!cfg_gpu_constant_cache_load(g, cfg_node_get(root, "constant_cache"), error))
    return NULL;
  const CfgNode *memory = cfg_node_get(root, "memory");
  if (memory == NULL)
    return (cfg_fail(error, root, "the GPU file needs a memory section"), NULL);
  if (!cfg_gpu_memory_load(g, memory, error))
    return NULL;
  if (!cfg_gpu_caches_load(g, cfg_node_get(root, "caches"), error))
    return NULL;
  if (!cfg_sass_ops_load(g, cfg_node_get(root, "sass"), error))
    return NULL;
  return g_steal_pointer(&g);
}

CfgGpu *
cfg_gpu_load_file(const char *path, GError **error)
{
  g_autoptr(CfgNode) root = cfg_load_file(path, error);
  return root ? cfg_gpu_load(root, error) : NULL;
}

CfgGpu *
cfg_gpu_load_file_with_sets(const char *path, const char *const *sets, GError **error)
{
  g_autoptr(CfgNode) root = cfg_load_file(path, error);
  if (root == NULL)
    return NULL;
  for (guint i = 0; sets && sets[i]; i++) {
    const char *eq = strchr(sets[i], '=');
    if (eq == NULL || eq == sets[i] || eq[1] == '\0') {
      g_set_error(error, CFG_ERROR, CFG_ERROR_INVALID, "--set %s: expected KEY=VALUE", sets[i]);
      return NULL;
    }
    g_autofree char *key = g_strndup(sets[i], (gsize)(eq - sets[i]));
    if (!cfg_node_set_path(root, key, eq + 1, "--set", error))
      return NULL;
  }
  return cfg_gpu_load(root, error);
}

void
cfg_gpu_free(CfgGpu *gpu)
{
  if (gpu == NULL)
    return;
  g_free(gpu->name);
  g_free(gpu->caches.l2.hit_level);
  g_free(gpu->caches.l2.miss_level);
  for (guint i = 0; i < gpu->memory.n_levels; i++)
    g_free(gpu->memory.levels[i].name);
  g_free(gpu);
}

guint
cfg_gpu_op_latency(const CfgGpu *gpu, IsaOp op, IsaUnit consumer)
{
  const IsaOpInfo *info = isa_op_info(op);
  if (info->space == ISA_SPACE_SHARED) {
    guint to = gpu->smem.latency_to[consumer];
    return to ? to : gpu->smem.latency_cycles;
  }
  const CfgUnit *unit = &gpu->units[info->unit];
  if (unit->latency_to[consumer])
    return unit->latency_to[consumer];
  return unit->op_latency[op] ? unit->op_latency[op] : unit->latency_cycles;
}

guint
cfg_gpu_op_issue_cycles(const CfgGpu *gpu, IsaOp op)
{
  const IsaOpInfo *info = isa_op_info(op);
  const CfgUnit *unit = &gpu->units[info->unit];
  if (unit->op_issue_cycles[op])
    return unit->op_issue_cycles[op];
  if (info->space == ISA_SPACE_SHARED)
    return gpu->smem.issue_cycles;
  return unit->issue_cycles;
}

static void
print_latency_to(GString *out, const char *indent, const guint *latency_to)
{
  gboolean any = FALSE;
  for (guint c = 0; c < ISA_UNIT_COUNT; c++)
    any |= latency_to[c] != 0;
  if (!any)
    return;
  g_string_append_printf(out, "%slatency_to: {", indent);
  gboolean first = TRUE;
  for (guint c = 0; c < ISA_UNIT_COUNT; c++) {
    if (latency_to[c]) {
      g_string_append_printf(out, "%s%s: %u", first ? "" : ", ", isa_unit_name(c), latency_to[c]);
      first = FALSE;
    }
  }
  g_string_append(out, "}\n");
}

void
cfg_gpu_print(const CfgGpu *g, GString *out)
{
  g_string_append_printf(out, "name: \"%s\"\nclock_mhz: %g\nschedulers: %u\nissue_width: %u\n",
                         g->name, g->clock_mhz, g->schedulers, g->issue_width);
  g_string_append_printf(out,
                         "dual_issue: %s\npolicy: %s\nblock_priority: %s\nsm_count: %u\n"
                         "launch_cycles: %u\nblock_launch_cycles: %u\nwarp_launch_cycles: %u\n"
                         "register_write_ports: %u\ntwo_level_pool: %u\nresume_window: %u\n",
                         dual_names[g->dual_issue], policy_names[g->policy],
                         block_priority_names[g->block_priority], g->sm_count, g->launch_cycles,
                         g->block_launch_cycles, g->warp_launch_cycles, g->register_write_ports,
                         g->two_level_pool, g->resume_window);
  if (g->block_priority_at != CFG_BLOCK_PRIORITY_AT_EVERY_PICK)
    g_string_append_printf(out, "block_priority_at: %s\n",
                           block_priority_at_names[g->block_priority_at]);
  if (g->block_dispatch_cycles > 0)
    g_string_append_printf(out, "block_dispatch_cycles: %g\nblock_dispatch_burst: %u\n",
                           g->block_dispatch_cycles, g->block_dispatch_burst);
  if (g->register_write_bytes)
    g_string_append_printf(out, "register_write_bytes: %u\n", g->register_write_bytes);
  g_string_append_printf(out,
                         "limits:\n  max_warps: %u\n  max_blocks: %u\n  registers: %u\n"
                         "  max_registers_per_thread: %u\n  shared_memory_bytes: %u\n"
                         "  max_threads_per_block: %u\n  register_alloc_unit: %u\n"
                         "  register_alloc_granularity: %s\n  warp_alloc_granularity: %u\n"
                         "  max_shared_memory_per_block: %u\n  shared_memory_alloc_unit: %u\n"
                         "  reserved_shared_memory_per_block: %u\n",
                         g->limits.max_warps, g->limits.max_blocks, g->limits.registers,
                         g->limits.max_registers_per_thread, g->limits.shared_memory_bytes,
                         g->limits.max_threads_per_block, g->limits.register_alloc_unit,
                         granularity_names[g->limits.register_alloc_granularity],
                         g->limits.warp_alloc_granularity, g->limits.max_shared_memory_per_block,
                         g->limits.shared_memory_alloc_unit,
                         g->limits.reserved_shared_memory_per_block);
  g_string_append(out, "units:\n");
  for (guint u = 0; u < ISA_UNIT_COUNT; u++) {
    const CfgUnit *unit = &g->units[u];
    g_string_append_printf(out,
                           "  %s:\n    lanes_per_scheduler: %u\n    latency_cycles: %u\n"
                           "    issue_cycles: %u\n",
                           isa_unit_name(u), unit->lanes_per_scheduler, unit->latency_cycles,
                           unit->issue_cycles);
    if (unit->through_mio)
      g_string_append(out, "    through_mio: true\n");
    print_latency_to(out, "    ", unit->latency_to);
    gboolean any = FALSE;
    for (guint op = 0; op < ISA_OP_COUNT; op++) {
      if (!unit->op_latency[op] && !unit->op_issue_cycles[op])
        continue;
      if (!any)
        g_string_append(out, "    ops:\n");
      any = TRUE;
      g_string_append_printf(out, "      %s: {latency_cycles: %u, issue_cycles: %u}\n",
                             isa_op_info(op)->mnemonic,
                             unit->op_latency[op] ? unit->op_latency[op] : unit->latency_cycles,
                             cfg_gpu_op_issue_cycles(g, op));
    }
  }
  g_string_append_printf(out, "shared_memory:\n  latency_cycles: %u\n", g->smem.latency_cycles);
  print_latency_to(out, "  ", g->smem.latency_to);
  g_string_append_printf(
      out,
      "  cycles_per_access: %g\n  pass_latency_cycles: %u\n  issue_cycles: %u\n"
      "  queue_depth: %u\n  queue_counts: %s\n  half_warps: %s\n"
      "  warp_passes_apart: %s\n  store_read_at: %s\n",
      g->smem.cycles_per_access, g->smem.pass_latency_cycles, g->smem.issue_cycles,
      g->smem.queue_depth, queue_count_names[g->smem.queue_counts],
      g->smem.half_warps ? "true" : "false", g->smem.warp_passes_apart ? "true" : "false",
      store_read_at_names[g->smem.store_read_at]);
  if (g->smem.throttle_order != CFG_THROTTLE_TURNS)
    g_string_append_printf(out, "  throttle_order: %s\n",
                           throttle_order_names[g->smem.throttle_order]);
  if (g->smem.store_read_cycles || g->smem.store_register_cycles)
    g_string_append_printf(out, "  store_read_cycles: %u\n  store_register_cycles: %u\n",
                           g->smem.store_read_cycles, g->smem.store_register_cycles);
  g_string_append_printf(out, "  banks: %u\n  bank_width_bytes: %u\n  async_copy: %s\n",
                         g->smem.banks, g->smem.bank_width_bytes,
                         g->smem.async_copy ? "true" : "false");
  g_string_append_printf(out,
                         "branch:\n  taken_cycles: %u\n  bssy_cycles: %u\n  bsync_cycles: %u\n"
                         "  not_taken_cycles: %u\n  divergent_cycles: %u\n",
                         g->branch.taken_cycles, g->branch.bssy_cycles, g->branch.bsync_cycles,
                         g->branch.not_taken_cycles, g->branch.divergent_cycles);
  cfg_gpu_lsu_print(g, out);
  cfg_gpu_constant_cache_print(g, out);
  cfg_gpu_memory_print(g, out);
  cfg_sass_ops_print(g, out);
}
