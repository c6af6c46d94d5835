/* The pass over one scheduler's wake times at the start of its look: which of its warps are
 * due, and when the others next are.  Chosen once per machine: AVX-512 where the host has it
 * (eight wake times a compare), else a portable branch-free loop; both give the same answer.
 * Not what a due warp's look does (sm.c). */
#pragma once

#include <glib.h>

/* Bit p of the result is set when wake[p] <= @t; *@later is the earliest wake[p] > @t
 * (G_MAXUINT64 when none).  @n <= 64. */
typedef guint64 (*SmWakePass)(const guint64 *wake, guint n, guint64 t, guint64 *later);

/* The fastest pass this host runs. */
SmWakePass sm_wake_pass_choose(void);
/* The portable one (tests compare the two). */
guint64 sm_wake_pass_portable(const guint64 *wake, guint n, guint64 t, guint64 *later);
