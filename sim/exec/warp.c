/* Warp-wide instructions: shuffles, votes, reductions, matches (lanes reading one
 * another's values); and the special registers that say where a lane is (S2R). */
#include "exec-internal.h"

void
exec_shfl(ExecCtx *c)
{
  guint32 src[32], ok = 0;
  ExecWarp *w = c->w;
  /* SHFL.MODE Pd, Rd, a, b, c */
  const SassOperand *pd = exec_opd(c, 0), *rd = exec_opd(c, 1), *a = exec_opd(c, 2);
  for (guint l = 0; l < 32; l++)
    src[l] = exec_raw(c, a, l);
  guint32 out[32];
  EXEC_FOR_LANES(c->enabled, l)
  {
    guint32 b = exec_raw(c, exec_opd(c, 3), l) & 31u, cc = exec_raw(c, exec_opd(c, 4), l);
    guint32 cval = cc & 31u, mask = (cc >> 8) & 31u;
    guint32 max_lane = (l & mask) | (cval & ~mask), min_lane = l & mask;
    gint32 j;
    gboolean p;
    if (exec_has(c, SASS_MOD_UP)) {
      j = (gint32)l - (gint32)b;
      p = j >= (gint32)max_lane;
    } else if (exec_has(c, SASS_MOD_DOWN)) {
      j = (gint32)(l + b);
      p = j <= (gint32)max_lane;
    } else if (exec_has(c, SASS_MOD_BFLY)) {
      j = (gint32)(l ^ b);
      p = j <= (gint32)max_lane;
    } else {
      j = (gint32)(min_lane | (b & ~mask));
      p = j <= (gint32)max_lane;
    }
    if (!p)
      j = (gint32)l;
    out[l] = src[j];
    ok |= (guint32)p << l;
  }
  EXEC_FOR_LANES(c->enabled, l)
  {
    exec_set(w, rd->reg, l, out[l]);
    exec_pset(w, pd, l, (ok >> l) & 1u);
  }
}

void
exec_vote(ExecCtx *c, gboolean uniform)
{
  ExecWarp *w = c->w;
  /* VOTE.MODE Rd, Pd, Pin;  VOTEU.MODE URd?, UPd, Pin */
  guint n = c->insn->n_operands;
  const SassOperand *pin = exec_opd(c, n - 1), *pd = exec_opd(c, n - 2);
  const SassOperand *rd = n >= 3 ? exec_opd(c, 0) : NULL;
  guint32 ballot = 0;
  EXEC_FOR_LANES(c->enabled, l)
  ballot |= (guint32)exec_pget(w, pin, l) << l;
  gboolean r = exec_has(c, SASS_MOD_ALL)   ? ballot == c->enabled
               : exec_has(c, SASS_MOD_ANY) ? ballot != 0
                                           : (ballot == 0 || ballot == c->enabled);
  if (uniform) {
    exec_pset(w, pd, 0, r);
    if (rd && rd->kind == SASS_OPD_UREG)
      exec_uset(w, rd->reg, ballot);
    return;
  }
  EXEC_FOR_LANES(c->enabled, l)
  {
    exec_pset(w, pd, l, r);
    if (rd && rd->kind == SASS_OPD_REG)
      exec_set(w, rd->reg, l, ballot);
  }
}

void
exec_redux(ExecCtx *c)
{
  gboolean s = exec_has(c, SASS_MOD_S32);
  guint32 acc = 0;
  gboolean first = TRUE;
  EXEC_FOR_LANES(c->enabled, l)
  {
    guint32 v = exec_int(c, exec_opd(c, 1), l);
    if (first) {
      acc = v;
      first = FALSE;
    } else if (exec_has(c, SASS_MOD_SUM)) {
      acc += v;
    } else if (exec_has(c, SASS_MOD_MAX)) {
      acc = exec_imnmx(FALSE, s, acc, v);
    } else if (exec_has(c, SASS_MOD_MIN)) {
      acc = exec_imnmx(TRUE, s, acc, v);
    } else if (exec_has(c, SASS_MOD_AND)) {
      acc &= v;
    } else if (exec_has(c, SASS_MOD_OR)) {
      acc |= v;
    } else {
      acc ^= v;
    }
  }
  exec_dst(c, exec_opd(c, 0), 0, acc);
}

void
exec_match(ExecCtx *c)
{
  gboolean wide = exec_has(c, SASS_MOD_U64);
  guint64 v[32];
  EXEC_FOR_LANES(c->enabled, l)
  v[l] = wide ? exec_raw64(c, exec_opd(c, 1), l) : exec_raw(c, exec_opd(c, 1), l);
  guint32 out[32];
  EXEC_FOR_LANES(c->enabled, l)
  {
    guint32 m = 0;
    EXEC_FOR_LANES(c->enabled, k)
    m |= (guint32)(v[k] == v[l]) << k;
    out[l] = m;
  }
  EXEC_FOR_LANES(c->enabled, l)
  exec_dst(c, exec_opd(c, 0), l,
           exec_has(c, SASS_MOD_ALL) ? (out[l] == c->enabled ? out[l] : 0) : out[l]);
}

guint32
exec_sreg(ExecCtx *c, SassSreg r, guint l)
{
  const ExecBlock *b = c->w->block;
  guint32 tid = c->w->id * 32u + l;
  const guint32 *ntid = c->w->block->k->launch.block;
  switch (r) {
  case SASS_SR_TID_X:
    return tid % ntid[0];
  case SASS_SR_TID_Y:
    return (tid / ntid[0]) % ntid[1];
  case SASS_SR_TID_Z:
    return tid / (ntid[0] * ntid[1]);
  case SASS_SR_CTAID_X:
  case SASS_SR_CTAID_Y:
  case SASS_SR_CTAID_Z:
    return b->ctaid[r - SASS_SR_CTAID_X];
  case SASS_SR_LANEID:
    return l;
  case SASS_SR_CLOCKLO:
  case SASS_SR_GLOBALTIMERLO:
    return (guint32)c->w->clock;
  case SASS_SR_CLOCKHI:
  case SASS_SR_GLOBALTIMERHI:
    return (guint32)(c->w->clock >> 32);
  case SASS_SR_VIRTUALSMID:
  case SASS_SR_SMID:
    return c->w->smid;
  case SASS_SR_EQMASK:
    return 1u << l;
  case SASS_SR_LTMASK:
    return (1u << l) - 1u;
  case SASS_SR_LEMASK:
    return (guint32)((2ull << l) - 1u);
  case SASS_SR_GTMASK:
    return ~(guint32)((2ull << l) - 1u);
  case SASS_SR_GEMASK:
    return ~((1u << l) - 1u);
  default:
    return 0;
  }
}
