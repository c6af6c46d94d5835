/* Floating point as the GPU computes it: rounding modes, flush-to-zero, canonical NaNs,
 * halves, comparisons, conversions, MUFU, FCHK. */
#include "exec-internal.h"

#include <fenv.h>

int
exec_rounding(const ExecCtx *c)
{
  if (exec_has(c, SASS_MOD_RZ))
    return FE_TOWARDZERO;
  if (exec_has(c, SASS_MOD_RM))
    return FE_DOWNWARD;
  if (exec_has(c, SASS_MOD_RP))
    return FE_UPWARD;
  return FE_TONEAREST;
}

/* a op b (op c) in float, rounded by @mode */
float
exec_f32_op(ExecFOp op, float a, float b, float cc, int mode)
{
  volatile float va = a, vb = b, vc = cc, r;
  EXEC_WITH_ROUNDING(mode, r = op == EXEC_F_ADD   ? va + vb
                               : op == EXEC_F_MUL ? va * vb
                                                  : fmaf(va, vb, vc));
  return r;
}

double
exec_f64_op(ExecFOp op, double a, double b, double cc, int mode)
{
  volatile double va = a, vb = b, vc = cc, r;
  EXEC_WITH_ROUNDING(mode, r = op == EXEC_F_ADD   ? va + vb
                               : op == EXEC_F_MUL ? va * vb
                                                  : fma(va, vb, vc));
  return r;
}

float
exec_from_half(guint16 h)
{
  guint32 sign = (guint32)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, man = h & 0x3ffu;
  if (exp == 0x1f)
    return exec_f32(sign | 0x7f800000u | (man << 13));
  if (exp == 0)
    return (sign ? -1.0f : 1.0f) * ldexpf((float)man, -24);
  return exec_f32(sign | ((exp + 112u) << 23) | (man << 13));
}

guint16
exec_to_bf16(float f)
{
  guint32 u = exec_u32(f);
  if (isnan(f))
    return 0x7fff;
  u += 0x7fffu + ((u >> 16) & 1u);
  return (guint16)(u >> 16);
}

/* one half of a half2 operand, with .H0_H0 / .H1_H1, |x| and -x */
float
exec_half_in(ExecCtx *c, const SassOperand *o, guint l, guint which)
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
  return exec_from_half(h);
}

guint16
exec_half_out(double d)
{
  if (isnan(d))
    return 0x7fff;
  /* round once: a double's value to half (values here are exact in float) */
  return sass_half_bits((float)d);
}

gboolean
exec_fcompare(const ExecCtx *c, double a, double b)
{
  gboolean un = isnan(a) || isnan(b);
  if (exec_has(c, SASS_MOD_EQ))
    return !un && a == b;
  if (exec_has(c, SASS_MOD_NE))
    return !un && a != b;
  if (exec_has(c, SASS_MOD_LT))
    return !un && a < b;
  if (exec_has(c, SASS_MOD_LE))
    return !un && a <= b;
  if (exec_has(c, SASS_MOD_GT))
    return !un && a > b;
  if (exec_has(c, SASS_MOD_GE))
    return !un && a >= b;
  if (exec_has(c, SASS_MOD_EQU))
    return un || a == b;
  if (exec_has(c, SASS_MOD_NEU))
    return un || a != b;
  if (exec_has(c, SASS_MOD_LTU))
    return un || a < b;
  if (exec_has(c, SASS_MOD_LEU))
    return un || a <= b;
  if (exec_has(c, SASS_MOD_GTU))
    return un || a > b;
  if (exec_has(c, SASS_MOD_GEU))
    return un || a >= b;
  if (exec_has(c, SASS_MOD_NUM))
    return !un;
  if (exec_has(c, SASS_MOD_NAN))
    return un;
  return FALSE;
}

/* @d rounded to a whole number as F2I's modifier says (nearest even by default) */
double
exec_rounded(const ExecCtx *c, double d)
{
  if (exec_has(c, SASS_MOD_TRUNC))
    return trunc(d);
  if (exec_has(c, SASS_MOD_FLOOR))
    return floor(d);
  if (exec_has(c, SASS_MOD_CEIL))
    return ceil(d);
  return nearbyint(d);
}

/* F2I to 32 bits: saturating, NaN to 0 */
guint32
exec_f2i(const ExecCtx *c, double d)
{
  if (isnan(d))
    return 0;
  d = exec_rounded(c, d);
  if (exec_has(c, SASS_MOD_U32) || exec_has(c, SASS_MOD_U64))
    return d <= 0 ? 0 : d >= 4294967295.0 ? 0xffffffffu : (guint32)d;
  return d <= -2147483648.0 ? 0x80000000u : d >= 2147483647.0 ? 0x7fffffffu : (guint32)(gint32)d;
}

/* F2I to 64 bits: saturating, NaN to 0 (unsigned) or the smallest integer */
guint64
exec_f2i64(const ExecCtx *c, double d)
{
  gboolean u = exec_has(c, SASS_MOD_U64);
  if (isnan(d))
    return u ? 0 : G_GUINT64_CONSTANT(0x8000000000000000);
  d = exec_rounded(c, d);
  if (u)
    return d <= 0 ? 0 : d >= 18446744073709551615.0 ? G_MAXUINT64 : (guint64)d;
  return d <= -9223372036854775808.0  ? G_GUINT64_CONSTANT(0x8000000000000000)
         : d >= 9223372036854775807.0 ? G_GUINT64_CONSTANT(0x7fffffffffffffff)
                                      : (guint64)(gint64)d;
}

float
exec_mufu(const ExecCtx *c, float x)
{
  x = exec_f32(exec_ftz(exec_u32(x)));
  float r;
  if (exec_has(c, SASS_MOD_RCP))
    r = 1.0f / x;
  else if (exec_has(c, SASS_MOD_RSQ))
    r = (float)(1.0 / sqrt((double)x));
  else if (exec_has(c, SASS_MOD_SQRT))
    r = sqrtf(x);
  else if (exec_has(c, SASS_MOD_EX2))
    r = exp2f(x);
  else if (exec_has(c, SASS_MOD_LG2))
    r = log2f(x);
  else if (exec_has(c, SASS_MOD_SIN))
    r = (float)sin((double)x * 6.283185307179586476925);
  else if (exec_has(c, SASS_MOD_COS))
    r = (float)cos((double)x * 6.283185307179586476925);
  else
    r = tanhf(x);
  return exec_f32(exec_ftz(exec_canon(r)));
}

/* FCHK: whether a / b may need the slow path (zero, infinite, NaN or denormal operands, or a
 * quotient near the ends of the exponent range).  Saying "yes" too often costs only time. */
gboolean
exec_fchk(float a, float b)
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

guint32
exec_fmnmx(gboolean is_min, guint32 a, guint32 b)
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

/* F2F.DST.SRC between F32 and F64 */
void
exec_f2f(ExecCtx *c, guint32 lanes, gboolean to64)
{
  int mode = exec_rounding(c);
  EXEC_FOR_LANES(lanes, l)
  {
    if (to64) {
      double v = exec_f32(exec_fbits(c, exec_opd(c, 1), l));
      exec_dst64(c, exec_opd(c, 0), l, exec_canon64(v));
    } else {
      volatile double v = exec_double(c, exec_opd(c, 1), l);
      volatile float r;
      EXEC_WITH_ROUNDING(mode, r = (float)v);
      guint32 u = exec_canon(r);
      exec_dst(c, exec_opd(c, 0), l, exec_has(c, SASS_MOD_FTZ) ? exec_ftz(u) : u);
    }
  }
}
