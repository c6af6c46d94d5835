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
/* IsaInsn.level of a global op that names no level and has a window: the caches decide */
#define ISA_LEVEL_NONE 0xFFu
/* most bytes a window= may span */
#define ISA_MAX_WINDOW (1ull << 44)

/* Lanes' addresses of a memory op with access width W bytes per lane (.32: 4, .64: 8, .128: 16). */
typedef enum {
  ISA_PATTERN_COALESCED, /* lane i accesses W bytes at base + W i */
  ISA_PATTERN_STRIDE,    /* lane i accesses W bytes at base + W i stride */
  ISA_PATTERN_RANDOM,    /* every lane accesses its own random address (sector, or word) */
  ISA_PATTERN_BROADCAST, /* every lane accesses the same W bytes */
} IsaPatternKind;

#define ISA_MAX_STRIDE 64u
/* DEPBAR.LE SB0, N: N from 0 to this (groups of asynchronous copies a warp tracks) */
#define ISA_MAX_DEPBAR 63u

/* @P (if), @!P (unless); @!PT (never): the instruction issues and does nothing else */
enum { ISA_GUARD_NONE, ISA_GUARD_IF, ISA_GUARD_UNLESS, ISA_GUARD_NEVER };

/* Convergence barriers B0 .. B15 (BSSY / BSYNC). */
#define ISA_MAX_BARRIERS 16u

/* What an ISETP's predicate holds, per lane (kept in IsaInsn.pattern). */
typedef enum {
  ISA_PRED_COMPARE, /* ISETP Pd, Ra, Rb: data smsim does not track: true in every lane */
  ISA_PRED_LANES,   /* a lane expression: the lanes where it holds (IsaInsn.lanes) */
  ISA_PRED_CHANCE,  /* chance(p): every lane draws, true with probability count / 2^32 */
} IsaPredKind;

/* How a global load meets the caches (PTX's cache operators). */
typedef enum {
  ISA_CACHE_CA, /* ld.global.ca (a plain LDG): every level keeps it */
  ISA_CACHE_NC, /* ld.global.nc (LDG.CONSTANT): read-only, every level keeps it */
  ISA_CACHE_CG, /* ld.global.cg (LDG.STRONG.GPU): only the L2 keeps it */
} IsaCacheOp;

/* A global op's addresses: a window of memory its accesses walk (window=), and its cache
 * operator (cache=). */
typedef struct {
  guint64 window; /* bytes; 0: lines drawn at random, never twice */
  guint8 cache;   /* IsaCacheOp */
} IsaAccess;

typedef enum {
  ISA_INSN_OP,   /* a real instruction */
  ISA_INSN_LOOP, /* start of "repeat N { ... }": partner = index of its ISA_INSN_END */
  ISA_INSN_END,  /* end of a repeat body: partner = index of its ISA_INSN_LOOP */
} IsaInsnKind;

typedef struct {
  guint8 kind;   /* IsaInsnKind */
  guint8 op;     /* IsaOp */
  guint8 dst;    /* register slot or ISA_NO_REG */
  guint8 nsrc;   /* number of register sources in src[] */
  guint8 src[3]; /* register slots */
  union {
    guint8 level;   /* global ops: index into IsaProgram.levels */
    guint8 barrier; /* BSSY, BSYNC: the convergence barrier's number (B0 ...) */
  };
  guint8 pattern; /* global ops: IsaPatternKind */
  guint8 stride;  /* ISA_PATTERN_STRIDE: stride in elements of the width (2..ISA_MAX_STRIDE) */
  guint8 width;   /* memory ops: bytes per lane (4, 8, 16); 0 for other ops */
  guint8 guard;   /* 0; ISA_GUARD_IF (@P) or _UNLESS (@!P): the last of src[] is the predicate;
                     ISA_GUARD_NEVER (@!PT) */
  union {         /* a number, by kind and op: */
    guint32 iterations; /* ISA_INSN_LOOP: its body's iterations */
    guint32 groups;     /* DEPBAR: groups of copies allowed to stay outstanding */
    guint32 lanes;      /* ISETP, ISA_PRED_LANES: the lanes where the predicate holds */
    guint32 chance;     /* ISETP, ISA_PRED_CHANCE: its probability x 2^32 */
    guint32 labelled;   /* BRA: 1 when it has a label (0: it closes a repeat body) */
  };
  union {            /* an index, by kind and op: */
    guint32 partner; /* ISA_INSN_LOOP, ISA_INSN_END: the other end of the repeat body */
    guint32 target;  /* BRA with a label: the instruction it branches to */
    guint32 sync;    /* BSSY: its BSYNC; BSYNC: its BSSY */
    guint32 access;  /* global ops: 1 + index into IsaProgram.accesses, 0 for none */
  };
  guint32 line; /* 1-based line in the stream text, for messages */
} IsaInsn;

/* In a stream with lane masks (IsaProgram.simt), the SIMT stack runs @insn (sim/sm/simt.c): an
 * op that sets or follows lanes, but a BRA that closes a repeat body (no label: the loop walk
 * decides it). */
static inline gboolean
isa_insn_follows_lanes(const IsaInsn *insn)
{
  if (insn->kind != ISA_INSN_OP)
    return FALSE;
  const IsaOpInfo *op = isa_op_info((IsaOp)insn->op);
  return op->effect == ISA_EFFECT_LANES && !(op->shape == ISA_SHAPE_BRA && !insn->labelled);
}

/* @insn makes its stream need lane masks: it follows lanes, and is not a predicate that holds
 * in every lane (a comparison of data smsim does not track). */
static inline gboolean
isa_insn_needs_lanes(const IsaInsn *insn)
{
  return isa_insn_follows_lanes(insn) && !(isa_op_info((IsaOp)insn->op)->shape == ISA_SHAPE_SETP &&
                                           insn->pattern == ISA_PRED_COMPARE);
}

/* @insn draws random numbers lane by lane (a chance predicate), whatever memory it touches. */
static inline gboolean
isa_insn_draws_chance(const IsaInsn *insn)
{
  return insn->kind == ISA_INSN_OP && isa_op_info((IsaOp)insn->op)->shape == ISA_SHAPE_SETP &&
         insn->pattern == ISA_PRED_CHANCE;
}

/* The register slots one instruction reads and writes, when they do not fit IsaInsn's src[] and
 * dst (SASS: register pairs and quads, predicates, uniform registers, several results). */
#define ISA_DEPS_MAX_SRC 14u
#define ISA_DEPS_MAX_DST 6u
typedef struct {
  guint8 n_src, n_dst;
  guint8 src[ISA_DEPS_MAX_SRC];
  guint8 dst[ISA_DEPS_MAX_DST];
} IsaDeps;

typedef struct IsaProgram {
  IsaInsn *insns;
  guint n_insns;
  IsaDeps *deps; /* per instruction, for streams lowered from SASS (isa/sass/lower.c); NULL for
                    assembled streams, whose IsaInsn says it all */
  guint n_regs;
  char **reg_names; /* n_regs names, "R1" ... */
  char **levels;    /* n_levels memory level names used by global ops */
  guint n_levels;
  IsaAccess *accesses; /* n_accesses windows and cache operators of global ops */
  guint n_accesses;
  guint64 dynamic_count; /* real instructions one warp issues for one pass of the stream */
  gboolean simt; /* lane predicates, branches to labels or convergence barriers: per-lane masks */
} IsaProgram;

void isa_program_free(IsaProgram *program);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(IsaProgram, isa_program_free)

/* Human-readable form of one instruction ("LDG R1, [R1] pattern=coalesced level=dram"). */
char *isa_insn_format(const IsaProgram *program, const IsaInsn *insn);
