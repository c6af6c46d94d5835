/* SMs that run alike, stepped once.  Without global memory (which the SMs share) and random
 * draws (each warp draws its own numbers), and with every block doing the same work, two SMs
 * that received the same blocks at the same cycles run alike.  The block scheduler sends a
 * wave's blocks round the SMs, so whole waves leave every SM alike, and a partial one leaves
 * two kinds: those given one block more and the others.  Only one SM of each kind is stepped;
 * its counts go to a block of its own, added to the run's times the SMs it stands for
 * (weight[]) whenever that number changes or the totals are read.  The block
 * scheduler's rule runs for every SM (each has the free slots of the SM it runs like); SMs of
 * one kind given different blocks part, the first of a new kind becoming a copy of the SM it
 * ran like.  A trace wants every SM: then all become copies and all are stepped.  The results
 * are those of stepping every SM (tests/sim/test-mirror.c compares both). */
#include "fast.h"

#include <string.h>

static gboolean mirroring_on = TRUE;

void
sm_set_mirroring(gboolean on)
{
  mirroring_on = on;
}

/* @sm's SMs can run alike: nothing couples them or tells them apart but their blocks. */
static gboolean
mirror_possible(const SmGpu *sm)
{
  if (!mirroring_on || sm->n_sm < 2)
    return FALSE;
  if (sm_draws_random(sm))
    return FALSE; /* global memory couples the SMs; each warp draws its own numbers */
  const GArray *bp = sm->kernel->block_passes;
  for (guint i = 1; i < bp->len; i++)
    if (g_array_index(bp, guint, i) != g_array_index(bp, guint, 0))
      return FALSE; /* blocks of different lengths on different SMs */
  return TRUE;
}

/* SM @m's counts so far go into the totals, for the SMs it stands for. */
static void
fold(SmGpu *sm, guint m)
{
  if (sm->fast->sm_counts == NULL || sm->mp[m].weight == 0)
    return;
  sm_stats_add_scaled(&sm->stats, &sm->fast->sm_counts[m], NULL, sm->mp[m].weight);
  memset(&sm->fast->sm_counts[m], 0, sizeof sm->fast->sm_counts[m]);
}

void
sm_mirror_fold(SmGpu *sm)
{
  for (guint i = 0; i < sm->n_sim_sm; i++)
    fold(sm, sm->sim_sms[i]);
}

const SmStats *
sm_mirror_totals(const SmGpu *sm)
{
  *sm->fast->totals = sm->stats;
  for (guint i = 0; i < sm->n_sim_sm; i++) {
    guint m = sm->sim_sms[i];
    sm_stats_add_scaled(sm->fast->totals, &sm->fast->sm_counts[m], NULL, sm->mp[m].weight);
  }
  return sm->fast->totals;
}

/* SM @m stands for @weight SMs (0: it is not stepped). */
static void
set_weight(SmGpu *sm, guint m, guint64 weight)
{
  fold(sm, m);
  sm->mp[m].weight = weight;
}

/* Every SM is stepped from now on: each counts into the totals. */
static void
stop_mirroring(SmGpu *sm)
{
  sm_mirror_fold(sm);
  for (guint m = 0; m < sm->n_sm; m++)
    sm_count_into(sm, m, &sm->stats);
  sm->mirrored = FALSE;
  sm->order_stale = TRUE;
  if (sm->fast->steady)
    sm_steady_forget(sm->fast->steady);
}

void
sm_mirror_init(SmGpu *sm)
{
  /* the machine steps every SM, each standing for itself (sm_machine_init()) */
  if (!mirror_possible(sm))
    return;
  guint n = sm->n_sm;
  sm->mirrored = TRUE;
  sm->fast->sm_counts = g_new0(SmStats, n);
  sm->fast->totals = g_new0(SmStats, 1);
  for (guint m = 0; m < n; m++) {
    sm->mp[m].rep = 0;
    sm->mp[m].weight = m == 0 ? n : 0;
    sm_count_into(sm, m, &sm->fast->sm_counts[m]);
  }
  sm->n_sim_sm = 1;
  sm->stats.stepped_sms = sm->n_sim_sm;
  sm->order_stale = TRUE; /* the schedulers that look (loop.c) */
  sm->fast->mirror_scratch = g_new(guint, (gsize)n * (3 + sm->slots_per_sm) + sm->slots_per_sm + 1);
}

void
sm_mirror_clear(SmGpu *sm)
{
  g_clear_pointer(&sm->fast->mirror_scratch, g_free);
  g_clear_pointer(&sm->fast->sm_counts, g_free);
  g_clear_pointer(&sm->fast->totals, g_free);
}

/* @to becomes a copy of @from, an SM @k places further (its own slots, pools and numbers). */
static void
copy_warp(const SmGpu *sm, SmWarp *to, const SmWarp *from)
{
  guint n_regs = MAX(sm->prog->n_regs, 1u);
  SmWarp keep = *to;
  *to = *from;
  to->sched = keep.sched;
  to->local = keep.local;
  to->pos = keep.pos;
  to->sm = keep.sm;
  to->block = keep.block;
  to->rng = keep.rng; /* never drawn (mirror_possible) */
  to->sb = keep.sb;
  to->stats = keep.stats;
  memcpy(to->sb.ready, from->sb.ready, sizeof(guint64) * n_regs * ISA_UNIT_COUNT);
  memcpy(to->sb.producer, from->sb.producer, n_regs);
  to->copy_done = keep.copy_done;
  if (to->copy_done)
    memcpy(to->copy_done, from->copy_done, sizeof(guint64) * SM_COPY_RING);
  to->simt = keep.simt;
  if (to->simt) {
    guint32 *pred = to->simt->pred;
    *to->simt = *from->simt;
    to->simt->pred = pred;
    memcpy(pred, from->simt->pred, sizeof(guint32) * n_regs);
  }
}

static void
copy_scheduler(SmScheduler *to, const SmScheduler *from, guint k)
{
  to->last = from->last;
  to->keep = from->keep;
  to->busy_until = from->busy_until;
  memcpy(to->pipe_free, from->pipe_free, sizeof to->pipe_free);
  if (to->ports.counts)
    sm_ports_copy(&to->ports, &from->ports);
  to->pool_n = from->pool_n;
  to->pool_next = from->pool_next;
  to->hot = from->hot;
  for (guint p = 0; p < to->n_warps; p++) {
    to->wake[p] = from->wake[p];
    to->age[p] = from->age[p];
    to->resumed[p] = from->resumed[p];
    to->grid[p] = from->grid[p] + k;
    if (to->in_pool)
      to->in_pool[p] = from->in_pool[p];
    if (to->issued)
      to->issued[p] = from->issued[p];
  }
}

/* SM @to becomes a copy of SM @from (its grid indices shifted by the distance between them). */
static void
copy_sm(SmGpu *sm, guint from, guint to)
{
  guint per = sm->sched_per_sm, slots = sm->slots_per_sm, shift = to - from;
  const SmMp *a = &sm->mp[from];
  SmMp *b = &sm->mp[to];
  for (guint q = 0; q < per; q++) {
    copy_scheduler(&b->sched[q], &a->sched[q], shift);
    sm->min_wake[to * per + q] = sm->min_wake[from * per + q];
  }
  for (guint l = 0; l < sm->warp_slots_per_sm; l++)
    copy_warp(sm, &b->warps[l], &a->warps[l]);
  for (guint j = 0; j < slots; j++) {
    const SmBlock *src = &a->blocks[j];
    SmBlock *dst = &b->blocks[j];
    guint keep_sm = dst->sm, keep_first = dst->first_local, keep_n = dst->n_warps;
    *dst = *src;
    dst->sm = keep_sm;
    dst->first_local = keep_first;
    dst->n_warps = keep_n;
    dst->grid_index = src->grid_index + shift;
  }
  sm->mp[to].n_blocks = sm->mp[from].n_blocks;
  sm->mp[to].dispatch_tat = sm->mp[from].dispatch_tat;
  sm->smem.free[to] = sm->smem.free[from];
  sm->smem.first[to] = sm->smem.first[from];
  if (sm->smem.depth_accesses) {
    guint d = sm->smem.depth_accesses;
    memcpy(&sm->smem.starts[(gsize)to * d], &sm->smem.starts[(gsize)from * d],
           d * sizeof sm->smem.starts[0]);
    sm->smem.head[to] = sm->smem.head[from];
  }
  if (sm->smem.waiting.ring)
    for (guint q = 0; q < per; q++)
      sm_waitq_copy(&sm->smem.waiting, from * per + q, to * per + q, shift * sm->warp_slots_per_sm);
  sm->order_stale = TRUE;
}

/* SM @m is stepped from now on, standing for itself and the SMs of its kind moved to it. */
static void
add_stepped(SmGpu *sm, guint m)
{
  guint i = sm->n_sim_sm++;
  while (i > 0 && sm->sim_sms[i - 1] > m) {
    sm->sim_sms[i] = sm->sim_sms[i - 1];
    i--;
  }
  sm->sim_sms[i] = m;
  sm->stats.stepped_sms = MAX(sm->stats.stepped_sms, sm->n_sim_sm);
  sm->order_stale = TRUE;
}

void
sm_mirror_dispatch(SmGpu *sm, guint64 t)
{
  guint n = sm->n_sm, slots = sm->slots_per_sm;
  guint *n_free = sm->fast->mirror_scratch, *held = n_free + n, *given = held + n, *got = given + n;
  /* every SM has the free slots and the blocks of the SM it runs like */
  for (guint m = 0; m < n; m++) {
    guint r = sm->mp[m].rep;
    n_free[m] = 0;
    for (guint j = 0; j < slots; j++)
      n_free[m] += !sm->blocks[r * slots + j].busy && sm->blocks[r * slots + j].free_at <= t;
    held[m] = sm->mp[r].n_blocks;
    given[m] = 0;
    n_free[m] = MIN(n_free[m], sm_blocks_allowed(sm, m, t)); /* block_dispatch_cycles */
  }
  /* the block scheduler's rule (sm_blocks_dispatch): the next block to the SM holding the
   * fewest, the lowest-numbered on ties, into its lowest free slot */
  while (sm->next_block < sm->grid_blocks) {
    guint best = G_MAXUINT;
    for (guint m = 0; m < n; m++)
      if (given[m] < n_free[m] && (best == G_MAXUINT || held[m] < held[best]))
        best = m;
    if (best == G_MAXUINT)
      break;
    got[best * slots + given[best]++] = sm->next_block++;
    held[best]++;
  }
  /* SMs of one kind given different numbers of blocks part: the first SM given a number the
   * stepped one was not becomes a copy of it (before either receives its blocks) */
  guint n_stepped = sm->n_sim_sm, *kind = got + (gsize)n * slots; /* by number given */
  for (guint i = 0; i < n_stepped; i++) {
    guint r = sm->sim_sms[i];
    for (guint g = 0; g <= slots; g++)
      kind[g] = G_MAXUINT;
    kind[given[r]] = r;
    for (guint m = r + 1; m < n; m++) {
      if (sm->mp[m].rep != r || given[m] == given[r])
        continue;
      guint to = kind[given[m]];
      if (to == G_MAXUINT) {
        to = kind[given[m]] = m;
        copy_sm(sm, r, m);
        sm_count_into(sm, m, &sm->fast->sm_counts[m]); /* its own, still empty */
        add_stepped(sm, m);
      }
      sm->mp[m].rep = to;
      set_weight(sm, to, sm->mp[to].weight + 1);
      set_weight(sm, r, sm->mp[r].weight - 1);
    }
  }
  for (guint m = 0; m < n; m++)
    for (guint g = 0; g < given[m]; g++)
      sm_blocks_dispatched(sm, m, t);
  /* only the stepped SMs launch, each its own blocks */
  for (guint i = 0; i < sm->n_sim_sm; i++) {
    guint r = sm->sim_sms[i], k = 0;
    for (guint j = 0; j < slots && k < given[r]; j++) {
      SmBlock *blk = &sm->blocks[r * slots + j];
      if (!blk->busy && blk->free_at <= t)
        sm_blocks_launch(sm, r * slots + j, t, got[r * slots + k++]);
    }
  }
  if (sm->n_sim_sm == n)
    stop_mirroring(sm); /* every SM is stepped: the plain rule from now on */
  else if (sm->fast->steady)
    sm_steady_forget(sm->fast->steady);
}

void
sm_mirror_end(SmGpu *sm)
{
  if (!sm->mirrored)
    return;
  for (guint m = 0; m < sm->n_sm; m++) {
    if (sm->mp[m].weight == 0)
      copy_sm(sm, sm->mp[m].rep, m); /* its stepped SM has a lower number: not yet changed */
    set_weight(sm, m, 1);
    sm->mp[m].rep = m;
    sm->sim_sms[m] = m;
  }
  sm->n_sim_sm = sm->n_sm;
  sm->stats.stepped_sms = sm->n_sm;
  stop_mirroring(sm);
}
