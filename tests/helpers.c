/* Helpers of the Check suites: source paths, loading runs, running the binary, temporary
 * files.  Not tests themselves. */
#include "helpers.h"

#include <errno.h>
#include <ftw.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *
test_source_path(const char *relative)
{
  if (g_path_is_absolute(relative))
    return g_strdup(relative);
  return g_build_filename(SMSIM_SOURCE_DIR, relative, NULL);
}

TestRun *
test_run_new(const char *gpu, const char *kernel, const char *const *sets)
{
  g_autofree char *gp = test_source_path(gpu);
  g_autofree char *kp = test_source_path(kernel);
  TestRun *run = g_new0(TestRun, 1);
  GError *error = NULL;
  if (!cfg_load_run(gp, kp, sets, &run->gpu, &run->kernel, &error))
    ck_abort_msg("loading %s + %s: %s", gpu, kernel, error->message);
  run->sm = sm_new(run->gpu, run->kernel);
  return run;
}

void
test_run_free(TestRun *run)
{
  sm_free(run->sm);
  cfg_kernel_free(run->kernel);
  cfg_gpu_free(run->gpu);
  g_free(run);
}

void
test_assert_same_counts(const SmStats *a, const SmStats *b, const char *what)
{
  SmStats x = *a, y = *b;
  x.visited_cycles = y.visited_cycles = 0;
  x.fast_forward_cycles = y.fast_forward_cycles = 0;
  x.stepped_sms = y.stepped_sms = 0;
  x.windows = y.windows = 0;
  x.view_steps = y.view_steps = 0;
  for (guint s = 0; s < SM_STATE_COUNT; s++)
    ck_assert_msg(x.state_cycles[s] == y.state_cycles[s],
                  "%s: %s warp-cycles %" G_GUINT64_FORMAT " vs %" G_GUINT64_FORMAT, what,
                  sm_state_name(s), x.state_cycles[s], y.state_cycles[s]);
  ck_assert_msg(memcmp(&x, &y, sizeof x) == 0,
                "%s: counters differ (cycles %" G_GUINT64_FORMAT " vs %" G_GUINT64_FORMAT
                ", issued %" G_GUINT64_FORMAT " vs %" G_GUINT64_FORMAT ")",
                what, x.cycles, y.cycles, x.issued, y.issued);
}

static guint64
issued(const SmStats *s, guint unit)
{
  return unit == ISA_UNIT_COUNT ? s->issued : s->issued_unit[unit];
}

double
test_window_ipc(TestRun *run, guint unit, guint64 from, guint64 to)
{
  sm_run_until(run->sm, from);
  ck_assert_msg(!sm_finished(run->sm), "the run ended before cycle %" G_GUINT64_FORMAT, from);
  guint64 a = issued(sm_stats(run->sm), unit);
  sm_run_until(run->sm, to);
  ck_assert_msg(!sm_finished(run->sm), "the run ended before cycle %" G_GUINT64_FORMAT, to);
  guint64 b = issued(sm_stats(run->sm), unit);
  return (double)(b - a) / (double)(to - from);
}

int
test_smsim(const char *const *args, char **out, char **err)
{
  const char *bin = g_getenv("SMSIM");
  ck_assert_msg(bin != NULL, "SMSIM is not set");
  g_autoptr(GPtrArray) argv = g_ptr_array_new();
  g_ptr_array_add(argv, (gpointer)bin);
  for (guint i = 0; args[i]; i++)
    g_ptr_array_add(argv, (gpointer)args[i]);
  g_ptr_array_add(argv, NULL);
  int status = 0;
  GError *error = NULL;
  if (!g_spawn_sync(SMSIM_SOURCE_DIR, (char **)argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, out,
                    err, &status, &error))
    ck_abort_msg("cannot run %s: %s", bin, error->message);
  if (WIFEXITED(status))
    return WEXITSTATUS(status);
  return 128 + WTERMSIG(status);
}

/* One folder per test program, made before Check forks a child for any test: every folder
 * test_temp_dir makes goes in it, and the program removes it with all of them as it exits
 * (a child that fails exits without running what atexit registered). */
static char *temp_root;
static pid_t temp_root_pid;

static guint temp_removed;

static int
remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
  (void)st, (void)flag, (void)ftw;
  if (remove(path) == 0)
    temp_removed++;
  return 0;
}

/* With SMSIM_TEST_TEMP_REPORT set, the program says on stderr which folder it removed and how
 * many entries it held, the folder itself one of them (tests/tempdirs.sh). */
static void
remove_temp_root(void)
{
  if (getpid() != temp_root_pid)
    return;
  nftw(temp_root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
  if (g_getenv("SMSIM_TEST_TEMP_REPORT"))
    fprintf(stderr, "removed %s: %u entries\n", temp_root, temp_removed);
}

__attribute__((constructor)) static void
make_temp_root(void)
{
  temp_root = g_dir_make_tmp("smsim-tests-XXXXXX", NULL);
  if (!temp_root) {
    perror("a temporary folder for the tests");
    exit(1);
  }
  temp_root_pid = getpid();
  atexit(remove_temp_root);
}

char *
test_temp_dir(const char *tmpl)
{
  g_autofree char *path = g_build_filename(temp_root, tmpl, NULL);
  char *dir = g_mkdtemp(g_steal_pointer(&path));
  ck_assert_msg(dir != NULL, "mkdtemp: %s", g_strerror(errno));
  return dir;
}

char *
test_write_temp(const char *name, const char *text)
{
  g_autofree char *dir = test_temp_dir("smsim-test-XXXXXX");
  char *path = g_build_filename(dir, name, NULL);
  ck_assert(g_file_set_contents(path, text, -1, NULL));
  return path;
}

gboolean
test_quick(void)
{
  const char *q = g_getenv("SMSIM_QUICK");
  return q != NULL && *q && strcmp(q, "0") != 0;
}

gboolean
test_sampled(void)
{
  const char *s = g_getenv("SMSIM_SANITIZED");
  return test_quick() || (s != NULL && *s);
}

char *
test_sample_rows(const char *relative, guint every, guint *rows)
{
  g_autofree char *path = test_source_path(relative);
  g_autofree char *text = NULL;
  ck_assert_msg(g_file_get_contents(path, &text, NULL, NULL), "%s: cannot read", path);
  GString *t = g_string_new(NULL);
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  guint data = 0;
  *rows = 0;
  for (guint i = 0; lines[i]; i++) {
    gboolean keep = i == 0 || lines[i][0] == '#' || !*lines[i];
    if (!keep && data++ % every == 0) {
      keep = TRUE;
      (*rows)++;
    }
    if (keep && *lines[i])
      g_string_append_printf(t, "%s\n", lines[i]);
  }
  g_autofree char *base = g_path_get_basename(path);
  char *sample = test_write_temp(base, t->str);
  g_string_free(t, TRUE);
  return sample;
}

int
test_run_suite(Suite *suite)
{
  SRunner *r = srunner_create(suite);
  srunner_run_all(r, CK_NORMAL);
  int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed == 0 ? 0 : 1;
}
