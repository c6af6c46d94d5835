/* What the executor's files share: one instruction being executed, operand access, numbers. */
#pragma once

#include "exec.h"

#include <fenv.h>
#include <math.h>
#include <string.h>

/* the stack pointer a thread starts with (c[0x0][0x28]); local addresses below it */
#define EXEC_STACK_TOP 0x1000000u

typedef struct {
  ExecWarp *w;
  const SassInsn *insn;
  guint32 pc;
  guint32 active;  /* lanes at the instruction */
  guint32 enabled; /* lanes whose guard held */
  ExecStep *step;
  GError **error;
  gboolean failed;
  guint32 (*raw)[32]; /* when set: every operand's 32 bits per lane, read before any result is
                         written (exec_prefetch()) */
} ExecCtx;

#define EXEC_FOR_LANES(mask, l)                                                                    \
  for (guint32 l##_m = (mask), l; l##_m && ((l = (guint32)__builtin_ctz(l##_m)), 1);               \
       l##_m &= l##_m - 1)

gboolean exec_fail(ExecCtx *c, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
gboolean exec_unsupported(ExecCtx *c);

/* Whether global memory has a guard, and what it says of an access (exec_memory_set_guard();
 * TRUE without one) (memory.c). */
gboolean exec_memory_guarded(const ExecMemory *mem);
gboolean exec_memory_may(ExecMemory *mem, guint32 smid, const guint64 addr[32], guint32 lanes,
                         guint bytes, gboolean write);

/* Loads, stores, atomics, copies (access.c); FALSE when @c's op is none of them. */
gboolean exec_memory_op(ExecCtx *c);

/* Arithmetic, logic, conversions and warp-wide ops (alu.c); FALSE when @c's op is none of them
 * (c->failed says whether it failed). */
gboolean exec_alu(ExecCtx *c);

static inline float
exec_f32(guint32 u)
{
  float f;
  memcpy(&f, &u, 4);
  return f;
}

static inline guint32
exec_u32(float f)
{
  guint32 u;
  memcpy(&u, &f, 4);
  return u;
}

static inline double
exec_f64(guint64 u)
{
  double d;
  memcpy(&d, &u, 8);
  return d;
}

static inline guint64
exec_u64(double d)
{
  guint64 u;
  memcpy(&u, &d, 8);
  return u;
}

/* registers past those the code names (a pair's or quad's last ones beyond R254) read as RZ */
static inline guint32
exec_reg(const ExecWarp *w, guint r, guint l)
{
  return r >= w->n_regs ? 0 : w->r[r * 32u + l];
}

static inline void
exec_set(ExecWarp *w, guint r, guint l, guint32 v)
{
  if (r < w->n_regs)
    w->r[r * 32u + l] = v;
}

static inline void
exec_set64(ExecWarp *w, guint r, guint l, guint64 v)
{
  if (r != SASS_RZ) {
    exec_set(w, r, l, (guint32)v);
    exec_set(w, r + 1u, l, (guint32)(v >> 32));
  }
}

static inline void
exec_uset(ExecWarp *w, guint r, guint32 v)
{
  if (r != SASS_URZ)
    w->ur[r] = v;
}

static inline void
exec_pset(ExecWarp *w, const SassOperand *o, guint l, gboolean v)
{
  if (o->kind == SASS_OPD_PRED && o->reg != SASS_PT)
    w->p[o->reg] = (w->p[o->reg] & ~(1u << l)) | ((guint32)(v != 0) << l);
  else if (o->kind == SASS_OPD_UPRED && o->reg != SASS_PT)
    w->up[o->reg] = v != 0;
}

static inline gboolean
exec_pget(const ExecWarp *w, const SassOperand *o, guint l)
{
  gboolean v;
  if (o->kind == SASS_OPD_PRED)
    v = (w->p[o->reg] >> l) & 1u;
  else if (o->kind == SASS_OPD_UPRED)
    v = w->up[o->reg];
  else
    v = o->kind == SASS_OPD_IMM ? o->value != 0 : TRUE;
  return (o->flags & SASS_F_NOT) ? !v : v;
}

guint32 exec_const32(ExecCtx *c, const SassOperand *o, guint l, guint extra);

/* The 32 bits of operand @o for lane @l, no modifier applied. */
static inline __attribute__((always_inline)) guint32
exec_raw(ExecCtx *c, const SassOperand *o, guint l)
{
  if (c->raw && o >= c->insn->opd && o < c->insn->opd + c->insn->n_operands)
    return c->raw[o - c->insn->opd][l];
  switch (o->kind) {
  case SASS_OPD_REG:
    return exec_reg(c->w, o->reg, l);
  case SASS_OPD_UREG:
    return c->w->ur[o->reg];
  case SASS_OPD_IMM:
    return (guint32)o->value;
  case SASS_OPD_CONST:
    return exec_const32(c, o, l, 0);
  case SASS_OPD_PRED:
  case SASS_OPD_UPRED:
    return exec_pget(c->w, o, l);
  default:
    return 0;
  }
}

/* The 64 bits of a register pair, uniform pair, constant or immediate. */
static inline guint64
exec_raw64(ExecCtx *c, const SassOperand *o, guint l)
{
  switch (o->kind) {
  case SASS_OPD_REG:
    return o->reg == SASS_RZ
               ? 0
               : exec_reg(c->w, o->reg, l) | ((guint64)exec_reg(c->w, o->reg + 1u, l) << 32);
  case SASS_OPD_UREG:
    return o->reg == SASS_URZ ? 0 : c->w->ur[o->reg] | ((guint64)c->w->ur[o->reg + 1u] << 32);
  case SASS_OPD_CONST:
    return exec_const32(c, o, l, 0) | ((guint64)exec_const32(c, o, l, 4) << 32);
  case SASS_OPD_IMM:
    return (guint64)o->value;
  default:
    return 0;
  }
}

/* An integer operand's bits @v with its ~x and -x (@flags) applied. */
static inline guint32
exec_int_flags(guint8 flags, guint32 v)
{
  if (flags & SASS_F_NOT)
    v = ~v;
  if (flags & SASS_F_NEG)
    v = -v;
  return v;
}

/* An integer operand: ~x and -x applied. */
static inline __attribute__((always_inline)) guint32
exec_int(ExecCtx *c, const SassOperand *o, guint l)
{
  return exec_int_flags(o->flags, exec_raw(c, o, l));
}

/* A float operand's bits: |x| and -x applied. */
static inline __attribute__((always_inline)) guint32
exec_fbits(ExecCtx *c, const SassOperand *o, guint l)
{
  guint32 v = exec_raw(c, o, l);
  if (o->flags & SASS_F_ABS)
    v &= 0x7fffffffu;
  if (o->flags & SASS_F_NEG)
    v ^= 0x80000000u;
  return v;
}

/* A double operand: a pair, or an immediate written as a number. */
static inline double
exec_double(ExecCtx *c, const SassOperand *o, guint l)
{
  guint64 v;
  if (o->kind == SASS_OPD_IMM)
    v = (o->flags & SASS_F_FLOAT) ? exec_u64(o->fvalue) : (guint64)o->value << 32;
  else
    v = exec_raw64(c, o, l);
  if (o->flags & SASS_F_ABS)
    v &= ~(G_GUINT64_CONSTANT(1) << 63);
  if (o->flags & SASS_F_NEG)
    v ^= G_GUINT64_CONSTANT(1) << 63;
  return exec_f64(v);
}

/* ---- shared by alu.c, fp.c, warp.c, fast.c ---- */

static inline gboolean
exec_has(const ExecCtx *c, SassMod m)
{
  return sass_has(c->insn, m);
}

/* An integer comparison (ISETP, UISETP): the first of EQ, NE, LT, LE, GT, GE the
 * instruction's modifiers name (EXEC_CMP_NONE: none, never true), and its result. */
typedef enum {
  EXEC_CMP_EQ,
  EXEC_CMP_NE,
  EXEC_CMP_LT,
  EXEC_CMP_LE,
  EXEC_CMP_GT,
  EXEC_CMP_GE,
  EXEC_CMP_NONE
} ExecCmp;

static inline ExecCmp
exec_cmp_of(const ExecCtx *c)
{
  static const SassMod mods[] = {SASS_MOD_EQ, SASS_MOD_NE, SASS_MOD_LT,
                                 SASS_MOD_LE, SASS_MOD_GT, SASS_MOD_GE};
  guint k = 0;
  while (k < G_N_ELEMENTS(mods) && !exec_has(c, mods[k]))
    k++;
  return (ExecCmp)k;
}

static inline gboolean
exec_cmp(ExecCmp k, gint64 x, gint64 y)
{
  switch (k) {
  case EXEC_CMP_EQ:
    return x == y;
  case EXEC_CMP_NE:
    return x != y;
  case EXEC_CMP_LT:
    return x < y;
  case EXEC_CMP_LE:
    return x <= y;
  case EXEC_CMP_GT:
    return x > y;
  case EXEC_CMP_GE:
    return x >= y;
  default:
    return FALSE;
  }
}

static inline const SassOperand *
exec_opd(const ExecCtx *c, guint i)
{
  static const SassOperand rz = {.kind = SASS_OPD_REG, .reg = SASS_RZ};
  return i < c->insn->n_operands ? &c->insn->opd[i] : &rz;
}

/* writes a register or uniform register operand */
static inline void
exec_dst(ExecCtx *c, const SassOperand *o, guint l, guint32 v)
{
  if (o->kind == SASS_OPD_UREG)
    exec_uset(c->w, o->reg, v);
  else if (o->kind == SASS_OPD_REG)
    exec_set(c->w, o->reg, l, v);
}

static inline void
exec_dst64(ExecCtx *c, const SassOperand *o, guint l, guint64 v)
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

static inline guint32
exec_imnmx(gboolean is_min, gboolean is_signed, guint32 a, guint32 b)
{
  gboolean less = is_signed ? (gint32)a < (gint32)b : a < b;
  return is_min == less ? a : b;
}

static inline guint32
exec_lop3(guint32 a, guint32 b, guint32 cc, guint lut)
{
  guint32 r = 0;
  for (guint i = 0; i < 8; i++)
    if (lut & (1u << i))
      r |= ((i & 4) ? a : ~a) & ((i & 2) ? b : ~b) & ((i & 1) ? cc : ~cc);
  return r;
}

typedef enum { EXEC_F_ADD, EXEC_F_MUL, EXEC_F_FMA } ExecFOp;

/* @stmt with the rounding mode @mode in force (its operands volatile, so that it is computed
 * between the two changes of mode) */
#define EXEC_WITH_ROUNDING(mode, stmt)                                                             \
  do {                                                                                             \
    if ((mode) != FE_TONEAREST)                                                                    \
      fesetround(mode);                                                                            \
    stmt;                                                                                          \
    if ((mode) != FE_TONEAREST)                                                                    \
      fesetround(FE_TONEAREST);                                                                    \
  } while (0)

static inline guint32
exec_ftz(guint32 u)
{
  return (u & 0x7f800000u) == 0 ? u & 0x80000000u : u;
}

static inline guint32
exec_canon(float f)
{
  return isnan(f) ? 0x7fffffffu : exec_u32(f);
}

static inline guint64
exec_canon64(double d)
{
  return isnan(d) ? G_GUINT64_CONSTANT(0x7fffffffffffffff) : exec_u64(d);
}

int exec_rounding(const ExecCtx *c);
float exec_f32_op(ExecFOp op, float a, float b, float cc, int mode);
double exec_f64_op(ExecFOp op, double a, double b, double cc, int mode);
float exec_from_half(guint16 h);
guint16 exec_to_bf16(float f);
float exec_half_in(ExecCtx *c, const SassOperand *o, guint l, guint which);
guint16 exec_half_out(double d);
gboolean exec_fcompare(const ExecCtx *c, double a, double b);
double exec_rounded(const ExecCtx *c, double d);
guint32 exec_f2i(const ExecCtx *c, double d);
guint64 exec_f2i64(const ExecCtx *c, double d);
float exec_mufu(const ExecCtx *c, float x);
gboolean exec_fchk(float a, float b);
guint32 exec_fmnmx(gboolean is_min, guint32 a, guint32 b);
void exec_f2f(ExecCtx *c, guint32 lanes, gboolean to64);
void exec_shfl(ExecCtx *c);
void exec_vote(ExecCtx *c, gboolean uniform);
void exec_redux(ExecCtx *c);
void exec_match(ExecCtx *c);
/* special register @r as lane @l reads it */
guint32 exec_sreg(ExecCtx *c, SassSreg r, guint l);
void exec_prefetch(ExecCtx *c, guint32 raw[][32], const guint32 *src[]);
void exec_prefetch_copy(ExecCtx *c, guint32 raw[][32], const guint32 *src[]);
gboolean exec_fast(ExecCtx *c, SassOp op, guint32 raw[][32], const guint32 *src[]);
