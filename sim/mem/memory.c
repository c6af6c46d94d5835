/* Memory levels and channels: transactions, hashed channel choice, FIFO service, latency.
 * Not the LD/ST pipe's issue rules (gpu/loop.c, pipe.h). */
#include "memory.h"

#include <math.h>

#include "../core/fixed.h"
#include "level.h"

void
sm_memory_transactions(const CfgGpu *gpu, IsaPatternKind pattern, guint stride, guint width,
                       guint *n, guint *bytes)
{
  guint line = gpu->memory.line_bytes, sector = gpu->memory.sector_bytes;
  guint lane_sectors = (MAX(width, 1u) + sector - 1) / sector; /* a lane's own sectors */
  if (pattern == ISA_PATTERN_RANDOM) {
    *n = 32;
    *bytes = lane_sectors * sector;
    return;
  }
  if (pattern == ISA_PATTERN_BROADCAST) {
    *n = 1;
    *bytes = lane_sectors * sector;
    return;
  }
  if (pattern != ISA_PATTERN_STRIDE)
    stride = 1;
  /* lanes' byte ranges [W i stride, W i stride + W) in increasing order: count the distinct
   * lines and sectors they touch */
  guint lines = 0, sectors = 0;
  guint64 last_line = G_MAXUINT64, last_sector = G_MAXUINT64;
  for (guint lane = 0; lane < 32; lane++) {
    guint64 first = (guint64)lane * width * stride, end = first + width - 1;
    for (guint64 l = first / line; l <= end / line; l++)
      if (l != last_line)
        lines++, last_line = l;
    for (guint64 c = first / sector; c <= end / sector; c++)
      if (c != last_sector)
        sectors++, last_sector = c;
  }
  *n = lines;
  *bytes = sectors * sector / lines;
}

/* log2 of a power of two */
static guint
log2_of(guint64 x)
{
  guint k = 0;
  while (x > 1) {
    x >>= 1;
    k++;
  }
  return k;
}

static void
shared_latencies_init(SmMemLevel *lv, const CfgMemLevel *cfg, guint line_bytes)
{
  if (!cfg->n_latencies)
    return;
  if (cfg->latency_block_bytes) {
    lv->blocks = g_new0(SmLatencySlot, SM_LATENCY_SLOTS);
    lv->block_shift = log2_of(cfg->latency_block_bytes / line_bytes);
  }
  if (cfg->latency_region_bytes) {
    lv->regions = g_new0(SmLatencySlot, SM_LATENCY_SLOTS);
    lv->region_shift = log2_of(cfg->latency_region_bytes / line_bytes);
    lv->split = cfg->latency_split_cycles;
    double below = 0, total = 0;
    for (guint b = 0; b < cfg->n_latencies; b++) {
      total += cfg->latency_weight[b];
      if (cfg->latency_bin[b] < cfg->latency_split_cycles)
        below += cfg->latency_weight[b];
    }
    lv->split_cum = (guint64)(below / total * 4294967296.0);
  }
}

void
sm_memory_init(SmMemory *mem, const CfgGpu *gpu, guint n_sm, SmEngine *engine, gboolean caches,
               guint64 l1_bytes)
{
  *mem = (SmMemory){0};
  mem->engine = engine;
  mem->n_levels = gpu->memory.n_levels;
  mem->line_bytes = gpu->memory.line_bytes;
  mem->sector_bytes = gpu->memory.sector_bytes;
  mem->max_outstanding = gpu->memory.max_outstanding;
  mem->sm_outstanding = g_new0(guint64, n_sm);
  mem->sm_stores = g_new0(guint64, n_sm);
  mem->max_stores = gpu->memory.max_store_outstanding;
  mem->store_drain = gpu->memory.store_drain;
  mem->store_ack = gpu->memory.store_ack_cycles;
  mem->sm_count = n_sm;
  if (!isinf(gpu->memory.sm_bytes_per_cycle)) {
    mem->port_free = g_new0(guint64, n_sm);
    mem->port_ticks_per_byte = SM_TICKS_PER_CYCLE / gpu->memory.sm_bytes_per_cycle;
  }
  for (guint i = 0; i < mem->n_levels; i++) {
    const CfgMemLevel *cfg = &gpu->memory.levels[i];
    SmMemLevel *lv = &mem->levels[i];
    lv->channels = cfg->channels * n_sm;
    lv->channel_free = g_new0(guint64, lv->channels);
    lv->latency = cfg->latency_cycles;
    lv->ticks_per_byte = isinf(cfg->bytes_per_cycle) ? 0
                                                     : (double)SM_TICKS_PER_CYCLE * cfg->channels /
                                                           cfg->bytes_per_cycle; /* per channel */
    lv->min_access_bytes = cfg->min_access_bytes;
    lv->writes = sm_write_costs(cfg, gpu->memory.sector_bytes);
    lv->exponential = cfg->service == CFG_SERVICE_EXPONENTIAL;
    lv->rng = sm_hash64(gpu->memory.seed ^ (0x51ED270B27A3C4D1ULL * (i + 1))) | 1;
    lv->n_latencies = cfg->n_latencies;
    if (cfg->n_latencies) {
      lv->latency_bin = g_new(guint32, cfg->n_latencies);
      lv->latency_cum = g_new(guint64, cfg->n_latencies);
      double total = 0, cum = 0, sum = 0;
      for (guint b = 0; b < cfg->n_latencies; b++) {
        total += cfg->latency_weight[b];
        sum += cfg->latency_weight[b] * cfg->latency_bin[b];
      }
      /* the histogram gives the spread, latency_cycles the mean */
      lv->latency_shift = (gint64)cfg->latency_cycles - (gint64)floor(sum / total + 0.5);
      for (guint b = 0; b < cfg->n_latencies; b++) {
        cum += cfg->latency_weight[b];
        lv->latency_bin[b] = cfg->latency_bin[b];
        lv->latency_cum[b] = (guint64)(cum / total * 4294967296.0);
      }
      lv->latency_cum[cfg->n_latencies - 1] = (guint64)1 << 32;
      /* a guide table: where the search for a draw u starts (the same bin as a binary
       * search finds, in one or two steps) */
      guint n_guide = 1u << SM_LATENCY_GUIDE_BITS;
      lv->latency_guide = g_new(guint16, n_guide);
      guint b = 0;
      for (guint k = 0; k < n_guide; k++) {
        guint64 lo = (guint64)k << (32 - SM_LATENCY_GUIDE_BITS);
        while (b + 1 < cfg->n_latencies && lv->latency_cum[b] <= lo)
          b++;
        lv->latency_guide[k] = (guint16)b;
      }
    }
    guint ch = lv->channels;
    lv->channel_mask = (ch & (ch - 1)) == 0 ? ch - 1 : 0;
    shared_latencies_init(lv, cfg, gpu->memory.line_bytes);
    if (cfg->row_bytes) {
      lv->rows = g_new0(SmLatencySlot, SM_LATENCY_SLOTS);
      lv->row_shift = log2_of(cfg->row_bytes / gpu->memory.line_bytes);
      lv->row_hit_bytes = MIN(cfg->row_hit_bytes, cfg->min_access_bytes);
    }
  }
  if (caches)
    sm_memory_caches_init(mem, gpu, n_sm, l1_bytes);
}

void
sm_memory_clear(SmMemory *mem)
{
  sm_waitq_clear(&mem->lg);
  for (guint i = 0; i < mem->n_levels; i++) {
    g_clear_pointer(&mem->levels[i].channel_free, g_free);
    g_clear_pointer(&mem->levels[i].latency_bin, g_free);
    g_clear_pointer(&mem->levels[i].latency_cum, g_free);
    g_clear_pointer(&mem->levels[i].latency_guide, g_free);
    g_clear_pointer(&mem->levels[i].blocks, g_free);
    g_clear_pointer(&mem->levels[i].regions, g_free);
    g_clear_pointer(&mem->levels[i].rows, g_free);
  }
  g_clear_pointer(&mem->sm_outstanding, g_free);
  g_clear_pointer(&mem->sm_stores, g_free);
  g_clear_pointer(&mem->port_free, g_free);
  for (guint s = 0; mem->l1 && s < mem->sm_count; s++)
    sm_cache_clear(&mem->l1[s]);
  for (guint p = 0; p < mem->l2_parts; p++)
    sm_cache_clear(&mem->l2[p]);
  g_clear_pointer(&mem->l1, g_free);
  g_clear_pointer(&mem->l2, g_free);
}

guint64
sm_memory_access_lines(SmMemory *mem, guint sm, guint level, guint64 now, guint n,
                       const guint64 *lines, const guint *bytes, gboolean write)
{
  SmMemLevel *lv = &mem->levels[level];
  guint64 last = now, latency = n ? access_latency(lv, now, lines[0]) : 0, total = 0;
  for (guint i = 0; i < n; i++) {
    guint64 done =
        transaction(mem, sm, level, now, lines[i], bytes[i], bytes[i], write, latency, 0);
    last = MAX(last, done);
    total += bytes[i];
  }
  lv->transactions += n;
  lv->bytes += total;
  if (write)
    lv->write_bytes += total;
  return last;
}

guint64
sm_memory_access(SmMemory *mem, guint sm, guint level, guint64 now, guint n, guint bytes,
                 guint64 line_base, gboolean random_lines, gboolean write, guint64 *rng)
{
  SmMemLevel *lv = &mem->levels[level];
  guint64 last = now;
  /* one unloaded latency for the whole warp-access: its lines travel together */
  guint64 latency = random_lines ? draw_latency(lv) : access_latency(lv, now, line_base);
  for (guint i = 0; i < n; i++) {
    guint64 line = random_lines ? sm_rng_next(rng) >> 24 : line_base + i;
    guint64 done = transaction(mem, sm, level, now, line, bytes, bytes, write, latency, 0);
    last = MAX(last, done);
  }
  lv->transactions += n;
  lv->bytes += (guint64)n * bytes;
  if (write)
    lv->write_bytes += (guint64)n * bytes;
  return last;
}
