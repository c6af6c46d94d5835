/* What integer, logic and the other per-lane instructions compute, lane by lane (floating
 * point: fp.c; warp-wide: warp.c; one-pass forms: fast.c).
 * Uniform ops (UIADD3, ULOP3, ...) run the same code once on uniform registers. */
#include "exec-internal.h"

#include <fenv.h>

static gboolean
icompare(const ExecCtx *c, guint32 a, guint32 b, gboolean is_signed)
{
  gint64 x = is_signed ? (gint64)(gint32)a : (gint64)a, y = is_signed ? (gint64)(gint32)b : b;
  return exec_cmp(exec_cmp_of(c), x, y);
}

static gboolean
combine(const ExecCtx *c, gboolean a, gboolean b)
{
  if (exec_has(c, SASS_MOD_OR))
    return a || b;
  if (exec_has(c, SASS_MOD_XOR))
    return a != b;
  return a && b;
}

/* SETP's two results: cmp BOOL Pc and !cmp BOOL Pc */
static void
setp(ExecCtx *c, guint l, gboolean r)
{
  gboolean pc = exec_pget(c->w, exec_opd(c, 4), l);
  exec_pset(c->w, exec_opd(c, 0), l, combine(c, r, pc));
  exec_pset(c->w, exec_opd(c, 1), l, combine(c, !r, pc));
}

static guint32
shf(const ExecCtx *c, guint32 lo, guint32 s, guint32 hi)
{
  gboolean wide = exec_has(c, SASS_MOD_U64) || exec_has(c, SASS_MOD_S64);
  gboolean is_signed = exec_has(c, SASS_MOD_S32) || exec_has(c, SASS_MOD_S64);
  guint max = wide ? 64 : 32;
  if (exec_has(c, SASS_MOD_W))
    s &= max - 1;
  else if (s > max)
    s = max;
  guint64 v = ((guint64)hi << 32) | lo, r;
  if (exec_has(c, SASS_MOD_L))
    r = s >= 64 ? 0 : v << s;
  else if (is_signed)
    r = (guint64)((gint64)v >> (s >= 64 ? 63 : s));
  else
    r = s >= 64 ? 0 : v >> s;
  return exec_has(c, SASS_MOD_HI) ? (guint32)(r >> 32) : (guint32)r;
}

/* ---- the ops ---- */

/* the op a uniform op computes like */
static SassOp
base_op(SassOp op, gboolean *uniform)
{
  *uniform = TRUE;
  switch (op) {
  case SASS_OP_UIADD3:
    return SASS_OP_IADD3;
  case SASS_OP_UIMAD:
    return SASS_OP_IMAD;
  case SASS_OP_ULEA:
    return SASS_OP_LEA;
  case SASS_OP_ULOP3:
    return SASS_OP_LOP3;
  case SASS_OP_USHF:
    return SASS_OP_SHF;
  case SASS_OP_UMOV:
    return SASS_OP_MOV;
  case SASS_OP_USEL:
    return SASS_OP_SEL;
  case SASS_OP_UPOPC:
    return SASS_OP_POPC;
  case SASS_OP_UFLO:
    return SASS_OP_FLO;
  case SASS_OP_UISETP:
    return SASS_OP_ISETP;
  case SASS_OP_ULDC:
    return SASS_OP_LDC;
  case SASS_OP_S2UR:
    return SASS_OP_S2R;
  default:
    *uniform = FALSE;
    return op;
  }
}

/* IADD3 / UIADD3: Rd, [Pcarry0, [Pcarry1,]] a, b, c [, Pin0, Pin1] */
static void
iadd3(ExecCtx *c, guint l)
{
  const SassInsn *in = c->insn;
  guint i = 1, outs = 0;
  const SassOperand *cout[2] = {NULL, NULL};
  while (i < in->n_operands && outs < 2 &&
         (in->opd[i].kind == SASS_OPD_PRED || in->opd[i].kind == SASS_OPD_UPRED) &&
         in->n_operands - i > 3)
    cout[outs++] = &in->opd[i++];
  guint64 sum = 0;
  for (guint k = 0; k < 3; k++) {
    const SassOperand *o = exec_opd(c, i + k);
    guint32 v = exec_raw(c, o, l);
    if (o->flags & SASS_F_NOT)
      v = ~v;
    sum += (o->flags & SASS_F_NEG) ? (guint64)(guint32)~v + 1u : v;
  }
  if (exec_has(c, SASS_MOD_X))
    for (guint k = i + 3; k < in->n_operands; k++)
      sum += exec_pget(c->w, &in->opd[k], l);
  guint carry = (guint)(sum >> 32);
  for (guint k = 0; k < outs; k++)
    exec_pset(c->w, cout[k], l, carry > k);
  exec_dst(c, exec_opd(c, 0), l, (guint32)sum);
}

/* LEA / ULEA: Rd, [Pcarry,] a, b, [c,] shift [, Pin] */
static void
lea(ExecCtx *c, guint l)
{
  const SassInsn *in = c->insn;
  guint i = 1;
  const SassOperand *cout = NULL;
  if (in->opd[1].kind == SASS_OPD_PRED || in->opd[1].kind == SASS_OPD_UPRED)
    cout = &in->opd[i++];
  gboolean hi = exec_has(c, SASS_MOD_HI);
  guint32 a = exec_int(c, exec_opd(c, i), l), b = exec_int(c, exec_opd(c, i + 1), l);
  guint32 hiword = 0;
  guint si = i + 2;
  if (hi && !exec_has(c, SASS_MOD_SX32))
    hiword = exec_int(c, exec_opd(c, si++), l);
  else if (hi)
    hiword = (a & 0x80000000u) ? 0xffffffffu : 0;
  guint s = (guint)exec_raw(c, exec_opd(c, si), l) & 63u;
  guint32 part;
  if (hi) {
    guint64 v = ((guint64)hiword << 32) | a;
    part = (guint32)((v << s) >> 32);
  } else {
    part = (guint32)((guint64)a << s);
  }
  guint64 sum = (guint64)part + b;
  if (exec_has(c, SASS_MOD_X) && si + 1 < in->n_operands)
    sum += exec_pget(c->w, &in->opd[si + 1], l);
  if (cout)
    exec_pset(c->w, cout, l, (sum >> 32) != 0);
  exec_dst(c, exec_opd(c, 0), l, (guint32)sum);
}

/* IMAD Rd, [Pcarry,] a, b, c [, Pin]: .WIDE (64-bit c and result), .HI, .X (carry in) */
static void
imad(ExecCtx *c, guint l)
{
  guint i = 1;
  const SassOperand *cout = NULL;
  if (exec_opd(c, 1)->kind == SASS_OPD_PRED || exec_opd(c, 1)->kind == SASS_OPD_UPRED)
    cout = exec_opd(c, i++);
  gboolean u = exec_has(c, SASS_MOD_U32);
  guint32 a = exec_int(c, exec_opd(c, i), l), b = exec_int(c, exec_opd(c, i + 1), l);
  const SassOperand *co = exec_opd(c, i + 2);
  guint carry = exec_has(c, SASS_MOD_X) ? exec_pget(c->w, exec_opd(c, i + 3), l) : 0;
  guint64 prod = u ? (guint64)a * b : (guint64)((gint64)(gint32)a * (gint32)b);
  if (exec_has(c, SASS_MOD_WIDE) || exec_has(c, SASS_MOD_HI)) {
    /* c is a 64-bit pair: .HI gives the high word of a * b + c (the compiler zeroes the low
     * register to add a word to the high half) */
    guint64 cc = co->kind == SASS_OPD_REG || co->kind == SASS_OPD_UREG
                     ? exec_raw64(c, co, l)
                     : (guint64)(gint64)(gint32)exec_raw(c, co, l);
    if (co->flags & SASS_F_NOT)
      cc = ~cc;
    if (co->flags & SASS_F_NEG)
      cc = -cc;
    unsigned __int128 sum = (unsigned __int128)prod + cc + carry;
    if (cout)
      exec_pset(c->w, cout, l, (guint)(sum >> 64) & 1u);
    if (exec_has(c, SASS_MOD_WIDE))
      exec_dst64(c, exec_opd(c, 0), l, (guint64)sum);
    else
      exec_dst(c, exec_opd(c, 0), l, (guint32)((guint64)sum >> 32));
  } else {
    guint64 sum = (guint64)(guint32)prod + exec_int(c, co, l) + carry;
    if (cout)
      exec_pset(c->w, cout, l, (sum >> 32) != 0);
    exec_dst(c, exec_opd(c, 0), l, (guint32)sum);
  }
}

static gboolean
minmax_min(ExecCtx *c, guint l, guint i)
{
  return exec_pget(c->w, exec_opd(c, i), l);
}

static inline __attribute__((always_inline)) void
alu_lane(ExecCtx *c, SassOp op, guint l)
{
  const SassOperand *d = exec_opd(c, 0);
  switch (op) {
  case SASS_OP_MOV:
    exec_dst(c, d, l, exec_raw(c, exec_opd(c, 1), l));
    break;
  case SASS_OP_IMAD:
    imad(c, l);
    break;
  case SASS_OP_IADD3:
    iadd3(c, l);
    break;
  case SASS_OP_VIADD:
    exec_dst(c, d, l, exec_int(c, exec_opd(c, 1), l) + exec_int(c, exec_opd(c, 2), l));
    break;
  case SASS_OP_LEA:
    lea(c, l);
    break;
  case SASS_OP_IABS: {
    gint32 v = (gint32)exec_int(c, exec_opd(c, 1), l);
    exec_dst(c, d, l, v < 0 ? -(guint32)v : (guint32)v);
    break;
  }
  case SASS_OP_IMNMX:
  case SASS_OP_VIMNMX:
    exec_dst(c, d, l,
             exec_imnmx(minmax_min(c, l, 3), !exec_has(c, SASS_MOD_U32),
                        exec_int(c, exec_opd(c, 1), l), exec_int(c, exec_opd(c, 2), l)));
    break;
  case SASS_OP_VIADDMNMX:
    exec_dst(c, d, l,
             exec_imnmx(minmax_min(c, l, 4), !exec_has(c, SASS_MOD_U32),
                        exec_int(c, exec_opd(c, 1), l) + exec_int(c, exec_opd(c, 2), l),
                        exec_int(c, exec_opd(c, 3), l)));
    break;
  case SASS_OP_LOP3: {
    guint i = (d->kind == SASS_OPD_PRED || d->kind == SASS_OPD_UPRED) ? 1 : 0;
    const SassOperand *rd = exec_opd(c, i);
    guint32 r =
        exec_lop3(exec_int(c, exec_opd(c, i + 1), l), exec_int(c, exec_opd(c, i + 2), l),
                  exec_int(c, exec_opd(c, i + 3), l), (guint)exec_raw(c, exec_opd(c, i + 4), l));
    exec_dst(c, rd, l, r);
    if (i)
      exec_pset(c->w, d, l, r != 0);
    break;
  }
  case SASS_OP_PLOP3: {
    guint a = exec_pget(c->w, exec_opd(c, 2), l), b = exec_pget(c->w, exec_opd(c, 3), l),
          cc = exec_pget(c->w, exec_opd(c, 4), l);
    guint idx = (a << 2) | (b << 1) | cc;
    exec_pset(c->w, d, l, ((guint)exec_raw(c, exec_opd(c, 5), l) >> idx) & 1u);
    exec_pset(c->w, exec_opd(c, 1), l, ((guint)exec_raw(c, exec_opd(c, 6), l) >> idx) & 1u);
    break;
  }
  case SASS_OP_SHF:
    exec_dst(c, d, l,
             shf(c, exec_int(c, exec_opd(c, 1), l), exec_int(c, exec_opd(c, 2), l),
                 exec_int(c, exec_opd(c, 3), l)));
    break;
  case SASS_OP_PRMT: {
    guint32 a = exec_int(c, exec_opd(c, 1), l), sel = exec_int(c, exec_opd(c, 2), l),
            b = exec_int(c, exec_opd(c, 3), l), r = 0;
    guint64 bytes = ((guint64)b << 32) | a;
    for (guint k = 0; k < 4; k++) {
      guint n = (sel >> (4 * k)) & 0xfu;
      guint32 byte = (guint32)(bytes >> (8 * (n & 7u))) & 0xffu;
      if (n & 8u)
        byte = (byte & 0x80u) ? 0xffu : 0;
      r |= byte << (8 * k);
    }
    exec_dst(c, d, l, r);
    break;
  }
  case SASS_OP_SEL:
  case SASS_OP_FSEL:
    exec_dst(c, d, l,
             exec_pget(c->w, exec_opd(c, 3), l)
                 ? (op == SASS_OP_SEL ? exec_int(c, exec_opd(c, 1), l)
                                      : exec_fbits(c, exec_opd(c, 1), l))
                 : (op == SASS_OP_SEL ? exec_int(c, exec_opd(c, 2), l)
                                      : exec_fbits(c, exec_opd(c, 2), l)));
    break;
  case SASS_OP_POPC:
    exec_dst(c, d, l, (guint32)__builtin_popcount(exec_int(c, exec_opd(c, 1), l)));
    break;
  case SASS_OP_BREV: {
    guint32 v = exec_int(c, exec_opd(c, 1), l), r = 0;
    for (guint k = 0; k < 32; k++)
      r |= ((v >> k) & 1u) << (31 - k);
    exec_dst(c, d, l, r);
    break;
  }
  case SASS_OP_FLO: {
    guint32 v = exec_int(c, exec_opd(c, 1), l);
    if (!exec_has(c, SASS_MOD_U32) && (v & 0x80000000u))
      v = ~v;
    guint32 r = v ? 31u - (guint32)__builtin_clz(v) : 0xffffffffu;
    if (exec_has(c, SASS_MOD_SH) && v)
      r = 31u - r;
    exec_dst(c, d, l, r);
    break;
  }
  case SASS_OP_ISETP: {
    gboolean s = !exec_has(c, SASS_MOD_U32);
    guint32 a = exec_int(c, exec_opd(c, 2), l), b = exec_int(c, exec_opd(c, 3), l);
    gboolean r;
    if (exec_has(c, SASS_MOD_EX)) {
      gboolean pin = exec_pget(c->w, exec_opd(c, 5), l);
      if (a == b)
        r = pin;
      else if (exec_has(c, SASS_MOD_EQ))
        r = FALSE;
      else if (exec_has(c, SASS_MOD_NE))
        r = TRUE;
      else
        r = icompare(c, a, b, s);
    } else {
      r = icompare(c, a, b, s);
    }
    setp(c, l, r);
    break;
  }
  case SASS_OP_FADD:
  case SASS_OP_FMUL:
  case SASS_OP_FFMA: {
    gboolean z = exec_has(c, SASS_MOD_FTZ);
    guint32 a = exec_fbits(c, exec_opd(c, 1), l), b = exec_fbits(c, exec_opd(c, 2), l),
            cc = op == SASS_OP_FFMA ? exec_fbits(c, exec_opd(c, 3), l) : 0;
    if (z)
      a = exec_ftz(a), b = exec_ftz(b), cc = exec_ftz(cc);
    float r = exec_f32_op(op == SASS_OP_FADD   ? EXEC_F_ADD
                          : op == SASS_OP_FMUL ? EXEC_F_MUL
                                               : EXEC_F_FMA,
                          exec_f32(a), exec_f32(b), exec_f32(cc), exec_rounding(c));
    if (exec_has(c, SASS_MOD_SAT))
      r = isnan(r) ? 0.0f : r < 0.0f ? 0.0f : r > 1.0f ? 1.0f : r;
    guint32 u = exec_canon(r);
    exec_dst(c, d, l, z ? exec_ftz(u) : u);
    break;
  }
  case SASS_OP_FMNMX:
    exec_dst(c, d, l,
             exec_fmnmx(minmax_min(c, l, 3), exec_fbits(c, exec_opd(c, 1), l),
                        exec_fbits(c, exec_opd(c, 2), l)));
    break;
  case SASS_OP_FSETP: {
    guint32 a = exec_fbits(c, exec_opd(c, 2), l), b = exec_fbits(c, exec_opd(c, 3), l);
    if (exec_has(c, SASS_MOD_FTZ))
      a = exec_ftz(a), b = exec_ftz(b);
    setp(c, l, exec_fcompare(c, exec_f32(a), exec_f32(b)));
    break;
  }
  case SASS_OP_FCHK:
    exec_pset(c->w, d, l,
              exec_fchk(exec_f32(exec_fbits(c, exec_opd(c, 1), l)),
                        exec_f32(exec_fbits(c, exec_opd(c, 2), l))));
    break;
  case SASS_OP_FRND: {
    /* a float's whole number is exact in double */
    if (exec_has(c, SASS_MOD_F64)) {
      exec_dst64(c, d, l, exec_canon64(exec_rounded(c, exec_double(c, exec_opd(c, 1), l))));
      break;
    }
    guint32 x = exec_fbits(c, exec_opd(c, 1), l);
    if (exec_has(c, SASS_MOD_FTZ))
      x = exec_ftz(x);
    exec_dst(c, d, l, exec_canon((float)exec_rounded(c, (double)exec_f32(x))));
    break;
  }
  case SASS_OP_MUFU: {
    const SassOperand *a = exec_opd(c, 1);
    if (exec_has(c, SASS_MOD_RCP64H) || exec_has(c, SASS_MOD_RSQ64H)) {
      double x = exec_f64((guint64)exec_fbits(c, a, l) << 32);
      double r = exec_has(c, SASS_MOD_RCP64H) ? 1.0 / x : 1.0 / sqrt(x);
      exec_dst(c, d, l, (guint32)(exec_canon64(r) >> 32));
      break;
    }
    float x = a->kind == SASS_OPD_IMM && (a->flags & SASS_F_FLOAT) ? exec_f32((guint32)a->value)
                                                                   : exec_f32(exec_fbits(c, a, l));
    if (a->kind == SASS_OPD_IMM && (a->flags & SASS_F_NEG))
      x = -x;
    exec_dst(c, d, l, exec_u32(exec_mufu(c, x)));
    break;
  }
  case SASS_OP_F2I: {
    double x = exec_has(c, SASS_MOD_F64) ? exec_double(c, exec_opd(c, 1), l)
                                         : (double)exec_f32(exec_fbits(c, exec_opd(c, 1), l));
    if (exec_has(c, SASS_MOD_FTZ) && !exec_has(c, SASS_MOD_F64))
      x = (double)exec_f32(exec_ftz(exec_u32((float)x)));
    if (exec_has(c, SASS_MOD_S64) || exec_has(c, SASS_MOD_U64))
      exec_dst64(c, d, l, exec_f2i64(c, x));
    else
      exec_dst(c, d, l, exec_f2i(c, x));
    break;
  }
  case SASS_OP_I2F:
  case SASS_OP_I2FP: {
    /* the source's type: S32 unless named; the destination F32 unless .F64 */
    const SassOperand *a = exec_opd(c, 1);
    int mode = exec_rounding(c);
    volatile guint64 x;
    volatile double rd;
    volatile float rf;
    gboolean u = exec_has(c, SASS_MOD_U32) || exec_has(c, SASS_MOD_U16) ||
                 exec_has(c, SASS_MOD_U8) || exec_has(c, SASS_MOD_U64);
    if (exec_has(c, SASS_MOD_S64) || exec_has(c, SASS_MOD_U64))
      x = exec_raw64(c, a, l);
    else
      x = u ? (guint64)exec_int(c, a, l) : (guint64)(gint64)(gint32)exec_int(c, a, l);
    if (exec_has(c, SASS_MOD_F64)) {
      EXEC_WITH_ROUNDING(mode, rd = u ? (double)x : (double)(gint64)x);
      exec_dst64(c, d, l, exec_u64(rd));
    } else {
      EXEC_WITH_ROUNDING(mode, rf = u ? (float)x : (float)(gint64)x);
      exec_dst(c, d, l, exec_u32(rf));
    }
    break;
  }
  case SASS_OP_F2FP: {
    float a = exec_f32(exec_fbits(c, exec_opd(c, 1), l)),
          b = exec_f32(exec_fbits(c, exec_opd(c, 2), l));
    guint32 r = exec_has(c, SASS_MOD_F16) ? ((guint32)sass_half_bits(a) << 16) | sass_half_bits(b)
                                          : ((guint32)exec_to_bf16(a) << 16) | exec_to_bf16(b);
    exec_dst(c, d, l, r);
    break;
  }
  case SASS_OP_HADD2:
  case SASS_OP_HMUL2:
  case SASS_OP_HFMA2:
  case SASS_OP_HMNMX2: {
    guint32 r = 0;
    for (guint h = 0; h < 2; h++) {
      double a = exec_half_in(c, exec_opd(c, 1), l, h), b = exec_half_in(c, exec_opd(c, 2), l, h),
             v;
      if (op == SASS_OP_HADD2)
        v = a + b;
      else if (op == SASS_OP_HMUL2)
        v = a * b;
      else if (op == SASS_OP_HFMA2)
        v = a * b + exec_half_in(c, exec_opd(c, 3), l, h);
      else
        v = exec_f32(exec_fmnmx(minmax_min(c, l, 3), exec_u32((float)a), exec_u32((float)b)));
      if (op == SASS_OP_HADD2 && exec_has(c, SASS_MOD_F32)) {
        r = exec_canon((float)v);
        break;
      }
      r |= (guint32)exec_half_out(v) << (16 * h);
    }
    exec_dst(c, d, l, r);
    break;
  }
  case SASS_OP_HSETP2: {
    gboolean pc = exec_pget(c->w, exec_opd(c, 4), l);
    for (guint h = 0; h < 2; h++)
      exec_pset(c->w, exec_opd(c, h), l,
                combine(c,
                        exec_fcompare(c, exec_half_in(c, exec_opd(c, 2), l, h),
                                      exec_half_in(c, exec_opd(c, 3), l, h)),
                        pc));
    break;
  }
  case SASS_OP_DADD:
  case SASS_OP_DMUL:
  case SASS_OP_DFMA: {
    double a = exec_double(c, exec_opd(c, 1), l), b = exec_double(c, exec_opd(c, 2), l),
           cc = op == SASS_OP_DFMA ? exec_double(c, exec_opd(c, 3), l) : 0;
    double r = exec_f64_op(op == SASS_OP_DADD   ? EXEC_F_ADD
                           : op == SASS_OP_DMUL ? EXEC_F_MUL
                                                : EXEC_F_FMA,
                           a, b, cc, exec_rounding(c));
    exec_dst64(c, d, l, exec_canon64(r));
    break;
  }
  case SASS_OP_DSETP:
    setp(c, l,
         exec_fcompare(c, exec_double(c, exec_opd(c, 2), l), exec_double(c, exec_opd(c, 3), l)));
    break;
  case SASS_OP_S2R:
  case SASS_OP_CS2R: {
    const SassOperand *s = exec_opd(c, 1);
    guint32 v = s->kind == SASS_OPD_SREG ? exec_sreg(c, (SassSreg)s->reg, l) : 0;
    if (op == SASS_OP_CS2R && !exec_has(c, SASS_MOD_B32)) {
      guint64 v64 = s->reg == SASS_SR_CLOCKLO ? c->w->clock : v;
      exec_dst64(c, d, l, v64);
    } else {
      exec_dst(c, d, l, v);
    }
    break;
  }
  case SASS_OP_LDC: {
    const SassOperand *s = exec_opd(c, 1);
    if (exec_has(c, SASS_MOD_B64)) {
      exec_dst64(c, d, l, exec_raw64(c, s, l));
    } else {
      guint32 v = exec_raw(c, s, l);
      if (exec_has(c, SASS_MOD_U8))
        v &= 0xffu;
      else if (exec_has(c, SASS_MOD_S8))
        v = (guint32)(gint32)(gint8)v;
      else if (exec_has(c, SASS_MOD_U16))
        v &= 0xffffu;
      else if (exec_has(c, SASS_MOD_S16))
        v = (guint32)(gint32)(gint16)v;
      exec_dst(c, d, l, v);
    }
    break;
  }
  default:
    exec_unsupported(c);
    break;
  }
}

gboolean
exec_alu(ExecCtx *c)
{
  gboolean uniform;
  SassOp op = base_op((SassOp)c->insn->op, &uniform);
  switch (op) {
  case SASS_OP_SHFL:
    exec_shfl(c);
    return TRUE;
  case SASS_OP_VOTE:
  case SASS_OP_VOTEU:
    exec_vote(c, op == SASS_OP_VOTEU);
    return TRUE;
  case SASS_OP_REDUX:
    exec_redux(c);
    return TRUE;
  case SASS_OP_MATCH:
    exec_match(c);
    return TRUE;
  case SASS_OP_F2F:
    /* F2F.F64.F32 widens: the destination type comes first */
    exec_f2f(c, c->enabled, sass_first_mod(c->insn, SASS_MOD_F64, SASS_MOD_F32) == SASS_MOD_F64);
    return TRUE;
  default:
    break;
  }
  if (uniform) {
    if (c->enabled)
      alu_lane(c, op, (guint32)__builtin_ctz(c->enabled));
    return TRUE;
  }
  guint32 raw[SASS_MAX_OPERANDS][32];
  const guint32 *src[SASS_MAX_OPERANDS];
  exec_prefetch(c, raw, src);
  if (exec_fast(c, op, raw, src))
    return TRUE;
  exec_prefetch_copy(c, raw, src);
  /* the commonest ops get a lane loop of their own, alu_lane() specialised for each */
#define HOT(o)                                                                                     \
  case SASS_OP_##o:                                                                                \
    EXEC_FOR_LANES(c->enabled, l)                                                                  \
    alu_lane(c, SASS_OP_##o, l);                                                                   \
    return TRUE;
  switch (op) {
    HOT(FFMA)
    HOT(FADD)
    HOT(FMUL)
    HOT(IMAD)
    HOT(IADD3)
    HOT(MOV)
    HOT(ISETP)
    HOT(LOP3)
    HOT(LEA)
    HOT(SHF)
  default:
    break;
  }
#undef HOT
  EXEC_FOR_LANES(c->enabled, l)
  {
    alu_lane(c, op, l);
    if (c->failed)
      return TRUE;
  }
  return TRUE;
}
