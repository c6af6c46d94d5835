/* A GPU file's SM-side paths to memory: the LD/ST stage (lsu) and the constant cache (LDC's
 * words): keys, loading, checks and printing.  The memory section and the caches behind them
 * are gpu-memory.c. */
#include "gpu-internal.h"

const CfgField cfg_lsu_fields[CFG_N_LSU_FIELDS] = {
    F("load_line_cycles", CFG_FIELD_UINT, lsu.load_line_cycles, 0, 1024, "cycles",
      "the L1TEX stage looks up a load's lines one after another, this long each, one access "
      "at a time per SM; the lines go on to the L1 and beyond once all are looked up"),
    F("return_line_cycles", CFG_FIELD_UINT, lsu.return_line_cycles, 0, 1024, "cycles",
      "a load's data comes back to the registers a line at a time: each line after the first "
      "adds this to its latency"),
    F("store_line_cycles", CFG_FIELD_UINT, lsu.store_line_cycles, 0, 1024, "cycles",
      "stage cycles per line a store writes"),
    F("partial_sector_cycles", CFG_FIELD_UINT, lsu.partial_sector_cycles, 0, 1024, "cycles",
      "stage cycles, besides its line's, per sector a store writes only in part (a byte mask)"),
    F("store_bytes_per_cycle", CFG_FIELD_UINT, lsu.store_bytes_per_cycle, 0, 1u << 16,
      "bytes/cycle",
      "a store's data crosses the store data path beside the stage at this many bytes a cycle, "
      "stores in turn; loads do not wait for it (0: no such path)"),
    F("store_read_cycles", CFG_FIELD_UINT, lsu.store_read_cycles, 0, 1u << 16, "cycles",
      "a store's registers (address and data) are read this long after its issue: an "
      "instruction that writes one of them waits until then (long_scoreboard)"),
    F("store_buffer", CFG_FIELD_UINT, lsu.store_buffer, 0, 1024, "stores",
      "stores whose data was read and that have not yet passed the stage, per SM: a store's "
      "registers are read no earlier than the stage is done with the store this many before it "
      "(0: no limit)"),
    F("store_queue", CFG_FIELD_UINT, lsu.store_queue, 0, 4096, "stores",
      "stores issued whose registers the stage has not read yet, per SM: a store finding no "
      "room among the SM's stores in flight (memory.max_store_outstanding) waits here, in issue "
      "order, while its warp goes on (an instruction that writes its registers waits in "
      "long_scoreboard, an EXIT in drain); a global store issued with the queue full waits in "
      "lg_throttle.  0: no queue (a store waits for room at issue, in lg_throttle)"),
    F("store_queue_hold_cycles", CFG_FIELD_UINT, lsu.store_queue_hold_cycles, 0, 1u << 16, "cycles",
      "a store keeps its place in the store queue this long after its registers are read (its "
      "warp goes on at the read): a warp back at its next store by then finds its own place "
      "free first (with memory.throttle_order oldest, an older warp's is then its own again)"),
    F("store_backlog_cycles", CFG_FIELD_UINT, lsu.store_backlog_cycles, 0, 1u << 20, "cycles",
      "each SM's stores reach their level at no more than its share of the level's write rate "
      "(bytes_per_cycle over the SMs the grid occupies, a line costing what it costs a "
      "channel); the stage holds a store while the stores before it leave more than this "
      "backlog at that pace, and the stores behind it wait (0: the stage never waits for the "
      "level)"),
};

const CfgField cfg_constant_cache_fields[CFG_N_CONSTANT_CACHE_FIELDS] = {
    F("bytes", CFG_FIELD_UINT, constant_cache.bytes, 0, 1u << 20, "bytes",
      "capacity of each SM's constant cache, which LDC reads the constant banks through (0: "
      "none; LDC then runs as an op of its unit)"),
    F("line_bytes", CFG_FIELD_UINT, constant_cache.line_bytes, 4, 4096, "bytes",
      "the lines it holds"),
    F("ways", CFG_FIELD_UINT, constant_cache.ways, 1, 1024, "ways",
      "lines per set (least recently used replaced)"),
    F("hit_latency_cycles", CFG_FIELD_UINT, constant_cache.hit_latency_cycles, 0, 1u << 16,
      "cycles",
      "a warp's LDC whose lines are all held: its result this many cycles after it starts"),
    F("miss_latency_cycles", CFG_FIELD_UINT, constant_cache.miss_latency_cycles, 0, 1u << 20,
      "cycles", "... and one with a line not held (which it then holds)"),
    F("address_cycles", CFG_FIELD_UINT, constant_cache.address_cycles, 0, 1u << 16, "cycles",
      "each distinct address among the warp's lanes beyond the first adds this to the latency"),
    F("port_cycles", CFG_FIELD_UINT, constant_cache.port_cycles, 0, 1u << 16, "cycles",
      "a read of several distinct addresses takes the SM's port, shared by its schedulers, "
      "this long an address, and starts when the addresses before it are taken (a read of "
      "one address is a broadcast, past the port)"),
};

gboolean
cfg_gpu_constant_cache_load(CfgGpu *g, const CfgNode *cc, GError **error)
{
  g->constant_cache.line_bytes = 64;
  g->constant_cache.ways = 4;
  if (!cfg_load_fields(cc, "constant_cache", cfg_constant_cache_fields, CFG_N_CONSTANT_CACHE_FIELDS,
                       g, error))
    return FALSE;
  if (g->constant_cache.bytes &&
      g->constant_cache.bytes % (g->constant_cache.line_bytes * g->constant_cache.ways) != 0)
    return cfg_fail(error, cfg_node_get(cc, "bytes"),
                    "constant_cache.bytes (%u) must be a whole number of sets: line_bytes x ways "
                    "(%u)",
                    g->constant_cache.bytes, g->constant_cache.line_bytes * g->constant_cache.ways);
  return TRUE;
}

void
cfg_gpu_constant_cache_print(const CfgGpu *g, GString *out)
{
  if (cfg_gpu_has_constant_cache(g))
    g_string_append_printf(out,
                           "constant_cache:\n  bytes: %u\n  line_bytes: %u\n  ways: %u\n"
                           "  hit_latency_cycles: %u\n  miss_latency_cycles: %u\n"
                           "  address_cycles: %u\n  port_cycles: %u\n",
                           g->constant_cache.bytes, g->constant_cache.line_bytes,
                           g->constant_cache.ways, g->constant_cache.hit_latency_cycles,
                           g->constant_cache.miss_latency_cycles, g->constant_cache.address_cycles,
                           g->constant_cache.port_cycles);
}

gboolean
cfg_gpu_has_constant_cache(const CfgGpu *g)
{
  return g->constant_cache.bytes != 0;
}

void
cfg_gpu_lsu_print(const CfgGpu *g, GString *out)
{
  g_string_append_printf(out,
                         "lsu:\n  load_line_cycles: %u\n  return_line_cycles: %u\n"
                         "  store_line_cycles: %u\n  partial_sector_cycles: %u\n"
                         "  store_bytes_per_cycle: %u\n  store_read_cycles: %u\n"
                         "  store_buffer: %u\n  store_queue: %u\n  store_queue_hold_cycles: %u\n"
                         "  store_backlog_cycles: %u\n",
                         g->lsu.load_line_cycles, g->lsu.return_line_cycles,
                         g->lsu.store_line_cycles, g->lsu.partial_sector_cycles,
                         g->lsu.store_bytes_per_cycle, g->lsu.store_read_cycles,
                         g->lsu.store_buffer, g->lsu.store_queue, g->lsu.store_queue_hold_cycles,
                         g->lsu.store_backlog_cycles);
}

gboolean
cfg_gpu_has_lsu(const CfgGpu *g)
{
  return g->lsu.load_line_cycles || g->lsu.return_line_cycles || g->lsu.store_line_cycles ||
         g->lsu.partial_sector_cycles || g->lsu.store_bytes_per_cycle || g->lsu.store_read_cycles ||
         g->lsu.store_buffer || g->lsu.store_queue || g->lsu.store_queue_hold_cycles ||
         g->lsu.store_backlog_cycles;
}
