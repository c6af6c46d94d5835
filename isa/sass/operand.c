/* Reading one operand of a SASS instruction: registers, predicates, special registers,
 * immediates (integers and floats as written), constants, addresses, barriers. */
#include "sass-internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const struct {
  const char *name;
  SassSreg sreg;
} sreg_names[] = {
    {"SRZ", SASS_SR_ZERO},
    {"SR_TID.X", SASS_SR_TID_X},
    {"SR_TID.Y", SASS_SR_TID_Y},
    {"SR_TID.Z", SASS_SR_TID_Z},
    {"SR_CTAID.X", SASS_SR_CTAID_X},
    {"SR_CTAID.Y", SASS_SR_CTAID_Y},
    {"SR_CTAID.Z", SASS_SR_CTAID_Z},
    {"SR_LANEID", SASS_SR_LANEID},
    {"SR_CLOCKLO", SASS_SR_CLOCKLO},
    {"SR_CLOCKHI", SASS_SR_CLOCKHI},
    {"SR_GLOBALTIMERLO", SASS_SR_GLOBALTIMERLO},
    {"SR_GLOBALTIMERHI", SASS_SR_GLOBALTIMERHI},
    {"SR_CgaCtaId", SASS_SR_CGACTAID},
    {"SR_VIRTUALSMID", SASS_SR_VIRTUALSMID},
    {"SR_SMID", SASS_SR_SMID},
    {"SR_EQMASK", SASS_SR_EQMASK},
    {"SR_LTMASK", SASS_SR_LTMASK},
    {"SR_LEMASK", SASS_SR_LEMASK},
    {"SR_GTMASK", SASS_SR_GTMASK},
    {"SR_GEMASK", SASS_SR_GEMASK},
};

gboolean
sass_parse_uint(const char *s, guint max, guint *out)
{
  if (!g_ascii_isdigit(*s))
    return FALSE;
  char *end;
  errno = 0;
  unsigned long v = strtoul(s, &end, 10);
  if (*end || errno || v > max)
    return FALSE;
  *out = (guint)v;
  return TRUE;
}

/* "0x1c", "-0x80", "12": an integer; FALSE when @s is not one. */
static gboolean
parse_int(const char *s, gint64 *out)
{
  gboolean neg = FALSE;
  if (*s == '-' || *s == '+')
    neg = *s++ == '-';
  if (!g_ascii_isdigit(*s))
    return FALSE;
  char *end;
  errno = 0;
  guint64 v = g_ascii_strtoull(s, &end, 0);
  if (*end || errno)
    return FALSE;
  *out = neg ? -(gint64)v : (gint64)v;
  return TRUE;
}

/* A decimal number is a float in SASS text ("0.5", "1", "1.4e-39", "+INF", "-QNAN"); hex is
 * an integer's bits. */
static gboolean
parse_float(const char *s, SassOperand *o)
{
  const char *p = s;
  gboolean neg = FALSE;
  if (*p == '-' || *p == '+')
    neg = *p++ == '-';
  double d;
  guint32 bits;
  if (strcmp(p, "INF") == 0) {
    d = neg ? -INFINITY : INFINITY;
    bits = neg ? 0xff800000u : 0x7f800000u;
  } else if (strcmp(p, "QNAN") == 0 || strcmp(p, "NAN") == 0) {
    d = neg ? -NAN : NAN;
    bits = neg ? 0xffffffffu : 0x7fffffffu;
  } else {
    if (!g_ascii_isdigit(*p) || (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')))
      return FALSE;
    char *end;
    d = g_ascii_strtod(s, &end);
    if (*end)
      return FALSE;
    float f = strtof(s, &end);
    memcpy(&bits, &f, 4);
  }
  o->kind = SASS_OPD_IMM;
  o->flags |= SASS_F_FLOAT;
  o->fvalue = d;
  o->value = bits;
  return TRUE;
}

/* R7, RZ, UR4, URZ: @kind and @reg; FALSE when @s is not a register name. */
static gboolean
parse_reg(const char *s, guint8 *kind, guint8 *reg)
{
  guint n;
  if (strcmp(s, "RZ") == 0) {
    *kind = SASS_OPD_REG, *reg = SASS_RZ;
  } else if (strcmp(s, "URZ") == 0) {
    *kind = SASS_OPD_UREG, *reg = SASS_URZ;
  } else if (s[0] == 'R' && sass_parse_uint(s + 1, 254, &n)) {
    *kind = SASS_OPD_REG, *reg = (guint8)n;
  } else if (s[0] == 'U' && s[1] == 'R' && sass_parse_uint(s + 2, 62, &n)) {
    *kind = SASS_OPD_UREG, *reg = (guint8)n;
  } else {
    return FALSE;
  }
  return TRUE;
}

/* [R2.64+UR4+0x10], [R1], [UR5+0x8], [-0x4]: terms joined by + (and a negative offset). */
static gboolean
parse_address(SassCtx *c, const char *text, SassOperand *o)
{
  o->kind = SASS_OPD_MEM;
  o->reg = SASS_RZ;
  o->ureg = SASS_URZ;
  g_autofree char *body = g_strdup(text);
  /* split on '+' and before '-' */
  GString *term = g_string_new(NULL);
  gboolean ok = TRUE;
  for (const char *p = body;; p++) {
    if (*p == '+' || *p == '\0' || (*p == '-' && term->len > 0)) {
      char *t = g_strstrip(term->str);
      if (*t) {
        char *dot = strchr(t, '.');
        char *suffix = NULL;
        if (dot && (t[0] == 'R' || t[0] == 'U')) {
          *dot = '\0';
          suffix = dot + 1;
        }
        guint8 kind, reg;
        gint64 v;
        if (parse_reg(t, &kind, &reg)) {
          if (kind == SASS_OPD_REG && o->reg == SASS_RZ && reg != SASS_RZ) {
            o->reg = reg;
          } else if (kind == SASS_OPD_UREG && o->ureg == SASS_URZ) {
            o->ureg = reg;
          } else if (reg != SASS_RZ && reg != SASS_URZ) {
            ok = sass_fail(c, "address '[%s]': more than one register of a kind", text);
            break;
          }
          if (suffix && strcmp(suffix, "64") == 0)
            o->flags |= kind == SASS_OPD_REG ? SASS_F_WIDE : 0;
          else if (suffix && strcmp(suffix, "U32") != 0) {
            ok = sass_fail(c, "address '[%s]': unsupported register suffix '.%s'", text, suffix);
            break;
          }
        } else if (parse_int(t, &v)) {
          o->value += v;
        } else {
          ok = sass_fail(c, "address '[%s]': cannot read '%s'", text, t);
          break;
        }
      }
      g_string_truncate(term, 0);
      if (*p == '-')
        g_string_append_c(term, '-');
      if (*p == '\0')
        break;
    } else {
      g_string_append_c(term, *p);
    }
  }
  g_string_free(term, TRUE);
  return ok;
}

gboolean
sass_parse_operand(SassCtx *c, const char *text, SassOperand *o)
{
  memset(o, 0, sizeof *o);
  g_autofree char *buf = g_strdup(text);
  char *s = g_strstrip(buf);
  /* a number, possibly negative, before the prefixes are stripped */
  gint64 iv;
  if (parse_int(s, &iv) && (strstr(s, "0x") || strstr(s, "0X"))) {
    o->kind = SASS_OPD_IMM;
    o->value = iv;
    return TRUE;
  }
  if (parse_float(s, o))
    return TRUE;
  for (;;) {
    if (*s == '-') {
      o->flags ^= SASS_F_NEG;
      s++;
    } else if (*s == '!' || *s == '~') {
      o->flags ^= SASS_F_NOT;
      s++;
    } else {
      break;
    }
  }
  /* |R3|, |R0|.H0_H0 */
  char *sel = NULL;
  if (*s == '|') {
    char *close = strchr(s + 1, '|');
    if (!close)
      return sass_fail(c, "operand '%s': no closing '|'", text);
    *close = '\0';
    sel = close[1] == '.' ? close + 2 : NULL;
    s++;
    o->flags |= SASS_F_ABS;
  }
  if (strncmp(s, "desc[", 5) == 0) {
    char *close = strchr(s, ']');
    if (!close || close[1] != '[')
      return sass_fail(c, "operand '%s': a descriptor without an address", text);
    s = close + 1;
  }
  if (*s == '[') {
    gsize n = strlen(s);
    if (s[n - 1] != ']')
      return sass_fail(c, "operand '%s': no closing ']'", text);
    s[n - 1] = '\0';
    return parse_address(c, s + 1, o);
  }
  if (s[0] == 'c' && s[1] == '[') {
    /* c[0x0][0x210], c[0x0][R2+0x10], c[0x0][RZ] */
    char *b_end = strchr(s, ']');
    gint64 bank;
    if (!b_end || b_end[1] != '[' || s[strlen(s) - 1] != ']')
      return sass_fail(c, "operand '%s': not a constant c[BANK][OFFSET]", text);
    *b_end = '\0';
    if (!parse_int(s + 2, &bank) || bank < 0 || bank > 17)
      return sass_fail(c, "operand '%s': bad constant bank", text);
    char *off = b_end + 2;
    off[strlen(off) - 1] = '\0';
    SassOperand m = {0};
    if (!parse_address(c, off, &m))
      return FALSE;
    if (m.ureg != SASS_URZ)
      return sass_fail(c, "operand '%s': a uniform register in a constant address", text);
    o->kind = SASS_OPD_CONST;
    o->bank = (guint8)bank;
    o->reg = m.reg;
    o->value = m.value;
    return TRUE;
  }
  if (s[0] == '`') { /* nvdisasm: `(.L_x_3) -- resolved by the caller */
    return sass_fail(c, "operand '%s': label not resolved", text);
  }
  /* register with selectors: R2.reuse, R0.H1_H1, R4.F32 */
  char *dot = strchr(s, '.');
  if (dot && strncmp(s, "SR_", 3) != 0) {
    *dot = '\0';
    sel = dot + 1;
  }
  guint n;
  if (parse_reg(s, &o->kind, &o->reg)) {
  } else if (strcmp(s, "PT") == 0) {
    o->kind = SASS_OPD_PRED, o->reg = SASS_PT;
  } else if (strcmp(s, "UPT") == 0) {
    o->kind = SASS_OPD_UPRED, o->reg = SASS_PT;
  } else if (s[0] == 'P' && sass_parse_uint(s + 1, 6, &n)) {
    o->kind = SASS_OPD_PRED, o->reg = (guint8)n;
  } else if (s[0] == 'U' && s[1] == 'P' && sass_parse_uint(s + 2, 6, &n)) {
    o->kind = SASS_OPD_UPRED, o->reg = (guint8)n;
  } else if (s[0] == 'B' && sass_parse_uint(s + 1, 15, &n)) {
    o->kind = SASS_OPD_BARRIER, o->reg = (guint8)n;
  } else if (s[0] == 'S' && s[1] == 'B' && sass_parse_uint(s + 2, 5, &n)) {
    o->kind = SASS_OPD_SB, o->reg = (guint8)n;
  } else {
    gboolean found = FALSE;
    for (guint i = 0; i < G_N_ELEMENTS(sreg_names); i++)
      if (strcmp(s, sreg_names[i].name) == 0) {
        o->kind = SASS_OPD_SREG;
        o->reg = (guint8)sreg_names[i].sreg;
        found = TRUE;
      }
    if (!found)
      return sass_fail(c, "cannot read operand '%s'", text);
  }
  if (sel) {
    char **parts = g_strsplit(sel, ".", -1);
    gboolean ok = TRUE;
    for (char **p = parts; *p && ok; p++) {
      if (strcmp(*p, "reuse") == 0 || strcmp(*p, "F32") == 0)
        continue;
      else if (strcmp(*p, "H0_H0") == 0)
        o->flags |= SASS_F_H0;
      else if (strcmp(*p, "H1_H1") == 0)
        o->flags |= SASS_F_H1;
      else if (strcmp(*p, "64") == 0 && o->kind == SASS_OPD_REG)
        o->flags |= SASS_F_WIDE;
      else
        ok = sass_fail(c, "operand '%s': unsupported selector '.%s'", text, *p);
    }
    g_strfreev(parts);
    return ok;
  }
  return TRUE;
}

/* Splits "A, [B, C], D" at top-level commas; a top-level space also separates ("R4 0x0"). */
GPtrArray *
sass_split_operands(const char *s)
{
  GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
  GString *cur = g_string_new(NULL);
  int depth = 0, bars = 0;
  for (const char *p = s;; p++) {
    gboolean end = *p == '\0';
    if (!end && (*p == '[' || *p == '{'))
      depth++;
    else if (!end && (*p == ']' || *p == '}'))
      depth--;
    else if (!end && *p == '|')
      bars ^= 1;
    gboolean sep = end || (depth == 0 && !bars && *p == ',');
    gboolean space = depth == 0 && !bars && *p == ' ' && cur->len > 0;
    if (space) {
      /* "R4 0x0" is two operands; "R4 , " is not */
      const char *q = p;
      while (*q == ' ')
        q++;
      if (*q && *q != ',') {
        g_ptr_array_add(out, g_strdup(cur->str));
        g_string_truncate(cur, 0);
        p = q - 1;
        continue;
      }
    }
    if (sep) {
      char *t = g_strstrip(g_strdup(cur->str));
      if (*t || !end)
        g_ptr_array_add(out, t);
      else
        g_free(t);
      g_string_truncate(cur, 0);
      if (end)
        break;
    } else if (!(*p == ' ' && cur->len == 0)) {
      g_string_append_c(cur, *p);
    }
  }
  g_string_free(cur, TRUE);
  return out;
}

guint16
sass_half_bits(float f)
{
  guint32 u;
  memcpy(&u, &f, 4);
  guint32 sign = (u >> 16) & 0x8000u, exp = (u >> 23) & 0xffu, man = u & 0x7fffffu;
  if (exp == 0xff)
    return (guint16)(sign | 0x7c00u | (man ? 0x200u | (man >> 13) : 0));
  int e = (int)exp - 127 + 15;
  if (e >= 31)
    return (guint16)(sign | 0x7c00u);
  if (e <= 0) {
    if (e < -10)
      return (guint16)sign;
    man |= 0x800000u;
    guint shift = (guint)(14 - e);
    guint32 h = man >> shift, rest = man & ((1u << shift) - 1), halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (h & 1)))
      h++;
    return (guint16)(sign | h);
  }
  guint32 h = ((guint32)e << 10) | (man >> 13), rest = man & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1)))
    h++;
  return (guint16)(sign | h);
}
