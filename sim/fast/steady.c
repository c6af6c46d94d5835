/* Exact fast-forward over periodic steady states (see steady.h): when to look, what repeats,
 * how far to jump.  The state itself is walked in steady-state.c. */
#include "fast.h"

#include <string.h>

#include "steady-state.h"

#define MAX_KEEP 256 /* states kept whole: periods of up to this many looks ... */
#define MIN_KEEP 1   /* ... at least, however large the machine (the hashes reach further) */
#define KEEP_BYTES (32u << 20) /* what the states kept whole may take together */
#define HISTORY 1024           /* hashes of the states seen: longer periods, checked later */
#define EAGER_LOOKS 64         /* looks at every reference iteration before backing off */
#define MAX_BACKOFF 256        /* iterations let pass between looks when nothing repeats */

typedef struct {
  SmStateBuf state;
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
  guint scope;             /* the scheduler it watches, or SM_SCOPE_SM */
  SmStats *stats;          /* what its warps and scheduler count into */
  guint64 jumped;          /* cycles jumped over (a scheduler's) */
  guint64 until;           /* the cycle its last jump reached (a scheduler's) */
  guint ref;               /* reference warp slot; G_MAXUINT: none chosen */
  guint64 ref_issued;      /* its issue count at the last look */
  guint loop_level;        /* the loop level whose iterations it looks at */
  guint32 loop_left;       /* that loop's iterations left at the last look */
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
  s->state = (SmStateBuf){NULL, 0, 0};
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
decoupled(const SmGpu *sm)
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
sm_steady_new(SmGpu *sm)
{
  if (!fast_forward_on || sm->limit != 0)
    return NULL; /* per-warp instruction limits end runs mid-loop */
  if (sm_draws_random(sm))
    return NULL; /* a state with random numbers in it never comes back */
  SmSteady *st = g_new0(SmSteady, 1);
  st->n_counts = decoupled(sm) ? sm->n_sched : 0;
  st->n = 1 + st->n_counts;
  st->d = g_new0(Detector, st->n);
  detector_init(&st->d[0], st, SM_SCOPE_SM, &sm->stats);
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
sm_steady_end(SmGpu *sm)
{
  SmSteady *st = sm->fast->steady;
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
  sm->fast->steady = NULL;
  sm->watched = FALSE;
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
sm_steady_totals(const SmGpu *sm, SmSteady *st)
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

/* Closes every warp's current state interval at @t (the counts are sums: the same totals). */
static void
flush_states(SmGpu *sm, guint64 t, guint scope)
{
  SM_FOR_SCOPE_WARPS (sm, scope, i) {
    SmWarp *w = &sm->warps[i];
    if (!sm_warp_stepped(sm, w))
      continue;
    if (w->state_since > t)
      continue; /* an exited warp's slot, inactive from its last access on (counted to then) */
    w->stats->state_cycles[w->state] += t - w->state_since;
    w->state_since = t;
  }
}

static void
take(SmGpu *sm, const Detector *d, Snapshot *s, guint64 t)
{
  s->state.len = 0;
  g_array_set_size(s->counters, 0);
  g_array_set_size(s->issued, 0);
  flush_states(sm, t, d->scope);
  sm_mirror_fold(sm); /* the counts of the SMs that stand for others, in the totals */
  sm_state_encode(sm, d->scope, t, &s->state);
  SM_FOR_SCOPE_WARPS (sm, d->scope, i) {
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
  s->stats = d->scope == SM_SCOPE_SM ? *sm_steady_totals(sm, d->owner) : *d->stats;
}

/* Whole periods from @old to @cur that can be skipped.  In each warp the outermost loop whose
 * counter moved counts down (the loops inside it started again, so their counters must be
 * back where they were); it must stay above 1, never reaching its last iteration, through
 * every skipped period. */
static guint64
periods(const SmGpu *sm, guint scope, const Snapshot *old, const Snapshot *cur)
{
  if (old->hash != cur->hash || old->state.len != cur->state.len ||
      old->counters->len != cur->counters->len ||
      memcmp(old->state.data, cur->state.data, cur->state.len) != 0)
    return 0;
  guint64 k = G_MAXUINT64;
  const guint32 *a = (const guint32 *)(void *)old->counters->data;
  const guint32 *b = (const guint32 *)(void *)cur->counters->data;
  guint c = 0;
  SM_FOR_SCOPE_WARPS (sm, scope, i) {
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
jump(SmGpu *sm, Detector *d, const Snapshot *old, const Snapshot *cur, guint64 n)
{
  guint64 period = cur->t - old->t, dt = n * period;
  /* the SM's: its totals' growth, into its own counts (the schedulers' stay as they are) */
  SmStats before = d->scope == SM_SCOPE_SM ? *sm_steady_totals(sm, d->owner) : *d->stats;
  sm_stats_add_scaled(d->stats, &before, &old->stats, n);
  /* nothing of global memory moves in a periodic state (sm_steady_new) */
  g_assert(before.global_loads == old->stats.global_loads &&
           before.global_stores == old->stats.global_stores &&
           before.async_copies == old->stats.async_copies);
  if (d->scope == SM_SCOPE_SM) {
    sm->stats.fast_forward_cycles += dt;
  } else {
    d->jumped += dt;
    d->until = MAX(d->until, sm->now + dt);
  }
  guint c = 0, j = 0;
  SM_FOR_SCOPE_WARPS (sm, d->scope, i) {
    SmWarp *w = &sm->warps[i];
    w->issued += n * (w->issued - g_array_index(old->issued, guint64, j++));
    for (guint e = 0; e < w->depth; e++, c++) {
      guint32 a = g_array_index(old->counters, guint32, c);
      w->loop_left[e] -= (guint32)(n * (a - w->loop_left[e]));
    }
  }
  sm_state_shift(sm, d->scope, sm->now, dt);
  if (d->scope == SM_SCOPE_SM)
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
alone_until_launch(SmGpu *sm, guint q)
{
  if (sm->next_block >= sm->grid_blocks)
    return TRUE;
  if (sm->engine.queue.n > 0)
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
try_jump(SmGpu *sm, Detector *st, const Snapshot *old, guint64 limit)
{
  guint64 n = periods(sm, st->scope, old, &st->cur);
  guint64 period = st->cur.t - old->t;
  if (n > 0 && limit != SM_NEVER)
    n = MIN(n, (limit - sm->now) / period);
  if (n == 0 || (st->scope != SM_SCOPE_SM && !alone_until_launch(sm, st->scope)))
    return FALSE; /* (the walk over the blocks only for a repeat) */
  jump(sm, st, old, &st->cur, n);
  /* the SM's jump put its counts where the schedulers' detectors do not look: they start
   * again; a scheduler's jump is the same as stepping to the SM's detector, whose states and
   * totals stay valid (it looks again once that scheduler is due) */
  if (st->scope == SM_SCOPE_SM)
    sm_steady_forget(st->owner);
  else
    forget(st);
  /* the jump moved the reference's counts: no look until it issues again (a scheduler's warps
   * now have their times n periods on, past the clock) */
  const SmWarp *ref = &sm->warps[st->ref];
  st->ref_issued = ref->issued;
  st->loop_left = ref->loop_left[st->loop_level];
  return TRUE;
}

/* A new reference: of the warps still running, the one furthest ahead (the first of them on
 * ties), so that a warp a priority keeps waiting does not set the pace of the looks; what was
 * seen before is forgotten. */
static void
choose_reference(SmGpu *sm, Detector *st)
{
  st->ref = G_MAXUINT;
  forget(st);
  SM_FOR_SCOPE_WARPS (sm, st->scope, i)
    if (sm->warps[i].exists && !sm->warps[i].done &&
        (st->ref == G_MAXUINT || sm->warps[i].issued > sm->warps[st->ref].issued))
      st->ref = i;
  if (st->ref == G_MAXUINT)
    return;
  st->ref_issued = sm->warps[st->ref].issued;
  st->loop_level = G_MAXUINT;
}

/* The reference warp @ref just ended an iteration of its outermost loop that still has a few
 * to go (an inner loop when the outer one is nearly done): the moment to look. */
static gboolean
iteration_ended(Detector *st, const SmWarp *ref)
{
  if (ref->issued == st->ref_issued)
    return FALSE;
  st->ref_issued = ref->issued;
  guint level = 0;
  while (level < ref->depth && ref->loop_left[level] <= 2)
    level++;
  if (level >= ref->depth)
    return FALSE;
  if (level != st->loop_level) {
    st->loop_level = level;
    st->loop_left = ref->loop_left[level];
    forget(st);
    return FALSE;
  }
  if (ref->loop_left[level] == st->loop_left)
    return FALSE;
  st->loop_left = ref->loop_left[level];
  st->iter++;
  return TRUE;
}

/* Takes the state now into st->cur where this iteration is one to look at; tries first the
 * state a hash said would come back.  Returns FALSE when there is nothing more to do (no look,
 * or a jump made). */
static gboolean
take_look(SmGpu *sm, Detector *st, guint64 limit)
{
  if (sm->engine.queue.n > 0 || sm->now >= limit)
    return FALSE; /* events in flight (a block launch) belong to no period */
  if (st->scope == SM_SCOPE_SM && sm_steady_until(st->owner) > sm->now)
    return FALSE; /* a scheduler jumped on alone: the SM's state is whole again when it is due */
  if (st->pending) {
    if (st->iter < st->due)
      return FALSE;
    /* the state a hash said would come back: compare it in full */
    st->pending = FALSE;
    take(sm, st, &st->cur, sm->now);
    return !try_jump(sm, st, &st->cand, limit);
  }
  if (st->wait > 0) {
    st->wait--;
    return FALSE;
  }
  take(sm, st, &st->cur, sm->now);
  return TRUE;
}

/* Compares st->cur with the states kept whole, newest first (a match jumps: TRUE), then with
 * older ones by their hashes (a match is a repeat if the hash tells the truth: this state is
 * kept to compare with the one as many iterations ahead). */
static gboolean
compare_with_seen(SmGpu *sm, Detector *st, guint64 limit)
{
  if (st->keep == 0)
    st->keep = MIN(CLAMP(KEEP_BYTES / (st->cur.state.len + 1), MIN_KEEP, MAX_KEEP), keep_at_most);
  guint whole = MIN(st->n, st->keep);
  for (guint j = 0; j < whole; j++)
    if (try_jump(sm, st, &st->snap[(st->next_whole + st->keep - 1 - j) % st->keep], limit))
      return TRUE;
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
  return FALSE;
}

/* Remembers st->cur (its hash, and whole in place of the oldest kept whole), and backs off
 * after many looks without a repeat. */
static void
remember(Detector *st)
{
  st->seen[st->next] = (Seen){st->cur.hash, st->iter};
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

static void
detector_after_step(SmGpu *sm, Detector *st, guint64 limit)
{
  SmWarp *ref = st->ref == G_MAXUINT ? NULL : &sm->warps[st->ref];
  if (ref == NULL || ref->done) {
    choose_reference(sm, st);
    return;
  }
  if (!iteration_ended(st, ref) || !take_look(sm, st, limit))
    return;
  if (compare_with_seen(sm, st, limit))
    return;
  remember(st);
}

void
sm_steady_after_step(SmGpu *sm, SmSteady *st, guint64 limit)
{
  for (guint q = 0; q < st->n; q++)
    detector_after_step(sm, &st->d[q], limit);
}
