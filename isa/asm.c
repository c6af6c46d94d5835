/* The assembler's statements: repeat, for, if, error, labels, blocks; and the finished
 * IsaProgram.  Not the lexer (lexer.c), expressions (expr.c), one instruction's operands
 * (insn.c) nor branch and reconvergence bookkeeping (flow.c). */
#include <math.h>
#include <stdlib.h>

#include "asm-internal.h"

static gboolean parse_block(Asm *a);
static gboolean parse_block_at(Asm *a, Tok **close);

static void
skip_newlines(Asm *a)
{
  while (asm_peek(a)->kind == TOK_NEWLINE)
    asm_next(a);
}

/* Skips a balanced "{ ... }" without evaluating it. */
static gboolean
skip_block(Asm *a)
{
  Tok *open = asm_peek(a);
  if (!asm_expect(a, "{"))
    return FALSE;
  int depth = 1;
  while (depth > 0) {
    Tok *t = asm_next(a);
    if (t->kind == TOK_END)
      return asm_fail_at(a, open, "'{' is never closed");
    if (asm_is_punct(t, "{"))
      depth++;
    else if (asm_is_punct(t, "}"))
      depth--;
  }
  return TRUE;
}

static gboolean
parse_repeat(Asm *a, const Tok *kw)
{
  guint64 count;
  if (!asm_parse_whole(a, "repeat count", G_MAXUINT32, &count))
    return FALSE;
  if (a->open_loops->len >= ISA_MAX_LOOP_DEPTH)
    return asm_fail_at(a, kw, "repeat blocks nested deeper than %u", ISA_MAX_LOOP_DEPTH);
  IsaInsn loop = {.kind = ISA_INSN_LOOP, .iterations = (guint32)count, .line = kw->line};
  guint index = a->insns->len;
  g_array_append_val(a->insns, loop);
  g_array_append_val(a->open_loops, index);
  asm_scope_enter(a, TRUE);
  Tok *close = NULL;
  if (!parse_block_at(a, &close) || !asm_scope_leave(a, close))
    return FALSE;
  g_array_set_size(a->open_loops, a->open_loops->len - 1);
  IsaInsn end = {.kind = ISA_INSN_END, .partner = index, .line = kw->line};
  g_array_index(a->insns, IsaInsn, index).partner = a->insns->len;
  g_array_append_val(a->insns, end);
  return TRUE;
}

static gboolean
parse_for(Asm *a, const Tok *kw)
{
  Tok *var = asm_next(a);
  if (var->kind != TOK_IDENT)
    return asm_fail_at(a, var, "expected a loop variable name after 'for', found '%s'", var->text);
  if (!asm_is_word(asm_next(a), "in"))
    return asm_fail_at(a, var, "expected 'in' after 'for %s'", var->text);
  Tok *at = asm_peek(a);
  Value lo, hi;
  if (!asm_parse_binary(a, 1, &lo) || !asm_need_num(a, at, &lo) || !asm_expect(a, ".."))
    return FALSE;
  at = asm_peek(a);
  if (!asm_parse_binary(a, 1, &hi) || !asm_need_num(a, at, &hi))
    return FALSE;
  if (!isfinite(lo.num) || !isfinite(hi.num) || hi.num - lo.num > 1e6)
    return asm_fail_at(a, kw, "for range %g .. %g is not a finite range of at most 10^6 values",
                       lo.num, hi.num);
  guint body = a->pos;
  LoopVar lv = {.name = var->text};
  if (lo.num > hi.num) {
    a->pos = body;
    return skip_block(a);
  }
  g_array_append_val(a->vars, lv);
  for (double v = lo.num; v <= hi.num; v += 1) {
    g_array_index(a->vars, LoopVar, a->vars->len - 1).value = v;
    a->pos = body;
    asm_scope_enter(a, FALSE); /* each unrolled iteration has its own labels */
    Tok *close = NULL;
    if (!parse_block_at(a, &close) || !asm_scope_leave(a, close))
      return FALSE;
  }
  g_array_set_size(a->vars, a->vars->len - 1);
  return TRUE;
}

static gboolean
parse_if(Asm *a)
{
  for (;;) {
    Tok *at = asm_peek(a);
    Value c;
    if (!asm_parse_expr(a, &c) || !asm_need_num(a, at, &c))
      return FALSE;
    gboolean taken = c.num != 0;
    if (!(taken ? parse_block(a) : skip_block(a)))
      return FALSE;
    /* "else" may follow on the same line or the next */
    guint save = a->pos;
    skip_newlines(a);
    if (!asm_is_word(asm_peek(a), "else")) {
      a->pos = save;
      return TRUE;
    }
    asm_next(a);
    if (asm_is_word(asm_peek(a), "if")) {
      asm_next(a);
      if (taken) {
        /* skip the condition and every remaining branch */
        while (!asm_is_punct(asm_peek(a), "{") && asm_peek(a)->kind != TOK_END)
          asm_next(a);
        if (!skip_block(a))
          return FALSE;
        for (;;) {
          save = a->pos;
          skip_newlines(a);
          if (!asm_is_word(asm_peek(a), "else")) {
            a->pos = save;
            return TRUE;
          }
          asm_next(a);
          if (asm_is_word(asm_peek(a), "if"))
            asm_next(a);
          while (!asm_is_punct(asm_peek(a), "{") && asm_peek(a)->kind != TOK_END)
            asm_next(a);
          if (!skip_block(a))
            return FALSE;
        }
      }
      continue;
    }
    return taken ? skip_block(a) : parse_block(a);
  }
}

/* "error TEXT": the kernel refuses its parameters; TEXT with $params filled in. */
static gboolean
parse_error(Asm *a, const Tok *kw)
{
  GString *msg = g_string_new(NULL);
  while (!asm_at_statement_end(asm_peek(a))) {
    Tok *t = asm_next(a);
    if (msg->len > 0 && !t->glued)
      g_string_append_c(msg, ' ');
    Value v;
    if (t->kind == TOK_PARAM) {
      if (!asm_lookup_param(a, t, &v)) {
        g_string_free(msg, TRUE);
        return FALSE;
      }
      if (v.is_str)
        g_string_append(msg, v.str);
      else
        g_string_append_printf(msg, "%g", v.num);
    } else {
      g_string_append(msg, t->text);
    }
  }
  asm_fail_at(a, kw, "%s", msg->len ? msg->str : "the kernel refuses these parameters");
  g_string_free(msg, TRUE);
  return FALSE;
}

static gboolean
parse_statement(Asm *a)
{
  Tok *t = asm_peek(a);
  if (asm_is_word(t, "error")) {
    asm_next(a);
    return parse_error(a, t);
  }
  if (asm_is_word(t, "repeat")) {
    asm_next(a);
    return parse_repeat(a, t);
  }
  if (asm_is_word(t, "for")) {
    asm_next(a);
    return parse_for(a, t);
  }
  if (asm_is_word(t, "if")) {
    asm_next(a);
    return parse_if(a);
  }
  if (asm_is_word(t, "else"))
    return asm_fail_at(a, t, "'else' without 'if'");
  if (t->kind == TOK_IDENT && asm_is_punct(&g_array_index(a->toks, Tok, a->pos + 1), ":") &&
      g_array_index(a->toks, Tok, a->pos + 1).glued) {
    /* "NAME:" labels the next instruction; more statements may follow on the line */
    asm_next(a);
    asm_next(a);
    return asm_flow_label(a, t);
  }
  if (!asm_parse_instruction(a))
    return FALSE;
  Tok *end = asm_peek(a);
  if (!asm_at_statement_end(end))
    return asm_fail_at(a, end, "unexpected '%s'", end->text);
  return TRUE;
}

/* Statements up to the matching '}' (which is consumed), starting at '{'. */
static gboolean parse_block_nested(Asm *a, Tok *open);

static gboolean
parse_block(Asm *a)
{
  Tok *close;
  return parse_block_at(a, &close);
}

static gboolean
parse_block_at(Asm *a, Tok **close)
{
  Tok *open = asm_peek(a);
  if (!asm_enter(a, open))
    return FALSE;
  gboolean ok = parse_block_nested(a, open);
  asm_leave(a);
  *close = &g_array_index(a->toks, Tok, a->pos > 0 ? a->pos - 1 : 0);
  return ok;
}

static gboolean
parse_block_nested(Asm *a, Tok *open)
{
  if (!asm_expect(a, "{"))
    return FALSE;
  for (;;) {
    skip_newlines(a);
    Tok *t = asm_peek(a);
    if (asm_is_punct(t, "}")) {
      asm_next(a);
      return TRUE;
    }
    if (t->kind == TOK_END)
      return asm_fail_at(a, open, "'{' is never closed");
    if (!parse_statement(a))
      return FALSE;
  }
}

static guint64
count_dynamic(const IsaInsn *insns, guint *i, guint end)
{
  guint64 n = 0;
  while (*i < end) {
    const IsaInsn *insn = &insns[*i];
    if (insn->kind == ISA_INSN_OP) {
      n++;
      (*i)++;
    } else if (insn->kind == ISA_INSN_LOOP) {
      guint body = *i + 1;
      guint64 inner = count_dynamic(insns, &body, insn->partner);
      n = n + inner * insn->iterations;
      if (n > G_MAXUINT64 / 4)
        n = G_MAXUINT64 / 4;
      *i = insn->partner + 1;
    } else {
      (*i)++;
    }
  }
  return n;
}

IsaProgram *
isa_asm_parse(const char *text, GHashTable *params, guint *err_line, guint *err_col, GError **error)
{
  Asm a;
  asm_init(&a, params);
  IsaProgram *program = NULL;

  if (asm_lex(&a, text)) {
    for (;;) {
      skip_newlines(&a);
      Tok *t = asm_peek(&a);
      if (t->kind == TOK_END)
        break;
      if (asm_is_punct(t, "}")) {
        asm_fail_at(&a, t, "'}' without a matching '{'");
        break;
      }
      if (!parse_statement(&a))
        break;
    }
  }
  if (a.error == NULL) {
    guint real = 0;
    for (guint i = 0; i < a.insns->len; i++)
      real += g_array_index(a.insns, IsaInsn, i).kind == ISA_INSN_OP;
    if (real == 0) {
      Tok *t = &g_array_index(a.toks, Tok, 0);
      asm_fail_at(&a, t, "the stream has no instructions");
    } else {
      asm_flow_finish(&a);
    }
  }
  if (a.error == NULL) {
    program = g_new0(IsaProgram, 1);
    program->n_insns = a.insns->len;
    program->insns = (IsaInsn *)g_array_free(a.insns, FALSE);
    a.insns = NULL;
    program->n_regs = a.reg_names->len;
    g_ptr_array_add(a.reg_names, NULL);
    program->reg_names = (char **)g_ptr_array_free(a.reg_names, FALSE);
    a.reg_names = NULL;
    program->n_levels = a.levels->len;
    g_ptr_array_add(a.levels, NULL);
    program->levels = (char **)g_ptr_array_free(a.levels, FALSE);
    a.levels = NULL;
    program->n_accesses = a.accesses->len;
    program->accesses = (IsaAccess *)g_array_free(a.accesses, a.accesses->len == 0);
    a.accesses = NULL;
    guint i = 0;
    program->dynamic_count = count_dynamic(program->insns, &i, program->n_insns);
    for (i = 0; i < program->n_insns; i++) {
      if (isa_insn_needs_lanes(&program->insns[i]))
        program->simt = TRUE;
    }
  } else {
    if (err_line)
      *err_line = a.err_line;
    if (err_col)
      *err_col = a.err_col;
    g_propagate_error(error, a.error);
    a.error = NULL;
  }
  asm_clear(&a);
  return program;
}
