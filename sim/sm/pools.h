/* The storage of every SM's warps' and schedulers' arrays: one allocation of each kind for the
 * whole GPU, SM by SM, sliced per warp slot (scoreboards, copy groups, SIMT stacks, predicates)
 * and per scheduler position (warp slots, wake times, ages, resumes, grid indices, pool marks).
 * Each SM's slices lie together, so a thread stepping one SM touches only its own.  Not who
 * points where (gpu/new.c wires the warps and schedulers to their slices).
 */
#pragma once

#include "simt.h"

typedef struct {
  guint64 *ready;     /* per warp slot x register slot x unit: the scoreboards */
  guint8 *producer;   /* per warp slot x register slot */
  guint64 *held;      /* per warp slot x register slot: SmScoreboard.held; NULL: none */
  guint8 *held_state; /* ... and SmScoreboard.held_state */
  guint64 *copy;      /* per warp: SM_COPY_RING group completions (streams with LDGDEPBAR) */
  SmSimt *simt;       /* per warp, for streams with lane masks */
  guint32 *pred;      /* per warp x register slot: predicate lanes */
  guint *slots;       /* per scheduler position: its warp slot (SmScheduler.warps) */
  guint64 *wake;      /* per scheduler position: SmScheduler.wake */
  guint64 *age;       /* per scheduler position: its block's launch cycle (policy oldest) */
  guint64 *resumed;   /* per scheduler position: SmScheduler.resumed */
  guint32 *grid;      /* per scheduler position: SmScheduler.grid */
  guint8 *in_pool;    /* per scheduler position: in the active pool (policy two_level) */
  guint64 *issued;    /* per scheduler position: SmScheduler.issued (sass.fair_window) */
} SmPools;

/* Frees every array of @p (NULL ones too) and zeroes it. */
void sm_pools_clear(SmPools *p);
