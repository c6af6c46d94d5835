/* Identical SMs simulated once (sim/mirror.c): stepping only SM 0 while every SM runs alike
 * must give exactly the numbers of stepping every SM, must stop where the SMs part (a partial
 * wave, a trace), and must not start where they never were alike (global memory, blocks of
 * different lengths). */
#include <check.h>
#include <glib/gstdio.h>
#include <string.h>

#include "helpers.h"

/* A block-wide barrier between shared-memory stores and loads, blocks of 4 warps. */
static const char barrier_kernel[] =
    "name: barrier\nblocks_per_sm: 2\nthreads_per_block: 128\nregisters_per_thread: 32\n"
    "shared_memory_per_block: 4096\nstream: |\n  repeat 60 {\n    STS [R1], R2\n"
    "    BAR.SYNC\n    LDS R3, [R1]\n    FADD R2, R3, R2\n    MUFU.RSQ R2, R2\n  }\n";

typedef struct {
  const char *gpu, *kernel;
  const char *sets[8];
  guint kinds; /* SMs stepped at most: one for each kind of SM */
} Case;

static const Case cases[] = {
    /* whole rounds: 3 waves of 4 blocks on 3 SMs; the oldest block retires first */
    {"config/gpus/h100.yaml", "bench/waves.yaml", {"sm_count=3", "blocks=36", "iters=40", NULL}, 1},
    /* the last blocks cannot go round: 36 + 2 */
    {"config/gpus/h100.yaml", "bench/waves.yaml", {"sm_count=3", "blocks=38", "iters=40", NULL}, 2},
    {"config/gpus/h100.yaml",
     "bench/waves.yaml",
     {"sm_count=5", "blocks=27", "iters=30", "k=2", NULL},
     2},
    /* fewer blocks than a first wave: every SM is stepped from the start */
    {"config/gpus/h100.yaml", "bench/waves.yaml", {"sm_count=4", "blocks=7", "iters=30", NULL}, 2},
    /* shared memory and the SFU with the H100's write ports, several blocks per SM */
    {"config/gpus/h100.yaml",
     "isa/kernels/mix.yaml",
     {"sm_count=4", "other=LDS", "alpha=2", "groups=100", "warps_per_sm=24", NULL},
     1},
    /* two blocks an SM waiting in order for a full shared-memory queue (throttle_order:
     * arrival: mio_throttle 9 cycles per issued instruction) */
    {"config/gpus/h100.yaml",
     "isa/kernels/mix.yaml",
     {"sm_count=4", "other=LDS", "alpha=2", "groups=100", "warps_per_sm=64",
      "shared_memory.queue_depth=2", NULL},
     1},
    {"config/gpus/maxwell.yaml",
     "isa/kernels/mix.yaml",
     {"sm_count=2", "other=MUFU.RSQ", "alpha=4", "groups=100", "warps_per_sm=40",
      "block_priority=youngest", NULL},
     1},
    {"config/gpus/fermi.yaml",
     "isa/kernels/divergence.yaml",
     {"sm_count=3", "ways=4", "iters=30", NULL},
     1},
    {"config/gpus/h100.yaml",
     "isa/kernels/banks.yaml",
     {"sm_count=2", "stride=4", "iters=40", NULL},
     1},
    /* global memory: the SMs share it, and every warp draws its own addresses */
    {"config/gpus/h100.yaml",
     "isa/kernels/mix.yaml",
     {"sm_count=2", "alpha=4", "groups=40", "warps_per_sm=16", NULL},
     2},
};

static SmStats
run_one(const Case *c, gboolean mirror, gboolean fast_forward)
{
  sm_set_mirroring(mirror);
  sm_set_fast_forward(fast_forward);
  TestRun *run = test_run_new(c->gpu, c->kernel, c->sets);
  sm_run(run->sm);
  SmStats s = *sm_stats(run->sm);
  test_run_free(run);
  sm_set_mirroring(TRUE);
  sm_set_fast_forward(TRUE);
  return s;
}

START_TEST(test_mirroring_changes_no_number)
{
  const Case *c = &cases[_i];
  g_autofree char *joined = g_strjoinv(" ", (char **)c->sets);
  g_autofree char *what = g_strdup_printf("%s %s %s", c->gpu, c->kernel, joined);
  /* stepped through every cycle, then with fast-forward: each against every SM stepped */
  for (guint ff = 0; ff < 2; ff++) {
    SmStats all = run_one(c, FALSE, ff), one = run_one(c, TRUE, ff);
    ck_assert_uint_eq(all.stepped_sms, all.n_sm);
    test_assert_same_counts(&all, &one, what);
    ck_assert_msg(one.stepped_sms == c->kinds, "%s: %u SMs stepped", what, one.stepped_sms);
  }
}
END_TEST

START_TEST(test_barriers_mirror_exactly)
{
  g_autofree char *kernel = test_write_temp("barrier.yaml", barrier_kernel);
  const Case c = {"config/gpus/h100.yaml", kernel, {"sm_count=3", "blocks=18", NULL}, 1};
  SmStats all = run_one(&c, FALSE, FALSE), one = run_one(&c, TRUE, FALSE);
  test_assert_same_counts(&all, &one, "barrier");
  ck_assert_uint_eq(one.stepped_sms, 1);
  ck_assert_uint_eq(one.issued, 18 * 4 * 60 * 5); /* every block ran, each on its own SM */
}
END_TEST

START_TEST(test_uneven_blocks_are_not_mirrored)
{
  /* blocks of different lengths land on different SMs */
  g_autofree char *kernel = test_write_temp(
      "uneven.yaml", "name: uneven\nblocks_per_sm: 2\nblocks: 12\nthreads_per_block: 64\n"
                     "registers_per_thread: 32\nblock_passes: [1, 2]\nstream: |\n"
                     "  repeat 50 {\n    FADD R1, R1, R2\n    FADD R3, R3, R2\n  }\n");
  const Case c = {"config/gpus/h100.yaml", kernel, {"sm_count=3", NULL}, 3};
  SmStats all = run_one(&c, FALSE, TRUE), one = run_one(&c, TRUE, TRUE);
  test_assert_same_counts(&all, &one, "uneven");
  ck_assert_uint_eq(one.stepped_sms, 3);
  ck_assert_uint_eq(one.issued, (6 * 1 + 6 * 2) * 2 * 100);
}
END_TEST

/* Progress displays read the counts mid-run: SM 0's, counted for every SM. */
static void
record_issued(const SmGpu *sm, gpointer data)
{
  GArray *seen = data;
  guint64 issued = sm_stats(sm)->issued;
  g_array_append_val(seen, issued);
}

START_TEST(test_counts_mid_run_are_for_every_sm)
{
  /* 50 blocks: the last 2 part the SMs into two kinds between the second and third stops */
  const char *const sets[] = {"sm_count=4", "blocks=50", "iters=40", NULL};
  guint64 issued[2][3];
  const guint64 stops[3] = {5000, 30000, 60000};
  guint kinds[3];
  GArray *seen[2];
  sm_set_apart(FALSE); /* one loop both ways: a progress display every 4096 cycles stepped */
  for (guint mirror = 0; mirror < 2; mirror++) {
    sm_set_mirroring(mirror);
    sm_set_fast_forward(FALSE);
    TestRun *run = test_run_new("config/gpus/h100.yaml", "bench/waves.yaml", sets);
    seen[mirror] = g_array_new(FALSE, FALSE, sizeof(guint64));
    sm_set_progress(run->sm, record_issued, seen[mirror]);
    for (guint i = 0; i < 3; i++) {
      sm_run_until(run->sm, stops[i]);
      issued[mirror][i] = sm_stats(run->sm)->issued;
      kinds[i] = sm_stats(run->sm)->stepped_sms;
    }
    sm_run(run->sm);
    test_run_free(run);
  }
  sm_set_mirroring(TRUE);
  sm_set_fast_forward(TRUE);
  sm_set_apart(TRUE);
  ck_assert_uint_eq(kinds[0], 1);
  ck_assert_uint_eq(kinds[2], 2);
  for (guint i = 0; i < 3; i++) {
    ck_assert_uint_gt(issued[1][i], 0);
    ck_assert_uint_eq(issued[0][i], issued[1][i]);
  }
  /* what a progress display saw, every 4096 cycles stepped */
  ck_assert_uint_gt(seen[1]->len, 10);
  ck_assert_uint_eq(seen[0]->len, seen[1]->len);
  for (guint i = 0; i < seen[0]->len; i++)
    ck_assert_uint_eq(g_array_index(seen[0], guint64, i), g_array_index(seen[1], guint64, i));
  g_array_free(seen[0], TRUE);
  g_array_free(seen[1], TRUE);
}
END_TEST

/* A trace records every SM: the same file whether the SMs started as copies of SM 0 or not. */
START_TEST(test_traces_record_every_sm)
{
  g_autofree char *dir = test_temp_dir("smsim-mirror-XXXXXX");
  g_autofree char *gpu = test_source_path("config/gpus/h100.yaml");
  g_autofree char *kernel = test_source_path("bench/waves.yaml");
  char *text[2];
  for (guint i = 0; i < 2; i++) {
    g_autofree char *path = g_strdup_printf("%s/t%u.txt", dir, i);
    const char *args[] = {"run",        gpu,       kernel,      "--set",
                          "sm_count=2", "--set",   "blocks=16", "--set",
                          "iters=3",    "--trace", path,        i ? "--no-fast-forward" : NULL,
                          NULL};
    g_autofree char *out = NULL, *err = NULL;
    ck_assert_int_eq(test_smsim(args, &out, &err), 0);
    ck_assert(g_file_get_contents(path, &text[i], NULL, NULL));
    g_unlink(path);
  }
  ck_assert_str_eq(text[0], text[1]);
  ck_assert_ptr_nonnull(strstr(text[0], "warp   63")); /* SM 1's last warp is in it */
  g_free(text[0]);
  g_free(text[1]);
  g_rmdir(dir);
}
END_TEST

static Suite *
mirror_suite(void)
{
  Suite *s = suite_create("mirror");
  TCase *tc = tcase_create("mirror");
  tcase_set_timeout(tc, 300);
  tcase_add_loop_test(tc, test_mirroring_changes_no_number, 0, G_N_ELEMENTS(cases));
  tcase_add_test(tc, test_barriers_mirror_exactly);
  tcase_add_test(tc, test_uneven_blocks_are_not_mirrored);
  tcase_add_test(tc, test_counts_mid_run_are_for_every_sm);
  tcase_add_test(tc, test_traces_record_every_sm);
  suite_add_tcase(s, tc);
  return s;
}

int
main(void)
{
  return test_run_suite(mirror_suite());
}
