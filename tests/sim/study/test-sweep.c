/* Sweeps and validation: Volkov's latency-hiding results emerge from the simulated Maxwell,
 * the H100 preset matches its measurements, and the tools behave. */
#include <check.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "helpers.h"
#include "model.h"
#include "sweep.h"

#define MAXWELL "config/gpus/maxwell.yaml"
#define MIX "isa/kernels/mix.yaml"

/* Runs a sweep and returns its JSON "curves" keyed by curve label. */
static JsonObject *
sweep_curves(const char *const *extra, JsonParser **parser)
{
  g_autofree char *json = test_write_temp("sweep.json", "");
  GPtrArray *args = g_ptr_array_new();
  const char *base[] = {"sweep", MAXWELL, MIX, "--json", json, NULL};
  for (guint i = 0; base[i]; i++)
    g_ptr_array_add(args, (gpointer)base[i]);
  for (guint i = 0; extra[i]; i++)
    g_ptr_array_add(args, (gpointer)extra[i]);
  g_ptr_array_add(args, NULL);
  g_autofree char *out = NULL, *err = NULL;
  int status = test_smsim((const char *const *)args->pdata, &out, &err);
  g_ptr_array_free(args, TRUE);
  ck_assert_msg(status == 0, "sweep failed: %s", err);
  *parser = json_parser_new();
  ck_assert(json_parser_load_from_file(*parser, json, NULL));
  JsonArray *curves =
      json_object_get_array_member(json_node_get_object(json_parser_get_root(*parser)), "curves");
  JsonObject *by = json_object_new();
  for (guint i = 0; i < json_array_get_length(curves); i++) {
    JsonObject *c = json_array_get_object_element(curves, i);
    json_object_set_object_member(by, json_object_get_string_member(c, "curve"),
                                  json_object_ref(c));
  }
  return by;
}

/* warps needed for 90 % of the configured peak; 1000 if not reached */
static double
n90(JsonObject *curves, const char *label, const char *member)
{
  JsonObject *c = json_object_get_object_member(curves, label);
  ck_assert_msg(c != NULL, "no curve %s", label);
  JsonNode *v = json_object_get_member(c, member);
  return JSON_NODE_HOLDS_NULL(v) ? 1000 : json_node_get_double(v);
}

START_TEST(test_maxwell_cusp_emerges)
{
  const char *args[] = {
      "--vary", "alpha=1,4,16,40,56,96,256", "--vary", "warps_per_sm=1:64", "--set", "groups=50",
      NULL};
  JsonParser *p;
  JsonObject *c = sweep_curves(args, &p);
  double n[7];
  const char *labels[] = {"alpha=1",  "alpha=4",  "alpha=16", "alpha=40",
                          "alpha=56", "alpha=96", "alpha=256"};
  for (guint i = 0; i < 7; i++) {
    n[i] = n90(c, labels[i], "warps_90_of_peak");
    printf("cusp: %s needs %.0f warps for 90%% of peak\n", labels[i], n[i]);
  }
  /* rises while memory-bound (alpha < alu_thru / mem_thru = 49) ... */
  ck_assert(n[2] >= n[0] + 5 && n[3] >= n[2] + 5);
  /* ... falls while compute-bound */
  ck_assert(n[4] >= n[5] + 10 && n[5] >= n[6] + 5);
  /* the cusp: Volkov's model peaks at 24 + 30 = 54 warps; allow +-20 % */
  double top = MAX(n[3], n[4]);
  ck_assert_msg(top >= 43 && top <= 65, "cusp at %.0f warps", top);
  json_object_unref(c);
  g_object_unref(p);
}
END_TEST

START_TEST(test_maxwell_limits_need_24_and_30_warps_and_saturate_gradually)
{
  const char *args[] = {"--vary", "alpha=0",    "--vary", "warps_per_sm=1:64",
                        "--set",  "groups=400", NULL};
  JsonParser *p;
  JsonObject *c = sweep_curves(args, &p);
  JsonObject *mem = json_object_get_object_member(c, "alpha=0");
  /* Little's law (model): 368 cycles x 0.0814 loads/cycle = 30 warps */
  ck_assert_double_eq_tol(json_object_get_double_member(mem, "model_warps_needed"), 30, 0.5);
  /* Volkov measured 90 % / 95 % of the memory peak at 40 / 46 warps: the simulated gradual
   * saturation must land within 10 % (90 %) and 20 % (95 %) of that */
  double w90 = n90(c, "alpha=0", "warps_90_of_peak"), w95 = n90(c, "alpha=0", "warps_95_of_peak");
  printf("memory: 90%% of peak at %.0f warps, 95%% at %.0f (Volkov: 40, 46)\n", w90, w95);
  ck_assert(w90 >= 36 && w90 <= 44);
  ck_assert(w95 >= 41 && w95 <= 55);
  json_object_unref(c);
  g_object_unref(p);

  const char *alu[] = {"--vary", "warps_per_sm=1:64", "--set", "other=none", "--set", "alpha=200",
                       "--set",  "groups=5",          NULL};
  c = sweep_curves(alu, &p);
  JsonObject *a = json_object_get_object_member(c, "all");
  ck_assert_double_eq_tol(json_object_get_double_member(a, "model_warps_needed"), 24, 1e-9);
  /* arithmetic latency: 6 cycles x 4 IPC = 24 warps reach (nearly all of) the peak */
  printf("arithmetic: 90%% of peak at %.0f warps, 95%% at %.0f (model: 24 for 100%%)\n",
         n90(c, "all", "warps_90_of_peak"), n90(c, "all", "warps_95_of_peak"));
  ck_assert_double_eq_tol(n90(c, "all", "warps_95_of_peak"), 23, 1);
  json_object_unref(c);
  g_object_unref(p);
}
END_TEST

START_TEST(test_maxwell_strided_and_random_loads)
{
  const char *args[] = {"--vary", "pattern=coalesced,stride2,random",
                        "--vary", "warps_per_sm=1:48",
                        "--set",  "alpha=0",
                        "--set",  "groups=200",
                        NULL};
  JsonParser *p;
  JsonObject *c = sweep_curves(args, &p);
  JsonObject *co = json_object_get_object_member(c, "pattern=coalesced");
  JsonObject *s2 = json_object_get_object_member(c, "pattern=stride2");
  JsonObject *rn = json_object_get_object_member(c, "pattern=random");
  double peak = json_object_get_double_member(co, "peak_ipc");
  double ps2 = json_object_get_double_member(s2, "max_ipc"),
         prn = json_object_get_double_member(rn, "max_ipc");
  printf("stride2 peak %.4f (1/%.1f of coalesced), random %.5f (1/%.1f); warps for 90%%: %.0f, "
         "%.0f\n",
         ps2, peak / ps2, prn, peak / prn, n90(c, "pattern=stride2", "warps_90_of_max"),
         n90(c, "pattern=random", "warps_90_of_max"));
  /* Volkov: stride 2 halves the peak (0.041) and needs 20 warps for 90 %; random loads peak
   * at 0.0029 (1/28) and need 3 */
  ck_assert(peak / ps2 >= 1.8 && peak / ps2 <= 2.3);
  ck_assert(peak / prn >= 24 && peak / prn <= 32);
  double ws2 = n90(c, "pattern=stride2", "warps_90_of_max");
  double wrn = n90(c, "pattern=random", "warps_90_of_max");
  ck_assert(ws2 >= 16 && ws2 <= 24);
  ck_assert(wrn >= 2 && wrn <= 4);
  json_object_unref(c);
  g_object_unref(p);
}
END_TEST

START_TEST(test_model_overlay_numbers)
{
  g_autofree char *gp = test_source_path(MAXWELL);
  g_autofree char *kp = test_source_path(MIX);
  const char *sets[] = {"alpha=49", "warps_per_sm=54", NULL};
  CfgGpu *g;
  CfgKernel *k;
  ck_assert(cfg_load_run(gp, kp, sets, &g, &k, NULL));
  SmModelPoint m;
  ck_assert(sm_model_mix(g, k, &m));
  /* Latency = 368 + 49 x 6 = 662; issue bound 4 / 50 = 0.08 loads/cycle: 53 warps */
  ck_assert_double_eq_tol(m.latency, 662, 1e-9);
  ck_assert_double_eq_tol(m.warps_needed, 662 * 0.08, 1e-9);
  ck_assert_str_eq(m.bound, "issue");
  ck_assert_double_eq_tol(m.throughput_bound, 4.0, 1e-9);
  ck_assert_double_eq_tol(m.cuda_guide, 368 * 4.0 / 49, 1e-9);
  cfg_gpu_free(g);
  cfg_kernel_free(k);
}
END_TEST

/* The overall MAPE of validating the H100 preset against a shared measurement file, the worst
 * curve's (*worst) and those of the curves named in @curves (NULL-terminated, e.g. "smem
 * alpha=0 ilp=1") in @curve_mape, or a negative number when the file is absent outside CI. */
static double
h100_mape(const char *file, guint rows, double *worst, const char *const *curves,
          double *curve_mape)
{
  g_autofree char *rel = g_strdup_printf("../shared/data/%s", file);
  g_autofree char *path = test_source_path(rel);
  if (!g_file_test(path, G_FILE_TEST_EXISTS)) {
    ck_assert_msg(g_getenv("CI") == NULL, "%s is missing", path);
    printf("no ../shared/data beside the source tree: validation skipped\n");
    return -1;
  }
  /* the quick loop and the sanitizers (test_sampled()): one row in four, every curve still
   * there */
  g_autofree char *sample = test_sampled() ? test_sample_rows(rel, 4, &rows) : NULL;
  const char *args[] = {"validate", "config/gpus/h100.yaml", sample ? sample : rel, NULL};
  g_autofree char *out = NULL, *err = NULL;
  ck_assert_int_eq(test_smsim(args, &out, &err), 0);
  const char *last = g_strrstr(out, "overall MAPE: ");
  ck_assert(last != NULL);
  printf("h100 validate %s: %s", file, last);
  g_autofree char *over = g_strdup_printf("over %u rows", rows);
  ck_assert(strstr(last, over) != NULL);
  /* the per-curve table: "NAME alpha=A ilp=I   ROWS   M.M%   W / W" */
  const char *table = strstr(out, "\ncurve ");
  ck_assert(table != NULL);
  g_auto(GStrv) lines = g_strsplit(table + 1, "\n", -1);
  *worst = 0;
  guint n_curves = 0, found = 0, wanted = curves ? g_strv_length((char **)curves) : 0;
  for (guint i = 1; lines[i] && !g_str_has_prefix(lines[i], "overall"); i++) {
    g_auto(GStrv) f = g_strsplit_set(lines[i], " ", -1);
    guint col = 0;
    for (guint j = 0; f[j]; j++) {
      if (!*f[j])
        continue;
      if (++col == 5) { /* name, alpha, ilp, rows, MAPE */
        double m = g_ascii_strtod(f[j], NULL);
        *worst = MAX(*worst, m);
        n_curves++;
        for (guint c = 0; c < wanted; c++)
          if (g_str_has_prefix(lines[i], curves[c]) && lines[i][strlen(curves[c])] == ' ') {
            curve_mape[c] = m;
            found++;
          }
      }
    }
  }
  ck_assert_uint_gt(n_curves, 0);
  ck_assert_uint_eq(found, wanted);
  printf("h100 validate %s: worst of %u curves %.1f%%\n", file, n_curves, *worst);
  return g_ascii_strtod(last + strlen("overall MAPE: "), NULL);
}

START_TEST(test_validate_h100_mixes_within_3_percent)
{
  /* the eight mixed curves: 1.7 % overall and 3.4 % on the worst curve (gmem alpha 64) when
   * this test was written; 2.0 % without the taken-branch cost, 2.5 % and 4.6 % (l2 alpha 48)
   * without the resume window, 2.4 % with a DRAM peak of 10.7 B/cycle, 3.6 % and 11.1 % before
   * block priority and last_resumed, 6.4 % before the write ports, the measured latency
   * distributions and the loop replay */
  static const char *const named[] = {"l2 alpha=48 ilp=1", "smem alpha=8 ilp=1", NULL};
  double worst, m[2], slack = test_sampled() ? 1.5 : 1.0; /* one row in four */
  double mape = h100_mape("h100-mixes.csv", 384, &worst, named, m);
  if (mape >= 0) {
    ck_assert(mape < 3.0);
    ck_assert_msg(worst <= 6.0, "worst curve %.1f %%", worst);
    /* warps back from memory within 128 cycles of each other take turns: 0.8 % (4.6 % when
     * only the very last takes priority, 2.2-3.3 % with a window of 64-80 cycles) */
    ck_assert_msg(m[0] < 2.0 * slack, "l2 alpha 48: %.1f %%", m[0]);
    /* a taken branch costs a lone warp 7 cycles an iteration: 2.4 % (3.2 % at 0) */
    ck_assert_msg(m[1] < 2.8 * slack, "smem alpha 8: %.1f %%", m[1]);
  }
}
END_TEST

START_TEST(test_validate_h100_calibration_within_2_percent)
{
  /* 1.1 % overall and 3.7 % on the worst curve (stride2) now; 1.2 % and 3.8 % when this test
   * was written, 1.3 % and 4.9 % with a DRAM peak of 10.7 B/cycle, 1.7 % before the
   * shared-memory turns and the L2 bandwidth */
  static const char *const named[] = {"smem alpha=0 ilp=1", "l2 alpha=0 ilp=1",
                                      "stride2 alpha=0 ilp=1", NULL};
  double worst, m[3], slack = test_sampled() ? 1.5 : 1.0; /* one row in four */
  double mape = h100_mape("h100-calibration.csv", 320, &worst, named, m);
  if (mape >= 0) {
    ck_assert(mape < 2.0);
    ck_assert_msg(worst <= 6.0, "worst curve %.1f %%", worst);
    /* the schedulers' turns at the shared-memory pipe: 0.7 % (2.3 % with a quarter each);
     * the L2 bandwidth read off its queueing: 0.3 % (1.6 % at 40 B/cycle) */
    ck_assert_msg(m[0] < 1.5 * slack, "smem alpha 0: %.1f %%", m[0]);
    ck_assert_msg(m[1] < 1.0 * slack, "l2 alpha 0: %.1f %%", m[1]);
    /* the DRAM peak at least what stride2 moves at 64 warps (10.98 B/cycle): 3.8 % (4.9 % at
     * 10.7) */
    ck_assert_msg(m[2] < 4.5 * slack, "stride2 alpha 0: %.1f %%", m[2]);
  }
}
END_TEST

START_TEST(test_sweep_output_does_not_depend_on_jobs)
{
  g_autofree char *a = test_write_temp("a.csv", "");
  g_autofree char *b = test_write_temp("b.csv", "");
  const char *one[] = {
      "sweep", MAXWELL,     MIX,     "--vary", "alpha=0,2", "--vary", "warps_per_sm=4:40:4",
      "--set", "groups=30", "--csv", a,        "--jobs",    "1",      NULL};
  const char *two[] = {
      "sweep", MAXWELL,     MIX,     "--vary", "alpha=0,2", "--vary", "warps_per_sm=4:40:4",
      "--set", "groups=30", "--csv", b,        "--jobs",    "2",      NULL};
  g_autofree char *o1 = NULL, *e1 = NULL, *o2 = NULL, *e2 = NULL;
  ck_assert_int_eq(test_smsim(one, &o1, &e1), 0);
  ck_assert_int_eq(test_smsim(two, &o2, &e2), 0);
  g_autofree char *ta = NULL, *tb = NULL;
  ck_assert(g_file_get_contents(a, &ta, NULL, NULL) && g_file_get_contents(b, &tb, NULL, NULL));
  ck_assert_str_eq(ta, tb);
  ck_assert(g_str_has_prefix(ta, "alpha,warps_per_sm,cycles,ipc_total,ipc_alu,ipc_sfu,ipc_ldst,"
                                 "mem_bytes_per_cycle,mean_mem_latency,achieved_occupancy,"
                                 "model_latency_bound,model_throughput_bound,model_ipc\n"));
  /* header + 2 x 10 points */
  guint lines = 0;
  for (const char *c = ta; *c; c++)
    lines += *c == '\n';
  ck_assert_uint_eq(lines, 21);
}
END_TEST

START_TEST(test_sweep_writes_plots)
{
  g_autofree char *png = test_write_temp("t.png", "");
  g_autofree char *svg = test_write_temp("t.svg", "");
  const char *a[] = {
      "sweep", MAXWELL,     MIX,      "--vary", "alpha=0,8", "--vary", "warps_per_sm=8:64:8",
      "--set", "groups=20", "--plot", png,      NULL};
  const char *b[] = {"sweep",
                     MAXWELL,
                     MIX,
                     "--vary",
                     "alpha=1,4,16,64,256",
                     "--vary",
                     "warps_per_sm=8:64:8",
                     "--set",
                     "groups=20",
                     "--plot",
                     svg,
                     NULL};
  g_autofree char *o = NULL, *e = NULL, *o2 = NULL, *e2 = NULL;
  ck_assert_int_eq(test_smsim(a, &o, &e), 0);
  ck_assert_int_eq(test_smsim(b, &o2, &e2), 0);
  g_autofree char *t = NULL, *s = NULL;
  gsize n = 0;
  ck_assert(g_file_get_contents(png, &t, &n, NULL));
  ck_assert(n > 1000 && memcmp(t, "\x89PNG", 4) == 0);
  ck_assert(g_file_get_contents(svg, &s, NULL, NULL));
  ck_assert(strstr(s, "<svg") != NULL);
}
END_TEST

START_TEST(test_plot_y_divides_a_column_by_a_key)
{
  g_autoptr(SmSweep) sw = sm_sweep_new();
  const char *varies[] = {"elements=10,20", "warps_per_sm=4,8"};
  for (guint i = 0; i < 2; i++)
    ck_assert(sm_sweep_add_vary(sw, sm_vary_parse(varies[i], NULL), NULL));
  sm_sweep_make_points(sw);
  SmPlotY y;
  ck_assert(sm_sweep_plot_y(sw, "cycles/elements", NULL, &y, NULL));
  ck_assert_uint_eq(y.column, 0);
  ck_assert_str_eq(y.label, "cycles / elements");
  const double want[] = {10, 10, 20, 20};
  for (guint p = 0; p < 4; p++)
    ck_assert_double_eq(y.divisor[p], want[p]);
  sm_plot_y_clear(&y);
  const char *sets[] = {"iters=8", "iters=16", NULL};
  ck_assert(sm_sweep_plot_y(sw, "mem_bytes_per_cycle/iters", sets, &y, NULL));
  ck_assert_double_eq(y.divisor[3], 16); /* the last --set wins */
  sm_plot_y_clear(&y);
  GError *error = NULL;
  ck_assert(!sm_sweep_plot_y(sw, "speed", NULL, &y, &error));
  ck_assert(g_str_has_prefix(error->message, "--plot-y speed: 'speed' is not a column (cycles,"));
  g_clear_error(&error);
  ck_assert(!sm_sweep_plot_y(sw, "cycles/work", NULL, &y, &error));
  ck_assert_str_eq(error->message,
                   "--plot-y cycles/work: work is neither varied nor set (give it with --vary or "
                   "--set)");
  g_clear_error(&error);
  const char *zero[] = {"iters=0", NULL};
  ck_assert(!sm_sweep_plot_y(sw, "cycles/iters", zero, &y, &error));
  ck_assert_str_eq(error->message, "--plot-y cycles/iters: iters=0 is not a positive number");
  g_clear_error(&error);
  /* from the command line: a plot, and a refusal without a throughput plot */
  g_autofree char *png = test_write_temp("y.png", "");
  const char *ok[] = {"sweep",
                      "config/gpus/h100.yaml",
                      "isa/kernels/banks.yaml",
                      "--vary",
                      "stride=1,2",
                      "--vary",
                      "warps_per_sm=1,2",
                      "--set",
                      "iters=2",
                      "--plot",
                      png,
                      "--plot-y",
                      "cycles/iters",
                      NULL};
  g_autofree char *o = NULL, *e = NULL;
  ck_assert_int_eq(test_smsim(ok, &o, &e), 0);
  /* merge: the key comes from the parts' --set */
  g_autofree char *dir = g_path_get_dirname(png);
  g_autofree char *p1 = g_build_filename(dir, "p1.csv", NULL),
                  *p2 = g_build_filename(dir, "p2.csv", NULL);
  for (guint k = 1; k <= 2; k++) {
    g_autofree char *shard = g_strdup_printf("%u/2", k);
    const char *part[] = {"sweep",
                          "config/gpus/h100.yaml",
                          "isa/kernels/banks.yaml",
                          "--vary",
                          "stride=1,2",
                          "--vary",
                          "warps_per_sm=1,2",
                          "--set",
                          "iters=2",
                          "--shard",
                          shard,
                          "--csv",
                          k == 1 ? p1 : p2,
                          NULL};
    g_autofree char *po = NULL, *pe = NULL;
    ck_assert_int_eq(test_smsim(part, &po, &pe), 0);
  }
  const char *merged[] = {"merge", p1, p2, "--plot", png, "--plot-y", "cycles/iters", NULL};
  const char *badkey[] = {"merge", p1, p2, "--plot", png, "--plot-y", "cycles/nope", NULL};
  g_autofree char *mo = NULL, *me = NULL, *bo = NULL, *be = NULL;
  ck_assert_int_eq(test_smsim(merged, &mo, &me), 0);
  ck_assert_int_eq(test_smsim(badkey, &bo, &be), 2);
  ck_assert_msg(strstr(be, "--plot-y cycles/nope: nope is neither varied nor set") != NULL, "%s",
                be);
  const char *noplot[] = {"sweep", MAXWELL, MIX, "--vary", "alpha=1", "--plot-y", "cycles", NULL};
  g_autofree char *o2 = NULL, *e2 = NULL;
  ck_assert_int_eq(test_smsim(noplot, &o2, &e2), 2);
  ck_assert_msg(strstr(e2, "--plot-y: only for a throughput plot") != NULL, "%s", e2);
}
END_TEST

static void
assert_rejected(const char *const *args, const char *expect)
{
  g_autofree char *out = NULL, *err = NULL;
  ck_assert_int_eq(test_smsim(args, &out, &err), 2);
  ck_assert_msg(strstr(err, expect) != NULL, "expected '%s' in '%s'", expect, err);
  ck_assert_str_eq(out, "");
}

START_TEST(test_bad_sweeps_and_measurements)
{
  g_autofree char *bad =
      test_write_temp("m.csv", "kind,alpha,ilp,warps_per_sm,groups_per_warp,"
                               "ipc_total\ngmem,0,1,4,10,0.01\nvector,0,1,4,10,1\n");
  g_autofree char *nocol = test_write_temp("m.csv", "kind,alpha,ilp,warps_per_sm\n");
  g_autofree char *dir = g_path_get_dirname(bad);
  g_autofree char *unwritable = g_build_filename(dir, "no", "such", "dir", "x.csv", NULL);
  const char *a[] = {"sweep", MAXWELL, MIX, "--vary", "nosuch=1,2", NULL};
  const char *b[] = {"sweep", MAXWELL, MIX, "--vary", "warps_per_sm=8:4", NULL};
  const char *c[] = {"sweep", MAXWELL, MIX, "--vary", "alpha=1,,2", NULL};
  const char *d[] = {"sweep", MAXWELL, MIX, "--vary", "warps_per_sm=65:80", NULL};
  const char *e[] = {"sweep", MAXWELL, MIX, "--vary", "alpha=1", "--csv", unwritable, NULL};
  const char *f[] = {"sweep", MAXWELL, MIX, "--vary", "alpha=1", "--plot", "x.jpg", NULL};
  const char *g[] = {"sweep", MAXWELL, MIX, NULL};
  const char *h[] = {"validate", MAXWELL, bad, NULL};
  const char *i[] = {"validate", MAXWELL, nocol, NULL};
  assert_rejected(a, "--vary nosuch: no kernel parameter");
  assert_rejected(b, "--vary warps_per_sm: empty range '8:4'");
  assert_rejected(c, "--vary alpha: empty value in the list '1,,2'");
  assert_rejected(d, "65 warps per SM is impossible"); /* none left (test-cli.c: some left) */
  g_autofree char *eo = NULL, *ee = NULL;
  ck_assert_int_eq(test_smsim(e, &eo, &ee), 1); /* an output, not the input: status 1 */
  ck_assert_msg(strstr(ee, "x.csv: cannot write") != NULL, "%s", ee);
  assert_rejected(f, "x.jpg: plots are written as .png or .svg");
  assert_rejected(g, "sweep needs at least one --vary");
  assert_rejected(h, "m.csv:3:1: kind 'vector' is not one of");
  assert_rejected(i, "m.csv:1:1: no column 'groups_per_warp' in the header");
  ck_assert(!g_file_test(unwritable, G_FILE_TEST_EXISTS));
}
END_TEST

static Suite *
sweep_suite(void)
{
  Suite *s = suite_create("sweep");
  TCase *volkov = tcase_create("volkov");
  tcase_add_test(volkov, test_maxwell_cusp_emerges);
  tcase_add_test(volkov, test_maxwell_limits_need_24_and_30_warps_and_saturate_gradually);
  tcase_add_test(volkov, test_maxwell_strided_and_random_loads);
  tcase_add_test(volkov, test_model_overlay_numbers);
  suite_add_tcase(s, volkov);
  TCase *h100 = tcase_create("h100");
  tcase_add_test(h100, test_validate_h100_calibration_within_2_percent);
  tcase_add_test(h100, test_validate_h100_mixes_within_3_percent);
  suite_add_tcase(s, h100);
  TCase *tools = tcase_create("tools");
  tcase_add_test(tools, test_sweep_output_does_not_depend_on_jobs);
  tcase_add_test(tools, test_plot_y_divides_a_column_by_a_key);
  tcase_add_test(tools, test_sweep_writes_plots);
  tcase_add_test(tools, test_bad_sweeps_and_measurements);
  suite_add_tcase(s, tools);
  return s;
}

int
main(void)
{
  return test_run_suite(sweep_suite());
}
