/* smsim validate with kernel-measurement files: rows, curves, outputs and every kind of bad
 * row (one line file:line:col, exit status 2, nothing written). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "helpers.h"

#define MAXWELL "config/gpus/maxwell.yaml"
#define EXAMPLE "tests/data/maxwell-volkov.csv"

/* The first line of @out that contains @part (newly allocated), or NULL. */
static char *
line_with(const char *out, const char *part)
{
  g_auto(GStrv) lines = g_strsplit(out, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    if (strstr(lines[i], part) != NULL)
      return g_strdup(lines[i]);
  return NULL;
}

START_TEST(test_kernel_format_rows_and_curves)
{
  g_autofree char *csv = test_write_temp("rows.csv", "");
  g_autofree char *png = test_write_temp("rows.png", "");
  const char *args[] = {"validate", MAXWELL, EXAMPLE, "--csv", csv, "--plot", png, NULL};
  g_autofree char *out = NULL, *err = NULL;
  ck_assert_int_eq(test_smsim(args, &out, &err), 0);
  /* one FADD warp: 64 groups of 16 dependent FADDs at 6 cycles, exactly */
  g_autofree char *cycles_row = line_with(out, "other=none;alpha=16;warps_per_sm=1;groups=64");
  ck_assert(cycles_row != NULL);
  ck_assert_msg(strstr(cycles_row, " 6144         6144     0.0%") != NULL, "%s", cycles_row);
  /* curves: the FADD chain reaches 90 % of its maximum at 24 warps, simulated and measured */
  g_autofree char *fadd = line_with(out, "FADD chain (alu_lat 6) ");
  ck_assert_msg(fadd != NULL && g_str_has_suffix(fadd, "      24 / 24"), "%s", fadd);
  g_autofree char *one = line_with(out, "one FADD warp: cycles ");
  ck_assert_msg(one != NULL && g_str_has_suffix(one, "0.0%        -"), "%s", one);
  const char *last = g_strrstr(out, "overall MAPE: ");
  ck_assert(last != NULL);
  ck_assert(strstr(last, "over 11 rows\n") != NULL);
  double mape = g_ascii_strtod(last + strlen("overall MAPE: "), NULL);
  printf("maxwell-volkov.csv: %s", last);
  ck_assert(mape < 2.0);
  g_autofree char *text = NULL;
  ck_assert(g_file_get_contents(csv, &text, NULL, NULL));
  ck_assert(g_str_has_prefix(text, "kernel,set,metric,curve,warps_per_sm,simulated,measured,"
                                   "error_percent\n"));
  /* a quoted curve label keeps its comma */
  ck_assert(strstr(text, ",\"memory bytes per cycle (0.081 x 128 B)\",64,") == NULL);
  ck_assert(strstr(text, ",memory bytes per cycle (0.081 x 128 B),64,") != NULL);
  guint lines = 0;
  for (const char *c = text; *c; c++)
    lines += *c == '\n';
  ck_assert_uint_eq(lines, 12);
  gsize n = 0;
  g_autofree char *img = NULL;
  ck_assert(g_file_get_contents(png, &img, &n, NULL) && n > 1000);
}
END_TEST

START_TEST(test_kernel_format_same_bytes_whatever_the_jobs)
{
  g_autofree char *a = test_write_temp("a.csv", "");
  g_autofree char *b = test_write_temp("b.csv", "");
  const char *one[] = {"validate", MAXWELL, EXAMPLE, "--csv", a, "--jobs", "1", NULL};
  const char *two[] = {"validate", MAXWELL, EXAMPLE, "--csv", b, "--jobs", "2", NULL};
  g_autofree char *o1 = NULL, *e1 = NULL, *o2 = NULL, *e2 = NULL;
  ck_assert_int_eq(test_smsim(one, &o1, &e1), 0);
  ck_assert_int_eq(test_smsim(two, &o2, &e2), 0);
  g_autofree char *ta = NULL, *tb = NULL;
  ck_assert(g_file_get_contents(a, &ta, NULL, NULL) && g_file_get_contents(b, &tb, NULL, NULL));
  ck_assert_str_eq(ta, tb);
  /* the tables agree too, up to the "wrote PATH" line */
  ck_assert(strstr(o1, "wrote ") != NULL && strstr(o2, "wrote ") != NULL);
  ck_assert(strstr(o1, "wrote ") - o1 == strstr(o2, "wrote ") - o2);
  ck_assert(strncmp(o1, o2, (size_t)(strstr(o1, "wrote ") - o1)) == 0);
}
END_TEST

/* Writes a kernel-format file with @row after the header; validate must fail with @expect as
 * the whole error line and create no output file. */
static void
assert_bad_row(const char *row, const char *expect)
{
  g_autofree char *text = g_strdup_printf("kernel,set,metric,measured,curve\n%s\n", row);
  g_autofree char *path = test_write_temp("bad.csv", text);
  g_autofree char *dir = g_path_get_dirname(path);
  g_autofree char *csv = g_build_filename(dir, "out.csv", NULL);
  const char *args[] = {"validate", MAXWELL, path, "--csv", csv, NULL};
  g_autofree char *out = NULL, *err = NULL;
  ck_assert_int_eq(test_smsim(args, &out, &err), 2);
  g_autofree char *want = g_strdup_printf("%s:%s\n", path, expect);
  ck_assert_str_eq(err, want);
  ck_assert_str_eq(out, "");
  ck_assert(!g_file_test(csv, G_FILE_TEST_EXISTS));
}

START_TEST(test_kernel_format_bad_rows)
{
  assert_bad_row("isa/kernels/nosuch.yaml,alpha=1,cycles,10,c",
                 "2:1: kernel: isa/kernels/nosuch.yaml: cannot read: No such file or directory");
  assert_bad_row(
      "isa/kernels/mix.yaml,alpah=1,cycles,10,c",
      "2:22: set alpah: no kernel parameter (warps_per_sm, alpha, ilp, other, "
      "pattern, level, window, warm, groups, alu_op, mov_per_load, unroll, loop_overhead, "
      "loop_movs, chain_movs), kernel key or GPU key of that name; did you mean 'alpha'?");
  assert_bad_row("isa/kernels/mix.yaml,alpha=1; memory.dram.latency_cycles=-5,cycles,10,c",
                 "2:22: set memory.dram.latency_cycles: must be at least 1, got -5");
  assert_bad_row("isa/kernels/mix.yaml,alpha,cycles,10,c", "2:22: set alpha: expected KEY=VALUE");
  assert_bad_row("isa/kernels/mix.yaml,alpha=1,ipc.fast,10,c",
                 "2:30: metric 'ipc.fast' is not a number in the JSON of a run (smsim run --json: "
                 "for example cycles, ipc.total, memory.bytes_per_cycle)");
  assert_bad_row("isa/kernels/mix.yaml,alpha=1,gpu,10,c",
                 "2:30: metric 'gpu' is not a number in the JSON of a run (smsim run --json: "
                 "for example cycles, ipc.total, memory.bytes_per_cycle)");
  assert_bad_row("isa/kernels/mix.yaml,alpha=1,cycles,lots,c",
                 "2:37: measured: expected a number, got 'lots'");
  assert_bad_row("isa/kernels/mix.yaml,alpha=1,cycles,10", "2:1: 4 fields, the header has 5");
  assert_bad_row(",alpha=1,cycles,10,c", "2:1: kernel: no kernel file given");
}
END_TEST

/* smsim validate on Maxwell with a kernel-measurement file holding @text; its exit status. */
static int
validate_text(const char *text, char **out, char **err)
{
  g_autofree char *path = test_write_temp("rows.csv", text);
  const char *args[] = {"validate", MAXWELL, path, NULL};
  return test_smsim(args, out, err);
}

START_TEST(test_metric_paths_reach_arrays_and_levels)
{
  g_autofree char *out = NULL, *err = NULL;
  int status = validate_text(
      "kernel,set,metric,measured,curve\n"
      "isa/kernels/mix.yaml,alpha=0;warps_per_sm=8,issue_slot_utilisation.0,1,a\n"
      "isa/kernels/mix.yaml,alpha=0;warps_per_sm=8,memory.levels.dram.bytes_per_cycle,1,b\n"
      "isa/kernels/mix.yaml,alpha=0;warps_per_sm=8,warp_states.long_scoreboard.share,1,c\n",
      &out, &err);
  ck_assert_msg(status == 0, "%s", err);
  ck_assert(strstr(out, "over 3 rows") != NULL);
  g_autofree char *o2 = NULL, *e2 = NULL;
  status = validate_text("kernel,set,metric,measured,curve\n"
                         "isa/kernels/mix.yaml,,issue_slot_utilisation.4,1,a\n",
                         &o2, &e2);
  ck_assert_int_eq(status, 2); /* 4 schedulers: indices 0..3 */
}
END_TEST

START_TEST(test_metrics_in_milliseconds_and_gigabytes_a_second)
{
  /* the units measuring programs print: one FADD warp, 64 x 16 x 6 = 6144 cycles at the
   * preset's 1266 MHz are 0.00485308 ms; the memory rows' gigabytes a second are their bytes
   * per cycle x 1.266 */
  g_autofree char *out = NULL, *err = NULL;
  int status = validate_text(
      "kernel,set,metric,measured,curve\n"
      "isa/kernels/mix.yaml,other=none;alpha=16;warps_per_sm=1;groups=64,milliseconds,0.004853,"
      "one FADD warp: ms\n"
      "isa/kernels/mix.yaml,alpha=0;warps_per_sm=64;groups=200,memory.bytes_per_cycle,10.368,"
      "bpc\n"
      "isa/kernels/mix.yaml,alpha=0;warps_per_sm=64;groups=200,memory.gigabytes_per_second,"
      "13.126,gbps\n",
      &out, &err);
  ck_assert_msg(status == 0, "%s", err);
  ck_assert_msg(strstr(out, " 0.00485308     0.004853") != NULL, "%s", out);
  /* the same error for the same run: 10.0323 B/cycle x 1.266 = 12.7009 GB/s, both -3.2 % */
  ck_assert_msg(strstr(out, "10.0323       10.368    -3.2%") != NULL, "%s", out);
  ck_assert_msg(strstr(out, "12.7009       13.126    -3.2%") != NULL, "%s", out);
  /* a time, not a throughput: no warps for 90 % */
  g_autofree char *ms = line_with(out, "one FADD warp: ms ");
  ck_assert_msg(ms != NULL && g_str_has_suffix(ms, "0.0%        -"), "%s", out);
}
END_TEST

/* The simulated column of every row of a calibration-format validate --csv output. */
static char *
simulated_column(const char *csv)
{
  g_autofree char *text = NULL;
  ck_assert(g_file_get_contents(csv, &text, NULL, NULL));
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  GString *col = g_string_new(NULL);
  for (guint i = 1; lines[i] && lines[i][0]; i++) {
    g_auto(GStrv) f = g_strsplit(lines[i], ",", -1);
    ck_assert_uint_eq(g_strv_length(f), 8);
    g_string_append_printf(col, "%s %s\n", f[4], f[5]); /* groups, simulated */
  }
  return g_string_free(col, FALSE);
}

/* The measuring programs' own output (../shared/data/kernels/mix2.cu, mix3.cu): ILP variants
 * named gilpK / filpK, and loop iterations (`iters`, `unroll` groups each) instead of groups.
 * Each row must replay exactly what the same workload in the calibration format does. */
START_TEST(test_measuring_programs_output_replays_the_same_workload)
{
  g_autofree char *raw = test_write_temp(
      "raw.csv", "kind,alpha,ilp,warps_per_sm,iters,cycles_med,ipc_other,ipc_alu,ipc_total,"
                 "sms_ok\n"
                 "gilp2,0,2,3,12,1,0,0,0.008,132\n" /* unroll 16: 192 groups */
                 "filp2,-1,2,2,4,1,0,0,0.99,132\n"  /* unroll 8: 32 groups */
                 "gmem,8,1,4,5,1,0,0,0.05,132\n"    /* unroll 4: 20 groups */
                 "sfu,24,1,4,3,1,0,0,1.0,132\n");   /* unroll 2: 6 groups */
  g_autofree char *cal = test_write_temp("cal.csv", "kind,alpha,ilp,warps_per_sm,groups_per_warp,"
                                                    "ipc_total\n"
                                                    "gmem,0,2,3,192,0.008\n"
                                                    "fadd,-1,2,2,32,0.99\n"
                                                    "gmem,8,1,4,20,0.05\n"
                                                    "sfu,24,1,4,6,1.0\n");
  g_autofree char *c1 = test_write_temp("raw-out.csv", ""),
                  *c2 = test_write_temp("cal-out.csv", "");
  const char *a1[] = {"validate", "config/gpus/h100.yaml", raw, "--csv", c1, NULL};
  const char *a2[] = {"validate", "config/gpus/h100.yaml", cal, "--csv", c2, NULL};
  g_autofree char *o1 = NULL, *e1 = NULL, *o2 = NULL, *e2 = NULL;
  ck_assert_msg(test_smsim(a1, &o1, &e1) == 0, "%s", e1);
  ck_assert_msg(test_smsim(a2, &o2, &e2) == 0, "%s", e2);
  g_autofree char *s1 = simulated_column(c1), *s2 = simulated_column(c2);
  ck_assert_str_eq(s1, s2);
  ck_assert(g_str_has_prefix(s1, "192 ")); /* iterations became groups */
  ck_assert(strstr(s1, "\n32 ") && strstr(s1, "\n20 ") && strstr(s1, "\n6 "));
  /* the labels keep the file's names */
  ck_assert(strstr(o1, "gilp2 alpha=0 ilp=2 ") != NULL);
  ck_assert(strstr(o1, "filp2 alpha=-1 ilp=2 ") != NULL);
  /* two warps of two chains of 4-cycle FADDs: one FADD a cycle, less the loop's overhead
   * (3 instructions in 256) */
  double filp = g_ascii_strtod(strstr(s1, "\n32 ") + 4, NULL);
  ck_assert_msg(filp > 0.985 && filp <= 1.0, "%g", filp);
}
END_TEST

static void
assert_bad_mix_row(const char *row, const char *want_suffix)
{
  g_autofree char *text =
      g_strconcat("kind,alpha,ilp,warps_per_sm,groups_per_warp,ipc_total\n", row, "\n", NULL);
  g_autofree char *path = test_write_temp("mix.csv", text);
  const char *args[] = {"validate", "config/gpus/h100.yaml", path, NULL};
  g_autofree char *out = NULL, *err = NULL;
  ck_assert_int_eq(test_smsim(args, &out, &err), 2);
  g_autofree char *want = g_strconcat(path, ":", want_suffix, "\n", NULL);
  ck_assert_str_eq(err, want);
  ck_assert_str_eq(out, "");
}

START_TEST(test_calibration_format_bad_kinds)
{
  assert_bad_mix_row("gilp2,0,1,4,10,0.01", "2:9: ilp: 1, but kind 'gilp2' runs 2 chains");
  assert_bad_mix_row("filp4,-1,2,4,10,0.01", "2:10: ilp: 2, but kind 'filp4' runs 4 chains");
  const char *not_one = "2:1: kind '%s' is not one of fadd, gmem, l2, stride2, random, sfu, "
                        "smem, gilpK or filpK (gmem or fadd with K chains)";
  const char *names[] = {"gilp", "gilp0", "gilpx", "filp2a", "gilp33", "vector"};
  for (guint i = 0; i < G_N_ELEMENTS(names); i++) {
    g_autofree char *row = g_strdup_printf("%s,0,1,4,10,0.01", names[i]);
    g_autofree char *want = g_strdup_printf(not_one, names[i]);
    assert_bad_mix_row(row, want);
  }
}
END_TEST

static Suite *
validate_suite(void)
{
  Suite *s = suite_create("validate");
  TCase *t = tcase_create("kernel-format");
  tcase_add_test(t, test_kernel_format_rows_and_curves);
  tcase_add_test(t, test_kernel_format_same_bytes_whatever_the_jobs);
  tcase_add_test(t, test_kernel_format_bad_rows);
  tcase_add_test(t, test_metric_paths_reach_arrays_and_levels);
  tcase_add_test(t, test_metrics_in_milliseconds_and_gigabytes_a_second);
  suite_add_tcase(s, t);
  TCase *m = tcase_create("calibration-format");
  tcase_set_timeout(m, 120);
  tcase_add_test(m, test_measuring_programs_output_replays_the_same_workload);
  tcase_add_test(m, test_calibration_format_bad_kinds);
  suite_add_tcase(s, m);
  return s;
}

int
main(void)
{
  return test_run_suite(validate_suite());
}
