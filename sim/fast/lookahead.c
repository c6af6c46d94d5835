/* How long SMs stepped apart may run before they meet (parallel.c): the window, from the
 * shortest time a global access takes to complete less how far a warp's own later work reaches
 * past its issue (docs/architecture.md, "SMs stepped apart, on threads"); and once no block is
 * left to launch, whether a window's accesses are sent beside the stepping of the next, in
 * windows half as long, or alone between windows (sm_pipe_way()). */
#include "defer.h"

#include <string.h>

/* Allowance for a variable-latency result's write port found taken for a few cycles: a result
 * that slides further at the end of a window, past a completion that came at the shortest
 * latency, makes the run be stepped again in one loop (parallel.c, any_view()).  No shipped
 * kernel, and none of the tests' random configurations, slides that far even with none. */
static gint port_slack = 16;

void
sm_set_port_slack(gint cycles)
{
  port_slack = cycles;
}

/* The shortest time from a global access's issue to its completion: the unloaded latency of
 * a level it can reach (the smallest its histogram draws); queueing only adds to it.  A
 * stream's accesses reach the levels they name, or through the caches the L2's hit and miss
 * levels (L1 hits are the SM's own); a kernel over SASS, any level. */
static guint64
min_latency(const SmGpu *sm)
{
  gboolean reach[CFG_MAX_LEVELS];
  for (guint l = 0; l < CFG_MAX_LEVELS; l++)
    reach[l] = sm->sass != NULL;
  for (guint i = 0; i < sm->prog->n_insns && !sm->sass; i++) {
    const SmInsnInfo *ii = &sm->info[i];
    if (sm->prog->insns[i].kind != ISA_INSN_OP || ii->space != ISA_SPACE_GLOBAL)
      continue;
    if (ii->level != CFG_LEVEL_CACHED) {
      reach[ii->level] = TRUE;
      continue;
    }
    reach[sm->mem.miss_level] = TRUE;
    if (sm->mem.l2_parts)
      reach[sm->mem.hit_level] = TRUE;
  }
  guint64 lo = SM_NEVER;
  for (guint l = 0; l < sm->mem.n_levels; l++) {
    const SmMemLevel *lv = &sm->mem.levels[l];
    if (!reach[l])
      continue;
    if (lv->n_latencies == 0) {
      lo = MIN(lo, lv->latency);
      continue;
    }
    for (guint b = 0; b < lv->n_latencies; b++)
      lo = MIN(lo, (guint64)MAX((gint64)lv->latency_bin[b] + lv->latency_shift, (gint64)1));
  }
  return lo;
}

/* How far past its issue cycle an instruction's effects reach inside its own SM, where a
 * pending completion could meet them: a taken branch's or convergence barrier's wait, and with
 * register-file write ports, the cycle its result takes one. */
static guint64
local_reach(const SmGpu *sm)
{
  const CfgBranch *b = sm->branch;
  guint64 reach = 1 + (guint64)b->taken_cycles + MAX(b->bssy_cycles, b->bsync_cycles) +
                  b->not_taken_cycles + b->divergent_cycles;
  if (!sm->wb_ports)
    return reach;
  guint64 pass =
      (MAX(sm->smem.ticks_per_pass, sm->smem.pass_latency_ticks) + SM_TICKS_PER_CYCLE - 1) >>
      SM_TICK_SHIFT;
  guint64 depth = (sm->smem.depth_ticks >> SM_TICK_SHIFT) + 1;
  /* a queue of accesses (shared_memory.queue_counts: accesses) may hold far more of the banks'
   * time than depth_ticks: a result that comes later and finds its port taken is caught and the
   * run stepped again in one loop (parallel.c), as with a port found taken past port_slack */
  for (guint i = 0; i < sm->prog->n_insns; i++) {
    const SmInsnInfo *ii = &sm->info[i];
    if (sm->prog->insns[i].kind != ISA_INSN_OP || !ii->writes_register ||
        ii->space == ISA_SPACE_GLOBAL)
      continue;
    guint64 x = ii->max_latency + ii->issue_cycles + ii->write_cycles - 1;
    if (ii->space == ISA_SPACE_SHARED)
      x += depth + (ii->passes ? ii->passes : 128u) * pass;
    reach = MAX(reach, (guint64)MAX((gint64)x + port_slack, 1));
  }
  return reach;
}

gboolean
sm_uses_global(const SmGpu *sm)
{
  for (guint i = 0; i < sm->prog->n_insns; i++)
    if (sm->prog->insns[i].kind == ISA_INSN_OP && sm->info[i].space == ISA_SPACE_GLOBAL)
      return TRUE;
  return FALSE;
}

/* The window in cycles, or 0 where threads cannot give the single loop's results. */
guint64
sm_window_cycles(const SmGpu *sm)
{
  if (sm->n_sm < 2 || sm->fast->one_loop || sm->trace || sm->fast->steady || sm->mirrored ||
      (sm->sass && !sm_sass_apart_ok(sm)) || sm->pools.copy || sm->policy == CFG_POLICY_TWO_LEVEL ||
      sm->fences) /* (a fence waits for completions that a view learns later) */
    return 0;
  if (sm->next_block < sm->grid_blocks && sm->cfg->block_launch_cycles + 1 < MIN_WINDOW)
    return 0; /* blocks to launch would keep the windows shorter than that */
  if (!sm_uses_global(sm))
    return SM_NEVER / 4; /* nothing couples the SMs: one window */
  guint64 lo = min_latency(sm), reach = local_reach(sm);
  return lo > reach + MIN_WINDOW ? lo - reach : 0;
}

/* SM_PIPE_AUTO sends alone for PIPE_FIRST full windows (a kernel's first cycles cost more than
 * the rest, first touches of its memory among them), then times each way in PIPE_TURNS turns,
 * alternately: a turn of PIPE_WARM full windows (the switch's own costs), then PIPE_TIMED timed;
 * then it keeps the faster for PIPE_KEEP, and times them again */
#define PIPE_FIRST 32u
#define PIPE_TURNS 4u
#define PIPE_WARM 1u
#define PIPE_TIMED 3u
#define PIPE_KEEP 256u

static SmPipe pipe_mode = SM_PIPE_AUTO;

void
sm_set_pipe(SmPipe mode)
{
  pipe_mode = mode;
}

/* Warp-instructions issued so far (the views' counts, and what progress lines folded in). */
static guint64
issued_so_far(const SmGpu *sm, SmGpu *const *views, guint n_views)
{
  guint64 n = sm->stats.issued;
  for (guint m = 0; m < n_views; m++)
    n += views[m]->stats.issued;
  return n;
}

/* Whether the window starting at @bound sends the one before's accesses beside the stepping
 * (no block left to launch, more than one thread): it takes the sending's time out of every
 * window and costs twice the windows, each of which brings every view's state back into its
 * core's caches and makes the threads meet.  Which weighs more depends on the run (the state of
 * a view over SASS is hundreds of kilobytes; a cached access costs the sending its L2 lookups)
 * and on the host, so both are timed on the run itself, in short turns so that both see the
 * same part of the kernel, per warp-instruction issued.  The results are the same either way. */
gboolean
sm_pipe_way(SmPipeWay *q, const SmGpu *sm, SmGpu *const *views, guint n_views, guint64 bound,
            guint64 window)
{
  if (pipe_mode != SM_PIPE_AUTO)
    return pipe_mode == SM_PIPE_ALTERNATE ? (q->way = !q->way) : pipe_mode == SM_PIPE_ON;
  if (q->until == 0) { /* the first windows */
    q->timed = SM_NEVER;
    q->until = bound + window * PIPE_FIRST;
    return q->way = FALSE;
  }
  if (bound < q->until && bound < q->timed)
    return q->way;
  gint64 now = g_get_monotonic_time();
  guint64 issued = issued_so_far(sm, views, n_views);
  if (bound < q->until) { /* the turn's switch is behind it: its timing begins */
    q->timed = SM_NEVER;
    q->t0 = now;
    q->n0 = issued;
    return q->way;
  }
  if (q->stage > 0 && q->timed == SM_NEVER) {
    q->time[q->way] += now - q->t0;
    q->work[q->way] += issued - q->n0;
  }
  if (q->stage == 2 * PIPE_TURNS) { /* the faster per warp-instruction, kept for a while */
    q->way = (double)q->time[1] * (double)q->work[0] < (double)q->time[0] * (double)q->work[1];
    q->stage = 0;
    q->timed = SM_NEVER;
    q->until = bound + window * PIPE_KEEP;
    memset(q->time, 0, sizeof q->time);
    memset(q->work, 0, sizeof q->work);
  } else {
    q->stage++; /* turns without, with, with, without, ...: a cost that drifts over the turns
                   weighs on both alike */
    q->way = ((q->stage - 1) ^ ((q->stage - 1) >> 1)) & 1;
    q->timed = bound + window * PIPE_WARM;
    q->until = q->timed + window * PIPE_TIMED;
  }
  return q->way;
}
