/* The SASS executor: warps that run a kernel's SASS on real lane values.
 *
 * A warp holds its lanes' registers (R), uniform registers (UR), predicates (P, one lane mask
 * each) and uniform predicates (UP), a program counter per lane and its convergence barriers
 * (B0..B15).  Global memory is a sparse image of the kernel's buffers; each block has its own
 * shared memory and each thread its local memory.  exec_warp_step() executes the warp's next
 * instruction for the lanes that are at it and says what it did (ExecStep): the instruction,
 * the lanes, the per-lane addresses of a memory access.  The timing machine (sim/) asks for
 * that and never interprets values; a functional run (exec_grid_run) needs no timing at all.
 *
 * Which lanes run next: the lowest program counter among the lanes not waiting at a
 * convergence barrier.  Lanes that part at a branch thus run one path after the other; each
 * group that reaches BSYNC (or WARPSYNC) runs it and waits there, and the last group expected
 * runs it too and takes all of them on, as one warp again.
 */
#pragma once

#include "sass.h"

#define EXEC_ERROR g_quark_from_static_string("exec-error")

/* The constant bank 0 as sm_90 lays it out. */
enum {
  EXEC_CBANK_NTID = 0x0,     /* blockDim.x, .y, .z */
  EXEC_CBANK_NCTAID = 0xc,   /* gridDim.x, .y, .z */
  EXEC_CBANK_STACK = 0x28,   /* the local-memory stack pointer a thread starts with */
  EXEC_CBANK_DESC = 0x208,   /* the global memory descriptor (desc[URn]) */
  EXEC_CBANK_PARAMS = 0x210, /* the kernel's parameters */
  EXEC_CBANK_SIZE = 0x1000,
};

/* Shared-memory addresses of a block start after the 1 KiB sm_90 reserves in each block's
 * share (the SASS adds 0x400 to every shared address it forms). */
#define EXEC_SHARED_RESERVED 0x400u

/* Global memory: the buffers a kernel is given, at device addresses far apart. */
typedef struct ExecMemory ExecMemory;

ExecMemory *exec_memory_new(void);
void exec_memory_free(ExecMemory *mem);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(ExecMemory, exec_memory_free)
/* A zeroed buffer of @size bytes named @name; returns its device address (256-byte aligned). */
guint64 exec_memory_add(ExecMemory *mem, const char *name, gsize size);
/* The bytes of buffer @index (in the order added), and its size and address. */
guint8 *exec_memory_data(ExecMemory *mem, guint index, gsize *size, guint64 *address);
guint exec_memory_count(const ExecMemory *mem);
const char *exec_memory_name(const ExecMemory *mem, guint index);
/* The buffer holding the @len bytes at device address @addr (its index), or -1. */
gint exec_memory_index(ExecMemory *mem, guint64 addr, gsize len);
/* The host bytes at device address @addr, @len bytes all inside one buffer; NULL otherwise. */
guint8 *exec_memory_at(ExecMemory *mem, guint64 addr, gsize len);
/* Global memory shared by SMs stepped apart on threads (sim/parallel.c): before a global load,
 * store or copy touches the bytes of its lanes (@lanes, at @addr, @bytes each), @fn is asked,
 * with the warp's SM (ExecWarp.smid) and whether it writes.  FALSE: the access must not touch
 * them (another SM's met it where their order is unknown, and the run is stepped again: what
 * it would have read is never used).  A NULL @fn lets every access through. */
typedef gboolean (*ExecGuardFn)(gpointer data, guint32 smid, const guint64 addr[32], guint32 lanes,
                                guint bytes, gboolean write);
void exec_memory_set_guard(ExecMemory *mem, ExecGuardFn fn, gpointer data);

typedef struct {
  guint32 grid[3];      /* blocks in x, y, z */
  guint32 block[3];     /* threads per block in x, y, z */
  guint32 shared_bytes; /* static + dynamic shared memory per block */
  guint32 local_bytes;  /* local memory (stack) per thread */
  const guint8 *params; /* parameter bytes, at c[0x0][0x210] */
  gsize params_size;
  guint32 const4[2];       /* c[0x4][0x0]: address of the math library's global table (64-bit) */
  const guint8 *constants; /* c[0x3]: the kernel's __constant__ data (NULL: none) */
  gsize constants_size;
} ExecLaunch;

/* A kernel ready to run: its function, launch and memory; shared by all its blocks. */
typedef struct {
  const SassFunction *fn;
  const char *path; /* the SASS file, for messages */
  ExecMemory *mem;
  ExecLaunch launch;
  guint8 cbank0[EXEC_CBANK_SIZE];
  guint n_regs; /* registers per thread the code names (highest + 2: pairs) */
} ExecKernel;

ExecKernel *exec_kernel_new(const SassFunction *fn, const char *path, ExecMemory *mem,
                            const ExecLaunch *launch, GError **error);
void exec_kernel_free(ExecKernel *k);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(ExecKernel, exec_kernel_free)

typedef struct ExecWarp ExecWarp;

typedef struct {
  ExecKernel *k;
  guint32 ctaid[3];
  guint32 index; /* linear block index */
  guint8 *shared;
  guint n_warps;
  ExecWarp *warps;
} ExecBlock;

struct ExecWarp {
  ExecBlock *block;
  guint id;          /* warp within its block */
  guint32 lanes;     /* threads that exist */
  guint32 exited;    /* lanes that ran EXIT */
  gboolean diverged; /* lanes may be at different instructions */
  guint32 pc[32];    /* next instruction of each lane (an index into the function) */
  guint32 bar[16];   /* convergence barriers: lanes expected at BSYNC Bn */
  guint32 waiting;   /* lanes that ran a BSYNC or WARPSYNC and wait there for the others */
  guint32 p[8];      /* predicates, one bit a lane; p[7] (PT) is all ones */
  guint8 up[8];      /* uniform predicates; up[7] (UPT) is 1 */
  guint32 ur[64];    /* uniform registers; ur[63] (URZ) stays 0 */
  guint32 *r;        /* n_regs x 32 lanes, register-major */
  guint n_regs;      /* registers it holds (the kernel's, less RZ) */
  guint8 *local;     /* local_bytes x 32 lanes */
  guint64 clock;     /* what SR_CLOCKLO reads (the caller sets it) */
  guint32 smid;      /* what SR_SMID / SR_VIRTUALSMID read */
};

typedef enum {
  EXEC_STEP_OK,      /* an instruction ran */
  EXEC_STEP_BARRIER, /* it was BAR.SYNC: the warp waits for its block (exec_block_release) */
  EXEC_STEP_EXITED,  /* no lane is left: nothing ran */
  EXEC_STEP_ERROR,
} ExecStepStatus;

typedef enum {
  EXEC_SPACE_NONE,
  EXEC_SPACE_GLOBAL,
  EXEC_SPACE_SHARED,
  EXEC_SPACE_LOCAL,
  EXEC_SPACE_CONST,
} ExecSpace;

/* What one step did, for the timing machine. */
typedef struct {
  guint32 pc;      /* the instruction (index into the function) */
  guint32 active;  /* lanes at it */
  guint32 enabled; /* of those, lanes whose guard held */
  guint8 space;    /* ExecSpace of a memory access */
  guint8 bytes;    /* bytes per lane it accesses */
  guint8 is_store;
  guint64 addr[32]; /* per enabled lane: the address accessed (global: device address;
                       LDC's constant: its bank << 32 | its offset) */
  guint64 lo, hi;   /* the lowest and highest of them when lo <= hi; unknown when lo > hi */
} ExecStep;

ExecBlock *exec_block_new(ExecKernel *k, guint32 index);
void exec_block_free(ExecBlock *b);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(ExecBlock, exec_block_free)

/* The instruction @w runs next and its lanes, without running it: EXEC_STEP_OK, or
 * EXEC_STEP_EXITED when no lane is left, or EXEC_STEP_ERROR when every lane waits at a
 * convergence barrier none can reach. */
ExecStepStatus exec_warp_peek(ExecWarp *w, guint32 *pc, guint32 *active, GError **error);

/* Runs @w's next instruction.  On EXEC_STEP_ERROR @error says "FILE:LINE: ..." with the
 * instruction, warp and lane. */
ExecStepStatus exec_warp_step(ExecWarp *w, ExecStep *step, GError **error);
gboolean exec_warp_done(const ExecWarp *w);

/* Runs every block of the kernel to its end, one after the other, each warp until it waits at
 * a barrier.  @steps (may be NULL) counts the warp-instructions. */
gboolean exec_grid_run(ExecKernel *k, guint64 *steps, GError **error);

/* Whether the executor computes @insn (its opcode with these modifiers): a warp that reaches
 * one it does not stops with "FILE:LINE: unsupported SASS instruction 'OPCODE'". */
gboolean exec_insn_supported(const SassInsn *insn);

/* The instruction's text as "OPCODE" for messages. */
void exec_describe(const ExecKernel *k, guint32 pc, char *buf, gsize size);
