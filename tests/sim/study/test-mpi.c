/* Sweeps and validations over MPI ranks give the bytes of a one-process --jobs 1 run.  Skipped
 * (exit status 77) when smsim is built without MPI or with sanitizers. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

#define MAXWELL "config/gpus/maxwell.yaml"
#define MIX "isa/kernels/mix.yaml"

/* Runs smsim ARGS... under mpirun with 3 ranks (2 cores: oversubscribed). */
static int
mpirun3(const char *const *args, char **out, char **err)
{
  g_autoptr(GPtrArray) a = g_ptr_array_new();
  const char *pre[] = {
      g_getenv("SMSIM_MPIRUN"), "--allow-run-as-root", "--oversubscribe", "-n", "3",
      g_getenv("SMSIM")};
  for (guint i = 0; i < G_N_ELEMENTS(pre); i++)
    g_ptr_array_add(a, (gpointer)pre[i]);
  for (guint i = 0; args[i]; i++)
    g_ptr_array_add(a, (gpointer)args[i]);
  g_ptr_array_add(a, NULL);
  int status = 0;
  GError *error = NULL;
  if (!g_spawn_sync(SMSIM_SOURCE_DIR, (char **)a->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, out,
                    err, &status, &error))
    ck_abort_msg("cannot run mpirun: %s", error->message);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static char *
read_all(const char *path)
{
  char *text = NULL;
  ck_assert_msg(g_file_get_contents(path, &text, NULL, NULL), "cannot read %s", path);
  return text;
}

START_TEST(test_three_ranks_give_the_bytes_of_one_process)
{
  g_autofree char *dir = test_temp_dir("smsim-mpi-XXXXXX");
  g_autofree char *one = g_build_filename(dir, "one.csv", NULL);
  g_autofree char *three = g_build_filename(dir, "three.csv", NULL);
  const char *a[] = {
      "sweep", MAXWELL,     MIX,      "--vary", "alpha=0,1,4,16", "--vary", "warps_per_sm=1:50",
      "--set", "groups=30", "--jobs", "1",      "--csv",          one,      NULL};
  const char *b[] = {"sweep",
                     MAXWELL,
                     MIX,
                     "--vary",
                     "alpha=0,1,4,16",
                     "--vary",
                     "warps_per_sm=1:50",
                     "--set",
                     "groups=30",
                     "--csv",
                     three,
                     NULL};
  g_autofree char *o1 = NULL, *e1 = NULL, *o3 = NULL, *e3 = NULL;
  ck_assert_msg(test_smsim(a, &o1, &e1) == 0, "%s", e1);
  ck_assert_msg(mpirun3(b, &o3, &e3) == 0, "%s", e3);
  g_autofree char *x = read_all(one), *y = read_all(three);
  ck_assert_str_eq(x, y);
  /* rank 0 alone prints: one summary, one "wrote" line */
  ck_assert_ptr_eq(strstr(o3, "wrote"), g_strrstr(o3, "wrote"));
}
END_TEST

START_TEST(test_three_ranks_validate)
{
  g_autofree char *dir = test_temp_dir("smsim-mpi-XXXXXX");
  g_autofree char *one = g_build_filename(dir, "one.csv", NULL);
  g_autofree char *three = g_build_filename(dir, "three.csv", NULL);
  const char *a[] = {"validate", MAXWELL, "tests/data/maxwell-volkov.csv", "--jobs", "1", "--csv",
                     one,        NULL};
  const char *b[] = {"validate", MAXWELL, "tests/data/maxwell-volkov.csv", "--csv", three, NULL};
  g_autofree char *o1 = NULL, *e1 = NULL, *o3 = NULL, *e3 = NULL;
  ck_assert_msg(test_smsim(a, &o1, &e1) == 0, "%s", e1);
  ck_assert_msg(mpirun3(b, &o3, &e3) == 0, "%s", e3);
  g_autofree char *x = read_all(one), *y = read_all(three);
  ck_assert_str_eq(x, y);
}
END_TEST

START_TEST(test_bad_input_fails_on_every_rank_with_one_line)
{
  const char *a[] = {"sweep", MAXWELL, MIX, "--vary", "alpah=1,2", NULL};
  g_autofree char *out = NULL, *err = NULL;
  ck_assert_int_eq(mpirun3(a, &out, &err), 2);
  /* rank 0's line; the other ranks' copies are silenced */
  const char *line = "--vary alpah: no kernel parameter";
  ck_assert(strstr(err, line) != NULL);
  ck_assert_ptr_eq(strstr(err, line), g_strrstr(err, line));
}
END_TEST

int
main(void)
{
  if (g_getenv("SMSIM_MPIRUN") == NULL || g_getenv("SMSIM_MPIRUN")[0] == '\0') {
    printf("skipped: %s\n",
           g_getenv("SMSIM_MPI_SKIP") ? g_getenv("SMSIM_MPI_SKIP") : "smsim is built without MPI");
    return 77;
  }
  g_setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", TRUE);
  g_setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", TRUE);
  Suite *s = suite_create("mpi");
  TCase *t = tcase_create("ranks");
  tcase_set_timeout(t, 600);
  tcase_add_test(t, test_three_ranks_give_the_bytes_of_one_process);
  tcase_add_test(t, test_three_ranks_validate);
  tcase_add_test(t, test_bad_input_fails_on_every_rank_with_one_line);
  suite_add_tcase(s, t);
  return test_run_suite(s);
}
