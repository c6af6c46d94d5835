/* A GPU file's memory section (its scalar keys and levels) and its caches: keys, loading,
 * checks and printing.  The SM's own paths in front of them (lsu, constant_cache) are
 * gpu-paths.c; the rest of the GPU file gpu.c. */
#include "gpu-internal.h"

#include <math.h>
#include <string.h>

static const char *const service_names[] = {"deterministic", "exponential", NULL};
static const char *const replacement_names[] = {"lru", "random", NULL};
static const char *const index_names[] = {"hashed", "modulo", NULL};
static const char *const l1_loads_names[] = {"all", "constant", "none", NULL};
static const char *const store_drain_names[] = {"completion", "acceptance", "departure", NULL};
static const char *const fence_names[] = {"none", "acceptance", "completion", NULL};
static const char *const lg_order_names[] = {"arrival", "oldest", NULL};

const CfgField cfg_memory_fields[] = {
    F("line_bytes", CFG_FIELD_UINT, memory.line_bytes, 4, 4096, "bytes", "cache line"),
    F("sector_bytes", CFG_FIELD_UINT, memory.sector_bytes, 4, 4096, "bytes",
      "smallest transfer; divides line_bytes"),
    F("max_outstanding", CFG_FIELD_UINT, memory.max_outstanding, 32, 1u << 24, "transactions",
      "transactions in flight per SM before global loads stall with lg_throttle"),
    F("max_store_outstanding", CFG_FIELD_UINT, memory.max_store_outstanding, 0, 1u << 24,
      "transactions",
      "of them, stores' (a store completes when its level has it); 0: no limit of their own"),
    {.key = "throttle_order",
     .type = CFG_FIELD_ENUM,
     .offset = G_STRUCT_OFFSET(CfgGpu, memory.throttle_order),
     .names = lg_order_names,
     .doc = "who issues when room frees for the warps waiting in lg_throttle for room among "
            "their SM's transactions in flight (or, kernels over SASS, for a place in its store "
            "queue, lsu.store_queue): the one that found none first (arrival), or the oldest "
            "waiting (oldest: its block launched first, then the lower warp slot), which keeps "
            "the places among the oldest warps while younger ones wait"},
    {.key = "store_drain",
     .type = CFG_FIELD_ENUM,
     .offset = G_STRUCT_OFFSET(CfgGpu, memory.store_drain),
     .names = store_drain_names,
     .doc = "when a store is done for the warp that issued it, so that the warp, once exited, "
            "stops waiting for it (drain) and its block's slot can retire: completion (its "
            "level's latency after its channel took it), acceptance (once its level's channel "
            "has taken its bytes) or departure (once it has left the SM: past the LD/ST stage "
            "and the SM's port, whatever the queues beyond)"},
    F("store_ack_cycles", CFG_FIELD_UINT, memory.store_ack_cycles, 0, 1u << 16, "cycles",
      "with store_drain acceptance or departure, a store is done for its warp this long after "
      "(the acknowledgement an exiting warp waits for)"),
    {.key = "fence",
     .type = CFG_FIELD_ENUM,
     .offset = G_STRUCT_OFFSET(CfgGpu, memory.fence),
     .names = fence_names,
     .doc = "what a fence at GPU or system scope (MEMBAR.GPU, MEMBAR.SC.GPU, MEMBAR.SYS: "
            "__threadfence(); MEMBAR in a stream) waits for before its warp goes on, besides "
            "its own loads' data and its own trip (fence_cycles): none; acceptance (the stores "
            "its SM issued before it taken by their level, at the SM's share of its write rate "
            "where lsu.store_backlog_cycles paces them, else by their channel); or completion "
            "(those stores complete in their level: its latency after their channel took "
            "them); each then acknowledged fence_ack_cycles later"},
    F("fence_cycles", CFG_FIELD_UINT, memory.fence_cycles, 0, 1u << 16, "cycles",
      "with fence acceptance or completion, the fence's own trip: what a fence costs a warp "
      "whose SM has nothing in flight"),
    F("fence_ack_cycles", CFG_FIELD_UINT, memory.fence_ack_cycles, 0, 1u << 16, "cycles",
      "with fence acceptance or completion, a store is acknowledged to a fence this long after "
      "it is taken (or complete)"),
    F("seed", CFG_FIELD_UINT64, memory.seed, 0, 1e18, NULL,
      "seed of addresses and random service times"),
    F("sm_bytes_per_cycle", CFG_FIELD_DOUBLE, memory.sm_bytes_per_cycle, 1e-6, INFINITY,
      "bytes/cycle",
      "one SM's own path to the memory system (its port into the crossbar), which every "
      "transaction of the SM passes in order before its level's channel (inf = unlimited); the "
      "levels' bytes_per_cycle are the SM's share of what all SMs share"),
};

#define FL(k, t, field, lo, hi, u, d)                                                              \
  {                                                                                                \
    .key = k, .type = t, .offset = G_STRUCT_OFFSET(CfgMemLevel, field), .min = lo, .max = hi,      \
    .unit = u, .doc = d                                                                            \
  }

const CfgField cfg_level_fields[] = {
    FL("latency_cycles", CFG_FIELD_UINT, latency_cycles, 1, 1u << 24, "cycles",
       "unloaded round trip of one transaction"),
    FL("bytes_per_cycle", CFG_FIELD_DOUBLE, bytes_per_cycle, 1e-6, INFINITY, "bytes/cycle",
       "peak bandwidth per SM, all channels together (inf = unlimited)"),
    FL("channels", CFG_FIELD_UINT, channels, 1, 4096, "servers",
       "independent servers, chosen by hashing the line address"),
    FL("min_access_bytes", CFG_FIELD_UINT, min_access_bytes, 1, 1u << 16, "bytes",
       "a transaction occupies its channel as if it moved at least this many bytes"),
    FL("write_request_bytes", CFG_FIELD_UINT, write_request_bytes, 0, 1u << 16, "bytes",
       "a store's line occupies its channel this long besides its sectors (0 with the next "
       "two: a store costs what a load of its sectors does)"),
    FL("write_sector_bytes", CFG_FIELD_UINT, write_sector_bytes, 0, 1u << 16, "bytes",
       "... and this long for each sector it writes whole (0: sector_bytes)"),
    FL("partial_sector_bytes", CFG_FIELD_UINT, partial_sector_bytes, 0, 1u << 16, "bytes",
       "... and this long for each sector it writes only in part (a byte mask; 0: as a whole "
       "one)"),
    {.key = "service",
     .type = CFG_FIELD_ENUM,
     .offset = G_STRUCT_OFFSET(CfgMemLevel, service),
     .names = service_names,
     .doc = "service time: deterministic or exponential (same mean)"},
    {.key = "latency_histogram",
     .type = CFG_FIELD_LIST,
     .doc = "[cycles, weight] pairs: each warp-access's unloaded latency drawn from them"},
    FL("latency_block_bytes", CFG_FIELD_UINT, latency_block_bytes, 0, 1u << 30, "bytes",
       "accesses to one block of this many bytes while an earlier one is in flight take its "
       "drawn latency (0: each warp-access draws its own); needs latency_histogram"),
    FL("latency_region_bytes", CFG_FIELD_UINT, latency_region_bytes, 0, 1u << 30, "bytes",
       "... and accesses to one region of this many bytes draw theirs from the same mode as "
       "an earlier one in flight (below latency_split_cycles, or the rest)"),
    FL("latency_split_cycles", CFG_FIELD_UINT, latency_split_cycles, 0, 1u << 24, "cycles",
       "where latency_histogram's bins divide into its two modes (a bin's cycles as written, "
       "below it: the fast mode)"),
    FL("row_bytes", CFG_FIELD_UINT, row_bytes, 0, 1u << 30, "bytes",
       "a transaction to a row of this many bytes that another one in flight has opened "
       "occupies its channel for at least row_hit_bytes, not min_access_bytes (0: no rows)"),
    FL("row_hit_bytes", CFG_FIELD_UINT, row_hit_bytes, 0, 1u << 16, "bytes",
       "... the least channel time, as bytes, of a transaction to an open row (the level's "
       "access granularity)"),
};

/* latency_histogram: [[cycles, weight], ...]; latency_cycles becomes its mean unless given. */
static gboolean
load_latency_histogram(CfgMemLevel *lv, const CfgNode *list, gboolean have_latency, GError **error)
{
  if (list->items->len == 0 || list->items->len > CFG_MAX_LATENCY_BINS)
    return cfg_fail(error, list, "latency_histogram needs 1 to %u [cycles, weight] pairs",
                    CFG_MAX_LATENCY_BINS);
  double total = 0, sum = 0;
  for (guint i = 0; i < list->items->len; i++) {
    const CfgNode *pair = g_ptr_array_index(list->items, i);
    if (pair->kind != CFG_NODE_SEQ || pair->items->len != 2)
      return cfg_fail(error, pair, "expected a pair [cycles, weight]");
    guint64 cycles;
    double weight;
    if (!cfg_node_to_uint64(g_ptr_array_index(pair->items, 0), 1, 1u << 24, &cycles, error) ||
        !cfg_node_to_double(g_ptr_array_index(pair->items, 1), 0, 1e12, &weight, error))
      return FALSE;
    lv->latency_bin[i] = (guint)cycles;
    lv->latency_weight[i] = weight;
    total += weight;
    sum += weight * (double)cycles;
  }
  if (total <= 0)
    return cfg_fail(error, list, "latency_histogram: the weights add up to 0");
  lv->n_latencies = list->items->len;
  if (!have_latency)
    lv->latency_cycles = (guint)(sum / total + 0.5);
  return TRUE;
}

/* row_bytes and row_hit_bytes of level @lv (memory section @map) make sense together */
static gboolean
check_rows(const CfgGpu *g, const CfgMemLevel *lv, const CfgNode *map, GError **error)
{
  const CfgNode *level = cfg_node_get(map, lv->name);
  const CfgNode *rows = cfg_node_get(level, "row_bytes"),
                *hit = cfg_node_get(level, "row_hit_bytes");
  if (lv->row_bytes &&
      ((lv->row_bytes & (lv->row_bytes - 1)) || lv->row_bytes < g->memory.line_bytes))
    return cfg_fail(error, rows,
                    "memory.%s.row_bytes (%u) must be a power of two, at least line_bytes (%u)",
                    lv->name, lv->row_bytes, g->memory.line_bytes);
  if (lv->row_bytes && !lv->row_hit_bytes)
    return cfg_fail(error, rows,
                    "memory.%s.row_bytes needs row_hit_bytes (what an access to an open row costs)",
                    lv->name);
  /* (a row of 0 given beside it turns the rows off: --set ...row_bytes=0) */
  if (hit && !rows)
    return cfg_fail(error, hit,
                    "memory.%s.row_hit_bytes is what an open row costs: it needs row_bytes",
                    lv->name);
  return TRUE;
}

/* latency_block_bytes, latency_region_bytes and latency_split_cycles of level @lv (memory
 * section @map) make sense together */
static gboolean
check_shared_latencies(const CfgGpu *g, const CfgMemLevel *lv, const CfgNode *map, GError **error)
{
  const CfgNode *level = cfg_node_get(map, lv->name);
  const char *keys[] = {"latency_block_bytes", "latency_region_bytes"};
  guint bytes[] = {lv->latency_block_bytes, lv->latency_region_bytes};
  for (guint k = 0; k < 2; k++) {
    const CfgNode *at = cfg_node_get(level, keys[k]);
    if (!bytes[k])
      continue;
    if ((bytes[k] & (bytes[k] - 1)) || bytes[k] < g->memory.line_bytes)
      return cfg_fail(error, at,
                      "memory.%s.%s (%u) must be a power of two, at least line_bytes (%u)",
                      lv->name, keys[k], bytes[k], g->memory.line_bytes);
    if (!lv->n_latencies)
      return cfg_fail(error, at, "memory.%s.%s shares drawn latencies: it needs latency_histogram",
                      lv->name, keys[k]);
  }
  const CfgNode *split = cfg_node_get(level, "latency_split_cycles");
  if (lv->latency_region_bytes && lv->latency_block_bytes > lv->latency_region_bytes)
    return cfg_fail(
        error, cfg_node_get(level, "latency_block_bytes"),
        "memory.%s.latency_block_bytes (%u) is larger than its latency_region_bytes (%u)", lv->name,
        lv->latency_block_bytes, lv->latency_region_bytes);
  if (lv->latency_region_bytes && !split)
    return cfg_fail(error, cfg_node_get(level, "latency_region_bytes"),
                    "memory.%s.latency_region_bytes shares a mode: it needs latency_split_cycles",
                    lv->name);
  /* (a region of 0 given beside it turns the sharing off: --set ...latency_region_bytes=0) */
  if (split && !cfg_node_get(level, "latency_region_bytes"))
    return cfg_fail(error, split,
                    "memory.%s.latency_split_cycles divides the modes of "
                    "latency_region_bytes, which is not given",
                    lv->name);
  if (!lv->latency_region_bytes)
    return TRUE;
  if (split) {
    gboolean below = FALSE, above = FALSE;
    for (guint b = 0; b < lv->n_latencies; b++)
      if (lv->latency_weight[b] > 0)
        *(lv->latency_bin[b] < lv->latency_split_cycles ? &below : &above) = TRUE;
    if (!below || !above)
      return cfg_fail(error, split,
                      "memory.%s.latency_split_cycles (%u) leaves no weight of latency_histogram "
                      "on one side",
                      lv->name, lv->latency_split_cycles);
  }
  return TRUE;
}

#define FC(k, t, field, lo, hi, u, d)                                                              \
  {                                                                                                \
    .key = k, .type = t, .offset = G_STRUCT_OFFSET(CfgCache, field), .min = lo, .max = hi,         \
    .unit = u, .doc = d                                                                            \
  }
#define FCE(k, field, n, d)                                                                        \
  {                                                                                                \
    .key = k, .type = CFG_FIELD_ENUM, .offset = G_STRUCT_OFFSET(CfgCache, field), .names = n,      \
    .doc = d                                                                                       \
  }
#define CACHE_SHAPE_FIELDS                                                                         \
  FC("bytes", CFG_FIELD_UINT64, bytes, 0, 1ull << 30, "bytes",                                     \
     "capacity (0: no such cache; an L1 at most 4 MiB)"),                                          \
      FC("ways", CFG_FIELD_UINT, ways, 1, 1024, "lines", "lines per set (associativity)"),         \
      FCE("replacement", replacement, replacement_names,                                           \
          "the line a miss replaces in a full set: lru (least recently used) or random"),          \
      FCE("index", index, index_names,                                                             \
          "which set a line goes to: hashed (a hash of its address) or modulo (its low bits)")

const CfgField cfg_l1_fields[] = {
    CACHE_SHAPE_FIELDS,
    FC("unified_bytes", CFG_FIELD_UINT64, unified_bytes, 0, 1ull << 22, "bytes",
       "storage the L1 shares with shared memory: the L1 is what the resident blocks' shared "
       "memory leaves of it (0: the L1 is bytes)"),
    FC("latency_cycles", CFG_FIELD_UINT, latency_cycles, 1, 1u << 20, "cycles",
       "a hit's round trip (an LDG's result ready that long after issue)"),
    FC("constant_latency_cycles", CFG_FIELD_UINT, constant_latency_cycles, 0, 1u << 20, "cycles",
       "a hit of a read-only load (LDG.CONSTANT, ld.global.nc, cache=nc), which takes the "
       "L1's read-only path (0: latency_cycles)"),
    FCE("loads", loads, l1_loads_names,
        "loads the L1 keeps: all (LDG and LDG.CONSTANT), constant (only the read-only "
        "LDG.CONSTANT, ld.global.nc) or none; .STRONG.GPU loads (ld.global.cg, cache=cg) "
        "never"),
    FC("write_allocate", CFG_FIELD_BOOL, write_allocate, 0, 1, NULL,
       "stores allocate lines (false: they write through and drop the line)"),
    FC("write_update", CFG_FIELD_BOOL, write_update, 0, 1, NULL,
       "a store that finds its line keeps it, with the sectors it writes, and a load after it "
       "hits (false: the line is dropped, without write_allocate); a store that misses "
       "allocates nothing"),
};

const CfgField cfg_l2_fields[] = {
    CACHE_SHAPE_FIELDS,
    FC("partitions", CFG_FIELD_UINT, partitions, 1, 64, NULL,
       "each holds bytes / partitions; an SM looks in its own (SM index modulo partitions) "
       "first, then in the line's home partition (a hash of its address)"),
    FC("far_latency_cycles", CFG_FIELD_UINT, far_latency_cycles, 0, 1u << 20, "cycles",
       "a hit in the line's home partition when that is not the SM's own (0: the hit "
       "level's latency)"),
    FC("fill_bytes", CFG_FIELD_UINT, fill_bytes, 0, 1u << 16, "bytes",
       "a dirty line's pieces of this many bytes (aligned) that a store wrote only in part, "
       "the rest not held, are read from the miss level before its write-back (0: a "
       "write-back writes the bytes alone)"),
    FC("clean_ways", CFG_FIELD_UINT, clean_ways, 0, 1023, "ways",
       "the least recently used ways of each set kept clean: a dirty line that ages into them "
       "is written back then, and an access that replaces a line waits until the miss "
       "level's channel has taken its write-back (0: lines are written back when replaced, "
       "and nothing waits for that; lru only, fewer than ways)"),
    FC("hit_level", CFG_FIELD_STRING, hit_level, 0, 0, NULL,
       "the memory level whose channels and latency serve L2 hits"),
    FC("miss_level", CFG_FIELD_STRING, miss_level, 0, 0, NULL,
       "the memory level that serves L2 misses"),
};

G_STATIC_ASSERT(G_N_ELEMENTS(cfg_memory_fields) == CFG_N_MEMORY_FIELDS);
G_STATIC_ASSERT(G_N_ELEMENTS(cfg_level_fields) == CFG_N_LEVEL_FIELDS);
G_STATIC_ASSERT(G_N_ELEMENTS(cfg_l1_fields) == CFG_N_L1_FIELDS);
G_STATIC_ASSERT(G_N_ELEMENTS(cfg_l2_fields) == CFG_N_L2_FIELDS);

gboolean
cfg_gpu_memory_load(CfgGpu *g, const CfgNode *map, GError **error)
{
  if (!cfg_node_expect_map(map, "memory", error))
    return FALSE;
  /* scalar keys are memory-wide settings, mapping keys are levels */
  for (guint i = 0; i < map->keys->len; i++) {
    const CfgNode *key = g_ptr_array_index(map->keys, i);
    const CfgNode *value = g_ptr_array_index(map->items, i);
    if (value->kind != CFG_NODE_MAP)
      continue;
    if (g->memory.n_levels == CFG_MAX_LEVELS)
      return cfg_fail(error, key, "at most %u memory levels", CFG_MAX_LEVELS);
    CfgMemLevel *lv = &g->memory.levels[g->memory.n_levels++];
    *lv = (CfgMemLevel){
        .name = g_strdup(key->value), .channels = 1, .service = CFG_SERVICE_DETERMINISTIC};
    g_autofree char *section = g_strdup_printf("memory.%s", key->value);
    if (!cfg_load_fields(value, section, cfg_level_fields, CFG_N_LEVEL_FIELDS, lv, error))
      return FALSE;
    const CfgNode *hist = cfg_node_get(value, "latency_histogram");
    gboolean have_latency = cfg_node_get(value, "latency_cycles") != NULL;
    if (hist && !load_latency_histogram(lv, hist, have_latency, error))
      return FALSE;
    static const char *const required[] = {"latency_cycles", "bytes_per_cycle"};
    for (guint r = hist ? 1 : 0; r < G_N_ELEMENTS(required); r++)
      if (cfg_node_get(value, required[r]) == NULL)
        return cfg_fail(error, key, "memory level '%s' needs %s", key->value, required[r]);
  }
  g_autoptr(CfgNode) scalars = g_new0(CfgNode, 1);
  scalars->kind = CFG_NODE_MAP;
  scalars->keys = g_ptr_array_new();
  scalars->items = g_ptr_array_new();
  for (guint i = 0; i < map->keys->len; i++) {
    CfgNode *value = g_ptr_array_index(map->items, i);
    if (value->kind == CFG_NODE_MAP)
      continue;
    g_ptr_array_add(scalars->keys, g_ptr_array_index(map->keys, i));
    g_ptr_array_add(scalars->items, value);
  }
  gboolean ok =
      cfg_load_fields(scalars, "memory", cfg_memory_fields, CFG_N_MEMORY_FIELDS, g, error);
  g_ptr_array_set_free_func(scalars->keys, NULL);
  g_ptr_array_set_free_func(scalars->items, NULL);
  if (!ok)
    return FALSE;
  const CfgNode *at = cfg_node_get(map, "sector_bytes");
  if (!at)
    at = cfg_node_get(map, "line_bytes");
  if (!at)
    at = map;
  guint line = g->memory.line_bytes, sector = g->memory.sector_bytes;
  if ((line & (line - 1)) || (sector & (sector - 1)))
    return cfg_fail(error, at, "line_bytes and sector_bytes must be powers of two");
  if (sector > line)
    return cfg_fail(error, at, "sector_bytes (%u) must not exceed line_bytes (%u)", sector, line);
  for (guint i = 0; i < g->memory.n_levels; i++) {
    if (g->memory.levels[i].min_access_bytes == 0)
      g->memory.levels[i].min_access_bytes = sector;
    if (!check_shared_latencies(g, &g->memory.levels[i], map, error) ||
        !check_rows(g, &g->memory.levels[i], map, error))
      return FALSE;
  }
  if (g->memory.n_levels == 0)
    return cfg_fail(error, map,
                    "memory needs at least one level (e.g. dram: {latency_cycles: "
                    "400, bytes_per_cycle: 16})");
  return TRUE;
}

gboolean
cfg_gpu_caches_load(CfgGpu *g, const CfgNode *map, GError **error)
{
  if (map == NULL)
    return TRUE;
  if (!cfg_node_expect_map(map, "caches", error))
    return FALSE;
  for (guint i = 0; i < map->keys->len; i++) {
    const CfgNode *key = g_ptr_array_index(map->keys, i);
    if (strcmp(key->value, "l1") != 0 && strcmp(key->value, "l2") != 0)
      return cfg_fail(error, key, "unknown cache '%s' in caches (l1, l2)", key->value);
  }
  const CfgNode *l1 = cfg_node_get(map, "l1"), *l2 = cfg_node_get(map, "l2");
  if (!cfg_load_fields(l1, "caches.l1", cfg_l1_fields, CFG_N_L1_FIELDS, &g->caches.l1, error) ||
      !cfg_load_fields(l2, "caches.l2", cfg_l2_fields, CFG_N_L2_FIELDS, &g->caches.l2, error))
    return FALSE;
  guint line = g->memory.line_bytes;
  for (guint c = 0; c < 2; c++) {
    CfgCache *k = c ? &g->caches.l2 : &g->caches.l1;
    const CfgNode *at = c ? l2 : l1;
    guint64 unit = (guint64)line * k->ways * (c ? k->partitions : 1);
    if (k->bytes % unit)
      return cfg_fail(error, cfg_node_get(at, "bytes") ? cfg_node_get(at, "bytes") : at,
                      "caches.%s.bytes (%" G_GUINT64_FORMAT ") must be a multiple of "
                      "line_bytes x ways%s (%" G_GUINT64_FORMAT ")",
                      c ? "l2" : "l1", k->bytes, c ? " x partitions" : "", unit);
  }
  if (g->caches.l1.bytes > (1ull << 22))
    return cfg_fail(error, cfg_node_get(l1, "bytes"),
                    "caches.l1.bytes (%" G_GUINT64_FORMAT ") is over 4 MiB, an L1 per SM",
                    g->caches.l1.bytes);
  if (g->caches.l1.unified_bytes && g->caches.l1.unified_bytes < g->caches.l1.bytes)
    return cfg_fail(error, cfg_node_get(l1, "unified_bytes"),
                    "caches.l1.unified_bytes (%" G_GUINT64_FORMAT ") is less than its bytes",
                    g->caches.l1.unified_bytes);
  if (!cfg_gpu_has_caches(g))
    return TRUE;
  if (line / g->memory.sector_bytes > 8)
    return cfg_fail(error, map,
                    "caches need lines of at most 8 sectors (memory.line_bytes %u / "
                    "sector_bytes %u)",
                    line, g->memory.sector_bytes);
  CfgCache *k = &g->caches.l2;
  const char *names[] = {k->hit_level, k->miss_level};
  int *index[] = {&k->hit_level_index, &k->miss_level_index};
  const char *keys[] = {"hit_level", "miss_level"};
  for (guint i = 0; i < 2; i++) {
    *index[i] = cfg_gpu_level(g, names[i]);
    if (*index[i] < 0 && (i == 1 || k->bytes))
      return cfg_fail(error, cfg_node_get(l2, keys[i]) ? cfg_node_get(l2, keys[i]) : map,
                      "caches.l2.%s: memory level '%s' is not in the GPU file", keys[i], names[i]);
  }
  guint fill = k->fill_bytes;
  if (fill && ((fill & (fill - 1)) || fill < g->memory.sector_bytes || fill > line))
    return cfg_fail(error, cfg_node_get(l2, "fill_bytes"),
                    "caches.l2.fill_bytes (%u) must be a power of two from sector_bytes (%u) to "
                    "line_bytes (%u)",
                    fill, g->memory.sector_bytes, line);
  if (k->clean_ways && (k->clean_ways >= k->ways || k->replacement != CFG_REPLACE_LRU))
    return cfg_fail(error, cfg_node_get(l2, "clean_ways"),
                    "caches.l2.clean_ways (%u) needs replacement: lru and fewer than ways (%u)",
                    k->clean_ways, k->ways);
  return TRUE;
}

gboolean
cfg_gpu_has_caches(const CfgGpu *gpu)
{
  return gpu->caches.l1.bytes > 0 || gpu->caches.l1.unified_bytes > 0 || gpu->caches.l2.bytes > 0;
}

int
cfg_gpu_level(const CfgGpu *gpu, const char *name)
{
  for (guint i = 0; i < gpu->memory.n_levels; i++)
    if (strcmp(gpu->memory.levels[i].name, name) == 0)
      return (int)i;
  return -1;
}

void
cfg_gpu_memory_print(const CfgGpu *g, GString *out)
{
  g_string_append_printf(out,
                         "memory:\n  line_bytes: %u\n  sector_bytes: %u\n  max_outstanding: %u\n"
                         "  sm_bytes_per_cycle: %g\n  seed: %" G_GUINT64_FORMAT "\n",
                         g->memory.line_bytes, g->memory.sector_bytes, g->memory.max_outstanding,
                         g->memory.sm_bytes_per_cycle, g->memory.seed);
  if (g->memory.store_drain != CFG_DRAIN_COMPLETION)
    g_string_append_printf(out, "  store_drain: %s\n", store_drain_names[g->memory.store_drain]);
  if (g->memory.store_ack_cycles)
    g_string_append_printf(out, "  store_ack_cycles: %u\n", g->memory.store_ack_cycles);
  if (g->memory.throttle_order != CFG_LG_ARRIVAL)
    g_string_append_printf(out, "  throttle_order: %s\n", lg_order_names[g->memory.throttle_order]);
  if (g->memory.fence != CFG_FENCE_NONE)
    g_string_append_printf(out, "  fence: %s\n  fence_cycles: %u\n  fence_ack_cycles: %u\n",
                           fence_names[g->memory.fence], g->memory.fence_cycles,
                           g->memory.fence_ack_cycles);
  for (guint i = 0; i < g->memory.n_levels; i++) {
    const CfgMemLevel *lv = &g->memory.levels[i];
    g_string_append_printf(out,
                           "  %s:\n    latency_cycles: %u\n    bytes_per_cycle: %g\n"
                           "    channels: %u\n    min_access_bytes: %u\n    service: %s\n",
                           lv->name, lv->latency_cycles, lv->bytes_per_cycle, lv->channels,
                           lv->min_access_bytes, service_names[lv->service]);
    if (lv->write_request_bytes || lv->write_sector_bytes || lv->partial_sector_bytes)
      g_string_append_printf(out,
                             "    write_request_bytes: %u\n    write_sector_bytes: %u\n"
                             "    partial_sector_bytes: %u\n",
                             lv->write_request_bytes, lv->write_sector_bytes,
                             lv->partial_sector_bytes);
    if (lv->n_latencies) {
      g_string_append(out, "    latency_histogram: [");
      for (guint b = 0; b < lv->n_latencies; b++)
        g_string_append_printf(out, "%s[%u, %g]", b ? ", " : "", lv->latency_bin[b],
                               lv->latency_weight[b]);
      g_string_append(out, "]\n");
    }
    if (lv->latency_block_bytes)
      g_string_append_printf(out, "    latency_block_bytes: %u\n", lv->latency_block_bytes);
    if (lv->latency_region_bytes)
      g_string_append_printf(out, "    latency_region_bytes: %u\n    latency_split_cycles: %u\n",
                             lv->latency_region_bytes, lv->latency_split_cycles);
    if (lv->row_bytes)
      g_string_append_printf(out, "    row_bytes: %u\n    row_hit_bytes: %u\n", lv->row_bytes,
                             lv->row_hit_bytes);
  }
  const CfgCache *l1 = &g->caches.l1, *l2 = &g->caches.l2;
  g_string_append_printf(
      out,
      "caches:\n  l1:\n    bytes: %" G_GUINT64_FORMAT "\n    unified_bytes: %" G_GUINT64_FORMAT
      "\n    ways: %u\n    replacement: %s\n    index: %s\n    latency_cycles: %u\n",
      l1->bytes, l1->unified_bytes, l1->ways, replacement_names[l1->replacement],
      index_names[l1->index], l1->latency_cycles);
  if (l1->constant_latency_cycles)
    g_string_append_printf(out, "    constant_latency_cycles: %u\n", l1->constant_latency_cycles);
  g_string_append_printf(out, "    loads: %s\n    write_allocate: %s\n", l1_loads_names[l1->loads],
                         l1->write_allocate ? "true" : "false");
  if (l1->write_update)
    g_string_append(out, "    write_update: true\n");
  g_string_append_printf(
      out,
      "  l2:\n    bytes: %" G_GUINT64_FORMAT "\n    ways: %u\n    replacement: %s\n"
      "    index: %s\n    partitions: %u\n    far_latency_cycles: %u\n"
      "    hit_level: %s\n    miss_level: %s\n",
      l2->bytes, l2->ways, replacement_names[l2->replacement], index_names[l2->index],
      l2->partitions, l2->far_latency_cycles, l2->hit_level, l2->miss_level);
  if (l2->fill_bytes)
    g_string_append_printf(out, "    fill_bytes: %u\n", l2->fill_bytes);
  if (l2->clean_ways)
    g_string_append_printf(out, "    clean_ways: %u\n", l2->clean_ways);
}
