/* The constant cache of each SM: see constants.h. */
#include "constants.h"

void
sm_constants_init(SmConstants *c, const CfgConstantCache *cfg, guint n_sm, gsize bank0_bytes)
{
  *c = (SmConstants){.cfg = cfg, .n_sm = n_sm};
  c->cache = g_new0(SmCache, n_sm);
  c->port = g_new0(guint64, n_sm);
  c->fills = g_new0(SmConstantFill, (gsize)n_sm * SM_CONSTANT_FILLS);
  /* the launch leaves bank 0 (the launch's constants and the kernel's parameters) in every
   * SM's cache: a kernel's first reads of its parameters wait as long as hits (Nsight, the
   * drain launches' Source page: the ISETP after LDC R6, c[0x0][0x218] 22.6 cycles in
   * short_scoreboard; h100-control-flow-clock.csv's clock reads around such a read) */
  for (guint m = 0; m < n_sm; m++) {
    sm_cache_init(&c->cache[m], cfg->bytes, cfg->line_bytes, cfg->ways, 0, CFG_REPLACE_LRU,
                  CFG_INDEX_MODULO, 0);
    for (gsize off = 0; off < bank0_bytes; off += cfg->line_bytes)
      sm_cache_access(&c->cache[m], off / cfg->line_bytes, 1, TRUE, FALSE);
  }
}

void
sm_constants_clear(SmConstants *c)
{
  for (guint m = 0; c->cache && m < c->n_sm; m++)
    sm_cache_clear(&c->cache[m]);
  g_clear_pointer(&c->cache, g_free);
  g_clear_pointer(&c->port, g_free);
  g_clear_pointer(&c->fills, g_free);
}

guint64
sm_constants_read(SmConstants *c, guint m, const guint64 *addr, guint32 lanes, guint64 t)
{
  const CfgConstantCache *cfg = c->cfg;
  SmConstantFill *fills = c->fills + (gsize)m * SM_CONSTANT_FILLS;
  guint64 seen[32];
  guint n = 0;
  for (; lanes; lanes &= lanes - 1) {
    guint64 a = addr[__builtin_ctz(lanes)];
    guint k = 0;
    while (k < n && seen[k] != a)
      k++;
    if (k == n)
      seen[n++] = a;
  }
  guint64 start = t;
  if (n > 1) {
    start = MAX(t, c->port[m]);
    c->port[m] = start + (guint64)n * cfg->port_cycles;
  }
  guint64 done = start + cfg->hit_latency_cycles;
  for (guint k = 0; k < n; k++) {
    guint64 line = seen[k] / cfg->line_bytes;
    if (sm_cache_access(&c->cache[m], line, 1, TRUE, FALSE).hit) {
      for (guint f = 0; f < SM_CONSTANT_FILLS; f++)
        if (fills[f].line == line && fills[f].ready > start)
          done = MAX(done, start + cfg->miss_latency_cycles);
      continue;
    }
    /* a miss: its line comes from the next level, into the slot of the fill that ended first */
    guint64 ready = start + cfg->miss_latency_cycles;
    done = MAX(done, ready);
    guint slot = 0;
    for (guint f = 1; f < SM_CONSTANT_FILLS; f++)
      if (fills[f].ready < fills[slot].ready)
        slot = f;
    fills[slot] = (SmConstantFill){line, ready};
  }
  return done + (guint64)(n - 1) * cfg->address_cycles;
}
