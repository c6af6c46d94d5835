/* Memory levels and channels: transactions, hashed channel choice, FIFO service, latency.
 * Not the LD/ST pipe's issue rules (gpu/loop.c, pipe.h). */
#include "memory.h"

#include <math.h>

#include "../core/fixed.h"

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

static void
caches_init(SmMemory *mem, const CfgGpu *gpu, guint n_sm, guint64 l1_bytes)
{
  if (!cfg_gpu_has_caches(gpu))
    return;
  const CfgCache *l1 = &gpu->caches.l1, *l2 = &gpu->caches.l2;
  if (l1_bytes) {
    mem->l1 = g_new0(SmCache, n_sm);
    for (guint s = 0; s < n_sm; s++)
      sm_cache_init(&mem->l1[s], l1_bytes, gpu->memory.line_bytes, l1->ways, l1->replacement,
                    l1->index, gpu->memory.seed + s);
  }
  mem->l1_latency = l1->latency_cycles;
  mem->l1_constant_latency =
      l1->constant_latency_cycles ? l1->constant_latency_cycles : l1->latency_cycles;
  mem->l1_loads = (guint8)l1->loads;
  mem->l1_write_allocate = l1->write_allocate;
  mem->l1_write_update = l1->write_update;
  if (l2->bytes) {
    mem->l2_parts = l2->partitions;
    mem->l2 = g_new0(SmCache, l2->partitions);
    for (guint p = 0; p < l2->partitions; p++)
      sm_cache_init(&mem->l2[p], l2->bytes / l2->partitions, gpu->memory.line_bytes, l2->ways,
                    l2->replacement, l2->index, gpu->memory.seed ^ (0xA5A5ULL + p));
    mem->hit_level = (guint)l2->hit_level_index;
    guint hit_latency = gpu->memory.levels[mem->hit_level].latency_cycles;
    mem->far_extra =
        l2->far_latency_cycles > hit_latency ? l2->far_latency_cycles - hit_latency : 0;
    mem->fill_sectors = l2->fill_bytes / gpu->memory.sector_bytes;
  }
  mem->miss_level = (guint)l2->miss_level_index;
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
    caches_init(mem, gpu, n_sm, l1_bytes);
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

/* a transaction's channel time as @bytes occupy it, at least @least */
static guint64
service_ticks_least(SmMemLevel *lv, guint bytes, guint least)
{
  double mean = lv->ticks_per_byte * MAX(bytes, least);
  if (!lv->exponential)
    return (guint64)(mean + 0.5);
  /* u in (0, 1]: 53 random bits */
  double u = ((double)(sm_rng_next(&lv->rng) >> 11) + 1.0) / 9007199254740992.0;
  return (guint64)(-mean * log(u) + 0.5);
}

/* The histogram's bin at @u in [0, 2^32) of its cumulative weights. */
static inline guint
bin_at(const SmMemLevel *lv, guint64 u)
{
  /* the first bin whose cumulative weight exceeds u */
  guint lo = lv->latency_guide[u >> (32 - SM_LATENCY_GUIDE_BITS)];
  while (lv->latency_cum[lo] <= u)
    lo++;
  return lo;
}

static inline guint64
bin_latency(const SmMemLevel *lv, guint b)
{
  gint64 drawn = (gint64)lv->latency_bin[b] + lv->latency_shift;
  return (guint64)MAX(drawn, 1);
}

/* A transaction's unloaded latency: fixed, or drawn from the level's histogram. */
static inline guint64
draw_latency(SmMemLevel *lv)
{
  if (lv->n_latencies == 0)
    return lv->latency;
  return bin_latency(lv, bin_at(lv, sm_rng_next(&lv->rng) >> 32));
}

/* the slot of @table where @tag lives */
static inline SmLatencySlot *
latency_slot(SmLatencySlot *table, guint64 tag)
{
  return &table[sm_hash64(tag) & (SM_LATENCY_SLOTS - 1)];
}

/* The unloaded latency of a warp-access at cycle @now whose first line is @line: a block's
 * while an access of it is in flight, else drawn, from its region's mode while an access of
 * that is in flight (the same draw as draw_latency() where nothing is shared). */
static guint64
access_latency(SmMemLevel *lv, guint64 now, guint64 line)
{
  if (!lv->blocks && !lv->regions)
    return draw_latency(lv);
  SmLatencySlot *b = NULL, *r = NULL;
  guint64 btag = 0, rtag = 0, latency;
  if (lv->blocks) {
    btag = (line >> lv->block_shift) + 1;
    b = latency_slot(lv->blocks, btag);
  }
  if (lv->regions) {
    rtag = (line >> lv->region_shift) + 1;
    r = latency_slot(lv->regions, rtag);
  }
  gboolean in_region = r && r->tag == rtag && now < r->until;
  if (b && b->tag == btag && now < b->until) {
    latency = b->value;
  } else {
    guint64 u = sm_rng_next(&lv->rng) >> 32;
    if (in_region) /* u scaled into the region's mode */
      u = r->value ? lv->split_cum + (((((guint64)1 << 32) - lv->split_cum) * u) >> 32)
                   : (lv->split_cum * u) >> 32;
    guint bin = bin_at(lv, u); /* (scaled, u stays below 2^32) */
    latency = bin_latency(lv, bin);
    /* what it drew holds while it is in flight (later accesses do not prolong it) */
    if (b)
      *b = (SmLatencySlot){.tag = btag, .until = now + latency, .value = latency};
    if (r && !in_region)
      *r = (SmLatencySlot){
          .tag = rtag, .until = now + latency, .value = lv->latency_bin[bin] >= lv->split};
  }
  return latency;
}

/* the channel @line hashes to */
static inline guint
channel_of(const SmMemLevel *lv, guint64 line)
{
  guint64 h = sm_hash64(line);
  return lv->channel_mask || lv->channels == 1 ? (guint)(h & lv->channel_mask)
                                               : (guint)(h % lv->channels);
}

/* The least channel time, as bytes, of a transaction to @line at cycle @now whose data is back
 * at @done: the level's min_access_bytes, or row_hit_bytes where its row is open (another
 * transaction of it in flight), which it keeps open until then. */
static inline guint
row_least(SmMemLevel *lv, guint64 now, guint64 line, guint64 done)
{
  if (!lv->rows)
    return lv->min_access_bytes;
  guint64 tag = (line >> lv->row_shift) + 1;
  SmLatencySlot *r = latency_slot(lv->rows, tag);
  if (r->tag == tag && now < r->until) {
    r->until = MAX(r->until, done);
    return lv->row_hit_bytes;
  }
  *r = (SmLatencySlot){.tag = tag, .until = done};
  return lv->min_access_bytes;
}

/* one transaction of @bytes to @line at cycle @now, which occupies its channel as @cost bytes
 * do and completes no earlier than @after: its channel's queue, its completion */
static inline guint64
transaction(SmMemory *mem, guint sm, guint level, guint64 now, guint64 line, guint bytes,
            guint cost, gboolean write, guint64 latency, guint64 after)
{
  SmMemLevel *lv = &mem->levels[level];
  guint ch = channel_of(lv, line);
  guint64 arrive = now << SM_TICK_SHIFT, left = arrive;
  if (mem->port_free) { /* the SM's port first, in order */
    arrive = MAX(arrive, mem->port_free[sm]);
    left = mem->port_free[sm] = arrive + (guint64)(mem->port_ticks_per_byte * bytes + 0.5);
  }
  guint64 start = MAX(arrive, lv->channel_free[ch]);
  guint64 begins = (start + SM_TICKS_PER_CYCLE - 1) >> SM_TICK_SHIFT;
  guint64 done = begins + latency;
  lv->channel_free[ch] = start + service_ticks_least(lv, cost, row_least(lv, now, line, done));
  done = MAX(done, after);
  if (mem->count_queued && begins > now) {
    mem->queued++;
    sm_engine_push(mem->engine, begins, 0, SM_EVENT_MEM_START, level);
  }
  sm_engine_push(mem->engine, done, 0, SM_EVENT_MEM_DONE,
                 level | (write ? SM_MEM_DONE_STORE : 0) | ((guint64)sm << 8));
  if (write) {
    mem->store_done = MAX(mem->store_done, done);
    mem->store_taken =
        MAX(mem->store_taken, (lv->channel_free[ch] + SM_TICKS_PER_CYCLE - 1) >> SM_TICK_SHIFT);
  }
  if (!write || mem->store_drain == CFG_DRAIN_COMPLETION)
    return done;
  /* its channel has taken it, or it has left its SM; then its acknowledgement */
  guint64 at = mem->store_drain == CFG_DRAIN_ACCEPTANCE ? lv->channel_free[ch] : left;
  return ((at + SM_TICKS_PER_CYCLE - 1) >> SM_TICK_SHIFT) + mem->store_ack;
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

gboolean
sm_memory_l1_keeps(const SmMemory *mem, SmCacheOp op)
{
  if (!mem->l1 || op == SM_CACHE_OP_GLOBAL)
    return FALSE;
  return mem->l1_loads == CFG_L1_LOADS_ALL ||
         (mem->l1_loads == CFG_L1_LOADS_CONSTANT && op == SM_CACHE_OP_CONSTANT);
}

/* the L2 partition @line's home is (a hash of it; an SM's own is its index modulo partitions) */
static inline guint
l2_home(const SmMemory *mem, guint64 line)
{
  return (guint)(sm_hash64(line * 0xD6E8FEB86659FD93ULL) % mem->l2_parts);
}

/* The channel time, as bytes, of a store to @lv writing @sectors of a line, @partial of them in
 * part, or of a load of them (write-cost.h). */
static inline guint
write_cost(const SmMemLevel *lv, guint8 sectors, guint8 partial)
{
  return sm_write_cost(&lv->writes, sectors, partial);
}

/* A dirty line an L2 eviction writes back: it takes its miss level's channel time, from @now
 * (ticks) on; with rows, as much as a transaction to an open row (the level gathers the lines
 * it writes back by row before it writes them). */
static void
write_back(SmMemory *mem, guint64 now, guint64 line, guint8 dirty)
{
  SmMemLevel *lv = &mem->levels[mem->miss_level];
  guint bytes = (guint)sm_popcount32(dirty) * mem->sector_bytes;
  guint ch = channel_of(lv, line);
  guint64 start = MAX(now, lv->channel_free[ch]);
  lv->channel_free[ch] =
      start + service_ticks_least(lv, write_cost(lv, dirty, 0),
                                  lv->rows ? lv->row_hit_bytes : lv->min_access_bytes);
  lv->transactions++;
  lv->bytes += bytes;
  lv->write_bytes += bytes;
  mem->counts.write_backs += (guint)sm_popcount32(dirty);
}

/* Looks up @sectors of @line in the L2 from SM @sm: returns the level that serves it and sets
 * *@far when the line's home partition (not the SM's) had it, *@home_hit to the sectors the
 * home partition held (a store's: where it is dirty).  A dirty line it replaces is written back
 * from @now (ticks) on. */
static guint
l2_route(SmMemory *mem, guint sm, guint64 now, guint64 line, guint8 sectors, gboolean write,
         guint *hit_sectors, gboolean *far, guint8 *home_hit)
{
  *far = FALSE;
  *hit_sectors = 0;
  *home_hit = 0;
  if (mem->l2_parts == 0)
    return mem->miss_level;
  guint n = (guint)sm_popcount32(sectors);
  mem->counts.l2_requests++;
  mem->counts.l2_sectors += n;
  guint near = sm % mem->l2_parts, home = l2_home(mem, line);
  /* a written line is dirty in its home partition only (the SM's own keeps a clean copy), so
   * it is written back once */
  SmCacheResult r = sm_cache_access(&mem->l2[near], line, sectors, TRUE, write && home == near);
  if (r.evicted_dirty)
    write_back(mem, now, r.evicted_line, r.evicted_dirty);
  guint8 hit = r.hit;
  *home_hit = r.hit;
  if (home != near && (hit != sectors || write)) {
    r = sm_cache_access(&mem->l2[home], line, sectors, TRUE, write);
    *home_hit = r.hit;
    if (r.evicted_dirty)
      write_back(mem, now, r.evicted_line, r.evicted_dirty);
    if (hit != sectors && (guint8)(hit | r.hit) == sectors) {
      *far = TRUE;
      mem->counts.l2_far_hits += (guint)sm_popcount32(sectors & ~hit);
      hit = sectors;
    }
  }
  *hit_sectors = (guint)sm_popcount32(hit);
  mem->counts.l2_hits += *hit_sectors;
  return hit == sectors || write ? mem->hit_level : mem->miss_level;
}

guint
sm_memory_l1_access(SmMemory *mem, guint sm, guint64 now, guint n, const guint64 *lines,
                    const guint8 *sectors, SmCacheOp op, gboolean write, SmCacheOutcome *out,
                    guint64 *last, guint64 *rest_lines, guint8 *rest_sectors)
{
  gboolean keep = !write && sm_memory_l1_keeps(mem, op);
  guint m = 0;
  for (guint i = 0; i < n; i++) {
    guint8 want = sectors[i];
    guint k = (guint)sm_popcount32(want);
    if (mem->l1 && (keep || write)) {
      if (!write) {
        mem->counts.l1_requests++;
        mem->counts.l1_sectors += k;
      }
      if (write && !mem->l1_write_allocate && mem->l1_write_update) {
        sm_cache_update(&mem->l1[sm], lines[i], want); /* a line it finds keeps what it writes */
        rest_lines[m] = lines[i];
        rest_sectors[m++] = want;
        continue;
      }
      SmCacheResult r =
          sm_cache_access(&mem->l1[sm], lines[i], want, !write || mem->l1_write_allocate, write);
      if (!write) {
        guint hits = (guint)sm_popcount32(r.hit);
        mem->counts.l1_hits += hits;
        if (out)
          out->l1_hits += hits;
        if (r.hit == want) { /* all there: the SM's own L1 answers */
          guint64 done =
              now + (op == SM_CACHE_OP_CONSTANT ? mem->l1_constant_latency : mem->l1_latency);
          sm_engine_push(mem->engine, done, 0, SM_EVENT_MEM_DONE, (guint64)sm << 8);
          *last = MAX(*last, done);
          continue;
        }
        want &= (guint8)~r.hit;
      }
    }
    rest_lines[m] = lines[i];
    rest_sectors[m++] = want;
  }
  return m;
}

/* The pieces of a line (caches.l2.fill_bytes) a store writing @sectors, @partial of them in
 * part, leaves in part where the L2 held only @held of their sectors. */
static guint
pieces_to_fill(const SmMemory *mem, guint8 sectors, guint8 partial, guint8 held)
{
  guint k = mem->fill_sectors, n = 0;
  if (k == 0)
    return 0;
  guint8 whole = sectors & (guint8)~partial, piece = (guint8)((1u << k) - 1);
  for (guint s = 0; s < 8; s += k, piece = (guint8)(piece << k))
    if ((sectors & piece) && (piece & (guint8)~whole & (guint8)~held))
      n++;
  return n;
}

/* A read of @bytes of @line from @level for the L2 at cycle @now (the pieces a store writes in
 * part that the L2 lacks): its channel time (its data is back @latency after its service
 * starts, which keeps its row open).  Returns the cycle its channel is done with it: the store
 * waits for that, in the L2's line for the level, not for the data (no event of its own). */
static guint64
fill_read(SmMemory *mem, guint level, guint64 now, guint64 line, guint bytes, guint64 latency)
{
  SmMemLevel *lv = &mem->levels[level];
  guint ch = channel_of(lv, line);
  guint64 start = MAX(now << SM_TICK_SHIFT, lv->channel_free[ch]);
  guint64 done = ((start + SM_TICKS_PER_CYCLE - 1) >> SM_TICK_SHIFT) + latency;
  lv->channel_free[ch] = start + service_ticks_least(lv, bytes, row_least(lv, now, line, done));
  lv->transactions++;
  lv->bytes += bytes;
  mem->counts.fills += bytes / mem->sector_bytes;
  return (lv->channel_free[ch] + SM_TICKS_PER_CYCLE - 1) >> SM_TICK_SHIFT;
}

guint64
sm_memory_l2_access(SmMemory *mem, guint sm, guint64 now, guint n, const guint64 *lines,
                    const guint8 *sectors, const guint8 *partial, gboolean write,
                    SmCacheOutcome *out)
{
  guint64 last = now, latency[CFG_MAX_LEVELS] = {0};
  for (guint i = 0; i < n; i++) {
    guint8 want = sectors[i];
    guint l2_hits;
    gboolean far;
    guint8 home_hit;
    guint level =
        l2_route(mem, sm, now << SM_TICK_SHIFT, lines[i], want, write, &l2_hits, &far, &home_hit);
    if (out) {
      out->l2_hits += l2_hits;
      out->misses += (guint)sm_popcount32(want) - MIN(l2_hits, (guint)sm_popcount32(want));
    }
    SmMemLevel *lv = &mem->levels[level];
    if (latency[level] == 0) /* one draw per level for the whole warp-access */
      latency[level] = access_latency(lv, now, lines[i]);
    guint bytes = (guint)sm_popcount32(want) * mem->sector_bytes;
    guint cost = write ? write_cost(lv, want, partial ? partial[i] : 0) : bytes;
    guint64 after = 0;
    guint pieces = write ? pieces_to_fill(mem, want, partial ? partial[i] : 0, home_hit) : 0;
    if (pieces) { /* the L2 reads the pieces it writes in part before it has them */
      guint miss = mem->miss_level;
      if (latency[miss] == 0)
        latency[miss] = access_latency(&mem->levels[miss], now, lines[i]);
      after = fill_read(mem, miss, now, lines[i], pieces * mem->fill_sectors * mem->sector_bytes,
                        latency[miss]);
    }
    guint64 done = transaction(mem, sm, level, now, lines[i], bytes, cost, write,
                               latency[level] + (far ? mem->far_extra : 0), after);
    lv->transactions++;
    lv->bytes += bytes;
    if (write)
      lv->write_bytes += bytes;
    last = MAX(last, done);
  }
  return last;
}

guint64
sm_memory_access_cached(SmMemory *mem, guint sm, guint64 now, guint n, const guint64 *lines,
                        const guint8 *sectors, const guint8 *partial, SmCacheOp op, gboolean write,
                        SmCacheOutcome *out)
{
  guint64 rest_lines[SM_MEMORY_MAX_LINES];
  guint8 rest_sectors[SM_MEMORY_MAX_LINES];
  g_assert(n <= SM_MEMORY_MAX_LINES);
  guint64 last = now;
  guint m = sm_memory_l1_access(mem, sm, now, n, lines, sectors, op, write, out, &last, rest_lines,
                                rest_sectors);
  guint64 l2_last = sm_memory_l2_access(mem, sm, now, m, rest_lines, rest_sectors,
                                        write ? partial : NULL, write, out);
  last = MAX(last, l2_last); /* (MAX evaluates twice) */
  sm_memory_count_issued(mem, sm, n, write);
  return last;
}

void
sm_memory_warm(SmMemory *mem, guint sm, guint n, const guint64 *lines, const guint8 *sectors,
               SmCacheOp op, gboolean l1)
{
  gboolean keep = l1 && sm_memory_l1_keeps(mem, op);
  for (guint i = 0; i < n; i++) {
    if (keep && sm_cache_access(&mem->l1[sm], lines[i], sectors[i], TRUE, FALSE).hit == sectors[i])
      continue;
    if (mem->l2_parts == 0)
      continue;
    guint near = sm % mem->l2_parts, home = l2_home(mem, lines[i]);
    if (sm_cache_access(&mem->l2[near], lines[i], sectors[i], TRUE, FALSE).hit != sectors[i] &&
        home != near)
      sm_cache_access(&mem->l2[home], lines[i], sectors[i], TRUE, FALSE);
  }
}

/* the first line of the buffer written before the launch: above every address a kernel uses */
#define FOREIGN_LINE (G_GUINT64_CONSTANT(1) << 52)

void
sm_memory_written_before(SmMemory *mem, guint64 bytes)
{
  if (mem->l2_parts == 0)
    return;
  guint64 n = bytes / mem->line_bytes, held = 0;
  for (guint p = 0; p < mem->l2_parts; p++)
    held += (guint64)mem->l2[p].sets * mem->l2[p].ways;
  guint8 all = (guint8)((1u << (mem->line_bytes / mem->sector_bytes)) - 1);
  /* least recently used: the last four L2-fulls of lines leave nothing older behind */
  for (guint64 i = n > 4 * held ? n - 4 * held : 0; i < n; i++) {
    guint64 line = FOREIGN_LINE + i;
    guint sm = (guint)(i % mem->sm_count);
    guint near = sm % mem->l2_parts, home = l2_home(mem, line);
    sm_cache_access(&mem->l2[near], line, all, TRUE, home == near);
    if (home != near)
      sm_cache_access(&mem->l2[home], line, all, TRUE, TRUE);
  }
}
