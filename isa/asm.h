/* Text assembler for instruction streams.
 *
 * The text reads like SASS, one instruction per line (or separated by ';'):
 *
 *   LDG R1, [R1] pattern=coalesced level=dram
 *   FADD R1, R1, R2
 *
 * plus a small compile-time language over kernel parameters:
 *
 *   repeat EXPR { ... }            loop, executed by the warp (not unrolled)
 *   for NAME in EXPR .. EXPR { }   unrolled at assembly time, $NAME usable inside
 *   if EXPR { ... } else { ... }   chosen at assembly time
 *   error TEXT                     refuse the parameters (TEXT, with $params filled in)
 *   $name, R{EXPR}, EXPR           parameters, computed registers, arithmetic
 *                                  (+ - * / % < <= > >= == != && || ! ?: min max round
 *                                  floor ceil); bare words are strings (none, LDG, ...)
 *
 * Comments start with '#'.  Operands: registers R0..R253, RZ (always ready), immediates.
 * Memory ops take an access width suffix (.32 default, .64, .128) and the lanes' addresses as
 * pattern=coalesced|strideN|broadcast|random or stride=EXPR (0 broadcast, 1 coalesced); global
 * ones also level=NAME (default dram).  Stores: STG/STS [Ra], Rb.  Asynchronous copies:
 * LDGSTS [Rshared], [Rglobal]; LDGDEPBAR; DEPBAR.LE SB0, N.
 */
#pragma once

#include "stream.h"

#define ISA_ASM_ERROR (isa_asm_error_quark())
GQuark isa_asm_error_quark(void);

typedef enum { ISA_ASM_ERROR_SYNTAX } IsaAsmErrorCode;

/* Assembles @text with parameters @params (name -> value text; may be NULL).  On failure
 * returns NULL, sets @error to a message without position and *err_line and *err_col (1-based,
 * within @text) to where it was found. */
/* Evaluates one expression (same language as in streams) to a number or a string. */
gboolean isa_asm_eval(const char *text, GHashTable *params, double *number, char **string,
                      GError **error);

IsaProgram *isa_asm_parse(const char *text, GHashTable *params, guint *err_line, guint *err_col,
                          GError **error);
