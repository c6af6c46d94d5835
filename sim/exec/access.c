/* Memory instructions: the address each lane names, where it lands (a buffer of the global
 * image, the block's shared memory, the thread's local memory) or why it lands nowhere, and
 * loads, stores, atomics and asynchronous copies. */
#include "exec-internal.h"

/* the address an operand [...] names for lane @l in @space */
static guint64
address(ExecCtx *c, const SassOperand *o, guint l, ExecSpace space)
{
  guint64 a = (guint64)o->value;
  if (o->reg != SASS_RZ) {
    a += exec_reg(c->w, o->reg, l);
    if (o->flags & SASS_F_WIDE)
      a += (guint64)exec_reg(c->w, o->reg + 1u, l) << 32;
  }
  if (o->ureg != SASS_URZ) {
    a += c->w->ur[o->ureg];
    if (space == EXEC_SPACE_GLOBAL)
      a += (guint64)c->w->ur[o->ureg + 1u] << 32;
  }
  return space == EXEC_SPACE_GLOBAL ? a : (guint32)a;
}

/* host bytes for an access of @len bytes at @addr, or NULL after reporting it */
static guint8 *
locate(ExecCtx *c, ExecSpace space, guint64 addr, guint len, guint l)
{
  ExecWarp *w = c->w;
  const ExecLaunch *L = &w->block->k->launch;
  guint8 *p = NULL;
  const char *what = "global";
  if (addr % len != 0) {
    exec_fail(c, "misaligned %u-byte access at 0x%" G_GINT64_MODIFIER "x by lane %u", len, addr, l);
    return NULL;
  }
  switch (space) {
  case EXEC_SPACE_GLOBAL:
    p = exec_memory_at(w->block->k->mem, addr, len);
    break;
  case EXEC_SPACE_SHARED:
    what = "shared";
    addr &= 0xffffffu; /* the cluster's block id (SR_CgaCtaId) above: 0 here */
    if (addr >= EXEC_SHARED_RESERVED && addr + len <= EXEC_SHARED_RESERVED + L->shared_bytes)
      p = w->block->shared + addr;
    break;
  case EXEC_SPACE_LOCAL: {
    what = "local";
    guint64 base = EXEC_STACK_TOP - (guint64)L->local_bytes;
    if (addr >= base && addr + len <= EXEC_STACK_TOP)
      p = w->local + (gsize)l * L->local_bytes + (addr - base);
    break;
  }
  default:
    break;
  }
  if (!p)
    exec_fail(c, "%s address 0x%" G_GINT64_MODIFIER "x (%u bytes) by lane %u is outside %s", what,
              addr, len, l,
              space == EXEC_SPACE_GLOBAL   ? "every buffer"
              : space == EXEC_SPACE_SHARED ? "the block's shared memory"
                                           : "the thread's local memory");
  return p;
}

static guint32
load_word(const guint8 *p, guint bytes, const SassInsn *in)
{
  if (bytes == 1)
    return sass_has(in, SASS_MOD_S8) ? (guint32)(gint32)(gint8)p[0] : p[0];
  if (bytes == 2) {
    guint16 h;
    memcpy(&h, p, 2);
    return sass_has(in, SASS_MOD_S16) ? (guint32)(gint32)(gint16)h : h;
  }
  guint32 v;
  memcpy(&v, p, 4);
  return v;
}

/* lane @l's access of @bytes at operand @addr_opd: recorded for the timing, checked, located */
static guint8 *
lane_access(ExecCtx *c, const SassOperand *addr_opd, guint l, ExecSpace space, guint bytes)
{
  guint64 a = address(c, addr_opd, l, space);
  c->step->addr[l] = a;
  return locate(c, space, a, bytes, l);
}

/* Every enabled lane's access of @bytes (4, 8 or 16) at operand @o, when all lie
 * in one place, aligned: the block's shared memory, or one global buffer.  Records the
 * addresses for the timing and returns the host bytes of the place's first byte, at address
 * *@start; the lanes' addresses in @addr.  NULL (nothing recorded) otherwise, and for local
 * memory (each lane has its own): the lane-by-lane path then says what is wrong. */
/* Every lane's address, @a0 plus its register (@r; @r_hi: the high words of a register pair;
 * NULL @r: none) within @keep, into @addr; with @lo, also the lowest and highest of all 32 and
 * their bits or'ed together.  Straight loops over all lanes, vectorised where the host has
 * AVX2 or AVX-512 (64-bit minima and maxima). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__SANITIZE_THREAD__) &&                   \
    !defined(SMSIM_NO_CLONES)
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#endif
static void
lanes_addresses(guint64 a0, guint64 keep, const guint32 *r, const guint32 *r_hi, guint64 addr[32],
                guint64 *lo, guint64 *hi, guint64 *bits)
{
  if (r == NULL) {
    for (guint l = 0; l < 32; l++)
      addr[l] = a0 & keep;
  } else if (r_hi) {
    for (guint l = 0; l < 32; l++)
      addr[l] = (a0 + (r[l] | (guint64)r_hi[l] << 32)) & keep;
  } else {
    for (guint l = 0; l < 32; l++)
      addr[l] = (a0 + r[l]) & keep;
  }
  if (lo == NULL)
    return;
  guint64 mn = G_MAXUINT64, mx = 0, b = 0;
  for (guint l = 0; l < 32; l++) {
    mn = MIN(mn, addr[l]);
    mx = MAX(mx, addr[l]);
    b |= addr[l];
  }
  *lo = mn;
  *hi = mx;
  *bits = b;
}

static guint8 *
lanes_in_one_place(ExecCtx *c, const SassOperand *o, ExecSpace space, guint bytes, guint64 addr[32],
                   guint64 *start)
{
  ExecWarp *w = c->w;
  gboolean global = space == EXEC_SPACE_GLOBAL, wide = (o->flags & SASS_F_WIDE) != 0;
  if (space == EXEC_SPACE_LOCAL || (bytes != 4 && bytes != 8 && bytes != 16) ||
      (o->reg != SASS_RZ && o->reg + (wide ? 1u : 0u) >= w->n_regs) || c->enabled == 0)
    return NULL;
  guint64 a0 = (guint64)o->value;
  if (o->ureg != SASS_URZ) {
    a0 += w->ur[o->ureg];
    if (global)
      a0 += (guint64)w->ur[o->ureg + 1u] << 32;
  }
  /* every lane's address, disabled ones too (straight loops), then the enabled ones' extent */
  guint64 keep = global ? G_MAXUINT64 : G_MAXUINT32;
  const guint32 *r = o->reg == SASS_RZ ? NULL : &w->r[o->reg * 32u];
  guint64 lo = G_MAXUINT64, hi = 0, low_bits = 0;
  lanes_addresses(a0, keep, r, r && wide ? r + 32 : NULL, addr,
                  c->enabled == 0xffffffffu ? &lo : NULL, &hi, &low_bits);
  if (c->enabled != 0xffffffffu) {
    EXEC_FOR_LANES(c->enabled, l)
    {
      lo = MIN(lo, addr[l]);
      hi = MAX(hi, addr[l]);
      low_bits |= addr[l];
    }
  }
  if ((low_bits & (bytes - 1)) || hi > G_MAXUINT64 - bytes)
    return NULL;
  guint8 *p;
  if (global) {
    gint b = exec_memory_index(w->block->k->mem, lo, hi - lo + bytes);
    if (b < 0)
      return NULL;
    p = exec_memory_data(w->block->k->mem, (guint)b, NULL, start);
  } else {
    /* the cluster's block id (SR_CgaCtaId) above bit 24: 0 here, and one for all lanes */
    guint64 top = EXEC_SHARED_RESERVED + (guint64)w->block->k->launch.shared_bytes;
    if ((lo >> 24) != (hi >> 24) || (lo & 0xffffffu) < EXEC_SHARED_RESERVED ||
        (hi & 0xffffffu) + bytes > top)
      return NULL;
    p = w->block->shared;
    *start = lo & ~(guint64)0xffffffu;
  }
  memcpy(c->step->addr, addr, sizeof c->step->addr);
  c->step->lo = lo;
  c->step->hi = hi;
  return p;
}

/* What global memory's guard says of the enabled lanes' accesses of @bytes at operand
 * @addr_opd (exec_memory_set_guard(); TRUE in other spaces and without a guard): their
 * addresses in @addr, or when NULL worked out here and recorded for the timing. */
static gboolean
may_touch(ExecCtx *c, const SassOperand *addr_opd, ExecSpace space, guint bytes, gboolean write,
          const guint64 *addr)
{
  ExecMemory *mem = c->w->block->k->mem;
  if (space != EXEC_SPACE_GLOBAL || !exec_memory_guarded(mem))
    return TRUE;
  if (!addr) {
    EXEC_FOR_LANES(c->enabled, l)
    c->step->addr[l] = address(c, addr_opd, l, space);
    addr = c->step->addr;
  }
  return exec_memory_may(mem, c->w->smid, addr, c->enabled, bytes, write);
}

static void
load(ExecCtx *c, ExecSpace space, guint dreg, const SassOperand *addr_opd)
{
  guint bytes = sass_access_bytes(c->insn);
  guint words = bytes > 4 ? bytes / 4 : 1;
  guint64 addr[32], start;
  guint8 *p0;
  if (dreg != SASS_RZ && dreg + words <= c->w->n_regs &&
      !(sass_has(c->insn, SASS_MOD_U8) || sass_has(c->insn, SASS_MOD_S8) ||
        sass_has(c->insn, SASS_MOD_U16) || sass_has(c->insn, SASS_MOD_S16)) &&
      (p0 = lanes_in_one_place(c, addr_opd, space, bytes, addr, &start))) {
    if (!may_touch(c, addr_opd, space, bytes, FALSE, addr))
      return;
    guint64 off[32]; /* (a disabled lane's may lie anywhere: only the enabled ones are read) */
    for (guint l = 0; l < 32; l++)
      off[l] = addr[l] - start;
    for (guint k = 0; k < words; k++) {
      guint32 *row = &c->w->r[(dreg + k) * 32u];
      if (c->enabled == 0xffffffffu) {
        for (guint l = 0; l < 32; l++) /* (a straight loop: no lane to skip) */
          memcpy(&row[l], p0 + off[l] + 4 * k, 4);
      } else {
        EXEC_FOR_LANES(c->enabled, l)
        memcpy(&row[l], p0 + off[l] + 4 * k, 4);
      }
    }
    return;
  }
  if (!may_touch(c, addr_opd, space, bytes, FALSE, NULL))
    return;
  EXEC_FOR_LANES(c->enabled, l)
  {
    guint8 *p = lane_access(c, addr_opd, l, space, bytes);
    if (!p)
      return;
    for (guint k = 0; k < words; k++)
      if (dreg != SASS_RZ)
        exec_set(c->w, dreg + k, l, load_word(p + 4 * k, MIN(bytes, 4u), c->insn));
  }
}

static void
store(ExecCtx *c, ExecSpace space, const SassOperand *addr_opd, const SassOperand *src)
{
  guint bytes = sass_access_bytes(c->insn);
  guint words = bytes > 4 ? bytes / 4 : 1;
  guint64 addr[32], start;
  guint8 *p0;
  if (src->kind == SASS_OPD_REG && (src->reg == SASS_RZ || src->reg + words <= c->w->n_regs) &&
      (p0 = lanes_in_one_place(c, addr_opd, space, bytes, addr, &start))) {
    if (!may_touch(c, addr_opd, space, bytes, TRUE, addr))
      return;
    /* lane by lane in order, as below: of two lanes storing to one word, the later's stays */
    EXEC_FOR_LANES(c->enabled, l)
    {
      guint8 *p = p0 + (addr[l] - start);
      for (guint k = 0; k < words; k++) {
        guint32 v = src->reg == SASS_RZ ? 0 : c->w->r[(src->reg + k) * 32u + l];
        memcpy(p + 4 * k, &v, 4);
      }
    }
    return;
  }
  if (!may_touch(c, addr_opd, space, bytes, TRUE, NULL))
    return;
  EXEC_FOR_LANES(c->enabled, l)
  {
    guint8 *p = lane_access(c, addr_opd, l, space, bytes);
    if (!p)
      return;
    for (guint k = 0; k < words; k++) {
      guint32 v = src->kind == SASS_OPD_REG
                      ? exec_reg(c->w, src->reg == SASS_RZ ? SASS_RZ : src->reg + k, l)
                      : exec_raw(c, src, l);
      memcpy(p + 4 * k, &v, MIN(bytes, 4u));
    }
  }
}

/* ATOMS / ATOMG / ATOM / RED / REDG: lanes in order, each reading and writing memory */
static void
atomic(ExecCtx *c, ExecSpace space)
{
  const SassInsn *in = c->insn;
  gboolean red = in->op == SASS_OP_RED || in->op == SASS_OP_REDG;
  const SassOperand *d = red ? NULL : &in->opd[0];
  guint ai = red ? 0 : 1;
  if (in->n_operands <= ai || in->opd[ai].kind != SASS_OPD_MEM) {
    exec_unsupported(c);
    return;
  }
  const SassOperand *addr_opd = &in->opd[ai];
  const SassOperand *b = ai + 1 < in->n_operands ? &in->opd[ai + 1] : NULL;
  const SassOperand *cc = ai + 2 < in->n_operands ? &in->opd[ai + 2] : NULL;
  gboolean wide =
      sass_has(in, SASS_MOD_B64) || sass_has(in, SASS_MOD_U64) || sass_has(in, SASS_MOD_S64);
  guint bytes = wide ? 8 : 4;
  gboolean is_f32 = sass_has(in, SASS_MOD_F32), is_s = sass_has(in, SASS_MOD_S32);
  EXEC_FOR_LANES(c->enabled, l)
  {
    guint8 *p = lane_access(c, addr_opd, l, space, bytes);
    if (!p)
      return;
    guint64 old = 0, v = b ? (wide ? exec_raw64(c, b, l) : exec_raw(c, b, l)) : 0, nv;
    memcpy(&old, p, bytes);
    gboolean write = TRUE;
    guint64 ret = old;
    if (sass_has(in, SASS_MOD_CAS) || sass_has(in, SASS_MOD_CAST)) {
      guint64 nw = cc ? (wide ? exec_raw64(c, cc, l) : exec_raw(c, cc, l)) : 0;
      write = old == v;
      nv = nw;
      if (sass_has(in, SASS_MOD_CAST))
        ret = write;
    } else if (sass_has(in, SASS_MOD_POPC) && sass_has(in, SASS_MOD_INC)) {
      nv = (guint32)old + 1u;
    } else if (sass_has(in, SASS_MOD_ADD)) {
      nv = is_f32 ? exec_u32(exec_f32((guint32)old) + exec_f32((guint32)v)) : old + v;
    } else if (sass_has(in, SASS_MOD_MIN) || sass_has(in, SASS_MOD_MAX)) {
      gboolean mn = sass_has(in, SASS_MOD_MIN);
      gboolean less = is_s ? (gint32)old < (gint32)v : (guint32)old < (guint32)v;
      if (wide)
        less = sass_has(in, SASS_MOD_S64) ? (gint64)old < (gint64)v : old < v;
      nv = (less == mn) ? old : v;
    } else if (sass_has(in, SASS_MOD_OR)) {
      nv = old | v;
    } else if (sass_has(in, SASS_MOD_AND)) {
      nv = old & v;
    } else if (sass_has(in, SASS_MOD_XOR)) {
      nv = old ^ v;
    } else if (sass_has(in, SASS_MOD_EXCH)) {
      nv = v;
    } else if (sass_has(in, SASS_MOD_INC)) {
      nv = (guint32)old >= (guint32)v ? 0 : (guint32)old + 1u;
    } else if (sass_has(in, SASS_MOD_DEC)) {
      nv = ((guint32)old == 0 || (guint32)old > (guint32)v) ? v : (guint32)old - 1u;
    } else {
      exec_unsupported(c);
      return;
    }
    if (write)
      memcpy(p, &nv, bytes);
    if (d && d->kind == SASS_OPD_REG) {
      if (wide)
        exec_set64(c->w, d->reg, l, ret);
      else
        exec_set(c->w, d->reg, l, (guint32)ret);
    }
  }
}

gboolean
exec_memory_op(ExecCtx *c)
{
  const SassInsn *in = c->insn;
  ExecStep *st = c->step;
  ExecSpace space;
  switch (in->op) {
  case SASS_OP_LDG:
  case SASS_OP_LD:
    space = EXEC_SPACE_GLOBAL;
    break;
  case SASS_OP_LDS:
    space = EXEC_SPACE_SHARED;
    break;
  case SASS_OP_LDL:
    space = EXEC_SPACE_LOCAL;
    break;
  case SASS_OP_STG:
  case SASS_OP_ST:
    space = EXEC_SPACE_GLOBAL;
    break;
  case SASS_OP_STS:
    space = EXEC_SPACE_SHARED;
    break;
  case SASS_OP_STL:
    space = EXEC_SPACE_LOCAL;
    break;
  case SASS_OP_ATOMS:
    space = EXEC_SPACE_SHARED;
    break;
  case SASS_OP_ATOMG:
  case SASS_OP_ATOM:
  case SASS_OP_RED:
  case SASS_OP_REDG:
    space = EXEC_SPACE_GLOBAL;
    break;
  case SASS_OP_LDGSTS:
    space = EXEC_SPACE_GLOBAL;
    break;
  default:
    return FALSE;
  }
  st->space = (guint8)space;
  st->bytes = (guint8)sass_access_bytes(in);
  switch (in->op) {
  case SASS_OP_LDG:
  case SASS_OP_LD:
  case SASS_OP_LDS:
  case SASS_OP_LDL:
    if (in->n_operands < 2 || in->opd[0].kind != SASS_OPD_REG || in->opd[1].kind != SASS_OPD_MEM)
      return exec_unsupported(c), TRUE;
    load(c, space, in->opd[0].reg, &in->opd[1]);
    break;
  case SASS_OP_STG:
  case SASS_OP_ST:
  case SASS_OP_STS:
  case SASS_OP_STL:
    st->is_store = 1;
    if (in->n_operands < 2 || in->opd[0].kind != SASS_OPD_MEM)
      return exec_unsupported(c), TRUE;
    store(c, space, &in->opd[0], &in->opd[1]);
    break;
  case SASS_OP_LDGSTS: {
    /* LDGSTS [shared], [global]: the copy lands at once; its timing is the machine's */
    guint bytes = sass_access_bytes(in);
    if (in->n_operands < 2 || in->opd[0].kind != SASS_OPD_MEM || in->opd[1].kind != SASS_OPD_MEM)
      return exec_unsupported(c), TRUE;
    if (!may_touch(c, &in->opd[1], EXEC_SPACE_GLOBAL, bytes, FALSE, NULL))
      break;
    EXEC_FOR_LANES(c->enabled, l)
    {
      guint64 s = address(c, &in->opd[0], l, EXEC_SPACE_SHARED),
              g = address(c, &in->opd[1], l, EXEC_SPACE_GLOBAL);
      st->addr[l] = g;
      guint8 *dst = locate(c, EXEC_SPACE_SHARED, s, bytes, l);
      guint8 *src = dst ? locate(c, EXEC_SPACE_GLOBAL, g, bytes, l) : NULL;
      if (!src)
        break;
      memcpy(dst, src, bytes);
    }
    break;
  }
  default:
    if (in->op == SASS_OP_RED || in->op == SASS_OP_REDG)
      st->is_store = 1;
    atomic(c, space);
    break;
  }
  return TRUE;
}
