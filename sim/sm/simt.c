/* Per-lane predicates, divergent branches and convergence barriers (see simt.h). */
#include "simt.h"

#include "../core/fixed.h"

static guint32
guard_lanes(const SmSimt *simt, const IsaInsn *insn)
{
  if (insn->guard == ISA_GUARD_NONE)
    return 0xffffffffu;
  if (insn->guard == ISA_GUARD_NEVER)
    return 0;
  guint32 p = simt->pred[insn->src[insn->nsrc - 1]];
  return insn->guard == ISA_GUARD_IF ? p : ~p;
}

void
sm_simt_join(SmSimt *simt, guint32 *active, guint32 pc)
{
  while (simt->n_pending > 0 && simt->pending_pc[simt->n_pending - 1] == pc)
    *active |= simt->pending_mask[--simt->n_pending];
}

void
sm_simt_step(SmSimt *simt, guint32 *active, const IsaProgram *prog, guint32 pc, guint64 *rng,
             SmSimtStep *out)
{
  const IsaInsn *insn = &prog->insns[pc];
  guint32 act = *active;
  *out = (SmSimtStep){.next_pc = pc + 1};
  switch (insn->op) {
  case ISA_OP_ISETP: {
    if (insn->dst == ISA_NO_REG)
      break;
    guint32 value = 0xffffffffu; /* a comparison of untracked data: true */
    if (insn->pattern == ISA_PRED_LANES) {
      value = insn->lanes;
    } else if (insn->pattern == ISA_PRED_CHANCE) {
      value = 0;
      for (guint32 m = act; m; m &= m - 1)
        if ((sm_rng_next(rng) >> 32) < insn->chance)
          value |= m & -m;
    }
    guint32 *p = &simt->pred[insn->dst];
    *p = (*p & ~act) | (value & act);
    break;
  }
  case ISA_OP_BRA: {
    out->branch = TRUE;
    if (!insn->labelled)
      break; /* closes a repeat body: the loop decides */
    guint32 taken = act & guard_lanes(simt, insn), fall = act & ~taken;
    if (taken == 0)
      break;
    if (fall == 0) {
      out->next_pc = insn->target;
      out->redirect = TRUE;
      break;
    }
    /* divergent: the fall-through lanes go first, the taken ones wait */
    out->divergent = TRUE;
    g_assert(simt->n_pending < G_N_ELEMENTS(simt->pending_pc));
    simt->pending_pc[simt->n_pending] = insn->target;
    simt->pending_mask[simt->n_pending++] = taken;
    *active = fall;
    break;
  }
  case ISA_OP_BSSY:
    simt->expect[insn->barrier] = act;
    simt->arrived[insn->barrier] = 0;
    out->barrier = SM_SIMT_BSSY;
    break;
  case ISA_OP_BSYNC: {
    guint b = insn->barrier;
    simt->arrived[b] |= act;
    out->barrier = SM_SIMT_BSYNC_RELEASE;
    if ((simt->arrived[b] & simt->expect[b]) == simt->expect[b]) {
      *active = simt->expect[b] | act; /* reconverged */
    } else if (simt->n_pending > 0) {
      /* the lanes wait and the warp switches to a deferred path: that costs a redirect, and
       * BSYNC's own cycles come once, when the last lanes arrive (as a SASS warp issues it) */
      out->barrier = SM_SIMT_NO_BARRIER;
      simt->n_pending--;
      out->next_pc = simt->pending_pc[simt->n_pending];
      *active = simt->pending_mask[simt->n_pending];
      out->redirect = TRUE;
    } else {
      *active = simt->arrived[b]; /* the missing lanes never come: go on without them */
    }
    break;
  }
  default:
    break;
  }
}
