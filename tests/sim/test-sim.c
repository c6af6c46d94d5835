/* Simulated hardware against hand-checked cycle counts and Little's law. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "helpers.h"

#define TOY "config/gpus/toy-fig47.yaml"
#define MAXWELL "config/gpus/maxwell.yaml"
#define MIX "isa/kernels/mix.yaml"

static double
steady_ipc(const char *gpu, const char *const *sets, guint unit, guint64 from, guint64 to)
{
  TestRun *run = test_run_new(gpu, MIX, sets);
  double ipc = test_window_ipc(run, unit, from, to);
  test_run_free(run);
  return ipc;
}

/* Volkov Figure 4.7: alpha = 4, alu_lat 3, mem_lat 12, alu_thru 1. */
START_TEST(test_fig47_six_warps_sustain_one_fadd_per_cycle)
{
  const char *sets[] = {"warps_per_sm=6", "alpha=4", "groups=1000", NULL};
  /* 2400 cycles of steady state: exactly 2400 FADDs and 600 loads */
  ck_assert_double_eq(steady_ipc(TOY, sets, ISA_UNIT_ALU, 1200, 3600), 1.0);
  ck_assert_double_eq(steady_ipc(TOY, sets, ISA_UNIT_LDST, 1200, 3600), 0.25);
}
END_TEST

START_TEST(test_fig47_five_warps_fall_short)
{
  /* 5 warps x 4 FADDs per 24-cycle group (12 + 4 x 3): 20 FADDs every 24 cycles */
  const char *sets[] = {"warps_per_sm=5", "alpha=4", "groups=1000", NULL};
  ck_assert_double_eq_tol(steady_ipc(TOY, sets, ISA_UNIT_ALU, 1200, 3600), 20.0 / 24.0, 1e-9);
}
END_TEST

START_TEST(test_fig47_three_warps_suffice_without_memory)
{
  const char *three[] = {"warps_per_sm=3", "other=none", "alpha=100", "groups=100", NULL};
  const char *two[] = {"warps_per_sm=2", "other=none", "alpha=100", "groups=100", NULL};
  ck_assert_double_eq(steady_ipc(TOY, three, ISA_UNIT_ALU, 300, 3300), 1.0);
  ck_assert_double_eq_tol(steady_ipc(TOY, two, ISA_UNIT_ALU, 300, 3300), 2.0 / 3.0, 1e-9);
}
END_TEST

/* Maxwell with one memory channel and deterministic service: Volkov's model limits. */
START_TEST(test_maxwell_alpha_infinity_is_min_of_latency_and_throughput_bound)
{
  for (guint n = 1; n <= 64; n++) {
    g_autofree char *w = g_strdup_printf("warps_per_sm=%u", n);
    const char *sets[] = {w, "other=none", "alpha=1000", "groups=10", NULL};
    double ipc = steady_ipc(MAXWELL, sets, ISA_UNIT_COUNT, 600, 3600);
    double model = MIN(n / 6.0, 4.0);
    ck_assert_msg(fabs(ipc - model) <= 0.01 * model, "n=%u: simulated %.4f, model %.4f", n, ipc,
                  model);
  }
}
END_TEST

START_TEST(test_maxwell_alpha_zero_is_min_of_latency_and_bandwidth_bound)
{
  double mem_thru = 10.42 / 128;
  for (guint n = 1; n <= 64; n++) {
    g_autofree char *w = g_strdup_printf("warps_per_sm=%u", n);
    const char *sets[] = {w,
                          "alpha=0",
                          "groups=1000",
                          "memory.dram.channels=1",
                          "memory.dram.service=deterministic",
                          NULL};
    double ipc = steady_ipc(MAXWELL, sets, ISA_UNIT_COUNT, 4000, 4000 + 368 * 100);
    double model = MIN(n / 368.0, mem_thru);
    ck_assert_msg(fabs(ipc - model) <= 0.01 * model, "n=%u: simulated %.5f, model %.5f", n, ipc,
                  model);
  }
}
END_TEST

START_TEST(test_ilp_k_chains_need_one_kth_of_the_warps)
{
  /* one chain needs 24 warps (6 per scheduler) for 4 IPC; k chains need 24/k */
  const guint ks[] = {1, 2, 3, 6};
  for (guint i = 0; i < G_N_ELEMENTS(ks); i++) {
    guint k = ks[i], n = 24 / k;
    g_autofree char *ilp = g_strdup_printf("ilp=%u", k);
    g_autofree char *w = g_strdup_printf("warps_per_sm=%u", n);
    g_autofree char *fewer = g_strdup_printf("warps_per_sm=%u", n - 4);
    const char *enough[] = {w, ilp, "other=none", "alpha=200", "groups=10", NULL};
    const char *short_[] = {fewer, ilp, "other=none", "alpha=200", "groups=10", NULL};
    ck_assert_double_eq_tol(steady_ipc(MAXWELL, enough, ISA_UNIT_ALU, 600, 3600), 4.0, 0.01);
    if (n > 4) {
      double expect = 4.0 * (n - 4) / n;
      ck_assert_double_eq_tol(steady_ipc(MAXWELL, short_, ISA_UNIT_ALU, 600, 3600), expect, 0.01);
    }
  }
}
END_TEST

static TestRun *
run_stream(const char *gpu, const char *stream, guint warps)
{
  g_autofree char *text =
      g_strdup_printf("name: t\nwarps_per_sm: %u\nstream: |\n%s", warps, stream);
  g_autofree char *path = test_write_temp("kernel.yaml", text);
  TestRun *run = test_run_new(gpu, path, NULL);
  sm_run(run->sm);
  return run;
}

START_TEST(test_sfu_latency_depends_on_the_consumer)
{
  /* Maxwell: MUFU.RSQ feeds an SFU op after 13 cycles, a CUDA-core op after 9 */
  TestRun *a = run_stream(MAXWELL, "  repeat 100 {\n    MUFU.RSQ R1, R1\n  }\n", 1);
  ck_assert_uint_eq(sm_stats(a->sm)->cycles, 100 * 13);
  test_run_free(a);
  TestRun *b =
      run_stream(MAXWELL, "  repeat 100 {\n    MUFU.RSQ R1, R1\n    FADD R1, R1, R2\n  }\n", 1);
  /* 9 (SFU -> ALU) + 6 (ALU -> SFU) per iteration */
  ck_assert_uint_eq(sm_stats(b->sm)->cycles, 100 * (9 + 6));
  test_run_free(b);
}
END_TEST

START_TEST(test_issue_cost_and_pipe_width_limit_sfu_throughput)
{
  /* 8 SFU lanes per scheduler: one MUFU per 4 cycles per scheduler whatever the warps; with
   * 2 issue cycles each an independent FADD can still issue in between */
  TestRun *a = run_stream(MAXWELL, "  repeat 200 {\n    MUFU.RSQ R1, R2\n  }\n", 64);
  const SmStats *s = sm_stats(a->sm);
  ck_assert_double_eq_tol((double)s->issued / s->cycles, 1.0, 0.01);
  ck_assert(s->state_cycles[SM_STATE_MATH_PIPE_THROTTLE] > s->state_cycles[SM_STATE_SELECTED]);
  test_run_free(a);
}
END_TEST

START_TEST(test_taken_branches_cost_their_fetch)
{
  /* one warp, ALU latency 4: IADD3 at 0, ISETP waits for R6 (4), BRA for P1 (8): 9 cycles an
   * iteration; the third BRA issues at 26 and completes at 30.  Each taken branch (the first
   * two; the last falls through) adds taken_cycles. */
  g_autofree char *gpu = test_write_temp("g.yaml", "schedulers: 1\nunits:\n  alu: "
                                                   "{latency_cycles: 4}\nmemory:\n  dram: "
                                                   "{latency_cycles: 100, bytes_per_cycle: 16}\n");
  g_autofree char *kernel = test_write_temp(
      "k.yaml", "name: loop\nwarps_per_sm: 1\nstream: |\n  repeat 3 {\n    IADD3 R6, R6, R0, "
                "R0\n    ISETP P1, R6, R0\n    @P1 BRA\n  }\n");
  const guint64 expect[] = {30, 30 + 2 * 5};
  const char *sets[][2] = {{"branch.taken_cycles=0", NULL}, {"branch.taken_cycles=5", NULL}};
  for (guint i = 0; i < 2; i++) {
    TestRun *run = test_run_new(gpu, kernel, sets[i]);
    sm_run(run->sm);
    ck_assert_uint_eq(sm_stats(run->sm)->cycles, expect[i]);
    ck_assert_uint_eq(sm_stats(run->sm)->issued_op[ISA_OP_BRA], 3);
    test_run_free(run);
  }
}
END_TEST

/* The loop's MOVs: an independent one (loop_movs) issues while the chain waits, one that copies
 * the chain's register (chain_movs) lengthens the chain by its latency once an iteration. */
START_TEST(test_a_mov_on_the_chain_costs_its_latency_each_iteration)
{
  /* one warp on Maxwell (ALU latency 6): 2 iterations of 16 groups of 16 dependent FADDs */
  const guint64 expect[] = {512 * 6, 512 * 6 + 1, 512 * 6 + 2 * 6, 512 * 6 + 2 * 6};
  const char *const sets[][10] = {
      {"other=none", "alpha=16", "warps_per_sm=1", "groups=32", "unroll=16", NULL},
      {"other=none", "alpha=16", "warps_per_sm=1", "groups=32", "unroll=16", "loop_movs=1", NULL},
      {"other=none", "alpha=16", "warps_per_sm=1", "groups=32", "unroll=16", "chain_movs=1", NULL},
      {"other=none", "alpha=16", "warps_per_sm=1", "groups=32", "unroll=16", "chain_movs=1",
       "loop_movs=1", NULL}};
  for (guint i = 0; i < G_N_ELEMENTS(expect); i++) {
    TestRun *run = test_run_new(MAXWELL, MIX, sets[i]);
    sm_run(run->sm);
    ck_assert_uint_eq(sm_stats(run->sm)->cycles, expect[i]);
    ck_assert_uint_eq(sm_stats(run->sm)->issued_op[ISA_OP_MOV], i == 0 ? 0 : i == 3 ? 4 : 2);
    test_run_free(run);
  }
}
END_TEST

/* One scheduler (its write ports set by the test), a 6-cycle shared memory; one warp's shared
 * load @lds, then two independent FADDs and one after the second. */
static const char wb_gpu[] = "schedulers: 1\nunits:\n  alu: {latency_cycles: 4}\nshared_memory: "
                             "{latency_cycles: 6}\nmemory:\n  dram: {latency_cycles: 100, "
                             "bytes_per_cycle: 16}\n";

static char *
wb_kernel(const char *lds)
{
  g_autofree char *text = g_strdup_printf("name: wb\nwarps_per_sm: 1\nstream: |\n  %s R1, [R2]\n"
                                          "  FADD R3, R4, R5\n  FADD R6, R4, R5\n"
                                          "  FADD R7, R6, R5\n",
                                          lds);
  return test_write_temp("k.yaml", text);
}

START_TEST(test_a_shared_load_result_takes_the_write_port_an_fadd_wanted)
{
  /* one scheduler, one write port: LDS at 0 writes back at 6; the FADD ready at 2 would also
   * write at 6, so it waits a cycle (dispatch_stall) and its consumer follows: 11 cycles, 10
   * with unlimited ports */
  g_autofree char *gpu = test_write_temp("g.yaml", wb_gpu);
  g_autofree char *kernel = wb_kernel("LDS");
  const char *one[] = {"register_write_ports=1", NULL}, *none[] = {"register_write_ports=0", NULL};
  TestRun *a = test_run_new(gpu, kernel, one), *b = test_run_new(gpu, kernel, none);
  sm_run(a->sm);
  sm_run(b->sm);
  ck_assert_uint_eq(sm_stats(a->sm)->cycles, 11);
  ck_assert_uint_eq(sm_stats(a->sm)->state_cycles[SM_STATE_DISPATCH_STALL], 1);
  ck_assert_uint_eq(sm_stats(b->sm)->cycles, 10);
  ck_assert_uint_eq(sm_stats(b->sm)->state_cycles[SM_STATE_DISPATCH_STALL], 0);
  test_run_free(a);
  test_run_free(b);
}
END_TEST

START_TEST(test_a_wide_shared_load_result_holds_the_write_port_longer)
{
  /* one scheduler, one write port: LDS.128 (16 bytes a lane, 4 bank passes) at 0 writes back
   * at 9; the last FADD, ready at 6, would write at 10.  A port taking 16 bytes a lane a cycle
   * (or any result in one: 0) leaves 10 free: 10 cycles.  8 bytes: the result holds 9 and 10,
   * the FADD waits a cycle (dispatch_stall), 11 cycles; 4 bytes: 9 to 12, three, 13 cycles */
  g_autofree char *gpu = test_write_temp("g.yaml", wb_gpu);
  g_autofree char *kernel = wb_kernel("LDS.128");
  const char *bytes[] = {"register_write_bytes=0", "register_write_bytes=16",
                         "register_write_bytes=8", "register_write_bytes=4"};
  const guint64 cycles[] = {10, 10, 11, 13}, stalls[] = {0, 0, 1, 3};
  for (guint i = 0; i < G_N_ELEMENTS(bytes); i++) {
    const char *set[] = {"register_write_ports=1", bytes[i], NULL};
    TestRun *run = test_run_new(gpu, kernel, set);
    sm_run(run->sm);
    ck_assert_uint_eq(sm_stats(run->sm)->cycles, cycles[i]);
    ck_assert_uint_eq(sm_stats(run->sm)->state_cycles[SM_STATE_DISPATCH_STALL], stalls[i]);
    test_run_free(run);
  }
}
END_TEST

START_TEST(test_latencies_drawn_from_a_histogram)
{
  /* 100 cycles with weight 1, 300 with weight 3: mean 250, and every load takes one or the
   * other; one warp of 2000 dependent loads */
  g_autofree char *gpu = test_write_temp(
      "g.yaml", "schedulers: 1\nmemory:\n  dram: {bytes_per_cycle: 16, latency_histogram: "
                "[[100, 1], [300, 3]]}\n");
  g_autofree char *kernel = test_write_temp(
      "k.yaml", "name: chase\nwarps_per_sm: 1\nstream: |\n  repeat 2000 { LDG R1, [R1] }\n");
  TestRun *run = test_run_new(gpu, kernel, NULL);
  ck_assert_uint_eq(run->gpu->memory.levels[0].latency_cycles, 250);
  sm_run(run->sm);
  const SmStats *s = sm_stats(run->sm);
  double mean = (double)s->global_load_latency / (double)s->global_loads;
  printf("histogram latencies: mean %.1f over %" G_GUINT64_FORMAT " loads\n", mean,
         s->global_loads);
  ck_assert_double_eq_tol(mean, 250, 10); /* sd of the mean: 86.6 / sqrt(2000) = 1.9 */
  /* every latency is 100 or 300: the total is 100 a + 300 (2000 - a) for a whole a */
  guint64 total = s->global_load_latency;
  ck_assert_uint_eq((300 * 2000 - total) % 200, 0);
  test_run_free(run);
  /* latency_cycles moves the whole distribution: 1100 or 1300, mean 1250 */
  const char *sets[] = {"memory.dram.latency_cycles=1250", NULL};
  run = test_run_new(gpu, kernel, sets);
  sm_run(run->sm);
  s = sm_stats(run->sm);
  ck_assert_double_eq_tol((double)s->global_load_latency / (double)s->global_loads, 1250, 10);
  ck_assert_uint_eq((1300 * 2000 - s->global_load_latency) % 200, 0);
  test_run_free(run);
}
END_TEST

START_TEST(test_idle_cycles_are_skipped)
{
  /* 1 warp, 10^4 dependent loads at latency 10^4: 10^8 cycles, visited about twice per load */
  const char *sets[] = {"warps_per_sm=1", "alpha=0", "groups=10000",
                        "memory.dram.latency_cycles=10000", NULL};
  TestRun *run = test_run_new(MAXWELL, MIX, sets);
  sm_run(run->sm);
  const SmStats *s = sm_stats(run->sm);
  ck_assert_uint_eq(s->cycles, 100000000);
  ck_assert_uint_eq(s->issued, 10000);
  ck_assert_uint_le(s->visited_cycles, 3 * 10000);
  ck_assert_double_eq(s->global_load_latency / (double)s->global_loads, 10000);
  test_run_free(run);
}
END_TEST

START_TEST(test_every_warp_cycle_has_exactly_one_state)
{
  const char *sets[] = {"warps_per_sm=37", "alpha=3", "groups=50", NULL};
  TestRun *run = test_run_new(MAXWELL, MIX, sets);
  sm_run(run->sm);
  const SmStats *s = sm_stats(run->sm);
  guint64 sum = 0;
  for (guint i = 0; i < SM_STATE_COUNT; i++)
    sum += s->state_cycles[i];
  ck_assert_uint_eq(sum, (guint64)37 * s->cycles);
  /* single issue: one selected warp-cycle per instruction */
  ck_assert_uint_eq(s->state_cycles[SM_STATE_SELECTED], s->issued);
  ck_assert_uint_eq(s->issued, 37 * 50 * 4);
  ck_assert(s->state_cycles[SM_STATE_LONG_SCOREBOARD] > s->state_cycles[SM_STATE_WAIT]);
  test_run_free(run);
}
END_TEST

START_TEST(test_outstanding_cap_throttles_loads)
{
  const char *sets[] = {"warps_per_sm=64",           "alpha=0", "pattern=random", "groups=20",
                        "memory.max_outstanding=64", NULL};
  TestRun *run = test_run_new(MAXWELL, MIX, sets);
  sm_run(run->sm);
  const SmStats *s = sm_stats(run->sm);
  ck_assert_uint_le(s->peak_outstanding, 64);
  ck_assert_uint_eq(s->transactions[0], 64 * 20 * 32);
  ck_assert(s->state_cycles[SM_STATE_LG_THROTTLE] > s->state_cycles[SM_STATE_LONG_SCOREBOARD]);
  test_run_free(run);
}
END_TEST

START_TEST(test_same_input_gives_identical_counters)
{
  const char *sets[] = {"warps_per_sm=48", "alpha=2", "groups=40",
                        "memory.dram.service=exponential", NULL};
  TestRun *a = test_run_new(MAXWELL, MIX, sets);
  TestRun *b = test_run_new(MAXWELL, MIX, sets);
  sm_run(a->sm);
  sm_run(b->sm);
  ck_assert(memcmp(sm_stats(a->sm), sm_stats(b->sm), sizeof(SmStats)) == 0);
  const char *seed[] = {"warps_per_sm=48", "alpha=2",
                        "groups=40",       "memory.dram.service=exponential",
                        "memory.seed=7",   NULL};
  TestRun *c = test_run_new(MAXWELL, MIX, seed);
  sm_run(c->sm);
  ck_assert_uint_ne(sm_stats(a->sm)->cycles, sm_stats(c->sm)->cycles);
  test_run_free(a);
  test_run_free(b);
  test_run_free(c);
}
END_TEST

START_TEST(test_stride_and_random_patterns_cost_transactions)
{
  const char *stride[] = {"warps_per_sm=4", "alpha=0", "pattern=stride2", "groups=10", NULL};
  TestRun *a = test_run_new(MAXWELL, MIX, stride);
  sm_run(a->sm);
  ck_assert_uint_eq(sm_stats(a->sm)->transactions[0], 4 * 10 * 2);
  ck_assert_uint_eq(sm_stats(a->sm)->bytes[0], 4 * 10 * 256);
  test_run_free(a);
  const char *random[] = {"warps_per_sm=4", "alpha=0",  "pattern=random",
                          "groups=10",      "level=l2", NULL};
  TestRun *b = test_run_new(MAXWELL, MIX, random);
  sm_run(b->sm);
  ck_assert_uint_eq(sm_stats(b->sm)->transactions[0], 0);
  ck_assert_uint_eq(sm_stats(b->sm)->transactions[1], 4 * 10 * 32);
  ck_assert_uint_eq(sm_stats(b->sm)->bytes[1], 4 * 10 * 32 * 32);
  test_run_free(b);
}
END_TEST

START_TEST(test_dual_issue_pairs_independent_instructions_of_one_warp)
{
  /* Kepler: a FADD chain (latency 9) with an independent MUFU beside each FADD; the MUFU goes
   * to the SFU in the same cycle: 2 instructions per 9 cycles, one selected cycle per pair.
   * Two MUFU destinations alternate so each is rewritten exactly when ready (18 cycles). */
  TestRun *a = run_stream("config/gpus/kepler.yaml",
                          "  repeat 250 {\n    FADD R1, R1, R9\n    MUFU.RSQ R2, R9\n"
                          "    FADD R1, R1, R9\n    MUFU.RSQ R3, R9\n  }\n",
                          1);
  const SmStats *s = sm_stats(a->sm);
  ck_assert_uint_eq(s->issued, 1000);
  ck_assert_uint_eq(s->state_cycles[SM_STATE_SELECTED], 500);
  ck_assert_uint_eq(s->cycles, 499 * 9 + 18); /* last pair at 4491, MUFU result 18 later */
  test_run_free(a);
  /* single issue on Maxwell: the same stream takes one cycle per instruction */
  TestRun *b = run_stream(MAXWELL,
                          "  repeat 250 {\n    FADD R1, R1, R9\n    MUFU.RSQ R2, R9\n"
                          "    FADD R1, R1, R9\n    MUFU.RSQ R3, R9\n  }\n",
                          1);
  ck_assert_uint_eq(sm_stats(b->sm)->state_cycles[SM_STATE_SELECTED], 1000);
  test_run_free(b);
}
END_TEST

static Suite *
sim_suite(void)
{
  Suite *s = suite_create("sim");
  TCase *fig = tcase_create("figure 4.7");
  tcase_add_test(fig, test_fig47_six_warps_sustain_one_fadd_per_cycle);
  tcase_add_test(fig, test_fig47_five_warps_fall_short);
  tcase_add_test(fig, test_fig47_three_warps_suffice_without_memory);
  suite_add_tcase(s, fig);
  TCase *lim = tcase_create("limits");
  tcase_add_test(lim, test_maxwell_alpha_infinity_is_min_of_latency_and_throughput_bound);
  tcase_add_test(lim, test_maxwell_alpha_zero_is_min_of_latency_and_bandwidth_bound);
  tcase_add_test(lim, test_ilp_k_chains_need_one_kth_of_the_warps);
  suite_add_tcase(s, lim);
  TCase *units = tcase_create("units");
  tcase_add_test(units, test_sfu_latency_depends_on_the_consumer);
  tcase_add_test(units, test_issue_cost_and_pipe_width_limit_sfu_throughput);
  tcase_add_test(units, test_outstanding_cap_throttles_loads);
  tcase_add_test(units, test_stride_and_random_patterns_cost_transactions);
  tcase_add_test(units, test_dual_issue_pairs_independent_instructions_of_one_warp);
  tcase_add_test(units, test_taken_branches_cost_their_fetch);
  tcase_add_test(units, test_a_mov_on_the_chain_costs_its_latency_each_iteration);
  tcase_add_test(units, test_a_shared_load_result_takes_the_write_port_an_fadd_wanted);
  tcase_add_test(units, test_a_wide_shared_load_result_holds_the_write_port_longer);
  tcase_add_test(units, test_latencies_drawn_from_a_histogram);
  suite_add_tcase(s, units);
  TCase *eng = tcase_create("engine");
  tcase_add_test(eng, test_idle_cycles_are_skipped);
  tcase_add_test(eng, test_every_warp_cycle_has_exactly_one_state);
  tcase_add_test(eng, test_same_input_gives_identical_counters);
  suite_add_tcase(s, eng);
  return s;
}

int
main(void)
{
  return test_run_suite(sim_suite());
}
