/* One pass over the lanes: every operand read once per instruction, and the commonest
 * arithmetic in its plainest forms over those values. */
#include "exec-internal.h"

/* every operand's bits for every lane, once per instruction rather than once per lane and
 * use: src[i] is operand i's 32 lanes, a register's own row (read in place) or raw[i] */
void
exec_prefetch(ExecCtx *c, guint32 raw[][32], const guint32 *src[])
{
  const SassInsn *in = c->insn;
  for (guint i = 0; i < in->n_operands; i++) {
    const SassOperand *o = &in->opd[i];
    guint32 v = 0;
    src[i] = raw[i];
    switch (o->kind) {
    case SASS_OPD_REG:
      if (o->reg < c->w->n_regs) {
        src[i] = &c->w->r[o->reg * 32u];
        continue;
      }
      break;
    case SASS_OPD_UREG:
      v = c->w->ur[o->reg];
      break;
    case SASS_OPD_IMM:
      v = (guint32)o->value;
      break;
    case SASS_OPD_PRED:
    case SASS_OPD_UPRED:
      for (guint l = 0; l < 32; l++)
        raw[i][l] = exec_pget(c->w, o, l);
      continue;
    case SASS_OPD_CONST:
      if (o->reg != SASS_RZ) {
        EXEC_FOR_LANES(c->enabled, l)
        raw[i][l] = exec_const32(c, o, l, 0);
        continue;
      }
      v = c->enabled ? exec_const32(c, o, (guint)__builtin_ctz(c->enabled), 0) : 0;
      break;
    default:
      break;
    }
    for (guint l = 0; l < 32; l++)
      raw[i][l] = v;
  }
}

/* The general path reads every operand from raw (c->raw): the registers' rows are copied
 * there, since a lane's result may be written before a later lane's operands are read. */
void
exec_prefetch_copy(ExecCtx *c, guint32 raw[][32], const guint32 *src[])
{
  for (guint i = 0; i < c->insn->n_operands; i++)
    if (src[i] != raw[i])
      memcpy(raw[i], src[i], sizeof raw[i]);
  c->raw = raw;
}

/* bits of a float operand for a lane, |x| and -x applied as masks */
#define FBITS(i, l) ((src[i][l] & fand[i]) ^ fxor[i])

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SMSIM_NO_CLONES 1
#endif
#endif
/* (ThreadSanitizer's runtime is not up when the clones' resolver runs at load time) */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__SANITIZE_THREAD__) &&                   \
    !defined(SMSIM_NO_CLONES)
#include <immintrin.h>
#define SMSIM_FMA_LANES 1
/* FFMA's 32 lanes into @r, eight an instruction, on a host with AVX2 and FMA: the compiler
 * leaves fmaf() scalar under -frounding-math (the call reads the rounding mode), so the
 * instruction is written out; one rounding in the current mode, as fmaf() rounds */
__attribute__((target("avx2,fma"))) static void
ffma_lanes_fma(guint32 r[32], const guint32 *const src[], const guint32 *fand, const guint32 *fxor)
{
  __m256i and_[4], xor_[4];
  for (guint i = 1; i < 4; i++) {
    and_[i] = _mm256_set1_epi32((int)fand[i]);
    xor_[i] = _mm256_set1_epi32((int)fxor[i]);
  }
  const __m256 canon = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
  for (guint l = 0; l < 32; l += 8) {
    __m256 x[4];
    for (guint i = 1; i < 4; i++)
      x[i] = _mm256_castsi256_ps(_mm256_xor_si256(
          _mm256_and_si256(_mm256_loadu_si256((const __m256i *)(src[i] + l)), and_[i]), xor_[i]));
    __m256 f = _mm256_fmadd_ps(x[1], x[2], x[3]);
    __m256 nan = _mm256_cmp_ps(f, f, _CMP_UNORD_Q);
    _mm256_storeu_si256((__m256i *)(r + l), _mm256_castps_si256(_mm256_blendv_ps(f, canon, nan)));
  }
}
#endif

/* FFMA, FADD or FMUL (@op) over all 32 lanes at once into the @enabled ones of @out: where the
 * host has AVX2 (and FMA), eight lanes an instruction, with the same bits as fmaf() (an FMA
 * rounds once either way) */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__SANITIZE_THREAD__) &&                   \
    !defined(SMSIM_NO_CLONES)
__attribute__((target_clones("arch=x86-64-v3", "default")))
#endif
static void
float_lanes(SassOp op, guint32 *out, guint32 enabled, const guint32 *const src[],
            const guint32 *fand, const guint32 *fxor)
{
  guint32 r[32];
#ifdef SMSIM_FMA_LANES
  if (op == SASS_OP_FFMA && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    ffma_lanes_fma(r, src, fand, fxor);
  else
#endif
      if (op == SASS_OP_FFMA)
    for (guint l = 0; l < 32; l++)
      r[l] = exec_canon(fmaf(exec_f32(FBITS(1, l)), exec_f32(FBITS(2, l)), exec_f32(FBITS(3, l))));
  else if (op == SASS_OP_FADD)
    for (guint l = 0; l < 32; l++)
      r[l] = exec_canon(exec_f32(FBITS(1, l)) + exec_f32(FBITS(2, l)));
  else
    for (guint l = 0; l < 32; l++)
      r[l] = exec_canon(exec_f32(FBITS(1, l)) * exec_f32(FBITS(2, l)));
  for (guint l = 0; l < 32; l++)
    out[l] = (enabled >> l & 1) ? r[l] : out[l];
}

/* ISETP.cmp[.U32].bool Pd, Pe, a, b, Pc without .EX, into predicate registers: each lane's
 * comparison a bit of a mask, then Pd = cmp bool Pc and Pe = !cmp bool Pc for the enabled lanes
 * at once (a lane's bits are its own: reading Pc before any is written is what the lane-by-lane
 * path sees).  FALSE for any other form. */
static gboolean
isetp_lanes(ExecCtx *c, const guint32 *const src[])
{
  const SassInsn *in = c->insn;
  if (in->n_operands != 5 || exec_has(c, SASS_MOD_EX) || in->opd[0].kind != SASS_OPD_PRED ||
      in->opd[1].kind != SASS_OPD_PRED || in->opd[4].kind != SASS_OPD_PRED ||
      (in->opd[0].flags | in->opd[1].flags) & SASS_F_NOT)
    return FALSE;
  gboolean is_signed = !exec_has(c, SASS_MOD_U32);
  ExecCmp cmp = exec_cmp_of(c);
  guint8 fa = in->opd[2].flags, fb = in->opd[3].flags;
  guint32 r = 0, pc = 0;
  EXEC_FOR_LANES(c->enabled, l)
  {
    guint32 a = exec_int_flags(fa, src[2][l]), b = exec_int_flags(fb, src[3][l]);
    gint64 x = is_signed ? (gint64)(gint32)a : (gint64)a;
    gint64 y = is_signed ? (gint64)(gint32)b : (gint64)b;
    r |= (guint32)exec_cmp(cmp, x, y) << l;
    pc |= (guint32)(src[4][l] != 0) << l;
  }
  guint32 d0, d1;
  if (exec_has(c, SASS_MOD_OR))
    d0 = r | pc, d1 = ~r | pc;
  else if (exec_has(c, SASS_MOD_XOR))
    d0 = r ^ pc, d1 = ~r ^ pc;
  else
    d0 = r & pc, d1 = ~r & pc;
  guint32 *p = c->w->p, m = c->enabled;
  if (in->opd[0].reg != SASS_PT)
    p[in->opd[0].reg] = (p[in->opd[0].reg] & ~m) | (d0 & m);
  if (in->opd[1].reg != SASS_PT)
    p[in->opd[1].reg] = (p[in->opd[1].reg] & ~m) | (d1 & m);
  return TRUE;
}

/* IMAD.WIDE[.U32] Rd, a, b, c: the 64-bit a * b + c into the pair Rd, Rd+1, c a register pair
 * (or RZ) or a sign-extended immediate, no carry in or out: the address arithmetic of nearly
 * every kernel.  FALSE for any other form. */
static gboolean
imad_wide(ExecCtx *c, const guint32 *const src[])
{
  const SassInsn *in = c->insn;
  ExecWarp *w = c->w;
  guint64 mods[2] = {in->mods[0], in->mods[1]};
  static const SassMod allowed[] = {SASS_MOD_WIDE, SASS_MOD_U32};
  for (guint i = 0; i < G_N_ELEMENTS(allowed); i++)
    mods[allowed[i] >> 6] &= ~(G_GUINT64_CONSTANT(1) << (allowed[i] & 63));
  const SassOperand *d = &in->opd[0], *co = &in->opd[3];
  if ((mods[0] | mods[1]) || in->n_operands != 4 || d->kind != SASS_OPD_REG ||
      d->reg + 1u >= w->n_regs || in->opd[1].kind == SASS_OPD_PRED)
    return FALSE;
  for (guint i = 1; i < 4; i++)
    if (in->opd[i].flags & (SASS_F_NEG | SASS_F_NOT | SASS_F_ABS))
      return FALSE;
  const guint32 *chi = NULL; /* c's high word per lane; NULL: c is an immediate (or RZ) */
  if (co->kind == SASS_OPD_REG && co->reg != SASS_RZ) {
    if (co->reg + 1u >= w->n_regs)
      return FALSE;
    chi = &w->r[(co->reg + 1u) * 32u];
  } else if (co->kind != SASS_OPD_IMM && !(co->kind == SASS_OPD_REG && co->reg == SASS_RZ)) {
    return FALSE;
  }
  gboolean u = sass_has(in, SASS_MOD_U32);
  guint32 *lo = &w->r[d->reg * 32u], *hi = &w->r[(d->reg + 1u) * 32u];
  EXEC_FOR_LANES(c->enabled, l)
  {
    guint64 prod = u ? (guint64)src[1][l] * src[2][l]
                     : (guint64)((gint64)(gint32)src[1][l] * (gint32)src[2][l]);
    guint64 cc = chi ? src[3][l] | (guint64)chi[l] << 32 : (guint64)(gint64)(gint32)src[3][l];
    guint64 v = prod + cc;
    lo[l] = (guint32)v;
    hi[l] = (guint32)(v >> 32);
  }
  return TRUE;
}

/* The commonest arithmetic in its plainest forms (no modifier but the op's own, registers,
 * uniform registers and immediates): lane loops over the prefetched operands.  FALSE when @c's
 * instruction is not one of them. */
gboolean
exec_fast(ExecCtx *c, SassOp op, guint32 raw[][32], const guint32 *src[])
{
  const SassInsn *in = c->insn;
  if (op == SASS_OP_IMAD && sass_has(in, SASS_MOD_WIDE))
    return imad_wide(c, src);
  if (op == SASS_OP_ISETP)
    return isetp_lanes(c, src);
  /* the modifiers each form may have: IMAD's .MOV, .SHL, .IADD only name what it is used for,
   * and .U32 changes nothing but the high half (not computed here); LOP3 is always .LUT */
  static const SassMod imad_mods[] = {SASS_MOD_MOV, SASS_MOD_SHL, SASS_MOD_IADD, SASS_MOD_U32};
  guint64 allowed[2] = {0, 0};
  if (op == SASS_OP_IMAD)
    for (guint i = 0; i < G_N_ELEMENTS(imad_mods); i++)
      allowed[imad_mods[i] >> 6] |= G_GUINT64_CONSTANT(1) << (imad_mods[i] & 63);
  else if (op == SASS_OP_LOP3)
    allowed[SASS_MOD_LUT >> 6] |= G_GUINT64_CONSTANT(1) << (SASS_MOD_LUT & 63);
  else if (op == SASS_OP_LDC)
    allowed[SASS_MOD_B64 >> 6] |= G_GUINT64_CONSTANT(1) << (SASS_MOD_B64 & 63);
  if ((in->mods[0] & ~allowed[0]) | (in->mods[1] & ~allowed[1]) || in->n_operands < 2 ||
      in->opd[0].kind != SASS_OPD_REG)
    return FALSE;
  guint32 fand[4] = {~0u, ~0u, ~0u, ~0u}, fxor[4] = {0}, iflags = 0;
  for (guint i = 1; i < in->n_operands && i < 4; i++) {
    guint8 fl = in->opd[i].flags;
    if (fl & SASS_F_ABS)
      fand[i] = 0x7fffffffu;
    if (fl & SASS_F_NEG)
      fxor[i] = 0x80000000u;
    iflags |= fl & (SASS_F_NEG | SASS_F_NOT | SASS_F_ABS);
  }
  ExecWarp *w = c->w;
  guint d = in->opd[0].reg;
  if (d >= w->n_regs)
    return FALSE;
  guint32 *out = &w->r[d * 32u];
  switch (op) {
  case SASS_OP_FFMA:
    if (in->n_operands != 4)
      return FALSE;
    float_lanes(op, out, c->enabled, src, fand, fxor);
    return TRUE;
  case SASS_OP_FADD:
  case SASS_OP_FMUL:
    float_lanes(op, out, c->enabled, src, fand, fxor);
    return TRUE;
  case SASS_OP_LDC: {
    /* LDC[.64] Rd, c[bank][imm]: one constant for every lane, read at the first enabled lane
     * as the lane-by-lane path reads it (its low word already in src[1]) */
    const SassOperand *o = &in->opd[1];
    gboolean wide = sass_has(in, SASS_MOD_B64);
    if (in->n_operands != 2 || o->kind != SASS_OPD_CONST || o->reg != SASS_RZ || iflags ||
        (wide && d + 1u >= w->n_regs))
      return FALSE;
    guint32 hi = wide && c->enabled ? exec_const32(c, o, (guint)__builtin_ctz(c->enabled), 4) : 0;
    EXEC_FOR_LANES(c->enabled, l)
    {
      out[l] = src[1][l];
      if (wide)
        out[32 + l] = hi;
    }
    return TRUE;
  }
  case SASS_OP_MOV:
    if (in->n_operands != 2 || iflags)
      return FALSE;
    EXEC_FOR_LANES(c->enabled, l)
    out[l] = src[1][l];
    return TRUE;
  case SASS_OP_LOP3: {
    /* LOP3.LUT Rd, a, b, c, lut, !PT: no predicate result, no modified operand */
    if (in->n_operands != 6 || iflags || in->opd[4].kind != SASS_OPD_IMM)
      return FALSE;
    guint lut = (guint)in->opd[4].value & 0xffu;
    EXEC_FOR_LANES(c->enabled, l)
    out[l] = exec_lop3(src[1][l], src[2][l], src[3][l], lut);
    return TRUE;
  }
  case SASS_OP_IMAD:
    if (in->n_operands != 4 || iflags || in->opd[1].kind == SASS_OPD_PRED)
      return FALSE;
    EXEC_FOR_LANES(c->enabled, l)
    out[l] = src[1][l] * src[2][l] + src[3][l];
    return TRUE;
  case SASS_OP_LEA: {
    /* LEA Rd, a, b, shift: (a << shift) + b, no carry out, no high half */
    if (in->n_operands != 4 || iflags || in->opd[1].kind == SASS_OPD_PRED)
      return FALSE;
    EXEC_FOR_LANES(c->enabled, l)
    out[l] = (guint32)((guint64)src[1][l] << (src[3][l] & 63u)) + src[2][l];
    return TRUE;
  }
  case SASS_OP_IADD3:
    if (in->n_operands != 4 || in->opd[1].kind == SASS_OPD_PRED)
      return FALSE;
    for (guint i = 1; i < 4; i++) {
      /* -x and ~x as the general path applies them */
      guint32 nx = (in->opd[i].flags & SASS_F_NOT) ? ~0u : 0;
      guint32 ng = (in->opd[i].flags & SASS_F_NEG) ? 1u : 0;
      if (!(nx | ng))
        continue;
      EXEC_FOR_LANES(c->enabled, l)
      {
        raw[i][l] = ng ? -(src[i][l] ^ nx) : src[i][l] ^ nx; /* (not the register itself) */
      }
      src[i] = raw[i];
    }
    EXEC_FOR_LANES(c->enabled, l)
    out[l] = src[1][l] + src[2][l] + src[3][l];
    return TRUE;
  default:
    return FALSE;
  }
}
#undef FBITS
