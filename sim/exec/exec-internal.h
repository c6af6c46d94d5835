/* What the executor's files share: one instruction being executed, operand access, numbers. */
#pragma once

#include "exec.h"

#include <math.h>
#include <string.h>

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

/* An integer operand: ~x and -x applied. */
static inline __attribute__((always_inline)) guint32
exec_int(ExecCtx *c, const SassOperand *o, guint l)
{
  guint32 v = exec_raw(c, o, l);
  if (o->flags & SASS_F_NOT)
    v = ~v;
  if (o->flags & SASS_F_NEG)
    v = -v;
  return v;
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
