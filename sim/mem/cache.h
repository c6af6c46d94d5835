/* A set-associative, sectored cache: which lines (and which of their sectors) it holds, and
 * which line a miss replaces.  Tags only: the data lives in the executor's memory (kernels
 * over SASS) or nowhere (assembled streams).  Not when anything completes (memory.c). */
#pragma once

#include <glib.h>

#include "../../config/gpu.h"

/* The sets lie one after another, each in whole host cache lines of its own (a lookup misses
 * the host's caches once per set rather than once per array): the ways' tags (line + 1, 0 =
 * empty), their last uses (lru only), when their write-back is done (clean_ways only), the
 * sectors held (a bit each) and those written and not yet written back. */
typedef struct {
  guint8 *set_data; /* sets x stride bytes */
  gsize stride;
  guint sets, ways;
  guint clean_ways; /* the least recently used ways of a set kept clean (0: none) */
  gboolean hashed, random;
  guint64 clock; /* uses so far: the lru stamp */
  guint64 rng;
} SmCache;

/* What one lookup found and did. */
typedef struct {
  guint8 hit;            /* the sectors asked for that were there */
  guint8 evicted_dirty;  /* sectors of the replaced line to write back (0: none) */
  guint8 evicted_held;   /* the sectors that line held whole */
  guint64 evicted_line;  /* that line */
  guint64 evicted_ready; /* the cycle its earlier write-back is done (clean_ways; 0: none) */
  /* clean_ways: a dirty line the lookup made that old, now clean, to write back (0: none), and
   * where the cycle its write-back is done goes */
  guint8 cleaned_dirty, cleaned_held;
  guint64 cleaned_line;
  guint64 *cleaned_ready;
} SmCacheResult;

/* A cache of @bytes in lines of @line_bytes, @ways per set; @bytes = 0: holds nothing.  With
 * @clean_ways (lru only, fewer than @ways) it keeps that many least recently used lines of
 * each set clean: a lookup that makes a dirty line that old reports it (cleaned_*) as written
 * back. */
void sm_cache_init(SmCache *c, guint64 bytes, guint line_bytes, guint ways, guint clean_ways,
                   int replacement, int index, guint64 seed);
void sm_cache_clear(SmCache *c);

/* Looks up @sectors of @line; when @allocate, a missing line replaces one of its set and the
 * sectors become held (and dirty when @write), but for @partial: sectors a store writes only in
 * part, dirty and not held unless they were.  Without @allocate a store drops the line. */
SmCacheResult sm_cache_access_part(SmCache *c, guint64 line, guint8 sectors, guint8 partial,
                                   gboolean allocate, gboolean write);

static inline SmCacheResult
sm_cache_access(SmCache *c, guint64 line, guint8 sectors, gboolean allocate, gboolean write)
{
  return sm_cache_access_part(c, line, sectors, 0, allocate, write);
}

/* A store of @sectors of @line that keeps a line it finds (with those sectors, as a use) and
 * allocates none. */
void sm_cache_update(SmCache *c, guint64 line, guint8 sectors);

/* Whether all of @sectors of @line are held (no change to the cache). */
gboolean sm_cache_holds(const SmCache *c, guint64 line, guint8 sectors);
