/* Set-associative sectored caches: lookup, allocation, lru or random replacement. */
#include "cache.h"

#include "../core/fixed.h"

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
  gsize n = (gsize)c->sets * ways;
  c->tag = g_new0(guint64, n);
  c->stamp = c->random ? NULL : g_new0(guint64, n);
  c->sectors = g_new0(guint8, n);
  c->dirty = g_new0(guint8, n);
}

void
sm_cache_clear(SmCache *c)
{
  g_clear_pointer(&c->tag, g_free);
  g_clear_pointer(&c->stamp, g_free);
  g_clear_pointer(&c->sectors, g_free);
  g_clear_pointer(&c->dirty, g_free);
}

static inline gsize
set_of(const SmCache *c, guint64 line)
{
  guint64 key = c->hashed ? sm_hash64(line ^ 0x9E3779B97F4A7C15ULL) : line;
  return (gsize)(key % c->sets) * c->ways;
}

void
sm_cache_update(SmCache *c, guint64 line, guint8 sectors)
{
  if (c->sets == 0)
    return;
  gsize base = set_of(c, line);
  c->clock++;
  for (guint w = 0; w < c->ways; w++) {
    gsize i = base + w;
    if (c->tag[i] != line + 1)
      continue;
    c->sectors[i] |= sectors;
    if (c->stamp)
      c->stamp[i] = c->clock;
    return;
  }
}

gboolean
sm_cache_holds(const SmCache *c, guint64 line, guint8 sectors)
{
  if (c->sets == 0)
    return FALSE;
  gsize base = set_of(c, line);
  for (guint w = 0; w < c->ways; w++)
    if (c->tag[base + w] == line + 1)
      return (c->sectors[base + w] & sectors) == sectors;
  return FALSE;
}

SmCacheResult
sm_cache_access(SmCache *c, guint64 line, guint8 sectors, gboolean allocate, gboolean write)
{
  SmCacheResult r = {0};
  if (c->sets == 0)
    return r;
  gsize base = set_of(c, line);
  c->clock++;
  /* the tags alone first: a hit touches nothing else of the set */
  const guint64 *tag = c->tag + base;
  for (guint w = 0; w < c->ways; w++) {
    if (tag[w] != line + 1)
      continue;
    gsize i = base + w;
    r.hit = c->sectors[i] & sectors;
    if (!allocate && write) { /* write through, no allocation: the line goes */
      c->tag[i] = 0;
      c->sectors[i] = c->dirty[i] = 0;
      return r;
    }
    c->sectors[i] |= sectors;
    if (write)
      c->dirty[i] |= sectors;
    if (c->stamp)
      c->stamp[i] = c->clock;
    return r;
  }
  if (!allocate)
    return r;
  /* a miss: an empty way, else the least recently used (or a random) one */
  guint victim = 0;
  gboolean full = TRUE;
  const guint64 *stamp = c->stamp ? c->stamp + base : NULL;
  for (guint w = 0; w < c->ways; w++) {
    if (tag[w] == 0) {
      victim = w;
      full = FALSE;
      break;
    }
    if (stamp && stamp[w] < stamp[victim])
      victim = w;
  }
  if (full && c->random)
    victim = (guint)((sm_rng_next(&c->rng) >> 32) % c->ways);
  gsize i = base + victim;
  if (c->tag[i] && c->dirty[i]) {
    r.evicted_dirty = c->dirty[i];
    r.evicted_line = c->tag[i] - 1;
  }
  c->tag[i] = line + 1;
  c->sectors[i] = sectors;
  c->dirty[i] = write ? sectors : 0;
  if (c->stamp)
    c->stamp[i] = c->clock;
  return r;
}
