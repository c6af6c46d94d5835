/* The constant cache of each SM (the GPU file's `constant_cache`), which LDC reads the constant
 * banks through: a kernel's parameters and launch constants (c[0x0]) and its __constant__ data
 * (c[0x3]).
 *
 * A read's result comes a hit's latency after it starts, a miss's when one of its lines is not
 * held (the cache then holds it, least recently used replaced) or is still on its way in for
 * another read (warps that chase the same lines do not share a miss: bench/h100/ldc.cu), and
 * address_cycles later for each distinct address of its lanes beyond the first.  A read of
 * several distinct addresses takes the SM's port, one address each port_cycles, starting once
 * the addresses of the reads before it are taken; a read of one address (every lane the same,
 * as a kernel's parameters) is a broadcast, past the port.  The launch leaves bank 0 up to the
 * last parameter in every SM's cache.
 *
 * Kernels over SASS only (streams have no LDC): neither the fast-forward nor mirroring touches
 * it; SMs stepped on threads each use only their own SM's part, as the single loop does. */
#pragma once

#include "cache.h"

/* A line missed and held from then on, whose words come at @ready. */
typedef struct {
  guint64 line, ready;
} SmConstantFill;

#define SM_CONSTANT_FILLS 32 /* lines on their way in, per SM */

typedef struct {
  const CfgConstantCache *cfg;
  guint n_sm;
  SmCache *cache;        /* per SM */
  guint64 *port;         /* per SM: when its port takes its next address (cycles) */
  SmConstantFill *fills; /* per SM, SM_CONSTANT_FILLS */
} SmConstants;

/* A cache per SM of @n_sm, as @cfg says, each holding bank 0's first @bank0_bytes. */
void sm_constants_init(SmConstants *c, const CfgConstantCache *cfg, guint n_sm, gsize bank0_bytes);
void sm_constants_clear(SmConstants *c);

/* A warp's read on SM @m issued at @t of the words at @addr[l] for each lane l of @lanes (not
 * 0), each its bank << 32 | its offset: when its result is there. */
guint64 sm_constants_read(SmConstants *c, guint m, const guint64 *addr, guint32 lanes, guint64 t);
