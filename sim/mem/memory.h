/* Bandwidth-limited global memory: where gradual saturation comes from.  Not shared memory
 * (smem.h).
 *
 * A warp's load or store becomes transactions (one per 128-byte line touched, or one per
 * sector for per-lane random addresses).  Each transaction goes to one of a level's channels,
 * chosen by hashing its line address, and is served there in arrival order: it occupies the
 * channel for max(bytes, min_access_bytes) / (bytes_per_cycle / channels) cycles and its data
 * is back latency_cycles after its service started.  Unloaded, a transaction takes exactly
 * latency_cycles; under load, queueing at busy channels adds to it.  With one channel and
 * deterministic service the throughput knee is sharp; with several hashed channels requests
 * collide and throughput bends smoothly towards the peak.
 *
 * Before its level, every transaction of an SM passes that SM's own port (memory.
 * sm_bytes_per_cycle), in order: one SM alone cannot pull more than its port, while the levels'
 * bandwidth is what all SMs share.  Waiting for the port delays the transaction; the port's
 * own transfer time is part of the unloaded latency.
 *
 * Because service is first come first served, a transaction's completion is known when it is
 * issued; the SM gets it back as a timestamp.  Completion events only keep the count of
 * transactions in flight, which the LD/ST unit caps (lg_throttle).
 */
#pragma once

#include "../../config/gpu.h"
#include "../../isa/stream.h"
#include "cache.h"
#include "write-cost.h"
#include "../core/engine.h"
#include "../core/waitq.h"

#define SM_LATENCY_GUIDE_BITS 12
/* Most lines one warp-access touches (LDG.128 with every lane's 16 bytes in lines of their own
 * spans 128 with line crossings: kernels over SASS). */
#define SM_MEMORY_MAX_LINES 128u

/* A block's drawn latency, or a region's mode, while an access of it is in flight. */
typedef struct {
  guint64 tag;   /* the block's or region's index + 1; 0: empty */
  guint64 until; /* the cycle the access that drew it is back */
  guint64 value; /* a block's latency; a region's mode (1: slow) */
} SmLatencySlot;

/* slots of each table, direct mapped by a hash of the tag */
#define SM_LATENCY_SLOTS 4096u

typedef struct {
  guint64 *channel_free; /* ticks when each channel finishes its queue */
  guint channels;
  guint latency;
  double ticks_per_byte; /* per channel */
  guint min_access_bytes;
  gboolean exponential;
  guint64 rng;
  guint n_latencies;    /* 0: always latency; else drawn from latency_bin by latency_cum */
  gint64 latency_shift; /* added to a drawn bin: moves the histogram's mean to latency */
  guint32 *latency_bin;
  guint64 *latency_cum;   /* cumulative weights scaled to 2^32 */
  guint16 *latency_guide; /* per 1/2^SM_LATENCY_GUIDE_BITS of [0, 2^32): the first bin to try */
  guint channel_mask;     /* channels - 1 when a power of two (hash % channels by a mask) */
  /* latencies shared while in flight (NULL: none): lines of a block (line >> block_shift) take
   * its latency, blocks of a region (line >> region_shift) its mode, the histogram's bins below
   * split (its weights up to them: split_cum) or the rest */
  SmLatencySlot *blocks, *regions;
  guint block_shift, region_shift;
  guint split;
  guint64 split_cum;
  /* rows open while a transaction of theirs is in flight (NULL: no rows): a transaction to an
   * open row (line >> row_shift) occupies its channel for at least row_hit_bytes */
  SmLatencySlot *rows;
  guint row_shift, row_hit_bytes;
  SmWriteCosts writes;         /* a store's line's channel time in bytes */
  guint64 transactions, bytes; /* all of them; bytes read + written */
  guint64 write_bytes;         /* bytes of stores */
} SmMemLevel;

/* Sector counts of cached accesses: looked up in each cache and found there. */
typedef struct {
  guint64 l1_requests, l1_sectors, l1_hits;
  guint64 l2_requests, l2_sectors, l2_hits, l2_far_hits;
  guint64 write_backs; /* dirty sectors an L2 eviction wrote to its miss level */
  guint64 fills;       /* sectors read from it for stores that wrote them in part */
} SmCacheCounts;

/* Where one cached warp-access found its sectors. */
typedef struct {
  guint l1_hits, l2_hits, misses; /* sectors */
} SmCacheOutcome;

/* How a load meets the caches (kernels over SASS: from its opcode; streams: cache=). */
typedef enum {
  SM_CACHE_OP_PLAIN,    /* LDG: the L1 keeps it unless caches.l1.loads says constant or none */
  SM_CACHE_OP_CONSTANT, /* LDG.CONSTANT (ld.global.nc): read-only, the L1 keeps it */
  SM_CACHE_OP_GLOBAL,   /* LDG.STRONG.GPU (ld.global.cg): L2 only */
} SmCacheOp;

typedef struct {
  SmMemLevel levels[CFG_MAX_LEVELS];
  guint n_levels;
  guint line_bytes, sector_bytes;
  guint64 outstanding;     /* transactions in flight, all SMs */
  guint64 *sm_outstanding; /* per SM: the LD/ST unit's count against max_outstanding */
  guint64 *sm_stores;      /* per SM: of those, stores' (against max_store_outstanding) */
  guint64 max_stores;      /* 0: stores have no limit of their own */
  guint store_drain;       /* CfgStoreDrain: when a store's access returns for its warp */
  guint store_ack;         /* ... and this much later (store_ack_cycles) */
  /* since the caller last cleared them, of stores' transactions: the latest completion in
   * their level, the latest cycle their channel had taken one, and the latest a store waited
   * for to have a way, its victim's write-back taken (caches.l2.clean_ways): what a fence waits
   * for (memory.fence; with store_drain completion the first is what they return) */
  guint64 store_done, store_taken, store_way;
  guint sm_count;
  guint64 *port_free; /* per SM: ticks when its port to the levels is free; NULL: no limit */
  double port_ticks_per_byte;
  guint64 max_outstanding;
  guint64 peak_outstanding;
  SmWaitQueue lg; /* the warps waiting for room among its transactions in flight, in the order
                     they found none: under a level's pace every warp gets its turn */
  /* caches (NULL: none); accesses that name no level go through them */
  SmCache *l1;               /* per SM */
  SmCache *l2;               /* per partition */
  guint l2_parts;            /* 0: no L2 cache */
  guint l1_latency;          /* a hit's round trip */
  guint l1_constant_latency; /* ... of a read-only load (SM_CACHE_OP_CONSTANT) */
  guint8 l1_loads;           /* CfgL1Loads */
  gboolean l1_write_allocate;
  gboolean l1_write_update;
  guint hit_level, miss_level; /* memory levels serving L2 hits and misses */
  guint64 far_extra;           /* added to a hit in another partition than the SM's */
  guint l2_clean_ways; /* caches.l2.clean_ways: an access waits for its victim's write-back */
  guint fill_sectors;  /* a dirty line's pieces of this many sectors a store wrote in part, the
                          rest not held, are read from the miss level before its write-back
                          (caches.l2.fill_bytes; 0: never) */
  SmCacheCounts counts;
  gboolean count_queued; /* tracing: count transactions waiting for a channel */
  guint64 queued;
  SmEngine *engine;
} SmMemory;

/* Transactions one warp-instruction of 32 lanes x @width bytes becomes, and bytes in each: one
 * per line the lanes touch (carrying the sectors touched in it), or one per lane for random
 * addresses.  A coalesced LDG.128 touches 512 bytes: four 128-byte lines. */
void sm_memory_transactions(const CfgGpu *gpu, IsaPatternKind pattern, guint stride, guint width,
                            guint *n, guint *bytes);

/* @n_sm SMs share the levels: bandwidth and channels are the GPU file's per-SM values x n_sm.
 * With @caches (some access goes through them), each SM's L1 holds @l1_bytes (what shared
 * memory leaves of a unified L1) and the L2 is the GPU file's. */
void sm_memory_init(SmMemory *mem, const CfgGpu *gpu, guint n_sm, SmEngine *engine, gboolean caches,
                    guint64 l1_bytes);
void sm_memory_clear(SmMemory *mem);

/* The L2 as stores of @bytes to another buffer just before the launch leave it (the SMs in
 * turn, line by line, under the stores' rule): full of the last of them, dirty in their home
 * partitions.  Nothing is timed or counted: it happened before the launch. */
void sm_memory_written_before(SmMemory *mem, guint64 bytes);

/* Sends @n transactions of @bytes each to @level at cycle @now.  @line_base is the first line
 * address (consecutive lines follow); when @random_lines, every transaction draws its own line
 * from @rng.  A store (@write) occupies channels and the in-flight count like a load.  Returns
 * the cycle the last one completes (a store's, with memory.store_drain acceptance: the cycle its
 * channel has taken the last one; its completion event still comes after its latency).  Neither
 * this nor the next counts the transactions in flight: sm_memory_count_issued(). */
guint64 sm_memory_access(SmMemory *mem, guint sm, guint level, guint64 now, guint n, guint bytes,
                         guint64 line_base, gboolean random_lines, gboolean write, guint64 *rng);

/* The same for transactions to @n given lines, transaction i carrying @bytes[i] (the sectors
 * a warp's lanes touch in that line: kernels over SASS). */
guint64 sm_memory_access_lines(SmMemory *mem, guint sm, guint level, guint64 now, guint n,
                               const guint64 *lines, const guint *bytes, gboolean write);

/* Sends @n transactions through the caches: transaction i to line @lines[i], its sectors
 * @sectors[i] (one bit per sector).  A load looks in the SM's L1 (when @op lets the L1 keep
 * it), then in its near L2 partition, then in the line's home partition, then goes to the miss
 * level; each level it reaches keeps the line.  A store writes through the L1 into the L2;
 * @partial (NULL: none) has, for a store, the sectors of each line it writes only in part.
 * @out (may be NULL) gets where the sectors were found.
 * Returns the last completion. */
guint64 sm_memory_access_cached(SmMemory *mem, guint sm, guint64 now, guint n, const guint64 *lines,
                                const guint8 *sectors, const guint8 *partial, SmCacheOp op,
                                gboolean write, SmCacheOutcome *out);

/* sm_memory_access_cached() in its two parts.  The SM's own L1 (nothing else is touched):
 * lines it answers whole complete at @now + its latency (*@last grows to it); the others, with
 * the sectors still wanted, go to @rest_lines and @rest_sectors (room for @n), and their count
 * is returned (a store's: all of them, in order).  Then the L2 and the levels behind it for
 * those: returns the last completion (at least @now).  Neither counts the transactions in
 * flight: sm_memory_count_issued(). */
guint sm_memory_l1_access(SmMemory *mem, guint sm, guint64 now, guint n, const guint64 *lines,
                          const guint8 *sectors, SmCacheOp op, gboolean write, SmCacheOutcome *out,
                          guint64 *last, guint64 *rest_lines, guint8 *rest_sectors);
guint64 sm_memory_l2_access(SmMemory *mem, guint sm, guint64 now, guint n, const guint64 *lines,
                            const guint8 *sectors, const guint8 *partial, gboolean write,
                            SmCacheOutcome *out);

/* A completion event's argument: its level, whether a store's, its SM. */
#define SM_MEM_DONE_STORE 0x80u

/* Forgets what the stores' transactions since the last call recorded for a fence (store_done,
 * store_taken, store_way): before each access whose stores a fence may wait for. */
static inline void
sm_memory_clear_store_record(SmMemory *mem)
{
  mem->store_done = mem->store_taken = mem->store_way = 0;
}

/* @n transactions of SM @sm entered the memory system, a store's when @store: in flight until
 * their completion events (the LD/ST unit's counts against max_outstanding and
 * max_store_outstanding, and the peak of the first). */
static inline void
sm_memory_count_issued(SmMemory *mem, guint sm, guint n, gboolean store)
{
  mem->outstanding += n;
  mem->sm_outstanding[sm] += n;
  mem->peak_outstanding = MAX(mem->peak_outstanding, mem->sm_outstanding[sm]);
  if (store)
    mem->sm_stores[sm] += n;
}

/* Whether SM @sm has room for @n more transactions in flight (a store's when @store, @staged of
 * its stores' transactions being still in the SM's LD/ST stage: those do not count against
 * max_store_outstanding until they reach the memory system). */
static inline gboolean
sm_memory_room(const SmMemory *mem, guint sm, guint n, gboolean store, guint64 staged)
{
  return mem->sm_outstanding[sm] + n <= mem->max_outstanding &&
         (!store || !mem->max_stores ||
          mem->sm_stores[sm] - MIN(staged, mem->sm_stores[sm]) + n <= mem->max_stores);
}

/* Whether an SM's L1 keeps loads of kind @op (caches.l1.loads). */
gboolean sm_memory_l1_keeps(const SmMemory *mem, SmCacheOp op);

/* Touches @n lines through the caches as loads do, with no time passing: a warm-up pass before
 * the run.  Without @l1 the L1 is passed by (it would forget these lines before the run). */
void sm_memory_warm(SmMemory *mem, guint sm, guint n, const guint64 *lines, const guint8 *sectors,
                    SmCacheOp op, gboolean l1);

/* A completion event fired; @arg is the event's argument. */
static inline void
sm_memory_complete(SmMemory *mem, guint64 arg)
{
  mem->outstanding--;
  mem->sm_outstanding[arg >> 8]--;
  if (arg & SM_MEM_DONE_STORE)
    mem->sm_stores[arg >> 8]--;
}
