/* The smsim binary: outputs, determinism, and bad input (one line, exit status 2). */
#include <check.h>
#include <json-glib/json-glib.h>
#include <string.h>

#include "helpers.h"

#define MAXWELL "config/gpus/maxwell.yaml"
#define MIX "isa/kernels/mix.yaml"
#define H100 "config/gpus/h100.yaml"

/* Every string of the NULL-ended @expect is in @out. */
static void
assert_has_all(const char *out, const char *const *expect)
{
  for (guint i = 0; expect[i]; i++)
    ck_assert_msg(strstr(out, expect[i]) != NULL, "missing '%s' in:\n%s", expect[i], out);
}

START_TEST(test_run_prints_every_result)
{
  const char *args[] = {"run",   MAXWELL,   MIX,     "--set",     "warps_per_sm=8",
                        "--set", "alpha=2", "--set", "groups=10", NULL};
  g_autofree char *out = NULL, *err = NULL;
  ck_assert_int_eq(test_smsim(args, &out, &err), 0);
  ck_assert_str_eq(err, "");
  const char *expect[] = {"warps       8 per SM (1 block of 256 threads), 4 schedulers\n",
                          "cycles ", "issued      240 warp-instructions: alu 160 sfu 0 ldst 80",
                          "IPC/SM ", "requests/cycle", "bytes/cycle", "mean load latency",
                          "theoretical 0.125, achieved", "long_scoreboard", "not_selected",
                          "lg_throttle", "issue slots",
                          /* 380-cycle groups of 3: 8 / 380 x 3; peak 0.0814 x 3; 380 x 0.0814 */
                          "model       Volkov: 0.0632 (latency bound 0.0632, memory-bound peak "
                          "0.2442), Little's law needs 30.9 warps",
                          NULL};
  assert_has_all(out, expect);
}
END_TEST

START_TEST(test_run_json_is_one_object_with_the_same_numbers)
{
  const char *args[] = {"run",   MAXWELL,     MIX,      "--set", "warps_per_sm=8",
                        "--set", "groups=10", "--json", NULL};
  g_autofree char *out = NULL, *err = NULL;
  ck_assert_int_eq(test_smsim(args, &out, &err), 0);
  g_autoptr(JsonParser) p = json_parser_new();
  ck_assert(json_parser_load_from_data(p, out, -1, NULL));
  JsonObject *o = json_node_get_object(json_parser_get_root(p));
  gint64 cycles = json_object_get_int_member(o, "cycles");
  JsonObject *issued = json_object_get_object_member(o, "issued");
  ck_assert_int_eq(json_object_get_int_member(issued, "total"), 8 * 10 * 9);
  double ipc = json_object_get_double_member(json_object_get_object_member(o, "ipc"), "total");
  ck_assert_double_eq_tol(ipc, 720.0 / cycles, 1e-12);
  JsonObject *states = json_object_get_object_member(o, "warp_states");
  gint64 sum = 0;
  GList *names = json_object_get_members(states);
  for (GList *l = names; l; l = l->next)
    sum +=
        json_object_get_int_member(json_object_get_object_member(states, l->data), "warp_cycles");
  g_list_free(names);
  ck_assert_int_eq(sum, 8 * cycles);
  ck_assert_str_eq(
      json_object_get_string_member(json_object_get_object_member(o, "params"), "alpha"), "8");
  /* in the units measuring programs print: milliseconds at the preset's 1266 MHz, and
   * gigabytes a second moved by all simulated SMs (one here) */
  ck_assert_double_eq_tol(json_object_get_double_member(o, "milliseconds"), cycles / 1266e3, 1e-15);
  JsonObject *mem = json_object_get_object_member(o, "memory");
  double bpc = json_object_get_double_member(mem, "bytes_per_cycle");
  ck_assert_double_gt(bpc, 0);
  ck_assert_double_eq_tol(json_object_get_double_member(mem, "gigabytes_per_second"), bpc * 1.266,
                          1e-9);
}
END_TEST

START_TEST(test_two_runs_print_identical_bytes)
{
  const char *args[] = {"run",
                        "config/gpus/h100.yaml",
                        MIX,
                        "--set",
                        "warps_per_sm=40",
                        "--set",
                        "alpha=1",
                        "--set",
                        "memory.dram.service=exponential",
                        "--json",
                        NULL};
  g_autofree char *a = NULL, *b = NULL, *e1 = NULL, *e2 = NULL;
  ck_assert_int_eq(test_smsim(args, &a, &e1), 0);
  ck_assert_int_eq(test_smsim(args, &b, &e2), 0);
  ck_assert_str_eq(a, b);
}
END_TEST

/* The JSON of a run with its fast_forward_cycles member taken out, and that member. */
static char *
json_without_fast_forward(const char *json, gint64 *ff)
{
  g_autoptr(JsonParser) p = json_parser_new();
  ck_assert(json_parser_load_from_data(p, json, -1, NULL));
  JsonObject *o = json_node_get_object(json_parser_get_root(p));
  *ff = json_object_get_int_member(o, "fast_forward_cycles");
  json_object_remove_member(o, "fast_forward_cycles");
  return json_to_string(json_parser_get_root(p), FALSE);
}

START_TEST(test_no_fast_forward_prints_the_same_numbers)
{
  const char *args[] = {
      "run",     H100,    "isa/kernels/mix.yaml", "--set", "other=LDS",       "--set",
      "alpha=2", "--set", "groups=3000",          "--set", "warps_per_sm=32", "--json",
      NULL,      NULL};
  g_autofree char *a = NULL, *b = NULL, *e1 = NULL, *e2 = NULL;
  ck_assert_int_eq(test_smsim(args, &a, &e1), 0);
  args[12] = "--no-fast-forward";
  ck_assert_int_eq(test_smsim(args, &b, &e2), 0);
  gint64 ffa, ffb;
  g_autofree char *ja = json_without_fast_forward(a, &ffa);
  g_autofree char *jb = json_without_fast_forward(b, &ffb);
  ck_assert_int_gt(ffa, 100000); /* most of the 3000 groups repeat one period */
  ck_assert_int_eq(ffb, 0);
  ck_assert_str_eq(ja, jb);
  /* the text report says so */
  const char *text[] = {"run",        H100,    "isa/kernels/mix.yaml", "--set",
                        "other=none", "--set", "groups=2000",          NULL};
  g_autofree char *out = NULL, *err = NULL;
  ck_assert_int_eq(test_smsim(text, &out, &err), 0);
  ck_assert_ptr_nonnull(strstr(out, "fast-forwarded: a periodic state repeated)"));
}
END_TEST

START_TEST(test_describe_fills_defaults_and_derives_peaks)
{
  const char *args[] = {"describe", MAXWELL, NULL};
  g_autofree char *out = NULL, *err = NULL;
  ck_assert_int_eq(test_smsim(args, &out, &err), 0);
  const char *expect[] = {"queue_depth: 32",
                          "service: deterministic",
                          "peak_issue_ipc: 4",
                          "alu: 24.0",
                          "dram: 30.0",
                          "peak_line_loads_per_cycle: 0.08141",
                          NULL};
  assert_has_all(out, expect);
}
END_TEST

/* A kernel file described: its parameters with their defaults and the comments beside them
 * (continued on the comment lines below), and its requirements' messages. */
START_TEST(test_describe_lists_a_kernels_parameters)
{
  const char *args[] = {"describe", MIX, NULL};
  g_autofree char *out = NULL, *err = NULL;
  ck_assert_int_eq(test_smsim(args, &out, &err), 0);
  const char *expect[] = {
      "name: mix\n", "  alpha: 8           # FADDs per other instruction (arithmetic intensity)\n",
      "  window: 1073741824 # level cached: bytes the loads chase a random cycle over (the "
      "measurement: 1 GiB for gmem, stride2 and random, 8 MiB for l2)\n",
      NULL};
  assert_has_all(out, expect);
  const char *lines[] = {"describe", "isa/kernels/h100/mempipe-lines.yaml", NULL};
  g_autofree char *out2 = NULL, *err2 = NULL;
  ck_assert_int_eq(test_smsim(lines, &out2, &err2), 0);
  ck_assert_ptr_nonnull(strstr(out2, "  iters: 64\n")); /* no comment: none printed */
  ck_assert_ptr_nonnull(strstr(out2, "require:     # what the parameters must satisfy\n"
                                     "  - op is ld_l1, ld_l2, ld_dram, st_l2 or st_dram\n"));
}
END_TEST

/* A sweep leaves out the points the GPU cannot hold, a line each on stderr, and runs the others;
 * with none left it fails with the first one's reason. */
START_TEST(test_a_sweep_leaves_out_impossible_points)
{
  const char *args[] = {"sweep", H100,       MIX, "--vary", "warps_per_sm=1,32,200",
                        "--set", "groups=8", NULL};
  g_autofree char *out = NULL, *err = NULL;
  ck_assert_int_eq(test_smsim(args, &out, &err), 0);
  ck_assert_str_eq(err, "smsim sweep: warps_per_sm=200: left out, it cannot run: "
                        "isa/kernels/mix.yaml:38:15: 200 warps per SM is impossible: the GPU "
                        "holds at most 64 (parameters set with --set: warps_per_sm=200, "
                        "groups=8)\n");
  ck_assert_ptr_nonnull(strstr(out, "\n             1 "));
  ck_assert_ptr_nonnull(strstr(out, "\n            32 "));
  ck_assert_ptr_null(strstr(out, "\n           200 "));
  /* and listed where the results are */
  ck_assert(g_str_has_suffix(out, "\nleft out: 1 point this GPU cannot run (warps_per_sm=200)\n"));
  /* --csv keeps the table on the terminal */
  g_autofree char *csv = test_write_temp("s.csv", "");
  g_autofree char *json = test_write_temp("s.json", "");
  const char *with_csv[] = {"sweep", H100,       MIX,     "--vary", "warps_per_sm=1,32,200",
                            "--set", "groups=8", "--csv", csv,      "--json",
                            json,    NULL};
  g_autofree char *out3 = NULL, *err3 = NULL;
  ck_assert_int_eq(test_smsim(with_csv, &out3, &err3), 0);
  ck_assert_ptr_nonnull(strstr(out3, "\n            32 "));
  ck_assert_ptr_nonnull(strstr(out3, "\nwrote "));
  /* and the CSV has the point left out last, without results */
  g_autofree char *text = NULL;
  ck_assert(g_file_get_contents(csv, &text, NULL, NULL));
  ck_assert_msg(g_str_has_suffix(text, "\n200,,,,,,,,,,,\n"), "%s", text);
  /* and the JSON lists it apart from the points */
  g_autoptr(JsonParser) jp = json_parser_new();
  ck_assert(json_parser_load_from_file(jp, json, NULL));
  JsonObject *root = json_node_get_object(json_parser_get_root(jp));
  ck_assert_uint_eq(json_array_get_length(json_object_get_array_member(root, "points")), 2);
  JsonArray *left = json_object_get_array_member(root, "left_out");
  ck_assert_uint_eq(json_array_get_length(left), 1);
  ck_assert_str_eq(
      json_object_get_string_member(json_array_get_object_element(left, 0), "warps_per_sm"), "200");
  const char *none[] = {"sweep", H100, MIX, "--vary", "warps_per_sm=100,200", NULL};
  g_autofree char *out2 = NULL, *err2 = NULL;
  ck_assert_int_eq(test_smsim(none, &out2, &err2), 2);
  ck_assert_ptr_nonnull(strstr(err2, "100 warps per SM is impossible"));
  ck_assert_ptr_null(strstr(err2, "200"));
}
END_TEST

/* Bad input: exactly one line on stderr, nothing on stdout, exit status 2. */
static void
assert_rejected(const char *const *args, const char *expect)
{
  g_autofree char *out = NULL, *err = NULL;
  int status = test_smsim(args, &out, &err);
  ck_assert_msg(status == 2, "exit %d for '%s', stderr: %s", status, args[1], err);
  ck_assert_str_eq(out, "");
  ck_assert_msg(strchr(err, '\n') == err + strlen(err) - 1, "not one line: '%s'", err);
  ck_assert_msg(strstr(err, expect) != NULL, "expected '%s' in '%s'", expect, err);
}

START_TEST(test_bad_input_is_one_line_and_exit_two)
{
  g_autofree char *unknown =
      test_write_temp("gpu.yaml", "schedulrs: 4\nmemory:\n  dram: "
                                  "{latency_cycles: 9, bytes_per_cycle: 1}\n");
  g_autofree char *negative =
      test_write_temp("gpu.yaml", "memory:\n  dram: {latency_cycles: -400, bytes_per_cycle: 1}\n");
  g_autofree char *lanes = test_write_temp(
      "gpu.yaml", "units:\n  alu: {lanes_per_scheduler: 24}\nmemory:\n  dram: {latency_cycles: "
                  "9, bytes_per_cycle: 1}\n");
  g_autofree char *badop = test_write_temp(
      "k.yaml", "warps_per_sm: 4\nstream: |\n  repeat 4 {\n    FMAX R1, R1, R2\n  }\n");
  g_autofree char *braces =
      test_write_temp("k.yaml", "warps_per_sm: 4\nstream: |\n  repeat 4 {\n    FADD R1, R1, R2\n");
  g_autofree char *nosmem =
      test_write_temp("k.yaml", "warps_per_sm: 4\nstream: |\n  LDGSTS [R1], [R2]\n  LDGDEPBAR\n");
  g_autofree char *depbar =
      test_write_temp("k.yaml", "warps_per_sm: 4\nstream: |\n  LDGDEPBAR\n  DEPBAR.LE SB0, 99\n");
  g_autofree char *store =
      test_write_temp("k.yaml", "warps_per_sm: 4\nstream: |\n  FADD R1, R1, R2\n  STS R1, [R2]\n");
  g_autofree char *binary = test_write_temp("gpu.yaml", "\xff\xfe\xfd");
  g_autofree char *dir = g_path_get_dirname(binary);
  struct {
    const char *args[12];
    const char *expect;
  } cases[] = {
      {{"run", unknown, MIX, NULL}, "gpu.yaml:1:1: unknown key 'schedulrs'"},
      {{"run", negative, MIX, NULL}, "gpu.yaml:2:26: latency_cycles: must be at least 1, got -400"},
      {{"run", lanes, MIX, NULL}, "gpu.yaml:2:30: lanes_per_scheduler must divide 32"},
      {{"run", MAXWELL, badop, NULL}, "k.yaml:4:5: unknown op 'FMAX'"},
      {{"run", MAXWELL, braces, NULL}, "k.yaml:3:12: '{' is never closed"},
      {{"run", H100, nosmem, NULL},
       "k.yaml:3:3: LDGSTS needs shared memory: the kernel declares no shared_memory_per_block"},
      {{"run", MAXWELL, nosmem, "--set", "shared_memory_per_block=1024", NULL},
       "k.yaml:3:3: LDGSTS: NVIDIA GeForce GTX 980 (Maxwell) has no asynchronous copies"},
      {{"run", H100, depbar, NULL},
       "k.yaml:4:18: DEPBAR.LE's count of outstanding groups must "
       "be a whole number from 0 to 63, got 99"},
      {{"run", H100, store, NULL}, "k.yaml:4:7: STS writes no register"},
      {{"run", H100, "isa/kernels/memcpy.yaml", "--set", "width=12", NULL},
       "memcpy.yaml:39:5: width must be 4, 8 or 16 bytes per lane, not 12"},
      {{"run", "no/such/gpu.yaml", MIX, NULL}, "no/such/gpu.yaml: cannot read: No such file"},
      {{"run", dir, MIX, NULL}, ": cannot read: "},
      {{"run", binary, MIX, NULL}, "gpu.yaml:1:1: not a UTF-8 text file"},
      {{"run", MAXWELL, MIX, "--set", "nosuchkey=3", NULL}, "--set nosuchkey: no kernel parameter"},
      {{"run", MAXWELL, MIX, "--set", "memory.dram.channels=0", NULL},
       "--set memory.dram.channels: must be at least 1, got 0"},
      {{"run", MAXWELL, MIX, "--set", "alpha=lots", NULL}, "'lots' is not a number"},
      {{"run", MAXWELL, MIX, "--set", "warps_per_sm=100", NULL},
       "100 warps per SM is impossible: the GPU holds at most 64"},
      {{"run", H100, MIX, "--set", "warps_per_sm=2000", NULL},
       "2000 warps per SM is impossible: the GPU holds at most 64"},
      {{"run", MIX, H100, NULL},
       "mix.yaml:14:1: this is a kernel file (it has 'stream', 'function' or 'params'), not a "
       "GPU: the GPU file comes first"},
      {{"run", H100, H100, NULL},
       "h100.yaml:5:1: this is a GPU file (it has 'schedulers', 'units' or 'memory'), not a "
       "kernel: the GPU file comes first"},
      {{"describe", MIX, "--set", "alpha=2", NULL}, "describe KERNEL.yaml takes no --set"},
      {{"run", H100, MIX, "--set", "alpha=-3", NULL},
       "mix.yaml:36:12: alpha is 0 or more: FADDs per other instruction"},
      {{"run", MAXWELL, NULL}, "run needs GPU.yaml and KERNEL.yaml"},
      {{"run", MAXWELL, MIX, "--bogus", NULL}, "Unknown option --bogus"},
      {{"frobnicate", NULL}, "unknown command 'frobnicate'"},
      {{"rnu", NULL}, "unknown command 'rnu'; did you mean 'run'?"},
      {{"run", MAXWELL, MIX, "--set", "other=LDX", NULL},
       "mix.yaml:60:17: unknown op 'LDX'; did you mean 'LDG'? (ops: FADD, FMUL, FFMA,"},
      {{"explain", "longscoreboard", NULL},
       "explain: no topic 'longscoreboard'; did you mean 'long_scoreboard'?"},
      {{"explain", "wait", "h100", "mix", NULL}, "only 'explain littles-law' takes a GPU and"},
      {{"run", MAXWELL, MIX, "--trace", "/tmp/x.txt", "--trace-scale", "0", NULL},
       "--trace-scale 0: expected a whole number of cycles a column, at least 1"},
      {{"run", MAXWELL, MIX, "--trace-scale", "8", NULL},
       "--trace-window, --trace-warps and --trace-scale need --trace FILE"},
      {{"run", "h10", "mix", NULL},
       "h10: no such file, and no GPU of that name (did you mean 'h100'? 'smsim list gpus' "
       "shows them all)"},
      {{"run", "h100", "saxpy", NULL}, "did you mean 'textbook/saxpy'?"},
      {{"run", "mix", "h100", NULL}, "mix: names a kernel ("},
      {{"run", "config/gpus/h10.yaml", "mix", NULL}, "config/gpus/h10.yaml: cannot read"},
      {{"describe", "maxwel", NULL}, "no GPU or kernel of that name (did you mean 'maxwell'?"},
      {{"list", "gpu", NULL}, "list takes gpus, kernels or keys, not 'gpu'"},
      {{"list", "keys", NULL}, "list keys needs a GPU"},
      {{"--man-page", "3", NULL}, "--man-page takes 1 (smsim) or 5 (smsim-config)"},
      {{"--completion", "tcsh", NULL}, "--completion takes bash"},
      {{"describe", MAXWELL, "--set", "policy=random", NULL},
       "--set policy: 'policy' must be one of lrr, gto, oldest, two_level, last_resumed, got "
       "'random'"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++)
    assert_rejected(cases[i].args, cases[i].expect);
}
END_TEST

START_TEST(test_names_run_as_paths_do)
{
  const char *by_path[] = {"run", MAXWELL, MIX, "--set", "warps_per_sm=8", NULL};
  const char *by_name[] = {"run", "maxwell", "mix.yaml", "--set", "warps_per_sm=8", NULL};
  g_autofree char *a = NULL, *b = NULL, *err_a = NULL, *err_b = NULL;
  ck_assert_int_eq(test_smsim(by_path, &a, &err_a), 0);
  ck_assert_int_eq(test_smsim(by_name, &b, &err_b), 0);
  ck_assert_str_eq(a, b);
  ck_assert_msg(strstr(a, "cycles      ") != NULL, "%s", a);
}
END_TEST

START_TEST(test_list_says_what_names_find_and_where)
{
  g_autofree char *out = NULL, *err = NULL;
  const char *list[] = {"list", NULL};
  ck_assert_int_eq(test_smsim(list, &out, &err), 0);
  g_autofree char *gpus = test_source_path("config/gpus");
  g_autofree char *head = g_strdup_printf("GPUs in %s (source tree):\n", gpus);
  ck_assert_msg(g_str_has_prefix(out, head), "%s", out);
  ck_assert_msg(strstr(out, "  h100       NVIDIA H100 SXM (Hopper)\n"), "%s", out);
  ck_assert_msg(strstr(out, "\n\nkernels in "), "%s", out);
  ck_assert_msg(strstr(out, "  textbook/saxpy            y = a x + y over n floats, a "
                            "grid-stride loop (textbook.cu)\n"),
                "%s", out);
  g_autofree char *names = NULL, *err2 = NULL;
  const char *list_names[] = {"list", "gpus", "--names", NULL};
  ck_assert_int_eq(test_smsim(list_names, &names, &err2), 0);
  ck_assert_str_eq(names, "fermi\ng80\ngt200\nh100\nkepler\nmaxwell\ntoy-fig47\n");
  g_autofree char *keys = NULL, *err3 = NULL;
  const char *list_keys[] = {"list", "keys", "h100", "mix", "--names", NULL};
  ck_assert_int_eq(test_smsim(list_keys, &keys, &err3), 0);
  const char *expect_keys[] = {"\nalpha\n",
                               "\nwarps_per_sm\n",
                               "\nclock_mhz\n",
                               "\nlimits.max_warps\n",
                               "\nunits.alu.latency_cycles\n",
                               "\nmemory.dram.latency_cycles\n",
                               "\nmemory.l2.bytes_per_cycle\n",
                               "\ncaches.l1.unified_bytes\n",
                               "\nsass.fetch_cycles\n",
                               "\nsass.yield_hints\n",
                               "\nsass.branch.bsync_cycles\n",
                               NULL};
  assert_has_all(keys, expect_keys);
  g_autofree char *version = NULL, *err4 = NULL;
  const char *v[] = {"--version", NULL};
  ck_assert_int_eq(test_smsim(v, &version, &err4), 0);
  ck_assert_msg(g_str_has_prefix(version, "smsim 0.") && strstr(version, "\nbuild: "), "%s",
                version);
}
END_TEST

START_TEST(test_explain_says_what_each_state_and_number_means)
{
  /* every warp state of the report has its explanation */
  for (guint st = 0; st < SM_STATE_COUNT; st++) {
    const char *args[] = {"explain", sm_state_name(st), NULL};
    g_autofree char *out = NULL, *err = NULL;
    ck_assert_int_eq(test_smsim(args, &out, &err), 0);
    g_autofree char *head = g_strdup_printf("%s: ", sm_state_name(st));
    ck_assert_msg(g_str_has_prefix(out, head) && strlen(out) > 100, "%s", out);
  }
  /* both Little's-law numbers for the H100's mix, from their inputs: describe's 714 x 11/128
   * and run's (714 + the 8 FADDs' chain) x the same, past what the H100 holds */
  const char *ll[] = {"explain", "littles-law", "h100", "mix", NULL};
  g_autofree char *out = NULL, *err = NULL;
  ck_assert_int_eq(test_smsim(ll, &out, &err), 0);
  const char *expect[] = {
      "  describe: dram latency 714 cycles x 0.08594 line loads a cycle (11 bytes a cycle / "
      "128-byte lines) = 61.4 warps\n",
      "  run:      a group's latency 746 cycles (the other instruction's 714, then the dependent "
      "ALU ops') x 0.08594 groups a cycle (memory-bound) = 64.1 warps\n",
      "  64.1 warps is more than the 64 this GPU holds per SM", NULL};
  assert_has_all(out, expect);
  /* and run says so under its model line; with alpha 1 the chain is short enough */
  const char *run[] = {"run", "h100", "mix", NULL};
  const char *run1[] = {"run", "h100", "mix", "--set", "alpha=1", NULL};
  g_autofree char *r = NULL, *r1 = NULL, *e = NULL, *e1 = NULL;
  ck_assert_int_eq(test_smsim(run, &r, &e), 0);
  ck_assert_int_eq(test_smsim(run1, &r1, &e1), 0);
  ck_assert_msg(strstr(r, "\nnote        Little's law needs 64.1 warps, more than the 64 this "
                          "GPU holds per SM"),
                "%s", r);
  ck_assert_msg(strstr(r1, "\nnote ") == NULL, "%s", r1);
}
END_TEST

static Suite *
cli_suite(void)
{
  Suite *s = suite_create("cli");
  TCase *tc = tcase_create("run");
  tcase_add_test(tc, test_run_prints_every_result);
  tcase_add_test(tc, test_run_json_is_one_object_with_the_same_numbers);
  tcase_add_test(tc, test_two_runs_print_identical_bytes);
  tcase_add_test(tc, test_no_fast_forward_prints_the_same_numbers);
  tcase_add_test(tc, test_describe_fills_defaults_and_derives_peaks);
  tcase_add_test(tc, test_describe_lists_a_kernels_parameters);
  tcase_add_test(tc, test_a_sweep_leaves_out_impossible_points);
  tcase_add_test(tc, test_names_run_as_paths_do);
  tcase_add_test(tc, test_list_says_what_names_find_and_where);
  tcase_add_test(tc, test_explain_says_what_each_state_and_number_means);
  suite_add_tcase(s, tc);
  TCase *bad = tcase_create("bad input");
  tcase_add_test(bad, test_bad_input_is_one_line_and_exit_two);
  suite_add_tcase(s, bad);
  return s;
}

int
main(void)
{
  return test_run_suite(cli_suite());
}
