#include "asm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

G_DEFINE_QUARK(isa - asm - error - quark, isa_asm_error)

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
} Asm;

static gboolean G_GNUC_PRINTF(3, 4) fail_at(Asm *a, const Tok *t, const char *fmt, ...)
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

static gboolean
lex(Asm *a, const char *text)
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
      while (g_ascii_isalnum(*p) || *p == '_' || (*p == '.' && g_ascii_isalpha(p[1])))
        p++;
      t.kind = TOK_IDENT;
    } else if (*p == '$') {
      p++;
      if (!(g_ascii_isalpha(*p) || *p == '_')) {
        fail_at(a, &t, "'$' must be followed by a parameter name");
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
      else if (strchr(",[]{}()+-*/%<>!?:=", *p))
        p++;
      else {
        fail_at(a, &t, "unexpected character '%c'", *p);
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

static Tok *
peek(Asm *a)
{
  return &g_array_index(a->toks, Tok, a->pos);
}

static Tok *
next(Asm *a)
{
  Tok *t = peek(a);
  if (t->kind != TOK_END)
    a->pos++;
  return t;
}

static gboolean
is_punct(const Tok *t, const char *p)
{
  return t->kind == TOK_PUNCT && strcmp(t->text, p) == 0;
}

static gboolean
is_word(const Tok *t, const char *w)
{
  return t->kind == TOK_IDENT && strcmp(t->text, w) == 0;
}

static gboolean
expect(Asm *a, const char *p)
{
  Tok *t = next(a);
  if (!is_punct(t, p))
    return fail_at(a, t, "expected '%s', found '%s'", p, t->text);
  return TRUE;
}

/* ---- expressions ---- */

static gboolean parse_expr(Asm *a, Value *out);

static Value
value_from_text(const char *text)
{
  Value v = {.is_str = TRUE, .str = text};
  char *end;
  double d = g_ascii_strtod(text, &end);
  if (end != text && *end == '\0') {
    v.is_str = FALSE;
    v.num = d;
  } else if (g_ascii_strcasecmp(text, "inf") == 0 || g_ascii_strcasecmp(text, "infinity") == 0) {
    v.is_str = FALSE;
    v.num = INFINITY;
  }
  return v;
}

static gboolean
lookup_param(Asm *a, const Tok *t, Value *out)
{
  const char *name = t->text + 1;
  for (guint i = a->vars->len; i-- > 0;) {
    LoopVar *lv = &g_array_index(a->vars, LoopVar, i);
    if (strcmp(lv->name, name) == 0) {
      *out = (Value){.num = lv->value};
      return TRUE;
    }
  }
  const char *text = a->params ? g_hash_table_lookup(a->params, name) : NULL;
  if (text == NULL)
    return fail_at(a, t, "unknown parameter $%s", name);
  *out = value_from_text(text);
  return TRUE;
}

static gboolean
need_num(Asm *a, const Tok *at, const Value *v)
{
  if (v->is_str)
    return fail_at(a, at, "'%s' is not a number", v->str);
  return TRUE;
}

static gboolean
parse_primary(Asm *a, Value *out)
{
  Tok *t = next(a);
  if (t->kind == TOK_NUMBER) {
    *out = (Value){.num = t->number};
    return TRUE;
  }
  if (t->kind == TOK_PARAM)
    return lookup_param(a, t, out);
  if (is_punct(t, "(")) {
    if (!parse_expr(a, out))
      return FALSE;
    return expect(a, ")");
  }
  if (is_punct(t, "-") || is_punct(t, "!")) {
    Tok *op = t;
    if (!parse_primary(a, out) || !need_num(a, op, out))
      return FALSE;
    out->num = is_punct(op, "-") ? -out->num : (out->num == 0 ? 1 : 0);
    return TRUE;
  }
  if (t->kind == TOK_IDENT) {
    static const char *const funcs[] = {"min", "max", "round", "floor", "ceil", NULL};
    gboolean is_func = FALSE;
    for (guint i = 0; funcs[i]; i++)
      if (strcmp(t->text, funcs[i]) == 0 && is_punct(peek(a), "("))
        is_func = TRUE;
    if (!is_func) {
      *out = value_from_text(t->text);
      return TRUE;
    }
    next(a);
    Value args[2];
    guint n = 0;
    for (;;) {
      if (n == 2)
        return fail_at(a, t, "%s() takes at most 2 arguments", t->text);
      Tok *at = peek(a);
      if (!parse_expr(a, &args[n]) || !need_num(a, at, &args[n]))
        return FALSE;
      n++;
      if (is_punct(peek(a), ","))
        next(a);
      else
        break;
    }
    if (!expect(a, ")"))
      return FALSE;
    gboolean binary = t->text[0] == 'm';
    if (n != (binary ? 2u : 1u))
      return fail_at(a, t, "%s() takes %u argument%s", t->text, binary ? 2 : 1, binary ? "s" : "");
    double r;
    if (strcmp(t->text, "min") == 0)
      r = MIN(args[0].num, args[1].num);
    else if (strcmp(t->text, "max") == 0)
      r = MAX(args[0].num, args[1].num);
    else if (strcmp(t->text, "round") == 0)
      r = round(args[0].num);
    else if (strcmp(t->text, "floor") == 0)
      r = floor(args[0].num);
    else
      r = ceil(args[0].num);
    *out = (Value){.num = r};
    return TRUE;
  }
  return fail_at(a, t, "expected a value, found '%s'", t->text);
}

static int
binop_prec(const Tok *t)
{
  static const struct {
    const char *op;
    int prec;
  } ops[] = {{"||", 1}, {"&&", 2}, {"==", 3}, {"!=", 3}, {"<", 4}, {"<=", 4}, {">", 4},
             {">=", 4}, {"+", 5},  {"-", 5},  {"*", 6},  {"/", 6}, {"%", 6}};
  if (t->kind != TOK_PUNCT)
    return 0;
  for (guint i = 0; i < G_N_ELEMENTS(ops); i++)
    if (strcmp(t->text, ops[i].op) == 0)
      return ops[i].prec;
  return 0;
}

static gboolean
apply_binop(Asm *a, const Tok *op, Value *l, const Value *r)
{
  const char *o = op->text;
  if (strcmp(o, "==") == 0 || strcmp(o, "!=") == 0) {
    gboolean eq;
    if (l->is_str != r->is_str)
      eq = FALSE;
    else if (l->is_str)
      eq = strcmp(l->str, r->str) == 0;
    else
      eq = l->num == r->num;
    *l = (Value){.num = (eq == (o[0] == '=')) ? 1 : 0};
    return TRUE;
  }
  if (!need_num(a, op, l) || !need_num(a, op, r))
    return FALSE;
  double x = l->num, y = r->num, v;
  if (strcmp(o, "||") == 0)
    v = (x != 0 || y != 0);
  else if (strcmp(o, "&&") == 0)
    v = (x != 0 && y != 0);
  else if (strcmp(o, "<") == 0)
    v = x < y;
  else if (strcmp(o, "<=") == 0)
    v = x <= y;
  else if (strcmp(o, ">") == 0)
    v = x > y;
  else if (strcmp(o, ">=") == 0)
    v = x >= y;
  else if (strcmp(o, "+") == 0)
    v = x + y;
  else if (strcmp(o, "-") == 0)
    v = x - y;
  else if (strcmp(o, "*") == 0)
    v = x * y;
  else if (strcmp(o, "/") == 0) {
    v = x / y; /* IEEE: 1/0 is inf, an error only where a whole number is needed */
  } else {
    if (y == 0)
      return fail_at(a, op, "division by zero");
    v = fmod(x, y);
  }
  *l = (Value){.num = v};
  return TRUE;
}

static gboolean
parse_binary(Asm *a, int min_prec, Value *out)
{
  if (!parse_primary(a, out))
    return FALSE;
  for (;;) {
    Tok *op = peek(a);
    int prec = binop_prec(op);
    if (prec == 0 || prec < min_prec)
      return TRUE;
    next(a);
    Value rhs;
    if (!parse_binary(a, prec + 1, &rhs))
      return FALSE;
    if (!apply_binop(a, op, out, &rhs))
      return FALSE;
  }
}

static gboolean
parse_expr(Asm *a, Value *out)
{
  Tok *at = peek(a);
  if (!parse_binary(a, 1, out))
    return FALSE;
  if (!is_punct(peek(a), "?"))
    return TRUE;
  next(a);
  if (!need_num(a, at, out))
    return FALSE;
  gboolean cond = out->num != 0;
  Value x, y;
  if (!parse_expr(a, &x) || !expect(a, ":") || !parse_expr(a, &y))
    return FALSE;
  *out = cond ? x : y;
  return TRUE;
}

static gboolean
parse_whole(Asm *a, const char *what, guint64 max, guint64 *out)
{
  Tok *at = peek(a);
  Value v;
  if (!parse_expr(a, &v) || !need_num(a, at, &v))
    return FALSE;
  double r = round(v.num);
  if (!isfinite(v.num) || fabs(v.num - r) > 1e-9 * MAX(1.0, fabs(v.num)) || r < 0 ||
      r > (double)max)
    return fail_at(a, at, "%s must be a whole number from 0 to %" G_GUINT64_FORMAT ", got %g", what,
                   max, v.num);
  *out = (guint64)r;
  return TRUE;
}

/* ---- statements ---- */

static gboolean parse_block(Asm *a);

static void
skip_newlines(Asm *a)
{
  while (peek(a)->kind == TOK_NEWLINE)
    next(a);
}

/* Skips a balanced "{ ... }" without evaluating it. */
static gboolean
skip_block(Asm *a)
{
  Tok *open = peek(a);
  if (!expect(a, "{"))
    return FALSE;
  int depth = 1;
  while (depth > 0) {
    Tok *t = next(a);
    if (t->kind == TOK_END)
      return fail_at(a, open, "'{' is never closed");
    if (is_punct(t, "{"))
      depth++;
    else if (is_punct(t, "}"))
      depth--;
  }
  return TRUE;
}

static gboolean
parse_register(Asm *a, guint8 *slot)
{
  Tok *t = next(a);
  char *name = NULL;
  if (t->kind == TOK_IDENT && strcmp(t->text, "RZ") == 0) {
    *slot = ISA_NO_REG;
    return TRUE;
  }
  if (t->kind == TOK_IDENT && strcmp(t->text, "R") == 0 && is_punct(peek(a), "{") &&
      peek(a)->glued) {
    next(a);
    guint64 n;
    if (!parse_whole(a, "register number", ISA_MAX_REGS - 1, &n) || !expect(a, "}"))
      return FALSE;
    name = g_strdup_printf("R%" G_GUINT64_FORMAT, n);
  } else if (t->kind == TOK_IDENT && t->text[0] == 'R' && t->text[1] != '\0') {
    char *end;
    guint64 n = g_ascii_strtoull(t->text + 1, &end, 10);
    if (*end != '\0' || !g_ascii_isdigit(t->text[1]))
      return fail_at(a, t, "'%s' is not a register (R0..R%u or RZ)", t->text, ISA_MAX_REGS - 1);
    if (n >= ISA_MAX_REGS)
      return fail_at(a, t, "register %s out of range (R0..R%u)", t->text, ISA_MAX_REGS - 1);
    name = g_strdup_printf("R%" G_GUINT64_FORMAT, n);
  } else {
    return fail_at(a, t, "expected a register, found '%s'", t->text);
  }
  for (guint i = 0; i < a->reg_names->len; i++) {
    if (strcmp(g_ptr_array_index(a->reg_names, i), name) == 0) {
      g_free(name);
      *slot = (guint8)i;
      return TRUE;
    }
  }
  if (a->reg_names->len >= ISA_MAX_REGS) {
    g_free(name);
    return fail_at(a, t, "too many registers (at most %u)", ISA_MAX_REGS);
  }
  g_ptr_array_add(a->reg_names, name);
  *slot = (guint8)(a->reg_names->len - 1);
  return TRUE;
}

/* A source operand: register or immediate (immediates are always ready: no slot). */
static gboolean
parse_source(Asm *a, IsaInsn *insn)
{
  Tok *t = peek(a);
  if (t->kind == TOK_NUMBER || t->kind == TOK_PARAM || is_punct(t, "-") || is_punct(t, "(")) {
    Value v;
    return parse_expr(a, &v) && need_num(a, t, &v);
  }
  guint8 slot;
  if (!parse_register(a, &slot))
    return FALSE;
  if (slot != ISA_NO_REG)
    insn->src[insn->nsrc++] = slot;
  return TRUE;
}

static gboolean
parse_mem_operand(Asm *a, IsaInsn *insn)
{
  if (!expect(a, "["))
    return FALSE;
  guint8 slot;
  if (!parse_register(a, &slot))
    return FALSE;
  if (is_punct(peek(a), "+")) {
    next(a);
    Tok *t = peek(a);
    Value v;
    if (!parse_expr(a, &v) || !need_num(a, t, &v))
      return FALSE;
  }
  if (slot != ISA_NO_REG)
    insn->src[insn->nsrc++] = slot;
  return expect(a, "]");
}

static gboolean
attr_value(Asm *a, Value *v, const Tok **at)
{
  *at = next(a);
  if ((*at)->kind == TOK_PARAM)
    return lookup_param(a, *at, v);
  if ((*at)->kind == TOK_IDENT || (*at)->kind == TOK_NUMBER) {
    *v = value_from_text((*at)->text);
    return TRUE;
  }
  return fail_at(a, *at, "expected an attribute value, found '%s'", (*at)->text);
}

static gboolean
set_pattern(Asm *a, const Tok *at, const Value *v, IsaInsn *insn)
{
  if (!v->is_str)
    return fail_at(a, at, "pattern must be coalesced, strideN or random, got %g", v->num);
  if (strcmp(v->str, "coalesced") == 0) {
    insn->pattern = ISA_PATTERN_COALESCED;
    return TRUE;
  }
  if (strcmp(v->str, "random") == 0) {
    insn->pattern = ISA_PATTERN_RANDOM;
    return TRUE;
  }
  if (g_str_has_prefix(v->str, "stride")) {
    char *end;
    guint64 s = g_ascii_strtoull(v->str + 6, &end, 10);
    if (*end == '\0' && v->str[6] != '\0' && s >= 1 && s <= 32) {
      insn->pattern = s == 1 ? ISA_PATTERN_COALESCED : ISA_PATTERN_STRIDE;
      insn->stride = (guint8)s;
      return TRUE;
    }
    return fail_at(a, at, "stride in '%s' must be 1..32", v->str);
  }
  return fail_at(a, at, "unknown access pattern '%s' (coalesced, strideN, random)", v->str);
}

static gboolean
set_level(Asm *a, const Tok *at, const Value *v, IsaInsn *insn)
{
  if (!v->is_str)
    return fail_at(a, at, "level must be a memory level name, got %g", v->num);
  for (guint i = 0; i < a->levels->len; i++) {
    if (strcmp(g_ptr_array_index(a->levels, i), v->str) == 0) {
      insn->level = (guint8)i;
      return TRUE;
    }
  }
  if (a->levels->len >= ISA_MAX_LEVELS)
    return fail_at(a, at, "too many memory levels (at most %u)", ISA_MAX_LEVELS);
  g_ptr_array_add(a->levels, g_strdup(v->str));
  insn->level = (guint8)(a->levels->len - 1);
  return TRUE;
}

static gboolean
at_statement_end(const Tok *t)
{
  return t->kind == TOK_NEWLINE || t->kind == TOK_END || is_punct(t, "}");
}

static gboolean
parse_instruction(Asm *a)
{
  Tok *t = next(a);
  const char *mnemonic = t->text;
  Value pv;
  if (t->kind == TOK_PARAM) {
    if (!lookup_param(a, t, &pv))
      return FALSE;
    if (!pv.is_str)
      return fail_at(a, t, "$%s is %g, not an op name", t->text + 1, pv.num);
    mnemonic = pv.str;
  } else if (t->kind != TOK_IDENT) {
    return fail_at(a, t, "expected an instruction, found '%s'", t->text);
  }
  IsaOp op;
  if (!isa_op_lookup(mnemonic, &op))
    return fail_at(a, t, "unknown op '%s'", mnemonic);
  const IsaOpInfo *info = isa_op_info(op);
  IsaInsn insn = {.kind = ISA_INSN_OP, .op = (guint8)op, .dst = ISA_NO_REG, .line = t->line};
  gboolean ok = TRUE;
  switch (info->shape) {
  case ISA_SHAPE_NONE:
    break;
  case ISA_SHAPE_DM:
    ok = parse_register(a, &insn.dst) && expect(a, ",") && parse_mem_operand(a, &insn);
    break;
  case ISA_SHAPE_MS:
    ok = parse_mem_operand(a, &insn) && expect(a, ",") && parse_source(a, &insn);
    break;
  case ISA_SHAPE_DS:
  case ISA_SHAPE_DSS:
  case ISA_SHAPE_DSSS: {
    guint nsrc = info->shape == ISA_SHAPE_DS ? 1 : info->shape == ISA_SHAPE_DSS ? 2 : 3;
    ok = parse_register(a, &insn.dst);
    for (guint i = 0; ok && i < nsrc; i++)
      ok = expect(a, ",") && parse_source(a, &insn);
    break;
  }
  }
  if (!ok)
    return FALSE;
  gboolean have_level = FALSE;
  while (!at_statement_end(peek(a))) {
    Tok *key = next(a);
    if (key->kind != TOK_IDENT || !is_punct(peek(a), "="))
      return fail_at(a, key, "unexpected '%s' after the operands of %s", key->text, info->mnemonic);
    next(a);
    const Tok *vt;
    Value v;
    if (!attr_value(a, &v, &vt))
      return FALSE;
    if (info->space != ISA_SPACE_GLOBAL)
      return fail_at(a, key, "%s takes no attribute '%s' (only global memory ops do)",
                     info->mnemonic, key->text);
    if (strcmp(key->text, "pattern") == 0)
      ok = set_pattern(a, vt, &v, &insn);
    else if (strcmp(key->text, "level") == 0)
      ok = have_level = set_level(a, vt, &v, &insn);
    else
      return fail_at(a, key, "unknown attribute '%s' (pattern, level)", key->text);
    if (!ok)
      return FALSE;
  }
  if (info->space == ISA_SPACE_GLOBAL && !have_level) {
    Value dram = {.is_str = TRUE, .str = "dram"};
    if (!set_level(a, t, &dram, &insn))
      return FALSE;
  }
  g_array_append_val(a->insns, insn);
  return TRUE;
}

static gboolean
parse_repeat(Asm *a, const Tok *kw)
{
  guint64 count;
  if (!parse_whole(a, "repeat count", G_MAXUINT32, &count))
    return FALSE;
  if (a->open_loops->len >= ISA_MAX_LOOP_DEPTH)
    return fail_at(a, kw, "repeat blocks nested deeper than %u", ISA_MAX_LOOP_DEPTH);
  IsaInsn loop = {.kind = ISA_INSN_LOOP, .count = (guint32)count, .line = kw->line};
  guint index = a->insns->len;
  g_array_append_val(a->insns, loop);
  g_array_append_val(a->open_loops, index);
  if (!parse_block(a))
    return FALSE;
  g_array_set_size(a->open_loops, a->open_loops->len - 1);
  IsaInsn end = {.kind = ISA_INSN_END, .jump = index, .line = kw->line};
  g_array_index(a->insns, IsaInsn, index).jump = a->insns->len;
  g_array_append_val(a->insns, end);
  return TRUE;
}

static gboolean
parse_for(Asm *a, const Tok *kw)
{
  Tok *var = next(a);
  if (var->kind != TOK_IDENT)
    return fail_at(a, var, "expected a loop variable name after 'for', found '%s'", var->text);
  if (!is_word(next(a), "in"))
    return fail_at(a, var, "expected 'in' after 'for %s'", var->text);
  Tok *at = peek(a);
  Value lo, hi;
  if (!parse_binary(a, 1, &lo) || !need_num(a, at, &lo) || !expect(a, ".."))
    return FALSE;
  at = peek(a);
  if (!parse_binary(a, 1, &hi) || !need_num(a, at, &hi))
    return FALSE;
  if (!isfinite(lo.num) || !isfinite(hi.num) || hi.num - lo.num > 1e6)
    return fail_at(a, kw, "for range %g .. %g is not a finite range of at most 10^6 values", lo.num,
                   hi.num);
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
    if (!parse_block(a))
      return FALSE;
  }
  g_array_set_size(a->vars, a->vars->len - 1);
  return TRUE;
}

static gboolean
parse_if(Asm *a)
{
  for (;;) {
    Tok *at = peek(a);
    Value c;
    if (!parse_expr(a, &c) || !need_num(a, at, &c))
      return FALSE;
    gboolean taken = c.num != 0;
    if (!(taken ? parse_block(a) : skip_block(a)))
      return FALSE;
    /* "else" may follow on the same line or the next */
    guint save = a->pos;
    skip_newlines(a);
    if (!is_word(peek(a), "else")) {
      a->pos = save;
      return TRUE;
    }
    next(a);
    if (is_word(peek(a), "if")) {
      next(a);
      if (taken) {
        /* skip the condition and every remaining branch */
        while (!is_punct(peek(a), "{") && peek(a)->kind != TOK_END)
          next(a);
        if (!skip_block(a))
          return FALSE;
        for (;;) {
          save = a->pos;
          skip_newlines(a);
          if (!is_word(peek(a), "else")) {
            a->pos = save;
            return TRUE;
          }
          next(a);
          if (is_word(peek(a), "if"))
            next(a);
          while (!is_punct(peek(a), "{") && peek(a)->kind != TOK_END)
            next(a);
          if (!skip_block(a))
            return FALSE;
        }
      }
      continue;
    }
    return taken ? skip_block(a) : parse_block(a);
  }
}

static gboolean
parse_statement(Asm *a)
{
  Tok *t = peek(a);
  if (is_word(t, "repeat")) {
    next(a);
    return parse_repeat(a, t);
  }
  if (is_word(t, "for")) {
    next(a);
    return parse_for(a, t);
  }
  if (is_word(t, "if")) {
    next(a);
    return parse_if(a);
  }
  if (is_word(t, "else"))
    return fail_at(a, t, "'else' without 'if'");
  if (!parse_instruction(a))
    return FALSE;
  Tok *end = peek(a);
  if (!at_statement_end(end))
    return fail_at(a, end, "unexpected '%s'", end->text);
  return TRUE;
}

/* Statements up to the matching '}' (which is consumed), starting at '{'. */
static gboolean
parse_block(Asm *a)
{
  Tok *open = peek(a);
  if (!expect(a, "{"))
    return FALSE;
  for (;;) {
    skip_newlines(a);
    Tok *t = peek(a);
    if (is_punct(t, "}")) {
      next(a);
      return TRUE;
    }
    if (t->kind == TOK_END)
      return fail_at(a, open, "'{' is never closed");
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
      guint64 inner = count_dynamic(insns, &body, insn->jump);
      n = n + inner * insn->count;
      if (n > G_MAXUINT64 / 4)
        n = G_MAXUINT64 / 4;
      *i = insn->jump + 1;
    } else {
      (*i)++;
    }
  }
  return n;
}

static void
tok_clear(gpointer p)
{
  g_free(((Tok *)p)->text);
}

static void
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
  g_array_free(a->open_loops, TRUE);
  if (a->error)
    g_error_free(a->error);
}

static void
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
  a->open_loops = g_array_new(FALSE, TRUE, sizeof(guint));
}

gboolean
isa_asm_eval(const char *text, GHashTable *params, double *number, char **string, GError **error)
{
  Asm a;
  asm_init(&a, params);
  Value v = {0};
  if (lex(&a, text) && parse_expr(&a, &v)) {
    Tok *t = peek(&a);
    if (t->kind != TOK_END)
      fail_at(&a, t, "unexpected '%s' after the expression", t->text);
  }
  gboolean ok = a.error == NULL;
  if (ok) {
    *number = v.is_str ? 0 : v.num;
    *string = v.is_str ? g_strdup(v.str) : NULL;
  } else {
    g_propagate_error(error, a.error);
    a.error = NULL;
  }
  asm_clear(&a);
  return ok;
}

IsaProgram *
isa_asm_parse(const char *text, GHashTable *params, guint *err_line, guint *err_col, GError **error)
{
  Asm a;
  asm_init(&a, params);
  IsaProgram *program = NULL;

  if (lex(&a, text)) {
    for (;;) {
      skip_newlines(&a);
      Tok *t = peek(&a);
      if (t->kind == TOK_END)
        break;
      if (is_punct(t, "}")) {
        fail_at(&a, t, "'}' without a matching '{'");
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
      fail_at(&a, t, "the stream has no instructions");
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
    guint i = 0;
    program->dynamic_count = count_dynamic(program->insns, &i, program->n_insns);
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
