/* The state the fast-forward detector compares (steady.c): encoded relative to a cycle, or
 * shifted by whole periods, by one walk over the machine or over one of its schedulers. */
#pragma once

#include "fast.h"

/* The whole SM, not one scheduler. */
#define SM_SCOPE_SM G_MAXUINT

/* The warps of scheduler @scope (or every warp): its slots slot0, slot0 + sched_per_sm, ...
 * (sm_sched_warp()). */
#define SM_FOR_SCOPE_WARPS(sm, scope, i)                                                           \
  for (guint i = (scope) == SM_SCOPE_SM ? 0 : (sm)->sched[scope].slot0,                            \
             i##_end = (scope) == SM_SCOPE_SM                                                      \
                           ? (sm)->n_warps                                                         \
                           : i + (sm)->sched[scope].n_warps * (sm)->sched_per_sm;                  \
       i < i##_end; i += (scope) == SM_SCOPE_SM ? 1 : (sm)->sched_per_sm)

/* An encoded state: unsigned LEB128 numbers (most are small: times relative to now, pcs). */
typedef struct {
  guint8 *data;
  gsize len, cap;
} SmStateBuf;

/* Appends @scope's state relative to cycle @t to @out (times before @t are all alike: nothing
 * compares them with an earlier cycle). */
void sm_state_encode(SmGpu *sm, guint scope, guint64 t, SmStateBuf *out);
/* Moves every time of @scope's state by @dt (@now: the current cycle). */
void sm_state_shift(SmGpu *sm, guint scope, guint64 now, guint64 dt);
