/* Execution pipes: what one instruction costs on its unit (lanes, initiation interval, issue
 * cycles, latency per consumer, memory transactions), decoded once per run into SmInsnInfo.
 * Not the pipes' state: each scheduler keeps when its pipes next accept (scheduler.h).
 */
#pragma once

#include "../../config/kernel.h"
#include "../core/fixed.h"
#include "stats.h"

/* Instructions with effects beyond their unit and result. */
typedef enum {
  SM_SPECIAL_NONE,
  SM_SPECIAL_BAR,       /* BAR.SYNC: the warp's shared-memory stores complete first */
  SM_SPECIAL_LDGSTS,    /* asynchronous copy: its completion joins the warp's open group */
  SM_SPECIAL_LDGDEPBAR, /* closes the open group of copies */
  SM_SPECIAL_DEPBAR,    /* waits until at most N groups are outstanding */
  SM_SPECIAL_SIMT,      /* ISETP, BRA to a label, BSSY, BSYNC of a stream with lane masks */
  SM_SPECIAL_CLOCK,     /* CS2R / S2R SR_CLOCKLO: the warp reads the clock */
  SM_SPECIAL_FENCE,     /* MEMBAR at GPU scope: waits for the warp's accesses (memory.fence) */
} SmSpecial;

/* Everything the loop needs about one instruction of the stream, computed once. */
typedef struct {
  guint8 unit;           /* IsaUnit */
  guint8 pipe;           /* the pipe it holds: its unit's, or SM_PIPE_INT or SM_PIPE_FMAHEAVY
                            (sass.ops' pipe) */
  guint8 space;          /* IsaSpace */
  guint8 result_state;   /* SmState of a warp waiting on the result */
  guint8 throttle_state; /* SmState of a warp waiting for the pipe */
  guint8 level;          /* GPU memory level */
  guint8 random_lines;
  guint8 is_load;
  guint8 is_store;
  guint8 special;         /* SmSpecial */
  guint8 never;           /* @!PT: issues, occupies its pipe, does nothing else */
  guint8 stall;           /* kernels over SASS with sass.stall_counts: the compiler's stall
                             count, cycles before the warp's next issue (0: none) */
  guint8 no_yield;        /* kernels over SASS with sass.yield_hints: its control bits do not
                             ask the warp to yield, so it keeps its scheduler the next cycle
                             if it can issue then */
  guint8 smem_pattern;    /* shared: IsaPatternKind, for per-access random passes */
  guint16 passes;         /* shared: bank passes (0: random addresses, drawn per access) */
  guint8 writes_register; /* has a destination in the register file (not a predicate) */
  guint8 fixed_latency;   /* its result arrives a fixed latency after issue (ALU ops) */
  guint8 write_cycles;    /* cycles its result holds a register-file write port (a load's
                             wider than register_write_bytes a lane; otherwise 1) */
  guint8 may_run_ahead;   /* uses no memory, and the next instruction is known without lane masks:
                         a warp alone may issue it ahead of the loop (gpu/loop.c, run_ahead()) */
  guint16 n_trans;        /* global: transactions per warp-instruction */
  guint32 trans_bytes;    /* global: bytes per transaction */
  guint8 cache_op;        /* global: SmCacheOp (cache=) */
  guint8 chase_bits;      /* global with a window: bits of its chase (chase.h) */
  guint32 unit_bytes;     /* global with a window: bytes one step of the chase covers */
  guint64 chase_units;    /* global with a window: units in it (0: no window) */
  guint32 issue_cycles;
  guint64 ii_ticks; /* pipe initiation interval: 32 / lanes cycles */
  guint32 latency[ISA_UNIT_COUNT];
  guint32 max_latency;
} SmInsnInfo;

/* One record per instruction of @kernel's stream on @gpu (loop markers stay zeroed); g_free. */
SmInsnInfo *sm_pipe_decode(const CfgGpu *gpu, const CfgKernel *kernel);

/* The state of a warp whose instruction finds @unit's pipe busy (SmState). */
static inline guint8
sm_unit_throttle_state(const CfgGpu *gpu, guint unit)
{
  return gpu->units[unit].through_mio ? SM_STATE_MIO_THROTTLE : SM_STATE_MATH_PIPE_THROTTLE;
}

/* A pipe that takes a whole warp-instruction every cycle (32 lanes or more) is free again at
 * the start of every cycle. */
static inline gboolean
sm_pipe_single_cycle(const CfgGpu *gpu, IsaUnit unit)
{
  return gpu->units[unit].lanes_per_scheduler >= 32;
}

/* The pipe, free from @free_ticks, cannot take an instruction in cycle @t. */
static inline gboolean
sm_pipe_busy(guint64 free_ticks, guint64 t)
{
  return free_ticks >= sm_ticks(t + 1);
}

/* The pipe takes an instruction at @now_ticks; returns when it is free again. */
static inline guint64
sm_pipe_accept(guint64 free_ticks, guint64 now_ticks, guint64 ii_ticks)
{
  return MAX(free_ticks, now_ticks) + ii_ticks;
}
