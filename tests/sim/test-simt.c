/* SIMT divergence and reconvergence, divergence metrics, and the oldest and two_level policies:
 * exact cycles and issue orders on toy GPUs, checked by hand. */
#include <check.h>
#include <math.h>
#include <string.h>

#include "helpers.h"
#include "trace.h"

/* One scheduler, CUDA-core latency 4, one warp-instruction per cycle, no block launch delay. */
static const char toy_gpu[] = "name: toy\nschedulers: 1\nblock_launch_cycles: 0\nunits:\n"
                              "  alu: {latency_cycles: 4}\n  ldst: {lanes_per_scheduler: 32}\n"
                              "memory:\n  dram: {latency_cycles: 10, bytes_per_cycle: inf}\n";

/* A trace sink that keeps every issue. */
typedef struct {
  TraceSink base;
  GArray *issues; /* TraceIssue */
} Recorder;

static gboolean
rec_begin(TraceSink *sink, const TraceInfo *info, GError **error)
{
  return TRUE;
}

static void
rec_issue(TraceSink *sink, const TraceIssue *i)
{
  g_array_append_val(((Recorder *)sink)->issues, *i);
}

static gboolean
rec_end(TraceSink *sink, guint64 cycles, GError **error)
{
  return TRUE;
}

static const TraceSinkClass rec_class = {
    .instance_size = sizeof(Recorder), .begin = rec_begin, .issue = rec_issue, .end = rec_end};

typedef struct {
  TestRun *run;
  Recorder rec;
} Traced;

static Traced *
run_traced(const char *kernel_text, const char *const *sets)
{
  g_autofree char *gpu = test_write_temp("toy.yaml", toy_gpu);
  g_autofree char *kernel = test_write_temp("k.yaml", kernel_text);
  Traced *t = g_new0(Traced, 1);
  t->run = test_run_new(gpu, kernel, sets);
  t->rec.base.klass = &rec_class;
  t->rec.issues = g_array_new(FALSE, FALSE, sizeof(TraceIssue));
  ck_assert(sm_attach_trace(t->run->sm, &t->rec.base, NULL));
  sm_run(t->run->sm);
  return t;
}

static void
traced_free(Traced *t)
{
  g_array_free(t->rec.issues, TRUE);
  test_run_free(t->run);
  g_free(t);
}

/* "cycle:warp" of every issue, space-separated. */
static char *
issue_order(const Traced *t)
{
  GString *s = g_string_new(NULL);
  for (guint i = 0; i < t->rec.issues->len; i++) {
    const TraceIssue *x = &g_array_index(t->rec.issues, TraceIssue, i);
    g_string_append_printf(s, "%s%" G_GUINT64_FORMAT ":%u", i ? " " : "", x->cycle, x->warp);
  }
  return g_string_free(s, FALSE);
}

static const char two_way[] = "name: k\nwarps_per_sm: 1\nstream: |\n"
                              "  ISETP P0, $lane < 16\n"
                              "  BSSY B0, join\n"
                              "  @P0 BRA taken\n"
                              "  FFMA R1, R1, R2, R3\n"
                              "  FFMA R1, R1, R2, R3\n"
                              "  BRA join\n"
                              "  taken: FFMA R4, R4, R2, R3\n"
                              "  FFMA R4, R4, R2, R3\n"
                              "  join: BSYNC B0\n"
                              "  FADD R5, R1, R4\n";

START_TEST(test_two_way_branch_runs_both_paths_then_reconverges)
{
  /* ISETP at 0 (P0 at 4), BSSY 1, the BRA waits for P0: 4.  Lanes 16-31 fall through: FFMA 5
   * and 9 (dependent), BRA join 10, BSYNC 11 (half the lanes: switch to the deferred path),
   * lanes 0-15: FFMA 12 and 16, BSYNC 17 (all arrived), FADD waits for R4: 20, done at 24 */
  Traced *t = run_traced(two_way, NULL);
  const SmStats *s = sm_stats(t->run->sm);
  ck_assert_uint_eq(s->cycles, 24);
  g_autofree char *order = issue_order(t);
  ck_assert_str_eq(order, "0:0 1:0 4:0 5:0 9:0 10:0 11:0 12:0 16:0 17:0 20:0");
  static const guint32 masks[] = {~0u,         ~0u,         ~0u,         0xffff0000u,
                                  0xffff0000u, 0xffff0000u, 0xffff0000u, 0x0000ffffu,
                                  0x0000ffffu, 0x0000ffffu, ~0u};
  for (guint i = 0; i < G_N_ELEMENTS(masks); i++)
    ck_assert_uint_eq(g_array_index(t->rec.issues, TraceIssue, i).mask, masks[i]);
  /* 3 x 32 + 8 x 16 + 32 thread-instructions of 11 x 32 lanes; 2 branches, 1 divergent */
  ck_assert_uint_eq(s->issued, 11);
  ck_assert_uint_eq(s->thread_instructions, 3 * 32 + 7 * 16 + 32);
  ck_assert_uint_eq(s->branches, 2);
  ck_assert_uint_eq(s->divergent_branches, 1);
  SmSummary m;
  sm_summary_compute(s, &m);
  ck_assert_double_eq_tol(m.simt_efficiency, 240.0 / 352, 1e-12);
  ck_assert_double_eq_tol(m.branch_divergence, 50.0, 1e-12);
  ck_assert_double_eq_tol(m.control_flow_divergence, 100.0 * 112 / 352, 1e-12);
  traced_free(t);
}
END_TEST

START_TEST(test_branch_and_barrier_costs_are_gpu_keys)
{
  /* the two-way branch above with costs: taken_cycles 3 delays the BRA to join (10) and the
   * switch to the deferred path at BSYNC: BSYNC 14, FFMA 18 and 22, BSYNC 23, FADD 26, done
   * 30.  bsync_cycles 5 delays what follows the BSYNC that releases the lanes (17): FADD 23,
   * done 27; the BSYNC that leaves lanes waiting (11) costs a redirect only.
   * divergent_cycles 3 delays what follows the divergent BRA (4): FFMA 8 and 12, BRA 13, BSYNC
   * 14, FFMA 15 and 19, BSYNC 20, FADD 23, done 27. */
  const char *taken[] = {"branch.taken_cycles=3", NULL}, *bsync[] = {"branch.bsync_cycles=5", NULL},
             *divergent[] = {"branch.divergent_cycles=3", NULL};
  Traced *a = run_traced(two_way, taken), *b = run_traced(two_way, bsync),
         *c = run_traced(two_way, divergent);
  ck_assert_uint_eq(sm_stats(a->run->sm)->cycles, 30);
  ck_assert_uint_eq(sm_stats(b->run->sm)->cycles, 27);
  ck_assert_uint_eq(sm_stats(c->run->sm)->cycles, 27);
  g_autofree char *oa = issue_order(a), *ob = issue_order(b), *oc = issue_order(c);
  ck_assert_str_eq(oa, "0:0 1:0 4:0 5:0 9:0 10:0 14:0 18:0 22:0 23:0 26:0");
  ck_assert_str_eq(ob, "0:0 1:0 4:0 5:0 9:0 10:0 11:0 12:0 16:0 17:0 23:0");
  ck_assert_str_eq(oc, "0:0 1:0 4:0 8:0 12:0 13:0 14:0 15:0 19:0 20:0 23:0");
  traced_free(a);
  traced_free(b);
  traced_free(c);
}
END_TEST

START_TEST(test_uniform_branch_needs_no_region)
{
  /* P1 compares registers: the same in every lane, so its branches need no BSSY.  ISETP 0 (P1
   * at 4); @!P1 BRA L issues at 4 and no lane takes it: not_taken_cycles 2, FFMA at 7; @P1 BRA
   * M at 8, every lane takes it: taken_cycles 3, the FADD after it is skipped, FADD at M 12,
   * done 16.  Under a lane predicate the same branch is refused (test-asm.c). */
  const char *sets[] = {"branch.not_taken_cycles=2", "branch.taken_cycles=3", NULL};
  Traced *t = run_traced("name: k\nwarps_per_sm: 1\nstream: |\n  ISETP P1, R1, R2\n"
                         "  @!P1 BRA L\n  L: FFMA R3, R3, R4, R5\n  @P1 BRA M\n"
                         "  FADD R6, R6, R7\n  M: FADD R8, R8, R9\n",
                         sets);
  const SmStats *s = sm_stats(t->run->sm);
  ck_assert_uint_eq(s->cycles, 16);
  g_autofree char *order = issue_order(t);
  ck_assert_str_eq(order, "0:0 4:0 7:0 8:0 12:0");
  ck_assert_uint_eq(s->branches, 2);
  ck_assert_uint_eq(s->divergent_branches, 0);
  traced_free(t);
}
END_TEST

START_TEST(test_32_way_branch_serialises_every_lane)
{
  /* per lane j: ISETP t (P0 at t+4), BSSY t+1, BRA t+4 (lane j falls through; the other 31 jump
   * to L, the BSYNC itself), FFMA t+5, BSYNC t+6: the 31 lanes waiting at L join lane j there
   * and it issues once for all 32, reconverged (as a SASS warp runs its lanes at the lowest
   * program counter together): 7 cycles a lane; the last BSYNC (at 31 x 7 + 6) completes like
   * any CUDA-core instruction, 4 cycles later */
  Traced *t = run_traced("name: k\nwarps_per_sm: 1\nstream: |\n  for j in 0 .. 31 {\n"
                         "    ISETP P0, $lane != $j\n    BSSY B0, L\n    @P0 BRA L\n"
                         "    FFMA R1, R1, R2, R3\n    L: BSYNC B0\n  }\n",
                         NULL);
  const SmStats *s = sm_stats(t->run->sm);
  ck_assert_uint_eq(s->cycles, 31 * 7 + 6 + 4);
  ck_assert_uint_eq(s->issued, 32 * 5);
  ck_assert_uint_eq(s->thread_instructions, 32 * (3 * 32 + 1 + 32));
  ck_assert_uint_eq(s->divergent_branches, 32);
  /* every FFMA ran with one lane, every BSYNC with all 32 */
  for (guint i = 0; i < t->rec.issues->len; i++) {
    const TraceIssue *x = &g_array_index(t->rec.issues, TraceIssue, i);
    if (x->op == ISA_OP_FFMA)
      ck_assert_int_eq(__builtin_popcount(x->mask), 1);
    if (x->op == ISA_OP_BSYNC)
      ck_assert_uint_eq(x->mask, 0xffffffffu);
  }
  traced_free(t);
}
END_TEST

/* Nested if/else: at level k lanes split by bit k of the lane number; @work dependent FFMAs in
 * every leaf.  Depth 0 is the uniform case: one leaf, no branches. */
static void
nest(GString *s, guint level, guint depth, guint id, guint work)
{
  if (level == depth) {
    g_string_append_printf(s, "  repeat %u { FFMA R1, R1, R2, R3 }\n", work);
    return;
  }
  g_string_append_printf(s, "  BSSY B%u, J%u_%u\n  @P%u BRA E%u_%u\n", level, level, id, level,
                         level, id);
  nest(s, level + 1, depth, 2 * id, work);
  g_string_append_printf(s, "  BRA J%u_%u\n  E%u_%u:\n", level, id, level, id);
  nest(s, level + 1, depth, 2 * id + 1, work);
  g_string_append_printf(s, "  J%u_%u: BSYNC B%u\n", level, id, level);
}

static char *
nested_kernel(guint depth, guint work)
{
  GString *s = g_string_new("name: k\nwarps_per_sm: 1\nstream: |\n");
  for (guint k = 0; k < depth; k++)
    g_string_append_printf(s, "  ISETP P%u, floor($lane / %u) %% 2 == 1\n", k, 1u << k);
  nest(s, 0, depth, 0, work);
  g_string_append(s, "  FADD R5, R1, R1\n"); /* after every region: all lanes again */
  return g_string_free(s, FALSE);
}

START_TEST(test_nested_depth_three_runs_eight_times_the_work)
{
  g_autofree char *flat = nested_kernel(0, 200), *deep = nested_kernel(3, 200);
  Traced *a = run_traced(flat, NULL), *b = run_traced(deep, NULL);
  const SmStats *sa = sm_stats(a->run->sm), *sb = sm_stats(b->run->sm);
  ck_assert_uint_eq(sa->issued_op[ISA_OP_FFMA], 200);
  ck_assert_uint_eq(sb->issued_op[ISA_OP_FFMA], 8 * 200); /* 8 leaves of 4 lanes */
  /* the same thread work: 32 lanes x 200 FFMAs either way */
  guint64 ffma_threads = 0;
  for (guint i = 0; i < b->rec.issues->len; i++) {
    const TraceIssue *x = &g_array_index(b->rec.issues, TraceIssue, i);
    if (x->op == ISA_OP_FFMA) {
      ck_assert_int_eq(__builtin_popcount(x->mask), 4);
      ffma_threads += 4;
    }
  }
  ck_assert_uint_eq(ffma_threads, 32 * 200);
  ck_assert_uint_eq(sb->divergent_branches, 1 + 2 + 4);
  double ratio = (double)sb->cycles / sa->cycles;
  ck_assert_msg(ratio > 7.9 && ratio < 8.1, "depth 3: %.3f x the uniform time", ratio);
  ck_assert_uint_eq(g_array_index(b->rec.issues, TraceIssue, b->rec.issues->len - 1).mask, ~0u);
  traced_free(a);
  traced_free(b);
}
END_TEST

START_TEST(test_a_branch_taken_with_probability_p)
{
  /* each lane takes the work with probability p: the warp runs it unless no lane does, which
   * happens with probability (1 - p)^32 */
  static const double ps[] = {0.0, 0.02, 0.05, 1.0};
  for (guint i = 0; i < G_N_ELEMENTS(ps); i++) {
    g_autofree char *p = g_strdup_printf("p=%g", ps[i]);
    const char *sets[] = {p, NULL};
    Traced *t = run_traced("name: k\nwarps_per_sm: 1\nparams: {p: 0.5}\nstream: |\n"
                           "  repeat 2000 {\n    ISETP P0, chance(1 - $p)\n    BSSY B0, L\n"
                           "    @P0 BRA L\n    FFMA R1, R1, R2, R3\n    L: BSYNC B0\n  }\n",
                           sets);
    const SmStats *s = sm_stats(t->run->sm);
    double ran = s->issued_op[ISA_OP_FFMA] / 2000.0;
    double expect = 1 - pow(1 - ps[i], 32);
    ck_assert_msg(fabs(ran - expect) < 0.03, "p=%g: work ran in %.3f of iterations, expected %.3f",
                  ps[i], ran, expect);
    traced_free(t);
  }
}
END_TEST

/* Three block slots of one warp; block A (slot 0) is short, so block D launches into slot 0
 * at cycle 8 while B (slot 1) and C (slot 2) run: slot 0 then holds the youngest warp. */
static const char ages[] = "name: ages\nthreads_per_block: 32\nblocks_per_sm: 3\nblocks: 4\n"
                           "block_passes: [1, 3, 3, 3]\nstream: |\n"
                           "  FADD R1, R9, R9\n  FADD R2, R1, R9\n";

START_TEST(test_oldest_gto_and_lrr_orders)
{
  /* 0-2: each slot's first FADD; 4: slot 0's second (A done, retired at 8); 5: slot 1.  At 6
   * slot 1 (its next pass) and slot 2 are ready: lrr takes 2 (after the last, 1), gto and
   * oldest take 1.  At 15 slot 1 (launched at 0) and slot 0 (D, launched at 8) are ready, the
   * last issuer being slot 0: gto stays with it, oldest takes slot 1. */
  const char *lrr[] = {"policy=lrr", NULL}, *gto[] = {"policy=gto", NULL},
             *oldest[] = {"policy=oldest", NULL};
  Traced *a = run_traced(ages, lrr), *b = run_traced(ages, gto), *c = run_traced(ages, oldest);
  g_autofree char *oa = issue_order(a), *ob = issue_order(b), *oc = issue_order(c);
  ck_assert_str_eq(oa, "0:0 1:1 2:2 4:0 5:1 6:2 7:1 8:2 9:0 11:1 12:2 13:0 14:1 15:2 16:0 18:1 "
                       "19:2 20:0 21:0 25:0");
  ck_assert_str_eq(ob, "0:0 1:1 2:2 4:0 5:1 6:1 7:2 8:2 9:0 10:1 11:1 12:2 13:2 14:0 15:0 16:1 "
                       "17:2 19:0 20:0 24:0");
  ck_assert_str_eq(oc, "0:0 1:1 2:2 4:0 5:1 6:1 7:2 8:2 9:0 10:1 11:1 12:2 13:2 14:0 15:1 16:0 "
                       "17:2 20:0 21:0 25:0");
  traced_free(a);
  traced_free(b);
  traced_free(c);
}
END_TEST

/* Two blocks of three warps (slots 0-2 and 3-5), each warp a chain of three dependent FADDs:
 * alone, a block issues three a cycle and then waits for the CUDA-core latency (4). */
static const char two_blocks[] = "name: blocks\nthreads_per_block: 96\nblocks_per_sm: 2\n"
                                 "blocks: 2\nstream: |\n  repeat 3 { FADD R1, R1, R9 }\n";

START_TEST(test_block_priority_issues_one_block_first_in_its_own_round_robin)
{
  const char *none[] = {NULL}, *oldest[] = {"block_priority=oldest", NULL},
             *youngest[] = {"block_priority=youngest", NULL};
  Traced *a = run_traced(two_blocks, none), *b = run_traced(two_blocks, oldest),
         *c = run_traced(two_blocks, youngest);
  g_autofree char *oa = issue_order(a), *ob = issue_order(b), *oc = issue_order(c);
  /* all six warps alike: each issues every sixth cycle */
  ck_assert_str_eq(oa, "0:0 1:1 2:2 3:3 4:4 5:5 6:0 7:1 8:2 9:3 10:4 11:5 12:0 13:1 14:2 15:3 "
                       "16:4 17:5");
  /* the older block issues whenever it can; the other takes the cycles it leaves, its warps
   * in turn (3, 4, 5: its own round-robin place, not the one the older block moved) */
  ck_assert_str_eq(ob, "0:0 1:1 2:2 3:3 4:0 5:1 6:2 7:4 8:0 9:1 10:2 11:5 12:3 13:4 15:5 16:3 "
                       "17:4 19:5");
  ck_assert_str_eq(oc, "0:3 1:4 2:5 3:0 4:3 5:4 6:5 7:1 8:3 9:4 10:5 11:2 12:0 13:1 15:2 16:0 "
                       "17:1 19:2");
  traced_free(a);
  traced_free(b);
  traced_free(c);
}
END_TEST

START_TEST(test_last_resumed_issues_the_warp_back_from_memory_last_first)
{
  /* three warps load at 0, 1, 2 and get their data 10 cycles later; then three independent
   * FADDs each.  lrr takes them in turn; last_resumed takes the warp whose data came last
   * (2 from 12 on) until it is done, then 1, then 0 */
  static const char k[] = "name: k\nwarps_per_sm: 3\nstream: |\n  LDG R1, [R2]\n"
                          "  FADD R3, R1, R9\n  FADD R4, R1, R9\n  FADD R5, R1, R9\n";
  const char *lrr[] = {"policy=lrr", NULL}, *last[] = {"policy=last_resumed", NULL};
  Traced *a = run_traced(k, lrr), *b = run_traced(k, last);
  g_autofree char *oa = issue_order(a), *ob = issue_order(b);
  ck_assert_str_eq(oa, "0:0 1:1 2:2 10:0 11:1 12:2 13:0 14:1 15:2 16:0 17:1 18:2");
  ck_assert_str_eq(ob, "0:0 1:1 2:2 10:0 11:1 12:2 13:2 14:2 15:1 16:1 17:0 18:0");
  /* a resume window of 1 cycle: warps 1 and 2 (back at 11 and 12) take turns, warp 0 (back
   * at 10) waits for both; with 2 cycles all three are equals again, as in lrr */
  const char *w1[] = {"policy=last_resumed", "resume_window=1", NULL},
             *w2[] = {"policy=last_resumed", "resume_window=2", NULL};
  Traced *c = run_traced(k, w1), *d = run_traced(k, w2);
  g_autofree char *oc = issue_order(c), *od = issue_order(d);
  ck_assert_str_eq(oc, "0:0 1:1 2:2 10:0 11:1 12:2 13:1 14:2 15:1 16:2 17:0 18:0");
  ck_assert_str_eq(od, oa);
  traced_free(a);
  traced_free(b);
  traced_free(c);
  traced_free(d);
}
END_TEST

START_TEST(test_two_level_pool_admits_warps_that_wait_on_memory)
{
  /* independent FADDs, pool of 1: a warp stays in the pool until it finishes */
  const char *pool1[] = {"policy=two_level", "two_level_pool=1", NULL};
  Traced *a = run_traced("name: k\nwarps_per_sm: 3\nstream: |\n  FADD R1, R9, R9\n"
                         "  FADD R2, R9, R9\n  FADD R3, R9, R9\n",
                         pool1);
  g_autofree char *oa = issue_order(a);
  ck_assert_str_eq(oa, "0:0 1:0 2:0 3:1 4:1 5:1 6:2 7:2 8:2");
  /* a load: warp 0 issues it at 0 and an independent FADD at 1, then waits on the load
   * (long_scoreboard) and leaves the pool; warp 1 enters at 2.  Data is back after 10 cycles:
   * warp 0 re-enters at 10, warp 1 at 12 */
  Traced *b = run_traced("name: k\nwarps_per_sm: 2\nstream: |\n  LDG R1, [R2]\n"
                         "  FADD R3, R9, R9\n  FADD R4, R1, R9\n",
                         pool1);
  g_autofree char *ob = issue_order(b);
  ck_assert_str_eq(ob, "0:0 1:0 2:1 3:1 10:0 12:1");
  const char *lrr[] = {"policy=lrr", NULL};
  Traced *c = run_traced("name: k\nwarps_per_sm: 2\nstream: |\n  LDG R1, [R2]\n"
                         "  FADD R3, R9, R9\n  FADD R4, R1, R9\n",
                         lrr);
  g_autofree char *oc = issue_order(c);
  ck_assert_str_eq(oc, "0:0 1:1 2:0 3:1 10:0 11:1");
  traced_free(a);
  traced_free(b);
  traced_free(c);
}
END_TEST

static Suite *
simt_suite(void)
{
  Suite *s = suite_create("simt");
  TCase *tc = tcase_create("divergence");
  tcase_add_test(tc, test_two_way_branch_runs_both_paths_then_reconverges);
  tcase_add_test(tc, test_32_way_branch_serialises_every_lane);
  tcase_add_test(tc, test_branch_and_barrier_costs_are_gpu_keys);
  tcase_add_test(tc, test_uniform_branch_needs_no_region);
  tcase_add_test(tc, test_nested_depth_three_runs_eight_times_the_work);
  tcase_add_test(tc, test_a_branch_taken_with_probability_p);
  suite_add_tcase(s, tc);
  TCase *pol = tcase_create("policies");
  tcase_add_test(pol, test_oldest_gto_and_lrr_orders);
  tcase_add_test(pol, test_two_level_pool_admits_warps_that_wait_on_memory);
  tcase_add_test(pol, test_block_priority_issues_one_block_first_in_its_own_round_robin);
  tcase_add_test(pol, test_last_resumed_issues_the_warp_back_from_memory_last_first);
  suite_add_tcase(s, pol);
  return s;
}

int
main(void)
{
  return test_run_suite(simt_suite());
}
