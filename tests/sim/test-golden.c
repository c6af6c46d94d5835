/* The golden table: every shipped GPU x every shipped kernel (default parameters, plus a few
 * settings that reach the other mechanisms), run to the end; every counter must equal
 * tests/data/golden.csv.  Any change to a simulated number shows up here with its name.
 *
 * The table is regenerated only on purpose, after the change is understood:
 *   SMSIM_GOLDEN_WRITE=1 build/tests/test-golden     (or: tools/dev golden)
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "helpers.h"

/* Kernel settings beyond the defaults, so the table covers stores, copies, conflicts and
 * divergence on every GPU that can run them.  A setting a GPU cannot run is skipped for it. */
static const char *const variants[][5] = {
    {"isa/kernels/mix.yaml", NULL},
    {"isa/kernels/mix.yaml", "other=LDS", "alpha=2", NULL},
    {"isa/kernels/mix.yaml", "other=MUFU.RSQ", "alpha=4", NULL},
    {"isa/kernels/mix.yaml", "pattern=random", "alpha=1", NULL},
    {"isa/kernels/ffma-ilp.yaml", NULL},
    {"isa/kernels/occupancy-lab.yaml", "threads=7680", NULL},
    {"isa/kernels/prefetch.yaml", "elements=32", NULL},
    {"isa/kernels/prefetch.yaml", "variant=async_roll", "pdist=4", "elements=32", NULL},
    {"isa/kernels/prefetch.yaml", "variant=smem_roll_sync", "pdist=4", "elements=32", NULL},
    {"isa/kernels/memcpy.yaml", "loads=8", "width=16", "iters=8", NULL},
    {"isa/kernels/mix.yaml", "warps_per_sm=8", "loop_overhead=1", "unroll=4", NULL},
    {"isa/kernels/banks.yaml", "stride=4", "iters=8", NULL},
    {"isa/kernels/divergence.yaml", "ways=4", "iters=2", NULL},
};

/* every row ends with NULL: the sets are a NULL-terminated list */
G_STATIC_ASSERT(G_N_ELEMENTS(variants[0]) == 5);

static const char *const gpus[] = {"fermi",  "g80",     "gt200",    "h100",
                                   "kepler", "maxwell", "toy-fig47"};

static char *
row(const char *gpu, const char *kernel, const char *sets, const SmStats *s)
{
  GString *r = g_string_new(NULL);
  g_string_append_printf(r, "%s,%s,%s", gpu, kernel, sets);
  const guint64 v[] = {s->cycles,
                       s->issued,
                       s->issued_unit[ISA_UNIT_ALU],
                       s->issued_unit[ISA_UNIT_SFU],
                       s->issued_unit[ISA_UNIT_LDST],
                       s->thread_instructions,
                       s->branches,
                       s->divergent_branches,
                       s->global_loads,
                       s->global_stores,
                       s->global_load_latency,
                       s->shared_accesses,
                       s->shared_passes,
                       s->async_copies,
                       s->resident_warp_cycles,
                       s->peak_outstanding};
  for (guint i = 0; i < G_N_ELEMENTS(v); i++)
    g_string_append_printf(r, ",%" G_GUINT64_FORMAT, v[i]);
  g_string_append_c(r, ',');
  for (guint l = 0; l < s->n_levels; l++)
    g_string_append_printf(r, "%s%" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT,
                           l ? ";" : "", s->transactions[l], s->bytes[l], s->write_bytes[l]);
  g_string_append_c(r, ',');
  for (guint i = 0; i < SM_STATE_COUNT; i++)
    g_string_append_printf(r, "%s%" G_GUINT64_FORMAT, i ? ";" : "", s->state_cycles[i]);
  return g_string_free(r, FALSE);
}

static const char header[] =
    "gpu,kernel,sets,cycles,issued,alu,sfu,ldst,thread_instructions,branches,divergent,"
    "global_loads,global_stores,load_latency_sum,shared_accesses,shared_passes,async_copies,"
    "resident_warp_cycles,peak_outstanding,levels(transactions/bytes/written),warp_state_cycles";

/* The table as this build computes it. */
static GPtrArray *
compute(void)
{
  GPtrArray *rows = g_ptr_array_new_with_free_func(g_free);
  for (guint g = 0; g < G_N_ELEMENTS(gpus); g++) {
    g_autofree char *gpu = g_strdup_printf("config/gpus/%s.yaml", gpus[g]);
    for (guint k = 0; k < G_N_ELEMENTS(variants); k++) {
      const char *const *sets = &variants[k][1];
      g_autofree char *gp = test_source_path(gpu), *kp = test_source_path(variants[k][0]);
      CfgGpu *cg = NULL;
      CfgKernel *ck = NULL;
      if (!cfg_load_run(gp, kp, sets, &cg, &ck, NULL))
        continue; /* e.g. asynchronous copies on a GPU before compute capability 8.0 */
      SmGpu *sm = sm_new(cg, ck);
      sm_run(sm);
      g_autofree char *joined = g_strjoinv(";", (char **)sets);
      g_autofree char *kname = g_path_get_basename(variants[k][0]);
      g_ptr_array_add(rows, row(gpus[g], kname, joined, sm_stats(sm)));
      sm_free(sm);
      cfg_kernel_free(ck);
      cfg_gpu_free(cg);
    }
  }
  return rows;
}

START_TEST(test_every_gpu_and_kernel_matches_the_golden_table)
{
  g_autoptr(GPtrArray) rows = compute();
  g_autofree char *path = test_source_path("tests/data/golden.csv");
  if (g_getenv("SMSIM_GOLDEN_WRITE")) {
    GString *text = g_string_new(header);
    g_string_append_c(text, '\n');
    for (guint i = 0; i < rows->len; i++)
      g_string_append_printf(text, "%s\n", (char *)g_ptr_array_index(rows, i));
    ck_assert(g_file_set_contents(path, text->str, -1, NULL));
    g_string_free(text, TRUE);
    fprintf(stderr, "wrote %s (%u rows)\n", path, rows->len);
    return;
  }
  g_autofree char *text = NULL;
  ck_assert_msg(g_file_get_contents(path, &text, NULL, NULL), "cannot read %s", path);
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  ck_assert_str_eq(lines[0], header);
  guint n = g_strv_length(lines) - 2; /* header, and the empty string after the last newline */
  ck_assert_msg(n == rows->len, "golden.csv has %u rows, this build computes %u", n, rows->len);
  /* the pass over wake times this host chose (AVX-512 or portable), then the portable one:
   * the same table on every host */
  for (guint portable = 0; portable < 2; portable++) {
    if (portable) {
      sm_set_portable_pass(TRUE);
      g_ptr_array_unref(rows);
      rows = compute();
      sm_set_portable_pass(FALSE);
    }
    guint bad = 0;
    for (guint i = 0; i < rows->len; i++) {
      const char *now = g_ptr_array_index(rows, i);
      if (strcmp(lines[i + 1], now) != 0 && bad++ < 5)
        fprintf(stderr, "golden.csv:%u:\n  was %s\n  now %s\n", i + 2, lines[i + 1], now);
    }
    ck_assert_msg(bad == 0,
                  "%u of %u runs changed%s (see above); if that is intended, regenerate with "
                  "SMSIM_GOLDEN_WRITE=1 build/tests/test-golden and say why in the commit",
                  bad, rows->len, portable ? " with the portable pass over wake times" : "");
  }
}
END_TEST

static Suite *
golden_suite(void)
{
  Suite *s = suite_create("golden");
  TCase *tc = tcase_create("golden");
  tcase_add_test(tc, test_every_gpu_and_kernel_matches_the_golden_table);
  suite_add_tcase(s, tc);
  return s;
}

int
main(void)
{
  return test_run_suite(golden_suite());
}
