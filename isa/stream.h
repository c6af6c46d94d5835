/* A compiled per-warp instruction stream: a flat array of instructions with loop markers; not
 * its text form's parser (asm.h).
 *
 * Every warp of a kernel runs the same IsaProgram; warps keep their own program counter and
 * loop counters (see sim/warp.h).  Registers are renumbered densely (0 .. n_regs-1) so the
 * scoreboard needs only as many slots as the stream names; RZ is ISA_NO_REG.
 */
#pragma once

#include "isa.h"

#define ISA_NO_REG 0xffu
#define ISA_MAX_REGS 254u
#define ISA_MAX_LOOP_DEPTH 16u
#define ISA_MAX_LEVELS 8u

typedef enum {
  ISA_PATTERN_COALESCED, /* lane i reads 4 bytes at base + 4 i */
  ISA_PATTERN_STRIDE,    /* lane i reads 4 bytes at base + 4 i stride */
  ISA_PATTERN_RANDOM,    /* every lane reads its own random sector */
} IsaPatternKind;

enum { ISA_GUARD_NONE, ISA_GUARD_IF, ISA_GUARD_UNLESS };

typedef enum {
  ISA_INSN_OP,   /* a real instruction */
  ISA_INSN_LOOP, /* start of "repeat count { ... }": jump = index of its ISA_INSN_END */
  ISA_INSN_END,  /* end of a repeat body: jump = index of its ISA_INSN_LOOP */
} IsaInsnKind;

typedef struct {
  guint8 kind;    /* IsaInsnKind */
  guint8 op;      /* IsaOp */
  guint8 dst;     /* register slot or ISA_NO_REG */
  guint8 nsrc;    /* number of register sources in src[] */
  guint8 src[3];  /* register slots */
  guint8 level;   /* global ops: index into IsaProgram.levels */
  guint8 pattern; /* global ops: IsaPatternKind */
  guint8 stride;  /* ISA_PATTERN_STRIDE: stride in 4-byte words (2..32) */
  guint8 guard; /* 0, or the last of src[] is a guard predicate: ISA_GUARD_IF (@P), _UNLESS (@!P) */
  guint32 count; /* ISA_INSN_LOOP: iterations */
  guint32 jump;  /* loop partner index */
  guint32 line;  /* 1-based line in the stream text, for messages */
} IsaInsn;

typedef struct {
  IsaInsn *insns;
  guint n_insns;
  guint n_regs;
  char **reg_names; /* n_regs names, "R1" ... */
  char **levels;    /* n_levels memory level names used by global ops */
  guint n_levels;
  guint64 dynamic_count; /* real instructions one warp issues for one pass of the stream */
} IsaProgram;

void isa_program_free(IsaProgram *program);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(IsaProgram, isa_program_free)

/* Human-readable form of one instruction ("LDG R1, [R1] pattern=coalesced level=dram"). */
char *isa_insn_format(const IsaProgram *program, const IsaInsn *insn);
