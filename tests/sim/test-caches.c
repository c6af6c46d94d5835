/* Caches that emerge from addresses: hand-checked hits, misses and cycles of chases over windows
 * on a toy GPU with fixed latencies (L1 hit 20, L2 hit 100, DRAM 200, no bandwidth limits), the
 * caches' own replacement, write-backs, and the H100 mix with windows against its declared
 * levels. */
#include <check.h>
#include <math.h>

#include "mem/cache.h"
#include "helpers.h"
#include "mem/memory.h"

/* an L1 of 8 lines (4 sets x 2 ways), an L2 of 32 lines (8 sets x 4 ways), sets by the low
 * bits of the line: a window's lines fill the sets one after the other */
static const char toy_gpu[] =
    "name: toy\nschedulers: 1\nunits:\n  alu: {latency_cycles: 4}\n"
    "  ldst: {lanes_per_scheduler: 32}\n"
    "memory:\n  dram: {latency_cycles: 200, bytes_per_cycle: inf}\n"
    "  l2: {latency_cycles: 100, bytes_per_cycle: inf}\n"
    "caches:\n  l1: {bytes: 1024, ways: 2, index: modulo, latency_cycles: 20}\n"
    "  l2: {bytes: 4096, ways: 4, index: modulo}\n";

/* A kernel file of one warp repeating @insn 8 times. */
static char *
toy_kernel(const char *insn)
{
  g_autofree char *text =
      g_strdup_printf("name: k\nwarps_per_sm: 1\nstream: |\n  repeat 8 {\n    %s\n  }\n", insn);
  return test_write_temp("k.yaml", text);
}

/* One warp: @n dependent loads chasing a window of @lines 128-byte lines. */
static TestRun *
chase(guint lines, guint n, const char *cache, gboolean warm, const char *const *sets)
{
  g_autofree char *gpu = test_write_temp("toy.yaml", toy_gpu);
  g_autofree char *text =
      g_strdup_printf("name: k\nwarps_per_sm: 1\nwarm_up: %d\nstream: |\n  repeat %u {\n    LDG "
                      "R1, [R1] window=%u cache=%s\n  }\n",
                      warm ? 1 : 0, n, lines * 128, cache);
  g_autofree char *kernel = test_write_temp("k.yaml", text);
  TestRun *run = test_run_new(gpu, kernel, sets);
  sm_run(run->sm);
  return run;
}

START_TEST(test_a_window_that_fits_the_l1_misses_once_then_hits)
{
  /* 4 lines, 8 dependent loads: the first pass goes to DRAM (200 each), the second finds all
   * four in the L1 (20 each): 4 x 200 + 4 x 20 */
  TestRun *run = chase(4, 8, "ca", FALSE, NULL);
  const SmStats *s = sm_stats(run->sm);
  ck_assert_uint_eq(s->cycles, 880);
  ck_assert_uint_eq(s->l1_requests, 8);
  ck_assert_uint_eq(s->l1_sectors, 32);
  ck_assert_uint_eq(s->l1_hits, 16);
  ck_assert_uint_eq(s->l2_requests, 4); /* the misses only */
  ck_assert_uint_eq(s->l2_hits, 0);
  ck_assert_uint_eq(s->transactions[0], 4); /* dram */
  ck_assert_uint_eq(s->transactions[1], 0); /* l2 */
  SmSummary m;
  sm_summary_compute(s, &m);
  ck_assert_double_eq_tol(m.l1_hit_rate, 50, 1e-12);
  ck_assert_double_eq_tol(m.l1_sectors_per_request, 4, 1e-12);
  test_run_free(run);
}
END_TEST

/* caches.l1.constant_latency_cycles: read-only loads (cache=nc, LDG.CONSTANT) hit in the L1's
 * read-only path at their own latency: 4 x 200 + 4 x 27 with 27, the plain ones' 20 unchanged */
START_TEST(test_read_only_loads_hit_at_their_own_latency)
{
  const char *sets[] = {"caches.l1.constant_latency_cycles=27", NULL};
  static const struct {
    const char *cache;
    guint64 cycles;
  } cases[] = {{"nc", 4 * 200 + 4 * 27}, {"ca", 4 * 200 + 4 * 20}};
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    TestRun *run = chase(4, 8, cases[i].cache, FALSE, sets);
    ck_assert_msg(sm_stats(run->sm)->cycles == cases[i].cycles, "cache=%s: %" G_GUINT64_FORMAT,
                  cases[i].cache, sm_stats(run->sm)->cycles);
    ck_assert_uint_eq(sm_stats(run->sm)->l1_hits, 16);
    test_run_free(run);
  }
}
END_TEST

START_TEST(test_cg_loads_skip_the_l1)
{
  /* the same chase as ld.global.cg: the second pass hits the L2 (100 each) */
  TestRun *run = chase(4, 8, "cg", FALSE, NULL);
  const SmStats *s = sm_stats(run->sm);
  ck_assert_uint_eq(s->cycles, 4 * 200 + 4 * 100);
  ck_assert_uint_eq(s->l1_requests, 0);
  ck_assert_uint_eq(s->l2_requests, 8);
  ck_assert_uint_eq(s->l2_hits, 16);
  ck_assert_uint_eq(s->transactions[1], 4);
  test_run_free(run);
}
END_TEST

START_TEST(test_lru_thrashes_on_a_cycle_one_line_too_long)
{
  /* 8 lines fill the L1's 4 sets x 2 ways: the second pass hits; 12 lines put 3 in every set
   * of 2 ways, and a cycle evicts each line just before it comes back: every L1 lookup misses,
   * and the L2 (32 lines) catches the second pass */
  TestRun *fits = chase(8, 16, "ca", FALSE, NULL), *over = chase(12, 24, "ca", FALSE, NULL);
  ck_assert_uint_eq(sm_stats(fits->sm)->cycles, 8 * 200 + 8 * 20);
  ck_assert_uint_eq(sm_stats(over->sm)->cycles, 12 * 200 + 12 * 100);
  ck_assert_uint_eq(sm_stats(over->sm)->l1_hits, 0);
  /* random replacement keeps some of them */
  const char *random[] = {"caches.l1.replacement=random", NULL};
  TestRun *rnd = chase(12, 24, "ca", FALSE, random);
  ck_assert_uint_gt(sm_stats(rnd->sm)->l1_hits, 0);
  ck_assert_uint_lt(sm_stats(rnd->sm)->cycles, 12 * 200 + 12 * 100);
  test_run_free(fits);
  test_run_free(over);
  test_run_free(rnd);
}
END_TEST

START_TEST(test_the_warm_up_pass_leaves_the_caches_as_a_whole_pass_does)
{
  TestRun *l1 = chase(8, 8, "ca", TRUE, NULL), *l2 = chase(12, 12, "ca", TRUE, NULL);
  ck_assert_uint_eq(sm_stats(l1->sm)->cycles, 8 * 20);
  ck_assert_uint_eq(sm_stats(l2->sm)->cycles, 12 * 100);
  test_run_free(l1);
  test_run_free(l2);
}
END_TEST

START_TEST(test_declared_levels_and_gpus_without_caches_are_unchanged)
{
  /* a load that names its level ignores the caches; without caches a window goes to dram */
  g_autofree char *gpu = test_write_temp("toy.yaml", toy_gpu);
  g_autofree char *kernel = toy_kernel("LDG R1, [R1] window=512 level=l2");
  TestRun *run = test_run_new(gpu, kernel, NULL);
  sm_run(run->sm);
  ck_assert_uint_eq(sm_stats(run->sm)->cycles, 8 * 100);
  ck_assert_uint_eq(sm_stats(run->sm)->l1_requests + sm_stats(run->sm)->l2_requests, 0);
  test_run_free(run);
  const char *none[] = {"caches.l1.bytes=0", "caches.l2.bytes=0", NULL};
  run = chase(4, 8, "ca", FALSE, none);
  ck_assert_uint_eq(sm_stats(run->sm)->cycles, 8 * 200);
  ck_assert(!sm_stats(run->sm)->caches);
  test_run_free(run);
}
END_TEST

START_TEST(test_cache_lru_sectors_and_write_backs)
{
  SmCache c;
  /* 2 sets x 2 ways by the low bit: lines 0, 2, 4 share set 0 */
  sm_cache_init(&c, 4 * 128, 128, 2, 0, CFG_REPLACE_LRU, CFG_INDEX_MODULO, 1);
  ck_assert_uint_eq(sm_cache_access(&c, 0, 0x3, TRUE, FALSE).hit, 0);
  ck_assert_uint_eq(sm_cache_access(&c, 0, 0xF, TRUE, FALSE).hit, 0x3); /* two sectors were in */
  ck_assert(sm_cache_holds(&c, 0, 0xF));
  ck_assert_uint_eq(sm_cache_access(&c, 2, 0xF, TRUE, TRUE).hit, 0);    /* a store: dirty */
  ck_assert_uint_eq(sm_cache_access(&c, 0, 0x1, TRUE, FALSE).hit, 0x1); /* 0 is newest now */
  SmCacheResult r = sm_cache_access(&c, 4, 0xF, TRUE, FALSE);           /* evicts 2, dirty */
  ck_assert_uint_eq(r.hit, 0);
  ck_assert_uint_eq(r.evicted_dirty, 0xF);
  ck_assert_uint_eq(r.evicted_line, 2);
  ck_assert(sm_cache_holds(&c, 0, 0xF));
  ck_assert(!sm_cache_holds(&c, 2, 0x1));
  ck_assert(!sm_cache_holds(&c, 1, 0x1)); /* set 1 never used */
  /* a store that updates keeps a line it finds, with its sectors, and allocates none */
  sm_cache_access(&c, 4, 0x1, TRUE, FALSE);
  sm_cache_update(&c, 4, 0x2);
  ck_assert(sm_cache_holds(&c, 4, 0x3));
  sm_cache_update(&c, 6, 0xF);
  ck_assert(!sm_cache_holds(&c, 6, 0x1));
  ck_assert(sm_cache_holds(&c, 0, 0xF) && sm_cache_holds(&c, 4, 0x3)); /* nothing evicted */
  /* a store that does not allocate drops the line */
  sm_cache_access(&c, 4, 0x1, FALSE, TRUE);
  ck_assert(!sm_cache_holds(&c, 4, 0x1));
  sm_cache_clear(&c);
}
END_TEST

/* A set of 4 ways whose 2 least recently used are kept clean (clean_ways): a dirty line that
 * ages into them is reported, clean from then on, and the end of its write-back comes back with
 * it when it is replaced; sectors a store writes in part are dirty, not held. */
START_TEST(test_the_oldest_ways_are_kept_clean)
{
  SmCache c;
  sm_cache_init(&c, 4 * 128, 128, 4, 2, CFG_REPLACE_LRU, CFG_INDEX_MODULO, 1);
  SmCacheResult r = sm_cache_access_part(&c, 0, 0x3, 0x2, TRUE, TRUE); /* 0: one sector in part */
  ck_assert(!sm_cache_holds(&c, 0, 0x2) && sm_cache_holds(&c, 0, 0x1));
  r = sm_cache_access(&c, 1, 0xF, TRUE, TRUE);
  ck_assert_uint_eq(r.cleaned_dirty, 0); /* two lines: both young */
  r = sm_cache_access(&c, 2, 0xF, TRUE, FALSE);
  ck_assert_uint_eq(r.cleaned_line, 0); /* 0 ages into the clean ways */
  ck_assert_uint_eq(r.cleaned_dirty, 0x3);
  ck_assert_uint_eq(r.cleaned_held, 0x1);
  *r.cleaned_ready = 777;
  r = sm_cache_access(&c, 3, 0xF, TRUE, FALSE);
  ck_assert_uint_eq(r.cleaned_line, 1);
  ck_assert_uint_eq(r.cleaned_dirty, 0xF);
  *r.cleaned_ready = 888;
  /* a store to 0 (oldest) makes it young and dirty; 2, clean, ages: nothing to write */
  r = sm_cache_access(&c, 0, 0x1, TRUE, TRUE);
  ck_assert_uint_eq(r.hit, 0x1);
  ck_assert_uint_eq(r.cleaned_dirty, 0);
  /* order 0, 3, 2, 1: 4 replaces 1, clean, whose write-back ends at 888 */
  r = sm_cache_access(&c, 4, 0xF, TRUE, FALSE);
  ck_assert_uint_eq(r.evicted_dirty, 0);
  ck_assert_uint_eq(r.evicted_ready, 888);
  ck_assert_uint_eq(r.cleaned_dirty, 0); /* 3 ages, clean */
  /* 4, 0, 3, 2: 5 replaces 2 (never dirty), and 0 ages into the clean ways */
  r = sm_cache_access(&c, 5, 0xF, TRUE, FALSE);
  ck_assert_uint_eq(r.evicted_ready, 0);
  ck_assert_uint_eq(r.cleaned_line, 0);
  ck_assert_uint_eq(r.cleaned_dirty, 0x1);
  sm_cache_clear(&c);
}
END_TEST

START_TEST(test_an_l2_eviction_writes_dirty_sectors_back)
{
  /* an L2 of one set of 4 lines: 8 stores to 8 lines leave 4 dirty lines evicted, 16 sectors
   * written to DRAM; the stores themselves go to the L2 */
  const char *small[] = {"caches.l2.bytes=512", NULL};
  g_autofree char *gpu = test_write_temp("toy.yaml", toy_gpu);
  g_autofree char *kernel = toy_kernel("STG [R1], R2 window=1024");
  TestRun *run = test_run_new(gpu, kernel, small);
  sm_run(run->sm);
  const SmStats *s = sm_stats(run->sm);
  ck_assert_uint_eq(s->write_backs, 16);
  ck_assert_uint_eq(s->write_bytes[0], 16 * 32); /* dram: the write-backs */
  ck_assert_uint_eq(s->write_bytes[1], 8 * 128); /* l2: the stores */
  test_run_free(run);
}
END_TEST

/* A store's line holds its level's channel for write_request_bytes + write_sector_bytes a whole
 * sector: one warp's 8 coalesced stores (4 whole sectors each) to an L2 of one channel of
 * 8 bytes a cycle take 16 cycles each as loads' bytes (128), 32 with 160 + 4 x 24 = 256; the
 * warp ends when its last store completes, 7 x 16 = 112 cycles later. */
START_TEST(test_a_store_holds_its_channel_for_its_request_and_sectors)
{
  static const char gpu_text[] = "name: toy\nschedulers: 1\nunits:\n  alu: {latency_cycles: 4}\n"
                                 "  ldst: {lanes_per_scheduler: 32}\n"
                                 "memory:\n  dram: {latency_cycles: 200, bytes_per_cycle: inf}\n"
                                 "  l2: {latency_cycles: 100, bytes_per_cycle: 8, channels: 1}\n"
                                 "caches:\n  l2: {bytes: 4096, ways: 4, index: modulo}\n";
  g_autofree char *gpu = test_write_temp("toy.yaml", gpu_text);
  g_autofree char *kernel = toy_kernel("STG [R1], R2 window=1024");
  const char *costs[] = {"memory.l2.write_request_bytes=160", "memory.l2.write_sector_bytes=24",
                         NULL};
  guint64 cycles[2];
  for (guint i = 0; i < 2; i++) {
    TestRun *run = test_run_new(gpu, kernel, i ? costs : NULL);
    sm_run(run->sm);
    cycles[i] = sm_stats(run->sm)->cycles;
    ck_assert_uint_eq(sm_stats(run->sm)->write_bytes[1], 8 * 128); /* the bytes stay the data's */
    test_run_free(run);
  }
  ck_assert_uint_eq(cycles[1] - cycles[0], 7 * 16);
}
END_TEST

/* Stores that write a sector in part (caches.l2.fill_bytes 32): the L2 keeps the line without
 * the rest of the sector (a load of it goes on to DRAM) and reads the rest before it writes
 * the line back, not for a sector written whole, nor one it held; with pieces of 64 bytes, a
 * sector written whole beside one not held reads the piece.  No channel limits: the store is
 * done when the L2 has it, 100 cycles on, whatever it replaces. */
START_TEST(test_a_sector_written_in_part_is_read_before_its_write_back)
{
  g_autofree char *path = test_write_temp("toy.yaml", toy_gpu);
  static const struct {
    guint fill_bytes;
    guint8 sectors, partial;
    guint8 loaded;         /* sectors loaded before the store */
    gboolean loaded_after; /* the line's sectors loaded after it */
    guint64 fills;         /* sectors read before the write-back */
  } cases[] = {
      {32, 0x1, 0x1, 0x0, FALSE, 1}, /* in part, not held: read */
      {32, 0x1, 0x1, 0x1, FALSE, 0}, /* held */
      {32, 0x1, 0x1, 0x0, TRUE, 0},  /* loaded after, from DRAM: held then */
      {32, 0x1, 0x0, 0x0, FALSE, 0}, /* whole */
      {32, 0x3, 0x2, 0x0, FALSE, 1}, /* one whole, one in part */
      {64, 0x1, 0x0, 0x0, FALSE, 2}, /* whole, its piece's other sector not held: the piece */
      {64, 0x1, 0x0, 0x2, FALSE, 0}, /* ... the other sector held, clean: none */
      {64, 0x3, 0x0, 0x0, FALSE, 0}, /* the piece whole */
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autoptr(CfgGpu) gpu = cfg_gpu_load_file(path, NULL);
    ck_assert_ptr_nonnull(gpu);
    gpu->caches.l2.fill_bytes = cases[i].fill_bytes;
    SmEngine engine;
    sm_engine_init(&engine, 64);
    SmMemory mem;
    sm_memory_init(&mem, gpu, 1, &engine, TRUE, 0);
    guint64 line = 0;
    if (cases[i].loaded)
      sm_memory_access_cached(&mem, 0, 0, 1, &line, &cases[i].loaded, NULL, SM_CACHE_OP_GLOBAL,
                              FALSE, NULL);
    ck_assert_uint_eq(sm_memory_access_cached(&mem, 0, 1000, 1, &line, &cases[i].sectors,
                                              &cases[i].partial, SM_CACHE_OP_PLAIN, TRUE, NULL),
                      1100);
    ck_assert_uint_eq(mem.counts.fills, 0); /* nothing read yet */
    guint8 all = 0xF;
    if (cases[i].loaded_after) /* the sector written in part is not there: DRAM's 200 */
      ck_assert_uint_eq(sm_memory_access_cached(&mem, 0, 2000, 1, &line, &all, NULL,
                                                SM_CACHE_OP_GLOBAL, FALSE, NULL),
                        2200);
    for (guint64 other = 8; other <= 32; other += 8) /* 4 more lines of set 0: 0 goes */
      sm_memory_access_cached(&mem, 0, 3000, 1, &other, &all, NULL, SM_CACHE_OP_GLOBAL, FALSE,
                              NULL);
    ck_assert_msg(mem.counts.fills == cases[i].fills, "case %u: %lu sectors read", i,
                  (unsigned long)mem.counts.fills);
    ck_assert_uint_eq(mem.counts.write_backs, (guint)sm_popcount32(cases[i].sectors));
    sm_memory_clear(&mem);
    sm_engine_clear(&engine);
  }
}
END_TEST

/* caches.l2.clean_ways 2 of the toy L2's 4, DRAM taking a byte a cycle: a dirty line is written
 * back when it ages into the 2 oldest ways, and an access that replaces it waits until DRAM's
 * channel has taken that (128 cycles a line, in turn), holding the L2's channel meanwhile. */
START_TEST(test_an_access_waits_for_the_write_back_of_the_line_it_replaces)
{
  const char *sets[] = {"memory.dram.bytes_per_cycle=1", "caches.l2.clean_ways=2", NULL};
  g_autofree char *path = test_write_temp("toy.yaml", toy_gpu);
  g_autoptr(CfgGpu) gpu = cfg_gpu_load_file_with_sets(path, sets, NULL);
  ck_assert_ptr_nonnull(gpu);
  SmEngine engine;
  sm_engine_init(&engine, 64);
  SmMemory mem;
  sm_memory_init(&mem, gpu, 1, &engine, TRUE, 0);
  guint8 all = 0xF, none = 0;
  /* lines of set 0 stored whole at 1000: 16 and 24 age 0 and 8 (written back by 1128, 1256);
   * 32 replaces 0 (1128; 16 ages, 1384), 40 replaces 8 (1256; 24 ages, 1512) */
  static const guint64 done[] = {1100, 1100, 1100, 1100, 1128, 1256};
  for (guint k = 0; k < G_N_ELEMENTS(done); k++) {
    guint64 line = 8 * k;
    mem.store_way = 0;
    ck_assert_uint_eq(sm_memory_access_cached(&mem, 0, 1000, 1, &line, &all, &none,
                                              SM_CACHE_OP_PLAIN, TRUE, NULL),
                      done[k]);
    /* what a fence waits for of the store (memory.fence): its way, where it replaced a line */
    ck_assert_uint_eq(mem.store_way, k < 4 ? 0 : done[k]);
  }
  ck_assert_uint_eq(mem.counts.write_backs, 4 * 4);
  /* a load of 48 replaces 16 (1384) and ages 32 (written back 1512-1640): its read starts
   * behind that, 1640 + 200 */
  guint64 line = 48;
  ck_assert_uint_eq(
      sm_memory_access_cached(&mem, 0, 1000, 1, &line, &all, NULL, SM_CACHE_OP_GLOBAL, FALSE, NULL),
      1840);
  sm_memory_clear(&mem);
  sm_engine_clear(&engine);
}
END_TEST

START_TEST(test_a_written_line_is_written_back_once)
{
  /* two L2 partitions of 4 lines each; one warp stores to each of 64 lines once, 256 sectors.
   * A line homed in the other partition is dirty there only (the SM's own partition keeps a
   * clean copy), so no sector goes to DRAM twice: every stored sector is written back once,
   * but those of the at most 8 lines still held dirty at the end (with a dirty copy in both
   * partitions, 364 were) */
  const char *two[] = {"caches.l2.bytes=1024", "caches.l2.partitions=2", NULL};
  g_autofree char *gpu = test_write_temp("toy.yaml", toy_gpu);
  g_autofree char *kernel = test_write_temp(
      "k.yaml", "name: k\nwarps_per_sm: 1\nstream: |\n  repeat 64 {\n    STG [R1], R2 "
                "window=8192\n  }\n");
  TestRun *run = test_run_new(gpu, kernel, two);
  sm_run(run->sm);
  const SmStats *s = sm_stats(run->sm);
  ck_assert_uint_eq(s->write_bytes[1], 64 * 128); /* l2: the stores */
  ck_assert_uint_le(s->write_backs, 256);
  ck_assert_uint_ge(s->write_backs, 256 - 8 * 4);
  ck_assert_uint_eq(s->write_bytes[0], s->write_backs * 32);
  test_run_free(run);
}
END_TEST

/* One warp loading 8 lines of a window once each, after @written bytes of another buffer
 * were stored (written_before_launch): the sectors the L2 wrote back. */
static guint64
write_backs_after(guint written)
{
  g_autofree char *gpu = test_write_temp("toy.yaml", toy_gpu);
  g_autofree char *text = g_strdup_printf("name: k\nwarps_per_sm: 1\nwritten_before_launch: "
                                          "%u\nstream: |\n  repeat 8 {\n    LDG R1, [R1] "
                                          "window=1024\n  }\n",
                                          written);
  g_autofree char *kernel = test_write_temp("k.yaml", text);
  TestRun *run = test_run_new(gpu, kernel, NULL);
  sm_run(run->sm);
  const SmStats *s = sm_stats(run->sm);
  ck_assert_uint_eq(s->cycles, 8 * 200); /* every load from DRAM, no channel limits */
  guint64 n = s->write_backs;
  ck_assert_uint_eq(s->write_bytes[0], n * 32);
  test_run_free(run);
  return n;
}

START_TEST(test_stores_before_the_launch_leave_the_l2_dirty)
{
  /* the toy L2 holds 32 lines, 4 in each of 8 sets: 4 KB stored before the launch fill it
   * with dirty lines, and each of the 8 loads (one a set) evicts one: 8 lines of 4 sectors
   * written back. 2 KB leave 2 ways of each set free, 8 KB the same 4 KB as 4 */
  ck_assert_uint_eq(write_backs_after(0), 0);
  ck_assert_uint_eq(write_backs_after(2048), 0);
  ck_assert_uint_eq(write_backs_after(4096), 32);
  ck_assert_uint_eq(write_backs_after(8192), 32);
  ck_assert_uint_eq(write_backs_after(1u << 30), 32);
}
END_TEST

START_TEST(test_bad_cache_keys_and_window_attributes_say_where)
{
  static const struct {
    const char *gpu_tail, *stream, *expect;
  } cases[] = {
      {"  l3: {bytes: 1024}\n", NULL, "unknown cache 'l3' in caches (l1, l2)"},
      {"", "LDG R1, [R1] window=0", "window must be a whole number of bytes"},
      {"", "LDG R1, [R1] window=512 cache=xx", "cache must be ca, nc or cg"},
      {"", "LDS R1, [R1] window=512", "unknown attribute 'window'"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *gtext = g_strconcat(toy_gpu, cases[i].gpu_tail, NULL);
    g_autofree char *gpu = test_write_temp("toy.yaml", gtext);
    g_autofree char *ktext = g_strdup_printf("name: k\nwarps_per_sm: 1\nstream: |\n  %s\n",
                                             cases[i].stream ? cases[i].stream : "FADD R1, R1, R1");
    g_autofree char *kernel = test_write_temp("k.yaml", ktext);
    const char *args[] = {"run", gpu, kernel, NULL};
    g_autofree char *out = NULL, *err = NULL;
    ck_assert_int_eq(test_smsim(args, &out, &err), 2);
    ck_assert_msg(strstr(err, cases[i].expect) != NULL, "case %u: %s", i, err);
    ck_assert_msg(strchr(err, '\n') == err + strlen(err) - 1, "one line: %s", err);
  }
  /* sizes that are not whole sets, a hit level the GPU lacks */
  const char *bad[][2] = {
      {"--set=caches.l1.bytes=1000", "must be a multiple of line_bytes x ways"},
      {"--set=caches.l2.hit_level=l3", "memory level 'l3' is not in the GPU file"},
      {"--set=caches.l1.replacement=fifo", "'replacement' must be one of lru, random"},
      {"--set=caches.l2.bytes=2199023255552", "must be at most"},
      {"--set=caches.l1.bytes=8388608", "caches.l1.bytes (8388608) is over 4 MiB"},
      {"--set=memory.sector_bytes=8", "caches need lines of at most 8 sectors"},
  };
  g_autofree char *gpu = test_write_temp("toy.yaml", toy_gpu);
  g_autofree char *kernel = test_write_temp("k.yaml", "name: k\nwarps_per_sm: 1\nstream: |\n  "
                                                      "LDG R1, [R1] window=512\n");
  for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
    const char *args[] = {"run", gpu, kernel, bad[i][0], NULL};
    g_autofree char *out = NULL, *err = NULL;
    ck_assert_int_eq(test_smsim(args, &out, &err), 2);
    ck_assert_msg(strstr(err, bad[i][1]) != NULL, "%s: %s", bad[i][0], err);
  }
}
END_TEST

/* The counters as a user reads them: the run's text and JSON, a CSV trace's columns, describe. */
START_TEST(test_counters_in_text_json_trace_and_describe)
{
  g_autofree char *gpu = test_write_temp("toy.yaml", toy_gpu);
  g_autofree char *kernel = toy_kernel("LDG R1, [R1] window=512");
  g_autofree char *dir = g_path_get_dirname(kernel);
  g_autofree char *csv = g_build_filename(dir, "t.csv", NULL);
  const char *run[] = {"run", gpu, kernel, "--trace", csv, NULL};
  g_autofree char *out = NULL, *err = NULL;
  ck_assert_int_eq(test_smsim(run, &out, &err), 0);
  ck_assert_msg(strstr(out, "caches      L1TEX hit rate 50.0% of 32 sectors (4.00 a request); "
                            "LTS hit rate 0.0% of 16 sectors (4.00 a request; 0.0% in a far "
                            "partition); 0 sectors written back\n") != NULL,
                "%s", out);
  g_autofree char *trace = NULL;
  ck_assert(g_file_get_contents(csv, &trace, NULL, NULL));
  ck_assert(g_str_has_prefix(trace, "cycle,scheduler,warp,pc,op,unit,completion_cycle,bank_passes,"
                                    "active_lanes,l1_hit_sectors,l2_hit_sectors,miss_sectors\n"));
  /* the first load misses everywhere (back at 200), the fifth hits the L1 (800 + 20) */
  ck_assert_msg(strstr(trace, "\n0,0,0,1,LDG,ldst,200,0,0xffffffff,0,0,4\n") != NULL, "%s", trace);
  ck_assert_msg(strstr(trace, "\n800,0,0,1,LDG,ldst,820,0,0xffffffff,4,0,0\n") != NULL, "%s",
                trace);
  const char *json[] = {"run", gpu, kernel, "--json", NULL};
  g_autofree char *jout = NULL, *jerr = NULL;
  ck_assert_int_eq(test_smsim(json, &jout, &jerr), 0);
  ck_assert_msg(strstr(jout, "\"l1tex_hit_rate\" : 50") != NULL, "%s", jout);
  ck_assert_msg(strstr(jout, "\"lts_sectors\" : 16") != NULL, "%s", jout);
  /* loads read nothing for stores (the sectors the L2 reads for stores written in part:
   * caches.l2.fill_bytes, docs/real-kernels.md's naive transpose) */
  ck_assert_msg(strstr(jout, "\"fill_sectors\" : 0") != NULL, "%s", jout);
  /* describe: sizes, and the warps an L1 hit needs (20 cycles x 1 LD/ST warp-instruction) */
  const char *describe[] = {"describe", gpu, NULL};
  g_autofree char *dout = NULL, *derr = NULL;
  ck_assert_int_eq(test_smsim(describe, &dout, &derr), 0);
  ck_assert_msg(strstr(dout, "    l1_hit: 20.0") != NULL, "%s", dout);
  ck_assert_msg(strstr(dout, "  l1: {bytes_per_sm: 1024, lines: 8, sets: 4}") != NULL, "%s", dout);
  ck_assert_msg(strstr(dout, "  l2: {bytes: 4096, bytes_per_partition: 4096, lines: 32, "
                             "near_latency: 100, far_latency: 100") != NULL,
                "%s", dout);
  /* a run that names its levels has no cache counters to show */
  g_autofree char *named =
      test_write_temp("n.yaml", "name: n\nwarps_per_sm: 1\nstream: |\n  LDG R1, [R1] level=dram\n");
  const char *plain[] = {"run", gpu, named, NULL};
  g_autofree char *pout = NULL, *perr = NULL;
  ck_assert_int_eq(test_smsim(plain, &pout, &perr), 0);
  ck_assert(strstr(pout, "caches ") == NULL);
}
END_TEST

/* validate plots kernel-format rows against a key of their set column, or refuses before it
 * runs anything */
START_TEST(test_validate_plots_against_a_set_key)
{
  g_autofree char *csv = test_write_temp(
      "m.csv",
      "kernel,set,metric,measured,curve\n"
      "isa/kernels/footprint.yaml,footprint=8192;steps=16,clock.per_warp_median,848,a\n"
      "isa/kernels/footprint.yaml,footprint=1048576;steps=16,clock.per_warp_median,4800,a\n");
  g_autofree char *dir = g_path_get_dirname(csv);
  g_autofree char *png = g_build_filename(dir, "f.png", NULL);
  const char *bad[] = {"validate", "config/gpus/h100.yaml", csv, "--plot", png, "--plot-x", "size",
                       NULL};
  g_autofree char *out = NULL, *err = NULL;
  ck_assert_int_eq(test_smsim(bad, &out, &err), 2);
  ck_assert_msg(strstr(err, "m.csv:2:28: set: no number size here (--plot-x)") != NULL, "%s", err);
  ck_assert(!g_file_test(png, G_FILE_TEST_EXISTS));
  const char *good[] = {"validate",  "config/gpus/h100.yaml",
                        csv,         "--plot",
                        png,         "--plot-x",
                        "footprint", "--plot-per",
                        "steps",     NULL};
  g_autofree char *out2 = NULL, *err2 = NULL;
  ck_assert_int_eq(test_smsim(good, &out2, &err2), 0);
  ck_assert(g_file_test(png, G_FILE_TEST_EXISTS));
}
END_TEST

/* The mix over the measurement's own windows, with no declared level, lands where its declared
 * levels do: 1 GiB chased through the caches is DRAM, 8 MiB after the warm-up is the L2. */
START_TEST(test_the_mix_over_its_windows_matches_its_declared_levels)
{
  static const struct {
    const char *declared, *window, *warm, *pattern;
    guint warps;
    const char *alpha;
  } cases[] = {
      {"level=dram", "window=1073741824", "warm=0", "pattern=coalesced", 8, "alpha=0"},
      {"level=dram", "window=1073741824", "warm=0", "pattern=coalesced", 48, "alpha=8"},
      {"level=dram", "window=1073741824", "warm=0", "pattern=stride2", 32, "alpha=0"},
      {"level=dram", "window=1073741824", "warm=0", "pattern=random", 16, "alpha=0"},
      {"level=l2", "window=8388608", "warm=1", "pattern=coalesced", 8, "alpha=0"},
      {"level=l2", "window=8388608", "warm=1", "pattern=coalesced", 48, "alpha=8"},
  };
  g_autofree char *gpu = test_source_path("config/gpus/h100.yaml");
  g_autofree char *kernel = test_source_path("isa/kernels/mix.yaml");
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *w = g_strdup_printf("warps_per_sm=%u", cases[i].warps);
    const char *declared[] = {
        w, cases[i].alpha, cases[i].pattern, cases[i].declared, "groups=512", NULL};
    const char *cached[] = {w,
                            cases[i].alpha,
                            cases[i].pattern,
                            "level=cached",
                            cases[i].window,
                            cases[i].warm,
                            "groups=512",
                            NULL};
    TestRun *a = test_run_new(gpu, kernel, declared), *b = test_run_new(gpu, kernel, cached);
    sm_run(a->sm);
    sm_run(b->sm);
    double ca = (double)sm_stats(a->sm)->cycles, cb = (double)sm_stats(b->sm)->cycles;
    ck_assert_msg(fabs(cb / ca - 1) <= 0.015, "%s %s %s: declared %g, cached %g (%+.2f %%)", w,
                  cases[i].pattern, cases[i].declared, ca, cb, 100 * (cb / ca - 1));
    ck_assert_uint_gt(sm_stats(b->sm)->l2_requests, 0);
    test_run_free(a);
    test_run_free(b);
  }
}
END_TEST

static Suite *
caches_suite(void)
{
  Suite *s = suite_create("caches");
  TCase *tc = tcase_create("caches");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, test_a_window_that_fits_the_l1_misses_once_then_hits);
  tcase_add_test(tc, test_read_only_loads_hit_at_their_own_latency);
  tcase_add_test(tc, test_cg_loads_skip_the_l1);
  tcase_add_test(tc, test_lru_thrashes_on_a_cycle_one_line_too_long);
  tcase_add_test(tc, test_the_warm_up_pass_leaves_the_caches_as_a_whole_pass_does);
  tcase_add_test(tc, test_declared_levels_and_gpus_without_caches_are_unchanged);
  tcase_add_test(tc, test_cache_lru_sectors_and_write_backs);
  tcase_add_test(tc, test_the_oldest_ways_are_kept_clean);
  tcase_add_test(tc, test_a_written_line_is_written_back_once);
  tcase_add_test(tc, test_a_store_holds_its_channel_for_its_request_and_sectors);
  tcase_add_test(tc, test_stores_before_the_launch_leave_the_l2_dirty);
  tcase_add_test(tc, test_an_l2_eviction_writes_dirty_sectors_back);
  tcase_add_test(tc, test_a_sector_written_in_part_is_read_before_its_write_back);
  tcase_add_test(tc, test_an_access_waits_for_the_write_back_of_the_line_it_replaces);
  tcase_add_test(tc, test_bad_cache_keys_and_window_attributes_say_where);
  tcase_add_test(tc, test_counters_in_text_json_trace_and_describe);
  tcase_add_test(tc, test_validate_plots_against_a_set_key);
  tcase_add_test(tc, test_the_mix_over_its_windows_matches_its_declared_levels);
  suite_add_tcase(s, tc);
  return s;
}

int
main(void)
{
  return test_run_suite(caches_suite());
}
