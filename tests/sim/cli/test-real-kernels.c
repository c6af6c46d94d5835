/* The shipped textbook kernels run from their SASS by smsim run compute what their C
 * references do (buffers read back with --dump-initial and --dump), and --dump refuses what
 * it cannot do. */
#include "helpers.h"

#include <math.h>
#include <string.h>

static float *
read_floats(const char *dir, const char *name, gsize *n)
{
  g_autofree char *path = g_build_filename(dir, name, NULL);
  gchar *data = NULL;
  gsize size = 0;
  ck_assert_msg(g_file_get_contents(path, &data, &size, NULL), "no dump %s", path);
  *n = size / 4;
  return (float *)data;
}

/* Runs @kernel on the H100 preset with @sets; dumps "NAME=FILE" pairs (FILE in a fresh
 * folder, returned) before (@initial) and after (@final) the run. */
static char *
run_with_dumps(const char *kernel, const char *const *sets, const char *const *initial,
               const char *const *final)
{
  char *dir = test_temp_dir("smsim-dumps-XXXXXX");
  g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func(g_free);
  g_ptr_array_add(args, g_strdup("run"));
  g_ptr_array_add(args, g_strdup("config/gpus/h100.yaml"));
  g_ptr_array_add(args, g_strdup_printf("isa/kernels/textbook/%s.yaml", kernel));
  for (guint i = 0; sets[i]; i++) {
    g_ptr_array_add(args, g_strdup("--set"));
    g_ptr_array_add(args, g_strdup(sets[i]));
  }
  for (guint k = 0; k < 2; k++)
    for (const char *const *d = k ? final : initial; *d; d++) {
      g_ptr_array_add(args, g_strdup(k ? "--dump" : "--dump-initial"));
      g_ptr_array_add(args, g_strdup_printf("%s=%s/%s%s", *d, dir, *d, k ? "" : ".0"));
    }
  g_ptr_array_add(args, NULL);
  g_autofree char *out = NULL, *err = NULL;
  int status = test_smsim((const char *const *)args->pdata, &out, &err);
  ck_assert_msg(status == 0, "%s: exit %d: %s", kernel, status, err);
  ck_assert(strstr(out, "cycles") != NULL);
  return dir;
}

START_TEST(test_saxpy_bit_for_bit)
{
  g_autofree char *dir =
      run_with_dumps("saxpy", (const char *[]){"n=3000", "grid=8", NULL},
                     (const char *[]){"x", "y", NULL}, (const char *[]){"y", NULL});
  gsize n, m, k;
  g_autofree float *x = read_floats(dir, "x.0", &n), *y = read_floats(dir, "y.0", &m),
                   *out = read_floats(dir, "y", &k);
  ck_assert_uint_eq(n, 3000);
  ck_assert_uint_eq(k, 3000);
  for (gsize i = 0; i < n; i++)
    ck_assert_msg(out[i] == fmaf(1.5f, x[i], y[i]), "y[%zu]", i);
  ck_assert(x[0] != x[1] && y[0] != y[1]); /* varied inputs */
}
END_TEST

static void
transpose(const char *kernel)
{
  g_autofree char *dir =
      run_with_dumps(kernel, (const char *[]){"n=96", "grid=9", NULL}, (const char *[]){"in", NULL},
                     (const char *[]){"out", NULL});
  gsize n, k;
  g_autofree float *in = read_floats(dir, "in.0", &n), *out = read_floats(dir, "out", &k);
  ck_assert_uint_eq(n, 96 * 96);
  for (guint r = 0; r < 96; r++)
    for (guint c = 0; c < 96; c++)
      ck_assert_msg(out[c * 96 + r] == in[r * 96 + c], "%s: out[%u][%u]", kernel, c, r);
}

START_TEST(test_transposes_bit_for_bit)
{
  transpose("transpose_naive");
  transpose("transpose_tiled");
}
END_TEST

START_TEST(test_reduce_sum)
{
  g_autofree char *dir =
      run_with_dumps("reduce", (const char *[]){"n=10000", "grid=6", NULL},
                     (const char *[]){"in", NULL}, (const char *[]){"out", NULL});
  gsize n, k;
  g_autofree float *in = read_floats(dir, "in.0", &n), *out = read_floats(dir, "out", &k);
  double sum = 0, mag = 0;
  for (gsize i = 0; i < n; i++) {
    sum += in[i];
    mag += fabs(in[i]);
  }
  /* another order of float additions: within n roundings of the magnitudes */
  ck_assert_msg(fabs(out[0] - sum) <= 1e-7 * mag * 20, "sum %g, want %g", out[0], sum);
}
END_TEST

START_TEST(test_sgemm_within_rounding)
{
  g_autofree char *dir =
      run_with_dumps("sgemm_tiled", (const char *[]){"n=48", "grid=9", NULL},
                     (const char *[]){"A", "B", NULL}, (const char *[]){"C", NULL});
  gsize n, m, k;
  g_autofree float *a = read_floats(dir, "A.0", &n), *b = read_floats(dir, "B.0", &m),
                   *c = read_floats(dir, "C", &k);
  for (guint r = 0; r < 48; r++)
    for (guint col = 0; col < 48; col++) {
      float acc = 0;
      for (guint i = 0; i < 48; i++)
        acc = fmaf(a[r * 48 + i], b[i * 48 + col], acc);
      ck_assert_msg(fabsf(c[r * 48 + col] - acc) <= 1e-5f, "C[%u][%u] = %g, want %g", r, col,
                    c[r * 48 + col], acc);
    }
}
END_TEST

START_TEST(test_stencil_bit_for_bit)
{
  g_autofree char *dir = run_with_dumps(
      "stencil1d",
      (const char *[]){"n=2048", "grid=4", "threads_per_block=128", "dynamic_smem=576", NULL},
      (const char *[]){"in", NULL}, (const char *[]){"out", NULL});
  gsize n, k;
  g_autofree float *in = read_floats(dir, "in.0", &n), *out = read_floats(dir, "out", &k);
  ck_assert_uint_eq(n, 2048 + 16);
  for (guint g = 0; g < 2048; g++) {
    float v = 0;
    for (int o = -8; o <= 8; o++)
      v += in[g + 8 + o];
    ck_assert_msg(out[g + 8] == v, "out[%u]", g);
  }
  ck_assert(out[0] == 0 && out[2048 + 15] == 0); /* the padding is not written */
}
END_TEST

START_TEST(test_grid_that_disagrees_is_refused)
{
  g_autofree char *out = NULL, *err = NULL;
  int status = test_smsim((const char *[]){"run", "config/gpus/h100.yaml",
                                           "isa/kernels/textbook/transpose_tiled.yaml", "--set",
                                           "n=96", "--set", "grid=10", NULL},
                          &out, &err);
  ck_assert_int_eq(status, 2);
  ck_assert_msg(strstr(err, "grid must be (n / 32)^2 blocks") != NULL, "%s", err);
}
END_TEST

START_TEST(test_bad_dumps_are_refused)
{
  static const struct {
    const char *kernel, *option, *want;
  } cases[] = {
      {"isa/kernels/textbook/saxpy.yaml", "z=/tmp/z",
       "--dump z=/tmp/z: the kernel has no buffer 'z' (it has: x, y)\n"},
      {"isa/kernels/textbook/saxpy.yaml", "x",
       "--dump x: expected NAME=FILE (a buffer argument of "
       "the kernel)\n"},
      {"isa/kernels/mix.yaml", "x=/tmp/x",
       "--dump x=/tmp/x: only a kernel over SASS has buffers\n"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *out = NULL, *err = NULL;
    /* the stream kernel has no n to set */
    gboolean stream = strstr(cases[i].kernel, "mix") != NULL;
    int status =
        test_smsim((const char *[]){"run", "config/gpus/h100.yaml", cases[i].kernel, "--dump",
                                    cases[i].option, "--set", stream ? "alpha=8" : "n=64", NULL},
                   &out, &err);
    ck_assert_int_eq(status, 2);
    ck_assert_str_eq(err, cases[i].want);
  }
}
END_TEST

/* A kernel that reads past its buffer stops a validation with where and which run. */
START_TEST(test_validation_of_a_failing_kernel_says_why)
{
  g_autofree char *sass = test_source_path("isa/kernels/textbook/textbook.sass");
  g_autofree char *kernel_text = g_strdup_printf(
      "name: short\nsass: %s\nfunction: saxpy\nregisters_per_thread: 18\ngrid: 1\n"
      "block: 64\narguments:\n  - {name: n, type: i32, value: 64}\n"
      "  - {name: a, type: f32, value: 2}\n  - {name: x, type: buffer, bytes: 128}\n"
      "  - {name: y, type: buffer, bytes: 256}\n",
      sass);
  g_autofree char *kernel = test_write_temp("short.yaml", kernel_text);
  g_autofree char *csv_text =
      g_strdup_printf("kernel,set,metric,measured,curve\n%s,,cycles,1000,short\n", kernel);
  g_autofree char *csv = test_write_temp("m.csv", csv_text);
  g_autofree char *out = NULL, *err = NULL;
  int status =
      test_smsim((const char *[]){"validate", "config/gpus/h100.yaml", csv, NULL}, &out, &err);
  ck_assert_int_ne(status, 0);
  ck_assert_msg(strstr(err, "the run of the kernel: ") && strstr(err, "textbook.sass:") &&
                    strstr(err, "(4 bytes) by lane 0 is outside every buffer (LDG.E.CONSTANT at "
                                "0x0120, block 0, warp 1)"),
                "%s", err);
}
END_TEST

static Suite *
real_kernels_suite(void)
{
  Suite *s = suite_create("real-kernels");
  TCase *tc = tcase_create("textbook");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, test_saxpy_bit_for_bit);
  tcase_add_test(tc, test_transposes_bit_for_bit);
  tcase_add_test(tc, test_reduce_sum);
  tcase_add_test(tc, test_sgemm_within_rounding);
  tcase_add_test(tc, test_stencil_bit_for_bit);
  tcase_add_test(tc, test_grid_that_disagrees_is_refused);
  tcase_add_test(tc, test_bad_dumps_are_refused);
  tcase_add_test(tc, test_validation_of_a_failing_kernel_says_why);
  suite_add_tcase(s, tc);
  return s;
}

int
main(void)
{
  return test_run_suite(real_kernels_suite());
}
