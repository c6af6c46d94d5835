/* What arithmetic, logic, conversion and warp-wide instructions compute, lane by lane.
 * Uniform ops (UIADD3, ULOP3, ...) run the same code once on uniform registers. */
#include "exec-internal.h"

#include <fenv.h>

static gboolean
has(const ExecCtx *c, SassMod m)
{
  return sass_has(c->insn, m);
}

static const SassOperand *
opd(const ExecCtx *c, guint i)
{
  static const SassOperand rz = {.kind = SASS_OPD_REG, .reg = SASS_RZ};
  return i < c->insn->n_operands ? &c->insn->opd[i] : &rz;
}

/* writes a register or uniform register operand */
static void
dst(ExecCtx *c, const SassOperand *o, guint l, guint32 v)
{
  if (o->kind == SASS_OPD_UREG)
    exec_uset(c->w, o->reg, v);
  else if (o->kind == SASS_OPD_REG)
    exec_set(c->w, o->reg, l, v);
}

static void
dst64(ExecCtx *c, const SassOperand *o, guint l, guint64 v)
{
  if (o->kind == SASS_OPD_UREG) {
    if (o->reg != SASS_URZ) {
      c->w->ur[o->reg] = (guint32)v;
      c->w->ur[o->reg + 1u] = (guint32)(v >> 32);
    }
  } else if (o->kind == SASS_OPD_REG) {
    exec_set64(c->w, o->reg, l, v);
  }
}

/* ---- numbers ---- */

static int
rounding(const ExecCtx *c)
{
  if (has(c, SASS_MOD_RZ))
    return FE_TOWARDZERO;
  if (has(c, SASS_MOD_RM))
    return FE_DOWNWARD;
  if (has(c, SASS_MOD_RP))
    return FE_UPWARD;
  return FE_TONEAREST;
}

static guint32
ftz(guint32 u)
{
  return (u & 0x7f800000u) == 0 ? u & 0x80000000u : u;
}

static guint32
canon(float f)
{
  return isnan(f) ? 0x7fffffffu : exec_u32(f);
}

static guint64
canon64(double d)
{
  return isnan(d) ? G_GUINT64_CONSTANT(0x7fffffffffffffff) : exec_u64(d);
}

typedef enum { F_ADD, F_MUL, F_FMA } FOp;

/* @stmt with the rounding mode @mode in force (its operands volatile, so that it is computed
 * between the two changes of mode) */
#define WITH_ROUNDING(mode, stmt)                                                                  \
  do {                                                                                             \
    if ((mode) != FE_TONEAREST)                                                                    \
      fesetround(mode);                                                                            \
    stmt;                                                                                          \
    if ((mode) != FE_TONEAREST)                                                                    \
      fesetround(FE_TONEAREST);                                                                    \
  } while (0)

/* a op b (op c) in float, rounded by @mode */
static float
f32_op(FOp op, float a, float b, float cc, int mode)
{
  volatile float va = a, vb = b, vc = cc, r;
  WITH_ROUNDING(mode, r = op == F_ADD ? va + vb : op == F_MUL ? va * vb : fmaf(va, vb, vc));
  return r;
}

static double
f64_op(FOp op, double a, double b, double cc, int mode)
{
  volatile double va = a, vb = b, vc = cc, r;
  WITH_ROUNDING(mode, r = op == F_ADD ? va + vb : op == F_MUL ? va * vb : fma(va, vb, vc));
  return r;
}

static float
from_half(guint16 h)
{
  guint32 sign = (guint32)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, man = h & 0x3ffu;
  if (exp == 0x1f)
    return exec_f32(sign | 0x7f800000u | (man << 13));
  if (exp == 0)
    return (sign ? -1.0f : 1.0f) * ldexpf((float)man, -24);
  return exec_f32(sign | ((exp + 112u) << 23) | (man << 13));
}

static guint16
to_bf16(float f)
{
  guint32 u = exec_u32(f);
  if (isnan(f))
    return 0x7fff;
  u += 0x7fffu + ((u >> 16) & 1u);
  return (guint16)(u >> 16);
}

/* one half of a half2 operand, with .H0_H0 / .H1_H1, |x| and -x */
static float
half_in(ExecCtx *c, const SassOperand *o, guint l, guint which)
{
  guint32 v = exec_raw(c, o, l);
  if (o->flags & SASS_F_H0)
    which = 0;
  else if (o->flags & SASS_F_H1)
    which = 1;
  guint16 h = (guint16)(which ? v >> 16 : v);
  if (o->flags & SASS_F_ABS)
    h &= 0x7fffu;
  if (o->flags & SASS_F_NEG)
    h ^= 0x8000u;
  return from_half(h);
}

static guint16
half_out(double d)
{
  if (isnan(d))
    return 0x7fff;
  /* round once: a double's value to half (values here are exact in float) */
  return sass_half_bits((float)d);
}

static gboolean
compare(const ExecCtx *c, double a, double b)
{
  gboolean un = isnan(a) || isnan(b);
  if (has(c, SASS_MOD_EQ))
    return !un && a == b;
  if (has(c, SASS_MOD_NE))
    return !un && a != b;
  if (has(c, SASS_MOD_LT))
    return !un && a < b;
  if (has(c, SASS_MOD_LE))
    return !un && a <= b;
  if (has(c, SASS_MOD_GT))
    return !un && a > b;
  if (has(c, SASS_MOD_GE))
    return !un && a >= b;
  if (has(c, SASS_MOD_EQU))
    return un || a == b;
  if (has(c, SASS_MOD_NEU))
    return un || a != b;
  if (has(c, SASS_MOD_LTU))
    return un || a < b;
  if (has(c, SASS_MOD_LEU))
    return un || a <= b;
  if (has(c, SASS_MOD_GTU))
    return un || a > b;
  if (has(c, SASS_MOD_GEU))
    return un || a >= b;
  if (has(c, SASS_MOD_NUM))
    return !un;
  if (has(c, SASS_MOD_NAN))
    return un;
  return FALSE;
}

static gboolean
icompare(const ExecCtx *c, guint32 a, guint32 b, gboolean is_signed)
{
  gint64 x = is_signed ? (gint64)(gint32)a : (gint64)a, y = is_signed ? (gint64)(gint32)b : b;
  if (has(c, SASS_MOD_EQ))
    return x == y;
  if (has(c, SASS_MOD_NE))
    return x != y;
  if (has(c, SASS_MOD_LT))
    return x < y;
  if (has(c, SASS_MOD_LE))
    return x <= y;
  if (has(c, SASS_MOD_GT))
    return x > y;
  if (has(c, SASS_MOD_GE))
    return x >= y;
  return FALSE;
}

static gboolean
combine(const ExecCtx *c, gboolean a, gboolean b)
{
  if (has(c, SASS_MOD_OR))
    return a || b;
  if (has(c, SASS_MOD_XOR))
    return a != b;
  return a && b;
}

/* SETP's two results: cmp BOOL Pc and !cmp BOOL Pc */
static void
setp(ExecCtx *c, guint l, gboolean r)
{
  gboolean pc = exec_pget(c->w, opd(c, 4), l);
  exec_pset(c->w, opd(c, 0), l, combine(c, r, pc));
  exec_pset(c->w, opd(c, 1), l, combine(c, !r, pc));
}

static guint32
lop3(guint32 a, guint32 b, guint32 cc, guint lut)
{
  guint32 r = 0;
  for (guint i = 0; i < 8; i++)
    if (lut & (1u << i))
      r |= ((i & 4) ? a : ~a) & ((i & 2) ? b : ~b) & ((i & 1) ? cc : ~cc);
  return r;
}

static guint32
shf(const ExecCtx *c, guint32 lo, guint32 s, guint32 hi)
{
  gboolean wide = has(c, SASS_MOD_U64) || has(c, SASS_MOD_S64);
  gboolean is_signed = has(c, SASS_MOD_S32) || has(c, SASS_MOD_S64);
  guint max = wide ? 64 : 32;
  if (has(c, SASS_MOD_W))
    s &= max - 1;
  else if (s > max)
    s = max;
  guint64 v = ((guint64)hi << 32) | lo, r;
  if (has(c, SASS_MOD_L))
    r = s >= 64 ? 0 : v << s;
  else if (is_signed)
    r = (guint64)((gint64)v >> (s >= 64 ? 63 : s));
  else
    r = s >= 64 ? 0 : v >> s;
  return has(c, SASS_MOD_HI) ? (guint32)(r >> 32) : (guint32)r;
}

/* @d rounded to a whole number as F2I's modifier says (nearest even by default) */
static double
rounded(const ExecCtx *c, double d)
{
  if (has(c, SASS_MOD_TRUNC))
    return trunc(d);
  if (has(c, SASS_MOD_FLOOR))
    return floor(d);
  if (has(c, SASS_MOD_CEIL))
    return ceil(d);
  return nearbyint(d);
}

/* F2I to 32 bits: saturating, NaN to 0 */
static guint32
f2i(const ExecCtx *c, double d)
{
  if (isnan(d))
    return 0;
  d = rounded(c, d);
  if (has(c, SASS_MOD_U32) || has(c, SASS_MOD_U64))
    return d <= 0 ? 0 : d >= 4294967295.0 ? 0xffffffffu : (guint32)d;
  return d <= -2147483648.0 ? 0x80000000u : d >= 2147483647.0 ? 0x7fffffffu : (guint32)(gint32)d;
}

/* F2I to 64 bits: saturating, NaN to 0 (unsigned) or the smallest integer */
static guint64
f2i64(const ExecCtx *c, double d)
{
  gboolean u = has(c, SASS_MOD_U64);
  if (isnan(d))
    return u ? 0 : G_GUINT64_CONSTANT(0x8000000000000000);
  d = rounded(c, d);
  if (u)
    return d <= 0 ? 0 : d >= 18446744073709551615.0 ? G_MAXUINT64 : (guint64)d;
  return d <= -9223372036854775808.0  ? G_GUINT64_CONSTANT(0x8000000000000000)
         : d >= 9223372036854775807.0 ? G_GUINT64_CONSTANT(0x7fffffffffffffff)
                                      : (guint64)(gint64)d;
}

static float
mufu(const ExecCtx *c, float x)
{
  x = exec_f32(ftz(exec_u32(x)));
  float r;
  if (has(c, SASS_MOD_RCP))
    r = 1.0f / x;
  else if (has(c, SASS_MOD_RSQ))
    r = (float)(1.0 / sqrt((double)x));
  else if (has(c, SASS_MOD_SQRT))
    r = sqrtf(x);
  else if (has(c, SASS_MOD_EX2))
    r = exp2f(x);
  else if (has(c, SASS_MOD_LG2))
    r = log2f(x);
  else if (has(c, SASS_MOD_SIN))
    r = (float)sin((double)x * 6.283185307179586476925);
  else if (has(c, SASS_MOD_COS))
    r = (float)cos((double)x * 6.283185307179586476925);
  else
    r = tanhf(x);
  return exec_f32(ftz(canon(r)));
}

/* FCHK: whether a / b may need the slow path (zero, infinite, NaN or denormal operands, or a
 * quotient near the ends of the exponent range).  Saying "yes" too often costs only time. */
static gboolean
fchk(float a, float b)
{
  if (!isnormal(b) || !isfinite(a))
    return TRUE;
  if (a == 0)
    return FALSE;
  int ea, eb;
  frexpf(a, &ea);
  frexpf(b, &eb);
  return !isnormal(a) || ea - eb >= 126 || ea - eb <= -125 || ea <= -125 || eb >= 126;
}

static guint32
sreg(ExecCtx *c, SassSreg r, guint l)
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
    const SassOperand *o = opd(c, i + k);
    guint32 v = exec_raw(c, o, l);
    if (o->flags & SASS_F_NOT)
      v = ~v;
    sum += (o->flags & SASS_F_NEG) ? (guint64)(guint32)~v + 1u : v;
  }
  if (has(c, SASS_MOD_X))
    for (guint k = i + 3; k < in->n_operands; k++)
      sum += exec_pget(c->w, &in->opd[k], l);
  guint carry = (guint)(sum >> 32);
  for (guint k = 0; k < outs; k++)
    exec_pset(c->w, cout[k], l, carry > k);
  dst(c, opd(c, 0), l, (guint32)sum);
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
  gboolean hi = has(c, SASS_MOD_HI);
  guint32 a = exec_int(c, opd(c, i), l), b = exec_int(c, opd(c, i + 1), l);
  guint32 hiword = 0;
  guint si = i + 2;
  if (hi && !has(c, SASS_MOD_SX32))
    hiword = exec_int(c, opd(c, si++), l);
  else if (hi)
    hiword = (a & 0x80000000u) ? 0xffffffffu : 0;
  guint s = (guint)exec_raw(c, opd(c, si), l) & 63u;
  guint32 part;
  if (hi) {
    guint64 v = ((guint64)hiword << 32) | a;
    part = (guint32)((v << s) >> 32);
  } else {
    part = (guint32)((guint64)a << s);
  }
  guint64 sum = (guint64)part + b;
  if (has(c, SASS_MOD_X) && si + 1 < in->n_operands)
    sum += exec_pget(c->w, &in->opd[si + 1], l);
  if (cout)
    exec_pset(c->w, cout, l, (sum >> 32) != 0);
  dst(c, opd(c, 0), l, (guint32)sum);
}

/* IMAD Rd, [Pcarry,] a, b, c [, Pin]: .WIDE (64-bit c and result), .HI, .X (carry in) */
static void
imad(ExecCtx *c, guint l)
{
  guint i = 1;
  const SassOperand *cout = NULL;
  if (opd(c, 1)->kind == SASS_OPD_PRED || opd(c, 1)->kind == SASS_OPD_UPRED)
    cout = opd(c, i++);
  gboolean u = has(c, SASS_MOD_U32);
  guint32 a = exec_int(c, opd(c, i), l), b = exec_int(c, opd(c, i + 1), l);
  const SassOperand *co = opd(c, i + 2);
  guint carry = has(c, SASS_MOD_X) ? exec_pget(c->w, opd(c, i + 3), l) : 0;
  guint64 prod = u ? (guint64)a * b : (guint64)((gint64)(gint32)a * (gint32)b);
  if (has(c, SASS_MOD_WIDE) || has(c, SASS_MOD_HI)) {
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
    if (has(c, SASS_MOD_WIDE))
      dst64(c, opd(c, 0), l, (guint64)sum);
    else
      dst(c, opd(c, 0), l, (guint32)((guint64)sum >> 32));
  } else {
    guint64 sum = (guint64)(guint32)prod + exec_int(c, co, l) + carry;
    if (cout)
      exec_pset(c->w, cout, l, (sum >> 32) != 0);
    dst(c, opd(c, 0), l, (guint32)sum);
  }
}

static gboolean
minmax_min(ExecCtx *c, guint l, guint i)
{
  return exec_pget(c->w, opd(c, i), l);
}

static guint32
imnmx(gboolean is_min, gboolean is_signed, guint32 a, guint32 b)
{
  gboolean less = is_signed ? (gint32)a < (gint32)b : a < b;
  return is_min == less ? a : b;
}

static guint32
fmnmx(gboolean is_min, guint32 a, guint32 b)
{
  float x = exec_f32(a), y = exec_f32(b);
  if (isnan(x) && isnan(y))
    return 0x7fffffffu;
  if (isnan(x))
    return b;
  if (isnan(y))
    return a;
  if (x == y) /* -0 < +0 */
    return is_min ? (a | b) & 0x80000000u ? (a & 0x80000000u ? a : b) : a
                  : (a & 0x80000000u ? b : a);
  return (x < y) == is_min ? a : b;
}

static inline __attribute__((always_inline)) void
alu_lane(ExecCtx *c, SassOp op, guint l)
{
  const SassOperand *d = opd(c, 0);
  switch (op) {
  case SASS_OP_MOV:
    dst(c, d, l, exec_raw(c, opd(c, 1), l));
    break;
  case SASS_OP_IMAD:
    imad(c, l);
    break;
  case SASS_OP_IADD3:
    iadd3(c, l);
    break;
  case SASS_OP_VIADD:
    dst(c, d, l, exec_int(c, opd(c, 1), l) + exec_int(c, opd(c, 2), l));
    break;
  case SASS_OP_LEA:
    lea(c, l);
    break;
  case SASS_OP_IABS: {
    gint32 v = (gint32)exec_int(c, opd(c, 1), l);
    dst(c, d, l, v < 0 ? -(guint32)v : (guint32)v);
    break;
  }
  case SASS_OP_IMNMX:
  case SASS_OP_VIMNMX:
    dst(c, d, l,
        imnmx(minmax_min(c, l, 3), !has(c, SASS_MOD_U32), exec_int(c, opd(c, 1), l),
              exec_int(c, opd(c, 2), l)));
    break;
  case SASS_OP_VIADDMNMX:
    dst(c, d, l,
        imnmx(minmax_min(c, l, 4), !has(c, SASS_MOD_U32),
              exec_int(c, opd(c, 1), l) + exec_int(c, opd(c, 2), l), exec_int(c, opd(c, 3), l)));
    break;
  case SASS_OP_LOP3: {
    guint i = (d->kind == SASS_OPD_PRED || d->kind == SASS_OPD_UPRED) ? 1 : 0;
    const SassOperand *rd = opd(c, i);
    guint32 r = lop3(exec_int(c, opd(c, i + 1), l), exec_int(c, opd(c, i + 2), l),
                     exec_int(c, opd(c, i + 3), l), (guint)exec_raw(c, opd(c, i + 4), l));
    dst(c, rd, l, r);
    if (i)
      exec_pset(c->w, d, l, r != 0);
    break;
  }
  case SASS_OP_PLOP3: {
    guint a = exec_pget(c->w, opd(c, 2), l), b = exec_pget(c->w, opd(c, 3), l),
          cc = exec_pget(c->w, opd(c, 4), l);
    guint idx = (a << 2) | (b << 1) | cc;
    exec_pset(c->w, d, l, ((guint)exec_raw(c, opd(c, 5), l) >> idx) & 1u);
    exec_pset(c->w, opd(c, 1), l, ((guint)exec_raw(c, opd(c, 6), l) >> idx) & 1u);
    break;
  }
  case SASS_OP_SHF:
    dst(c, d, l,
        shf(c, exec_int(c, opd(c, 1), l), exec_int(c, opd(c, 2), l), exec_int(c, opd(c, 3), l)));
    break;
  case SASS_OP_PRMT: {
    guint32 a = exec_int(c, opd(c, 1), l), sel = exec_int(c, opd(c, 2), l),
            b = exec_int(c, opd(c, 3), l), r = 0;
    guint64 bytes = ((guint64)b << 32) | a;
    for (guint k = 0; k < 4; k++) {
      guint n = (sel >> (4 * k)) & 0xfu;
      guint32 byte = (guint32)(bytes >> (8 * (n & 7u))) & 0xffu;
      if (n & 8u)
        byte = (byte & 0x80u) ? 0xffu : 0;
      r |= byte << (8 * k);
    }
    dst(c, d, l, r);
    break;
  }
  case SASS_OP_SEL:
  case SASS_OP_FSEL:
    dst(c, d, l,
        exec_pget(c->w, opd(c, 3), l)
            ? (op == SASS_OP_SEL ? exec_int(c, opd(c, 1), l) : exec_fbits(c, opd(c, 1), l))
            : (op == SASS_OP_SEL ? exec_int(c, opd(c, 2), l) : exec_fbits(c, opd(c, 2), l)));
    break;
  case SASS_OP_POPC:
    dst(c, d, l, (guint32)__builtin_popcount(exec_int(c, opd(c, 1), l)));
    break;
  case SASS_OP_BREV: {
    guint32 v = exec_int(c, opd(c, 1), l), r = 0;
    for (guint k = 0; k < 32; k++)
      r |= ((v >> k) & 1u) << (31 - k);
    dst(c, d, l, r);
    break;
  }
  case SASS_OP_FLO: {
    guint32 v = exec_int(c, opd(c, 1), l);
    if (!has(c, SASS_MOD_U32) && (v & 0x80000000u))
      v = ~v;
    guint32 r = v ? 31u - (guint32)__builtin_clz(v) : 0xffffffffu;
    if (has(c, SASS_MOD_SH) && v)
      r = 31u - r;
    dst(c, d, l, r);
    break;
  }
  case SASS_OP_ISETP: {
    gboolean s = !has(c, SASS_MOD_U32);
    guint32 a = exec_int(c, opd(c, 2), l), b = exec_int(c, opd(c, 3), l);
    gboolean r;
    if (has(c, SASS_MOD_EX)) {
      gboolean pin = exec_pget(c->w, opd(c, 5), l);
      if (a == b)
        r = pin;
      else if (has(c, SASS_MOD_EQ))
        r = FALSE;
      else if (has(c, SASS_MOD_NE))
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
    gboolean z = has(c, SASS_MOD_FTZ);
    guint32 a = exec_fbits(c, opd(c, 1), l), b = exec_fbits(c, opd(c, 2), l),
            cc = op == SASS_OP_FFMA ? exec_fbits(c, opd(c, 3), l) : 0;
    if (z)
      a = ftz(a), b = ftz(b), cc = ftz(cc);
    float r = f32_op(op == SASS_OP_FADD   ? F_ADD
                     : op == SASS_OP_FMUL ? F_MUL
                                          : F_FMA,
                     exec_f32(a), exec_f32(b), exec_f32(cc), rounding(c));
    if (has(c, SASS_MOD_SAT))
      r = isnan(r) ? 0.0f : r < 0.0f ? 0.0f : r > 1.0f ? 1.0f : r;
    guint32 u = canon(r);
    dst(c, d, l, z ? ftz(u) : u);
    break;
  }
  case SASS_OP_FMNMX:
    dst(c, d, l,
        fmnmx(minmax_min(c, l, 3), exec_fbits(c, opd(c, 1), l), exec_fbits(c, opd(c, 2), l)));
    break;
  case SASS_OP_FSETP: {
    guint32 a = exec_fbits(c, opd(c, 2), l), b = exec_fbits(c, opd(c, 3), l);
    if (has(c, SASS_MOD_FTZ))
      a = ftz(a), b = ftz(b);
    setp(c, l, compare(c, exec_f32(a), exec_f32(b)));
    break;
  }
  case SASS_OP_FCHK:
    exec_pset(c->w, d, l,
              fchk(exec_f32(exec_fbits(c, opd(c, 1), l)), exec_f32(exec_fbits(c, opd(c, 2), l))));
    break;
  case SASS_OP_FRND: {
    /* a float's whole number is exact in double */
    if (has(c, SASS_MOD_F64)) {
      dst64(c, d, l, canon64(rounded(c, exec_double(c, opd(c, 1), l))));
      break;
    }
    guint32 x = exec_fbits(c, opd(c, 1), l);
    if (has(c, SASS_MOD_FTZ))
      x = ftz(x);
    dst(c, d, l, canon((float)rounded(c, (double)exec_f32(x))));
    break;
  }
  case SASS_OP_MUFU: {
    const SassOperand *a = opd(c, 1);
    if (has(c, SASS_MOD_RCP64H) || has(c, SASS_MOD_RSQ64H)) {
      double x = exec_f64((guint64)exec_fbits(c, a, l) << 32);
      double r = has(c, SASS_MOD_RCP64H) ? 1.0 / x : 1.0 / sqrt(x);
      dst(c, d, l, (guint32)(canon64(r) >> 32));
      break;
    }
    float x = a->kind == SASS_OPD_IMM && (a->flags & SASS_F_FLOAT) ? exec_f32((guint32)a->value)
                                                                   : exec_f32(exec_fbits(c, a, l));
    if (a->kind == SASS_OPD_IMM && (a->flags & SASS_F_NEG))
      x = -x;
    dst(c, d, l, exec_u32(mufu(c, x)));
    break;
  }
  case SASS_OP_F2I: {
    double x = has(c, SASS_MOD_F64) ? exec_double(c, opd(c, 1), l)
                                    : (double)exec_f32(exec_fbits(c, opd(c, 1), l));
    if (has(c, SASS_MOD_FTZ) && !has(c, SASS_MOD_F64))
      x = (double)exec_f32(ftz(exec_u32((float)x)));
    if (has(c, SASS_MOD_S64) || has(c, SASS_MOD_U64))
      dst64(c, d, l, f2i64(c, x));
    else
      dst(c, d, l, f2i(c, x));
    break;
  }
  case SASS_OP_I2F:
  case SASS_OP_I2FP: {
    /* the source's type: S32 unless named; the destination F32 unless .F64 */
    const SassOperand *a = opd(c, 1);
    int mode = rounding(c);
    volatile guint64 x;
    volatile double rd;
    volatile float rf;
    gboolean u =
        has(c, SASS_MOD_U32) || has(c, SASS_MOD_U16) || has(c, SASS_MOD_U8) || has(c, SASS_MOD_U64);
    if (has(c, SASS_MOD_S64) || has(c, SASS_MOD_U64))
      x = exec_raw64(c, a, l);
    else
      x = u ? (guint64)exec_int(c, a, l) : (guint64)(gint64)(gint32)exec_int(c, a, l);
    if (has(c, SASS_MOD_F64)) {
      WITH_ROUNDING(mode, rd = u ? (double)x : (double)(gint64)x);
      dst64(c, d, l, exec_u64(rd));
    } else {
      WITH_ROUNDING(mode, rf = u ? (float)x : (float)(gint64)x);
      dst(c, d, l, exec_u32(rf));
    }
    break;
  }
  case SASS_OP_F2FP: {
    float a = exec_f32(exec_fbits(c, opd(c, 1), l)), b = exec_f32(exec_fbits(c, opd(c, 2), l));
    guint32 r = has(c, SASS_MOD_F16) ? ((guint32)sass_half_bits(a) << 16) | sass_half_bits(b)
                                     : ((guint32)to_bf16(a) << 16) | to_bf16(b);
    dst(c, d, l, r);
    break;
  }
  case SASS_OP_HADD2:
  case SASS_OP_HMUL2:
  case SASS_OP_HFMA2:
  case SASS_OP_HMNMX2: {
    guint32 r = 0;
    for (guint h = 0; h < 2; h++) {
      double a = half_in(c, opd(c, 1), l, h), b = half_in(c, opd(c, 2), l, h), v;
      if (op == SASS_OP_HADD2)
        v = a + b;
      else if (op == SASS_OP_HMUL2)
        v = a * b;
      else if (op == SASS_OP_HFMA2)
        v = a * b + half_in(c, opd(c, 3), l, h);
      else
        v = exec_f32(fmnmx(minmax_min(c, l, 3), exec_u32((float)a), exec_u32((float)b)));
      if (op == SASS_OP_HADD2 && has(c, SASS_MOD_F32)) {
        r = canon((float)v);
        break;
      }
      r |= (guint32)half_out(v) << (16 * h);
    }
    dst(c, d, l, r);
    break;
  }
  case SASS_OP_HSETP2: {
    gboolean pc = exec_pget(c->w, opd(c, 4), l);
    for (guint h = 0; h < 2; h++)
      exec_pset(
          c->w, opd(c, h), l,
          combine(c, compare(c, half_in(c, opd(c, 2), l, h), half_in(c, opd(c, 3), l, h)), pc));
    break;
  }
  case SASS_OP_DADD:
  case SASS_OP_DMUL:
  case SASS_OP_DFMA: {
    double a = exec_double(c, opd(c, 1), l), b = exec_double(c, opd(c, 2), l),
           cc = op == SASS_OP_DFMA ? exec_double(c, opd(c, 3), l) : 0;
    double r = f64_op(op == SASS_OP_DADD   ? F_ADD
                      : op == SASS_OP_DMUL ? F_MUL
                                           : F_FMA,
                      a, b, cc, rounding(c));
    dst64(c, d, l, canon64(r));
    break;
  }
  case SASS_OP_DSETP:
    setp(c, l, compare(c, exec_double(c, opd(c, 2), l), exec_double(c, opd(c, 3), l)));
    break;
  case SASS_OP_S2R:
  case SASS_OP_CS2R: {
    const SassOperand *s = opd(c, 1);
    guint32 v = s->kind == SASS_OPD_SREG ? sreg(c, (SassSreg)s->reg, l) : 0;
    if (op == SASS_OP_CS2R && !has(c, SASS_MOD_B32)) {
      guint64 v64 = s->reg == SASS_SR_CLOCKLO ? c->w->clock : v;
      dst64(c, d, l, v64);
    } else {
      dst(c, d, l, v);
    }
    break;
  }
  case SASS_OP_LDC: {
    const SassOperand *s = opd(c, 1);
    if (has(c, SASS_MOD_B64)) {
      dst64(c, d, l, exec_raw64(c, s, l));
    } else {
      guint32 v = exec_raw(c, s, l);
      if (has(c, SASS_MOD_U8))
        v &= 0xffu;
      else if (has(c, SASS_MOD_S8))
        v = (guint32)(gint32)(gint8)v;
      else if (has(c, SASS_MOD_U16))
        v &= 0xffffu;
      else if (has(c, SASS_MOD_S16))
        v = (guint32)(gint32)(gint16)v;
      dst(c, d, l, v);
    }
    break;
  }
  default:
    exec_unsupported(c);
    break;
  }
}

/* F2F.DST.SRC between F32 and F64 */
static void
f2f(ExecCtx *c, guint32 lanes, gboolean to64)
{
  int mode = rounding(c);
  EXEC_FOR_LANES(lanes, l)
  {
    if (to64) {
      double v = exec_f32(exec_fbits(c, opd(c, 1), l));
      dst64(c, opd(c, 0), l, canon64(v));
    } else {
      volatile double v = exec_double(c, opd(c, 1), l);
      volatile float r;
      WITH_ROUNDING(mode, r = (float)v);
      guint32 u = canon(r);
      dst(c, opd(c, 0), l, has(c, SASS_MOD_FTZ) ? ftz(u) : u);
    }
  }
}

/* ---- warp-wide ---- */

static void
shfl(ExecCtx *c)
{
  guint32 src[32], ok = 0;
  ExecWarp *w = c->w;
  /* SHFL.MODE Pd, Rd, a, b, c */
  const SassOperand *pd = opd(c, 0), *rd = opd(c, 1), *a = opd(c, 2);
  for (guint l = 0; l < 32; l++)
    src[l] = exec_raw(c, a, l);
  guint32 out[32];
  EXEC_FOR_LANES(c->enabled, l)
  {
    guint32 b = exec_raw(c, opd(c, 3), l) & 31u, cc = exec_raw(c, opd(c, 4), l);
    guint32 cval = cc & 31u, mask = (cc >> 8) & 31u;
    guint32 max_lane = (l & mask) | (cval & ~mask), min_lane = l & mask;
    gint32 j;
    gboolean p;
    if (has(c, SASS_MOD_UP)) {
      j = (gint32)l - (gint32)b;
      p = j >= (gint32)max_lane;
    } else if (has(c, SASS_MOD_DOWN)) {
      j = (gint32)(l + b);
      p = j <= (gint32)max_lane;
    } else if (has(c, SASS_MOD_BFLY)) {
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

static void
vote(ExecCtx *c, gboolean uniform)
{
  ExecWarp *w = c->w;
  /* VOTE.MODE Rd, Pd, Pin;  VOTEU.MODE URd?, UPd, Pin */
  guint n = c->insn->n_operands;
  const SassOperand *pin = opd(c, n - 1), *pd = opd(c, n - 2);
  const SassOperand *rd = n >= 3 ? opd(c, 0) : NULL;
  guint32 ballot = 0;
  EXEC_FOR_LANES(c->enabled, l)
  ballot |= (guint32)exec_pget(w, pin, l) << l;
  gboolean r = has(c, SASS_MOD_ALL)   ? ballot == c->enabled
               : has(c, SASS_MOD_ANY) ? ballot != 0
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

static void
redux(ExecCtx *c)
{
  gboolean s = has(c, SASS_MOD_S32);
  guint32 acc = 0;
  gboolean first = TRUE;
  EXEC_FOR_LANES(c->enabled, l)
  {
    guint32 v = exec_int(c, opd(c, 1), l);
    if (first) {
      acc = v;
      first = FALSE;
    } else if (has(c, SASS_MOD_SUM)) {
      acc += v;
    } else if (has(c, SASS_MOD_MAX)) {
      acc = imnmx(FALSE, s, acc, v);
    } else if (has(c, SASS_MOD_MIN)) {
      acc = imnmx(TRUE, s, acc, v);
    } else if (has(c, SASS_MOD_AND)) {
      acc &= v;
    } else if (has(c, SASS_MOD_OR)) {
      acc |= v;
    } else {
      acc ^= v;
    }
  }
  dst(c, opd(c, 0), 0, acc);
}

static void
match(ExecCtx *c)
{
  gboolean wide = has(c, SASS_MOD_U64);
  guint64 v[32];
  EXEC_FOR_LANES(c->enabled, l)
  v[l] = wide ? exec_raw64(c, opd(c, 1), l) : exec_raw(c, opd(c, 1), l);
  guint32 out[32];
  EXEC_FOR_LANES(c->enabled, l)
  {
    guint32 m = 0;
    EXEC_FOR_LANES(c->enabled, k)
    m |= (guint32)(v[k] == v[l]) << k;
    out[l] = m;
  }
  EXEC_FOR_LANES(c->enabled, l)
  dst(c, opd(c, 0), l, has(c, SASS_MOD_ALL) ? (out[l] == c->enabled ? out[l] : 0) : out[l]);
}

/* every operand's bits for every lane, once per instruction rather than once per lane and
 * use (the lanes' results do not feed each other: all are read before any is written) */
static void
prefetch(ExecCtx *c, guint32 raw[][32])
{
  const SassInsn *in = c->insn;
  for (guint i = 0; i < in->n_operands; i++) {
    const SassOperand *o = &in->opd[i];
    guint32 v = 0;
    switch (o->kind) {
    case SASS_OPD_REG:
      if (o->reg < c->w->n_regs) {
        memcpy(raw[i], &c->w->r[o->reg * 32u], sizeof raw[i]);
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
  c->raw = raw;
}

/* bits of a float operand for a lane, |x| and -x applied as masks */
#define FBITS(i, l) ((raw[i][l] & fand[i]) ^ fxor[i])

/* The commonest arithmetic in its plainest forms (no modifier but the op's own, registers,
 * uniform registers and immediates): lane loops over the prefetched operands.  FALSE when @c's
 * instruction is not one of them. */
static gboolean
fast(ExecCtx *c, SassOp op, guint32 raw[][32])
{
  const SassInsn *in = c->insn;
  /* the modifiers each form may have: IMAD's .MOV, .SHL, .IADD only name what it is used for,
   * and .U32 changes nothing but the high half (not computed here); LOP3 is always .LUT */
  static const SassMod imad_mods[] = {SASS_MOD_MOV, SASS_MOD_SHL, SASS_MOD_IADD, SASS_MOD_U32};
  guint64 allowed[2] = {0, 0};
  if (op == SASS_OP_IMAD)
    for (guint i = 0; i < G_N_ELEMENTS(imad_mods); i++)
      allowed[imad_mods[i] >> 6] |= G_GUINT64_CONSTANT(1) << (imad_mods[i] & 63);
  else if (op == SASS_OP_LOP3)
    allowed[SASS_MOD_LUT >> 6] |= G_GUINT64_CONSTANT(1) << (SASS_MOD_LUT & 63);
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
    EXEC_FOR_LANES(c->enabled, l)
    out[l] = canon(fmaf(exec_f32(FBITS(1, l)), exec_f32(FBITS(2, l)), exec_f32(FBITS(3, l))));
    return TRUE;
  case SASS_OP_FADD:
    EXEC_FOR_LANES(c->enabled, l)
    out[l] = canon(exec_f32(FBITS(1, l)) + exec_f32(FBITS(2, l)));
    return TRUE;
  case SASS_OP_FMUL:
    EXEC_FOR_LANES(c->enabled, l)
    out[l] = canon(exec_f32(FBITS(1, l)) * exec_f32(FBITS(2, l)));
    return TRUE;
  case SASS_OP_MOV:
    if (in->n_operands != 2 || iflags)
      return FALSE;
    EXEC_FOR_LANES(c->enabled, l)
    out[l] = raw[1][l];
    return TRUE;
  case SASS_OP_LOP3: {
    /* LOP3.LUT Rd, a, b, c, lut, !PT: no predicate result, no modified operand */
    if (in->n_operands != 6 || iflags || in->opd[4].kind != SASS_OPD_IMM)
      return FALSE;
    guint lut = (guint)in->opd[4].value & 0xffu;
    EXEC_FOR_LANES(c->enabled, l)
    out[l] = lop3(raw[1][l], raw[2][l], raw[3][l], lut);
    return TRUE;
  }
  case SASS_OP_IMAD:
    if (in->n_operands != 4 || iflags || in->opd[1].kind == SASS_OPD_PRED)
      return FALSE;
    EXEC_FOR_LANES(c->enabled, l)
    out[l] = raw[1][l] * raw[2][l] + raw[3][l];
    return TRUE;
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
        raw[i][l] = ng ? -(raw[i][l] ^ nx) : raw[i][l] ^ nx;
      }
    }
    EXEC_FOR_LANES(c->enabled, l)
    out[l] = raw[1][l] + raw[2][l] + raw[3][l];
    return TRUE;
  default:
    return FALSE;
  }
}
#undef FBITS

gboolean
exec_alu(ExecCtx *c)
{
  gboolean uniform;
  SassOp op = base_op((SassOp)c->insn->op, &uniform);
  switch (op) {
  case SASS_OP_SHFL:
    shfl(c);
    return TRUE;
  case SASS_OP_VOTE:
  case SASS_OP_VOTEU:
    vote(c, op == SASS_OP_VOTEU);
    return TRUE;
  case SASS_OP_REDUX:
    redux(c);
    return TRUE;
  case SASS_OP_MATCH:
    match(c);
    return TRUE;
  case SASS_OP_F2F:
    /* F2F.F64.F32 widens: the destination type comes first */
    f2f(c, c->enabled, sass_first_mod(c->insn, SASS_MOD_F64, SASS_MOD_F32) == SASS_MOD_F64);
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
  prefetch(c, raw);
  if (fast(c, op, raw))
    return TRUE;
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
