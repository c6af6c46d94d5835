/* What a store's line costs a memory level's channel, in bytes: a request, and each sector it
 * writes, one written only in part (a byte mask) at its own cost; a level whose GPU file names
 * none of those costs a line its sectors' bytes, as a load.  The channels (memory.c) and an SM's
 * share of the level's rate (lsu.c) both count it. */
#pragma once

#include <glib.h>

#include "../../config/gpu.h"
#include "../core/fixed.h"

typedef struct {
  gboolean on; /* the level names a cost: else sector bytes a sector */
  guint request, whole, partial, sector;
} SmWriteCosts;

/* @cfg's costs: an unnamed sector cost @sector_bytes whole, a partial one what a whole one does */
static inline SmWriteCosts
sm_write_costs(const CfgMemLevel *cfg, guint sector_bytes)
{
  SmWriteCosts c = {.on = cfg->write_request_bytes || cfg->write_sector_bytes ||
                          cfg->partial_sector_bytes,
                    .request = cfg->write_request_bytes,
                    .sector = sector_bytes};
  c.whole = cfg->write_sector_bytes ? cfg->write_sector_bytes : sector_bytes;
  c.partial = cfg->partial_sector_bytes ? cfg->partial_sector_bytes : c.whole;
  return c;
}

/* the bytes of a line writing @sectors, @partial of them in part (or loading @sectors) */
static inline guint
sm_write_cost(const SmWriteCosts *c, guint8 sectors, guint8 partial)
{
  guint k = (guint)sm_popcount32(sectors), p = (guint)sm_popcount32(sectors & partial);
  if (!c->on)
    return k * c->sector;
  return c->request + (k - p) * c->whole + p * c->partial;
}
