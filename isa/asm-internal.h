/* The assembler's shared state and its three parts: the lexer (lexer.c), expressions over
 * kernel parameters (expr.c) and statements (asm.c).  Not for use outside isa/: see asm.h. */
#pragma once

#include <string.h>

#include "asm.h"

typedef enum {
  TOK_END,
  TOK_NEWLINE, /* also ';' */
  TOK_IDENT,
  TOK_NUMBER,
  TOK_PARAM, /* $name */
  TOK_PUNCT, /* text holds the punctuation: , [ ] { } ( ) + - * / % < > <= >= == != && || ! ? : = ..
              */
} TokKind;

typedef struct {
  TokKind kind;
  char *text;
  double number;
  guint line, col;
  gboolean glued; /* no white space before this token */
} Tok;

typedef struct {
  gboolean is_str;
  double num;
  const char *str; /* borrowed from a token, a parameter or the string pool */
} Value;

typedef struct {
  const char *name;
  double value;
} LoopVar;

typedef struct {
  GArray *toks; /* Tok */
  guint pos;
  GHashTable *params;
  GArray *vars;  /* LoopVar, innermost last */
  GArray *insns; /* IsaInsn */
  GPtrArray *reg_names;
  GPtrArray *levels;
  GArray *accesses;   /* IsaAccess */
  GArray *open_loops; /* guint indices of ISA_INSN_LOOP */
  GError *error;
  guint err_line, err_col;
  guint nesting; /* open parentheses, operators and blocks: bounded, they recurse */
  /* control flow (flow.c) */
  GArray *scopes;        /* AsmScope: where labels live, innermost last */
  guint next_scope;      /* ids of scope instances */
  GArray *labels;        /* AsmLabel */
  GArray *branches;      /* AsmBranch: BRA label and BSSY Bn, label, resolved at the end */
  GArray *regions;       /* AsmRegion: every BSSY ... BSYNC, in BSSY order */
  GArray *open_regions;  /* guint indices into regions, innermost last */
  GHashTable *preds_set; /* predicate names an ISETP has written so far */
} Asm;

typedef struct {
  guint id;
  gboolean repeat; /* a repeat body (a runtime loop): branches do not leave it */
} AsmScope;

/* Deepest nesting of expressions and blocks (each level is a recursion). */
#define ASM_MAX_NESTING 256u

/* Enters one more level of nesting at @t; FALSE (with an error) beyond ASM_MAX_NESTING.
 * Every successful call is paired with asm_leave(). */
gboolean asm_enter(Asm *a, const Tok *t);
static inline void
asm_leave(Asm *a)
{
  a->nesting--;
}

/* Records the first error at @t's position; returns FALSE. */
gboolean asm_fail_at(Asm *a, const Tok *t, const char *fmt, ...) G_GNUC_PRINTF(3, 4);
void asm_init(Asm *a, GHashTable *params);
void asm_clear(Asm *a);

/* Control flow (flow.c).  Scopes: the top level, every repeat body and every unrolled for
 * iteration; a label lives in the scope it is defined in and is found from inner scopes up to
 * the innermost repeat body.  Branches go forward; BSSY/BSYNC regions nest within one scope. */
void asm_flow_init(Asm *a);
void asm_flow_clear(Asm *a);
void asm_scope_enter(Asm *a, gboolean repeat);
/* Leaves the innermost scope; fails at @close when a BSSY region opened in it is still open. */
gboolean asm_scope_leave(Asm *a, const Tok *close);
/* "NAME:" at @t labels the next instruction. */
gboolean asm_flow_label(Asm *a, const Tok *t);
/* The instruction about to be appended (index a->insns->len) is a BRA to the label @t. */
gboolean asm_flow_branch(Asm *a, const Tok *t, gboolean conditional);
/* ... a BSSY Bn, label @t; ... a BSYNC Bn at @at. */
gboolean asm_flow_bssy(Asm *a, const Tok *at, guint barrier, const Tok *label);
gboolean asm_flow_bsync(Asm *a, const Tok *at, guint barrier);
/* Predicate @name (P0..P6) is written by an ISETP / read at @t (fails before any write). */
/* An ISETP set @name: @uniform when it is the same in every lane (a comparison of registers,
 * or a lane expression true in all lanes or none), so a branch it guards cannot diverge. */
void asm_flow_set_pred(Asm *a, const char *name, gboolean uniform);
gboolean asm_flow_pred_uniform(const Asm *a, const char *name);
gboolean asm_flow_use_pred(Asm *a, const Tok *t, const char *name);
/* Resolves labels into a->insns (jump fields); FALSE with the error at the culprit. */
gboolean asm_flow_finish(Asm *a);

/* Splits @text into a->toks (ending with TOK_END). */
gboolean asm_lex(Asm *a, const char *text);

static inline Tok *
asm_peek(Asm *a)
{
  return &g_array_index(a->toks, Tok, a->pos);
}

static inline Tok *
asm_next(Asm *a)
{
  Tok *t = asm_peek(a);
  if (t->kind != TOK_END)
    a->pos++;
  return t;
}

static inline gboolean
asm_is_punct(const Tok *t, const char *p)
{
  return t->kind == TOK_PUNCT && strcmp(t->text, p) == 0;
}

static inline gboolean
asm_is_word(const Tok *t, const char *w)
{
  return t->kind == TOK_IDENT && strcmp(t->text, w) == 0;
}

/* One instruction statement at the current token (insn.c). */
gboolean asm_parse_instruction(Asm *a);
/* @t ends a statement: end of line or stream, or '}'. */
gboolean asm_at_statement_end(const Tok *t);

/* Consumes the punctuation @p or fails. */
gboolean asm_expect(Asm *a, const char *p);

/* A parameter's text as a value: a number when it reads as one, else a string. */
Value asm_value_from_text(const char *text);
/* $name at @t: a loop variable (innermost first) or a kernel parameter. */
gboolean asm_lookup_param(Asm *a, const Tok *t, Value *out);
/* Expressions with precedence climbing from @min_prec (1: everything but ?:). */
gboolean asm_parse_binary(Asm *a, int min_prec, Value *out);
gboolean asm_parse_expr(Asm *a, Value *out);
/* Fails at @at unless @v is a number. */
gboolean asm_need_num(Asm *a, const Tok *at, const Value *v);
/* An expression that must be a whole number from 0 to @max (@what names it in errors). */
gboolean asm_parse_whole(Asm *a, const char *what, guint64 max, guint64 *out);
