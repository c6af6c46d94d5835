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
  GArray *open_loops; /* guint indices of ISA_INSN_LOOP */
  GError *error;
  guint err_line, err_col;
  guint nesting; /* open parentheses, operators and blocks: bounded, they recurse */
} Asm;

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
