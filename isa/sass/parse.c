/* Reading SASS text: functions and instructions (their operands: operand.c). */
#include "sass-internal.h"

#include "../isa.h"

#include <errno.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <sys/stat.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const op_names[] = {
#define SASS_OP(e, m, l) m,
#include "sass-ops.def"
#undef SASS_OP
};

static const guint8 op_lowered[] = {
#define SASS_OP(e, m, l) ISA_OP_##l,
#include "sass-ops.def"
#undef SASS_OP
};

guint
sass_op_lowered(SassOp op)
{
  return op_lowered[op];
}

static const char *const mod_names[] = {
#define SASS_MOD(e, m) m,
#include "sass-mods.def"
#undef SASS_MOD
};

const char *
sass_op_name(SassOp op)
{
  return op < SASS_OP_COUNT ? op_names[op] : "?";
}

const char *
sass_mod_name(SassMod mod)
{
  return mod < SASS_MOD_COUNT ? mod_names[mod] : "?";
}

/* The index of @name among the @n @names, or @n. */
static guint
name_index(const char *const *names, guint n, const char *name)
{
  guint i = 0;
  while (i < n && strcmp(names[i], name) != 0)
    i++;
  return i;
}

gboolean
sass_op_lookup(const char *name, SassOp *op)
{
  guint i = name_index(op_names, SASS_OP_COUNT, name);
  if (i < SASS_OP_COUNT)
    *op = (SassOp)i;
  return i < SASS_OP_COUNT;
}

gboolean
sass_mod_lookup(const char *name, SassMod *mod)
{
  guint i = name_index(mod_names, SASS_MOD_COUNT, name);
  if (i < SASS_MOD_COUNT)
    *mod = (SassMod)i;
  return i < SASS_MOD_COUNT;
}

void
sass_insn_opcode(const SassInsn *insn, char *buf, gsize size)
{
  /* as written: the modifiers in their order, any past the first eight after them */
  g_strlcpy(buf, sass_op_name((SassOp)insn->op), size);
  guint64 listed[2] = {0, 0};
  for (guint i = 0; i < insn->n_mods; i++) {
    guint m = insn->mod_list[i];
    listed[m >> 6] |= G_GUINT64_CONSTANT(1) << (m & 63);
    g_strlcat(buf, ".", size);
    g_strlcat(buf, mod_names[m], size);
  }
  for (guint m = 0; m < SASS_MOD_COUNT; m++)
    if (sass_has(insn, (SassMod)m) && !((listed[m >> 6] >> (m & 63)) & 1u)) {
      g_strlcat(buf, ".", size);
      g_strlcat(buf, mod_names[m], size);
    }
}

void
sass_file_free(SassFile *file)
{
  if (!file)
    return;
  for (guint i = 0; i < file->n_functions; i++) {
    g_free(file->functions[i].name);
    g_free(file->functions[i].demangled);
    g_free(file->functions[i].insns);
  }
  g_free(file->functions);
  g_free(file->path);
  g_free(file);
}

/* The plain name of an Itanium-mangled one: _Z5saxpyifPKfPf -> saxpy, _ZN2ns1fEv -> ns::f. */
static char *
demangle(const char *name)
{
  if (strncmp(name, "_Z", 2) != 0)
    return g_strdup(name);
  const char *p = name + 2;
  gboolean nested = *p == 'N';
  if (nested)
    p++;
  GString *out = g_string_new(NULL);
  while (g_ascii_isdigit(*p)) {
    char *end;
    unsigned long len = strtoul(p, &end, 10);
    if (len == 0 || strlen(end) < len)
      break;
    if (out->len)
      g_string_append(out, "::");
    g_string_append_len(out, end, (gssize)len);
    p = end + len;
    if (!nested)
      break;
  }
  if (out->len == 0)
    g_string_append(out, name);
  return g_string_free(out, FALSE);
}

const SassFunction *
sass_file_function(const SassFile *file, const char *name, GError **error)
{
  if (!name) {
    if (file->n_functions == 1)
      return &file->functions[0];
    GString *names = g_string_new(NULL);
    for (guint i = 0; i < file->n_functions; i++)
      g_string_append_printf(names, "%s%s", i ? ", " : "", file->functions[i].demangled);
    g_set_error(error, SASS_ERROR, 1, "%s: %u functions (%s): name one with 'function:'",
                file->path, file->n_functions, names->str);
    g_string_free(names, TRUE);
    return NULL;
  }
  const SassFunction *found = NULL;
  guint matches = 0;
  for (guint i = 0; i < file->n_functions; i++) {
    const SassFunction *f = &file->functions[i];
    if (strcmp(f->name, name) == 0)
      return f;
    if (strcmp(f->demangled, name) == 0) {
      found = f;
      matches++;
    }
  }
  if (matches == 1)
    return found;
  if (matches > 1)
    g_set_error(error, SASS_ERROR, 1, "%s: '%s' names %u functions: give the mangled name",
                file->path, name, matches);
  else
    g_set_error(error, SASS_ERROR, 1, "%s: no function '%s'", file->path, name);
  return NULL;
}

/* ---- one instruction ---- */

gboolean
sass_fail(SassCtx *c, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  char *msg = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  g_set_error(c->error, SASS_ERROR, 1, "%s:%u: %s", c->path, c->line, msg);
  g_free(msg);
  return FALSE;
}

static gboolean
is_branch(SassOp op)
{
  return op == SASS_OP_BRA || op == SASS_OP_BSSY || op == SASS_OP_CALL || op == SASS_OP_BREAK;
}

static gboolean
is_half_op(SassOp op)
{
  return op == SASS_OP_HADD2 || op == SASS_OP_HFMA2 || op == SASS_OP_HMUL2 ||
         op == SASS_OP_HMNMX2 || op == SASS_OP_HSETP2;
}

/* One instruction's text after its address ("@!P0 IMAD.WIDE R4, R9, 0x4, R4"). */
static gboolean
parse_insn(SassCtx *c, char *text, SassInsn *insn, GPtrArray *labels_used)
{
  memset(insn, 0, sizeof *insn);
  insn->guard = SASS_PT;
  insn->line = c->line;
  char *s = g_strstrip(text);
  if (*s == '@') {
    char *sp = strchr(s, ' ');
    if (!sp)
      return sass_fail(c, "a guard without an instruction");
    *sp = '\0';
    char *g = s + 1;
    if (*g == '!') {
      insn->guard_not = 1;
      g++;
    }
    guint n;
    if (strcmp(g, "PT") == 0)
      insn->guard = SASS_PT;
    else if (strcmp(g, "UPT") == 0)
      insn->guard = SASS_PT, insn->guard_uniform = 1;
    else if (g[0] == 'P' && sass_parse_uint(g + 1, 6, &n))
      insn->guard = (guint8)n;
    else if (g[0] == 'U' && g[1] == 'P' && sass_parse_uint(g + 2, 6, &n))
      insn->guard = (guint8)n, insn->guard_uniform = 1;
    else
      return sass_fail(c, "bad guard '@%s'", s + 1);
    s = g_strstrip(sp + 1);
  }
  if (*s == '\0')
    return sass_fail(c, "an instruction without an opcode");
  char *sp = s + strcspn(s, " \t");
  char *rest = *sp ? sp + 1 : sp;
  *sp = '\0';
  char **parts = g_strsplit(s, ".", -1);
  SassOp op;
  if (!sass_op_lookup(parts[0], &op)) {
    sass_fail(c, "unsupported SASS instruction '%s'", s);
    g_strfreev(parts);
    return FALSE;
  }
  insn->op = (guint16)op;
  for (char **p = parts + 1; *p; p++) {
    guint m = name_index(mod_names, SASS_MOD_COUNT, *p);
    if (m == SASS_MOD_COUNT) {
      sass_fail(c, "unsupported SASS instruction '%s' (modifier .%s)", s, *p);
      g_strfreev(parts);
      return FALSE;
    }
    insn->mods[m >> 6] |= G_GUINT64_CONSTANT(1) << (m & 63);
    if (insn->n_mods < G_N_ELEMENTS(insn->mod_list))
      insn->mod_list[insn->n_mods++] = (guint8)m;
  }
  g_strfreev(parts);
  g_autoptr(GPtrArray) ops = sass_split_operands(g_strstrip(rest));
  for (guint i = 0; i < ops->len; i++) {
    const char *t = g_ptr_array_index(ops, i);
    if (insn->n_operands == SASS_MAX_OPERANDS)
      return sass_fail(c, "more than %u operands", SASS_MAX_OPERANDS);
    SassOperand *o = &insn->opd[insn->n_operands];
    if (t[0] == '`') { /* nvdisasm label `(.L_x_3) */
      const char *a = strchr(t, '(');
      const char *b = a ? strchr(a, ')') : NULL;
      if (!a || !b)
        return sass_fail(c, "cannot read label operand '%s'", t);
      memset(o, 0, sizeof *o);
      o->kind = SASS_OPD_TARGET;
      o->value = -1;
      g_ptr_array_add(labels_used, g_strndup(a + 1, (gsize)(b - a - 1)));
      o->bank = 1; /* a label, resolved by name */
      insn->n_operands++;
      continue;
    }
    if (!sass_parse_operand(c, t, o))
      return FALSE;
    insn->n_operands++;
  }
  /* the last immediate of a branch is its target address */
  if (is_branch(op) && op != SASS_OP_BREAK) {
    SassOperand *o = insn->n_operands ? &insn->opd[insn->n_operands - 1] : NULL;
    if (o && o->kind == SASS_OPD_IMM && !(o->flags & SASS_F_FLOAT))
      o->kind = SASS_OPD_TARGET;
    if (!o || o->kind != SASS_OPD_TARGET)
      return sass_fail(c, "unsupported SASS instruction '%s': a branch without a target address",
                       s);
  }
  /* half-precision pairs: "1.75, 0" is one operand, its high half first */
  if (is_half_op(op)) {
    guint w = 0;
    for (guint r = 0; r < insn->n_operands; r++) {
      SassOperand *a = &insn->opd[r];
      if (a->kind == SASS_OPD_IMM && (a->flags & SASS_F_FLOAT) && r + 1 < insn->n_operands &&
          insn->opd[r + 1].kind == SASS_OPD_IMM && (insn->opd[r + 1].flags & SASS_F_FLOAT)) {
        SassOperand pair = {.kind = SASS_OPD_IMM, .flags = SASS_F_HPAIR};
        pair.value = ((gint64)sass_half_bits((float)a->fvalue) << 16) |
                     sass_half_bits((float)insn->opd[r + 1].fvalue);
        insn->opd[w++] = pair;
        r++;
      } else {
        insn->opd[w++] = *a;
      }
    }
    insn->n_operands = (guint8)w;
  }
  return TRUE;
}

/* ---- the file ---- */

typedef struct {
  char *name;
  GArray *insns;      /* SassInsn */
  GHashTable *labels; /* label -> address */
  GPtrArray *pending; /* label names of TARGET operands in order */
} Building;

static void
building_clear(Building *b)
{
  g_free(b->name);
  if (b->insns)
    g_array_free(b->insns, TRUE);
  if (b->labels)
    g_hash_table_destroy(b->labels);
  if (b->pending)
    g_ptr_array_free(b->pending, TRUE);
  memset(b, 0, sizeof *b);
}

static gboolean
finish_function(SassCtx *c, Building *b, GArray *functions)
{
  if (!b->name)
    return TRUE;
  guint n = b->insns->len;
  SassInsn *insns = (SassInsn *)b->insns->data;
  guint label_i = 0;
  for (guint i = 0; i < n; i++) {
    SassInsn *insn = &insns[i];
    if (insn->addr != i * 16u) {
      c->line = insn->line;
      return sass_fail(c, "instruction at 0x%x where 0x%x was expected (16 bytes apart)",
                       insn->addr, i * 16u);
    }
    for (guint k = 0; k < insn->n_operands; k++) {
      SassOperand *o = &insn->opd[k];
      if (o->kind != SASS_OPD_TARGET)
        continue;
      gint64 addr = o->value;
      if (o->bank == 1) {
        const char *label = g_ptr_array_index(b->pending, label_i++);
        gpointer v;
        if (!g_hash_table_lookup_extended(b->labels, label, NULL, &v)) {
          c->line = insn->line;
          return sass_fail(c, "branch to an unknown label '%s'", label);
        }
        addr = GPOINTER_TO_INT(v);
        o->bank = 0;
      }
      if (addr < 0 || addr % 16 != 0 || addr / 16 >= (gint64)n) {
        c->line = insn->line;
        return sass_fail(c, "branch target 0x%" G_GINT64_MODIFIER "x outside function %s", addr,
                         b->name);
      }
      o->value = addr / 16;
    }
  }
  SassFunction f = {.name = b->name, .demangled = demangle(b->name), .n_insns = n};
  f.insns = (SassInsn *)g_array_free(b->insns, FALSE);
  b->insns = NULL;
  b->name = NULL;
  g_array_append_val(functions, f);
  building_clear(b);
  return TRUE;
}

static void
start_function(Building *b, const char *name)
{
  building_clear(b);
  b->name = g_strdup(name);
  b->insns = g_array_new(FALSE, TRUE, sizeof(SassInsn));
  b->labels = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  b->pending = g_ptr_array_new_with_free_func(g_free);
}

SassFile *
sass_file_parse(const char *text, gsize length, const char *path, GError **error)
{
  SassCtx c = {.path = path, .error = error};
  GArray *functions = g_array_new(FALSE, TRUE, sizeof(SassFunction));
  Building b = {0};
  gboolean ok = TRUE, encoded_last = FALSE;
  const char *p = text, *end = text + length;
  while (ok && p < end) {
    const char *nl = memchr(p, '\n', (gsize)(end - p));
    const char *le = nl ? nl : end;
    c.line++;
    if (memchr(p, '\0', (gsize)(le - p))) {
      ok = sass_fail(&c, "a NUL byte: not SASS text");
      break;
    }
    g_autofree char *line = g_strndup(p, (gsize)(le - p));
    p = nl ? nl + 1 : end;
    char *s = g_strstrip(line);
    char *fn = strstr(s, "Function : ");
    if (fn) {
      ok = finish_function(&c, &b, functions);
      start_function(&b, g_strstrip(fn + strlen("Function : ")));
      continue;
    }
    if (g_str_has_prefix(s, ".text.") && g_str_has_suffix(s, ":")) { /* nvdisasm section */
      ok = finish_function(&c, &b, functions);
      s[strlen(s) - 1] = '\0';
      start_function(&b, s + strlen(".text."));
      continue;
    }
    if (b.name && s[0] == '.' && g_str_has_suffix(s, ":") && !strchr(s, ' ')) { /* .L_x_3: */
      s[strlen(s) - 1] = '\0';
      g_hash_table_insert(b.labels, g_strdup(s), GINT_TO_POINTER(b.insns->len * 16));
      continue;
    }
    if (strncmp(s, "/*", 2) != 0)
      continue;
    char *close = strstr(s + 2, "*/");
    if (!close)
      continue;
    *close = '\0';
    char *endp;
    guint64 addr = g_ascii_strtoull(s + 2, &endp, 16);
    if (*endp || endp == s + 2) {
      /* an encoding comment alone on its line: the high word of the instruction above (its
       * first word follows the instruction on its own line), holding the control bits */
      if (b.name && b.insns->len > 0 && encoded_last && g_str_has_prefix(g_strstrip(s + 2), "0x")) {
        SassInsn *last = &g_array_index(b.insns, SassInsn, b.insns->len - 1);
        last->stall = (guint8)((addr >> 41) & 0xf);
        last->no_yield = (guint8)((addr >> 45) & 1);
      }
      encoded_last = FALSE;
      continue;
    }
    if (!b.name) {
      ok = sass_fail(&c, "an instruction outside any function");
      break;
    }
    char *body = close + 2;
    char *semi = strchr(body, ';');
    if (!semi) {
      ok = sass_fail(&c, "an instruction without ';'");
      break;
    }
    *semi = '\0';
    encoded_last = strstr(semi + 1, "/* 0x") != NULL; /* its first word: the second follows */
    SassInsn insn;
    if (!(ok = parse_insn(&c, body, &insn, b.pending)))
      break;
    insn.addr = (guint32)addr;
    g_array_append_val(b.insns, insn);
  }
  if (ok)
    ok = finish_function(&c, &b, functions);
  building_clear(&b);
  if (ok && functions->len == 0) {
    c.line = 0;
    g_set_error(error, SASS_ERROR, 1, "%s: no function (expected cuobjdump -sass text)", path);
    ok = FALSE;
  }
  if (!ok) {
    for (guint i = 0; i < functions->len; i++) {
      SassFunction *f = &g_array_index(functions, SassFunction, i);
      g_free(f->name);
      g_free(f->demangled);
      g_free(f->insns);
    }
    g_array_free(functions, TRUE);
    return NULL;
  }
  SassFile *file = g_new0(SassFile, 1);
  file->path = g_strdup(path);
  file->n_functions = functions->len;
  file->functions = (SassFunction *)g_array_free(functions, FALSE);
  return file;
}

SassFile *
sass_file_load(const char *path, GError **error)
{
  g_autofree char *text = NULL;
  gsize length = 0;
  GStatBuf st;
  if (g_stat(path, &st) != 0) {
    g_set_error(error, SASS_ERROR, 1, "%s: cannot read: %s", path, g_strerror(errno));
    return NULL;
  }
  if (!S_ISREG(st.st_mode)) { /* a device never ends */
    g_set_error(error, SASS_ERROR, 1, "%s: not a regular file", path);
    return NULL;
  }
  if (g_str_has_suffix(path, ".gz")) {
    g_autoptr(GFile) f = g_file_new_for_path(path);
    g_autoptr(GFileInputStream) raw = g_file_read(f, NULL, error);
    if (!raw)
      return NULL;
    g_autoptr(GZlibDecompressor) z = g_zlib_decompressor_new(G_ZLIB_COMPRESSOR_FORMAT_GZIP);
    g_autoptr(GInputStream) in = g_converter_input_stream_new(G_INPUT_STREAM(raw), G_CONVERTER(z));
    g_autoptr(GOutputStream) out = g_memory_output_stream_new_resizable();
    if (g_output_stream_splice(out, in, G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET, NULL, error) < 0)
      return NULL;
    length = g_memory_output_stream_get_data_size(G_MEMORY_OUTPUT_STREAM(out));
    text = g_memory_output_stream_steal_data(G_MEMORY_OUTPUT_STREAM(out));
  } else if (!g_file_get_contents(path, &text, &length, error)) {
    return NULL;
  }
  return sass_file_parse(text, length, path, error);
}
