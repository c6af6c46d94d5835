/* The LD/ST path of each SM between its warps and the memory system (the GPU file's `lsu`):
 * the L1TEX stage that looks up a global warp-access's lines before they go on, and the data
 * of stores, read from the register file into a buffer of the SM's in front of that stage.
 *
 * The stage takes one access at a time per SM, in issue order: a load for load_line_cycles a
 * line, a store for store_line_cycles a line plus partial_sector_cycles a sector it writes only
 * in part.  A store's data crosses the store data path meanwhile, its bytes over
 * store_bytes_per_cycle, stores in issue order (loads do not use it).  An access reaches the L1
 * (and the levels behind it) when both are done with it; a load's data then comes back a line
 * at a time (return_line_cycles after the first).  A store's registers (address and data) are
 * read store_read_cycles after its issue, but no earlier than a place in the store buffer is
 * free (the stage is done with the store that many before it): until then an instruction that
 * writes one of them waits (Nsight's long_scoreboard on a store's registers).  The stage is the
 * SM's own: nothing of another SM reaches it, so an SM stepped on a thread keeps it.
 *
 * Kernels over SASS only: an assembled stream's accesses reach the memory system at issue.  So
 * neither the fast-forward nor mirroring (streams only) encodes or copies this state; SMs
 * stepped on threads each keep their own (free[m], their buffer), as the single loop does. */
#pragma once

#include <glib.h>

#include "../../config/gpu.h"

/* A store taken by the stage: when the stage is done with it, and its lines. */
typedef struct {
  guint64 enter;
  guint64 lines;
} SmLsuStaged;

typedef struct {
  gboolean on;
  guint n_sm;
  guint load_line, return_line, store_line, partial_sector, store_bytes, read, buffer;
  guint64 *free;      /* per SM: the cycle the stage is done with the accesses it took */
  guint64 *data_free; /* per SM: the cycle the store data path is done with the stores' data */
  guint64 *buf_done;  /* per SM x buffer: when the stage is done with each of the last stores */
  GArray **staged;    /* per SM: SmLsuStaged of its stores in issue order, from staged_head on */
  guint *staged_head;
  guint *buf_head; /* per SM: the oldest of them */
} SmLsu;

/* What one access gets: when it reaches the L1 (its lines' time in the memory system), what
 * its data's return adds to the memory system's completion (loads), and for a store when its
 * registers are read. */
typedef struct {
  guint64 enter;
  guint64 tail;
  guint64 read;
} SmLsuPass;

void sm_lsu_init(SmLsu *lsu, const CfgGpu *gpu, guint n_sm);
void sm_lsu_clear(SmLsu *lsu);

/* The lines of SM @m's stores still in its stage at cycle @t: they have not reached the memory
 * system yet.  Forgets the stores the stage was done with before @t - 1 (the loop asks at a
 * cycle or the next, never earlier). */
guint64 sm_lsu_store_lines_in_stage(SmLsu *lsu, guint m, guint64 t);

/* A global access by SM @m at cycle @t of @n lines takes its turn at the stage; a store writes
 * @data_bytes in all and the sectors @partial[i] (a mask) of line i only in part.  With the stage
 * off, it enters at @t, adds nothing and a store's registers are read at @t. */
SmLsuPass sm_lsu_pass(SmLsu *lsu, guint m, guint64 t, gboolean store, guint n,
                      const guint8 *partial, guint data_bytes);
