/* The event queue: order by (cycle, priority, sequence), whatever the push order.  And the
 * pass over a scheduler's wake times (wake.h): the host's fastest against the portable one and
 * against the definition. */
#include <check.h>

#include "core/engine.h"
#include "core/wake.h"

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

/* Block launches wait apart from the other events, yet all come out in one order: by cycle,
 * then priority, then push order across both; the earliest launch is known at once. */
START_TEST(test_launches_and_memory_events_share_one_order)
{
  SmEngine e;
  sm_engine_init(&e, 4);
  ck_assert_uint_eq(sm_engine_next_launch(&e), SM_NEVER);
  sm_engine_push(&e, 9, 1, SM_EVENT_BLOCK_LAUNCH, 0);
  sm_engine_push(&e, 9, 0, SM_EVENT_MEM_DONE, 1);
  sm_engine_push(&e, 5, 1, SM_EVENT_BLOCK_LAUNCH, 2);
  sm_engine_push(&e, 5, 1, SM_EVENT_MEM_DONE, 3);
  sm_engine_push(&e, 9, 1, SM_EVENT_MEM_DONE, 4);
  sm_engine_push(&e, 3, 0, SM_EVENT_MEM_START, 5);
  ck_assert_uint_eq(e.queue.n, 6);
  ck_assert_uint_eq(e.launches.n, 2);
  ck_assert_uint_eq(sm_engine_next_cycle(&e), 3);
  ck_assert_uint_eq(sm_engine_next_launch(&e), 5);
  guint64 expect[] = {5, 2, 3, 1, 0, 4};
  guint64 launch_after[] = {5, 9, 9, 9, SM_NEVER, SM_NEVER};
  for (guint i = 0; i < G_N_ELEMENTS(expect); i++) {
    SmEvent ev;
    ck_assert(sm_engine_pop(&e, &ev));
    ck_assert_uint_eq(ev.arg, expect[i]);
    ck_assert_uint_eq(sm_engine_next_launch(&e), launch_after[i]);
  }
  ck_assert_uint_eq(e.queue.n, 0);
  ck_assert_uint_eq(e.launches.n, 0);
  sm_engine_clear(&e);
}
END_TEST

START_TEST(test_many_random_events_come_out_sorted_and_stable)
{
  SmEngine e;
  sm_engine_init(&e, 16); /* must grow, both heaps */
  GRand *r = g_rand_new_with_seed(42);
  for (guint i = 0; i < 5000; i++)
    sm_engine_push(&e, g_rand_int_range(r, 0, 300), g_rand_int_range(r, 0, 3),
                   g_rand_int_range(r, 0, SM_EVENT_KIND_COUNT), i);
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

/* Every length up to 64, wake times around t (due, just after, far, never): the pass this host
 * uses (AVX-512 where there is one) and the portable pass agree with the definition. */
/* Events held while pushed (another thread's queue) come out as if pushed straight in: ties
 * with events pushed after them, straight in, still go by push order, and held launches join
 * the launches' heap. */
START_TEST(test_held_events_keep_their_place)
{
  SmEngine straight, held;
  sm_engine_init(&straight, 4);
  sm_engine_init(&held, 4);
  SmHeap wait = {0}; /* (its storage grows as events come: 80 pass its first 64) */
  held.held = &wait;
  for (guint i = 0; i < 80; i++) {
    guint64 cycle = (i * 7) % 5, kind = i % 4 == 3 ? SM_EVENT_BLOCK_LAUNCH : SM_EVENT_MEM_DONE;
    sm_engine_push(&straight, cycle, 0, kind, i);
    sm_engine_push(&held, cycle, 0, kind, i);
  }
  ck_assert_uint_eq(wait.n, 80);
  ck_assert_uint_eq(sm_engine_next_cycle(&held), SM_NEVER); /* none in the heap yet */
  held.held = NULL;
  for (guint i = 80; i < 90; i++) {
    sm_engine_push(&straight, i % 5, 0, SM_EVENT_MEM_DONE, i);
    sm_engine_push(&held, i % 5, 0, SM_EVENT_MEM_DONE, i);
  }
  sm_engine_take_held(&held, &wait);
  ck_assert_uint_eq(wait.n, 0);
  ck_assert_uint_eq(sm_engine_next_launch(&held), sm_engine_next_launch(&straight));
  SmEvent a, b;
  guint n = 0;
  while (sm_engine_pop(&straight, &a)) {
    ck_assert(sm_engine_pop(&held, &b));
    ck_assert_uint_eq(a.arg, b.arg);
    ck_assert_uint_eq(a.cycle, b.cycle);
    ck_assert_uint_eq(sm_engine_next_launch(&held), sm_engine_next_launch(&straight));
    n++;
  }
  ck_assert_uint_eq(n, 90);
  ck_assert(!sm_engine_pop(&held, &b));
  g_free(wait.ev);
  sm_engine_clear(&straight);
  sm_engine_clear(&held);
}
END_TEST

START_TEST(test_wake_pass_matches_definition)
{
  SmWakePass fast = sm_wake_pass_choose();
  GRand *r = g_rand_new_with_seed(7);
  guint64 wake[64];
  for (guint round = 0; round < 400; round++) {
    guint n = 1 + round % 64;
    guint64 t = 1000 + g_rand_int_range(r, 0, 50);
    for (guint q = 0; q < n; q++) {
      switch (g_rand_int_range(r, 0, 5)) {
      case 0:
        wake[q] = SM_NEVER;
        break;
      case 1:
        wake[q] = t;
        break;
      case 2:
        wake[q] = t + 1;
        break;
      default:
        wake[q] = (guint64)g_rand_int_range(r, 0, 2100);
        break;
      }
    }
    guint64 due = 0, later = SM_NEVER;
    for (guint q = 0; q < n; q++) {
      if (wake[q] <= t)
        due |= (guint64)1 << q;
      else
        later = MIN(later, wake[q]);
    }
    SmWakeDue f = fast(wake, n, t), p = sm_wake_pass_portable(wake, n, t);
    ck_assert_uint_eq(f.due, due);
    ck_assert_uint_eq(f.later, later);
    ck_assert_uint_eq(p.due, due);
    ck_assert_uint_eq(p.later, later);
  }
  /* nothing after t: the earliest later wake is "never" */
  wake[0] = 5;
  SmWakeDue f = fast(wake, 1, 5);
  ck_assert_uint_eq(f.due, 1);
  ck_assert_uint_eq(f.later, SM_NEVER);
  g_rand_free(r);
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
  tcase_add_test(tc, test_launches_and_memory_events_share_one_order);
  tcase_add_test(tc, test_held_events_keep_their_place);
  suite_add_tcase(s, tc);
  TCase *tw = tcase_create("wake");
  tcase_add_test(tw, test_wake_pass_matches_definition);
  suite_add_tcase(s, tw);
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
