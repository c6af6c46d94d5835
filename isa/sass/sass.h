/* SASS text (`cuobjdump -sass`, `nvdisasm`) read into functions of decoded instructions.
 *
 * Only the text is read here: what an instruction computes is sim/exec/, what it costs is the
 * GPU file's table and sim/.  Every instruction keeps its line in the file for messages.  An
 * opcode or modifier the tables (sass-ops.def, sass-mods.def) do not know is refused with
 * "FILE:LINE: unsupported SASS instruction 'OPCODE'", never skipped.
 */
#pragma once

#include <glib.h>

typedef enum {
#define SASS_OP(e, m, l) SASS_OP_##e,
#include "sass-ops.def"
#undef SASS_OP
  SASS_OP_COUNT
} SassOp;

typedef enum {
#define SASS_MOD(e, m) SASS_MOD_##e,
#include "sass-mods.def"
#undef SASS_MOD
  SASS_MOD_COUNT
} SassMod;

typedef enum {
  SASS_OPD_REG,     /* R0..R254; reg 255 is RZ */
  SASS_OPD_UREG,    /* UR0..UR62; reg 63 is URZ */
  SASS_OPD_PRED,    /* P0..P6; reg 7 is PT */
  SASS_OPD_UPRED,   /* UP0..UP6; reg 7 is UPT */
  SASS_OPD_IMM,     /* an integer or a float as written (flags SASS_F_FLOAT, fvalue) */
  SASS_OPD_CONST,   /* c[bank][offset], c[bank][Rn + offset]: reg (255: none), bank, value */
  SASS_OPD_MEM,     /* [Rn.64 + URm + offset]: reg (255: none), ureg (63: none), value */
  SASS_OPD_SREG,    /* SR_*: reg is a SassSreg */
  SASS_OPD_BARRIER, /* B0..B15 */
  SASS_OPD_SB,      /* SB0..SB5 (DEPBAR) */
  SASS_OPD_TARGET,  /* a branch target: value is the instruction index in its function */
} SassOperandKind;

enum {
  SASS_F_NEG = 1 << 0,   /* -x */
  SASS_F_ABS = 1 << 1,   /* |x| */
  SASS_F_NOT = 1 << 2,   /* ~x, !P */
  SASS_F_H0 = 1 << 3,    /* .H0_H0: the low half in both halves */
  SASS_F_H1 = 1 << 4,    /* .H1_H1: the high half in both halves */
  SASS_F_WIDE = 1 << 5,  /* memory base .64: a 64-bit register pair */
  SASS_F_FLOAT = 1 << 6, /* an immediate written as a float (fvalue) */
  SASS_F_HPAIR = 1 << 7, /* two half-precision immediates packed into value */
};

typedef enum {
  SASS_SR_ZERO, /* SRZ */
  SASS_SR_TID_X,
  SASS_SR_TID_Y,
  SASS_SR_TID_Z,
  SASS_SR_CTAID_X,
  SASS_SR_CTAID_Y,
  SASS_SR_CTAID_Z,
  SASS_SR_LANEID,
  SASS_SR_CLOCKLO,
  SASS_SR_CLOCKHI,
  SASS_SR_GLOBALTIMERLO,
  SASS_SR_GLOBALTIMERHI,
  SASS_SR_CGACTAID,
  SASS_SR_VIRTUALSMID,
  SASS_SR_SMID,
  SASS_SR_EQMASK,
  SASS_SR_LTMASK,
  SASS_SR_LEMASK,
  SASS_SR_GTMASK,
  SASS_SR_GEMASK,
  SASS_SR_COUNT
} SassSreg;

#define SASS_RZ 255u
#define SASS_URZ 63u
#define SASS_PT 7u
#define SASS_MAX_OPERANDS 8u

typedef struct {
  guint8 kind;   /* SassOperandKind */
  guint8 flags;  /* SASS_F_* */
  guint8 reg;    /* see SassOperandKind */
  guint8 ureg;   /* MEM: uniform register term (SASS_URZ: none) */
  guint8 bank;   /* CONST: the bank */
  gint64 value;  /* IMM: integer bits (a float: its float32 bits); CONST, MEM: byte offset;
                    TARGET: instruction index */
  double fvalue; /* IMM written as a float */
} SassOperand;

typedef struct {
  guint16 op;           /* SassOp */
  guint8 guard;         /* predicate guarding it: 0..6, SASS_PT (always) */
  guint8 guard_not;     /* @!P */
  guint8 guard_uniform; /* @UP */
  guint8 n_operands;
  guint64 mods[2];    /* SassMod bits */
  guint8 mod_list[8]; /* the first modifiers in the order written (F2F.F64.F32: the first type
                         is the destination's) */
  guint8 n_mods;
  /* the compiler's stall count from the instruction's control bits (bits 105-108 of its
   * 128-bit encoding, listed by cuobjdump as the second word): cycles before the warp's next
   * instruction may issue; 0 when the text has no encodings */
  guint8 stall;
  /* its yield hint clear (bit 109 set: bit 45 of the control word cuobjdump lists): the warp
   * keeps its scheduler after it; 0 when the text has no encodings */
  guint8 no_yield;
  SassOperand opd[SASS_MAX_OPERANDS];
  guint32 addr; /* byte address in its function */
  guint32 line; /* 1-based line in the file */
} SassInsn;

typedef struct {
  char *name;      /* as in the file (mangled) */
  char *demangled; /* the plain name ("saxpy" for _Z5saxpyifPKfPf) */
  SassInsn *insns; /* at consecutive addresses 16 bytes apart */
  guint n_insns;
} SassFunction;

typedef struct {
  char *path; /* for messages */
  SassFunction *functions;
  guint n_functions;
} SassFile;

/* Reads SASS text; @path names it in messages ("FILE:LINE: ...").  Returns NULL and sets
 * @error on text it cannot read. */
SassFile *sass_file_parse(const char *text, gsize length, const char *path, GError **error);
/* Reads a file (gzip-compressed when it ends in .gz). */
SassFile *sass_file_load(const char *path, GError **error);
void sass_file_free(SassFile *file);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SassFile, sass_file_free)

/* The function named @name (mangled, or its plain name); NULL @name picks the only function
 * of the file.  NULL with @error set when there is none or more than one. */
const SassFunction *sass_file_function(const SassFile *file, const char *name, GError **error);

/* The IEEE half-precision bits of @f, rounded to nearest even (half immediates, F2FP, HADD2). */
guint16 sass_half_bits(float f);

const char *sass_op_name(SassOp op);
/* The synthetic ISA op (IsaOp) the timing machine runs @op as. */
guint sass_op_lowered(SassOp op);
const char *sass_mod_name(SassMod mod);
gboolean sass_op_lookup(const char *name, SassOp *op);
gboolean sass_mod_lookup(const char *name, SassMod *mod);

static inline gboolean
sass_has(const SassInsn *insn, SassMod mod)
{
  return (insn->mods[mod >> 6] >> (mod & 63)) & 1u;
}

/* Of modifiers @a and @b, the one written first; SASS_MOD_COUNT when neither is. */
static inline SassMod
sass_first_mod(const SassInsn *insn, SassMod a, SassMod b)
{
  for (guint i = 0; i < insn->n_mods; i++)
    if (insn->mod_list[i] == a || insn->mod_list[i] == b)
      return (SassMod)insn->mod_list[i];
  return SASS_MOD_COUNT;
}

/* The function as the timing machine runs it: one synthetic-ISA instruction per SASS
 * instruction and the register slots each reads and writes (IsaProgram.deps); its global
 * accesses name memory level 0, "dram".  NULL with @error when it needs more register slots
 * than the scoreboard has.  (An IsaProgram, from ../stream.h.) */
typedef struct IsaProgram IsaProgram;
IsaProgram *sass_lower(const SassFunction *fn, const char *path, GError **error);

/* Bytes a memory instruction accesses per lane: .128 16, .64 8, .U8/.S8 1, .U16/.S16 2, else 4. */
static inline guint
sass_access_bytes(const SassInsn *insn)
{
  if (sass_has(insn, SASS_MOD_B128))
    return 16;
  if (sass_has(insn, SASS_MOD_B64))
    return 8;
  if (sass_has(insn, SASS_MOD_U8) || sass_has(insn, SASS_MOD_S8))
    return 1;
  if (sass_has(insn, SASS_MOD_U16) || sass_has(insn, SASS_MOD_S16))
    return 2;
  return 4;
}

/* "IMAD.WIDE.U32": the opcode with its modifiers, into @buf. */
void sass_insn_opcode(const SassInsn *insn, char *buf, gsize size);
