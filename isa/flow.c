/* Branches, labels and convergence barriers in the assembler: scopes, forward targets, BSSY /
 * BSYNC regions and predicates set before use.  Not how warps run them (sim/simt.h). */
#include <stdarg.h>

#include "asm-internal.h"

typedef struct {
  char *name;
  guint scope, index, line, col;
} AsmLabel;

typedef struct {
  char *name;
  guint insn;   /* the BRA or BSSY */
  guint *chain; /* scopes the label may be in, innermost first */
  guint n_chain;
  guint line, col; /* of the label operand */
  guint region;    /* conditional BRA: its innermost open region; else G_MAXUINT */
  gboolean bssy;   /* a BSSY's label: must mark its BSYNC */
} AsmBranch;

typedef struct {
  guint barrier, bssy, bsync; /* bsync: G_MAXUINT while open */
  guint scope;
  guint line, col; /* of the BSSY */
} AsmRegion;

static void
label_clear(gpointer p)
{
  g_free(((AsmLabel *)p)->name);
}

static void
branch_clear(gpointer p)
{
  AsmBranch *b = p;
  g_free(b->name);
  g_free(b->chain);
}

void
asm_flow_init(Asm *a)
{
  a->scopes = g_array_new(FALSE, TRUE, sizeof(AsmScope));
  a->labels = g_array_new(FALSE, TRUE, sizeof(AsmLabel));
  g_array_set_clear_func(a->labels, label_clear);
  a->branches = g_array_new(FALSE, TRUE, sizeof(AsmBranch));
  g_array_set_clear_func(a->branches, branch_clear);
  a->regions = g_array_new(FALSE, TRUE, sizeof(AsmRegion));
  a->open_regions = g_array_new(FALSE, TRUE, sizeof(guint));
  a->preds_set = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  asm_scope_enter(a, TRUE); /* the top level */
}

void
asm_flow_clear(Asm *a)
{
  g_array_free(a->scopes, TRUE);
  g_array_free(a->labels, TRUE);
  g_array_free(a->branches, TRUE);
  g_array_free(a->regions, TRUE);
  g_array_free(a->open_regions, TRUE);
  g_hash_table_destroy(a->preds_set);
}

static guint
current_scope(const Asm *a)
{
  return g_array_index(a->scopes, AsmScope, a->scopes->len - 1).id;
}

void
asm_scope_enter(Asm *a, gboolean repeat)
{
  AsmScope s = {.id = a->next_scope++, .repeat = repeat};
  g_array_append_val(a->scopes, s);
}

gboolean
asm_scope_leave(Asm *a, const Tok *close)
{
  guint id = current_scope(a);
  g_array_set_size(a->scopes, a->scopes->len - 1);
  if (a->open_regions->len > 0) {
    const AsmRegion *r = &g_array_index(
        a->regions, AsmRegion, g_array_index(a->open_regions, guint, a->open_regions->len - 1));
    if (r->scope == id)
      return asm_fail_at(a, close, "BSSY B%u is not closed by a BSYNC B%u in its block", r->barrier,
                         r->barrier);
  }
  return TRUE;
}

gboolean
asm_flow_label(Asm *a, const Tok *t)
{
  guint scope = current_scope(a);
  for (guint i = 0; i < a->labels->len; i++) {
    const AsmLabel *l = &g_array_index(a->labels, AsmLabel, i);
    if (l->scope == scope && strcmp(l->name, t->text) == 0)
      return asm_fail_at(a, t, "label '%s' is already defined in this block", t->text);
  }
  AsmLabel l = {.name = g_strdup(t->text),
                .scope = scope,
                .index = a->insns->len,
                .line = t->line,
                .col = t->col};
  g_array_append_val(a->labels, l);
  return TRUE;
}

static void
add_branch(Asm *a, const Tok *t, guint region, gboolean bssy)
{
  AsmBranch b = {.name = g_strdup(t->text),
                 .insn = a->insns->len,
                 .line = t->line,
                 .col = t->col,
                 .region = region,
                 .bssy = bssy};
  b.chain = g_new(guint, a->scopes->len);
  for (guint i = a->scopes->len; i-- > 0;) {
    const AsmScope *s = &g_array_index(a->scopes, AsmScope, i);
    b.chain[b.n_chain++] = s->id;
    if (s->repeat)
      break;
  }
  g_array_append_val(a->branches, b);
}

gboolean
asm_flow_branch(Asm *a, const Tok *t, gboolean conditional)
{
  guint region = G_MAXUINT;
  if (conditional) {
    if (a->open_regions->len == 0)
      return asm_fail_at(a, t,
                         "a guarded branch to '%s' can diverge: it needs an enclosing BSSY ... "
                         "BSYNC where its lanes reconverge (or a predicate the same in every "
                         "lane)",
                         t->text);
    region = g_array_index(a->open_regions, guint, a->open_regions->len - 1);
  }
  add_branch(a, t, region, FALSE);
  return TRUE;
}

gboolean
asm_flow_bssy(Asm *a, const Tok *at, guint barrier, const Tok *label)
{
  for (guint i = 0; i < a->open_regions->len; i++) {
    const AsmRegion *r =
        &g_array_index(a->regions, AsmRegion, g_array_index(a->open_regions, guint, i));
    if (r->barrier == barrier)
      return asm_fail_at(a, at, "B%u is already waiting for the BSSY at line %u", barrier, r->line);
  }
  AsmRegion r = {.barrier = barrier,
                 .bssy = a->insns->len,
                 .bsync = G_MAXUINT,
                 .scope = current_scope(a),
                 .line = at->line,
                 .col = at->col};
  guint index = a->regions->len;
  g_array_append_val(a->regions, r);
  g_array_append_val(a->open_regions, index);
  add_branch(a, label, index, TRUE);
  return TRUE;
}

gboolean
asm_flow_bsync(Asm *a, const Tok *at, guint barrier)
{
  if (a->open_regions->len == 0)
    return asm_fail_at(a, at, "BSYNC B%u without a matching BSSY B%u", barrier, barrier);
  guint index = g_array_index(a->open_regions, guint, a->open_regions->len - 1);
  AsmRegion *r = &g_array_index(a->regions, AsmRegion, index);
  if (r->barrier != barrier || r->scope != current_scope(a))
    return asm_fail_at(a, at,
                       r->barrier != barrier
                           ? "BSYNC B%u closes the wrong region: the innermost open one is BSSY "
                             "B%u's (regions must nest)"
                           : "BSYNC B%u is in another block than its BSSY B%u",
                       barrier, r->barrier);
  r->bsync = a->insns->len;
  g_array_set_size(a->open_regions, a->open_regions->len - 1);
  return TRUE;
}

void
asm_flow_set_pred(Asm *a, const char *name, gboolean uniform)
{
  g_hash_table_insert(a->preds_set, g_strdup(name), GINT_TO_POINTER(uniform ? 2 : 1));
}

gboolean
asm_flow_pred_uniform(const Asm *a, const char *name)
{
  return GPOINTER_TO_INT(g_hash_table_lookup(a->preds_set, name)) == 2;
}

gboolean
asm_flow_use_pred(Asm *a, const Tok *t, const char *name)
{
  if (g_hash_table_contains(a->preds_set, name))
    return TRUE;
  return asm_fail_at(a, t, "%s is used before an ISETP sets it", name);
}

static const AsmLabel *
find_label(const Asm *a, const AsmBranch *b)
{
  for (guint c = 0; c < b->n_chain; c++)
    for (guint i = 0; i < a->labels->len; i++) {
      const AsmLabel *l = &g_array_index(a->labels, AsmLabel, i);
      if (l->scope == b->chain[c] && strcmp(l->name, b->name) == 0)
        return l;
    }
  return NULL;
}

static gboolean G_GNUC_PRINTF(4, 5)
    fail_at_line(Asm *a, guint line, guint col, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  g_autofree char *msg = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  Tok t = {.line = line, .col = col, .text = (char *)""};
  return asm_fail_at(a, &t, "%s", msg);
}

gboolean
asm_flow_finish(Asm *a)
{
  if (a->open_regions->len > 0) {
    const AsmRegion *r =
        &g_array_index(a->regions, AsmRegion, g_array_index(a->open_regions, guint, 0));
    return fail_at_line(a, r->line, r->col, "BSSY B%u is never closed by a BSYNC B%u", r->barrier,
                        r->barrier);
  }
  IsaInsn *insns = (IsaInsn *)a->insns->data;
  for (guint i = 0; i < a->branches->len; i++) {
    const AsmBranch *b = &g_array_index(a->branches, AsmBranch, i);
    const AsmLabel *l = find_label(a, b);
    if (l == NULL)
      return fail_at_line(a, b->line, b->col,
                          "unknown label '%s' (a branch sees the labels of its own repeat body)",
                          b->name);
    if (b->bssy) {
      const AsmRegion *r = &g_array_index(a->regions, AsmRegion, b->region);
      if (l->index != r->bsync)
        return fail_at_line(a, b->line, b->col,
                            "label '%s' must mark this region's BSYNC B%u (where its lanes "
                            "reconverge)",
                            b->name, r->barrier);
      insns[r->bssy].sync = r->bsync;
      insns[r->bsync].sync = r->bssy;
      continue;
    }
    if (l->index <= b->insn)
      return fail_at_line(a, b->line, b->col,
                          "label '%s' is not after the branch: branches go forward (a loop is a "
                          "repeat block)",
                          b->name);
    if (b->region != G_MAXUINT) {
      const AsmRegion *r = &g_array_index(a->regions, AsmRegion, b->region);
      if (l->index > r->bsync)
        return fail_at_line(a, b->line, b->col,
                            "label '%s' is past the BSYNC B%u of the branch's region: its lanes "
                            "could not reconverge",
                            b->name, r->barrier);
    }
    insns[b->insn].target = l->index;
    insns[b->insn].labelled = 1;
  }
  return TRUE;
}
