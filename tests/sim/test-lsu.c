/* The LD/ST stage (lsu.h), cycle by cycle: a load's lines one a cycle and its data a line a
 * cycle after, accesses in turn, a store's lines and partial sectors, its data on a path of its
 * own, its registers read late and no earlier than a place in the store buffer; the store
 * queue's places; off, it changes nothing. */
#include <check.h>

#include "helpers.h"
#include "core/fixed.h"
#include "mem/lsu.h"

static CfgGpu *
gpu_with(guint load, guint ret, guint store, guint partial, guint bytes, guint read, guint buffer)
{
  CfgGpu *g = g_new0(CfgGpu, 1);
  g->lsu.load_line_cycles = load;
  g->lsu.return_line_cycles = ret;
  g->lsu.store_line_cycles = store;
  g->lsu.partial_sector_cycles = partial;
  g->lsu.store_bytes_per_cycle = bytes;
  g->lsu.store_read_cycles = read;
  g->lsu.store_buffer = buffer;
  return g;
}

/* The H100's: a line a cycle each way, stores a line and a partial sector a cycle, 32 bytes a
 * cycle, read 28 cycles after issue, 32 stores buffered (config/gpus/h100.yaml). */
static CfgGpu *
h100_like(void)
{
  return gpu_with(1, 1, 1, 1, 32, 28, 32);
}

START_TEST(test_loads_take_a_line_a_cycle)
{
  g_autofree CfgGpu *g = h100_like();
  SmLsu l;
  sm_lsu_init(&l, g, 2, 2);
  /* 32 lines at cycle 100: looked up by 132, the data's last line 31 cycles after the rest */
  SmLsuPass p = sm_lsu_pass(&l, 0, 100, FALSE, 0, 32, NULL, 0);
  ck_assert_uint_eq(p.enter, 132);
  ck_assert_uint_eq(p.tail, 31);
  /* another SM's stage is its own */
  p = sm_lsu_pass(&l, 1, 101, FALSE, 0, 1, NULL, 0);
  ck_assert_uint_eq(p.enter, 102);
  ck_assert_uint_eq(p.tail, 0);
  /* the next access of SM 0 waits for the stage: 4 lines from 132 */
  p = sm_lsu_pass(&l, 0, 101, FALSE, 0, 4, NULL, 0);
  ck_assert_uint_eq(p.enter, 136);
  ck_assert_uint_eq(p.tail, 3);
  /* after the stage went idle, from the issue */
  p = sm_lsu_pass(&l, 0, 500, FALSE, 0, 1, NULL, 0);
  ck_assert_uint_eq(p.enter, 501);
  sm_lsu_clear(&l);
}
END_TEST

START_TEST(test_stores_pay_lines_partial_sectors_and_data)
{
  g_autofree CfgGpu *g = h100_like();
  SmLsu l;
  sm_lsu_init(&l, g, 1, 1);
  guint8 whole[32] = {0}, one[32], four[32]; /* the sectors written in part */
  for (guint i = 0; i < 32; i++) {
    one[i] = 0x1;
    four[i] = 0xf;
  }
  /* 128 bytes in one line of whole sectors: the data's 4 cycles, not the line's 1 */
  SmLsuPass p = sm_lsu_pass(&l, 0, 0, TRUE, 0, 1, whole, 128);
  ck_assert_uint_eq(p.enter, 4);
  ck_assert_uint_eq(p.tail, 0);
  /* 8 lines of one partial sector: 16 */
  p = sm_lsu_pass(&l, 0, 1000, TRUE, 0, 8, one, 128);
  ck_assert_uint_eq(p.enter, 1016);
  /* 8 lines of 4 partial sectors: 40; 32 lines of one: 64 */
  p = sm_lsu_pass(&l, 0, 2000, TRUE, 0, 8, four, 128);
  ck_assert_uint_eq(p.enter, 2040);
  p = sm_lsu_pass(&l, 0, 3000, TRUE, 0, 32, one, 128);
  ck_assert_uint_eq(p.enter, 3064);
  /* 512 bytes (STG.128) in 4 lines of whole sectors: the data's 16 */
  p = sm_lsu_pass(&l, 0, 4000, TRUE, 0, 4, whole, 512);
  ck_assert_uint_eq(p.enter, 4016);
  sm_lsu_clear(&l);
}
END_TEST

/* A store's data crosses the data path beside the stage, which is done with its line in one
 * cycle: a load after it is looked up the cycle after, not after the data's 4 (the H100's raw:
 * a one-line store and an L1-hit load an iteration take the stores' 4 cycles, not 5); the next
 * store's data waits for the path. */
START_TEST(test_loads_do_not_wait_for_store_data)
{
  g_autofree CfgGpu *g = h100_like();
  SmLsu l;
  sm_lsu_init(&l, g, 1, 1);
  guint8 whole[32] = {0};
  SmLsuPass p = sm_lsu_pass(&l, 0, 0, TRUE, 0, 1, whole, 128); /* line by 1, data by 4 */
  ck_assert_uint_eq(p.enter, 4);
  p = sm_lsu_pass(&l, 0, 1, FALSE, 0, 1, NULL, 0); /* the stage is free from 1 */
  ck_assert_uint_eq(p.enter, 2);
  p = sm_lsu_pass(&l, 0, 2, TRUE, 0, 1, whole, 128); /* line by 3, data from 4 to 8 */
  ck_assert_uint_eq(p.enter, 8);
  sm_lsu_clear(&l);
}
END_TEST

/* Registers are read 28 cycles after issue while the buffer has room; with 32 stores of 64
 * cycles each queued, the 33rd waits for the first to pass the stage. */
START_TEST(test_store_registers_read_late_and_buffered)
{
  g_autofree CfgGpu *g = h100_like();
  SmLsu l;
  sm_lsu_init(&l, g, 1, 1);
  guint8 one[32];
  for (guint i = 0; i < 32; i++)
    one[i] = 1;
  for (guint k = 0; k < 32; k++) {
    SmLsuPass p = sm_lsu_pass(&l, 0, 10 + k, TRUE, 0, 32, one, 128);
    ck_assert_uint_eq(p.read, 10 + k + 28);
    ck_assert_uint_eq(p.enter, 10 + 64 * (k + 1));
  }
  SmLsuPass p = sm_lsu_pass(&l, 0, 42, TRUE, 0, 32, one, 128);
  ck_assert_uint_eq(p.read, 10 + 64); /* the first store through the stage */
  ck_assert_uint_eq(p.enter, 10 + 64 * 33);
  p = sm_lsu_pass(&l, 0, 43, TRUE, 0, 32, one, 128);
  ck_assert_uint_eq(p.read, 10 + 128);
  /* a load behind them waits for the stage but has no registers to hold */
  p = sm_lsu_pass(&l, 0, 44, FALSE, 0, 1, NULL, 0);
  ck_assert_uint_eq(p.enter, 10 + 64 * 34 + 1);
  ck_assert_uint_eq(p.read, 44);
  sm_lsu_clear(&l);
}
END_TEST

/* With a backlog (store_backlog_cycles), a store's lines leave the stage at no more than its
 * SM's share of their level's write rate: 32 lines of one partial sector, 126 + 124 bytes each
 * at 64 bytes a cycle, take the share 125 cycles, the stage 64.  The first two leave at the
 * stage's pace (64, 128); the third would find 314 - 192 = 122 cycles ahead, more than 100, so
 * the stage holds it to 214 and the stores behind it wait: one store each 125 cycles from there
 * on.  Half the SMs' grid doubles the share (62.5 cycles a store: the stage's pace rules); no
 * backlog, no wait. */
START_TEST(test_stores_leave_at_their_share_of_the_level)
{
  g_autofree CfgGpu *g = h100_like();
  g->memory.n_levels = 1;
  g->memory.sector_bytes = 32;
  g->memory.levels[0] = (CfgMemLevel){.bytes_per_cycle = 64,
                                      .channels = 1,
                                      .write_request_bytes = 126,
                                      .write_sector_bytes = 76,
                                      .partial_sector_bytes = 124};
  guint8 one[32];
  for (guint i = 0; i < 32; i++)
    one[i] = 1;
  const guint grid[] = {2, 1, 2};
  const guint backlog[] = {100, 100, 0};
  const guint64 want[][5] = {
      {64, 128, 214, 339, 464}, {64, 128, 192, 256, 320}, {64, 128, 192, 256, 320}};
  for (guint c = 0; c < G_N_ELEMENTS(grid); c++) {
    g->lsu.store_backlog_cycles = backlog[c];
    SmLsu l;
    sm_lsu_init(&l, g, 2, grid[c]);
    guint64 share = sm_lsu_store_share(&l, 0, 32, one, one);
    const guint64 ticks[] = {125 * SM_TICKS_PER_CYCLE, 125 * SM_TICKS_PER_CYCLE / 2, 0};
    ck_assert_uint_eq(share, ticks[c]);
    for (guint k = 0; k < 5; k++) {
      SmLsuPass p = sm_lsu_pass(&l, 1, 0, TRUE, share, 32, one, 128);
      ck_assert_msg(p.enter == want[c][k], "case %u store %u: %" G_GUINT64_FORMAT, c, k, p.enter);
    }
    sm_lsu_clear(&l);
  }
}
END_TEST

/* The store queue: stores waiting for room and stores whose registers are still unread both
 * take its places; a place frees when the oldest unread store is read, never while only stores
 * waiting for room fill it; the stores leave in order with their own lines. */
START_TEST(test_store_queue_places)
{
  g_autofree CfgGpu *g = h100_like();
  g->lsu.store_queue = 3;
  SmLsu l;
  sm_lsu_init(&l, g, 2, 2);
  guint8 one[32];
  guint bytes[32];
  guint64 lines[32];
  for (guint i = 0; i < 32; i++) {
    one[i] = 1;
    bytes[i] = 4;
    lines[i] = 1000 + i;
  }
  ck_assert_uint_eq(sm_lsu_queue_full(&l, 0, 10), 0);
  /* two stores taken at 10 and 11: read at 38 and 39 */
  ck_assert_uint_eq(sm_lsu_pass(&l, 0, 10, TRUE, 0, 1, one, 4).read, 38);
  ck_assert_uint_eq(sm_lsu_pass(&l, 0, 11, TRUE, 0, 1, one, 4).read, 39);
  ck_assert_uint_eq(sm_lsu_queue_full(&l, 0, 12), 0);
  /* a third waits for room: full until the first is read */
  SmLsuWaiting w = {.warp = 7, .pc = 3, .n = 2, .data_bytes = 8, .level = 1, .op = 2};
  sm_lsu_wait(&l, 0, w, lines, bytes, one, one);
  ck_assert_uint_eq(sm_lsu_waiting(&l, 0), 1);
  ck_assert_uint_eq(sm_lsu_queue_full(&l, 0, 12), 38);
  ck_assert_uint_eq(sm_lsu_queue_full(&l, 0, 37), 38);
  ck_assert_uint_eq(sm_lsu_queue_full(&l, 0, 38), 0);
  /* the other SM's queue is its own */
  ck_assert_uint_eq(sm_lsu_waiting(&l, 1), 0);
  ck_assert_uint_eq(sm_lsu_queue_full(&l, 1, 12), 0);
  /* three waiting fill it for good: only room frees a place */
  w.warp = 8;
  sm_lsu_wait(&l, 0, w, lines + 2, bytes + 2, one, one);
  w.warp = 9;
  w.n = 5;
  sm_lsu_wait(&l, 0, w, lines + 4, bytes + 4, one, one);
  ck_assert_uint_eq(sm_lsu_queue_full(&l, 0, 100), G_MAXUINT64);
  const guint64 *ln;
  const guint *by;
  const guint8 *ma, *pa;
  const SmLsuWaiting *q = sm_lsu_waiting_at(&l, 0, 0, &ln, &by, &ma, &pa);
  ck_assert_uint_eq(q->warp, 7);
  ck_assert_uint_eq(ln[0], 1000);
  ck_assert_uint_eq(ln[1], 1001);
  sm_lsu_waiting_pop(&l, 0);
  q = sm_lsu_waiting_at(&l, 0, 1, &ln, &by, &ma, &pa);
  ck_assert_uint_eq(q->warp, 9);
  ck_assert_uint_eq(q->n, 5);
  ck_assert_uint_eq(ln[4], 1008);
  ck_assert_uint_eq(sm_lsu_waiting(&l, 0), 2);
  /* many more through it: the stores gone leave its arrays, the rest keep their lines */
  for (guint k = 0; k < 600; k++) {
    w.warp = 100 + k;
    w.n = 1 + k % 3;
    sm_lsu_wait(&l, 0, w, lines + k % 7, bytes, one, one);
    sm_lsu_waiting_pop(&l, 0);
  }
  ck_assert_uint_eq(sm_lsu_waiting(&l, 0), 2);
  q = sm_lsu_waiting_at(&l, 0, 1, &ln, &by, &ma, &pa);
  ck_assert_uint_eq(q->warp, 699);
  ck_assert_uint_eq(q->n, 1 + 599 % 3);
  ck_assert_uint_eq(ln[0], 1000 + 599 % 7);
  sm_lsu_clear(&l);
}
END_TEST

START_TEST(test_off_changes_nothing)
{
  g_autofree CfgGpu *g = gpu_with(0, 0, 0, 0, 0, 0, 0);
  SmLsu l;
  sm_lsu_init(&l, g, 1, 1);
  ck_assert(!l.on);
  guint8 one[32] = {1};
  for (guint k = 0; k < 3; k++) {
    SmLsuPass p = sm_lsu_pass(&l, 0, 77, k == 1, 0, 32, one, 128);
    ck_assert_uint_eq(p.enter, 77);
    ck_assert_uint_eq(p.tail, 0);
    ck_assert_uint_eq(p.read, 77);
  }
  sm_lsu_clear(&l);
}
END_TEST

static Suite *
lsu_suite(void)
{
  Suite *s = suite_create("lsu");
  TCase *tc = tcase_create("stage");
  tcase_add_test(tc, test_loads_take_a_line_a_cycle);
  tcase_add_test(tc, test_stores_pay_lines_partial_sectors_and_data);
  tcase_add_test(tc, test_loads_do_not_wait_for_store_data);
  tcase_add_test(tc, test_store_registers_read_late_and_buffered);
  tcase_add_test(tc, test_stores_leave_at_their_share_of_the_level);
  tcase_add_test(tc, test_store_queue_places);
  tcase_add_test(tc, test_off_changes_nothing);
  suite_add_tcase(s, tc);
  return s;
}

int
main(void)
{
  return test_run_suite(lsu_suite());
}
