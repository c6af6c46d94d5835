/* Shared helpers of the Check suites; not a suite. */
#pragma once

#include <check.h>

#include "sm.h"

/* Absolute path of a file in the source tree. */
char *test_source_path(const char *relative);

/* A GPU + kernel loaded from the source tree with --set strings (NULL-terminated). */
typedef struct {
  CfgGpu *gpu;
  CfgKernel *kernel;
  SmGpu *sm;
} TestRun;

TestRun *test_run_new(const char *gpu, const char *kernel, const char *const *sets);
void test_run_free(TestRun *run);

/* Every counter of @a and @b is equal, except those that say how the loop got there (cycles
 * stepped, fast-forwarded, SMs stepped): @what names the run in the failure. */
void test_assert_same_counts(const SmStats *a, const SmStats *b, const char *what);

/* Warp-instructions of @unit (ISA_UNIT_COUNT = all) issued per cycle in [from, to): the
 * steady-state throughput while every warp is still running. */
double test_window_ipc(TestRun *run, guint unit, guint64 from, guint64 to);

/* Runs the smsim binary; returns its exit status and captured output. */
int test_smsim(const char *const *args, char **out, char **err);

/* A fresh temporary directory (@tmpl as g_mkdtemp takes it, a name only), removed with
 * everything in it when the test program exits (whatever its tests did); returns its path. */
char *test_temp_dir(const char *tmpl);

/* Writes @text to a new file in a fresh temporary directory (test_temp_dir); returns its path. */
char *test_write_temp(const char *name, const char *text);

/* The quick loop (tools/dev test quick: SMSIM_QUICK=1): long validations run a sample of their
 * rows, the threads' random searches fewer configurations. */
gboolean test_quick(void);
/* The quick loop, or a build under the sanitizers (SMSIM_SANITIZED, set by tests/meson.build),
 * where every run is several times slower: the long searches and validations run a sample there,
 * since they look for memory errors and undefined behaviour, which the same code meets on fewer
 * rows; the plain build runs them whole. */
gboolean test_sampled(void);

/* A copy of the measurement file @relative (from the source tree) in a temporary file, with its
 * first line, its comments and one data row in @every (the first of each @every); *@rows gets
 * how many data rows it kept.  Returns its path. */
char *test_sample_rows(const char *relative, guint every, guint *rows);

/* Runs @suite (taking it) and returns the exit status of a test program. */
int test_run_suite(Suite *suite);
