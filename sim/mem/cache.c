/* Set-associative sectored caches: lookup, allocation, lru or random replacement. */
#include "cache.h"

#include "../core/fixed.h"

/* Set @base's tags, last uses (lru), sectors and dirty sectors, way by way. */
typedef struct {
  guint64 *tag, *stamp;
  guint8 *sectors, *dirty;
} Set;

static inline Set
set_at(const SmCache *c, gsize base)
{
  guint8 *p = c->set_data + base * c->stride;
  Set s;
  s.tag = (guint64 *)(gpointer)p;
  s.stamp = c->random ? NULL : s.tag + c->ways;
  s.sectors = (guint8 *)(s.tag + (c->random ? 1 : 2) * c->ways);
  s.dirty = s.sectors + c->ways;
  return s;
}

void
sm_cache_init(SmCache *c, guint64 bytes, guint line_bytes, guint ways, int replacement, int index,
              guint64 seed)
{
  *c = (SmCache){0};
  c->ways = ways;
  c->sets = (guint)(bytes / line_bytes / ways);
  c->hashed = index == CFG_INDEX_HASHED;
  c->random = replacement == CFG_REPLACE_RANDOM;
  c->rng = sm_hash64(seed ^ 0xC2B2AE3D27D4EB4FULL) | 1;
  if (c->sets == 0)
    return;
  gsize bytes_per_set = (gsize)ways * ((c->random ? 1 : 2) * sizeof(guint64) + 2);
  c->stride = (bytes_per_set + 63) / 64 * 64;
  c->set_data = g_aligned_alloc0(c->sets, c->stride, 64);
}

void
sm_cache_clear(SmCache *c)
{
  g_clear_pointer(&c->set_data, g_aligned_free);
}

static inline gsize
set_of(const SmCache *c, guint64 line)
{
  guint64 key = c->hashed ? sm_hash64(line ^ 0x9E3779B97F4A7C15ULL) : line;
  return (gsize)(key % c->sets);
}

void
sm_cache_update(SmCache *c, guint64 line, guint8 sectors)
{
  if (c->sets == 0)
    return;
  Set s = set_at(c, set_of(c, line));
  c->clock++;
  for (guint w = 0; w < c->ways; w++) {
    if (s.tag[w] != line + 1)
      continue;
    s.sectors[w] |= sectors;
    if (s.stamp)
      s.stamp[w] = c->clock;
    return;
  }
}

gboolean
sm_cache_holds(const SmCache *c, guint64 line, guint8 sectors)
{
  if (c->sets == 0)
    return FALSE;
  Set s = set_at(c, set_of(c, line));
  for (guint w = 0; w < c->ways; w++)
    if (s.tag[w] == line + 1)
      return (s.sectors[w] & sectors) == sectors;
  return FALSE;
}

SmCacheResult
sm_cache_access(SmCache *c, guint64 line, guint8 sectors, gboolean allocate, gboolean write)
{
  SmCacheResult r = {0};
  if (c->sets == 0)
    return r;
  Set s = set_at(c, set_of(c, line));
  c->clock++;
  /* the tags alone first: a hit touches nothing else of the set */
  for (guint w = 0; w < c->ways; w++) {
    if (s.tag[w] != line + 1)
      continue;
    r.hit = s.sectors[w] & sectors;
    if (!allocate && write) { /* write through, no allocation: the line goes */
      s.tag[w] = 0;
      s.sectors[w] = s.dirty[w] = 0;
      return r;
    }
    s.sectors[w] |= sectors;
    if (write)
      s.dirty[w] |= sectors;
    if (s.stamp)
      s.stamp[w] = c->clock;
    return r;
  }
  if (!allocate)
    return r;
  /* a miss: an empty way, else the least recently used (or a random) one */
  guint victim = 0;
  gboolean full = TRUE;
  for (guint w = 0; w < c->ways; w++) {
    if (s.tag[w] == 0) {
      victim = w;
      full = FALSE;
      break;
    }
    if (s.stamp && s.stamp[w] < s.stamp[victim])
      victim = w;
  }
  if (full && c->random)
    victim = (guint)((sm_rng_next(&c->rng) >> 32) % c->ways);
  if (s.tag[victim] && s.dirty[victim]) {
    r.evicted_dirty = s.dirty[victim];
    r.evicted_line = s.tag[victim] - 1;
  }
  s.tag[victim] = line + 1;
  s.sectors[victim] = sectors;
  s.dirty[victim] = write ? sectors : 0;
  if (s.stamp)
    s.stamp[victim] = c->clock;
  return r;
}
