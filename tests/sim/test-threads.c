/* SMs stepped apart (sim/parallel.c): each SM by a view of its own, in windows, on 1, 2, 3 and
 * 7 threads, must give every counter of stepping all SMs in one loop: multi-SM grids with
 * global memory (named levels, windows through the caches, random lines), shared memory and the
 * SFU under write ports, barriers, divergence, block priority, several policies, runs stopped
 * at a cycle, kernels over SASS (counters and every byte of their buffers; blocks that meet in
 * a word, and executor errors); and `smsim run` must print the same bytes (JSON, traces) for
 * any --threads. */
#include <check.h>
#include <glib/gstdio.h>
#include <string.h>

#include "helpers.h"

/* Global loads, a block-wide barrier and a divergent branch in one loop, blocks of 4 warps. */
static const char busy_kernel[] =
    "name: busy\nparams:\n  iters: 12\nblocks_per_sm: 2\nthreads_per_block: 128\n"
    "registers_per_thread: 32\nshared_memory_per_block: 4096\nstream: |\n"
    "  repeat $iters {\n    LDG R1, [R1] pattern=random\n    FADD R2, R1, R2\n"
    "    STS [R3], R2\n    BAR.SYNC\n    LDS R4, [R3]\n    ISETP P0, $lane % 3 == 1\n"
    "    BSSY B0, join\n    @P0 BRA join\n    MUFU.RSQ R5, R4\n    FADD R2, R5, R2\n"
    "    join: BSYNC B0\n    FADD R2, R2, R4\n    STG [R6], R2\n  }\n";

/* Write ports under strain: bursts of eight L2 loads per warp, SFU results and shared-memory
 * loads with 32-way bank conflicts competing for the one port a cycle. */
static const char ports_kernel[] =
    "name: ports\nwarps_per_sm: 64\nregisters_per_thread: 32\nstream: |\n  repeat 30 {\n"
    "    LDG R1, [R9] level=l2\n    LDG R2, [R9] level=l2\n    LDG R3, [R9] level=l2\n"
    "    LDG R4, [R9] level=l2\n    LDG R5, [R9] level=l2\n    LDG R6, [R9] level=l2\n"
    "    LDG R7, [R9] level=l2\n    LDG R8, [R9] level=l2\n    MUFU.RSQ R10, R11\n"
    "    MUFU.RSQ R12, R13\n    LDS R14, [R15] stride=32\n    LDS R16, [R17] stride=32\n"
    "    FADD R18, R1, R2\n    FADD R19, R3, R4\n    FADD R20, R5, R6\n    FADD R21, R7, R8\n"
    "  }\n";

#define PORTS_CASE 17 /* cases[]: the ports kernel */

typedef struct {
  const char *gpu, *kernel;
  const char *sets[10];
  gboolean apart; /* the views step it (else it must run in one loop) */
} Case;

static const Case cases[] = {
    {"config/gpus/h100.yaml",
     "isa/kernels/mix.yaml",
     {"sm_count=5", "alpha=8", "groups=60", "warps_per_sm=32", NULL},
     TRUE},
    {"config/gpus/h100.yaml",
     "isa/kernels/mix.yaml",
     {"sm_count=3", "alpha=2", "groups=40", "warps_per_sm=48", "pattern=random", NULL},
     TRUE},
    {"config/gpus/h100.yaml",
     "isa/kernels/mix.yaml",
     {"sm_count=4", "alpha=4", "groups=50", "warps_per_sm=16", "level=cached", "window=8388608",
      "warm=1", NULL},
     TRUE},
    {"config/gpus/h100.yaml",
     "isa/kernels/mix.yaml",
     {"sm_count=3", "alpha=1", "groups=60", "warps_per_sm=8", "level=cached", "window=65536", NULL},
     TRUE},
    {"config/gpus/h100.yaml",
     "isa/kernels/mix.yaml",
     {"sm_count=2", "alpha=4", "groups=40", "warps_per_sm=24", "level=l2", "ilp=3", NULL},
     TRUE},
    {"config/gpus/h100.yaml",
     "isa/kernels/memcpy.yaml",
     {"sm_count=6", "loads=4", "width=16", "warps_per_sm=12", "iters=20", NULL},
     TRUE},
    {"config/gpus/h100.yaml",
     "isa/kernels/prefetch.yaml",
     {"sm_count=3", "variant=smem_roll_sync", "pdist=4", "warps_per_sm=8", "elements=40", NULL},
     TRUE},
    {"config/gpus/maxwell.yaml",
     "isa/kernels/mix.yaml",
     {"sm_count=4", "alpha=4", "groups=60", "warps_per_sm=40", "block_priority=youngest",
      "policy=gto", NULL},
     TRUE},
    {"config/gpus/fermi.yaml",
     "isa/kernels/mix.yaml",
     {"sm_count=3", "alpha=2", "groups=50", "warps_per_sm=24", "pattern=stride2", NULL},
     TRUE},
    {"config/gpus/kepler.yaml",
     "isa/kernels/mix.yaml",
     {"sm_count=7", "alpha=16", "groups=30", "warps_per_sm=20", "policy=lrr", NULL},
     TRUE},
    {"config/gpus/h100.yaml", NULL, {"sm_count=4", NULL}, TRUE},
    {"config/gpus/fermi.yaml", NULL, {"sm_count=3", "iters=8", NULL}, TRUE},
    /* waves of blocks: each launch waits for the block scheduler between windows */
    {"config/gpus/h100.yaml",
     "isa/kernels/occupancy-lab.yaml",
     {"sm_count=4", "threads=30720", "groups=12", "tpb=256", NULL},
     TRUE},
    {"config/gpus/h100.yaml",
     "isa/kernels/occupancy-lab.yaml",
     {"sm_count=5", "threads=40000", "groups=8", "tpb=96", "smem=20000", "alpha=3", NULL},
     TRUE},
    {"config/gpus/maxwell.yaml",
     "isa/kernels/occupancy-lab.yaml",
     {"sm_count=3", "threads=20000", "groups=10", "tpb=64", "regs=32", NULL},
     TRUE},
    {"config/gpus/h100.yaml",
     NULL,
     {"sm_count=3", "blocks=29", "block_priority=oldest", NULL},
     TRUE},
    {"config/gpus/fermi.yaml", NULL, {"sm_count=3", "iters=5", "blocks=23", NULL}, TRUE},
    /* PORTS_CASE: with the queue in front of shared memory counted in passes, whose wait the
     * windows bound; a queue of accesses holds more, and this kernel's results then slide past
     * any window (stepped in one loop: test_threads_change_no_number's other cases hold that) */
    {"config/gpus/h100.yaml",
     "ports",
     {"sm_count=3", "shared_memory.queue_counts=passes", "shared_memory.queue_depth=32", NULL},
     TRUE},
    /* clock reads, a chase through the caches after a warm-up */
    {"config/gpus/h100.yaml",
     "isa/kernels/footprint.yaml",
     {"sm_count=3", "sms=3", "footprint=1048576", "cache=l1", "steps=64", NULL},
     TRUE},
    /* no global memory, blocks of different lengths (no mirroring): one window */
    {"config/gpus/h100.yaml",
     "isa/kernels/divergence.yaml",
     {"sm_count=3", "ways=4", "iters=6", "warps_per_sm=8", NULL},
     FALSE},
    /* blocks still to launch after the first wave: one loop */
    {"config/gpus/h100.yaml",
     "bench/waves.yaml",
     {"sm_count=3", "blocks=20", "iters=30", NULL},
     FALSE},
};

static TestRun *
start(const Case *c)
{
  if (c->kernel && strcmp(c->kernel, "ports") == 0) {
    g_autofree char *path = test_write_temp("ports.yaml", ports_kernel);
    return test_run_new(c->gpu, path, c->sets);
  }
  if (c->kernel)
    return test_run_new(c->gpu, c->kernel, c->sets);
  g_autofree char *path = test_write_temp("busy.yaml", busy_kernel);
  return test_run_new(c->gpu, path, c->sets);
}

/* How the sending goes once no block is left to launch, by thread count, so that every way and
 * the switches between them (every window) meet every case: the results are the same. */
static SmPipe
pipe_for(guint threads)
{
  return threads == 2 ? SM_PIPE_ALTERNATE : threads == 3 ? SM_PIPE_ON : SM_PIPE_OFF;
}

static SmStats
run_case_piped(const Case *c, gboolean apart, guint threads, SmPipe pipe)
{
  sm_set_apart(apart);
  sm_set_pipe(pipe);
  TestRun *run = start(c);
  sm_set_threads(run->sm, threads);
  sm_run(run->sm);
  SmStats s = *sm_stats(run->sm);
  test_run_free(run);
  sm_set_apart(TRUE);
  sm_set_pipe(SM_PIPE_AUTO);
  return s;
}

static SmStats
run_case(const Case *c, gboolean apart, guint threads)
{
  return run_case_piped(c, apart, threads, pipe_for(threads));
}

START_TEST(test_threads_change_no_number)
{
  const Case *c = &cases[_i];
  SmStats one = run_case(c, FALSE, 1);
  ck_assert_uint_eq(one.windows, 0);
  ck_assert_uint_gt(one.issued, 0);
  static const guint threads[] = {1, 2, 3, 7};
  for (guint i = 0; i < G_N_ELEMENTS(threads); i++) {
    SmStats apart = run_case(c, TRUE, threads[i]);
    g_autofree char *what = g_strdup_printf("case %d (%s) on %u threads", _i,
                                            c->kernel ? c->kernel : "busy", threads[i]);
    if (c->apart)
      ck_assert_msg(apart.windows > 0, "%s: not stepped apart", what);
    else if (c->sets[0] && strstr(c->kernel ? c->kernel : "", "waves"))
      ck_assert_msg(apart.windows == 0, "%s: stepped apart", what);
    test_assert_same_counts(&one, &apart, what);
  }
}
END_TEST

/* Random configurations of the mix: GPU, SMs, warps, intensity, chains, the other op, access
 * pattern, level or window, policy and block priority drawn from the case's seed. */
START_TEST(test_random_configurations_match)
{
  static const char *const gpus[] = {"config/gpus/h100.yaml", "config/gpus/maxwell.yaml",
                                     "config/gpus/kepler.yaml", "config/gpus/fermi.yaml"};
  static const char *const others[] = {"LDG", "LDG", "LDG", "LDS", "MUFU.RSQ"};
  static const char *const patterns[] = {"coalesced", "stride2", "random"};
  static const char *const levels[] = {"dram", "l2", "cached"};
  static const char *const policies[] = {"lrr", "gto", "last_resumed", "oldest"};
  static const char *const priorities[] = {"none", "oldest", "youngest"};
  GRand *r = g_rand_new_with_seed(1000u + (guint32)_i);
  const char *gpu = gpus[g_rand_int_range(r, 0, 4)];
  gboolean h100 = strstr(gpu, "h100") != NULL;
  g_autofree char *sms = g_strdup_printf("sm_count=%d", g_rand_int_range(r, 2, 10));
  g_autofree char *warps = g_strdup_printf("warps_per_sm=%d", 4 * g_rand_int_range(r, 1, 9));
  g_autofree char *alpha = g_strdup_printf("alpha=%d", g_rand_int_range(r, 0, 12));
  g_autofree char *ilp = g_strdup_printf("ilp=%d", g_rand_int_range(r, 1, 4));
  g_autofree char *other = g_strdup_printf("other=%s", others[g_rand_int_range(r, 0, 5)]);
  g_autofree char *pattern = g_strdup_printf("pattern=%s", patterns[g_rand_int_range(r, 0, 3)]);
  const char *lv = levels[g_rand_int_range(r, 0, h100 ? 3 : 1)];
  g_autofree char *level = g_strdup_printf("level=%s", lv);
  g_autofree char *window =
      g_strdup_printf("window=%d", 1 << g_rand_int_range(r, 14, 26)); /* 16 KiB to 32 MiB */
  g_autofree char *policy = g_strdup_printf("policy=%s", policies[g_rand_int_range(r, 0, 4)]);
  g_autofree char *prio =
      g_strdup_printf("block_priority=%s", priorities[g_rand_int_range(r, 0, 3)]);
  g_rand_free(r);
  Case c = {gpu,
            "isa/kernels/mix.yaml",
            {sms, warps, alpha, ilp, other, pattern, level, "groups=24", policy, NULL},
            TRUE};
  if (strcmp(lv, "cached") == 0)
    c.sets[8] = window;
  else if (strcmp(lv, "l2") == 0)
    c.sets[8] = prio;
  g_autofree char *what = g_strjoinv(" ", (char **)c.sets);
  SmStats one = run_case(&c, FALSE, 1);
  static const guint threads[] = {2, 3, 7};
  for (guint i = 0; i < G_N_ELEMENTS(threads); i++) {
    SmStats apart = run_case(&c, TRUE, threads[i]);
    if (strstr(other, "LDG"))
      ck_assert_msg(apart.windows > 0, "%s: not stepped apart", what);
    test_assert_same_counts(&one, &apart, what);
  }
}
END_TEST

/* The window is the shortest unloaded latency of a level the run's accesses reach, less what a
 * warp's own work reaches past its issue (56 cycles on the H100 preset: one to issue, then a
 * taken branch's 7, a BSYNC's 20, a branch not taken's 12 and a divergent one's 16; a FADD's
 * write port, 5 and 16 to spare, reaches less): a busy mix on 2 SMs (32 warps, 8 FADDs a load,
 * never idle) loading from DRAM only (its fastest draw 515) is stepped in windows of 459
 * cycles, one loading from the L2 (251) in windows of 195, the same counts either way.  On two
 * threads, once no block is left to launch (here from the start), with each window's accesses
 * sent while the views step the next, the windows are half as long; sent alone, as long. */
START_TEST(test_windows_follow_the_levels_reached)
{
  static const struct {
    const char *level;
    guint64 window;
  } levels[] = {{"level=dram", 459}, {"level=l2", 195}};
  static const struct {
    guint threads;
    SmPipe pipe;
    guint64 div;
  } ways[] = {{1, SM_PIPE_ON, 1}, {2, SM_PIPE_ON, 2}, {2, SM_PIPE_OFF, 1}};
  for (guint i = 0; i < G_N_ELEMENTS(levels); i++) {
    Case c = {"config/gpus/h100.yaml",
              "isa/kernels/mix.yaml",
              {"sm_count=2", "warps_per_sm=32", "alpha=8", "groups=24", levels[i].level, NULL},
              TRUE};
    SmStats one = run_case(&c, FALSE, 1);
    for (guint k = 0; k < G_N_ELEMENTS(ways); k++) {
      SmStats apart = run_case_piped(&c, TRUE, ways[k].threads, ways[k].pipe);
      test_assert_same_counts(&one, &apart, levels[i].level);
      guint64 window = levels[i].window / ways[k].div;
      guint64 want = (apart.cycles + window - 1) / window;
      ck_assert_msg(apart.windows + 2 >= want && apart.windows <= want + 2,
                    "%s on %u threads, way %d: %" G_GUINT64_FORMAT
                    " windows over %" G_GUINT64_FORMAT " cycles, want about %" G_GUINT64_FORMAT,
                    levels[i].level, ways[k].threads, ways[k].pipe, apart.windows, apart.cycles,
                    want);
    }
  }
}
END_TEST

/* By default the way the sending goes is timed on the run (lookahead.c, sm_pipe_way()): after
 * the first 32 windows sent alone, each way in turns, then the faster kept.  A run long enough
 * to be timed (170 windows of 195 cycles) therefore has more windows than sent alone throughout
 * and fewer than beside the stepping throughout, whichever was faster; the same counts. */
START_TEST(test_the_faster_way_is_timed_on_the_run)
{
  Case c = {"config/gpus/h100.yaml",
            "isa/kernels/mix.yaml",
            {"sm_count=2", "warps_per_sm=32", "alpha=8", "groups=100", "level=l2", NULL},
            TRUE};
  SmStats one = run_case(&c, FALSE, 1);
  SmStats off = run_case_piped(&c, TRUE, 2, SM_PIPE_OFF);
  SmStats on = run_case_piped(&c, TRUE, 2, SM_PIPE_ON);
  SmStats timed = run_case_piped(&c, TRUE, 2, SM_PIPE_AUTO);
  test_assert_same_counts(&one, &off, "sent alone");
  test_assert_same_counts(&one, &on, "sent beside the stepping");
  test_assert_same_counts(&one, &timed, "the faster way");
  ck_assert_uint_ge(off.windows, 160);
  ck_assert_msg(timed.windows > off.windows + 8 && timed.windows + 8 < on.windows,
                "%" G_GUINT64_FORMAT " windows timed, %" G_GUINT64_FORMAT
                " sent alone, %" G_GUINT64_FORMAT " beside the stepping",
                timed.windows, off.windows, on.windows);
}
END_TEST

/* While blocks are left to launch, the bound often stops short of a window's end, at a launch
 * that could come or a retirement, where the views with no free slot have stepped to the end.
 * The next window ends where that one did (parallel.c), so those views step nothing in it:
 * two grids of waves on 4 and 8 SMs make fewer steps of a view than a third of SMs times
 * windows (683 in 557 windows and 2 258 in 1 193 on one thread), with the same counts; when the
 * next window ended a whole window after the bound, they made 1 525 in 448 and 3 834 in 1 082.
 * (The slots take the next block 150 cycles after a retirement, as they did when this was
 * measured: the H100 preset's own 470 cuts fewer windows short.) */
START_TEST(test_views_at_a_cut_windows_end_wait_there)
{
  static const Case grids[] = {
      {"config/gpus/h100.yaml",
       "isa/kernels/occupancy-lab.yaml",
       {"sm_count=4", "threads=30720", "groups=12", "tpb=256", "block_launch_cycles=150", NULL},
       TRUE},
      {"config/gpus/h100.yaml",
       "isa/kernels/occupancy-lab.yaml",
       {"sm_count=8", "threads=122880", "groups=6", "tpb=128", "block_launch_cycles=150", NULL},
       TRUE},
  };
  for (guint i = 0; i < G_N_ELEMENTS(grids); i++) {
    SmStats one = run_case(&grids[i], FALSE, 1);
    for (guint threads = 1; threads <= 2; threads++) {
      SmStats apart = run_case(&grids[i], TRUE, threads);
      test_assert_same_counts(&one, &apart, grids[i].sets[0]);
      ck_assert_msg(apart.view_steps * 3 < apart.n_sm * apart.windows,
                    "%s on %u threads: %" G_GUINT64_FORMAT " steps of a view in %" G_GUINT64_FORMAT
                    " windows",
                    grids[i].sets[0], threads, apart.view_steps, apart.windows);
    }
  }
}
END_TEST

/* Windows longer than what a warp's own results reach (less room for a write port found
 * taken than the ports kernel's results slide): a completion's port may then have been taken
 * first by a later issue, so the run is stepped again in one loop from its start, with the
 * single loop's counts; with the default room the same run is stepped apart. */
START_TEST(test_late_write_ports_step_again_in_one_loop)
{
  const Case *c = &cases[PORTS_CASE];
  ck_assert_str_eq(c->kernel, "ports");
  SmStats one = run_case(c, FALSE, 1);
  sm_set_port_slack(-40);
  SmStats again = run_case(c, TRUE, 2);
  sm_set_port_slack(16);
  ck_assert_uint_eq(again.windows, 0); /* started again: none of its windows counted */
  test_assert_same_counts(&one, &again, "ports, short windows");
  SmStats apart = run_case(c, TRUE, 2);
  ck_assert_uint_gt(apart.windows, 0);
  test_assert_same_counts(&one, &apart, "ports");
}
END_TEST

/* Random grids of several waves (occupancy-lab): blocks of random size, registers and shared
 * memory launch as others retire, each launch decided between windows. */
START_TEST(test_random_waves_match)
{
  static const guint tpbs[] = {32, 64, 96, 128, 256, 512};
  GRand *r = g_rand_new_with_seed(2000u + (guint32)_i);
  const char *gpu = g_rand_boolean(r) ? "config/gpus/h100.yaml" : "config/gpus/maxwell.yaml";
  g_autofree char *sms = g_strdup_printf("sm_count=%d", g_rand_int_range(r, 2, 7));
  g_autofree char *tpb = g_strdup_printf("tpb=%u", tpbs[g_rand_int_range(r, 0, 6)]);
  g_autofree char *threads = g_strdup_printf("threads=%d", g_rand_int_range(r, 4000, 40000));
  g_autofree char *regs = g_strdup_printf("regs=%d", 8 * g_rand_int_range(r, 2, 9));
  g_autofree char *smem = g_strdup_printf("smem=%d", g_rand_int_range(r, 0, 16000));
  g_autofree char *alpha = g_strdup_printf("alpha=%d", g_rand_int_range(r, 0, 9));
  g_autofree char *groups = g_strdup_printf("groups=%d", g_rand_int_range(r, 3, 10));
  g_rand_free(r);
  Case c = {gpu,
            "isa/kernels/occupancy-lab.yaml",
            {sms, tpb, threads, regs, smem, alpha, groups, NULL},
            TRUE};
  g_autofree char *what = g_strjoinv(" ", (char **)c.sets);
  SmStats one = run_case(&c, FALSE, 1);
  static const guint n[] = {2, 3, 7};
  for (guint i = 0; i < G_N_ELEMENTS(n); i++) {
    SmStats apart = run_case(&c, TRUE, n[i]);
    ck_assert_msg(apart.windows > 0, "%s: not stepped apart", what);
    test_assert_same_counts(&one, &apart, what);
  }
}
END_TEST

/* sm_run_until() stops: the counts at each stop, and the cycle it stops at, are those of the
 * single loop; the run then goes on to the same end. */
START_TEST(test_runs_stopped_at_a_cycle_match)
{
  const Case *c = &cases[_i == 0 ? 0 : 12]; /* one wave; waves of blocks */
  const guint64 stops[] = {1000, 1001, 7000, 20000};
  SmStats at[2][G_N_ELEMENTS(stops) + 1];
  guint64 now[2][G_N_ELEMENTS(stops)];
  for (guint apart = 0; apart < 2; apart++) {
    sm_set_apart(apart);
    TestRun *run = start(c);
    sm_set_threads(run->sm, 3);
    for (guint i = 0; i < G_N_ELEMENTS(stops); i++) {
      sm_run_until(run->sm, stops[i]);
      ck_assert(!sm_finished(run->sm));
      now[apart][i] = sm_now(run->sm);
      at[apart][i] = *sm_stats(run->sm);
    }
    sm_run(run->sm);
    at[apart][G_N_ELEMENTS(stops)] = *sm_stats(run->sm);
    test_run_free(run);
  }
  sm_set_apart(TRUE);
  for (guint i = 0; i < G_N_ELEMENTS(stops); i++) {
    ck_assert_uint_eq(now[0][i], now[1][i]);
    ck_assert_uint_ge(now[1][i], stops[i]);
    ck_assert_uint_eq(at[0][i].issued, at[1][i].issued);
  }
  test_assert_same_counts(&at[0][G_N_ELEMENTS(stops)], &at[1][G_N_ELEMENTS(stops)], "stopped");
}
END_TEST

/* The command line: the same bytes for any --threads, JSON and traces alike. */
START_TEST(test_the_command_prints_the_same_bytes)
{
  g_autofree char *dir = test_temp_dir("smsim-threads-XXXXXX");
  g_autofree char *first = NULL, *first_trace = NULL;
  static const char *const threads[] = {"1", "2", "3", "7"};
  for (guint i = 0; i < G_N_ELEMENTS(threads); i++) {
    g_autofree char *trace = g_build_filename(dir, "t.csv", NULL);
    const char *json[] = {"run",
                          "config/gpus/h100.yaml",
                          "isa/kernels/mix.yaml",
                          "--set",
                          "sm_count=4",
                          "--set",
                          "groups=30",
                          "--json",
                          "--threads",
                          threads[i],
                          NULL};
    const char *traced[] = {"run",
                            "config/gpus/h100.yaml",
                            "isa/kernels/mix.yaml",
                            "--set",
                            "sm_count=2",
                            "--set",
                            "groups=8",
                            "--trace",
                            trace,
                            "--threads",
                            threads[i],
                            NULL};
    g_autofree char *out = NULL, *err = NULL, *out2 = NULL, *err2 = NULL, *bytes = NULL;
    ck_assert_int_eq(test_smsim(json, &out, &err), 0);
    ck_assert_int_eq(test_smsim(traced, &out2, &err2), 0);
    ck_assert(g_file_get_contents(trace, &bytes, NULL, NULL));
    if (i == 0) {
      first = g_strdup(out);
      first_trace = g_strdup(bytes);
      continue;
    }
    ck_assert_str_eq(out, first);
    ck_assert_str_eq(bytes, first_trace);
    g_unlink(trace);
  }
  g_autofree char *trace = g_build_filename(dir, "t.csv", NULL);
  g_unlink(trace);
  g_rmdir(dir);
}
END_TEST

START_TEST(test_bad_thread_counts_are_refused)
{
  static const char *const bad[] = {"-1", "1025", "many"};
  static const char *const commands[] = {"run", "sweep", "validate"};
  for (guint c = 0; c < G_N_ELEMENTS(commands); c++) {
    for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
      const char *args[] = {commands[c],
                            "config/gpus/h100.yaml",
                            c == 2 ? "tests/data/h100-footprint-clock.csv" : "isa/kernels/mix.yaml",
                            c == 1 ? "--vary" : "--threads",
                            c == 1 ? "alpha=1,2" : bad[i],
                            c == 1 ? "--threads" : NULL,
                            bad[i],
                            NULL};
      g_autofree char *out = NULL, *err = NULL;
      ck_assert_int_eq(test_smsim(args, &out, &err), 2);
      ck_assert_msg(strstr(err, "--threads") != NULL || strstr(err, "threads") != NULL,
                    "%s --threads %s: %s", commands[c], bad[i], err);
      ck_assert_msg(strchr(err, '\n') == err + strlen(err) - 1, "one line: %s", err);
    }
  }
}
END_TEST

/* ---- kernels over SASS ---- */

typedef struct {
  const char *kernel;
  const char *sets[10];
  gboolean apart;
} SassCase;

static const SassCase sass_cases[] = {
    {"isa/kernels/textbook/saxpy.yaml", {"sm_count=5", "n=60000", "grid=40", NULL}, TRUE},
    {"isa/kernels/textbook/sgemm_tiled.yaml", {"sm_count=4", "n=64", "grid=16", NULL}, TRUE},
    {"isa/kernels/textbook/transpose_naive.yaml", {"sm_count=3", "n=128", "grid=16", NULL}, TRUE},
    {"isa/kernels/textbook/transpose_tiled.yaml", {"sm_count=6", "n=128", "grid=16", NULL}, TRUE},
    {"isa/kernels/textbook/stencil1d.yaml", {"sm_count=4", "n=16384", "grid=24", NULL}, TRUE},
    /* waves of blocks: each launch decided between windows, its lanes set up there */
    {"isa/kernels/textbook/saxpy.yaml", {"sm_count=3", "n=100000", "grid=200", NULL}, TRUE},
    {"isa/kernels/textbook/transpose_tiled.yaml", {"sm_count=2", "n=256", "grid=64", NULL}, TRUE},
    /* clock-timed measurements' own SASS: clock reads, loads in flight, the caches */
    {"isa/kernels/mlp.yaml",
     {"sm_count=4", "sms=4", "pattern=grid", "loads=8", "warps_per_sm=4", NULL},
     TRUE},
    {"isa/kernels/mlp.yaml",
     {"sm_count=3", "sms=3", "pattern=split", "width=16", "loads=4", NULL},
     TRUE},
    /* the LD/ST stage (lsu.h): stores holding their registers, loads of 32 lines (the stores'
     * __threadfence() waiting for nothing: a fence waits for its SM's stores, which a view of
     * the SM on a thread learns later, so one loop, as the next case shows) */
    {"isa/kernels/h100/mempipe-lines.yaml",
     {"sm_count=4", "sms=4", "op=st_l2", "lines=8", "warps_per_sm=8", "iters=16",
      "memory.fence=none", NULL},
     TRUE},
    {"isa/kernels/h100/mempipe-lines.yaml",
     {"sm_count=4", "sms=4", "op=st_l2", "lines=8", "warps_per_sm=8", "iters=16", NULL},
     FALSE},
    {"isa/kernels/h100/mempipe-lines.yaml",
     {"sm_count=3", "sms=3", "op=ld_l1", "lines=32", "warps_per_sm=6", NULL},
     TRUE},
    /* stores waiting in the store queue for room (lsu.store_queue), taken as completions come */
    {"isa/kernels/h100/mempipe-lines.yaml",
     {"sm_count=4", "sms=4", "op=st_l2", "lines=32", "warps_per_sm=16", "iters=8",
      "memory.max_store_outstanding=64", "memory.fence=none", NULL},
     TRUE},
    /* REDG: blocks meet in global memory, so one loop from the start */
    {"isa/kernels/textbook/reduce.yaml", {"sm_count=4", "n=16384", "grid=16", NULL}, FALSE},
};

/* A run of a kernel over SASS, kept for its buffers' bytes */
typedef struct {
  TestRun *run;
  SmStats stats;
  char *error; /* the run's error, or NULL */
} SassRun;

/* Runs @kernel (a source path, or a file already written) with @sets; sass_run_free() */
static SassRun
sass_case_run(const char *kernel, const char *const *sets, gboolean apart, guint threads)
{
  sm_set_apart(apart);
  sm_set_pipe(pipe_for(threads));
  SassRun r = {test_run_new("config/gpus/h100.yaml", kernel, sets), {0}, NULL};
  sm_set_threads(r.run->sm, threads);
  sm_run(r.run->sm);
  sm_set_pipe(SM_PIPE_AUTO);
  r.stats = *sm_stats(r.run->sm);
  r.error = sm_error(r.run->sm) ? g_strdup(sm_error(r.run->sm)->message) : NULL;
  sm_set_apart(TRUE);
  return r;
}

static void
sass_run_free(SassRun *r)
{
  test_run_free(r->run);
  g_free(r->error);
}

/* The 32-bit word at byte @offset of the run's first buffer */
static guint32
sass_run_word(const SassRun *r, gsize offset)
{
  gsize size;
  const guint8 *data = exec_memory_data(sm_memory_image(r->run->sm), 0, &size, NULL);
  ck_assert_uint_le(offset + 4, size);
  guint32 w;
  memcpy(&w, data + offset, 4);
  return w;
}

/* Every buffer of @a's the same bytes as @b's (compared where they lie: copying them would
 * fill pages a large buffer never touched) */
static void
assert_same_bytes(const SassRun *a, const SassRun *b, const char *what)
{
  ExecMemory *ma = sm_memory_image(a->run->sm), *mb = sm_memory_image(b->run->sm);
  ck_assert_uint_eq(exec_memory_count(ma), exec_memory_count(mb));
  for (guint i = 0; i < exec_memory_count(ma); i++) {
    gsize na, nb;
    const guint8 *da = exec_memory_data(ma, i, &na, NULL), *db = exec_memory_data(mb, i, &nb, NULL);
    ck_assert_msg(na == nb && memcmp(da, db, na) == 0, "%s: buffer %s differs", what,
                  exec_memory_name(ma, i));
  }
}

/* @c on 1 and on @n_threads thread counts: every counter and buffer byte the single loop's */
static void
assert_sass_case_matches(const SassCase *c, const guint *threads, guint n_threads)
{
  SassRun one = sass_case_run(c->kernel, c->sets, FALSE, 1);
  ck_assert_msg(one.error == NULL, "%s", one.error);
  ck_assert_uint_eq(one.stats.windows, 0);
  for (guint i = 0; i < n_threads; i++) {
    SassRun apart = sass_case_run(c->kernel, c->sets, TRUE, threads[i]);
    g_autofree char *sets = g_strjoinv(" ", (char **)c->sets);
    g_autofree char *what = g_strdup_printf("%s %s on %u threads", c->kernel, sets, threads[i]);
    ck_assert_msg(apart.error == NULL, "%s: %s", what, apart.error);
    ck_assert_msg(c->apart ? apart.stats.windows > 0 : apart.stats.windows == 0, "%s: %s", what,
                  c->apart ? "not stepped apart" : "stepped apart");
    test_assert_same_counts(&one.stats, &apart.stats, what);
    assert_same_bytes(&one, &apart, what);
    sass_run_free(&apart);
  }
  sass_run_free(&one);
}

START_TEST(test_sass_kernels_match)
{
  static const guint threads[] = {1, 2, 3, 7};
  assert_sass_case_matches(&sass_cases[_i], threads, G_N_ELEMENTS(threads));
}
END_TEST

/* Random launches of the textbook kernels over SASS: SMs, sizes, grids (in waves or not),
 * blocks per SM limited by padding shared memory, drawn from the case's seed. */
START_TEST(test_random_sass_kernels_match)
{
  GRand *r = g_rand_new_with_seed(3000u + (guint32)_i);
  char *sets[6] = {g_strdup_printf("sm_count=%d", g_rand_int_range(r, 2, 8)), NULL};
  const char *kernel;
  switch (_i % 4) {
  case 0: {
    kernel = "isa/kernels/textbook/saxpy.yaml";
    sets[1] = g_strdup_printf("n=%d", g_rand_int_range(r, 1000, 150000));
    sets[2] = g_strdup_printf("grid=%d", g_rand_int_range(r, 4, 200));
    sets[3] = g_strdup_printf("dynamic_smem=%d", g_rand_int_range(r, 0, 60000));
    break;
  }
  case 1: {
    kernel = "isa/kernels/textbook/sgemm_tiled.yaml";
    guint n = 16u * (guint)g_rand_int_range(r, 2, 7);
    sets[1] = g_strdup_printf("n=%u", n);
    sets[2] = g_strdup_printf("grid=%u", (n / 16) * (n / 16));
    sets[3] = g_strdup_printf("dynamic_smem=%d", g_rand_int_range(r, 0, 60000));
    break;
  }
  case 2: {
    kernel = g_rand_boolean(r) ? "isa/kernels/textbook/transpose_naive.yaml"
                               : "isa/kernels/textbook/transpose_tiled.yaml";
    guint n = 32u * (guint)g_rand_int_range(r, 2, 6);
    sets[1] = g_strdup_printf("n=%u", n);
    sets[2] = g_strdup_printf("grid=%u", (n / 32) * (n / 32));
    sets[3] = g_strdup_printf("dynamic_smem=%d", g_rand_int_range(r, 0, 60000));
    break;
  }
  default: {
    kernel = "isa/kernels/textbook/stencil1d.yaml";
    guint tpb = 64u << g_rand_int_range(r, 0, 3);
    sets[1] = g_strdup_printf("threads_per_block=%u", tpb);
    sets[2] = g_strdup_printf("n=%u", tpb * (guint)g_rand_int_range(r, 8, 150));
    sets[3] = g_strdup_printf("grid=%d", g_rand_int_range(r, 4, 120));
    sets[4] =
        g_strdup_printf("dynamic_smem=%u", (tpb + 16) * 4 + (guint)g_rand_int_range(r, 0, 50000));
    break;
  }
  }
  g_rand_free(r);
  SassCase c = {kernel, {sets[0], sets[1], sets[2], sets[3], sets[4], NULL}, TRUE};
  static const guint threads[] = {2, 3, 7};
  assert_sass_case_matches(&c, threads, G_N_ELEMENTS(threads));
  for (guint i = 0; i < G_N_ELEMENTS(sets); i++)
    g_free(sets[i]);
}
END_TEST

/* A kernel over SASS of @insns (one instruction each, without addresses) and two buffers, out
 * and in (iota words), @bytes each: the kernel file's path. */
static char *
sass_kernel(const char *const *insns, const char *launch, guint bytes)
{
  GString *sass = g_string_new("\t\tFunction : _Z1kPjS_\n");
  for (guint i = 0; insns[i]; i++)
    g_string_append_printf(sass, "        /*%04x*/   %s ;\n", i * 16, insns[i]);
  g_autofree char *sass_path = test_write_temp("k.sass", sass->str);
  g_string_free(sass, TRUE);
  g_autofree char *text =
      g_strdup_printf("name: k\nsass: %s\nregisters_per_thread: 32\n%s\narguments:\n"
                      "  - {name: out, type: buffer, bytes: %u}\n"
                      "  - {name: in, type: buffer, bytes: %u, fill: iota}\n",
                      sass_path, launch, bytes, bytes);
  return test_write_temp("k.yaml", text);
}

/* What block @b stores: the bits of in[b] (iota floats) plus b. */
static guint32
iota_plus(guint b)
{
  float f = (float)b;
  guint32 bits;
  memcpy(&bits, &f, 4);
  return bits + b;
}

/* Every block stores in[its index] plus its index into out[0]: blocks on different
 * SMs write one word in the same window, which only the single loop orders; stepped apart, the
 * run finds it and starts again in one loop, with the single loop's last writer. */
/* 24 blocks of 64 threads, each storing in[its index] plus its index to out[@stride bytes x
 * its index] */
static char *
store_kernel(const char *stride)
{
  g_autofree char *imad = g_strdup_printf("IMAD.WIDE R2, R0, %s, R2", stride);
  const char *const sass[] = {"S2R R0, SR_CTAID.X",
                              "LDC.64 R2, c[0x0][0x210]",
                              "LDC.64 R4, c[0x0][0x218]",
                              "ULDC.64 UR4, c[0x0][0x208]",
                              "IMAD.WIDE R4, R0, 0x4, R4",
                              "LDG.E R6, desc[UR4][R4.64]",
                              "IADD3 R6, R6, R0, RZ",
                              imad,
                              "STG.E desc[UR4][R2.64], R6",
                              "EXIT",
                              NULL};
  return sass_kernel(sass, "grid: 24\nblock: 64", 4096);
}

START_TEST(test_sass_blocks_meeting_in_a_word_run_in_one_loop)
{
  g_autofree char *kernel = store_kernel("0x0");
  const char *sets[] = {"sm_count=4", NULL};
  SassRun one = sass_case_run(kernel, sets, FALSE, 1);
  ck_assert_msg(one.error == NULL, "%s", one.error);
  ck_assert_uint_eq(one.stats.issued, 24 * 2 * 10);
  guint32 last = sass_run_word(&one, 0);
  gboolean some_block = FALSE; /* the last writer's value */
  for (guint b = 0; b < 24; b++)
    some_block |= last == iota_plus(b);
  ck_assert_msg(some_block, "out[0] = %u is no block's", last);
  static const guint threads[] = {1, 2, 3};
  for (guint i = 0; i < G_N_ELEMENTS(threads); i++) {
    SassRun apart = sass_case_run(kernel, sets, TRUE, threads[i]);
    g_autofree char *what = g_strdup_printf("blocks meeting on %u threads", threads[i]);
    ck_assert_msg(apart.error == NULL, "%s: %s", what, apart.error);
    ck_assert_msg(apart.stats.windows == 0, "%s: the views' run was kept", what);
    test_assert_same_counts(&one.stats, &apart.stats, what);
    assert_same_bytes(&one, &apart, what);
    sass_run_free(&apart);
  }
  sass_run_free(&one);
}
END_TEST

/* The same kernel with each block storing to out[2 x its index] (an 8-byte word of its own):
 * nothing meets and the views' run stands; storing to out[its index], neighbouring blocks
 * share 8-byte words of the shadow and meet (falsely): one loop again.  Both are the single
 * loop's to the byte. */
START_TEST(test_sass_blocks_meeting_only_in_their_words)
{
  static const char *const strides[] = {"0x8", "0x4"};
  for (guint k = 0; k < G_N_ELEMENTS(strides); k++) {
    g_autofree char *kernel = store_kernel(strides[k]);
    const char *sets[] = {"sm_count=4", NULL};
    SassRun one = sass_case_run(kernel, sets, FALSE, 1);
    ck_assert_msg(one.error == NULL, "%s", one.error);
    ck_assert_uint_eq(sass_run_word(&one, k == 0 ? 8 : 4), iota_plus(1)); /* block 1's */
    SassRun apart = sass_case_run(kernel, sets, TRUE, 2);
    ck_assert_msg(apart.error == NULL, "%s", apart.error);
    if (k == 0)
      ck_assert_msg(apart.stats.windows > 0, "own words: not stepped apart");
    else
      ck_assert_msg(apart.stats.windows == 0, "shared 8-byte words: the views' run was kept");
    test_assert_same_counts(&one.stats, &apart.stats, strides[k]);
    assert_same_bytes(&one, &apart, strides[k]);
    sass_run_free(&apart);
    sass_run_free(&one);
  }
}
END_TEST

/* Blocks 1 on load past the end of in (4 MiB a block): stepped apart, the run stops with the
 * error the single loop meets first (the lowest SM's at the earliest cycle). */
START_TEST(test_sass_errors_are_the_single_loops)
{
  static const char *const sass[] = {"S2R R0, SR_CTAID.X",
                                     "LDC.64 R4, c[0x0][0x218]",
                                     "ULDC.64 UR4, c[0x0][0x208]",
                                     "IMAD.WIDE R4, R0, 0x400000, R4",
                                     "LDG.E R6, desc[UR4][R4.64]",
                                     "EXIT",
                                     NULL};
  g_autofree char *kernel = sass_kernel(sass, "grid: 8\nblock: 32", 4096);
  const char *sets[] = {"sm_count=4", NULL};
  SassRun one = sass_case_run(kernel, sets, FALSE, 1);
  ck_assert(one.error != NULL);
  static const guint threads[] = {1, 2, 3};
  for (guint i = 0; i < G_N_ELEMENTS(threads); i++) {
    SassRun apart = sass_case_run(kernel, sets, TRUE, threads[i]);
    ck_assert_msg(apart.stats.windows > 0, "not stepped apart on %u threads", threads[i]);
    ck_assert_msg(apart.error != NULL, "no error on %u threads", threads[i]);
    ck_assert_str_eq(apart.error, one.error);
    sass_run_free(&apart);
  }
  sass_run_free(&one);
}
END_TEST

/* How many random configurations a case draws: @n, or SMSIM_RANDOM_CASES of them (a longer
 * search for a configuration whose threads differ from the single loop, when set); in the
 * quick loop and under the sanitizers a sixth (the plain build draws them all) */
static gint
random_cases(gint n)
{
  const gchar *e = g_getenv("SMSIM_RANDOM_CASES");
  gint64 k = e ? g_ascii_strtoll(e, NULL, 10) : 0;
  if (k > 0 && k <= 100000)
    return (gint)k;
  return test_sampled() ? MAX(1, n / 6) : n;
}

static Suite *
threads_suite(void)
{
  Suite *s = suite_create("threads");
  TCase *tc = tcase_create("threads");
  tcase_set_timeout(tc, 600);
  tcase_add_loop_test(tc, test_threads_change_no_number, 0, G_N_ELEMENTS(cases));
  /* (tools/dev test runs the cases "threads" and "sass-meet" under ThreadSanitizer) */
  TCase *random = tcase_create("random");
  tcase_set_timeout(random, 600);
  tcase_add_loop_test(random, test_random_configurations_match, 0, random_cases(24));
  tcase_add_loop_test(random, test_random_waves_match, 0, random_cases(12));
  suite_add_tcase(s, random);
  tcase_add_loop_test(tc, test_runs_stopped_at_a_cycle_match, 0, 2);
  tcase_add_test(tc, test_the_command_prints_the_same_bytes);
  tcase_add_test(tc, test_windows_follow_the_levels_reached);
  tcase_add_test(tc, test_the_faster_way_is_timed_on_the_run);
  tcase_add_test(tc, test_views_at_a_cut_windows_end_wait_there);
  tcase_add_test(tc, test_late_write_ports_step_again_in_one_loop);
  tcase_add_test(tc, test_bad_thread_counts_are_refused);
  /* kernels over SASS: the first also under ThreadSanitizer, the others (minutes there) not;
   * clock reads on threads are there with footprint.yaml's stream */
  tcase_add_loop_test(tc, test_sass_kernels_match, 0, 1);
  suite_add_tcase(s, tc);
  TCase *sass = tcase_create("sass");
  tcase_set_timeout(sass, 600);
  /* the quick loop and the sanitizers (test_sampled()): the textbook kernels' first four, the
   * LD/ST stage's two (the plain build runs them all) */
  if (test_sampled()) {
    tcase_add_loop_test(sass, test_sass_kernels_match, 1, 4);
    tcase_add_loop_test(sass, test_sass_kernels_match, 9, 11);
  } else {
    tcase_add_loop_test(sass, test_sass_kernels_match, 1, G_N_ELEMENTS(sass_cases));
  }
  tcase_add_loop_test(sass, test_random_sass_kernels_match, 0, random_cases(12));
  suite_add_tcase(s, sass);
  /* SMs meeting in a word (tools/dev test runs these under ThreadSanitizer too: the shadow lets
   * only the first of two touch it, so the bytes are never raced for) */
  TCase *meet = tcase_create("sass-meet");
  tcase_set_timeout(meet, 120);
  tcase_add_test(meet, test_sass_blocks_meeting_in_a_word_run_in_one_loop);
  tcase_add_test(meet, test_sass_blocks_meeting_only_in_their_words);
  tcase_add_test(meet, test_sass_errors_are_the_single_loops);
  suite_add_tcase(s, meet);
  return s;
}

int
main(void)
{
  return test_run_suite(threads_suite());
}
