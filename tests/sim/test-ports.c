/* Register-file write ports (ports.h): the counts taken per cycle, for results however far
 * ahead, with the ring reusing the words of cycles passed and growing only for a result
 * further out than it reaches. */
#include <check.h>

#include "core/ports.h"

START_TEST(test_counts_per_cycle)
{
  for (guint ports = 1; ports <= 15; ports++) {
    SmPorts p;
    sm_ports_init(&p);
    for (guint k = 0; k < ports; k++)
      sm_ports_take(&p, 0, 40);
    sm_ports_take(&p, 0, 41);
    ck_assert_uint_eq(sm_ports_used(&p, 40), ports);
    ck_assert_uint_eq(sm_ports_used(&p, 41), 1);
    ck_assert_uint_eq(sm_ports_used(&p, 39), 0);
    ck_assert_uint_eq(sm_ports_used(&p, 42), 0);
    ck_assert_uint_eq(sm_ports_last(&p), 41);
    sm_ports_reset(&p);
    ck_assert_uint_eq(sm_ports_used(&p, 40), 0);
    ck_assert_uint_eq(sm_ports_last(&p), 0);
    sm_ports_clear(&p);
  }
}
END_TEST

/* A result 8192 cycles (the old fixed ring) or 30 000 cycles after another still to come keeps
 * its own count: neither overwrites the other, and nothing else reads as taken. */
START_TEST(test_results_far_ahead_keep_their_ports)
{
  SmPorts p;
  sm_ports_init(&p);
  sm_ports_take(&p, 0, 100);
  sm_ports_take(&p, 0, 100 + 8192);
  sm_ports_take(&p, 10, 100 + 30000);
  ck_assert_uint_eq(sm_ports_used(&p, 100), 1);
  ck_assert_uint_eq(sm_ports_used(&p, 100 + 8192), 1);
  ck_assert_uint_eq(sm_ports_used(&p, 100 + 30000), 1);
  ck_assert_uint_eq(sm_ports_used(&p, 100 + 16384), 0);
  ck_assert_uint_eq(sm_ports_used(&p, 100 + 32768), 0);
  ck_assert_uint_eq(sm_ports_last(&p), 100 + 30000);
  sm_ports_clear(&p);
}
END_TEST

/* Cycles passed free their slots: a scheduler that issues for a million cycles, its results
 * never more than 700 ahead, keeps the ring it started with. */
START_TEST(test_cycles_passed_are_reused)
{
  SmPorts p;
  sm_ports_init(&p);
  guint64 slots = p.mask + 1;
  for (guint64 t = 0; t < 1000000; t += 3) {
    sm_ports_take(&p, t, t + 4);
    if (t % 300 == 0)
      sm_ports_take(&p, t, t + 700);
  }
  ck_assert_uint_eq(p.mask + 1, slots);
  ck_assert_uint_eq(sm_ports_used(&p, 999999 + 4), 1);
  ck_assert_uint_eq(sm_ports_used(&p, 999600 + 700), 1);
  sm_ports_clear(&p);
}
END_TEST

/* Random takes against a plain table of counts: every cycle from the scheduler's current one
 * on reads what was taken for it, through growth and reuse; copies read the same.  (Counted,
 * then asserted once: Check records every assertion.)  The latest cycle taken is found too. */
START_TEST(test_matches_a_table_of_counts)
{
  GRand *r = g_rand_new_with_seed(7);
  guint wrong = 0, compared = 0;
  for (guint ports = 1; ports <= 4; ports++) {
    SmPorts p, q;
    sm_ports_init(&p);
    sm_ports_init(&q);
    guint8 *table = g_new0(guint8, 250000);
    guint64 now = 0;
    for (guint i = 0; i < 20000; i++) {
      now += (guint64)g_rand_int_range(r, 0, 8);
      guint64 ahead = g_rand_int_range(r, 0, 10) == 0 ? (guint64)g_rand_int_range(r, 0, 40000)
                                                      : (guint64)g_rand_int_range(r, 0, 40);
      guint64 c = now + ahead;
      while (table[c] >= ports)
        c++; /* the first free cycle from its arrival, as a variable-latency result takes */
      wrong += sm_ports_used(&p, c) != table[c];
      sm_ports_take(&p, now, c);
      table[c]++;
      if (i % 997 == 0) {
        sm_ports_copy(&q, &p);
        guint64 last = 0;
        for (guint64 x = now; x < now + 41000; x++)
          last = table[x] ? x : last;
        wrong += sm_ports_last(&p) != last && last != 0;
        for (guint64 x = now; x < now + 41000; x++, compared++)
          wrong += (sm_ports_used(&p, x) != table[x]) + (sm_ports_used(&q, x) != table[x]);
      }
    }
    g_free(table);
    sm_ports_clear(&p);
    sm_ports_clear(&q);
  }
  ck_assert_uint_eq(wrong, 0);
  ck_assert_uint_gt(compared, 3000000);
  g_rand_free(r);
}
END_TEST

static Suite *
ports_suite(void)
{
  Suite *s = suite_create("ports");
  TCase *tc = tcase_create("ring");
  tcase_add_test(tc, test_counts_per_cycle);
  tcase_add_test(tc, test_results_far_ahead_keep_their_ports);
  tcase_add_test(tc, test_cycles_passed_are_reused);
  tcase_add_test(tc, test_matches_a_table_of_counts);
  suite_add_tcase(s, tc);
  return s;
}

int
main(void)
{
  SRunner *sr = srunner_create(ports_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
