/* What the lanes of an instruction the executor ran touch, for the timing: the lines and
 * sectors of a global access, the bank passes of a shared one.  Not how the instruction issues
 * (sass.c). */
#include "machine.h"

/* the lines an access touches, with the bytes of the sectors touched in each */
guint
sm_sass_lines(const SmGpu *sm, const ExecStep *st, guint64 *lines, guint *bytes, guint8 *masks,
              guint8 *partial)
{
  guint line_bytes = sm->mem.line_bytes, sector_bytes = sm->mem.sector_bytes;
  guint32 sectors[SM_MEMORY_MAX_LINES];
  guint16 in_sector[SM_MEMORY_MAX_LINES][8]; /* @partial: the lanes' bytes in each sector */
  guint n = 0;
  for (guint32 m = st->enabled; m; m &= m - 1) {
    guint l = (guint)__builtin_ctz(m);
    guint64 a = st->addr[l], end = a + MAX(st->bytes, 1u);
    for (guint64 p = a; p < end; p = (p / sector_bytes + 1) * sector_bytes) {
      guint64 line = p / line_bytes;
      guint sector = (guint)((p % line_bytes) / sector_bytes);
      guint k = 0;
      while (k < n && lines[k] != line)
        k++;
      if (k == n) {
        if (n == SM_MEMORY_MAX_LINES)
          break;
        lines[n] = line;
        sectors[n++] = 0;
        if (partial)
          memset(in_sector[k], 0, sizeof in_sector[k]);
      }
      sectors[k] |= 1u << (sector & 31);
      if (partial) {
        guint64 next = (p / sector_bytes + 1) * sector_bytes;
        in_sector[k][sector & 7] += (guint16)(MIN(end, next) - p);
      }
    }
  }
  for (guint k = 0; k < n; k++) {
    bytes[k] = (guint)__builtin_popcount(sectors[k]) * sector_bytes;
    masks[k] = (guint8)sectors[k];
    if (partial) {
      partial[k] = 0;
      for (guint32 m = masks[k]; m; m &= m - 1)
        if (in_sector[k][__builtin_ctz(m)] < sector_bytes)
          partial[k] |= (guint8)(1u << __builtin_ctz(m));
    }
  }
  return n;
}

/* Word @p takes its bank (bit of *@used, its word in @word[]): FALSE when the bank already serves
 * another word. */
static inline gboolean
take_bank(guint64 *used, guint64 *word, guint64 p, guint banks)
{
  guint bank = (guint)(p & (banks - 1));
  if (!(*used >> bank & 1)) {
    *used |= G_GUINT64_CONSTANT(1) << bank;
    word[bank] = p;
    return TRUE;
  }
  return word[bank] == p;
}

/* One pass when no two lanes want different words of one bank (the commonest accesses:
 * consecutive words, a broadcast, a vector broadcast); FALSE: look closer. */
static gboolean
one_pass(const ExecStep *st, guint banks, guint shift)
{
  guint64 used = 0, word[64], previous = G_MAXUINT64;
  guint bytes = MAX(st->bytes, 1u), width = 1u << shift;
  if (bytes <= width) {
    /* each lane's bytes in one word when aligned to their size (shared accesses are) */
    for (guint32 m = st->enabled; m; m &= m - 1) {
      guint64 a = st->addr[__builtin_ctz(m)];
      if ((a & (width - 1)) + bytes > width || !take_bank(&used, word, a >> shift, banks))
        return FALSE; /* straddles two words, or a bank conflict: look closer */
    }
    return TRUE;
  }
  for (guint32 m = st->enabled; m; m &= m - 1) {
    guint64 a = st->addr[__builtin_ctz(m)];
    if (a == previous)
      continue; /* the words of the lane before */
    previous = a;
    for (guint64 p = a >> shift, last = (a + bytes - 1) >> shift; p <= last; p++)
      if (!take_bank(&used, word, p, banks))
        return FALSE;
  }
  return TRUE;
}

/* Every word the lanes touch lies within @banks consecutive words (consecutive words, a
 * broadcast, a vector broadcast, a row of a tile: nearly every access), so no bank serves two
 * words: one pass, from the lowest and highest address alone. */
static gboolean
within_banks(const ExecStep *st, guint banks, guint shift)
{
  guint64 lo = st->lo, hi = st->hi;
  if (lo > hi) { /* not known from the executor */
    lo = G_MAXUINT64;
    hi = 0;
    for (guint32 m = st->enabled; m; m &= m - 1) {
      guint64 a = st->addr[__builtin_ctz(m)];
      lo = MIN(lo, a);
      hi = MAX(hi, a);
    }
  }
  return ((hi + MAX(st->bytes, 1u) - 1) >> shift) - (lo >> shift) < banks;
}

/* Bank passes of the lanes of @lanes: the most distinct words any bank serves (lanes reading
 * one word share it), at least the passes their bytes need. */
static guint
lanes_passes(const ExecStep *st, guint32 lanes, guint banks, guint width, gboolean pow2,
             guint shift)
{
  guint64 seen[64][32]; /* per bank, its distinct words so far */
  guint count[64] = {0}, passes = 1, words = 0;
  guint per_lane = (MAX(st->bytes, 1u) + width - 1) / width;
  guint64 previous = G_MAXUINT64;
  for (guint32 m = lanes; m; m &= m - 1) {
    guint l = (guint)__builtin_ctz(m);
    if (st->addr[l] == previous)
      continue; /* the words of the lane before (a broadcast): counted */
    previous = st->addr[l];
    guint64 first = pow2 ? st->addr[l] >> shift : st->addr[l] / width;
    for (guint64 p = first; p < first + per_lane; p++) {
      guint bank = pow2 ? (guint)(p & (banks - 1)) : (guint)(p % banks), k = 0, n = count[bank];
      while (k < n && seen[bank][k] != p)
        k++;
      if (k < n || n == G_N_ELEMENTS(seen[0]))
        continue;
      seen[bank][n] = p;
      count[bank] = n + 1;
      passes = MAX(passes, n + 1);
      words++;
    }
  }
  guint need = (words + banks - 1) / banks;
  return MAX(passes, MAX(need, 1u));
}

/* Bank passes of a shared-memory access.  An access wider than a bank's word is served in
 * phases of the lanes that together fill the banks once (16 lanes of 8 bytes, 8 of 16 bytes
 * with 32 banks of 4 bytes), as docs/config.md says: each phase's passes are its own lanes'
 * conflicts, and the access takes their sum (an LDS.128 whose lane pairs share banks takes 8
 * passes, not the 4 its bytes need: bench/h100/mempipe.cu's smem experiment).  An access whose
 * words fit one pass takes one; with shared_memory.half_warps, each half-warp apart, a
 * half-warp whose words fit one pass in one (an LDS.128 that every lane, or each half-warp,
 * reads at one address takes two: bench/h100/mioq.cu). */
guint
sm_sass_bank_passes(const SmGpu *sm, const ExecStep *st)
{
  guint banks = MIN(sm->cfg->smem.banks, 64u), width = sm->cfg->smem.bank_width_bytes;
  /* banks and widths are powers of two on every GPU there is: masks and shifts then */
  gboolean pow2 = (banks & (banks - 1)) == 0 && (width & (width - 1)) == 0;
  guint shift = (guint)__builtin_ctz(width);
  guint bytes = MAX(st->bytes, 1u);
  guint phase = bytes > width ? MAX(banks * width / bytes, 1u) : 32u; /* lanes a phase */
  gboolean halves = sm->smem.half_warps && phase < 16;
  if (!halves && pow2 && (within_banks(st, banks, shift) || one_pass(st, banks, shift)))
    return 1;
  if (phase >= 32)
    return lanes_passes(st, st->enabled, banks, width, pow2, shift);
  guint passes = 0;
  for (guint half = 0; half < 32; half += 16) {
    guint32 lanes = st->enabled & (0xffffu << half);
    if (lanes == 0)
      continue;
    if (halves && lanes_passes(st, lanes, banks, width, pow2, shift) == 1) {
      passes++;
      continue;
    }
    for (guint first = half; first < half + 16; first += phase) {
      guint32 mask = ((1u << phase) - 1u) << first;
      if (st->enabled & mask)
        passes += lanes_passes(st, st->enabled & mask, banks, width, pow2, shift);
    }
  }
  return MAX(passes, 1u);
}
