/* A view's records: what it defers and what comes back (defer.h); its state fetched ahead of a
 * window. */
#include "defer.h"

#include <string.h>

SmDefer *
sm_defer_new(guint m)
{
  SmDefer *d = g_new0(SmDefer, 1);
  for (guint s = 0; s < 2; s++) {
    d->set[s].ext_lines = g_array_new(FALSE, FALSE, sizeof(guint64));
    d->set[s].ext_sectors = g_array_new(FALSE, FALSE, sizeof(guint8));
    d->set[s].ext_partial = g_array_new(FALSE, FALSE, sizeof(guint8));
  }
  d->warps = g_array_new(FALSE, FALSE, sizeof(Ended));
  d->blocks = g_array_new(FALSE, FALSE, sizeof(Ended));
  d->launches = g_array_new(FALSE, FALSE, sizeof(Ended));
  d->due = g_array_new(FALSE, FALSE, sizeof(Ended));
  d->retired = g_array_new(FALSE, FALSE, sizeof(guint64));
  d->launch_min = SM_NEVER;
  d->m = m;
  return d;
}

void
sm_defer_free(SmDefer *d)
{
  for (guint s = 0; s < 2; s++) {
    g_free(d->set[s].recs);
    g_free(d->set[s].times);
    g_array_free(d->set[s].ext_lines, TRUE);
    g_array_free(d->set[s].ext_sectors, TRUE);
    g_array_free(d->set[s].ext_partial, TRUE);
    g_free(d->set[s].events.ev);
  }
  g_array_free(d->warps, TRUE);
  g_array_free(d->blocks, TRUE);
  g_array_free(d->launches, TRUE);
  g_array_free(d->due, TRUE);
  g_array_free(d->retired, TRUE);
  g_clear_error(&d->error);
  g_free(d);
}

guint64
sm_view_next(const SmGpu *v)
{
  guint64 next = sm_engine_next_cycle(&v->engine);
  guint first = v->defer->m * v->sched_per_sm;
  for (guint q = first; q < first + v->sched_per_sm; q++)
    next = MIN(next, v->min_wake[q]);
  return next;
}

/* A new record of @w's access at @t, its lines its own. */
static Deferred *
new_record(SmGpu *v, SmWarp *w, guint32 pc, guint64 t)
{
  SmDefer *d = v->defer;
  DeferSet *set = &d->set[d->cur];
  if (G_UNLIKELY(set->n_recs == set->cap_recs)) {
    set->cap_recs = MAX(64u, 2 * set->cap_recs);
    set->recs = g_renew(Deferred, set->recs, set->cap_recs);
    set->times = g_renew(DeferTime, set->times, set->cap_recs);
  }
  set->times[set->n_recs] = (DeferTime){t, 0};
  Deferred *r = &set->recs[set->n_recs++];
  r->t = r->l1_done = t;
  r->seq = d->seq++;
  r->warp = (guint32)(w - v->warps);
  r->pc = pc;
  r->sm = (guint16)d->m;
  r->ext = NO_EXT;
  r->level = v->info[pc].level;
  r->delay = r->tail = 0;
  return r;
}

static guint64 *
rec_lines(DeferSet *set, Deferred *r)
{
  return r->ext == NO_EXT ? r->lines : &g_array_index(set->ext_lines, guint64, r->ext);
}

static guint8 *
rec_sectors(DeferSet *set, Deferred *r)
{
  return r->ext == NO_EXT ? r->sectors : &g_array_index(set->ext_sectors, guint8, r->ext);
}

static guint8 *
rec_partial(DeferSet *set, Deferred *r)
{
  return r->ext == NO_EXT ? r->partial : &g_array_index(set->ext_partial, guint8, r->ext);
}

guint64
sm_defer_global(SmGpu *v, SmWarp *w, const SmInsnInfo *ii, guint64 t)
{
  if (ii->chase_units) { /* a window's lines, as an access over SASS names its own */
    guint64 lines[32];
    guint8 sectors[32];
    guint n = sm_window_lines(v, ii, &w->chase, lines, sectors);
    return sm_defer_lines(v, w, w->pc, t, t, 0, n, lines, sectors, NULL, ii->level, ii->cache_op);
  }
  SmDefer *d = v->defer;
  Deferred *r = new_record(v, w, w->pc, t);
  guint n = ii->n_trans;
  r->kind = DEFER_LEVEL;
  r->n = r->n_issued = (guint8)n;
  r->line_base = ii->random_lines ? 0 : sm_rng_next(&w->rng) >> 24;
  r->rng = w->rng;
  if (ii->random_lines) /* the lines it draws, from the warp's own generator */
    for (guint i = 0; i < n; i++)
      sm_rng_next(&w->rng);
  sm_memory_count_issued(&v->mem, d->m, n, ii->is_store);
  return SM_PENDING;
}

guint64
sm_defer_lines(SmGpu *v, SmWarp *w, guint32 pc, guint64 t, guint64 enter, guint64 tail, guint n,
               const guint64 *lines, const guint8 *masks, const guint8 *partial, guint level,
               guint op)
{
  SmDefer *d = v->defer;
  DeferSet *set = &d->set[d->cur];
  const SmInsnInfo *ii = &v->info[pc];
  Deferred *r = new_record(v, w, pc, t);
  r->level = (guint8)level;
  r->delay = (guint32)(enter - t);
  r->tail = (guint32)tail;
  if (n > INLINE_LINES) {
    r->ext = set->ext_lines->len;
    g_array_set_size(set->ext_lines, r->ext + n);
    g_array_set_size(set->ext_sectors, r->ext + n);
    g_array_set_size(set->ext_partial, r->ext + n);
  }
  guint64 *to_lines = rec_lines(set, r);
  guint8 *to_sectors = rec_sectors(set, r);
  if (ii->is_store) { /* all its lines go on, in order (memory.h) */
    if (partial)
      memcpy(rec_partial(set, r), partial, n);
    else
      memset(rec_partial(set, r), 0, n);
  }
  if (level == CFG_LEVEL_CACHED) {
    r->kind = DEFER_CACHED; /* the SM's own L1 now, the rest later */
    r->l1_done = enter;
    r->n = (guint8)sm_memory_l1_access(&v->mem, d->m, enter, n, lines, masks, (SmCacheOp)op,
                                       ii->is_store, NULL, &r->l1_done, to_lines, to_sectors);
  } else {
    r->kind = DEFER_LINES;
    r->n = (guint8)n;
    memcpy(to_lines, lines, n * sizeof *lines);
    memcpy(to_sectors, masks, n);
  }
  r->n_issued = (guint8)n;
  sm_memory_count_issued(&v->mem, d->m, n, ii->is_store);
  if (r->kind == DEFER_CACHED && r->n == 0) {
    guint64 done = r->l1_done + tail; /* the L1 answered it whole */
    if (r->ext != NO_EXT) {
      g_array_set_size(set->ext_lines, r->ext);
      g_array_set_size(set->ext_sectors, r->ext);
      g_array_set_size(set->ext_partial, r->ext);
    }
    set->n_recs--;
    return done;
  }
  return SM_PENDING;
}

void
sm_defer_error(SmGpu *v, guint64 t, GError *error)
{
  SmDefer *d = v->defer;
  if (d->error) {
    g_error_free(error);
    return;
  }
  d->error = error;
  d->error_t = t;
}

void
sm_defer_finished(SmGpu *v, SmWarp *w, guint64 known)
{
  Ended e = {known, (guint)(w - v->warps)};
  g_array_append_val(v->defer->warps, e);
}

void
sm_defer_retired(SmGpu *v, guint b, guint64 t)
{
  SmDefer *d = v->defer;
  Ended e = {t, b};
  g_array_append_val(d->blocks, e);
  v->blocks[b].free_at = SM_NEVER; /* not before its warps' ends are known */
  if (v->next_block < v->grid_blocks) {
    g_array_append_val(d->retired, t);
    /* its slot is free from retire + block_launch_cycles on (at least this): a launch from
     * then on may come here, and only the block scheduler, between windows, knows */
    v->run_until = MIN(v->run_until, MAX(t + 1 + v->cfg->block_launch_cycles, d->launch_min));
  }
}

guint64
sm_defer_send(SmGpu *sm, SmGpu *v, DeferSet *set, Deferred *r)
{
  SmMemory *mem = &sm->mem;
  const SmInsnInfo *ii = &sm->info[r->pc];
  guint m = r->sm;
  const guint64 *lines = rec_lines(set, r);
  const guint8 *sectors = rec_sectors(set, r);
  /* its completions are the SM's events: kept in the set for the SM's own thread (the view's
   * queue numbers them apart from its own, which changes nothing: every completion due by a
   * cycle is taken in that cycle, in any order) */
  v->defer->post.held = &set->events;
  mem->engine = &v->defer->post;
  guint64 base, at = r->t + r->delay; /* its lines reach the L1 then */
  if (r->kind == DEFER_CACHED) {
    base = sm_memory_l2_access(mem, m, at, r->n, lines, sectors,
                               ii->is_store ? rec_partial(set, r) : NULL, ii->is_store, NULL);
    base = MAX(base, r->l1_done);
  } else { /* (counted in flight at issue, by the view) */
    if (r->kind == DEFER_LEVEL) {
      guint64 rng = r->rng;
      base = sm_memory_access(mem, m, ii->level, at, r->n, ii->trans_bytes, r->line_base,
                              ii->random_lines, ii->is_store, &rng);
    } else {
      guint bytes[SM_MEMORY_MAX_LINES];
      for (guint i = 0; i < r->n; i++)
        bytes[i] = sm_popcount32(sectors[i]) * mem->sector_bytes;
      base = sm_memory_access_lines(mem, m, r->level, at, r->n, lines, bytes, ii->is_store);
    }
  }
  mem->engine = &sm->engine;
  return base + r->tail;
}

/* What sm_issue() does with record @r's completion, on view @v's thread. */
static void
complete(SmGpu *v, const Deferred *r, guint64 base)
{
  static const guint32 no_latency[ISA_UNIT_COUNT];
  const SmInsnInfo *ii = &v->info[r->pc];
  SmWarp *w = &v->warps[r->warp];
  SmScheduler *s = &v->sched[w->sched];
  guint64 complete = base;
  if (!ii->is_store)
    v->stats.global_load_latency += base - r->t;
  guint64 port_max = v->port_max;
  if (v->wb_ports && ii->writes_register && base <= port_max)
    v->defer->port_late = TRUE; /* the single loop may have ordered the two otherwise */
  sm_issue_write_port(v, s, ii, r->t, &base, &complete);
  v->port_max = port_max; /* it counts the SM's own issues only */
  const IsaInsn *insn = &v->prog->insns[r->pc];
  if (v->sass) { /* every register slot it writes (sass.c) */
    const IsaDeps *deps = &v->prog->deps[r->pc];
    for (guint k = 0; k < deps->n_dst; k++)
      sm_scoreboard_write(&w->sb, deps->dst[k], base, no_latency, (SmState)ii->result_state);
  } else if (insn->dst != ISA_NO_REG && !ii->never) {
    sm_scoreboard_write(&w->sb, insn->dst, base, no_latency, (SmState)ii->result_state);
  }
  w->finish = MAX(w->finish, complete);
  if (w->done || w->deps_at != SM_PENDING)
    return;
  /* the warp waits for it (or waited: it looks again at its wake) */
  sm_warp_prepare(v, w);
  if (w->deps_at == SM_PENDING || s->wake[w->pos] != SM_PENDING)
    return;
  /* it has not been looked at since it found the register pending: it wakes as the single
   * loop's look found it, waiting for this completion (the last of its operands) */
  s->wake[w->pos] = w->deps_at;
  v->min_wake[w->sched] = MIN(v->min_wake[w->sched], w->deps_at);
  w->state = w->dep_state;
}

/* The entries of @ended from before @bound into @due, in their order (which run-ahead may leave
 * out of cycle order); @ended keeps the others. */
static void
take_due(GArray *ended, guint64 bound, GArray *due)
{
  g_array_set_size(due, 0);
  guint kept = 0;
  for (guint k = 0; k < ended->len; k++) {
    Ended e = g_array_index(ended, Ended, k);
    if (e.t < bound)
      g_array_append_val(due, e);
    else
      g_array_index(ended, Ended, kept++) = e;
  }
  g_array_set_size(ended, kept);
}

/* (sm_defer_catch_up) On view @v's thread: its accesses' completions, then the ends of its warps
 * and blocks that waited for them (those that ended before the bound), its slots free again. */
void
sm_defer_catch_up(SmGpu *v)
{
  SmDefer *d = v->defer;
  DeferSet *set = &d->set[d->cur];
  sm_engine_take_held(&v->engine, &set->events);
  for (guint k = 0; k < set->n_sent; k++)
    complete(v, &set->recs[k], set->times[k].base);
  if (set->n_sent > 0) { /* (none yet: no array either) */
    set->n_recs -= set->n_sent;
    memmove(set->recs, set->recs + set->n_sent, set->n_recs * sizeof *set->recs);
    memmove(set->times, set->times + set->n_sent, set->n_recs * sizeof *set->times);
    set->n_sent = 0;
  }
  /* the lines kept apart for the records left (the latest) move to the front */
  guint first = set->ext_lines->len;
  for (guint k = 0; k < set->n_recs && first == set->ext_lines->len; k++)
    if (set->recs[k].ext != NO_EXT)
      first = set->recs[k].ext;
  if (first > 0) {
    g_array_remove_range(set->ext_lines, 0, first);
    g_array_remove_range(set->ext_sectors, 0, first);
    g_array_remove_range(set->ext_partial, 0, first);
    for (guint k = 0; k < set->n_recs; k++)
      if (set->recs[k].ext != NO_EXT)
        set->recs[k].ext -= first;
  }
  take_due(d->warps, d->bound, d->due);
  for (guint k = 0; k < d->due->len; k++) {
    SmWarp *w = &v->warps[g_array_index(d->due, Ended, k).index];
    guint64 end = MAX(w->finish, w->last_issue + 1);
    w->stats->resident_warp_cycles += end - w->launched;
    sm_warp_drained(v, w, end);
    SmBlock *blk = &v->blocks[w->block];
    blk->retire = MAX(blk->retire, end);
  }
  take_due(d->blocks, d->bound, d->due);
  for (guint k = 0; k < d->due->len; k++) {
    guint b = g_array_index(d->due, Ended, k).index;
    SmBlock *blk = &v->blocks[b];
    v->end_cycle = MAX(v->end_cycle, blk->retire);
    blk->free_at = blk->retire + v->cfg->block_launch_cycles;
    Ended l = {blk->free_at, b};
    g_array_append_val(d->launches, l);
  }
  v->now = MIN(v->now, sm_view_next(v));
}

/* @bytes from @p asked into the host's caches, a line at a time */
static inline void
prefetch_bytes(const void *p, gsize bytes)
{
  for (gsize b = 0; b < bytes; b += 64)
    __builtin_prefetch((const guint8 *)p + b);
}

/* The state a view's warps read when they issue over SASS (their slots, scoreboards, lanes'
 * registers and block's shared memory) asked into the host's caches before its window: the
 * views take turns on a thread, and each finds its SM's state evicted by the others'. */
void
sm_view_prefetch(SmGpu *view)
{
  guint m = view->sim_sms[0];
  gsize sb_bytes = (gsize)MAX(view->prog->n_regs, 1u) * ISA_UNIT_COUNT * sizeof(guint64);
  for (guint l = 0; l < view->warps_per_sm; l++) {
    const SmWarp *w = &view->mp[m].warps[l];
    prefetch_bytes(w, sizeof *w);
    /* a warp whose operands are not ready before the window's end (or wait on accesses not
     * yet resolved: SM_PENDING) issues nothing in it */
    if (!w->exists || w->done || !w->exec || w->deps_at >= view->run_until)
      continue;
    prefetch_bytes(w->sb.ready, sb_bytes);
    prefetch_bytes(w->exec, sizeof *w->exec);
    prefetch_bytes(w->exec->r, (gsize)w->exec->n_regs * 32u * sizeof(guint32));
    if (w->exec->id == 0)
      prefetch_bytes(w->exec->block->shared,
                     EXEC_SHARED_RESERVED + w->exec->block->k->launch.shared_bytes);
  }
}
