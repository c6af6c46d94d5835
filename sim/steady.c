/* Exact fast-forward over periodic steady states (see steady.h).  The state is walked by one
 * function in two modes, encoding it relative to the current cycle or shifting it by whole
 * periods, so the two can never disagree about what the state is. */
#include "steady.h"

#include <string.h>

#include "sm-internal.h"

#define MAX_KEEP 256 /* states kept whole: periods of up to this many looks ... */
#define MIN_KEEP 1   /* ... at least, however large the machine (the hashes reach further) */
#define KEEP_BYTES (32u << 20) /* what the states kept whole may take together */
#define HISTORY 1024           /* hashes of the states seen: longer periods, checked later */
#define EAGER_LOOKS 64         /* looks at every reference iteration before backing off */
#define MAX_BACKOFF 256        /* iterations let pass between looks when nothing repeats */

/* The encoded state: unsigned LEB128 numbers (most are small: times relative to now, pcs). */
typedef struct {
  guint8 *data;
  gsize len, cap;
} Buf;

typedef struct {
  Buf state;
  GArray *counters; /* guint32: loop counters of every warp (outermost first) */
  GArray *issued;   /* guint64: per warp slot, instructions issued */
  guint64 hash;     /* of state: most comparisons end here */
  guint64 t;
  SmStats stats;
} Snapshot;

/* A state seen, by its hash only: a match names a candidate period, which the next look that
 * far ahead checks against a full copy (so a hash collision costs time, never a wrong jump). */
typedef struct {
  guint64 hash;
  guint64 iter; /* reference iterations counted when it was seen */
} Seen;

/* One detector: of the whole SM, or of one scheduler whose warps nothing outside it reaches
 * (decoupled(), below). */
typedef struct {
  SmSteady *owner;
  guint scope;             /* the scheduler it watches; G_MAXUINT: the whole SM */
  SmStats *stats;          /* what its warps and scheduler count into */
  guint64 jumped;          /* cycles jumped over (a scheduler's) */
  guint64 until;           /* the cycle its last jump reached (a scheduler's) */
  guint ref;               /* reference warp slot; G_MAXUINT: none chosen */
  guint64 ref_issued;      /* its issue count at the last look */
  guint level;             /* the loop level whose iterations it looks at */
  guint32 count;           /* that loop's counter at the last look */
  guint64 iter;            /* iterations of that loop seen since the last sm_steady_forget() */
  guint n, next;           /* hashes held; where the next one goes */
  guint looks, wait;       /* looks without a repeat; iterations to let pass before the next */
  Seen seen[HISTORY];      /* the states seen, oldest overwritten first */
  guint keep, next_whole;  /* states kept whole (from the size of one); where the next goes */
  guint used;              /* snap[0..used) were initialised */
  Snapshot snap[MAX_KEEP]; /* the last keep states seen: seen[] in full */
  gboolean pending;        /* cand holds a state a repeat is expected of ... */
  guint64 due;             /* ... at this iteration */
  Snapshot cand, cur;
} Detector;

struct SmSteady {
  Detector *d;     /* the whole SM's, then one per scheduler if they run apart */
  guint n;         /* detectors */
  SmStats *counts; /* per scheduler (if they run apart): its warps' and its own counts */
  guint n_counts;
  SmStats totals; /* sm_steady_totals() */
};

static gboolean fast_forward_on = TRUE;
static guint keep_at_most = MAX_KEEP;

void
sm_steady_set_keep(guint n)
{
  keep_at_most = n == 0 ? MAX_KEEP : CLAMP(n, 1u, MAX_KEEP);
}

void
sm_set_fast_forward(gboolean on)
{
  fast_forward_on = on;
}

static void
snapshot_init(Snapshot *s)
{
  s->state = (Buf){NULL, 0, 0};
  s->counters = g_array_new(FALSE, FALSE, sizeof(guint32));
  s->issued = g_array_new(FALSE, FALSE, sizeof(guint64));
}

static void
snapshot_copy(Snapshot *to, const Snapshot *from)
{
  if (to->state.cap < from->state.len) {
    to->state.cap = from->state.cap;
    to->state.data = g_realloc(to->state.data, to->state.cap);
  }
  memcpy(to->state.data, from->state.data, from->state.len);
  to->state.len = from->state.len;
  g_array_set_size(to->counters, 0);
  g_array_append_vals(to->counters, from->counters->data, from->counters->len);
  g_array_set_size(to->issued, 0);
  g_array_append_vals(to->issued, from->issued->data, from->issued->len);
  to->hash = from->hash;
  to->t = from->t;
  to->stats = from->stats;
}

static void
snapshot_clear(Snapshot *s)
{
  if (s->counters == NULL)
    return;
  g_free(s->state.data);
  g_array_free(s->counters, TRUE);
  g_array_free(s->issued, TRUE);
}

/* Nothing outside a scheduler reaches its warps, nor they anything outside it, but block
 * launches: one SM, no memory of any kind (queues and channels are shared), no barrier (it
 * releases warps of every scheduler).  Each scheduler then runs as if alone between launches,
 * and may repeat its own state at its own period: with 7 warps on some and 8 on others, the
 * SM as a whole repeats only after the product of the two.  A block retiring launches the
 * next one into every scheduler: no scheduler jumps past a cycle at which one could
 * (alone_until_launch()). */
static gboolean
decoupled(const Sm *sm)
{
  if (sm->n_sm != 1 || sm->n_sched < 2 || sm->mirrored)
    return FALSE;
  for (guint i = 0; i < sm->prog->n_insns; i++)
    if (sm->prog->insns[i].kind == ISA_INSN_OP &&
        (sm->info[i].space != ISA_SPACE_NONE || sm->info[i].special == SM_SPECIAL_BAR ||
         sm->info[i].special == SM_SPECIAL_LDGSTS || sm->info[i].special == SM_SPECIAL_LDGDEPBAR ||
         sm->info[i].special == SM_SPECIAL_DEPBAR))
      return FALSE;
  return TRUE;
}

static void
detector_init(Detector *d, SmSteady *owner, guint scope, SmStats *stats)
{
  d->owner = owner;
  d->scope = scope;
  d->stats = stats;
  d->ref = G_MAXUINT;
  snapshot_init(&d->cand);
  snapshot_init(&d->cur); /* the others when first needed */
}

SmSteady *
sm_steady_new(Sm *sm)
{
  if (!fast_forward_on || sm->limit != 0)
    return NULL; /* per-warp instruction limits end runs mid-loop */
  if (sm_draws_random(sm))
    return NULL; /* a state with random numbers in it never comes back */
  SmSteady *st = g_new0(SmSteady, 1);
  st->n_counts = decoupled(sm) ? sm->n_sched : 0;
  st->n = 1 + st->n_counts;
  st->d = g_new0(Detector, st->n);
  detector_init(&st->d[0], st, G_MAXUINT, &sm->stats);
  if (st->n_counts == 0)
    return st;
  /* besides the SM's, one detector per scheduler, each with counts of its own (a period's
   * counts are the difference of two looks) */
  st->counts = g_new0(SmStats, st->n_counts);
  for (guint q = 0; q < st->n_counts; q++) {
    detector_init(&st->d[1 + q], st, q, &st->counts[q]);
    sm->sched[q].stats = &st->counts[q];
  }
  for (guint i = 0; i < sm->n_warps; i++)
    sm->warps[i].stats = &st->counts[sm->warps[i].sched];
  return st;
}

void
sm_steady_free(SmSteady *st)
{
  if (st == NULL)
    return;
  for (guint q = 0; q < st->n; q++) {
    Detector *d = &st->d[q];
    for (guint i = 0; i < d->used; i++) /* not the others: their pages were never touched */
      snapshot_clear(&d->snap[i]);
    snapshot_clear(&d->cand);
    snapshot_clear(&d->cur);
  }
  g_free(st->d);
  g_free(st->counts);
  g_free(st);
}

void
sm_steady_end(Sm *sm)
{
  SmSteady *st = sm->steady;
  if (st == NULL)
    return;
  if (st->counts) {
    /* the schedulers' own counts into the totals, which their warps count into from now on */
    sm->stats = *sm_steady_totals(sm, st);
    for (guint q = 0; q < st->n_counts; q++)
      sm->sched[q].stats = &sm->stats;
    for (guint i = 0; i < sm->n_warps; i++)
      sm->warps[i].stats = &sm->stats;
  }
  sm_steady_free(st);
  sm->steady = NULL;
}

guint64
sm_steady_until(const SmSteady *st)
{
  guint64 until = 0;
  for (guint q = 0; q < st->n; q++)
    until = MAX(until, st->d[q].until);
  return until;
}

const SmStats *
sm_steady_totals(const Sm *sm, SmSteady *st)
{
  if (st->counts == NULL)
    return &sm->stats;
  st->totals = sm->stats;
  guint64 jumped = 0;
  for (guint q = 0; q < st->n_counts; q++) {
    sm_stats_add_scaled(&st->totals, &st->counts[q], NULL, 1);
    jumped += st->d[1 + q].jumped;
  }
  /* besides the SM's jumps, the cycles each scheduler jumped over on its own, on average */
  st->totals.fast_forward_cycles += jumped / st->n_counts;
  return &st->totals;
}

/* One walk over the state: ENCODE appends it to out relative to cycle t (times before t are
 * all alike: nothing compares them with an earlier cycle, and t itself is kept apart because
 * some tests are strict); SHIFT moves every time by dt. */
typedef enum { ENCODE, SHIFT } Mode;

typedef struct {
  Mode mode;
  guint64 t, dt;
  Buf *out;
} Walk;

static inline void
put(Walk *k, guint64 v)
{
  if (k->mode != ENCODE)
    return;
  Buf *b = k->out;
  if (G_UNLIKELY(b->len + 10 > b->cap)) {
    b->cap = MAX(2 * b->cap, 4096u);
    b->data = g_realloc(b->data, b->cap);
  }
  guint8 *p = b->data + b->len;
  while (v >= 0x80) {
    *p++ = (guint8)(v | 0x80);
    v >>= 7;
  }
  *p++ = (guint8)v;
  b->len = (gsize)(p - b->data);
}

/* A cycle number (SM_NEVER and SM_HOT are markers, not times). */
static inline void
cycle(Walk *k, guint64 *v)
{
  if (*v >= (SM_NEVER - 1)) {
    put(k, *v);
  } else if (k->mode == SHIFT) {
    *v += k->dt;
  } else {
    put(k, *v < k->t ? 0 : *v - k->t + 1);
  }
}

/* A time in ticks. */
static inline void
ticks(Walk *k, guint64 *v)
{
  if (k->mode == SHIFT) {
    *v += sm_ticks(k->dt);
  } else {
    guint64 now = sm_ticks(k->t);
    put(k, *v < now ? 0 : *v - now + 1);
  }
}

static void
walk_warp(Sm *sm, SmWarp *w, Walk *k)
{
  guint n_regs = MAX(sm->prog->n_regs, 1u);
  put(k, w->exists | (guint64)w->done << 8 | (guint64)w->state << 16 | (guint64)w->dep_state << 24 |
             (guint64)w->unit << 32 | (guint64)w->space << 40 | (guint64)w->depth << 48);
  if (!w->exists)
    return;
  put(k, w->pc | (guint64)w->n_trans << 32 | (guint64)w->block << 48);
  put(k, w->rng);
  put(k, w->passes_left | (guint64)w->lanes << 32);
  put(k, w->active | (guint64)w->n_active << 32);
  for (guint d = 0; d < w->depth; d++)
    put(k, w->loop_body[d]);
  cycle(k, &w->deps_at);
  cycle(k, &w->state_since);
  cycle(k, &w->last_issue);
  cycle(k, &w->finish);
  cycle(k, &w->smem_stores_done);
  if (w->done)
    return; /* the scoreboard of a finished warp is never read */
  for (guint i = 0; i < n_regs * ISA_UNIT_COUNT; i++)
    cycle(k, &w->sb.ready[i]);
  for (guint r = 0; r < n_regs; r++)
    put(k, w->sb.producer[r]);
  if (w->simt) {
    for (guint r = 0; r < n_regs; r++)
      put(k, w->simt->pred[r]);
    for (guint b = 0; b < ISA_MAX_BARRIERS; b++)
      put(k, w->simt->expect[b] | (guint64)w->simt->arrived[b] << 32);
    put(k, w->simt->n_pending);
    for (guint i = 0; i < w->simt->n_pending; i++)
      put(k, w->simt->pending_pc[i] | (guint64)w->simt->pending_mask[i] << 32);
  }
}

static void
walk_scheduler(Sm *sm, SmScheduler *s, Walk *k)
{
  for (guint p = 0; p < s->n_warps; p++) {
    cycle(k, &s->wake[p]);
    put(k, s->age[p]); /* a launch cycle: only its order counts, and it does not move */
    if (s->in_pool)
      put(k, s->in_pool[p]);
  }
  /* resume cycles (policy last_resumed): their order, every later one being larger than all of
   * them; with a resume window also whether any two, or one and a later one, are more than
   * the window apart: the gap to the next earlier one and the age, both capped past it */
  guint64 window = sm->gpu->resume_window, cap = window + 1;
  for (guint p = 0; sm->policy == CFG_POLICY_LAST_RESUMED && p < s->n_warps; p++) {
    if (k->mode == SHIFT) {
      s->resumed[p] += k->dt;
      continue;
    }
    guint64 r = s->resumed[p], below = 0;
    guint rank = 0;
    for (guint q = 0; q < s->n_warps; q++) {
      rank += s->resumed[q] < r;
      if (s->resumed[q] < r)
        below = MAX(below, s->resumed[q]);
    }
    put(k, rank);
    if (window > 0) {
      put(k, rank == 0 ? cap : MIN(r - below, cap));
      put(k, r > k->t ? cap + r - k->t : MIN(k->t - r, cap));
    }
  }
  cycle(k, &s->min_wake);
  cycle(k, &s->busy_until);
  put(k, s->last);
  put(k, s->hot);
  put(k, s->pool_n | (guint64)s->pool_next << 32);
  for (guint u = 0; u < ISA_UNIT_COUNT; u++)
    ticks(k, &s->pipe_free[u]);
  if (s->wb_ring) {
    /* write ports taken from t on (nothing reads an earlier cycle) */
    guint64 hi = s->wb_hi;
    if (k->mode == ENCODE) {
      for (guint64 c = k->t; c <= hi; c++)
        put(k, sm_wb_used(s->wb_ring, c));
      put(k, hi <= k->t ? 0 : hi - k->t);
    } else if (hi >= k->t) {
      guint n = (guint)(hi - k->t + 1);
      g_assert(n <= SM_WB_RING);
      guint8 used[SM_WB_RING];
      for (guint i = 0; i < n; i++)
        used[i] = (guint8)sm_wb_used(s->wb_ring, k->t + i);
      memset(s->wb_ring, 0, SM_WB_RING * sizeof *s->wb_ring);
      for (guint i = 0; i < n; i++)
        for (guint j = 0; j < used[i]; j++)
          sm_wb_take(s->wb_ring, k->t + k->dt + i);
      s->wb_hi = hi + k->dt;
    } else {
      memset(s->wb_ring, 0, SM_WB_RING * sizeof *s->wb_ring);
      s->wb_hi = 0;
    }
  }
}

/* The warps of scheduler @scope: warp slots scope, scope + n_sched, ... (sm-new.c). */
#define FOR_SCOPE_WARPS(sm, scope, i)                                                              \
  for (guint i = (scope) == G_MAXUINT ? 0 : (scope); i < (sm)->n_warps;                            \
       i += (scope) == G_MAXUINT ? 1 : (sm)->n_sched)

static void
walk(Sm *sm, Walk *k, guint scope)
{
  if (scope != G_MAXUINT) {
    /* a scheduler's own state; block priority also reads its blocks' places */
    FOR_SCOPE_WARPS(sm, scope, i)
    walk_warp(sm, &sm->warps[i], k);
    const SmScheduler *s = &sm->sched[scope];
    walk_scheduler(sm, &sm->sched[scope], k);
    if (sm->block_priority != CFG_BLOCK_PRIORITY_NONE) {
      for (guint p = 0; p < s->n_warps; p++)
        put(k, s->grid[p]); /* which block is older */
      for (guint b = 0; b < sm->n_block_slots; b++)
        put(k, sm->blocks[b].last[s->local]);
    }
    return;
  }
  /* the SMs stepped and what each stands for (the others run like one of them: mirror.c) */
  for (guint i = 0; i < sm->n_warps; i++)
    if (sm->weight[sm->warps[i].sm] > 0)
      walk_warp(sm, &sm->warps[i], k);
  for (guint i = 0; i < sm->n_sched; i++)
    if (sm->weight[i / sm->sched_per_sm] > 0)
      walk_scheduler(sm, &sm->sched[i], k);
  for (guint b = 0; b < sm->n_block_slots; b++) {
    if (sm->weight[sm->blocks[b].sm] == 0)
      continue;
    SmBlock *blk = &sm->blocks[b];
    put(k, blk->busy | (guint64)blk->live << 8 | (guint64)blk->arrived << 32);
    put(k, blk->grid_index);
    if (sm->block_priority != CFG_BLOCK_PRIORITY_NONE)
      for (guint q = 0; q < sm->sched_per_sm; q++)
        put(k, blk->last[q]);
    cycle(k, &blk->retire);
    cycle(k, &blk->free_at);
  }
  for (guint m = 0; m < sm->n_sm; m++) {
    put(k, sm->weight[m]);
    if (sm->weight[m] == 0)
      continue;
    put(k, sm->sm_blocks[m] | (guint64)sm->smem.first[m] << 32);
    ticks(k, &sm->smem.free[m]);
  }
  put(k, sm->n_done | (guint64)sm->next_block << 32);
  put(k, sm->blocks_retired | (guint64)sm->lg_waiters << 32);
}

/* Closes every warp's current state interval at @t (the counts are sums: the same totals). */
static void
flush_states(Sm *sm, guint64 t, guint scope)
{
  FOR_SCOPE_WARPS(sm, scope, i)
  {
    SmWarp *w = &sm->warps[i];
    if (!sm_warp_stepped(sm, w))
      continue;
    g_assert(w->state_since <= t);
    w->stats->state_cycles[w->state] += t - w->state_since;
    w->state_since = t;
  }
}

static void
take(Sm *sm, const Detector *d, Snapshot *s, guint64 t)
{
  s->state.len = 0;
  g_array_set_size(s->counters, 0);
  g_array_set_size(s->issued, 0);
  flush_states(sm, t, d->scope);
  sm_mirror_fold(sm); /* the counts of the SMs that stand for others, in the totals */
  Walk k = {ENCODE, t, 0, &s->state};
  walk(sm, &k, d->scope);
  FOR_SCOPE_WARPS(sm, d->scope, i)
  {
    const SmWarp *w = &sm->warps[i];
    g_array_append_val(s->issued, w->issued);
    for (guint e = 0; e < w->depth; e++)
      g_array_append_val(s->counters, w->loop_left[e]);
  }
  guint64 h = 0xcbf29ce484222325ull;
  gsize i = 0;
  for (; i + 8 <= s->state.len; i += 8) {
    guint64 v;
    memcpy(&v, s->state.data + i, 8);
    h = (h ^ v) * 0x100000001b3ull;
  }
  for (; i < s->state.len; i++)
    h = (h ^ s->state.data[i]) * 0x100000001b3ull;
  s->hash = h ^ s->state.len;
  s->t = t;
  s->stats = d->scope == G_MAXUINT ? *sm_steady_totals(sm, d->owner) : *d->stats;
}

/* Whole periods from @old to @cur that can be skipped.  In each warp the outermost loop whose
 * counter moved counts down (the loops inside it started again, so their counters must be
 * back where they were); it must stay above 1, never reaching its last iteration, through
 * every skipped period. */
static guint64
periods(const Sm *sm, guint scope, const Snapshot *old, const Snapshot *cur)
{
  if (old->hash != cur->hash || old->state.len != cur->state.len ||
      old->counters->len != cur->counters->len ||
      memcmp(old->state.data, cur->state.data, cur->state.len) != 0)
    return 0;
  guint64 k = G_MAXUINT64;
  const guint32 *a = (const guint32 *)(void *)old->counters->data;
  const guint32 *b = (const guint32 *)(void *)cur->counters->data;
  guint c = 0;
  FOR_SCOPE_WARPS(sm, scope, i)
  {
    guint depth = sm->warps[i].depth; /* the same in both: it is part of the state */
    guint d = 0;
    while (d < depth && a[c + d] == b[c + d])
      d++;
    if (d < depth) {
      if (b[c + d] > a[c + d])
        return 0; /* a loop started again: not a countdown */
      for (guint e = d + 1; e < depth; e++)
        if (a[c + e] != b[c + e])
          return 0; /* an inner loop at another point of its count */
      guint32 step = a[c + d] - b[c + d];
      k = MIN(k, b[c + d] > 1 ? (b[c + d] - 1) / step : 0);
    }
    c += depth;
  }
  return k == G_MAXUINT64 ? 0 : k; /* nothing counts down: no end in sight, do not jump */
}

/* Jumps @n periods of @old's length from the state in d->cur: the whole SM, its clock with
 * it; or one scheduler, whose warps' times move on while the clock stays (nothing else reads
 * them: the loop next looks at that scheduler when its first warp is due, n periods on). */
static void
jump(Sm *sm, Detector *d, const Snapshot *old, const Snapshot *cur, guint64 n)
{
  guint64 period = cur->t - old->t, dt = n * period;
  /* the SM's: its totals' growth, into its own counts (the schedulers' stay as they are) */
  SmStats before = d->scope == G_MAXUINT ? *sm_steady_totals(sm, d->owner) : *d->stats;
  sm_stats_add_scaled(d->stats, &before, &old->stats, n);
  /* nothing of global memory moves in a periodic state (sm_steady_new) */
  g_assert(before.global_loads == old->stats.global_loads &&
           before.global_stores == old->stats.global_stores &&
           before.async_copies == old->stats.async_copies);
  if (d->scope == G_MAXUINT) {
    sm->stats.fast_forward_cycles += dt;
  } else {
    d->jumped += dt;
    d->until = MAX(d->until, sm->now + dt);
  }
  guint c = 0, j = 0;
  FOR_SCOPE_WARPS(sm, d->scope, i)
  {
    SmWarp *w = &sm->warps[i];
    w->issued += n * (w->issued - g_array_index(old->issued, guint64, j++));
    for (guint e = 0; e < w->depth; e++, c++) {
      guint32 a = g_array_index(old->counters, guint32, c);
      w->loop_left[e] -= (guint32)(n * (a - w->loop_left[e]));
    }
  }
  Walk k = {SHIFT, sm->now, dt, NULL};
  walk(sm, &k, d->scope);
  if (d->scope == G_MAXUINT)
    sm->now += dt;
}

/* After a jump, or when what they were taken at changed. */
static void
forget(Detector *st)
{
  st->n = st->next = st->next_whole = st->looks = st->wait = 0;
  st->iter = 0;
  st->pending = FALSE;
}

void
sm_steady_forget(SmSteady *st)
{
  for (guint q = 0; q < st->n; q++)
    forget(&st->d[q]);
}

/* No block can retire (and so no other launch into scheduler @q) before @q's warps end their
 * loops: every resident block has a warp on @q still running (a repeating warp keeps running
 * through the periods jumped, its loop counters stay above 1), and no launch is queued.
 * Always so while the whole grid is resident. */
static gboolean
alone_until_launch(Sm *sm, guint q)
{
  if (sm->next_block >= sm->grid_blocks)
    return TRUE;
  if (sm->engine.n > 0)
    return FALSE;
  for (guint b = 0; b < sm->n_block_slots; b++) {
    const SmBlock *blk = &sm->blocks[b];
    gboolean held = !blk->busy;
    for (guint j = 0; j < blk->n_warps && !held; j++) {
      const SmWarp *w = sm_block_warp(sm, blk, j);
      held = w->sched == q && !w->done;
    }
    if (!held)
      return FALSE;
  }
  return TRUE;
}

/* Jumps if the state in st->cur repeats @old: TRUE when it did. */
static gboolean
try_jump(Sm *sm, Detector *st, const Snapshot *old, guint64 limit)
{
  if (st->scope != G_MAXUINT && !alone_until_launch(sm, st->scope))
    return FALSE;
  guint64 n = periods(sm, st->scope, old, &st->cur);
  guint64 period = st->cur.t - old->t;
  if (n > 0 && limit != SM_NEVER)
    n = MIN(n, (limit - sm->now) / period);
  if (n == 0)
    return FALSE;
  jump(sm, st, old, &st->cur, n);
  /* the SM's jump put its counts where the schedulers' detectors do not look: they start
   * again; a scheduler's jump is the same as stepping to the SM's detector, whose states and
   * totals stay valid (it looks again once that scheduler is due) */
  if (st->scope == G_MAXUINT)
    sm_steady_forget(st->owner);
  else
    forget(st);
  /* the jump moved the reference's counts: no look until it issues again (a scheduler's warps
   * now have their times n periods on, past the clock) */
  const SmWarp *ref = &sm->warps[st->ref];
  st->ref_issued = ref->issued;
  st->count = ref->loop_left[st->level];
  return TRUE;
}

static void
detector_after_step(Sm *sm, Detector *st, guint64 limit)
{
  SmWarp *ref = st->ref == G_MAXUINT ? NULL : &sm->warps[st->ref];
  if (ref == NULL || ref->done) {
    /* a new reference: of the warps still running, the one furthest ahead (the first of
     * them on ties), so that a warp a priority keeps waiting does not set the pace of the
     * looks; what was seen before is forgotten */
    st->ref = G_MAXUINT;
    forget(st);
    FOR_SCOPE_WARPS(sm, st->scope, i)
    if (sm->warps[i].exists && !sm->warps[i].done &&
        (st->ref == G_MAXUINT || sm->warps[i].issued > sm->warps[st->ref].issued))
      st->ref = i;
    if (st->ref == G_MAXUINT)
      return;
    ref = &sm->warps[st->ref];
    st->ref_issued = ref->issued;
    st->level = G_MAXUINT;
    return;
  }
  if (ref->issued == st->ref_issued)
    return;
  st->ref_issued = ref->issued;
  /* a look each time the reference warp ends an iteration of its outermost loop that still has
   * a few to go (an inner loop when the outer one is nearly done) */
  guint level = 0;
  while (level < ref->depth && ref->loop_left[level] <= 2)
    level++;
  if (level >= ref->depth)
    return;
  if (level != st->level) {
    st->level = level;
    st->count = ref->loop_left[level];
    forget(st);
    return;
  }
  if (ref->loop_left[level] == st->count)
    return;
  st->count = ref->loop_left[level];
  st->iter++;
  if (sm->engine.n > 0 || sm->now >= limit)
    return; /* events in flight (a block launch) belong to no period */
  if (st->scope == G_MAXUINT && sm_steady_until(st->owner) > sm->now)
    return; /* a scheduler jumped on alone: the SM's state is whole again when it is due */
  if (st->pending) {
    if (st->iter < st->due)
      return;
    /* the state a hash said would come back: compare it in full */
    st->pending = FALSE;
    take(sm, st, &st->cur, sm->now);
    if (try_jump(sm, st, &st->cand, limit))
      return;
  } else {
    if (st->wait > 0) {
      st->wait--;
      return;
    }
    take(sm, st, &st->cur, sm->now);
  }
  if (st->keep == 0)
    st->keep = MIN(CLAMP(KEEP_BYTES / (st->cur.state.len + 1), MIN_KEEP, MAX_KEEP), keep_at_most);
  guint whole = MIN(st->n, st->keep);
  for (guint j = 0; j < whole; j++)
    if (try_jump(sm, st, &st->snap[(st->next_whole + st->keep - 1 - j) % st->keep], limit))
      return;
  /* older states by their hashes: a match is a repeat if the hash tells the truth; keep this
   * state and compare it with the one as many iterations ahead */
  guint64 h = st->cur.hash;
  for (guint j = whole; j < st->n; j++) {
    const Seen *old = &st->seen[(st->next + HISTORY - 1 - j) % HISTORY];
    if (old->hash == h) {
      snapshot_copy(&st->cand, &st->cur);
      st->pending = TRUE;
      st->due = st->iter + (st->iter - old->iter);
      break;
    }
  }
  /* remember this state (swap buffers with the oldest kept whole) */
  st->seen[st->next] = (Seen){h, st->iter};
  st->next = (st->next + 1) % HISTORY;
  st->n = MIN(st->n + 1, HISTORY);
  Snapshot *slot = &st->snap[st->next_whole];
  if (slot->counters == NULL) {
    snapshot_init(slot);
    st->used = MAX(st->used, st->next_whole + 1);
  }
  Snapshot tmp = *slot;
  *slot = st->cur;
  st->cur = tmp;
  st->next_whole = (st->next_whole + 1) % st->keep;
  if (!st->pending && ++st->looks > EAGER_LOOKS)
    st->wait = MIN(st->looks - EAGER_LOOKS, MAX_BACKOFF);
}

void
sm_steady_after_step(Sm *sm, SmSteady *st, guint64 limit)
{
  for (guint q = 0; q < st->n; q++)
    detector_after_step(sm, &st->d[q], limit);
}
