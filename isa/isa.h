/* smsim synthetic ISA: ops, units, operand shapes.  Not streams of them (stream.h) nor their
 * timing on a GPU (config/gpu.h, sim/pipe.h). */
#pragma once

#include <glib.h>

/* Pipelines an op can execute on (isa-units.def).  Order is used as an array index everywhere. */
typedef enum {
#define ISA_UNIT(e, n, l, lat, iss, r) ISA_UNIT_##e,
#include "isa-units.def"
#undef ISA_UNIT
  ISA_UNIT_COUNT
} IsaUnit;

/* How a warp waits for a unit's result. */
typedef enum {
  ISA_RESULT_FIXED,      /* a fixed latency: the instruction after it waits (state "wait") */
  ISA_RESULT_SCOREBOARD, /* a scoreboard the consumer waits on (state "short_scoreboard") */
} IsaResult;

/* A unit's row of isa-units.def: its name and its defaults. */
typedef struct {
  const char *name;
  guint lanes_per_scheduler, latency_cycles, issue_cycles;
  IsaResult result;
} IsaUnitInfo;

extern const IsaUnitInfo isa_unit_table[ISA_UNIT_COUNT];

typedef enum {
  ISA_SHAPE_NONE,  /* NOP */
  ISA_SHAPE_DS,    /* MOV Rd, Ra */
  ISA_SHAPE_DSS,   /* FADD Rd, Ra, Rb */
  ISA_SHAPE_DSSS,  /* FFMA Rd, Ra, Rb, Rc */
  ISA_SHAPE_DM,    /* LDG Rd, [Ra] */
  ISA_SHAPE_MS,    /* STG [Ra], Rb */
  ISA_SHAPE_MM,    /* LDGSTS [Rs], [Rg]: global to shared, no register written */
  ISA_SHAPE_SBN,   /* DEPBAR.LE SB0, N: a scoreboard and a count */
  ISA_SHAPE_SETP,  /* ISETP Pd, Ra, Rb or ISETP Pd, LANE-EXPRESSION */
  ISA_SHAPE_BRA,   /* BRA (closes a repeat body) or BRA label */
  ISA_SHAPE_BSSY,  /* BSSY Bn, label: the lanes active now reconverge at label (BSYNC Bn) */
  ISA_SHAPE_BSYNC, /* BSYNC Bn */
  ISA_SHAPE_DSR,   /* CS2R Rd, SR_CLOCKLO: reads the clock (clock.per_warp_* of a run) */
} IsaShape;

typedef enum { ISA_SPACE_NONE, ISA_SPACE_GLOBAL, ISA_SPACE_SHARED } IsaSpace;

/* What an op does beyond computing its result (the op table's last column). */
typedef enum {
  ISA_EFFECT_NONE,
  ISA_EFFECT_LOAD,        /* reads memory into its destination register */
  ISA_EFFECT_STORE,       /* writes a register to memory */
  ISA_EFFECT_COPY,        /* an asynchronous copy, global to shared: joins the open group */
  ISA_EFFECT_COPY_COMMIT, /* closes the open group of copies */
  ISA_EFFECT_COPY_WAIT,   /* waits until at most N groups are outstanding */
  ISA_EFFECT_BARRIER,     /* the block's barrier (shared-memory stores complete first) */
  ISA_EFFECT_CLOCK,       /* reads the clock */
  ISA_EFFECT_FENCE,       /* a memory fence at GPU scope: waits for the warp's accesses */
  ISA_EFFECT_LANES,       /* sets or follows lane masks (predicates, branches, convergence) */
} IsaEffect;

typedef enum {
#define ISA_OP(e, m, u, s, sp, ef) ISA_OP_##e,
#include "isa-ops.def"
#undef ISA_OP
  ISA_OP_COUNT
} IsaOp;

typedef struct {
  const char *mnemonic;
  IsaUnit unit;
  IsaShape shape;
  IsaSpace space;
  IsaEffect effect;
} IsaOpInfo;

extern const IsaOpInfo isa_op_table[ISA_OP_COUNT];

static inline const IsaOpInfo *
isa_op_info(IsaOp op)
{
  return &isa_op_table[op];
}
/* Ops that need an asynchronous-copy unit (shared_memory.async_copy). */
static inline gboolean
isa_op_is_async(IsaOp op)
{
  IsaEffect e = isa_op_table[op].effect;
  return e == ISA_EFFECT_COPY || e == ISA_EFFECT_COPY_COMMIT || e == ISA_EFFECT_COPY_WAIT;
}
/* Returns TRUE and sets *op when @mnemonic names an op (case-sensitive, SASS spelling). */
gboolean isa_op_lookup(const char *mnemonic, IsaOp *op);
const char *isa_unit_name(IsaUnit unit);
/* Edits (insertions, deletions, substitutions, swaps of neighbours) from @a to @b, counted up to
 * 3: how near a mistyped name is to a known one ("did you mean"). */
guint isa_name_distance(const char *a, const char *b);
/* The op whose mnemonic is nearest @mnemonic (at most 2 edits, fewer than half its length), or
 * NULL. */
const char *isa_op_nearest(const char *mnemonic);
/* Returns TRUE and sets *unit for "alu", "sfu", "ldst". */
gboolean isa_unit_lookup(const char *name, IsaUnit *unit);

static inline gboolean
isa_op_is_load(IsaOp op)
{
  return isa_op_table[op].effect == ISA_EFFECT_LOAD;
}

static inline gboolean
isa_op_is_store(IsaOp op)
{
  return isa_op_table[op].effect == ISA_EFFECT_STORE;
}
