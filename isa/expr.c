/* Compile-time expressions over kernel parameters and loop variables: numbers, strings,
 * arithmetic, comparisons, ?:, min/max/round/floor/ceil.  Not instructions (asm.c). */
#include <math.h>

#include "asm-internal.h"

Value
asm_value_from_text(const char *text)
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

gboolean
asm_lookup_param(Asm *a, const Tok *t, Value *out)
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
    return asm_fail_at(a, t, "unknown parameter $%s", name);
  *out = asm_value_from_text(text);
  return TRUE;
}

gboolean
asm_need_num(Asm *a, const Tok *at, const Value *v)
{
  if (v->is_str)
    return asm_fail_at(a, at, "'%s' is not a number", v->str);
  return TRUE;
}

static gboolean parse_primary(Asm *a, Value *out);

static gboolean
parse_primary_nested(Asm *a, Value *out)
{
  Tok *t = asm_next(a);
  if (t->kind == TOK_NUMBER) {
    *out = (Value){.num = t->number};
    return TRUE;
  }
  if (t->kind == TOK_PARAM)
    return asm_lookup_param(a, t, out);
  if (asm_is_punct(t, "(")) {
    if (!asm_parse_expr(a, out))
      return FALSE;
    return asm_expect(a, ")");
  }
  if (asm_is_punct(t, "-") || asm_is_punct(t, "!")) {
    Tok *op = t;
    if (!parse_primary(a, out) || !asm_need_num(a, op, out))
      return FALSE;
    out->num = asm_is_punct(op, "-") ? -out->num : (out->num == 0 ? 1 : 0);
    return TRUE;
  }
  if (t->kind == TOK_IDENT) {
    static const char *const funcs[] = {"min", "max", "round", "floor", "ceil", NULL};
    gboolean is_func = FALSE;
    for (guint i = 0; funcs[i]; i++)
      if (strcmp(t->text, funcs[i]) == 0 && asm_is_punct(asm_peek(a), "("))
        is_func = TRUE;
    if (!is_func) {
      *out = asm_value_from_text(t->text);
      return TRUE;
    }
    asm_next(a);
    Value args[2];
    guint n = 0;
    for (;;) {
      if (n == 2)
        return asm_fail_at(a, t, "%s() takes at most 2 arguments", t->text);
      Tok *at = asm_peek(a);
      if (!asm_parse_expr(a, &args[n]) || !asm_need_num(a, at, &args[n]))
        return FALSE;
      n++;
      if (asm_is_punct(asm_peek(a), ","))
        asm_next(a);
      else
        break;
    }
    if (!asm_expect(a, ")"))
      return FALSE;
    gboolean binary = t->text[0] == 'm';
    if (n != (binary ? 2u : 1u))
      return asm_fail_at(a, t, "%s() takes %u argument%s", t->text, binary ? 2 : 1,
                         binary ? "s" : "");
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
  return asm_fail_at(a, t, "expected a value, found '%s'", t->text);
}

/* A number, parameter, parenthesised expression, unary operation or function call. */
static gboolean
parse_primary(Asm *a, Value *out)
{
  if (!asm_enter(a, asm_peek(a)))
    return FALSE;
  gboolean ok = parse_primary_nested(a, out);
  asm_leave(a);
  return ok;
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
  if (!asm_need_num(a, op, l) || !asm_need_num(a, op, r))
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
      return asm_fail_at(a, op, "division by zero");
    v = fmod(x, y);
  }
  *l = (Value){.num = v};
  return TRUE;
}

gboolean
asm_parse_binary(Asm *a, int min_prec, Value *out)
{
  if (!parse_primary(a, out))
    return FALSE;
  for (;;) {
    Tok *op = asm_peek(a);
    int prec = binop_prec(op);
    if (prec == 0 || prec < min_prec)
      return TRUE;
    asm_next(a);
    Value rhs;
    if (!asm_parse_binary(a, prec + 1, &rhs))
      return FALSE;
    if (!apply_binop(a, op, out, &rhs))
      return FALSE;
  }
}

gboolean
asm_parse_expr(Asm *a, Value *out)
{
  Tok *at = asm_peek(a);
  if (!asm_parse_binary(a, 1, out))
    return FALSE;
  if (!asm_is_punct(asm_peek(a), "?"))
    return TRUE;
  asm_next(a);
  if (!asm_need_num(a, at, out))
    return FALSE;
  gboolean cond = out->num != 0;
  Value x, y;
  if (!asm_enter(a, at)) /* a ? b : c ? d : ... recurses here */
    return FALSE;
  gboolean ok = asm_parse_expr(a, &x) && asm_expect(a, ":") && asm_parse_expr(a, &y);
  asm_leave(a);
  if (!ok)
    return FALSE;
  *out = cond ? x : y;
  return TRUE;
}

gboolean
asm_parse_whole(Asm *a, const char *what, guint64 max, guint64 *out)
{
  Tok *at = asm_peek(a);
  Value v;
  if (!asm_parse_expr(a, &v) || !asm_need_num(a, at, &v))
    return FALSE;
  double r = round(v.num);
  if (!isfinite(v.num) || fabs(v.num - r) > 1e-9 * MAX(1.0, fabs(v.num)) || r < 0 ||
      r > (double)max)
    return asm_fail_at(a, at, "%s must be a whole number from 0 to %" G_GUINT64_FORMAT ", got %g",
                       what, max, v.num);
  *out = (guint64)r;
  return TRUE;
}

gboolean
isa_asm_eval(const char *text, GHashTable *params, double *number, char **string, GError **error)
{
  Asm a;
  asm_init(&a, params);
  Value v = {0};
  if (asm_lex(&a, text) && asm_parse_expr(&a, &v)) {
    Tok *t = asm_peek(&a);
    if (t->kind != TOK_END)
      asm_fail_at(&a, t, "unexpected '%s' after the expression", t->text);
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
