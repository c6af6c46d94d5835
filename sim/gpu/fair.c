/* The scheduler's fairness: see fair.h. */
#include "fair.h"

#include "machine.h"

#define SM_FAIR_BLOCKS 32 /* blocks whose warps a scheduler weighs apart */

/* The cycles in which the warp at position @p of @s issued among the last @window before @t. */
static inline guint
issued_within(const SmGpu *sm, const SmScheduler *s, guint p, guint64 t, guint window)
{
  guint64 since = t - sm_sched_warp(sm, s, p)->last_issue;
  if (since >= window)
    return 0;
  guint keep = window - (guint)since; /* bits j < keep: issues within the window */
  guint64 mask = keep >= 64 ? s->issued[p] : s->issued[p] & ((G_GUINT64_CONSTANT(1) << keep) - 1);
  return (guint)__builtin_popcountll(mask);
}

/* bench/h100/turns.cu: a warp whose 18 instructions ran without a yield waits at the next about
 * 50 cycles (Nsight's not_selected) among 7 that yield at every instruction.  Each warp is
 * weighed against the fewest of its own block's eligible warps: a block's place
 * (block_priority) stays its own (bench/h100/share.cu: the older block runs as if alone). */
guint
sm_fair_pass_over(SmGpu *sm, SmScheduler *s, guint n_el, guint64 t, guint *pos)
{
  /* the warp that kept the turn takes it or lends it (pick_turn()), whatever it issued */
  if (n_el < 2 || (s->keep != G_MAXUINT && sm_sched_warp(sm, s, s->keep)->last_issue + 1 == t))
    return 0;
  guint window = sm->cfg->sass.fair_window, margin = sm->cfg->sass.fair_margin;
  guint count[SM_FAIR_MAX], block[SM_FAIR_MAX], m = MIN(n_el, SM_FAIR_MAX);
  guint blocks[SM_FAIR_BLOCKS], fewest[SM_FAIR_BLOCKS], n_blocks = 0;
  for (guint i = 0; i < m; i++) {
    guint p = sm->eligible[i];
    count[i] = G_MAXUINT;
    if (p == SM_SCHEDULER_TAKEN)
      continue;
    const SmWarp *w = sm_sched_warp(sm, s, p);
    guint b = 0;
    while (b < n_blocks && blocks[b] != w->block)
      b++;
    if (b == n_blocks) {
      if (n_blocks == SM_FAIR_BLOCKS)
        continue; /* weighed with none (a scheduler of more blocks than that) */
      blocks[n_blocks] = w->block;
      fewest[n_blocks++] = G_MAXUINT;
    }
    count[i] = issued_within(sm, s, p, t, window);
    block[i] = b;
    fewest[b] = MIN(fewest[b], count[i]);
  }
  gboolean passed = FALSE;
  for (guint i = 0; i < m; i++) {
    pos[i] = sm->eligible[i];
    if (count[i] != G_MAXUINT && count[i] > fewest[block[i]] + margin) {
      sm->eligible[i] = SM_SCHEDULER_TAKEN; /* passed over this time */
      passed = TRUE;
    }
  }
  return passed ? m : 0;
}

void
sm_fair_note(SmScheduler *s, const SmWarp *w, guint p, guint64 t)
{
  guint64 since = t - w->last_issue;
  s->issued[p] = (since >= 64 ? 0 : s->issued[p] << since) | 1;
}
