/* The event queue: order by (cycle, priority, sequence), whatever the push order. */
#include <check.h>

#include "engine.h"

START_TEST(test_events_pop_in_cycle_order)
{
  SmEngine e;
  sm_engine_init(&e, 4);
  guint64 cycles[] = {50, 10, 40, 10, 30, 20, 0, 99};
  for (guint i = 0; i < G_N_ELEMENTS(cycles); i++)
    sm_engine_push(&e, cycles[i], 0, 0, i);
  ck_assert_uint_eq(sm_engine_next_cycle(&e), 0);
  guint64 expect[] = {0, 10, 10, 20, 30, 40, 50, 99};
  for (guint i = 0; i < G_N_ELEMENTS(expect); i++) {
    SmEvent ev;
    ck_assert(sm_engine_pop(&e, &ev));
    ck_assert_uint_eq(ev.cycle, expect[i]);
  }
  SmEvent ev;
  ck_assert(!sm_engine_pop(&e, &ev));
  ck_assert_uint_eq(sm_engine_next_cycle(&e), SM_NEVER);
  sm_engine_clear(&e);
}
END_TEST

START_TEST(test_ties_break_by_priority_then_push_order)
{
  SmEngine e;
  sm_engine_init(&e, 16);
  /* same cycle: priority 1 pushed first, then three of priority 0 */
  sm_engine_push(&e, 7, 1, 0, 100);
  sm_engine_push(&e, 7, 0, 0, 1);
  sm_engine_push(&e, 7, 0, 0, 2);
  sm_engine_push(&e, 7, 0, 0, 3);
  sm_engine_push(&e, 6, 5, 0, 0);
  guint64 expect[] = {0, 1, 2, 3, 100};
  for (guint i = 0; i < G_N_ELEMENTS(expect); i++) {
    SmEvent ev;
    ck_assert(sm_engine_pop(&e, &ev));
    ck_assert_uint_eq(ev.arg, expect[i]);
  }
  sm_engine_clear(&e);
}
END_TEST

START_TEST(test_many_random_events_come_out_sorted_and_stable)
{
  SmEngine e;
  sm_engine_init(&e, 16); /* must grow */
  GRand *r = g_rand_new_with_seed(42);
  for (guint i = 0; i < 5000; i++)
    sm_engine_push(&e, g_rand_int_range(r, 0, 300), g_rand_int_range(r, 0, 3), 0, i);
  SmEvent prev = {0}, ev;
  guint n = 0;
  while (sm_engine_pop(&e, &ev)) {
    if (n > 0) {
      ck_assert(prev.cycle <= ev.cycle);
      if (prev.cycle == ev.cycle) {
        ck_assert(prev.priority <= ev.priority);
        if (prev.priority == ev.priority)
          ck_assert(prev.arg < ev.arg);
      }
    }
    prev = ev;
    n++;
  }
  ck_assert_uint_eq(n, 5000);
  g_rand_free(r);
  sm_engine_clear(&e);
}
END_TEST

static Suite *
engine_suite(void)
{
  Suite *s = suite_create("engine");
  TCase *tc = tcase_create("order");
  tcase_add_test(tc, test_events_pop_in_cycle_order);
  tcase_add_test(tc, test_ties_break_by_priority_then_push_order);
  tcase_add_test(tc, test_many_random_events_come_out_sorted_and_stable);
  suite_add_tcase(s, tc);
  return s;
}

int
main(void)
{
  SRunner *sr = srunner_create(engine_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
