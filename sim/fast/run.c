/* The run as sm.h offers it: a machine (gpu/) built with what this layer adds to it, stepped
 * by the fastest way that gives the same results (SMs on threads, else the machine's loop with
 * fast-forward looking after each step), its counts read through mirroring and fast-forward,
 * and its end. */
#include "fast.h"

#include <string.h>

static void
after_step(SmGpu *sm, guint64 limit)
{
  sm_steady_after_step(sm, sm->fast->steady, limit);
}

const SmAbove sm_fast_above = {
    .after_step = after_step,
    .dispatch = sm_mirror_dispatch,
    .fold = sm_mirror_fold,
    .defer_global = sm_defer_global,
    .defer_lines = sm_defer_lines,
    .defer_finished = sm_defer_finished,
    .defer_retired = sm_defer_retired,
    .defer_error = sm_defer_error,
    .prefetch = sm_view_prefetch,
};

/* Builds the machine into the zeroed @sm, with @fast (zeroed but for its threads) as this
 * layer's part: mirroring decided before the first wave, fast-forward after it. */
static void
build(SmGpu *sm, SmFast *fast, const CfgGpu *gpu, const CfgKernel *kernel)
{
  sm->fast = fast;
  sm->above = &sm_fast_above;
  sm_machine_init(sm, gpu, kernel);
  sm_mirror_init(sm);
  sm_machine_start(sm);
  fast->steady = sm_steady_new(sm);
  sm->watched = fast->steady != NULL;
}

SmGpu *
sm_new(const CfgGpu *gpu, const CfgKernel *kernel)
{
  SmGpu *sm = g_new0(SmGpu, 1);
  SmFast *fast = g_new0(SmFast, 1);
  fast->threads = 1;
  build(sm, fast, gpu, kernel);
  return sm;
}

/* Frees what build() built, leaving the structs themselves. */
static void
clear(SmGpu *sm)
{
  sm_machine_clear(sm);
  sm_mirror_clear(sm);
  sm_steady_free(sm->fast->steady);
  sm->fast->steady = NULL;
}

void
sm_free(SmGpu *sm)
{
  if (sm == NULL)
    return;
  clear(sm);
  g_free(sm->fast);
  g_free(sm);
}

void
sm_restart_in_one_loop(SmGpu *sm)
{
  SmGpu keep = *sm;
  SmFast *fast = sm->fast;
  guint threads = fast->threads;
  clear(sm);
  memset(sm, 0, sizeof *sm);
  memset(fast, 0, sizeof *fast);
  fast->threads = threads;
  build(sm, fast, keep.cfg, keep.kernel);
  sm->progress = keep.progress;
  sm->progress_data = keep.progress_data;
  fast->one_loop = TRUE;
}

void
sm_set_threads(SmGpu *sm, guint n)
{
  sm->fast->threads = MAX(n, 1u);
}

void
sm_run_until(SmGpu *sm, guint64 cycle)
{
  if (!sm->finished && sm_parallel_run(sm, cycle))
    return; /* its SMs stepped apart (on threads when it has them): the same results */
  sm_machine_run_until(sm, cycle);
}

void
sm_run(SmGpu *sm)
{
  sm_run_until(sm, SM_NEVER);
}

const SmStats *
sm_stats(const SmGpu *sm)
{
  if (sm->mirrored)
    return sm_mirror_totals(sm);
  return sm->fast->steady ? sm_steady_totals(sm, sm->fast->steady) : &sm->stats;
}

void
sm_close(SmGpu *sm)
{
  if (sm->finished)
    return;
  guint64 end = sm->now;
  if (sm->fast->steady) /* a scheduler jumped past an interruption */
    end = MAX(end, sm_steady_until(sm->fast->steady));
  for (guint i = 0; i < sm->n_warps; i++) {
    const SmWarp *w = &sm->warps[i];
    if (sm_warp_stepped(sm, w) && !w->done)
      w->stats->resident_warp_cycles += end - MIN(w->launched, end); /* still resident */
  }
  sm->end_cycle = MAX(sm->end_cycle, end);
  sm_finish(sm);
}

gboolean
sm_attach_trace(SmGpu *sm, TraceSink *sink, GError **error)
{
  sm_mirror_end(sm); /* a trace records every SM ... */
  sm_steady_end(sm); /* ... and every cycle: no fast-forward */
  return sm_machine_attach_trace(sm, sink, error);
}
