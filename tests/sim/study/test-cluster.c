/* Sweeps cut into shards and merged: the same bytes as one run, and every kind of bad set of
 * parts refused (one line, exit status 2, nothing written). */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "helpers.h"

#define MAXWELL "config/gpus/maxwell.yaml"
#define MIX "isa/kernels/mix.yaml"

/* 200 points: 4 alphas x 50 occupancies */
static const char *const sweep_args[] = {
    "sweep", MAXWELL,     MIX, "--vary", "alpha=0,1,4,16", "--vary", "warps_per_sm=1:50",
    "--set", "groups=30", NULL};

/* Runs the sweep with @extra appended; returns its exit status. */
static int
sweep(const char *const *extra, char **out, char **err)
{
  g_autoptr(GPtrArray) a = g_ptr_array_new();
  for (guint i = 0; sweep_args[i]; i++)
    g_ptr_array_add(a, (gpointer)sweep_args[i]);
  for (guint i = 0; extra[i]; i++)
    g_ptr_array_add(a, (gpointer)extra[i]);
  g_ptr_array_add(a, NULL);
  return test_smsim((const char *const *)a->pdata, out, err);
}

static char *
read_all(const char *path)
{
  char *text = NULL;
  ck_assert_msg(g_file_get_contents(path, &text, NULL, NULL), "cannot read %s", path);
  return text;
}

/* Writes shards 1..3 of 3 into @dir; returns their paths. */
static void
write_parts(const char *dir, char *parts[3])
{
  for (guint k = 0; k < 3; k++) {
    parts[k] = g_strdup_printf("%s/part-%u.csv", dir, k + 1);
    g_autofree char *shard = g_strdup_printf("%u/3", k + 1);
    const char *extra[] = {"--shard", shard, "--csv", parts[k], NULL};
    g_autofree char *out = NULL, *err = NULL;
    ck_assert_msg(sweep(extra, &out, &err) == 0, "%s", err);
    g_autofree char *want = g_strdup_printf("shard %u/3: %u of 200 runs\n", k + 1, k < 2 ? 67 : 66);
    ck_assert_msg(g_str_has_prefix(out, want), "%s", out);
  }
}

START_TEST(test_shards_merge_into_the_bytes_of_one_run)
{
  g_autofree char *dir = test_temp_dir("smsim-shards-XXXXXX");
  g_autofree char *one_csv = g_build_filename(dir, "one.csv", NULL);
  g_autofree char *one_json = g_build_filename(dir, "one.json", NULL);
  const char *extra[] = {"--jobs", "1", "--csv", one_csv, "--json", one_json, NULL};
  g_autofree char *out = NULL, *err = NULL;
  ck_assert_msg(sweep(extra, &out, &err) == 0, "%s", err);
  char *parts[3];
  write_parts(dir, parts);
  g_autofree char *all_csv = g_build_filename(dir, "all.csv", NULL);
  g_autofree char *all_json = g_build_filename(dir, "all.json", NULL);
  g_autofree char *png = g_build_filename(dir, "all.png", NULL);
  /* parts in any order */
  const char *merge[] = {"merge",  parts[2], parts[0], parts[1], "--csv", all_csv,
                         "--json", all_json, "--plot", png,      NULL};
  g_autofree char *mout = NULL, *merr = NULL;
  ck_assert_msg(test_smsim(merge, &mout, &merr) == 0, "%s", merr);
  g_autofree char *a = read_all(one_csv), *b = read_all(all_csv);
  ck_assert_str_eq(a, b);
  g_autofree char *c = read_all(one_json), *d = read_all(all_json);
  ck_assert_str_eq(c, d);
  /* the per-curve summary is the one-run summary too */
  const char *sa = strstr(out, "\nwarps per SM needed"),
             *sb = strstr(mout, "\nwarps per SM needed");
  ck_assert(sa && sb);
  ck_assert(strncmp(sa, sb, (size_t)(strstr(sa, "wrote") - sa)) == 0);
  ck_assert(g_file_test(png, G_FILE_TEST_EXISTS));
  for (guint k = 0; k < 3; k++)
    g_free(parts[k]);
}
END_TEST

/* merge of @paths must fail with @expect in its one error line and write nothing */
static void
assert_merge_refused(const char *const *paths, const char *out_csv, const char *expect)
{
  g_autoptr(GPtrArray) a = g_ptr_array_new();
  g_ptr_array_add(a, "merge");
  for (guint i = 0; paths[i]; i++)
    g_ptr_array_add(a, (gpointer)paths[i]);
  g_ptr_array_add(a, "--csv");
  g_ptr_array_add(a, (gpointer)out_csv);
  g_ptr_array_add(a, NULL);
  g_autofree char *out = NULL, *err = NULL;
  ck_assert_int_eq(test_smsim((const char *const *)a->pdata, &out, &err), 2);
  ck_assert_msg(strstr(err, expect) != NULL, "expected '%s' in '%s'", expect, err);
  ck_assert_msg(strchr(err, '\n') == err + strlen(err) - 1, "not one line: %s", err);
  ck_assert(!g_file_test(out_csv, G_FILE_TEST_EXISTS));
}

START_TEST(test_merge_refuses_missing_duplicate_and_foreign_parts)
{
  g_autofree char *dir = test_temp_dir("smsim-shards-XXXXXX");
  g_autofree char *all = g_build_filename(dir, "all.csv", NULL);
  char *parts[3];
  write_parts(dir, parts);
  const char *missing[] = {parts[0], parts[2], NULL};
  assert_merge_refused(missing, all, "shard 2 of 3 missing");
  const char *twice[] = {parts[0], parts[1], parts[2], parts[1], NULL};
  assert_merge_refused(twice, all, "shard 2/3 again");
  /* the same shard of a sweep with another --set */
  g_autofree char *other = g_build_filename(dir, "other-2.csv", NULL);
  const char *args[] = {
      "sweep", MAXWELL,     MIX,       "--vary", "alpha=0,1,4,16", "--vary", "warps_per_sm=1:50",
      "--set", "groups=31", "--shard", "2/3",    "--csv",          other,    NULL};
  g_autofree char *out = NULL, *err = NULL;
  ck_assert_msg(test_smsim(args, &out, &err) == 0, "%s", err);
  const char *foreign[] = {parts[0], other, parts[2], NULL};
  assert_merge_refused(foreign, all, "part of another sweep");
  /* a part cut short */
  g_autofree char *text = read_all(parts[1]);
  g_autofree char *cut = g_build_filename(dir, "cut.csv", NULL);
  ck_assert(g_file_set_contents(cut, text, (gssize)(strlen(text) * 2 / 3), NULL));
  const char *cut_parts[] = {parts[0], cut, parts[2], NULL};
  assert_merge_refused(cut_parts, all, cut); /* the cut part is named */
  const char *not_a_part[] = {MAXWELL, NULL};
  assert_merge_refused(not_a_part, all, "not a part of a sweep");
  for (guint k = 0; k < 3; k++)
    g_free(parts[k]);
}
END_TEST

START_TEST(test_bad_shard_options)
{
  const char *a[] = {"--shard", "4/3", "--csv", "x.csv", NULL};
  const char *b[] = {"--shard", "1/3", NULL};
  const char *c[] = {"--shard", "1/3", "--csv", "x.csv", "--plot", "x.png", NULL};
  const char *const *cases[] = {a, b, c};
  const char *expect[] = {"--shard 4/3: expected K/N with 1 <= K <= N <= 100000",
                          "--shard K/N: writes one part file, given with --csv",
                          "--shard K/N: writes one part file, given with --csv"};
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *out = NULL, *err = NULL;
    ck_assert_int_eq(sweep(cases[i], &out, &err), 2);
    ck_assert_msg(strstr(err, expect[i]) != NULL, "%s", err);
  }
}
END_TEST

static Suite *
cluster_suite(void)
{
  Suite *s = suite_create("cluster");
  TCase *t = tcase_create("shards");
  tcase_add_test(t, test_shards_merge_into_the_bytes_of_one_run);
  tcase_add_test(t, test_merge_refuses_missing_duplicate_and_foreign_parts);
  tcase_add_test(t, test_bad_shard_options);
  suite_add_tcase(s, t);
  return s;
}

int
main(void)
{
  return test_run_suite(cluster_suite());
}
