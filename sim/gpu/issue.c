/* Issuing one instruction: its pipe, its memory access (global transactions, shared-memory
 * bank passes, asynchronous copies), its result's readiness and write port, statistics, and
 * the warp's next instruction (loops, SIMT control flow, barriers, taken branches).  Not when
 * a warp may issue nor which one does (loop.c, scheduler.c). */
#include "machine.h"

/* A global access with a window: its lines along the warp's chase, through the caches when
 * it names no level. */
static guint64
window_access(SmGpu *sm, SmWarp *w, const SmInsnInfo *ii, guint64 t)
{
  guint64 lines[32];
  guint8 sectors[32];
  guint n = sm_window_lines(sm, ii, &w->chase, lines, sectors);
  if (ii->level == CFG_LEVEL_CACHED)
    return sm_memory_access_cached(&sm->mem, w->sm, t, n, lines, sectors, NULL,
                                   (SmCacheOp)ii->cache_op, ii->is_store,
                                   sm->trace ? &sm->outcome : NULL);
  guint bytes[32];
  for (guint i = 0; i < n; i++)
    bytes[i] = sm_popcount32(sectors[i]) * sm->mem.sector_bytes;
  sm_memory_count_issued(&sm->mem, w->sm, n, ii->is_store);
  return sm_memory_access_lines(&sm->mem, w->sm, ii->level, t, n, lines, bytes, ii->is_store);
}

void
sm_issue(SmGpu *sm, SmScheduler *s, SmWarp *w, guint64 t, guint slot)
{
  static const guint32 no_latency[ISA_UNIT_COUNT];
  if (G_UNLIKELY(w->exec)) {
    sm_sass_issue(sm, s, w, t, slot); /* the executor says what it did and what comes next */
    return;
  }
  const IsaInsn *insn = &sm->prog->insns[w->pc];
  const SmInsnInfo *ii = &sm->info[w->pc];
  if (G_UNLIKELY(ii->special == SM_SPECIAL_SIMT) && insn->op == ISA_OP_BSYNC) {
    sm_simt_join(w->simt, &w->active, w->pc); /* lanes waiting there issue it with these */
    w->n_active = sm_popcount32(w->active);
  }
  guint64 now_ticks = sm_ticks(t);
  SmStats *st = w->stats; /* its SM's counts (fast/mirror.c) */
  s->pipe_free[ii->pipe] = sm_pipe_accept(s->pipe_free[ii->pipe], now_ticks, ii->ii_ticks);
  s->busy_until = MAX(s->busy_until, t + ii->issue_cycles);
  /* the result is ready for a consumer on unit u at base + latency[u] */
  guint64 base = t;
  guint passes = 0; /* shared-memory bank passes, for a trace */
  const guint32 *latency = ii->latency;
  switch (ii->space) {
  case ISA_SPACE_GLOBAL: {
    if (G_UNLIKELY(sm->fences)) /* what a fence waits for of this access: memory.h */
      sm_memory_clear_store_record(&sm->mem);
    if (G_UNLIKELY(sm->defer)) {
      base = sm->above->defer_global(sm, w, ii, t); /* an SM on a thread: known later */
    } else if (G_UNLIKELY(ii->chase_units)) {
      base = window_access(sm, w, ii, t);
    } else {
      guint64 line = ii->random_lines ? 0 : sm_rng_next(&w->rng) >> 24;
      base = sm_memory_access(&sm->mem, w->sm, ii->level, t, ii->n_trans, ii->trans_bytes, line,
                              ii->random_lines, ii->is_store, &w->rng);
      sm_memory_count_issued(&sm->mem, w->sm, ii->n_trans, ii->is_store);
    }
    latency = no_latency;
    if (G_UNLIKELY(sm->fences) && ii->is_store && base != SM_PENDING)
      sm_fence_store(sm, w->sm, base, 0);
    sm_issue_global_counted(sm, w, ii, t, base);
    break;
  }
  case ISA_SPACE_SHARED: {
    passes = ii->passes;
    if (G_UNLIKELY(passes == 0))
      passes = sm_smem_passes(sm->smem.banks, sm->smem.bank_width, ii->smem_pattern, 1, insn->width,
                              sm->smem.half_warps, &w->rng);
    guint64 first;
    base = sm_issue_shared(sm, w, st, ii, now_ticks, passes, &first);
    break;
  }
  default:
    if (G_UNLIKELY(ii->special == SM_SPECIAL_LDGDEPBAR))
      sm_warp_close_copy_group(w);
    else if (G_UNLIKELY(ii->special == SM_SPECIAL_CLOCK))
      sm_clock_read(sm->clock, (guint)(w - sm->warps), t);
    break;
  }
  guint64 complete = base + (latency == no_latency ? 0 : ii->max_latency);
  if (G_UNLIKELY(base == SM_PENDING))
    complete = t; /* the warp's finish takes the completion when it is known */
  sm_issue_write_port(sm, s, ii, t, &base, &complete);
  if (insn->dst != ISA_NO_REG && !ii->never)
    sm_scoreboard_write(&w->sb, insn->dst, base, latency, (SmState)ii->result_state);
  w->finish = MAX(w->finish, complete);
  if (G_UNLIKELY(sm->trace))
    sm_trace_issue(sm, s, w, t, slot, complete, passes);
  sm_issue_count(w, st, ii, insn->op, t);
  /* a BRA closing a repeat body falls through on the last iteration; any other is taken */
  gboolean is_bra = insn->op == ISA_OP_BRA;
  gboolean taken =
      is_bra && !insn->labelled &&
      !(w->depth > 0 && w->pc + 1 < sm->prog->n_insns &&
        sm->prog->insns[w->pc + 1].kind == ISA_INSN_END && w->loop_left[w->depth - 1] == 1);
  st->branches += is_bra;
  guint extra = 0; /* cycles of a convergence-barrier instruction */
  if (G_UNLIKELY(ii->special == SM_SPECIAL_SIMT)) {
    SmSimtStep step;
    sm_simt_step(w->simt, &w->active, sm->prog, w->pc, &w->rng, &step);
    w->n_active = sm_popcount32(w->active);
    w->pc = step.next_pc;
    taken |= step.redirect;
    st->divergent_branches += step.divergent;
    extra = step.barrier == SM_SIMT_BSSY            ? sm->branch->bssy_cycles
            : step.barrier == SM_SIMT_BSYNC_RELEASE ? sm->branch->bsync_cycles
                                                    : 0;
    if (step.branch && insn->labelled && !taken)
      extra += sm->branch->not_taken_cycles; /* a BRA to a label that falls through */
    if (step.divergent)
      extra += sm->branch->divergent_cycles;
  } else {
    w->pc++;
  }
  sm_warp_settle(w, sm->prog, sm->limit);
  sm_warp_prepare(sm, w);
  if (G_UNLIKELY(ii->special == SM_SPECIAL_BAR) && !w->done)
    sm_blocks_arrive(sm, w, t);
  guint wait = (taken ? sm->branch->taken_cycles : 0) + extra;
  if (G_UNLIKELY(taken || extra) && !w->done && t + 1 + wait > w->deps_at) {
    w->deps_at = t + 1 + wait; /* fetching from the target, or the barrier's own cost */
    w->dep_state = SM_STATE_WAIT;
  }
}
