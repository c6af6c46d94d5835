/* Grids, waves and barriers: achieved occupancy against numbers derived by hand. */
#include <check.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

#define MAXWELL "config/gpus/maxwell.yaml"

/* Runs a kernel written here; returns the run's JSON object (free the parser). */
static JsonObject *
run_kernel(const char *kernel_text, const char *const *extra, JsonParser **p)
{
  g_autofree char *kernel = test_write_temp("k.yaml", kernel_text);
  GPtrArray *args = g_ptr_array_new();
  const char *base[] = {"run", MAXWELL, kernel, "--json", NULL};
  for (guint i = 0; base[i]; i++)
    g_ptr_array_add(args, (gpointer)base[i]);
  for (guint i = 0; extra && extra[i]; i++)
    g_ptr_array_add(args, (gpointer)extra[i]);
  g_ptr_array_add(args, NULL);
  g_autofree char *out = NULL, *err = NULL;
  int status = test_smsim((const char *const *)args->pdata, &out, &err);
  g_ptr_array_free(args, TRUE);
  ck_assert_msg(status == 0, "%s", err);
  *p = json_parser_new();
  ck_assert(json_parser_load_from_data(*p, out, -1, NULL));
  return json_node_get_object(json_parser_get_root(*p));
}

static double
achieved(JsonObject *o)
{
  return json_object_get_double_member(json_object_get_object_member(o, "occupancy"), "achieved");
}

/* 512-thread blocks of 200 dependent FADDs; the SM holds 4 (64 warps) */
static const char wave_kernel[] = "name: wave\nparams: {blocks: 60}\nthreads_per_block: 512\n"
                                  "blocks: $blocks\nstream: |\n  repeat 200 { FADD R1, R1, R2 }\n";

START_TEST(test_full_wave_on_15_sms)
{
  const char *x[] = {"--set", "sm_count=15", "--set", "limits.max_blocks=4", NULL};
  JsonParser *p;
  JsonObject *o = run_kernel(wave_kernel, x, &p);
  /* 60 blocks = 15 SMs x 4: every SM full from start to end */
  ck_assert_double_eq_tol(achieved(o), 1.0, 0.005);
  g_object_unref(p);
}
END_TEST

START_TEST(test_45_of_60_blocks_give_75_percent)
{
  const char *x[] = {"--set", "sm_count=15", "--set", "limits.max_blocks=4",
                     "--set", "blocks=45",   NULL};
  JsonParser *p;
  JsonObject *o = run_kernel(wave_kernel, x, &p);
  /* the block scheduler spreads 45 blocks as 3 per SM: 48 of 64 warps, the whole run */
  printf("45 blocks on 15 SMs: achieved occupancy %.3f\n", achieved(o));
  ck_assert_double_eq_tol(achieved(o), 0.75, 0.005);
  g_object_unref(p);
}
END_TEST

START_TEST(test_partial_last_wave)
{
  const char *x[] = {"--set", "sm_count=15", "--set", "limits.max_blocks=4",
                     "--set", "blocks=75",   NULL};
  JsonParser *p;
  JsonObject *o = run_kernel(wave_kernel, x, &p);
  /* wave 1: 16 warps per scheduler share the ALU: 16 x 200 = 3200 cycles; 150 cycles to launch;
   * wave 2: one block per SM, 4 warps per scheduler, latency-bound: 200 x 6 = 1200 cycles.
   * achieved = (64 x 3200 + 16 x 1200) / (64 x (3200 + 150 + 1200)) = 0.769 */
  double expect = (64.0 * 3200 + 16.0 * 1200) / (64.0 * (3200 + 150 + 1200));
  printf("75 blocks on 15 SMs: achieved %.4f, derived %.4f\n", achieved(o), expect);
  ck_assert_double_eq_tol(achieved(o), expect, 0.01);
  g_object_unref(p);
}
END_TEST

START_TEST(test_next_block_launches_on_an_otherwise_idle_sm)
{
  /* one SM, one block slot, two blocks: nothing else is in flight when the first block
   * retires, so the launch of the second is the only future happening.  Each block is one
   * warp per scheduler running 200 dependent FADDs (6 cycles): 1200 + 150 to launch + 1200 */
  static const char kernel[] = "name: two\nthreads_per_block: 128\nblocks: 2\nstream: |\n"
                               "  repeat 200 { FADD R1, R1, R2 }\n";
  const char *x[] = {"--set", "limits.max_blocks=1", NULL};
  JsonParser *p;
  JsonObject *o = run_kernel(kernel, x, &p);
  ck_assert_int_eq(json_object_get_int_member(o, "cycles"), 1200 + 150 + 1200);
  g_object_unref(p);
}
END_TEST

/* block_dispatch_cycles: the GPU's dispatcher takes that long a block, the kernel ends no sooner
 * than its last block's turn, and an SM takes blocks at most once in sm_count turns on average,
 * with block_dispatch_burst of them at once (a token bucket).  One SM of 4 block slots, 12
 * blocks of 60 cycles (10 dependent FADDs a warp), slots refilled 150 cycles after a
 * retirement, one block every 100 cycles (with 2 SMs: 50 a turn, 100 an SM):
 * - a burst of 4: blocks 1-4 at 0 (the bucket holds one back at 100), the slots free at 210
 *   and two blocks back: 5 and 6 at 210, then one each 100 cycles, 7 at 300 ... 12 at 800,
 *   ending at 860; the dispatcher's turn for the 12th ends at 1 200 (elapsed_cycles);
 * - a burst of 1: block k at 100 (k - 1), the 12th at 1 100, ending at 1 160;
 * - no limit: 483, in three waves.
 * The same with 2 SMs that run alike, and stepped through every cycle. */
START_TEST(test_an_sm_takes_blocks_at_the_pace_of_block_dispatch_cycles)
{
  static const char kernel[] = "name: few\nthreads_per_block: 128\nblocks: 12\nstream: |\n"
                               "  repeat 10 { FADD R1, R1, R2 }\n";
  static const struct {
    const char *every, *burst, *sms, *blocks, *step;
    gint64 cycles, elapsed;
  } cases[] = {{"block_dispatch_cycles=100", "block_dispatch_burst=4", "sm_count=1", "blocks=12",
                NULL, 860, 1200},
               {"block_dispatch_cycles=50", "block_dispatch_burst=4", "sm_count=2", "blocks=24",
                NULL, 860, 1200},
               {"block_dispatch_cycles=50", "block_dispatch_burst=4", "sm_count=2", "blocks=24",
                "--no-fast-forward", 860, 1200},
               {"block_dispatch_cycles=100", "block_dispatch_burst=1", "sm_count=1", "blocks=12",
                NULL, 1160, 1200},
               {"block_dispatch_cycles=0", "block_dispatch_burst=4", "sm_count=1", "blocks=12",
                NULL, 483, 483}};
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    const char *x[] = {"--set", "limits.max_blocks=4", "--set",       cases[i].every,
                       "--set", cases[i].burst,        "--set",       cases[i].sms,
                       "--set", cases[i].blocks,       cases[i].step, NULL};
    JsonParser *p;
    JsonObject *o = run_kernel(kernel, x, &p);
    ck_assert_msg(json_object_get_int_member(o, "cycles") == cases[i].cycles,
                  "case %u: %" G_GINT64_FORMAT, i, json_object_get_int_member(o, "cycles"));
    ck_assert_msg(json_object_get_int_member(o, "elapsed_cycles") == cases[i].elapsed,
                  "case %u: elapsed %" G_GINT64_FORMAT, i,
                  json_object_get_int_member(o, "elapsed_cycles"));
    g_object_unref(p);
  }
}
END_TEST

START_TEST(test_too_few_blocks)
{
  /* 128-thread blocks, 48 registers: 10 fit (40 warps) but the grid has 6: 24 / 64 */
  const char *k = "name: few\nthreads_per_block: 128\nregisters_per_thread: 48\nblocks: 6\n"
                  "stream: |\n  repeat 100 { FADD R1, R1, R2 }\n";
  const char *x[] = {"--set", "limits.shared_memory_bytes=65536", NULL};
  JsonParser *p;
  JsonObject *o = run_kernel(k, x, &p);
  ck_assert_double_eq_tol(achieved(o), 24.0 / 64, 0.004);
  g_object_unref(p);
}
END_TEST

START_TEST(test_imbalanced_block)
{
  /* one block of 4 warps (one per scheduler); warp 3 runs the stream 4 times: warps 0-2 are
   * active 100 x 6 = 600 cycles, warp 3 2400: (3 x 600 + 2400) / (64 x 2400) */
  const char *k = "name: imbalance\nthreads_per_block: 128\nblocks_per_sm: 1\n"
                  "warp_passes: [1, 1, 1, 4]\nstream: |\n  repeat 100 { FADD R1, R1, R2 }\n";
  JsonParser *p;
  JsonObject *o = run_kernel(k, NULL, &p);
  ck_assert_int_eq(json_object_get_int_member(o, "cycles"), 2400);
  ck_assert_double_eq_tol(achieved(o), (3 * 600.0 + 2400) / (64 * 2400.0), 1e-9);
  ck_assert_double_eq_tol(
      json_object_get_double_member(json_object_get_object_member(o, "occupancy"), "theoretical"),
      4.0 / 64, 1e-9);
  g_object_unref(p);
}
END_TEST

START_TEST(test_barrier_releases_at_the_last_arrival)
{
  /* 8 warps on one scheduler: they reach BAR.SYNC at different cycles */
  g_autofree char *kernel = test_write_temp(
      "bar.yaml", "name: bar\nthreads_per_block: 256\nblocks_per_sm: 1\nstream: |\n"
                  "  repeat 5 { FADD R1, R1, R2 }\n  BAR.SYNC\n  repeat 5 { FADD R1, R1, R2 }\n");
  g_autofree char *csv = test_write_temp("bar.csv", "");
  const char *args[] = {"run",    MAXWELL,   kernel, "--set", "schedulers=1",
                        "--json", "--trace", csv,    NULL};
  g_autofree char *out = NULL, *err = NULL;
  ck_assert_int_eq(test_smsim(args, &out, &err), 0);
  g_autoptr(JsonParser) p = json_parser_new();
  ck_assert(json_parser_load_from_data(p, out, -1, NULL));
  JsonObject *o = json_node_get_object(json_parser_get_root(p));
  g_autofree char *text = NULL;
  ck_assert(g_file_get_contents(csv, &text, NULL, NULL));
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  guint64 bar_at[8] = {0}, last_bar = 0, first_after = G_MAXUINT64;
  for (guint i = 1; lines[i] && lines[i][0]; i++) {
    g_auto(GStrv) f = g_strsplit(lines[i], ",", -1);
    guint64 cycle = g_ascii_strtoull(f[0], NULL, 10);
    guint warp = (guint)atoi(f[2]), pc = (guint)atoi(f[3]);
    if (strcmp(f[4], "BAR.SYNC") == 0) {
      bar_at[warp] = cycle;
      last_bar = MAX(last_bar, cycle);
    } else if (pc > 4) {
      first_after = MIN(first_after, cycle);
    }
  }
  ck_assert(bar_at[0] < last_bar);
  ck_assert_uint_eq(first_after, last_bar + 1); /* everyone goes on right after the last */
  guint64 waited = 0;
  for (guint w = 0; w < 8; w++)
    waited += last_bar - bar_at[w];
  JsonObject *states = json_object_get_object_member(o, "warp_states");
  ck_assert_int_eq(
      json_object_get_int_member(json_object_get_object_member(states, "barrier"), "warp_cycles"),
      (gint64)waited);
}
END_TEST

START_TEST(test_barrier_without_exited_warps)
{
  /* PTX bar.sync waits for the CTA's threads that have not exited: warp 0 runs the stream
   * once, the others twice; at their second BAR.SYNC warp 0 is gone and must not be awaited.
   * Warp 0 of the second case never runs at all. */
  const char *k1 =
      "name: exit\nthreads_per_block: 128\nblocks_per_sm: 1\nwarp_passes: [1, 2, 2, 2]\n"
      "stream: |\n  BAR.SYNC\n  repeat 10 { FADD R1, R1, R2 }\n";
  const char *k2 =
      "name: exit\nthreads_per_block: 128\nblocks_per_sm: 1\nwarp_passes: [0, 1, 1, 1]\n"
      "stream: |\n  BAR.SYNC\n  repeat 10 { FADD R1, R1, R2 }\n";
  JsonParser *p;
  JsonObject *o = run_kernel(k1, NULL, &p);
  ck_assert_int_eq(json_object_get_int_member(json_object_get_object_member(o, "issued"), "total"),
                   11 + 3 * 22);
  g_object_unref(p);
  o = run_kernel(k2, NULL, &p);
  ck_assert_int_eq(json_object_get_int_member(json_object_get_object_member(o, "issued"), "total"),
                   3 * 11);
  g_object_unref(p);
}
END_TEST

START_TEST(test_grid_needs_threads_per_block)
{
  g_autofree char *kernel = test_write_temp(
      "k.yaml", "name: k\nwarps_per_sm: 8\nblocks: 20\nstream: |\n  FADD R1, R1, R2\n");
  const char *args[] = {"run", MAXWELL, kernel, NULL};
  g_autofree char *out = NULL, *err = NULL;
  ck_assert_int_eq(test_smsim(args, &out, &err), 2);
  ck_assert(strstr(err, "k.yaml:3:9: a grid of blocks needs threads_per_block") != NULL);
}
END_TEST

START_TEST(test_uneven_warps_on_many_sms)
{
  /* 416-thread blocks (13 warps), 3 per SM by registers: 39 warps on 4 schedulers, 16 SMs */
  const char *args[] = {
      "run",         MAXWELL, "isa/kernels/occupancy-lab.yaml",   "--set", "tpb=416",  "--set",
      "sm_count=16", "--set", "limits.shared_memory_bytes=65536", "--set", "groups=5", "--json",
      NULL};
  g_autofree char *out = NULL, *err = NULL;
  ck_assert_int_eq(test_smsim(args, &out, &err), 0);
  g_autoptr(JsonParser) p = json_parser_new();
  ck_assert(json_parser_load_from_data(p, out, -1, NULL));
  JsonObject *o = json_node_get_object(json_parser_get_root(p));
  gint64 cycles = json_object_get_int_member(o, "cycles");
  ck_assert_int_eq(json_object_get_int_member(o, "warps_per_sm"), 39);
  ck_assert_int_eq(json_object_get_int_member(o, "sm_count"), 16);
  ck_assert_int_eq(json_object_get_int_member(o, "grid_blocks"), 148);
  JsonObject *states = json_object_get_object_member(o, "warp_states");
  GList *names = json_object_get_members(states);
  gint64 sum = 0;
  for (GList *l = names; l; l = l->next)
    sum +=
        json_object_get_int_member(json_object_get_object_member(states, l->data), "warp_cycles");
  g_list_free(names);
  ck_assert_int_eq(sum, 39 * 16 * cycles);
  /* 61440 threads / 416 = 148 blocks x 13 warps x 5 groups x 9 instructions */
  ck_assert_int_eq(json_object_get_int_member(json_object_get_object_member(o, "issued"), "total"),
                   148 * 13 * 5 * 9);
}
END_TEST

static Suite *
blocks_suite(void)
{
  Suite *s = suite_create("blocks");
  TCase *waves = tcase_create("waves");
  tcase_add_test(waves, test_full_wave_on_15_sms);
  tcase_add_test(waves, test_45_of_60_blocks_give_75_percent);
  tcase_add_test(waves, test_partial_last_wave);
  tcase_add_test(waves, test_too_few_blocks);
  tcase_add_test(waves, test_next_block_launches_on_an_otherwise_idle_sm);
  tcase_add_test(waves, test_an_sm_takes_blocks_at_the_pace_of_block_dispatch_cycles);
  tcase_add_test(waves, test_imbalanced_block);
  tcase_add_test(waves, test_grid_needs_threads_per_block);
  tcase_add_test(waves, test_uneven_warps_on_many_sms);
  suite_add_tcase(s, waves);
  TCase *bar = tcase_create("barriers");
  tcase_add_test(bar, test_barrier_releases_at_the_last_arrival);
  tcase_add_test(bar, test_barrier_without_exited_warps);
  suite_add_tcase(s, bar);
  return s;
}

int
main(void)
{
  return test_run_suite(blocks_suite());
}
