/* Fast-forward over periodic steady states (sim/steady.c): jumping over repeated periods must
 * give exactly the numbers of stepping through every cycle, and must happen where the state
 * repeats (else the speed-up is lost without anyone noticing). */
#include <check.h>
#include <string.h>

#include "helpers.h"
#include "fast/steady.h"

/* Runs @kernel on @gpu with @sets, fast-forward on and off; returns the cycles jumped over. */
static guint64
run_both(const char *gpu, const char *kernel, const char *const *sets)
{
  SmStats stats[2];
  for (guint on = 0; on < 2; on++) {
    sm_set_fast_forward(on);
    TestRun *run = test_run_new(gpu, kernel, sets);
    sm_run(run->sm);
    stats[on] = *sm_stats(run->sm);
    test_run_free(run);
  }
  sm_set_fast_forward(TRUE);
  g_autofree char *joined = g_strjoinv(" ", (char **)sets);
  g_autofree char *what = g_strdup_printf("%s %s %s", gpu, kernel, joined);
  ck_assert_uint_eq(stats[0].fast_forward_cycles, 0);
  test_assert_same_counts(&stats[0], &stats[1], what);
  return stats[1].fast_forward_cycles;
}

typedef struct {
  const char *gpu, *kernel;
  const char *sets[8];
} Case;

/* Deterministic streams: ALU chains, SFU and shared-memory mixes (the H100's write ports),
 * dual issue, every policy, bank conflicts, SIMT divergence, several SMs with waves of blocks. */
static const Case periodic[] = {
    {"config/gpus/h100.yaml",
     "isa/kernels/mix.yaml",
     {"other=none", "alpha=16", "groups=400", "warps_per_sm=17", NULL}},
    {"config/gpus/h100.yaml",
     "isa/kernels/mix.yaml",
     {"other=MUFU.RSQ", "alpha=4", "groups=400", "warps_per_sm=64", NULL}},
    {"config/gpus/h100.yaml",
     "isa/kernels/mix.yaml",
     {"other=LDS", "alpha=2", "groups=400", "warps_per_sm=24", NULL}},
    {"config/gpus/h100.yaml",
     "isa/kernels/mix.yaml",
     {"other=LDS", "alpha=8", "groups=400", "warps_per_sm=12", "unroll=2", "loop_overhead=1",
      NULL}},
    /* two blocks waiting in order for a full shared-memory queue (throttle_order: arrival,
     * mio_throttle 9 cycles per issued instruction) */
    {"config/gpus/h100.yaml",
     "isa/kernels/mix.yaml",
     {"other=LDS", "alpha=2", "groups=400", "warps_per_sm=64", "shared_memory.queue_depth=2",
      NULL}},
    {"config/gpus/toy-fig47.yaml",
     "isa/kernels/mix.yaml",
     {"other=LDS", "alpha=8", "groups=300", "warps_per_sm=13", "unroll=2", "loop_overhead=1",
      NULL}},
    {"config/gpus/kepler.yaml",
     "isa/kernels/mix.yaml",
     {"other=MUFU.RSQ", "alpha=1", "ilp=3", "groups=300", "warps_per_sm=7", NULL}},
    {"config/gpus/maxwell.yaml",
     "isa/kernels/mix.yaml",
     {"other=LDS", "alpha=4", "groups=300", "warps_per_sm=40", "policy=gto", NULL}},
    {"config/gpus/maxwell.yaml",
     "isa/kernels/mix.yaml",
     {"other=LDS", "alpha=4", "groups=300", "warps_per_sm=40", "policy=oldest", NULL}},
    {"config/gpus/h100.yaml",
     "isa/kernels/mix.yaml",
     {"other=LDS", "alpha=8", "groups=300", "warps_per_sm=32", "policy=two_level", NULL}},
    {"config/gpus/maxwell.yaml",
     "isa/kernels/mix.yaml",
     {"other=LDS", "alpha=4", "groups=300", "warps_per_sm=40", "block_priority=youngest", NULL}},
    {"config/gpus/fermi.yaml", "isa/kernels/ffma-ilp.yaml", {NULL}},
    {"config/gpus/h100.yaml",
     "isa/kernels/banks.yaml",
     {"stride=4", "iters=300", "warps_per_sm=8", NULL}},
    {"config/gpus/h100.yaml", "isa/kernels/divergence.yaml", {"ways=4", "iters=200", NULL}},
    {"config/gpus/h100.yaml", "bench/waves.yaml", {"sm_count=3", "blocks=40", "iters=300", NULL}},
};

START_TEST(test_fast_forward_changes_no_number)
{
  const Case *c = &periodic[_i];
  guint64 jumped = run_both(c->gpu, c->kernel, c->sets);
  ck_assert_msg(jumped > 0, "case %d: no period was found", _i);
}
END_TEST

/* A block-wide barrier between shared-memory stores and loads, blocks of 4 warps. */
static const char barrier_kernel[] =
    "name: barrier\nblocks_per_sm: 4\nthreads_per_block: 128\nregisters_per_thread: 32\n"
    "shared_memory_per_block: 4096\nstream: |\n  repeat 300 {\n    STS [R1], R2\n"
    "    BAR.SYNC\n    LDS R3, [R1]\n    FADD R2, R3, R2\n    FADD R2, R2, R2\n  }\n";

START_TEST(test_barriers_fast_forward_exactly)
{
  g_autofree char *kernel = test_write_temp("barrier.yaml", barrier_kernel);
  const char *const sets[] = {NULL};
  ck_assert_uint_gt(run_both("config/gpus/h100.yaml", kernel, sets), 0);
  ck_assert_uint_gt(run_both("config/gpus/fermi.yaml", kernel, sets), 0);
}
END_TEST

START_TEST(test_random_streams_are_stepped_through)
{
  /* global loads draw addresses and latencies: no state ever repeats, nothing is skipped */
  const char *const sets[] = {"alpha=8", "groups=200", "warps_per_sm=32", NULL};
  ck_assert_uint_eq(run_both("config/gpus/h100.yaml", "isa/kernels/mix.yaml", sets), 0);
  g_autofree char *kernel = test_write_temp(
      "chance.yaml", "name: chance\nwarps_per_sm: 4\nregisters_per_thread: 32\nstream: |\n"
                     "  repeat 200 {\n    ISETP P0, chance(0.5)\n    BSSY B0, join\n"
                     "    @P0 BRA join\n    FADD R1, R1, R2\n  join:\n    BSYNC B0\n  }\n");
  const char *const none[] = {NULL};
  ck_assert_uint_eq(run_both("config/gpus/h100.yaml", kernel, none), 0); /* draws per ISETP */
}
END_TEST

START_TEST(test_jumps_stop_at_the_requested_cycle)
{
  /* sm_run_until(c) never runs past c: windows measure the same with and without jumps */
  const char *const sets[] = {"other=none", "alpha=16", "groups=4000", "warps_per_sm=64", NULL};
  guint64 issued[2][3];
  const guint64 stops[3] = {1000, 77777, 200001};
  for (guint on = 0; on < 2; on++) {
    sm_set_fast_forward(on);
    TestRun *run = test_run_new("config/gpus/h100.yaml", "isa/kernels/mix.yaml", sets);
    for (guint i = 0; i < 3; i++) {
      sm_run_until(run->sm, stops[i]);
      ck_assert_uint_le(sm_now(run->sm), stops[i] + 4);
      ck_assert_uint_ge(sm_now(run->sm), stops[i]);
      issued[on][i] = sm_stats(run->sm)->issued;
    }
    if (on)
      ck_assert_uint_gt(sm_stats(run->sm)->fast_forward_cycles, 100000);
    test_run_free(run);
  }
  sm_set_fast_forward(TRUE);
  for (guint i = 0; i < 3; i++)
    ck_assert_uint_eq(issued[0][i], issued[1][i]);
}
END_TEST

/* With block priority one block runs ahead and the next one gains an instruction per iteration
 * of it: the state repeats only every 67 iterations (the loop's length).  Kept whole, such a
 * state is found at once; kept only as a hash, the repeat is confirmed a period later. */
START_TEST(test_long_periods_are_found_by_hash)
{
  const char *const sets[] = {"blocks=8", "iters=800", NULL};
  guint64 whole = run_both("config/gpus/h100.yaml", "bench/waves.yaml", sets);
  sm_steady_set_keep(4);
  guint64 hashed = run_both("config/gpus/h100.yaml", "bench/waves.yaml", sets);
  sm_steady_set_keep(0);
  /* 754 k and 689 k of 861 k cycles (by the kept states only: 181 k) */
  ck_assert_uint_gt(whole, hashed);
  ck_assert_uint_gt(hashed, whole / 4 * 3);
}
END_TEST

/* Schedulers that nothing couples (no memory, no barrier, one wave of blocks) repeat each at
 * its own period.  60 warps in two blocks of 30 under block priority give every scheduler 15
 * warps, 8 of one block and 7 of the other or the reverse: the schedulers drift against each
 * other, and the SM as a whole repeats nothing within the run (252 of 206 933 cycles jumped
 * with one detector for the SM).  A detector per scheduler jumps over most of it, and its
 * counts are the same as stepping. */
START_TEST(test_schedulers_fast_forward_apart)
{
  const char *const sets[] = {
      "other=MUFU.RSQ",  "alpha=32", "warps_per_sm=60", "groups=400", "unroll=4",
      "loop_overhead=1", NULL};
  TestRun *run = test_run_new("config/gpus/h100.yaml", "isa/kernels/mix.yaml", sets);
  sm_run(run->sm);
  guint64 cycles = sm_stats(run->sm)->cycles;
  test_run_free(run);
  guint64 jumped = run_both("config/gpus/h100.yaml", "isa/kernels/mix.yaml", sets);
  ck_assert_uint_eq(cycles, 206933);
  ck_assert_uint_gt(jumped, cycles * 9 / 10); /* 192 639 */
  /* stopped part-way: a scheduler's jump never passes the cycle asked for */
  guint64 issued[2];
  for (guint on = 0; on < 2; on++) {
    sm_set_fast_forward(on);
    run = test_run_new("config/gpus/h100.yaml", "isa/kernels/mix.yaml", sets);
    sm_run_until(run->sm, 150000);
    sm_close(run->sm);
    issued[on] = sm_stats(run->sm)->issued;
    ck_assert_uint_ge(sm_stats(run->sm)->cycles, 150000);
    test_run_free(run);
  }
  sm_set_fast_forward(TRUE);
  ck_assert_uint_eq(issued[0], issued[1]);
}
END_TEST

/* The same in a grid of several waves: blocks of 7 warps, 4 resident, 12 in all.  A scheduler
 * jumps on its own only while every resident block has a warp running there (no block can
 * retire and launch the next before it is due again); blocks of 3 warps leave a scheduler out
 * of each block, and the SM's own detector still finds the SM's period. */
START_TEST(test_schedulers_fast_forward_apart_between_launches)
{
  static const char kernel_text[] =
      "name: waves7\nthreads_per_block: $tpb\nblocks_per_sm: 4\nblocks: 12\n"
      "registers_per_thread: 16\nparams:\n  tpb: 224\nstream: |\n  repeat 300 {\n"
      "    for u in 1 .. 16 {\n      FADD R1, R1, R5\n      FADD R2, R2, R5\n"
      "      FADD R3, R3, R5\n      FADD R4, R4, R5\n    }\n    IADD3 R6, R6, R7, RZ\n"
      "    ISETP P0, R6, R8\n    @P0 BRA\n  }\n";
  g_autofree char *kernel = test_write_temp("waves7.yaml", kernel_text);
  const char *const seven[] = {NULL};
  /* 1 200 of 425 734 cycles with the SM's detector alone */
  ck_assert_uint_gt(run_both("config/gpus/h100.yaml", kernel, seven), 60000);
  const char *const three[] = {"tpb=96", NULL};
  /* 46 160 of 186 577 cycles, by the SM's detector */
  ck_assert_uint_ge(run_both("config/gpus/h100.yaml", kernel, three), 46160);
}
END_TEST

static gboolean
quiet_begin(TraceSink *sink, const TraceInfo *info, GError **error)
{
  return TRUE;
}

static void
quiet_issue(TraceSink *sink, const TraceIssue *i)
{
}

static gboolean
quiet_end(TraceSink *sink, guint64 cycles, GError **error)
{
  return TRUE;
}

/* A trace attached to an SM whose schedulers count apart: the counts so far go into the
 * totals, and every warp counts there from then on (not into the detectors' freed counts). */
START_TEST(test_trace_ends_scheduler_counts)
{
  static const TraceSinkClass quiet = {.instance_size = sizeof(TraceSink),
                                       .begin = quiet_begin,
                                       .issue = quiet_issue,
                                       .end = quiet_end};
  const char *const sets[] = {"other=MUFU.RSQ", "alpha=4", "warps_per_sm=22", "groups=50", NULL};
  SmStats stats[2];
  for (guint traced = 0; traced < 2; traced++) {
    TestRun *run = test_run_new("config/gpus/h100.yaml", "isa/kernels/mix.yaml", sets);
    TraceSink sink = {.klass = &quiet};
    if (traced)
      ck_assert(sm_attach_trace(run->sm, &sink, NULL));
    sm_run(run->sm);
    stats[traced] = *sm_stats(run->sm);
    test_run_free(run);
  }
  ck_assert_uint_gt(stats[0].fast_forward_cycles, 0);
  ck_assert_uint_eq(stats[1].fast_forward_cycles, 0);
  ck_assert_uint_eq(stats[1].issued, 22 * 50 * 5);
  test_assert_same_counts(&stats[0], &stats[1], "traced");
}
END_TEST

static void
count_calls(const SmGpu *sm, gpointer data)
{
  (void)sm;
  (*(guint *)data)++;
}

START_TEST(test_progress_calls_change_nothing)
{
  const char *const sets[] = {"blocks=8", "iters=800", NULL};
  SmStats stats[2];
  guint calls = 0;
  for (guint watched = 0; watched < 2; watched++) {
    TestRun *run = test_run_new("config/gpus/h100.yaml", "bench/waves.yaml", sets);
    if (watched)
      sm_set_progress(run->sm, count_calls, &calls);
    sm_run(run->sm);
    stats[watched] = *sm_stats(run->sm);
    test_run_free(run);
  }
  ck_assert_uint_ge(calls, stats[1].visited_cycles / 4096);
  ck_assert_uint_gt(calls, 0);
  ck_assert(memcmp(&stats[0], &stats[1], sizeof stats[0]) == 0);
}
END_TEST

/* Random deterministic settings on every shipped GPU (fixed seed): the same counters with and
 * without jumps, whatever the kernel, policy, occupancy and loop shape. */
START_TEST(test_random_settings_fast_forward_exactly)
{
  static const char *const gpus[] = {"h100", "maxwell", "fermi", "kepler", "toy-fig47"};
  static const char *const others[] = {"none", "LDS", "MUFU.RSQ"};
  static const char *const policies[] = {"lrr", "gto", "oldest", "two_level", "last_resumed"};
  static const char *const priorities[] = {"none", "oldest", "youngest"};
  GRand *rand = g_rand_new_with_seed(20261122);
  guint jumped = 0, runs = 24;
  for (guint i = 0; i < runs; i++) {
    g_autofree char *gpu =
        g_strdup_printf("config/gpus/%s.yaml", gpus[g_rand_int_range(rand, 0, G_N_ELEMENTS(gpus))]);
    g_autoptr(GPtrArray) sets = g_ptr_array_new_with_free_func(g_free);
    const char *kernel;
    switch (g_rand_int_range(rand, 0, 3)) {
    case 0:
      kernel = "isa/kernels/mix.yaml";
      g_ptr_array_add(sets, g_strdup_printf("other=%s", others[g_rand_int_range(rand, 0, 3)]));
      g_ptr_array_add(sets, g_strdup_printf("alpha=%d", g_rand_int_range(rand, 0, 17)));
      g_ptr_array_add(sets, g_strdup_printf("ilp=%d", g_rand_int_range(rand, 1, 4)));
      g_ptr_array_add(sets, g_strdup_printf("unroll=%d", g_rand_int_range(rand, 1, 5)));
      g_ptr_array_add(sets, g_strdup_printf("loop_overhead=%d", g_rand_int_range(rand, 0, 2)));
      g_ptr_array_add(sets, g_strdup_printf("warps_per_sm=%d", g_rand_int_range(rand, 1, 49)));
      g_ptr_array_add(sets, g_strdup("groups=300"));
      break;
    case 1:
      kernel = "isa/kernels/banks.yaml";
      g_ptr_array_add(sets, g_strdup_printf("stride=%d", g_rand_int_range(rand, 0, 9)));
      g_ptr_array_add(sets, g_strdup_printf("warps_per_sm=%d", g_rand_int_range(rand, 1, 17)));
      g_ptr_array_add(sets, g_strdup("iters=150"));
      break;
    default:
      kernel = "isa/kernels/divergence.yaml";
      g_ptr_array_add(sets, g_strdup_printf("ways=%d", g_rand_int_range(rand, 1, 6)));
      g_ptr_array_add(sets, g_strdup_printf("warps_per_sm=%d", g_rand_int_range(rand, 1, 17)));
      g_ptr_array_add(sets, g_strdup("work=8"));
      g_ptr_array_add(sets, g_strdup("iters=150"));
      break;
    }
    const char *policy = policies[g_rand_int_range(rand, 0, 5)];
    g_ptr_array_add(sets, g_strdup_printf("policy=%s", policy));
    if (strcmp(policy, "last_resumed") == 0)
      g_ptr_array_add(sets, g_strdup_printf("resume_window=%u", i % 3 * 64));
    g_ptr_array_add(sets,
                    g_strdup_printf("block_priority=%s", priorities[g_rand_int_range(rand, 0, 3)]));
    g_ptr_array_add(sets, NULL);
    jumped += run_both(gpu, kernel, (const char *const *)sets->pdata) > 0;
  }
  g_rand_free(rand);
  ck_assert_uint_ge(jumped, runs / 2); /* most of them settle into a period */
}
END_TEST

static Suite *
steady_suite(void)
{
  Suite *s = suite_create("steady");
  TCase *tc = tcase_create("steady");
  tcase_set_timeout(tc, 300);
  tcase_add_loop_test(tc, test_fast_forward_changes_no_number, 0, G_N_ELEMENTS(periodic));
  tcase_add_test(tc, test_barriers_fast_forward_exactly);
  tcase_add_test(tc, test_random_streams_are_stepped_through);
  tcase_add_test(tc, test_jumps_stop_at_the_requested_cycle);
  tcase_add_test(tc, test_random_settings_fast_forward_exactly);
  tcase_add_test(tc, test_long_periods_are_found_by_hash);
  tcase_add_test(tc, test_schedulers_fast_forward_apart);
  tcase_add_test(tc, test_schedulers_fast_forward_apart_between_launches);
  tcase_add_test(tc, test_trace_ends_scheduler_counts);
  tcase_add_test(tc, test_progress_calls_change_nothing);
  suite_add_tcase(s, tc);
  return s;
}

int
main(void)
{
  return test_run_suite(steady_suite());
}
