/* The threads' record of global memory while SMs step apart (fast/parallel.c): for each buffer
 * of a kernel over SASS, a word per SHADOW_BYTES of it saying which window touched it last, by
 * which SM (or several, all reading), and whether one wrote it.  Two SMs touching one word in
 * windows whose cycles may overlap, one of them writing, is a conflict: the run is then stepped
 * again in one loop.  The windows are numbered from 1; a window's accesses are all at cycles
 * before the start of every window after `safe`, so no access in a window up to it can meet a
 * later one out of the single loop's order. */
#pragma once

#include "../exec/exec.h"

typedef struct SmShadow SmShadow;

/* A record of every buffer of @mem, none touched yet (its pages mapped as touched). */
SmShadow *sm_shadow_new(ExecMemory *mem);
void sm_shadow_free(SmShadow *shadow);

/* The executor's guard on global memory (exec_memory_set_guard(), @data the SmShadow): an
 * access's words go into the record before it touches them; FALSE refuses it (a conflict). */
gboolean sm_shadow_guard(gpointer data, guint32 smid, const guint64 addr[32], guint32 lanes,
                         guint bytes, gboolean write);

/* A window of cycles @start..@end begins: the windows that ended by @start are safe. */
void sm_shadow_window(SmShadow *shadow, guint64 start, guint64 end);

/* Two SMs' accesses met in windows not yet safe. */
gboolean sm_shadow_conflicted(const SmShadow *shadow);
