/* The scheduler's fairness (the GPU file's sass.fair_window, fair_margin; kernels over SASS
 * with sass.yield_hints): a turn that does not go to the warp that kept it passes over each
 * eligible warp that issued in more than fair_margin cycles more of the last fair_window than
 * the eligible warp of its block that issued in fewest.  Part of the SM loop (loop.c, pick()):
 * each scheduler position's record of its warp's issues (SmScheduler.issued) is kept here. */
#pragma once

#include <glib.h>

#include "../sm/scheduler.h"

typedef struct SmGpu SmGpu;
typedef struct SmWarp SmWarp;

/* the eligible warps weighed at once (a scheduler's first ones past this take their turns as
 * without the fairness) */
#define SM_FAIR_MAX 256

/* Before scheduler @s picks at @t among sm->eligible[0 .. @n_el): marks the warps it passes
 * over SM_SCHEDULER_TAKEN, the entries as they were in @pos (SM_FAIR_MAX of them); returns how
 * many entries to put back after the pick (0: none changed). */
guint sm_fair_pass_over(SmGpu *sm, SmScheduler *s, guint n_el, guint64 t, guint *pos);

/* @w, at position @p of @s, issues at @t (before its last_issue moves to @t). */
void sm_fair_note(SmScheduler *s, const SmWarp *w, guint p, guint64 t);
