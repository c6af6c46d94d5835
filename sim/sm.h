/* The simulated machine, a GPU of SMs running one kernel: its only entry point for study/, cli/
 * and the tests.  Built and run by fast/run.c (the machine of gpu/ with fast-forward, mirroring
 * and threads above it), stepped by gpu/loop.c; not the units it wires (gpu/machine.h lists
 * them).  SmGpu is the whole GPU: its
 * SMs (each its schedulers, warp slots, pipes, block slots and shared memory, SmMp in
 * gpu/machine.h) and what they share (the memory system below their ports, the block
 * scheduler, the event queue).  Functions and handles are named sm_ and sm after the library
 * (smsim), not after one SM.
 *
 * Per cycle with work, in this order: events of the cycle fire (memory completions), then
 * each scheduler looks at its warps (warp id modulo schedulers, oldest first) and issues up to
 * issue_width instructions by its policy.  Within an SM the schedulers look in index order,
 * starting after the last one that queued a shared-memory access (the queue's free places go
 * round robin).  A cycle in which nothing can happen is never visited: the clock jumps to the
 * earliest cycle at which some warp may become eligible or an event fires.  Nothing is
 * allocated once sm_new() returns.
 */
#pragma once

#include "../config/kernel.h"
#include "../traces/trace.h"
#include "sm/stats.h"
#include "exec.h"

typedef struct SmGpu SmGpu;

/* Runs stop at this many cycles unless told otherwise (smsim --max-cycles): far beyond any
 * study (the slowest benchmark simulates 1.4 x 10^11), near enough to end a runaway run.
 * Cycles, instructions and bytes stay far from 64-bit overflow below it. */
#define SM_DEFAULT_MAX_CYCLES 1000000000000ull

/* Bytes of each SM's L1: caches.l1.bytes, or what @blocks_per_sm blocks' shared memory leave
 * of caches.l1.unified_bytes. */
guint64 sm_l1_bytes(const CfgGpu *gpu, const CfgKernel *kernel, guint blocks_per_sm);
SmGpu *sm_new(const CfgGpu *gpu, const CfgKernel *kernel);
void sm_free(SmGpu *sm);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SmGpu, sm_free)

/* Runs until every warp has finished. */
void sm_run(SmGpu *sm);
/* Runs every cycle before @cycle (then sm_now() >= @cycle, or the run finished). */
void sm_run_until(SmGpu *sm, guint64 cycle);
gboolean sm_finished(const SmGpu *sm);
/* Ends an unfinished run where it stands (after a stop or a cycle limit): the counters cover
 * the cycles simulated so far, and sm_finished() is TRUE. */
void sm_close(SmGpu *sm);

/* Asks every running SM to stop at its next step (async-signal-safe: for SIGINT handlers);
 * sm_run*() then return with the run unfinished. */
void sm_request_stop(void);
gboolean sm_stop_requested(void);
/* Process-wide switch (smsim --no-fast-forward): SMs built while it is off step through every
 * cycle instead of jumping over repeats of a periodic steady state (steady.h); the results are
 * the same.  On by default. */
void sm_set_fast_forward(gboolean on);
/* Process-wide switch (smsim --no-fast-forward turns it off too): SMs built while it is on
 * step one SM of each kind that runs alike (no global memory, no random draws, the same work
 * in every block, the same blocks received) and count it for all of its kind; the results are
 * the same.  On by default. */
void sm_set_mirroring(gboolean on);
/* Process-wide switch for tests: SMs built while it is on use the portable pass over wake
 * times even where the host has AVX-512 (wake.h); the results are the same.  Off by default. */
void sm_set_portable_pass(gboolean on);
/* Process-wide switch for tests: SMs built while it is off visit every cycle in which a warp
 * alone on its scheduler issues, instead of issuing its next instructions without the loop
 * (gpu/loop.c, run_ahead()); the results are the same.  On by default. */
void sm_set_run_ahead(gboolean on);

/* Up to @n threads step @sm's SMs (1, the default: one).  Every result is the same for any
 * @n; runs that threads cannot share are stepped by one (fast/parallel.c says which). */
void sm_set_threads(SmGpu *sm, guint n);

/* Process-wide switch for tests: SMs built or run while it is off are stepped in one loop even
 * where they could be stepped apart, each by a view of its own, in windows (fast/parallel.c: on
 * threads with sm_set_threads(), else on one); the results are the same.  On by default. */
void sm_set_apart(gboolean on);
/* Process-wide setting for tests: the cycles a window keeps clear, beyond a result's latency,
 * for a result whose register-file write port was taken when it came (fast/lookahead.c; 16 by
 * default; negative shortens the latencies' own room).  Less gives longer windows, and a run in
 * which a completion's port may then have been taken by a later issue is stepped again in one
 * loop (fast/parallel.c); the results are the same. */
void sm_set_port_slack(gint cycles);
/* Once no block is left to launch, on more than one thread, one thread sends a window's
 * accesses to the memory system either alone after it (OFF) or beside the views stepping the
 * next, in windows half as long (ON; fast/parallel.c).  Which is faster depends on the run and the
 * host: AUTO, the default, times each way now and then and keeps the faster; ALTERNATE, for
 * tests, switches every window.  Process-wide; the results are the same every way. */
typedef enum { SM_PIPE_AUTO, SM_PIPE_OFF, SM_PIPE_ON, SM_PIPE_ALTERNATE } SmPipe;
void sm_set_pipe(SmPipe mode);

/* Calls @fn(@sm, @data) now and then (every 4096 visited cycles) while sm_run*() runs: a
 * progress display reads sm_now() and sm_stats() there.  It must not change the run. */
typedef void (*SmProgressFn)(const SmGpu *sm, gpointer data);
void sm_set_progress(SmGpu *sm, SmProgressFn fn, gpointer data);

/* The next cycle the loop will look at. */
guint64 sm_now(const SmGpu *sm);

/* Sends per-cycle records to @sink (begun here) for the rest of the run.  Attach before the
 * first sm_run*(); tracing changes no simulated result. */
gboolean sm_attach_trace(SmGpu *sm, TraceSink *sink, GError **error);

/* Counters so far; complete (states closed, cycles set) once sm_finished(). */
const SmStats *sm_stats(const SmGpu *sm);

/* Kernels over SASS: the buffers as the kernel leaves them (as it finds them, before
 * sm_run()); NULL for a stream. */
ExecMemory *sm_memory_image(SmGpu *sm);
/* What stopped a kernel over SASS: an unsupported instruction, an address outside every
 * buffer, lanes that can never reconverge ("FILE:LINE: ..."); NULL while all is well. */
const GError *sm_error(const SmGpu *sm);
