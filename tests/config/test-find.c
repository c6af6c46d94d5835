/* GPU and kernel files by name (config/find.h): $SMSIM_PATH first, then the source tree (these
 * tests run from the build folder), the nearest name for an unknown one, kinds told apart. */
#include <check.h>
#include <glib/gstdio.h>
#include <string.h>

#include "find.h"
#include "helpers.h"

#define MEM_TEXT "memory:\n  dram: {latency_cycles: 400, bytes_per_cycle: 16}\n"
#define GPU_TEXT "name: \"my GPU\"\n" MEM_TEXT
#define KERNEL_TEXT                                                                                \
  "description: my kernel. More words.\nparams: {n: 2}\nwarps_per_sm: $n\nstream: |\n  FADD\n"

/* A folder for $SMSIM_PATH: mygpu.yaml (a GPU), mine.yaml (a kernel), gpus/other.yaml and
 * kernels/sub/deep.yaml, and h100.yaml (a GPU that shadows the preset). */
static char *
user_folder(void)
{
  g_autofree char *gpu = test_write_temp("mygpu.yaml", GPU_TEXT);
  char *dir = g_path_get_dirname(gpu);
  g_autofree char *gpus = g_build_filename(dir, "gpus", NULL);
  g_autofree char *sub = g_build_filename(dir, "kernels", "sub", NULL);
  ck_assert(g_mkdir_with_parents(gpus, 0755) == 0 && g_mkdir_with_parents(sub, 0755) == 0);
  const char *files[][2] = {{"mine.yaml", KERNEL_TEXT},
                            {"gpus/other.yaml", GPU_TEXT},
                            {"kernels/sub/deep.yaml", KERNEL_TEXT},
                            {"h100.yaml", "name: \"shadow\"\n" MEM_TEXT}};
  for (guint i = 0; i < G_N_ELEMENTS(files); i++) {
    g_autofree char *path = g_build_filename(dir, files[i][0], NULL);
    ck_assert(g_file_set_contents(path, files[i][1], -1, NULL));
  }
  return dir;
}

static char *
found(const char *arg, CfgFindKind kind)
{
  GError *error = NULL;
  char *path = cfg_find_file(arg, kind, &error);
  ck_assert_msg(path != NULL, "%s: %s", arg, error ? error->message : "");
  return path;
}

static void
assert_not_found(const char *arg, CfgFindKind kind, const char *expect)
{
  GError *error = NULL;
  g_autofree char *path = cfg_find_file(arg, kind, &error);
  ck_assert_msg(path == NULL, "%s found %s", arg, path);
  ck_assert_msg(strstr(error->message, expect) != NULL, "expected '%s' in '%s'", expect,
                error->message);
  g_error_free(error);
}

START_TEST(test_names_find_the_source_trees_files)
{
  g_unsetenv("SMSIM_PATH");
  g_autofree char *h100 = found("h100", CFG_FIND_GPU);
  g_autofree char *expect = test_source_path("config/gpus/h100.yaml");
  ck_assert_str_eq(h100, expect);
  g_autofree char *saxpy = found("textbook/saxpy.yaml", CFG_FIND_KERNEL);
  g_autofree char *expect_saxpy = test_source_path("isa/kernels/textbook/saxpy.yaml");
  ck_assert_str_eq(saxpy, expect_saxpy);
  /* either kind, a GPU first */
  g_autofree char *mix = found("mix", CFG_FIND_ANY);
  ck_assert(g_str_has_suffix(mix, "/isa/kernels/mix.yaml"));
  /* a path is a path, found or not */
  g_autofree char *path = found("no/such/file.yaml", CFG_FIND_GPU);
  ck_assert_str_eq(path, "no/such/file.yaml");
  g_autofree char *dotted = found("./h100", CFG_FIND_GPU);
  ck_assert_str_eq(dotted, "./h100");
}
END_TEST

START_TEST(test_unknown_names_get_the_nearest_one)
{
  g_unsetenv("SMSIM_PATH");
  assert_not_found("h10", CFG_FIND_GPU,
                   "h10: no such file, and no GPU of that name (did you mean 'h100'? 'smsim list "
                   "gpus' shows them all)");
  assert_not_found("saxpy", CFG_FIND_KERNEL, "did you mean 'textbook/saxpy'?");
  assert_not_found("maxwel", CFG_FIND_ANY, "no GPU or kernel of that name (did you mean 'maxwell'");
  assert_not_found("zzzzzz", CFG_FIND_GPU, "and no GPU of that name ('smsim list gpus'");
  /* the other kind: said so */
  assert_not_found("mix", CFG_FIND_GPU, "mix: names a kernel (");
  assert_not_found("maxwell", CFG_FIND_KERNEL, "where a kernel is expected; the GPU comes first");
  /* no way out of the folders by a name */
  assert_not_found("textbook/../../config/gpus/h100", CFG_FIND_GPU, "no GPU of that name");
}
END_TEST

START_TEST(test_smsim_path_comes_first)
{
  g_autofree char *dir = user_folder();
  g_setenv("SMSIM_PATH", dir, TRUE);
  g_autofree char *mygpu = found("mygpu", CFG_FIND_GPU);
  g_autofree char *expect = g_build_filename(dir, "mygpu.yaml", NULL);
  ck_assert_str_eq(mygpu, expect);
  g_autofree char *other = found("other", CFG_FIND_GPU);
  ck_assert(g_str_has_suffix(other, "/gpus/other.yaml"));
  g_autofree char *deep = found("sub/deep", CFG_FIND_KERNEL);
  ck_assert(g_str_has_suffix(deep, "/kernels/sub/deep.yaml"));
  g_autofree char *h100 = found("h100", CFG_FIND_GPU);
  g_autofree char *shadow = g_build_filename(dir, "h100.yaml", NULL);
  ck_assert_str_eq(h100, shadow);
  /* a file straight in the folder counts for its own kind only */
  assert_not_found("mine", CFG_FIND_GPU, "mine: names a kernel");
  g_autofree char *mine = found("mine", CFG_FIND_KERNEL);
  ck_assert(g_str_has_suffix(mine, "/mine.yaml"));

  g_autoptr(GPtrArray) gpus = cfg_find_all(CFG_FIND_GPU);
  guint n_h100 = 0;
  gboolean saw_mygpu = FALSE, saw_maxwell = FALSE;
  for (guint i = 0; i < gpus->len; i++) {
    const CfgFound *f = g_ptr_array_index(gpus, i);
    if (strcmp(f->name, "h100") == 0) {
      n_h100++;
      ck_assert_str_eq(f->description, "shadow");
      ck_assert_str_eq(f->origin, "SMSIM_PATH");
    }
    if (strcmp(f->name, "mygpu") == 0) {
      saw_mygpu = TRUE;
      ck_assert_str_eq(f->description, "my GPU");
      ck_assert_uint_eq(f->rank, 0);
    }
    if (strcmp(f->name, "maxwell") == 0) {
      saw_maxwell = TRUE;
      ck_assert_str_eq(f->origin, "source tree");
      ck_assert_uint_gt(f->rank, 0);
    }
    ck_assert_str_ne(f->name, "mine"); /* a kernel */
  }
  ck_assert(n_h100 == 1 && saw_mygpu && saw_maxwell);
  g_autoptr(GPtrArray) kernels = cfg_find_all(CFG_FIND_KERNEL);
  gboolean saw_deep = FALSE;
  for (guint i = 0; i < kernels->len; i++) {
    const CfgFound *f = g_ptr_array_index(kernels, i);
    if (strcmp(f->name, "sub/deep") == 0) {
      saw_deep = TRUE;
      ck_assert_str_eq(f->description, "my kernel"); /* the first sentence */
    }
  }
  ck_assert(saw_deep);
  g_unsetenv("SMSIM_PATH");
}
END_TEST

static Suite *
find_suite(void)
{
  Suite *s = suite_create("find");
  TCase *tc = tcase_create("names");
  tcase_add_test(tc, test_names_find_the_source_trees_files);
  tcase_add_test(tc, test_unknown_names_get_the_nearest_one);
  tcase_add_test(tc, test_smsim_path_comes_first);
  suite_add_tcase(s, tc);
  return s;
}

int
main(void)
{
  return test_run_suite(find_suite());
}
