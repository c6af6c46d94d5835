/* Outputs that cannot be written, interrupted runs and runaway runs: one line, the right exit
 * status (1 for output, 130/143 for signals), and never a file under its final name. */
#include <check.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"

#define MAXWELL "config/gpus/maxwell.yaml"
#define H100 "config/gpus/h100.yaml"
#define MIX "isa/kernels/mix.yaml"

/* A folder nobody may create files in: a read-only one, or /proc when we are root (root
 * writes anywhere on an ordinary file system). */
static char *
unwritable_dir(void)
{
  if (geteuid() == 0)
    return g_strdup("/proc");
  char *dir = test_temp_dir("smsim-ro-XXXXXX");
  g_chmod(dir, 0555);
  return dir;
}

static void
assert_write_fails(const char *const *args, const char *path)
{
  g_autofree char *out = NULL, *err = NULL;
  ck_assert_int_eq(test_smsim(args, &out, &err), 1);
  g_autofree char *want = g_strdup_printf("%s: cannot write: ", path);
  ck_assert_msg(g_str_has_prefix(err, want), "%s", err);
  ck_assert_msg(strchr(err, '\n') == err + strlen(err) - 1, "not one line: %s", err);
  if (!g_str_has_prefix(path, "/dev/"))
    ck_assert(!g_file_test(path, G_FILE_TEST_EXISTS));
}

START_TEST(test_every_writer_reports_a_full_disk_and_an_unwritable_folder)
{
  g_autofree char *ro = unwritable_dir();
  g_autofree char *ro_csv = g_build_filename(ro, "x.csv", NULL);
  g_autofree char *ro_png = g_build_filename(ro, "x.png", NULL);
  g_autofree char *ro_vcd = g_build_filename(ro, "x.vcd", NULL);
  const char *targets[] = {"/dev/full", ro_csv};
  for (guint t = 0; t < G_N_ELEMENTS(targets); t++) {
    const char *csv = targets[t];
    const char *sweep_csv[] = {"sweep", MAXWELL,    MIX,     "--vary", "warps_per_sm=1:3",
                               "--set", "groups=5", "--csv", csv,      NULL};
    const char *sweep_json[] = {"sweep", MAXWELL,    MIX,      "--vary", "warps_per_sm=1:3",
                                "--set", "groups=5", "--json", csv,      NULL};
    const char *validate[] = {"validate", MAXWELL, "tests/data/maxwell-volkov.csv",
                              "--csv",    csv,     NULL};
    assert_write_fails(sweep_csv, csv);
    assert_write_fails(sweep_json, csv);
    assert_write_fails(validate, csv);
  }
  const char *plot[] = {"sweep", MAXWELL,    MIX,      "--vary", "warps_per_sm=1:3",
                        "--set", "groups=5", "--plot", ro_png,   NULL};
  assert_write_fails(plot, ro_png);
  const char *trace[] = {"run", MAXWELL, MIX, "--set", "groups=5", "--trace", ro_vcd, NULL};
  assert_write_fails(trace, ro_vcd);
  /* the /dev/full device is written to, never replaced */
  ck_assert(g_file_test("/dev/full", G_FILE_TEST_EXISTS) &&
            !g_file_test("/dev/full", G_FILE_TEST_IS_REGULAR));
}
END_TEST

START_TEST(test_stdout_on_a_full_disk_is_an_error)
{
  const char *cases[][8] = {
      {"run", MAXWELL, MIX, "--set", "groups=5", NULL},
      {"describe", MAXWELL, NULL},
      {"occupancy", MAXWELL, "--threads-per-block", "256", NULL},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autoptr(GString) cmd = g_string_new("exec \"$SMSIM\"");
    for (guint j = 0; cases[i][j]; j++)
      g_string_append_printf(cmd, " '%s'", cases[i][j]);
    g_string_append(cmd, " > /dev/full");
    const char *argv[] = {"/bin/sh", "-c", cmd->str, NULL};
    g_autofree char *err = NULL;
    int status = 0;
    ck_assert(g_spawn_sync(SMSIM_SOURCE_DIR, (char **)argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL,
                           &err, &status, NULL));
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 1, "%s: status %d", cmd->str, status);
    ck_assert_str_eq(err, "stdout: cannot write: No space left on device\n");
  }
}
END_TEST

/* Starts smsim, sends @sig after @delay_ms, returns the exit status and stderr. */
static int
interrupt(const char *const *args, int sig, guint delay_ms, char **err)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new();
  g_ptr_array_add(argv, (gpointer)g_getenv("SMSIM"));
  for (guint i = 0; args[i]; i++)
    g_ptr_array_add(argv, (gpointer)args[i]);
  g_ptr_array_add(argv, NULL);
  GPid pid;
  int err_fd;
  GError *error = NULL;
  ck_assert_msg(g_spawn_async_with_pipes(SMSIM_SOURCE_DIR, (char **)argv->pdata, NULL,
                                         G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL,
                                         NULL, NULL, &pid, NULL, NULL, &err_fd, &error),
                "%s", error ? error->message : "");
  g_usleep(delay_ms * 1000);
  kill(pid, sig);
  int status = 0;
  waitpid(pid, &status, 0);
  g_spawn_close_pid(pid);
  GString *e = g_string_new(NULL);
  char buf[512];
  gssize n;
  while ((n = read(err_fd, buf, sizeof buf)) > 0)
    g_string_append_len(e, buf, n);
  close(err_fd);
  *err = g_string_free(e, FALSE);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The folder holds no file whose name starts with @prefix. */
static void
assert_nothing_named(const char *dir, const char *prefix)
{
  g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
  const char *name;
  while ((name = g_dir_read_name(d)) != NULL)
    ck_assert_msg(!g_str_has_prefix(name, prefix) && !g_str_has_prefix(name + 1, prefix),
                  "%s/%s was left", dir, name);
}

START_TEST(test_interrupted_sweep_and_traced_run_leave_nothing)
{
  g_autofree char *dir = test_temp_dir("smsim-int-XXXXXX");
  g_autofree char *csv = g_build_filename(dir, "sweep.csv", NULL);
  const char *sweep[] = {"sweep",          H100,    MIX, "--vary", "warps_per_sm=1:64", "--set",
                         "groups=2000000", "--csv", csv, NULL};
  g_autofree char *err = NULL;
  ck_assert_int_eq(interrupt(sweep, SIGINT, 700, &err), 130);
  ck_assert_str_eq(err, "smsim sweep: interrupted by SIGINT; no output written\n");
  assert_nothing_named(dir, "sweep.csv");
  g_autofree char *vcd = g_build_filename(dir, "run.vcd", NULL);
  const char *run[] = {"run",
                       H100,
                       MIX,
                       "--set",
                       "groups=1000000000",
                       "--set",
                       "warps_per_sm=64",
                       "--trace",
                       vcd,
                       "--trace-limit-mb",
                       "100000",
                       NULL};
  g_autofree char *err2 = NULL;
  ck_assert_int_eq(interrupt(run, SIGTERM, 700, &err2), 143);
  ck_assert_str_eq(err2, "smsim run: interrupted by SIGTERM; no output written\n");
  assert_nothing_named(dir, "run.vcd");
}
END_TEST

START_TEST(test_max_cycles_stops_a_run)
{
  const char *a[] = {
      "run",          H100,     MIX, "--set", "groups=1000000000", "--set", "warps_per_sm=64",
      "--max-cycles", "100000", NULL};
  g_autofree char *out = NULL, *err = NULL;
  ck_assert_int_eq(test_smsim(a, &out, &err), 1);
  ck_assert_str_eq(out, "");
  ck_assert_msg(strstr(err, ": stopped at cycle 10000") != NULL &&
                    strstr(err, "(--max-cycles 100000), the run was not finished\n") != NULL,
                "%s", err);
  const char *b[] = {"run",
                     H100,
                     MIX,
                     "--set",
                     "groups=1000000000",
                     "--set",
                     "warps_per_sm=64",
                     "--max-cycles",
                     "100000",
                     "--partial",
                     "--json",
                     NULL};
  g_autofree char *out2 = NULL, *err2 = NULL;
  ck_assert_int_eq(test_smsim(b, &out2, &err2), 1);
  /* what was simulated: cycles up to the stop, some thousands of instructions */
  ck_assert_msg(strstr(out2, "\"cycles\" : 10000") != NULL, "%s", out2);
  const char *c[] = {"run", H100, MIX, "--max-cycles", "0", NULL};
  g_autofree char *out3 = NULL, *err3 = NULL;
  ck_assert_int_eq(test_smsim(c, &out3, &err3), 2);
  /* a run that ends before the limit is untouched */
  const char *d[] = {"run", MAXWELL, MIX, "--set", "groups=5", "--max-cycles", "1000000", NULL};
  const char *e[] = {"run", MAXWELL, MIX, "--set", "groups=5", NULL};
  g_autofree char *o4 = NULL, *e4 = NULL, *o5 = NULL, *e5 = NULL;
  ck_assert_int_eq(test_smsim(d, &o4, &e4), 0);
  ck_assert_int_eq(test_smsim(e, &o5, &e5), 0);
  ck_assert_str_eq(o4, o5);
}
END_TEST

START_TEST(test_counts_are_bounded_before_anything_is_allocated)
{
  /* 64 x 1024 warp slots is the most smsim simulates at once; one more SM is refused */
  const char *ok[] = {
      "run",      MAXWELL, MIX,       "--set", "sm_count=1024", "--set", "warps_per_sm=64", "--set",
      "groups=1", "--set", "alpha=0", NULL};
  const char *over[] = {"run",
                        MAXWELL,
                        MIX,
                        "--set",
                        "sm_count=1024",
                        "--set",
                        "warps_per_sm=65",
                        "--set",
                        "limits.max_warps=65",
                        NULL};
  g_autofree char *o1 = NULL, *e1 = NULL, *o2 = NULL, *e2 = NULL;
  ck_assert_msg(test_smsim(ok, &o1, &e1) == 0, "%s", e1);
  ck_assert_int_eq(test_smsim(over, &o2, &e2), 2);
  ck_assert_msg(strstr(e2, "65 warps per SM x 1024 SMs = 66560 warps, more than the 65536 smsim "
                           "simulates at once") != NULL,
                "%s", e2);
  /* a sweep whose run would not end fails with the point named, status 1 */
  const char *sweep[] = {"sweep",        MAXWELL, MIX,      "--vary", "warps_per_sm=1,2",
                         "--max-cycles", "5000",  "--jobs", "1",      NULL};
  g_autofree char *o3 = NULL, *e3 = NULL;
  ck_assert_int_eq(test_smsim(sweep, &o3, &e3), 1);
  /* the clock stops at the first visited cycle at or after the limit; the longest run starts
   * first, fails, and stops the batch */
  ck_assert_msg(g_str_has_prefix(e3, "the run of warps_per_sm=2 stopped at cycle ") &&
                    g_str_has_suffix(e3, " (--max-cycles 5000): it was not finished\n"),
                "%s", e3);
  /* a part file may not claim more shards than a sweep can have */
  g_autofree char *part = test_write_temp("p.csv", "# smsim sweep part 1/4000000000\n");
  const char *merge[] = {"merge", part, NULL};
  g_autofree char *o4 = NULL, *e4 = NULL;
  ck_assert_int_eq(test_smsim(merge, &o4, &e4), 2);
  ck_assert(strstr(e4, "not a part of a sweep") != NULL);
}
END_TEST

static Suite *
hardening_suite(void)
{
  Suite *s = suite_create("hardening");
  TCase *t = tcase_create("outputs");
  tcase_add_test(t, test_every_writer_reports_a_full_disk_and_an_unwritable_folder);
  tcase_add_test(t, test_stdout_on_a_full_disk_is_an_error);
  tcase_add_test(t, test_interrupted_sweep_and_traced_run_leave_nothing);
  tcase_add_test(t, test_max_cycles_stops_a_run);
  tcase_add_test(t, test_counts_are_bounded_before_anything_is_allocated);
  suite_add_tcase(s, t);
  return s;
}

int
main(void)
{
  return test_run_suite(hardening_suite());
}
