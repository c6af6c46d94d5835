/* A warp alone on its scheduler issuing on without the loop visiting its cycles (sim/gpu/loop.c,
 * run_ahead()): every count must be what visiting each cycle gives, whatever else runs on the
 * SM (memory waits, the limit on outstanding requests, write ports, waves of blocks, several
 * SMs, barriers, divergence, asynchronous copies, a run stopped mid-way), and it must happen
 * where it can (else the speed-up is lost without anyone noticing). */
#include <check.h>
#include <string.h>

#include "helpers.h"

/* Runs @kernel on @gpu with @sets (fast-forward as @ff), run-ahead off and on; returns the
 * cycles visited with it on, as a fraction of those visited without it. */
static double
run_both(const char *gpu, const char *kernel, const char *const *sets, gboolean ff)
{
  SmStats stats[2];
  sm_set_fast_forward(ff);
  for (guint on = 0; on < 2; on++) {
    sm_set_run_ahead(on);
    TestRun *run = test_run_new(gpu, kernel, sets);
    sm_run(run->sm);
    stats[on] = *sm_stats(run->sm);
    test_run_free(run);
  }
  sm_set_run_ahead(TRUE);
  sm_set_fast_forward(TRUE);
  g_autofree char *joined = g_strjoinv(" ", (char **)sets);
  g_autofree char *what = g_strdup_printf("%s %s %s", gpu, kernel, joined);
  test_assert_same_counts(&stats[0], &stats[1], what);
  ck_assert_uint_gt(stats[0].visited_cycles, 0);
  return (double)stats[1].visited_cycles / (double)stats[0].visited_cycles;
}

typedef struct {
  const char *gpu, *kernel;
  const char *sets[10];
  gboolean stepped; /* with fast-forward off (deterministic streams are fast-forwarded) */
  double visited;   /* at most this fraction of the cycles visited without run-ahead */
} Case;

static const Case cases[] = {
    /* the memory-bound H100 run of bench/run: most FADDs of a chain run ahead */
    {"config/gpus/h100.yaml",
     "isa/kernels/mix.yaml",
     {"alpha=8", "warps_per_sm=64", "groups=150", NULL},
     FALSE,
     0.8},
    {"config/gpus/h100.yaml",
     "isa/kernels/mix.yaml",
     {"alpha=4", "warps_per_sm=20", "groups=100", "policy=gto", "block_priority=youngest", NULL},
     FALSE,
     0.9},
    {"config/gpus/maxwell.yaml",
     "isa/kernels/mix.yaml",
     {"alpha=16", "ilp=2", "warps_per_sm=24", "groups=60", "policy=oldest", NULL},
     FALSE,
     0.9},
    {"config/gpus/fermi.yaml",
     "isa/kernels/mix.yaml",
     {"alpha=8", "pattern=random", "warps_per_sm=12", "groups=60", "policy=last_resumed",
      "resume_window=64", NULL},
     FALSE,
     0.9},
    /* the register-file write ports checked every issue */
    {"config/gpus/h100.yaml",
     "isa/kernels/mix.yaml",
     {"alpha=8", "warps_per_sm=16", "groups=100", "register_write_ports=1", NULL},
     FALSE,
     0.9},
    /* warps held by the limit on outstanding requests (no run-ahead while any is held) */
    {"config/gpus/h100.yaml",
     "isa/kernels/mix.yaml",
     {"alpha=2", "ilp=3", "warps_per_sm=64", "groups=40", "memory.max_outstanding=32", NULL},
     FALSE,
     1.0},
    /* a loop with its counter and taken branch, unrolled */
    {"config/gpus/h100.yaml",
     "isa/kernels/mix.yaml",
     {"alpha=6", "unroll=2", "loop_overhead=1", "loop_movs=2", "warps_per_sm=9", "groups=60", NULL},
     FALSE,
     0.9},
    /* two issues a cycle from one warp (none runs ahead) and from any warp */
    {"config/gpus/kepler.yaml",
     "isa/kernels/mix.yaml",
     {"alpha=8", "warps_per_sm=16", "groups=60", NULL},
     FALSE,
     1.0},
    {"config/gpus/toy-fig47.yaml", "isa/kernels/mix.yaml", {"alpha=8", NULL}, FALSE, 1.0},
    /* waves of blocks on two SMs, launched at once and after a delay */
    {"config/gpus/h100.yaml",
     "isa/kernels/occupancy-lab.yaml",
     {"threads=7680", "groups=6", "sm_count=2", "block_launch_cycles=0", NULL},
     FALSE,
     1.0},
    {"config/gpus/maxwell.yaml",
     "isa/kernels/occupancy-lab.yaml",
     {"threads=3840", "groups=6", "sm_count=2", "block_launch_cycles=50", NULL},
     FALSE,
     1.0},
    /* a memory-bound grid of several waves: memory events in the queue do not stop a warp
     * running ahead, only the next block launch does */
    {"config/gpus/h100.yaml",
     "isa/kernels/occupancy-lab.yaml",
     {"threads=23040", "groups=20", "sm_count=2", NULL},
     FALSE,
     0.62},
    /* a per-warp limit on instructions, ending warps mid-loop */
    {"config/gpus/h100.yaml",
     "isa/kernels/mix.yaml",
     {"alpha=8", "warps_per_sm=24", "groups=100", "instructions_per_warp=301", NULL},
     FALSE,
     1.0},
    /* deterministic streams stepped: shared memory, SFU, divergence, barriers, async copies */
    {"config/gpus/h100.yaml",
     "isa/kernels/mix.yaml",
     {"other=MUFU.RSQ", "alpha=4", "warps_per_sm=22", "groups=100", NULL},
     TRUE,
     1.0},
    {"config/gpus/h100.yaml",
     "isa/kernels/mix.yaml",
     {"other=LDS", "alpha=6", "warps_per_sm=10", "groups=100", NULL},
     TRUE,
     1.0},
    {"config/gpus/h100.yaml",
     "isa/kernels/divergence.yaml",
     {"ways=3", "warps_per_sm=5", "work=3", "iters=60", NULL},
     TRUE,
     1.0},
    {"config/gpus/h100.yaml",
     "isa/kernels/prefetch.yaml",
     {"variant=async_roll", "pdist=4", "elements=32", "warps_per_sm=8", NULL},
     FALSE,
     1.0},
    {"config/gpus/h100.yaml",
     "isa/kernels/prefetch.yaml",
     {"variant=smem_roll_sync", "pdist=4", "elements=32", "warps_per_sm=8", NULL},
     FALSE,
     1.0},
    {"config/gpus/maxwell.yaml",
     "isa/kernels/banks.yaml",
     {"stride=2", "iters=60", NULL},
     TRUE,
     1.0},
};

START_TEST(test_run_ahead_changes_no_number)
{
  const Case *c = &cases[_i];
  double visited = run_both(c->gpu, c->kernel, c->sets, !c->stepped);
  ck_assert_msg(visited <= c->visited, "case %d: %.3f of the cycles visited, expected at most %.2f",
                _i, visited, c->visited);
}
END_TEST

/* sm_run_until(c) issues nothing at or past c: windows of a run stopped at several cycles, and
 * the counts of a run closed mid-way, are those of visiting every cycle. */
START_TEST(test_run_ahead_stops_at_the_requested_cycle)
{
  const char *const sets[] = {"alpha=8", "warps_per_sm=32", "groups=100", NULL};
  static const guint64 stops[] = {1000, 1001, 2500, 7777};
  SmStats stats[2][G_N_ELEMENTS(stops)], closed[2];
  for (guint on = 0; on < 2; on++) {
    sm_set_run_ahead(on);
    TestRun *run = test_run_new("config/gpus/h100.yaml", "isa/kernels/mix.yaml", sets);
    for (guint i = 0; i < G_N_ELEMENTS(stops); i++) {
      sm_run_until(run->sm, stops[i]);
      ck_assert_uint_ge(sm_now(run->sm), stops[i]);
      stats[on][i] = *sm_stats(run->sm);
    }
    sm_close(run->sm);
    closed[on] = *sm_stats(run->sm);
    test_run_free(run);
  }
  sm_set_run_ahead(TRUE);
  for (guint i = 0; i < G_N_ELEMENTS(stops); i++) {
    g_autofree char *what = g_strdup_printf("stopped at %" G_GUINT64_FORMAT, stops[i]);
    test_assert_same_counts(&stats[0][i], &stats[1][i], what);
  }
  test_assert_same_counts(&closed[0], &closed[1], "closed at 7777");
  ck_assert_uint_eq(closed[0].cycles, closed[1].cycles);
  ck_assert_uint_lt(closed[1].cycles, 7777 + 100);
}
END_TEST

/* Random global-memory settings on every shipped GPU (fixed seed). */
START_TEST(test_random_settings_run_ahead_exactly)
{
  static const char *const gpus[] = {"h100", "maxwell", "fermi", "kepler", "gt200", "toy-fig47"};
  static const char *const patterns[] = {"coalesced", "stride2", "random"};
  static const char *const policies[] = {"lrr", "gto", "oldest", "two_level", "last_resumed"};
  static const char *const priorities[] = {"none", "oldest", "youngest"};
  GRand *rand = g_rand_new_with_seed(20261123);
  guint runs = 20, fewer = 0;
  for (guint i = 0; i < runs; i++) {
    g_autofree char *gpu =
        g_strdup_printf("config/gpus/%s.yaml", gpus[g_rand_int_range(rand, 0, G_N_ELEMENTS(gpus))]);
    g_autoptr(GPtrArray) sets = g_ptr_array_new_with_free_func(g_free);
    g_ptr_array_add(sets, g_strdup_printf("alpha=%d", g_rand_int_range(rand, 0, 33)));
    g_ptr_array_add(sets, g_strdup_printf("ilp=%d", g_rand_int_range(rand, 1, 4)));
    g_ptr_array_add(sets, g_strdup_printf("unroll=%d", g_rand_int_range(rand, 1, 4)));
    g_ptr_array_add(sets, g_strdup_printf("loop_overhead=%d", g_rand_int_range(rand, 0, 2)));
    g_ptr_array_add(sets, g_strdup_printf("warps_per_sm=%d", g_rand_int_range(rand, 1, 17)));
    g_ptr_array_add(sets, g_strdup_printf("pattern=%s", patterns[g_rand_int_range(rand, 0, 3)]));
    g_ptr_array_add(sets, g_strdup("groups=40"));
    g_ptr_array_add(sets, g_strdup_printf("policy=%s", policies[g_rand_int_range(rand, 0, 5)]));
    g_ptr_array_add(sets,
                    g_strdup_printf("block_priority=%s", priorities[g_rand_int_range(rand, 0, 3)]));
    if (g_rand_int_range(rand, 0, 3) == 0)
      g_ptr_array_add(sets, g_strdup("register_write_ports=1"));
    g_ptr_array_add(sets, NULL);
    fewer += run_both(gpu, "isa/kernels/mix.yaml", (const char *const *)sets->pdata, TRUE) < 1.0;
  }
  g_rand_free(rand);
  ck_assert_uint_ge(fewer, runs / 2); /* most of them run ahead somewhere */
}
END_TEST

static Suite *
ahead_suite(void)
{
  Suite *s = suite_create("ahead");
  TCase *tc = tcase_create("ahead");
  tcase_set_timeout(tc, 300);
  tcase_add_loop_test(tc, test_run_ahead_changes_no_number, 0, G_N_ELEMENTS(cases));
  tcase_add_test(tc, test_run_ahead_stops_at_the_requested_cycle);
  tcase_add_test(tc, test_random_settings_run_ahead_exactly);
  suite_add_tcase(s, tc);
  return s;
}

int
main(void)
{
  return test_run_suite(ahead_suite());
}
