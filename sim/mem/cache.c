/* Set-associative sectored caches: lookup, allocation, lru or random replacement. */
#include "cache.h"

#include "../core/fixed.h"

/* Set @base's tags, last uses (lru), write-backs' ends (clean_ways), sectors and dirty
 * sectors, way by way. */
typedef struct {
  guint64 *tag, *stamp, *ready;
  guint8 *sectors, *dirty;
} Set;

/* the 64-bit words a way takes: its tag, its last use (lru), its write-back's end (clean_ways) */
static inline guint
words_per_way(const SmCache *c)
{
  return 1 + (c->random ? 0 : 1) + (c->clean_ways ? 1 : 0);
}

static inline Set
set_at(const SmCache *c, gsize base)
{
  guint8 *p = c->set_data + base * c->stride;
  Set s;
  s.tag = (guint64 *)(gpointer)p;
  s.stamp = c->random ? NULL : s.tag + c->ways;
  s.ready = c->clean_ways ? s.tag + 2 * c->ways : NULL;
  s.sectors = (guint8 *)(s.tag + words_per_way(c) * c->ways);
  s.dirty = s.sectors + c->ways;
  return s;
}

static void
alloc_sets(SmCache *c)
{
  gsize bytes_per_set = (gsize)c->ways * (words_per_way(c) * sizeof(guint64) + 2);
  c->stride = (bytes_per_set + 63) / 64 * 64;
  c->set_data = g_aligned_alloc0(c->sets, c->stride, 64);
}

void
sm_cache_init(SmCache *c, guint64 bytes, guint line_bytes, guint ways, guint clean_ways,
              int replacement, int index, guint64 seed)
{
  *c = (SmCache){0};
  c->ways = ways;
  c->sets = (guint)(bytes / line_bytes / ways);
  c->hashed = index == CFG_INDEX_HASHED;
  c->random = replacement == CFG_REPLACE_RANDOM;
  g_assert(clean_ways == 0 || (!c->random && clean_ways < ways));
  c->clean_ways = clean_ways;
  c->rng = sm_hash64(seed ^ 0xC2B2AE3D27D4EB4FULL) | 1;
  if (c->sets == 0)
    return;
  alloc_sets(c);
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

/* The @k-th largest (from 0) of @n distinct values @v (reordered). */
static guint64
kth_largest(guint64 *v, guint n, guint k)
{
  guint lo = 0, hi = n - 1;
  while (lo < hi) {
    guint64 pivot = v[lo + (hi - lo) / 2];
    guint i = lo, j = hi;
    while (i <= j) { /* larger values to the left */
      while (v[i] > pivot)
        i++;
      while (v[j] < pivot)
        j--;
      if (i <= j) {
        guint64 t = v[i];
        v[i++] = v[j];
        v[j] = t;
        if (j == 0)
          break;
        j--;
      }
    }
    if (k <= j)
      hi = j;
    else if (k >= i)
      lo = i;
    else
      return v[k];
  }
  return v[k];
}

/* clean_ways: the lookup moves line @moved (a way of set @s, or G_MAXUINT for a line it
 * allocates) to the most recently used place; the line that becomes the first of the clean
 * ways, if dirty, is now clean and reported in @r to be written back. */
static void
keep_clean(const SmCache *c, Set s, guint moved, SmCacheResult *r)
{
  guint8 any = 0; /* no dirty line: none to clean (the common case of loads) */
  for (guint w = 0; w < c->ways; w++)
    any |= s.dirty[w];
  if (!any)
    return;
  guint young = c->ways - c->clean_ways; /* the ways that may stay dirty */
  guint64 stamps[1024];
  guint n = 0, newer = 0;
  for (guint w = 0; w < c->ways; w++) {
    if (!s.tag[w] || w == moved)
      continue;
    stamps[n++] = s.stamp[w];
    newer += moved != G_MAXUINT && s.stamp[w] > s.stamp[moved];
  }
  /* a hit among the young ways moves no line out of them */
  if (n < young || (moved != G_MAXUINT && newer < young))
    return;
  guint64 aging = kth_largest(stamps, n, young - 1); /* young - 1 lines are newer */
  for (guint w = 0; w < c->ways; w++) {
    if (!s.tag[w] || w == moved || s.stamp[w] != aging)
      continue;
    if (s.dirty[w]) {
      r->cleaned_dirty = s.dirty[w];
      r->cleaned_held = s.sectors[w];
      r->cleaned_line = s.tag[w] - 1;
      r->cleaned_ready = &s.ready[w];
      s.dirty[w] = 0;
    }
    return;
  }
}

SmCacheResult
sm_cache_access_part(SmCache *c, guint64 line, guint8 sectors, guint8 partial, gboolean allocate,
                     gboolean write)
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
    r.hit = (s.sectors[w] | (write ? s.dirty[w] : 0)) & sectors; /* a store finds its bytes */
    if (!allocate && write) { /* write through, no allocation: the line goes */
      s.tag[w] = 0;
      s.sectors[w] = s.dirty[w] = 0;
      return r;
    }
    if (c->clean_ways)
      keep_clean(c, s, w, &r);
    s.sectors[w] |= sectors & (guint8)~partial;
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
    r.evicted_held = s.sectors[victim];
    r.evicted_line = s.tag[victim] - 1;
  }
  if (c->clean_ways) {
    r.evicted_ready = s.tag[victim] ? s.ready[victim] : 0;
    s.ready[victim] = 0;
    s.tag[victim] = 0; /* (out of the ranks) */
    keep_clean(c, s, G_MAXUINT, &r);
  }
  s.tag[victim] = line + 1;
  s.sectors[victim] = sectors & (guint8)~partial;
  s.dirty[victim] = write ? sectors : 0;
  if (s.stamp)
    s.stamp[victim] = c->clock;
  return r;
}
