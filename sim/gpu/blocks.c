/* The block scheduler and barriers: launching grid blocks into free slots, retiring them, and
 * releasing BAR.SYNC.  Not warp scheduling (scheduler.c) nor the cycle loop (loop.c). */
#include "machine.h"

#include <string.h>

static void retire_block(SmGpu *sm, guint b, guint64 t);

void
sm_blocks_init(SmGpu *sm)
{
  sm->warps_per_block = MAX(sm->kernel->warps_per_block, 1u);
  sm->slots_per_sm = (sm->warps_per_sm + sm->warps_per_block - 1) / sm->warps_per_block;
  sm->n_block_slots = sm->slots_per_sm * sm->n_sm;
  sm->blocks = g_new0(SmBlock, MAX(sm->n_block_slots, 1u));
  for (guint k = 0; k < sm->n_sm; k++) {
    for (guint b = 0; b < sm->slots_per_sm; b++) {
      SmBlock *blk = &sm->blocks[k * sm->slots_per_sm + b];
      blk->sm = k;
      blk->first_local = b * sm->warps_per_block;
      blk->n_warps = MIN(sm->warps_per_block, sm->warps_per_sm - blk->first_local);
      for (guint i = 0; i < blk->n_warps; i++) {
        SmWarp *w = sm_block_warp(sm, blk, i);
        w->block = (guint16)(k * sm->slots_per_sm + b);
        w->exists = TRUE;
      }
    }
  }
  sm->grid_blocks = sm->kernel->grid_blocks;
  for (guint k = 0; k < sm->n_sm; k++)
    sm->mp[k].blocks = &sm->blocks[k * sm->slots_per_sm];
}

void
sm_blocks_launch(SmGpu *sm, guint b, guint64 t, guint index)
{
  SmBlock *blk = &sm->blocks[b];
  blk->grid_index = index;
  blk->busy = TRUE;
  sm->mp[blk->sm].n_blocks++;
  blk->live = blk->arrived = blk->draining = 0;
  for (guint q = 0; q < SM_MAX_SCHEDULERS; q++)
    blk->last[q] = G_MAXUINT;
  blk->retire = t;
  const GArray *wp = sm->kernel->warp_passes, *bp = sm->kernel->block_passes;
  guint block_passes = g_array_index(bp, guint, blk->grid_index % bp->len);
  if (sm->sass)
    sm_sass_launch(sm, b);
  for (guint i = 0; i < blk->n_warps; i++) {
    SmWarp *w = sm_block_warp(sm, blk, i);
    guint passes = g_array_index(wp, guint, i % wp->len) * block_passes;
    guint64 tw = t + (guint64)i * sm->cfg->warp_launch_cycles; /* its start (warp_launch_cycles) */
    w->pc = 0;
    w->depth = 0;
    w->issued = 0;
    w->launched = w->finish = w->last_issue = tw;
    if (sm->sched[w->sched].issued)
      sm->sched[w->sched].issued[sm_warp_pos(sm, w)] = 0;
    sm->sched[w->sched].age[sm_warp_pos(sm, w)] = tw;
    sm->sched[w->sched].resumed[sm_warp_pos(sm, w)] = tw;
    sm->sched[w->sched].grid[sm_warp_pos(sm, w)] = blk->grid_index;
    w->smem_own = 0;
    w->smem_stores_done = w->copy_open = w->copy_groups = w->copy_older = 0;
    /* its own place in the windows' chase, by its place in the grid */
    w->chase = sm_hash64(sm->cfg->memory.seed * 0xD1B54A32D192ED03ULL +
                         (guint64)blk->grid_index * 1024 + i);
    guint threads = sm->kernel->threads_per_block;
    guint first = i * 32; /* its first thread in the block */
    w->lanes =
        threads > first && threads - first < 32 ? (1u << (threads - first)) - 1 : 0xffffffffu;
    w->active = w->lanes;
    w->n_active = sm_popcount32(w->lanes);
    if (w->simt) {
      guint32 *pred = w->simt->pred;
      memset(w->simt, 0, sizeof *w->simt);
      w->simt->pred = pred;
      memset(pred, 0, sizeof(guint32) * MAX(sm->prog->n_regs, 1u));
    }
    w->done = passes == 0;
    w->passes_left = passes ? passes - 1 : 0;
    if (!w->done)
      sm_warp_settle(w, sm->prog, sm->limit);
    if (w->exec)
      sm_sass_settle(sm, w);
    if (w->done) {
      sm->sched[w->sched].wake[sm_warp_pos(sm, w)] = SM_NEVER;
      continue;
    }
    sm_warp_prepare(sm, w);
    if (sm->sass && sm->cfg->sass.launch_fetch_cycles &&
        tw + sm->cfg->sass.launch_fetch_cycles > w->deps_at) {
      /* its first instruction is fetched (sass.launch_fetch_cycles) */
      w->deps_at = tw + sm->cfg->sass.launch_fetch_cycles;
      w->dep_state = SM_STATE_NO_INSTRUCTION;
    }
    blk->live++;
    sm_wake_warp(sm, w, tw);
    /* resident from its start on: no instruction until its scheduler first looks at it (its
     * slot was inactive: since the run's start, or since its last warp's accesses completed) */
    sm_set_state(sm, w, SM_STATE_NO_INSTRUCTION, tw);
  }
  if (blk->live == 0)
    retire_block(sm, b, t);
}

/* Block @b's last warp finished at cycle @t (or it had none when it launched then). */
static void
retire_block(SmGpu *sm, guint b, guint64 t)
{
  SmBlock *blk = &sm->blocks[b];
  sm->blocks_retired += sm->mp[blk->sm].weight; /* with the SMs that run alike (fast/mirror.c) */
  blk->busy = FALSE;
  sm->mp[blk->sm].n_blocks--;
  if (G_UNLIKELY(sm->defer)) {
    sm->above->defer_retired(sm, b, t); /* its end waits for its warps' accesses */
    return;
  }
  sm->end_cycle = MAX(sm->end_cycle, blk->retire);
  blk->free_at = blk->retire + sm->cfg->block_launch_cycles;
  if (sm->next_block < sm->grid_blocks) {
    sm_engine_push(&sm->engine, blk->free_at, 1, SM_EVENT_BLOCK_LAUNCH, b);
  }
}

void
sm_blocks_dispatch(SmGpu *sm, guint64 t)
{
  if (sm->mirrored) {
    sm->above->dispatch(sm, t); /* the same rule for SMs that run alike (fast/mirror.c) */
    return;
  }
  while (sm->next_block < sm->grid_blocks) {
    /* the first free slot of the SM with the fewest blocks; SMs whose slots all hold one are
     * passed over without reading their slots (a whole GPU has thousands) */
    guint best = G_MAXUINT, per = sm->slots_per_sm;
    for (guint m = 0; m < sm->n_sm; m++) {
      if (sm->mp[m].n_blocks == per || !sm_blocks_allowed(sm, m, t) ||
          (best != G_MAXUINT && sm->mp[m].n_blocks >= sm->mp[sm->blocks[best].sm].n_blocks))
        continue;
      for (guint b = m * per; b < (m + 1) * per; b++) {
        const SmBlock *blk = &sm->blocks[b];
        if (!blk->busy && blk->free_at <= t) {
          best = b;
          break;
        }
      }
    }
    if (best == G_MAXUINT)
      return;
    sm_blocks_launch(sm, best, t, sm->next_block++);
    sm_blocks_dispatched(sm, sm->blocks[best].sm, t);
  }
}

/* block_dispatch_cycles is the GPU's block dispatcher, a turn of that many cycles a block of
 * the grid (SmGpu.dispatch_tat: the kernel ends no sooner than the last, sm_finish()), shared by
 * the SMs: each has a token bucket of block_dispatch_burst blocks, one back every sm_count
 * turns, kept in ticks as the time it is full again (SmMp.dispatch_tat: the generic cell-rate
 * algorithm's theoretical arrival time).  At @t an SM may take a block if that is at most
 * (burst - 1) of its turns ahead, and taking one moves it one on from @t at the earliest.  A
 * full bucket at the launch: the first burst blocks go at once. */
static guint64
dispatch_turn(const SmGpu *sm)
{
  return sm_ticks_from_cycles(sm->cfg->block_dispatch_cycles * sm->n_sm);
}

guint
sm_blocks_allowed(const SmGpu *sm, guint m, guint64 t)
{
  guint64 turn = sm->cfg->block_dispatch_cycles > 0 ? dispatch_turn(sm) : 0;
  if (!turn)
    return G_MAXUINT;
  guint64 ahead = (guint64)(sm->cfg->block_dispatch_burst - 1) * turn, now = sm_ticks(t);
  guint64 tat = MAX(sm->mp[m].dispatch_tat, now);
  return tat > now + ahead ? 0 : (guint)((now + ahead - tat) / turn + 1);
}

void
sm_blocks_dispatched(SmGpu *sm, guint m, guint64 t)
{
  guint64 turn = sm->cfg->block_dispatch_cycles > 0 ? dispatch_turn(sm) : 0;
  if (!turn)
    return;
  guint64 ahead = (guint64)(sm->cfg->block_dispatch_burst - 1) * turn, now = sm_ticks(t);
  sm->mp[m].dispatch_tat = MAX(sm->mp[m].dispatch_tat, now) + turn;
  /* the dispatcher's own turns, one a block of the grid, whichever SM takes it */
  sm->dispatch_tat =
      MAX(sm->dispatch_tat, now) + sm_ticks_from_cycles(sm->cfg->block_dispatch_cycles);
  /* an empty bucket: a free slot is looked at again when the next block is back */
  if (sm->mp[m].dispatch_tat > now + ahead && sm->next_block < sm->grid_blocks)
    sm_engine_push(&sm->engine, sm_ticks_ceil_cycle(sm->mp[m].dispatch_tat - ahead), 1,
                   SM_EVENT_BLOCK_LAUNCH, m * sm->slots_per_sm);
}

/* Every live warp of block @b has arrived at BAR.SYNC: they go on from the next cycle. */
static void
release_barrier(SmGpu *sm, guint b, guint64 t)
{
  SmBlock *blk = &sm->blocks[b];
  for (guint i = 0; i < blk->n_warps; i++) {
    SmWarp *w = sm_block_warp(sm, blk, i);
    if (w->done || w->dep_state != SM_STATE_BARRIER)
      continue;
    sm_warp_prepare(sm, w);
    sm_wake_warp(sm, w, t + 1);
  }
  blk->arrived = 0;
}

void
sm_blocks_arrive(SmGpu *sm, SmWarp *w, guint64 t)
{
  /* wait for the block's other live warps: not before a release */
  w->deps_at = SM_NEVER;
  w->dep_state = SM_STATE_BARRIER;
  SmBlock *blk = &sm->blocks[w->block];
  if (++blk->arrived == blk->live)
    release_barrier(sm, w->block, t);
}

/* @w's end is known once everything it issued is, at cycle @known (its last issue, or when its
 * last store left the store queue): its drain ends there, or (SMs on threads) once its
 * accesses' completions are known. */
static void
warp_ends(SmGpu *sm, SmWarp *w, guint64 known)
{
  if (G_UNLIKELY(sm->defer)) {
    sm->above->defer_finished(sm, w, known); /* its end waits for its accesses (fast/defer.c) */
    return;
  }
  SmBlock *blk = &sm->blocks[w->block];
  guint64 end = MAX(w->finish, w->last_issue + 1);
  w->stats->resident_warp_cycles += end - w->launched;
  blk->retire = MAX(blk->retire, end);
  sm_warp_drained(sm, w, end);
}

void
sm_blocks_warp_finished(SmGpu *sm, SmWarp *w)
{
  SmBlock *blk = &sm->blocks[w->block];
  if (G_UNLIKELY(w->stores_queued))
    blk->draining++; /* (sm_blocks_stores_left()) */
  else
    warp_ends(sm, w, w->last_issue);
  blk->live--;
  if (blk->live == 0 && blk->draining == 0)
    retire_block(sm, w->block, w->last_issue);
  else if (blk->live > 0 && blk->arrived > 0 && blk->arrived == blk->live)
    release_barrier(sm, w->block, w->last_issue); /* exited warps no longer count */
}

void
sm_blocks_stores_left(SmGpu *sm, SmWarp *w, guint64 t)
{
  SmBlock *blk = &sm->blocks[w->block];
  warp_ends(sm, w, t);
  blk->draining--;
  if (blk->live == 0 && blk->draining == 0)
    retire_block(sm, w->block, t);
}
