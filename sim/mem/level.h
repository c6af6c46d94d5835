/* What memory.c and routes.c share of a level: its channels, the rows and latencies its
 * transactions find, one transaction.  Private to sim/mem. */
#pragma once

#include <math.h>

#include "../core/fixed.h"
#include "memory.h"

/* Sets up the caches of @mem (caches.l1, caches.l2) where the GPU file has them: routes.c. */
void sm_memory_caches_init(SmMemory *mem, const CfgGpu *gpu, guint n_sm, guint64 l1_bytes);
/* a transaction's channel time as @bytes occupy it, at least @least */
static inline guint64
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
static inline guint64
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
 * do and completes no earlier than @after, holding its channel until then (the write-back of
 * the line it replaces: caches.l2.clean_ways): its channel's queue, its completion */
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
  /* waiting for the way it replaces, it holds those behind it (a slice serves in order) */
  lv->channel_free[ch] = MAX(lv->channel_free[ch], after << SM_TICK_SHIFT);
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
    mem->store_way = MAX(mem->store_way, after);
  }
  if (!write || mem->store_drain == CFG_DRAIN_COMPLETION)
    return done;
  /* its channel has taken it, or it has left its SM; then its acknowledgement */
  guint64 at = mem->store_drain == CFG_DRAIN_ACCEPTANCE ? lv->channel_free[ch] : left;
  return ((at + SM_TICKS_PER_CYCLE - 1) >> SM_TICK_SHIFT) + mem->store_ack;
}
