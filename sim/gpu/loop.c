/* The SM's cycle loop: events (events.c), then each scheduler's look at its warps and its issues;
 * the clock jumps over cycles in which nothing can happen.  Not what one issue does (issue.c), what
 * a warp waits for before it may (check.h), the policies (scheduler.c), the block scheduler
 * (blocks.c), pipe costs (pipe.c) or the memory system (memory.c). */
#include "check.h"
#include "fair.h"

/* What a taken branch or an EXIT holds its warp past its stall count (sass.c sets fetch_*):
 * the stall count in wait from @t + 1 (the issue at @t), branch_resolving from fetch_after,
 * no_instruction from fetch_at up to @until (the target fetched). */
static void
fetch_states(SmGpu *sm, SmWarp *w, guint64 t, guint64 until)
{
  guint64 from = t + w->fetch_after, fetch = MIN(t + w->fetch_at, until);
  sm_set_state(sm, w, SM_STATE_WAIT, t + 1);
  if (fetch > from)
    sm_set_state(sm, w, SM_STATE_BRANCH_RESOLVING, from);
  if (fetch < until)
    sm_set_state(sm, w, SM_STATE_NO_INSTRUCTION, fetch);
  w->fetch_after = 0;
}

/* Sets the state an issuing warp has from the next cycle on; returns its wake cycle. */
static guint64
after_issue(SmGpu *sm, SmScheduler *s, SmWarp *w, guint64 t)
{
  sm_set_state(sm, w, SM_STATE_SELECTED, t);
  if (w->done) {
    guint64 drain = t + 1;
    if (G_UNLIKELY(w->fetch_after)) { /* its EXIT's wait: it leaves its slot no sooner */
      drain = t + w->fetch_at;
      fetch_states(sm, w, t, drain);
      w->finish = MAX(w->finish, drain);
    }
    sm_set_state(sm, w, SM_STATE_DRAIN, drain); /* until its accesses are done: sm_warp_drained() */
    if (G_UNLIKELY(sm->clock))
      sm_clock_done(sm->clock, (guint)(w - sm->warps));
    sm->n_done++;
    sm_blocks_warp_finished(sm, w);
    return SM_NEVER;
  }
  guint64 wake;
  guint st = warp_check(sm, w, s, t + 1, &wake);
  if (st == SM_STATE_ELIGIBLE) {
    wake = t + 1; /* looked at again next cycle */
  } else {
    /* a taken branch's wait (never set on a warp that can issue the next cycle), then what its
     * target waits for: its stall count, or its operands (a scoreboard) */
    guint64 until = G_UNLIKELY(w->fetch_after) ? MIN(t + w->fetch_until, wake) : 0;
    if (until > t + w->fetch_after && (st == SM_STATE_WAIT || st == SM_STATE_SHORT_SCOREBOARD ||
                                       st == SM_STATE_LONG_SCOREBOARD)) {
      fetch_states(sm, w, t, until);
      if (until < wake)
        sm_set_state(sm, w, (SmState)st, until);
    } else {
      sm_set_state(sm, w, (SmState)st, t + 1);
    }
    w->fetch_after = 0;
    if (st == SM_STATE_LG_THROTTLE && wake == SM_NEVER)
      sm->lg_waiters++;
  }
  return wake;
}

/* A position whose warp is "hot": it could issue, did not, and nothing about it can change
 * until it issues (its operands are ready, its pipe takes an instruction every cycle, and no
 * register-file write port can be short).  Hot warps are eligible every cycle without being
 * looked at; their wake[] holds this value so that the pass over wake times skips them.
 * Only schedulers of at most 64 warps keep them (a bitmask). */
#define SM_HOT (SM_NEVER - 1)

/* The warp scheduler @si issues next: by policy, among all eligible warps or (block_priority)
 * among those of the oldest or youngest block that has one, after that block's own last issue.
 * Returns an index into sm->eligible (G_MAXUINT: none left) and sets *blk to the block whose
 * round-robin place moves (NULL without block priority). */
G_ALWAYS_INLINE static inline guint
pick_turn(SmGpu *sm, SmScheduler *s, guint si, guint n_el, guint64 t, SmBlock **blk)
{
  *blk = NULL;
  gboolean lend = FALSE;
  if (G_UNLIKELY(sm->yield_hints) && s->keep != G_MAXUINT) {
    /* the warp whose issue last cycle did not ask it to yield goes on, if it can */
    guint p = s->keep;
    s->keep = G_MAXUINT;
    if (sm_sched_warp(sm, s, p)->last_issue + 1 == t)
      for (guint i = 0; i < n_el; i++)
        if (sm->eligible[i] == p) {
          if (sm->block_priority != CFG_BLOCK_PRIORITY_NONE)
            *blk = &sm->blocks[sm_sched_warp(sm, s, p)->block];
          return i;
        }
    /* it cannot: with block_priority_at: yields, the next warp in turn, whatever its block */
    lend = sm->cfg->block_priority_at == CFG_BLOCK_PRIORITY_AT_YIELDS;
  }
  gboolean prio = sm->block_priority != CFG_BLOCK_PRIORITY_NONE;
  if (G_LIKELY(!prio) || G_UNLIKELY(lend)) {
    guint i = sm_scheduler_pick(s, sm->policy, sm->cfg->resume_window, s->last, sm->eligible, n_el);
    if (prio && i != G_MAXUINT) /* lent: its block's round-robin place moves with it */
      *blk = &sm->blocks[sm_sched_warp(sm, s, sm->eligible[i])->block];
    return i;
  }
  if (n_el == 1 && sm->eligible[0] != SM_SCHEDULER_TAKEN) {
    /* one candidate: no order to decide (the common case when warps wait on memory) */
    *blk = &sm->blocks[sm_sched_warp(sm, s, sm->eligible[0])->block];
    return 0;
  }
  /* the oldest (youngest) block with an eligible warp, its first eligible warp, and the latest
   * resume among its eligible warps (policy last_resumed) */
  gboolean youngest = sm->block_priority == CFG_BLOCK_PRIORITY_YOUNGEST;
  gboolean resumed = sm->policy == CFG_POLICY_LAST_RESUMED;
  guint32 best = 0;
  guint64 latest = 0;
  guint first = G_MAXUINT;
  for (guint i = 0; i < n_el; i++) {
    guint p = sm->eligible[i];
    if (p == SM_SCHEDULER_TAKEN)
      continue;
    guint32 g = s->grid[p];
    if (first == G_MAXUINT || (youngest ? g > best : g < best)) {
      best = g;
      first = i;
      latest = resumed ? s->resumed[p] : 0;
    } else if (resumed && g == best) {
      latest = MAX(latest, s->resumed[p]);
    }
  }
  if (first == G_MAXUINT)
    return G_MAXUINT;
  *blk = &sm->blocks[sm_sched_warp(sm, s, sm->eligible[first])->block];
  guint last = (*blk)->last[s->local];
  guint64 window = sm->cfg->resume_window;
  if (sm->policy == CFG_POLICY_GTO || sm->policy == CFG_POLICY_OLDEST) {
    /* the policy among the block's eligible warps */
    guint n = 0;
    for (guint i = first; i < n_el; i++) {
      guint p = sm->eligible[i];
      if (p != SM_SCHEDULER_TAKEN && s->grid[p] == best) {
        sm->prio_pos[n] = p;
        sm->prio_at[n++] = i;
      }
    }
    return sm->prio_at[sm_scheduler_pick(s, sm->policy, window, last, sm->prio_pos, n)];
  }
  /* round robin after the block's last issue (lrr, two_level; last_resumed among the warps
   * resumed within the window of the latest: sm_scheduler_pick() in one pass, no copies) */
  guint wrap = G_MAXUINT; /* the first: when none is after last */
  for (guint i = first; i < n_el; i++) {
    guint p = sm->eligible[i];
    if (p == SM_SCHEDULER_TAKEN || s->grid[p] != best ||
        (resumed && s->resumed[p] + window < latest))
      continue;
    if (p > last)
      return i;
    if (wrap == G_MAXUINT)
      wrap = i;
  }
  return wrap;
}

/* pick_turn() past the warps sass.fair_window passes over (fair.c); apart, so that its arrays
 * stay out of the cycle loop's frame */
G_GNUC_NO_INLINE static guint
pick_fair(SmGpu *sm, SmScheduler *s, guint si, guint n_el, guint64 t, SmBlock **blk)
{
  guint pos[SM_FAIR_MAX];
  guint m = sm_fair_pass_over(sm, s, n_el, t, pos);
  guint i = pick_turn(sm, s, si, n_el, t, blk);
  if (m)
    memcpy(sm->eligible, pos, m * sizeof *pos);
  return i;
}

static inline guint
pick(SmGpu *sm, SmScheduler *s, guint si, guint n_el, guint64 t, SmBlock **blk)
{
  if (G_UNLIKELY(s->issued != NULL))
    return pick_fair(sm, s, si, n_el, t, blk);
  return pick_turn(sm, s, si, n_el, t, blk);
}

/* Issues @w (position @p, of block @blk or NULL) at @t, the first of its *@slots left this
 * cycle (after that none are left for it); returns its wake. */
static inline guint64
issue_taken(SmGpu *sm, SmScheduler *s, SmWarp *w, guint p, SmBlock *blk, guint64 t, guint *slots)
{
  if (G_UNLIKELY(w->lg_queued))
    lg_leave(sm, w, t);
  /* with yield hints the round robin moves on only past a warp whose instruction yields: until
   * then the warps before it in turn keep their precedence (sass.yield_hints) */
  gboolean moves = TRUE;
  if (G_UNLIKELY(sm->yield_hints)) {
    moves = !sm->info[w->pc].no_yield; /* (before the issue moves pc on) */
    s->keep = moves ? G_MAXUINT : p;
    if (G_UNLIKELY(s->issued != NULL))
      sm_fair_note(s, w, p, t);
  }
  sm_issue(sm, s, w, t, sm->issue_width - *slots);
  (*slots)--;
  if (moves) {
    s->last = p;
    if (blk)
      blk->last[s->local] = p;
  }
  if (sm->dual_issue == CFG_DUAL_SAME_WARP) {
    /* further independent instructions of the same warp, in order */
    guint64 wake;
    while (*slots > 0 && !w->done && warp_check(sm, w, s, t, &wake) == SM_STATE_ELIGIBLE) {
      if (G_UNLIKELY(w->lg_queued))
        lg_leave(sm, w, t);
      sm_issue(sm, s, w, t, sm->issue_width - *slots);
      (*slots)--;
    }
    *slots = 0;
  }
  return after_issue(sm, s, w, t);
}

/* @w may issue its instruction ahead of the loop (run_ahead()): it uses no memory, and the
 * warp's check the cycle after (after_issue()) reads nothing outside its scheduler: the next
 * instruction uses no memory either, or waits for this one's result until later; and a
 * per-warp limit on instructions does not end the warp there. */
static inline gboolean
warp_may_run_ahead(const SmGpu *sm, const SmWarp *w)
{
  const SmInsnInfo *ii = &sm->info[w->pc];
  if (!ii->may_run_ahead || (sm->limit && w->issued + 1 >= sm->limit))
    return FALSE;
  guint32 next = sm_warp_peek_next(w, sm->prog);
  if (next >= sm->prog->n_insns)
    return FALSE;
  const SmInsnInfo *ni = &sm->info[next];
  if (ni->space == ISA_SPACE_NONE)
    return TRUE;
  const IsaInsn *x = &sm->prog->insns[w->pc], *y = &sm->prog->insns[next];
  if (x->dst == ISA_NO_REG || ii->never || ii->latency[ni->unit] < 2)
    return FALSE;
  gboolean reads = y->dst == x->dst;
  for (guint i = 0; i < y->nsrc; i++)
    reads |= y->src[i] == x->dst;
  return reads;
}

/* The first cycle after @t at which something outside a scheduler could wake one of its
 * warps: a block launching into its slots (a retirement from @t on launches a block
 * block_launch_cycles after a cycle past @t at the earliest), or a memory completion waking
 * warps held by the limit on outstanding requests (none is held: lg_waiters counts them all,
 * and only a look at a warp holds it). */
static guint64
horizon(const SmGpu *sm, guint64 t)
{
  guint64 h = sm->run_until;
  if (sm->lg_waiters > 0)
    return t + 1;
  if (sm->next_block < sm->grid_blocks)
    h = MIN(h, MIN(sm_engine_next_launch(&sm->engine), t + 1 + sm->cfg->block_launch_cycles));
  return h;
}

/* @w (of block @blk, or NULL) was the only warp of @s that could issue at the look at @t, and
 * it did; its next look would be at its wake time.  Before @others no other warp of @s is due,
 * and before horizon() nothing else can wake one; an instruction that warp_may_run_ahead() lets
 * through reaches nothing outside @s, neither when it issues nor when the warp is checked the cycle
 * after: the loop would look at @s only for @w, and find what is found here, cycle by cycle,
 * without visiting those cycles.  Stops before any other instruction (the shared-memory queue
 * and global requests are reached in the loop's order among schedulers, and checked against
 * what other schedulers did up to that cycle), at @w's end, or at that limit; returns @w's
 * next wake then. */
static G_GNUC_NO_INLINE guint64
run_ahead(SmGpu *sm, SmScheduler *s, SmWarp *w, SmBlock *blk, guint64 t, guint64 others)
{
  if (sm->watched || sm->trace || sm->mirrored)
    return s->wake[w->pos]; /* they see every cycle (their state is read between steps) */
  guint64 limit = MIN(others, horizon(sm, t));
  guint p = w->pos;
  guint64 u = s->wake[p];
  while (u < limit && !w->done && warp_may_run_ahead(sm, w)) {
    guint64 wake;
    guint st = warp_check(sm, w, s, u, &wake);
    if (st != SM_STATE_ELIGIBLE) {
      sm_set_state(sm, w, (SmState)st, u);
      u = wake;
      continue;
    }
    sm_set_state(sm, w, SM_STATE_NOT_SELECTED, u);
    if (s->busy_until > u) {
      u = s->busy_until; /* the scheduler is still busy with an earlier issue */
      continue;
    }
    s->stats->sched_issue_cycles[s->local]++;
    guint slots = sm->issue_width;
    u = issue_taken(sm, s, w, p, blk, u, &slots);
  }
  s->wake[p] = u;
  return u;
}

/* What one scheduler's look at its warps found this cycle (schedule()). */
typedef struct {
  guint n_el;      /* eligible warps, by position, ascending, in sm->eligible */
  guint n_ready;   /* of those, the ones the policy lets issue now (two_level: its pool) are
                      the first n_el; n_ready counts all */
  guint64 smin;    /* the earliest wake of the warps not eligible */
  guint64 new_hot; /* eligible now, and would stay so unseen if not taken (SM_HOT) */
  gboolean hot_ok; /* the scheduler keeps hot warps (at most 64) */
} Look;

/* @w (position @p) cannot issue at @t, for reason @st, until @wake. */
static inline void
park(SmGpu *sm, SmScheduler *s, SmWarp *w, guint p, guint st, guint64 wake, guint64 t, Look *k)
{
  sm_set_state(sm, w, (SmState)st, t);
  s->wake[p] = wake;
  if (st == SM_STATE_LG_THROTTLE && wake == SM_NEVER)
    sm->lg_waiters++;
  k->smin = MIN(k->smin, wake);
}

/* The pass over the wake times (wake.h), 64 positions at a time: the warps due now are looked
 * at, the eligible ones listed, the others parked until their wake. */
static inline void
look_due(SmGpu *sm, SmScheduler *s, guint64 t, Look *k)
{
  for (guint base = 0; base < s->n_warps; base += 64) {
    guint n = MIN(s->n_warps - base, 64u);
    SmWakeDue pass =
        n >= 8 ? sm->wake_pass(s->wake + base, n, t) : sm_wake_pass_small(s->wake + base, n, t);
    guint64 due = pass.due;
    k->smin = MIN(k->smin, pass.later);
    for (; due; due &= due - 1) {
      guint p = base + (guint)__builtin_ctzll(due);
      SmWarp *w = sm_sched_warp(sm, s, p);
      if (w->state == SM_STATE_NOT_SELECTED && w->space == ISA_SPACE_NONE &&
          sm->single_cycle_pipe[w->pipe] && (!sm->wb_ports || wb_free_for(sm, s, w, t))) {
        /* still eligible: its operands were ready, and a pipe that takes one instruction per
         * cycle is free again at the start of every cycle */
        sm->eligible[k->n_el++] = p;
        s->wake[p] = t + 1;
        continue;
      }
      guint64 wake;
      guint st = warp_check(sm, w, s, t, &wake);
      if (st == SM_STATE_ELIGIBLE) {
        /* provisionally not selected; the warp that issues is set to selected below */
        sm->eligible[k->n_el++] = p;
        sm_set_state(sm, w, SM_STATE_NOT_SELECTED, t);
        s->wake[p] = t + 1;
        continue;
      }
      park(sm, s, w, p, st, wake, t, k);
    }
  }
}

/* The eligible warps that would stay so unseen if not taken become candidates for SM_HOT; the
 * hot warps (eligible without a look) join the list, which stays in ascending positions. */
static inline void
merge_hot(SmGpu *sm, SmScheduler *s, Look *k)
{
  if (k->hot_ok) {
    for (guint i = 0; i < k->n_el; i++) {
      guint p = sm->eligible[i];
      const SmWarp *w = sm_sched_warp(sm, s, p);
      if (w->space == ISA_SPACE_NONE && sm->single_cycle_pipe[w->pipe])
        k->new_hot |= (guint64)1 << p;
    }
  }
  if (s->hot) {
    guint64 all = s->hot;
    for (guint i = 0; i < k->n_el; i++)
      all |= (guint64)1 << sm->eligible[i];
    k->n_el = 0;
    for (; all; all &= all - 1)
      sm->eligible[k->n_el++] = (guint)__builtin_ctzll(all);
  }
  k->n_ready = k->n_el;
}

/* Policy two_level: only the warps of the active pool may issue (warps waiting on global
 * memory, or finished, leave it; others join in their place). */
static inline void
narrow_to_pool(SmGpu *sm, SmScheduler *s, Look *k)
{
  for (guint p = 0; p < s->n_warps; p++) {
    const SmWarp *w = sm_sched_warp(sm, s, p);
    gboolean away = w->done || w->state == SM_STATE_LONG_SCOREBOARD;
    sm->pool_leaves[p] = (guint8)away;
    sm->pool_joins[p] = (guint8)!away;
  }
  k->n_el = sm_scheduler_pool(s, sm->cfg->two_level_pool, sm->pool_leaves, sm->pool_joins,
                              sm->eligible, k->n_el);
}

/* What the issues of one look did (issue_picked()). */
typedef struct {
  guint n_taken;
  guint64 taken;     /* their positions, while the scheduler keeps hot warps */
  SmWarp *last;      /* the warp that issued last, its block, and the earliest wake of the */
  SmBlock *last_blk; /* warps looked at before it issued */
  guint64 others;
} Issued;

/* Issues by policy into the cycle's issue slots, each pick from the eligible warps left; a
 * warp picked for a later slot is checked again (an earlier issue may have taken its pipe). */
static inline void
issue_picked(SmGpu *sm, SmScheduler *s, guint si, guint64 t, Look *k, Issued *out)
{
  guint slots = sm->issue_width;
  *out = (Issued){.others = SM_NEVER};
  while (slots > 0) {
    SmBlock *blk;
    guint i = pick(sm, s, si, k->n_el, t, &blk);
    if (i == G_MAXUINT)
      break;
    guint p = sm->eligible[i];
    sm->eligible[i] = SM_SCHEDULER_TAKEN;
    out->n_taken++;
    out->taken |= (guint64)k->hot_ok << p;
    SmWarp *w = sm_sched_warp(sm, s, p);
    guint64 wake;
    if (slots < sm->issue_width) {
      guint st = warp_check(sm, w, s, t, &wake);
      if (st != SM_STATE_ELIGIBLE) {
        park(sm, s, w, p, st, wake, t, k);
        continue;
      }
    }
    wake = issue_taken(sm, s, w, p, blk, t, &slots);
    s->wake[p] = wake;
    if (G_UNLIKELY(sm->lg_woke == si)) { /* a warp of this scheduler is due next cycle */
      k->smin = MIN(k->smin, t + 1);
      sm->lg_woke = G_MAXUINT;
    }
    out->last = w;
    out->last_blk = blk;
    out->others = k->smin;
    k->smin = MIN(k->smin, wake);
  }
}

/* One scheduler's cycle: look at its warps that may have changed, issue by policy.  Returns
 * the earliest cycle any of its warps may change. */
static guint64
schedule(SmGpu *sm, guint si, guint64 t)
{
  if (sm->min_wake[si] > t)
    return sm->min_wake[si];
  SmScheduler *s = &sm->sched[si];
  /* wakes set while this scheduler issues (a barrier its warp releases) lower it again */
  sm->min_wake[si] = SM_NEVER;
  Look k = {.smin = SM_NEVER, .hot_ok = sm->hot_ok && s->n_warps <= 64};
  look_due(sm, s, t, &k);
  merge_hot(sm, s, &k);
  if (G_UNLIKELY(sm->policy == CFG_POLICY_TWO_LEVEL))
    narrow_to_pool(sm, s, &k);
  if (k.n_el > 0 && s->busy_until > t) {
    for (guint i = 0; i < k.n_ready; i++)
      s->wake[sm->eligible[i]] = s->busy_until;
    k.smin = MIN(k.smin, s->busy_until);
    k.n_el = k.n_ready = 0; /* all wait for the scheduler: nobody looks before busy_until */
    s->hot = k.new_hot = 0;
  } else if (k.n_el > 0) {
    s->stats->sched_issue_cycles[s->local]++;
  }
  Issued out;
  issue_picked(sm, s, si, t, &k, &out);
  if (k.hot_ok) {
    /* eligible warps not taken stay hot; the taken ones have their wake from their issue */
    guint64 hot = (s->hot | k.new_hot) & ~out.taken;
    for (guint64 m = hot & ~s->hot; m; m &= m - 1)
      s->wake[__builtin_ctzll(m)] = SM_HOT;
    s->hot = hot;
  }
  guint64 smin = k.smin;
  if (out.n_taken < k.n_ready)
    smin = t + 1; /* eligible warps left waiting: look again next cycle */
  else if (k.n_ready == 1 && out.n_taken == 1 && sm->run_ahead_ok &&
           s->wake[out.last->pos] < out.others && !out.last->done &&
           sm->info[out.last->pc].may_run_ahead)
    /* the one warp that could issue, did: its next issues, until another warp is due */
    smin = MIN(out.others, run_ahead(sm, s, out.last, out.last_blk, t, out.others));
  sm->min_wake[si] = MIN(sm->min_wake[si], smin);
  return sm->min_wake[si];
}

static void
step(SmGpu *sm)
{
  guint64 t = sm->now;
  sm->stats.visited_cycles++;
  if (G_UNLIKELY(sm->trace) && sm->trace->klass->advance)
    sm->trace->klass->advance(sm->trace, t);
  sm_fire_events(sm, t);
  if (G_UNLIKELY(sm->order_stale)) {
    /* within an SM, the scheduler after the last one that queued a shared-memory access looks
     * first: the schedulers take the queue's free places in turn (before any such access, and
     * in kernels without one, in index order); only the SMs stepped (fast/mirror.c) look */
    guint per = sm->sched_per_sm, n = 0;
    for (guint i = 0; i < sm->n_sim_sm; i++) {
      guint m = sm->sim_sms[i];
      for (guint k = 0, s = sm->smem.first[m]; k < per; k++, s = s + 1 == per ? 0 : s + 1)
        sm->order[n++] = m * per + s;
    }
    sm->n_order = n;
    sm->order_stale = FALSE;
  }
  for (guint i = 0; i < sm->n_order; i++) {
    /* an SM's stores waiting in its store queue for room first (its schedulers are in a row) */
    if (G_UNLIKELY(sm->room_freed) && i % sm->sched_per_sm == 0 &&
        sm->room_freed[sm->order[i] / sm->sched_per_sm])
      sm_sass_stores_resume(sm, sm->order[i] / sm->sched_per_sm, t);
    schedule(sm, sm->order[i], t);
  }
  /* after scheduling: issues push memory events, and a retiring block its successor's launch;
   * read back every scheduler too: a barrier release can wake warps of one already done */
  guint64 next = sm_engine_next_cycle(&sm->engine);
  if (G_LIKELY(!sm->mirrored && !sm->defer)) {
    for (guint si = 0; si < sm->n_sched; si++)
      next = MIN(next, sm->min_wake[si]);
  } else {
    for (guint i = 0; i < sm->n_order; i++)
      next = MIN(next, sm->min_wake[sm->order[i]]);
  }
  if (G_UNLIKELY(sm->trace))
    sm_trace_counters(sm, t);
  sm->now = next;
}

void
sm_step_view(SmGpu *view)
{
  if (view->now >= view->run_until)
    return; /* already there (or its SM has nothing left to do: SM_NEVER) */
  view->stats.view_steps++;
  /* a view that steps fewer cycles than its schedulers take to issue once for each of their
   * warps reaches only a few of them: the whole state asked for would cost more than it saves */
  if (view->sass && view->run_until - view->now >= view->warp_slots_per_sm / view->sched_per_sm)
    view->above->prefetch(view);
  while (view->now < view->run_until) /* (a retirement may lower it: fast/parallel.c) */
    step(view);
}

void
sm_machine_run_until(SmGpu *sm, guint64 cycle)
{
  sm->run_until = cycle; /* no issue at or past it (run_ahead()) */
  while (!sm->finished && sm->now < cycle) {
    if (G_UNLIKELY(sm_stop_requested()))
      return; /* the caller decides: sm_close() keeps what was simulated */
    if (G_UNLIKELY(sm->trace) && trace_sink_failed(sm->trace)) {
      sm_finish(sm); /* the trace hit its size limit or could not be written: stop */
      break;
    }
    if (sm->blocks_retired == sm->grid_blocks) {
      sm_finish(sm);
      break;
    }
    step(sm);
    if (G_UNLIKELY(sm->sass) && sm_error(sm))
      return; /* the executor stopped a warp: the caller reports it */
    if (G_UNLIKELY(sm->progress) && (sm->stats.visited_cycles & 4095) == 0)
      sm->progress(sm, sm->progress_data);
    if (sm->watched && sm->now != SM_NEVER)
      sm->above->after_step(sm, cycle); /* fast-forward (fast/steady.c) */
    if (sm->now == SM_NEVER) {
      /* nothing can ever happen again: every warp finished (checked above next time) */
      g_assert(sm->blocks_retired == sm->grid_blocks);
      sm_finish(sm);
    }
  }
  if (!sm->finished && sm->blocks_retired == sm->grid_blocks)
    sm_finish(sm);
}

void
sm_set_progress(SmGpu *sm, SmProgressFn fn, gpointer data)
{
  sm->progress = fn;
  sm->progress_data = data;
}

gboolean
sm_finished(const SmGpu *sm)
{
  return sm->finished;
}

guint64
sm_now(const SmGpu *sm)
{
  return sm->now;
}
