/* The assembler's lexer: stream text to tokens with line and column, errors at a token, and
 * the assembler state's set-up.  Not expressions (expr.c) nor statements (asm.c). */
#include "asm-internal.h"

G_DEFINE_QUARK(isa - asm - error - quark, isa_asm_error)

gboolean G_GNUC_PRINTF(3, 4) asm_fail_at(Asm *a, const Tok *t, const char *fmt, ...)
{
  if (a->error != NULL)
    return FALSE;
  va_list ap;
  va_start(ap, fmt);
  char *msg = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  a->error = g_error_new_literal(ISA_ASM_ERROR, ISA_ASM_ERROR_SYNTAX, msg);
  a->err_line = t->line;
  a->err_col = t->col;
  g_free(msg);
  return FALSE;
}

static const char *const punct2[] = {"<=", ">=", "==", "!=", "&&", "||", "..", NULL};

gboolean
asm_lex(Asm *a, const char *text)
{
  guint line = 1, col = 1;
  const char *p = text;
  gboolean glued = FALSE;
  while (*p) {
    Tok t = {0};
    t.line = line;
    t.col = col;
    if (*p == ' ' || *p == '\t' || *p == '\r') {
      p++, col++;
      glued = FALSE;
      continue;
    }
    if (*p == '#') {
      while (*p && *p != '\n')
        p++;
      continue;
    }
    t.glued = glued;
    glued = TRUE;
    const char *start = p;
    if (*p == '\n' || *p == ';') {
      t.kind = TOK_NEWLINE;
      if (*p == '\n')
        line++, col = 0;
      p++;
    } else if (g_ascii_isalpha(*p) || *p == '_') {
      while (g_ascii_isalnum(*p) || *p == '_' || (*p == '.' && g_ascii_isalnum(p[1])))
        p++;
      t.kind = TOK_IDENT;
    } else if (*p == '$') {
      p++;
      if (!(g_ascii_isalpha(*p) || *p == '_')) {
        asm_fail_at(a, &t, "'$' must be followed by a parameter name");
        return FALSE;
      }
      while (g_ascii_isalnum(*p) || *p == '_')
        p++;
      t.kind = TOK_PARAM;
    } else if (g_ascii_isdigit(*p) || (*p == '.' && g_ascii_isdigit(p[1]))) {
      char *end;
      if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        t.number = (double)g_ascii_strtoull(p, &end, 16);
      } else {
        while (g_ascii_isdigit(*p) || (*p == '.' && g_ascii_isdigit(p[1])))
          p++;
        if ((*p == 'e' || *p == 'E') &&
            (g_ascii_isdigit(p[1]) || ((p[1] == '-' || p[1] == '+') && g_ascii_isdigit(p[2]))))
          p += 2;
        while (g_ascii_isdigit(*p))
          p++;
        char *num = g_strndup(start, (gsize)(p - start));
        t.number = g_ascii_strtod(num, &end);
        g_free(num);
        end = (char *)p;
      }
      p = end;
      t.kind = TOK_NUMBER;
    } else {
      t.kind = TOK_PUNCT;
      gboolean two = FALSE;
      for (guint i = 0; punct2[i]; i++)
        if (strncmp(p, punct2[i], 2) == 0)
          two = TRUE;
      if (two)
        p += 2;
      else if (strchr(",[]{}()+-*/%<>!?:=@", *p))
        p++;
      else {
        asm_fail_at(a, &t, "unexpected character '%c'", *p);
        return FALSE;
      }
    }
    t.text = *start == '\n' ? g_strdup("end of line") : g_strndup(start, (gsize)(p - start));
    col += (guint)(p - start);
    g_array_append_val(a->toks, t);
  }
  Tok end = {.kind = TOK_END, .line = line, .col = col, .text = g_strdup("end of stream")};
  g_array_append_val(a->toks, end);
  return TRUE;
}

gboolean
asm_expect(Asm *a, const char *p)
{
  Tok *t = asm_next(a);
  if (!asm_is_punct(t, p))
    return asm_fail_at(a, t, "expected '%s', found '%s'", p, t->text);
  return TRUE;
}

static void
tok_clear(gpointer p)
{
  g_free(((Tok *)p)->text);
}

void
asm_clear(Asm *a)
{
  g_array_free(a->toks, TRUE);
  g_array_free(a->vars, TRUE);
  if (a->insns)
    g_array_free(a->insns, TRUE);
  if (a->reg_names)
    g_ptr_array_free(a->reg_names, TRUE);
  if (a->levels)
    g_ptr_array_free(a->levels, TRUE);
  if (a->accesses)
    g_array_free(a->accesses, TRUE);
  g_array_free(a->open_loops, TRUE);
  asm_flow_clear(a);
  if (a->error)
    g_error_free(a->error);
}

void
asm_init(Asm *a, GHashTable *params)
{
  *a = (Asm){0};
  a->toks = g_array_new(FALSE, TRUE, sizeof(Tok));
  g_array_set_clear_func(a->toks, tok_clear);
  a->params = params;
  a->vars = g_array_new(FALSE, TRUE, sizeof(LoopVar));
  a->insns = g_array_new(FALSE, TRUE, sizeof(IsaInsn));
  a->reg_names = g_ptr_array_new_with_free_func(g_free);
  a->levels = g_ptr_array_new_with_free_func(g_free);
  a->accesses = g_array_new(FALSE, FALSE, sizeof(IsaAccess));
  a->open_loops = g_array_new(FALSE, TRUE, sizeof(guint));
  asm_flow_init(a);
}

gboolean
asm_enter(Asm *a, const Tok *t)
{
  if (a->nesting >= ASM_MAX_NESTING)
    return asm_fail_at(a, t, "expressions and blocks nest deeper than %u levels", ASM_MAX_NESTING);
  a->nesting++;
  return TRUE;
}
