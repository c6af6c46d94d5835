/* Accesses that name no level, routed through the caches: the SM's L1, the near and the home
 * L2 partition, the miss level; dirty lines written back, the sectors a store writes in part
 * read first (caches.l2.fill_bytes), the L2 as stores before the launch left it. */
#include "level.h"

void
sm_memory_caches_init(SmMemory *mem, const CfgGpu *gpu, guint n_sm, guint64 l1_bytes)
{
  if (!cfg_gpu_has_caches(gpu))
    return;
  const CfgCache *l1 = &gpu->caches.l1, *l2 = &gpu->caches.l2;
  if (l1_bytes) {
    mem->l1 = g_new0(SmCache, n_sm);
    for (guint s = 0; s < n_sm; s++)
      sm_cache_init(&mem->l1[s], l1_bytes, gpu->memory.line_bytes, l1->ways, 0, l1->replacement,
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
                    l2->clean_ways, l2->replacement, l2->index, gpu->memory.seed ^ (0xA5A5ULL + p));
    mem->l2_clean_ways = l2->clean_ways;
    mem->hit_level = (guint)l2->hit_level_index;
    guint hit_latency = gpu->memory.levels[mem->hit_level].latency_cycles;
    mem->far_extra =
        l2->far_latency_cycles > hit_latency ? l2->far_latency_cycles - hit_latency : 0;
    mem->fill_sectors = l2->fill_bytes / gpu->memory.sector_bytes;
  }
  mem->miss_level = (guint)l2->miss_level_index;
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

/* The pieces of a line (caches.l2.fill_bytes) that hold @dirty sectors and some not held whole
 * (@held): the bytes of them its write-back must read first. */
static guint
fill_bytes_of(const SmMemory *mem, guint8 dirty, guint8 held)
{
  guint k = mem->fill_sectors, n = 0;
  if (k == 0)
    return 0;
  guint8 piece = (guint8)((1u << k) - 1);
  for (guint s = 0; s < 8; s += k, piece = (guint8)(piece << k))
    if ((dirty & piece) && (piece & (guint8)~held))
      n++;
  return n * k * mem->sector_bytes;
}

/* A dirty line an L2 eviction writes back from @now (cycles) on, its @dirty sectors written
 * back, its @held ones held whole: the pieces it wrote in part read first (caches.l2.fill_bytes),
 * then the line written, each taking its miss level's channel time; with rows, the write as much as
 * a transaction to an open row (the level gathers the lines it writes back by row).  Returns the
 * cycle the channel is done with it. */
static guint64
write_back(SmMemory *mem, guint64 now, guint64 line, guint8 dirty, guint8 held)
{
  SmMemLevel *lv = &mem->levels[mem->miss_level];
  guint bytes = (guint)sm_popcount32(dirty) * mem->sector_bytes;
  guint ch = channel_of(lv, line);
  guint64 start = MAX(now << SM_TICK_SHIFT, lv->channel_free[ch]);
  guint fill = fill_bytes_of(mem, dirty, held);
  if (fill) { /* a read first: its data back a latency after it starts keeps its row open */
    guint64 back = ((start + SM_TICKS_PER_CYCLE - 1) >> SM_TICK_SHIFT) + lv->latency;
    start += service_ticks_least(lv, fill, row_least(lv, now, line, back));
    lv->transactions++;
    lv->bytes += fill;
    mem->counts.fills += fill / mem->sector_bytes;
  }
  lv->channel_free[ch] =
      start + service_ticks_least(lv, write_cost(lv, dirty, 0),
                                  lv->rows ? lv->row_hit_bytes : lv->min_access_bytes);
  lv->transactions++;
  lv->bytes += bytes;
  lv->write_bytes += bytes;
  mem->counts.write_backs += (guint)sm_popcount32(dirty);
  return (lv->channel_free[ch] + SM_TICKS_PER_CYCLE - 1) >> SM_TICK_SHIFT;
}

/* What an L2 lookup @r at cycle @now sends to the miss level: the dirty line it replaced,
 * written back now, and one it made old enough to keep clean (caches.l2.clean_ways), written
 * back early.  With clean_ways, *@taken becomes at least the cycle the level's channel is done
 * with the replaced line's write-back, now or earlier: the access waits for its way. */
static void
replaced(SmMemory *mem, guint64 now, SmCacheResult r, guint64 *taken)
{
  if (r.cleaned_dirty)
    *r.cleaned_ready = write_back(mem, now, r.cleaned_line, r.cleaned_dirty, r.cleaned_held);
  guint64 done = r.evicted_ready;
  if (r.evicted_dirty) {
    guint64 wrote = write_back(mem, now, r.evicted_line, r.evicted_dirty, r.evicted_held);
    done = MAX(done, wrote);
  }
  if (mem->l2_clean_ways)
    *taken = MAX(*taken, done);
}

/* Looks up @sectors of @line in the L2 from SM @sm at cycle @now, a store's @partial of them
 * written in part: returns the level that serves it and sets *@far when the line's home
 * partition (not the SM's) had it.  A dirty line it replaces is written back, and *@taken is
 * what the access waits for of that (replaced()). */
static guint
l2_route(SmMemory *mem, guint sm, guint64 now, guint64 line, guint8 sectors, guint8 partial,
         gboolean write, guint *hit_sectors, gboolean *far, guint64 *taken)
{
  *far = FALSE;
  *hit_sectors = 0;
  if (mem->l2_parts == 0)
    return mem->miss_level;
  guint n = (guint)sm_popcount32(sectors);
  mem->counts.l2_requests++;
  mem->counts.l2_sectors += n;
  guint near = sm % mem->l2_parts, home = l2_home(mem, line);
  /* a written line is dirty in its home partition only (the SM's own keeps a clean copy, of
   * what the SM wrote in part too), so it is written back once */
  SmCacheResult r = sm_cache_access_part(&mem->l2[near], line, sectors, home == near ? partial : 0,
                                         TRUE, write && home == near);
  replaced(mem, now, r, taken);
  guint8 hit = r.hit;
  if (home != near && (hit != sectors || write)) {
    r = sm_cache_access_part(&mem->l2[home], line, sectors, partial, TRUE, write);
    replaced(mem, now, r, taken);
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

guint64
sm_memory_l2_access(SmMemory *mem, guint sm, guint64 now, guint n, const guint64 *lines,
                    const guint8 *sectors, const guint8 *partial, gboolean write,
                    SmCacheOutcome *out)
{
  guint64 last = now, latency[CFG_MAX_LEVELS] = {0};
  for (guint i = 0; i < n; i++) {
    guint8 want = sectors[i], part = write && partial ? partial[i] : 0;
    guint l2_hits;
    gboolean far;
    guint64 after = 0;
    /* (sectors written in part count as held where the L2 reads none first) */
    guint level = l2_route(mem, sm, now, lines[i], want, mem->fill_sectors ? part : 0, write,
                           &l2_hits, &far, &after);
    if (out) {
      out->l2_hits += l2_hits;
      out->misses += (guint)sm_popcount32(want) - MIN(l2_hits, (guint)sm_popcount32(want));
    }
    SmMemLevel *lv = &mem->levels[level];
    if (latency[level] == 0) /* one draw per level for the whole warp-access */
      latency[level] = access_latency(lv, now, lines[i]);
    guint bytes = (guint)sm_popcount32(want) * mem->sector_bytes;
    guint cost = write ? write_cost(lv, want, part) : bytes;
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
