/* Windows (window= in a stream): the lines one access of a warp's chase touches, and the
 * warm-up pass that walks every warp's chase up to its start before the run (chase.h). */
#include "machine.h"

#include "../mem/chase.h"

guint
sm_window_lines(const SmGpu *sm, const SmInsnInfo *ii, guint64 *x, guint64 *lines, guint8 *sectors)
{
  guint line_bytes = sm->mem.line_bytes, sector_bytes = sm->mem.sector_bytes;
  guint64 units = ii->chase_units, u = sm_chase_next(x, units, ii->chase_bits);
  guint per_line = line_bytes / sector_bytes;
  guint8 full = (guint8)((1u << per_line) - 1);
  if (!ii->random_lines) { /* the unit's lines, one after the other */
    guint64 first = SM_WINDOW_LINE_BASE + u * ii->unit_bytes / line_bytes;
    guint k = MIN((ii->trans_bytes + sector_bytes - 1) / sector_bytes, per_line);
    for (guint i = 0; i < ii->n_trans; i++) {
      lines[i] = first + i;
      sectors[i] = k >= per_line ? full : (guint8)((1u << k) - 1);
    }
    return ii->n_trans;
  }
  /* every lane its own unit: the 32 lanes walk the cycle a 32nd of it apart */
  guint64 apart = MAX(units / 32, 1u);
  guint k = (ii->unit_bytes + sector_bytes - 1) / sector_bytes;
  for (guint l = 0; l < ii->n_trans; l++) {
    guint64 addr = (u + l * apart) % units * ii->unit_bytes;
    guint first = (guint)(addr % line_bytes / sector_bytes);
    lines[l] = SM_WINDOW_LINE_BASE + addr / line_bytes;
    sectors[l] = (guint8)(((1u << MIN(k, per_line - first)) - 1) << first);
  }
  return ii->n_trans;
}

void
sm_window_warm(SmGpu *sm)
{
  const SmInsnInfo *ii = NULL;
  for (guint i = 0; i < sm->prog->n_insns && !ii; i++)
    if (sm->prog->insns[i].kind == ISA_INSN_OP && sm->info[i].chase_units && sm->info[i].is_load &&
        sm->info[i].level == CFG_LEVEL_CACHED)
      ii = &sm->info[i];
  if (!ii || (!sm->mem.l1 && !sm->mem.l2_parts))
    return;
  /* steps enough for the caches to settle as a whole pass leaves them (lru keeps the latest
   * lines): twice what the L1 (when it keeps these loads), and each warp's share of twice what
   * the L2, hold */
  guint line = sm->mem.line_bytes;
  gboolean l1 = sm->mem.l1 && sm_memory_l1_keeps(&sm->mem, (SmCacheOp)ii->cache_op);
  guint64 l1_lines = l1 ? (guint64)sm->mem.l1[0].sets * sm->mem.l1[0].ways : 0;
  guint64 l2_lines = 0;
  for (guint p = 0; p < sm->mem.l2_parts; p++)
    l2_lines += (guint64)sm->mem.l2[p].sets * sm->mem.l2[p].ways;
  guint live = 0;
  for (guint i = 0; i < sm->n_warps; i++)
    live += !sm->warps[i].done;
  if (live == 0)
    return;
  guint64 per_unit = MAX((guint64)ii->unit_bytes * ii->n_trans / line, 1u);
  guint64 steps = MIN(ii->chase_units,
                      (2 * l1_lines + 2 * l2_lines / live) / (ii->random_lines ? per_unit : 1) + 1);
  guint64 mask = ii->chase_bits >= 64 ? ~0ull : (1ull << ii->chase_bits) - 1;
  g_autofree guint64 *at = g_new(guint64, sm->n_warps);
  for (guint i = 0; i < sm->n_warps; i++) {
    if (sm->warps[i].done)
      continue;
    /* back from its start over @steps units of the window, then one more */
    guint64 x = sm->warps[i].chase;
    for (guint64 k = 0; k < steps;) {
      k += sm_chase_scramble(x & mask, ii->chase_bits) < ii->chase_units;
      sm_chase_back(&x);
    }
    at[i] = x;
  }
  guint64 lines[32];
  guint8 sectors[32];
  /* each SM's L1 keeps only its latest lines: it is asked in the last twice-its-size steps */
  guint64 l1_from = steps > 2 * l1_lines ? steps - 2 * l1_lines : 0;
  for (guint64 k = 0; k < steps; k++)
    for (guint i = 0; i < sm->n_warps; i++) {
      if (sm->warps[i].done)
        continue;
      guint n = sm_window_lines(sm, ii, &at[i], lines, sectors);
      sm_memory_warm(&sm->mem, sm->warps[i].sm, n, lines, sectors, (SmCacheOp)ii->cache_op,
                     k >= l1_from);
    }
}
