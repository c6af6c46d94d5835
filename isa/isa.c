/* Op metadata from the X-macro table (isa-ops.def): names, units, spaces, operand shapes.
 * Not text parsing (lexer.c, asm.c). */
#include "isa.h"

#include <string.h>

const IsaOpInfo isa_op_table[ISA_OP_COUNT] = {
#define ISA_OP(e, m, u, s, sp, ef) [ISA_OP_##e] = {m, u, s, sp, ef},
#include "isa-ops.def"
#undef ISA_OP
};

const IsaUnitInfo isa_unit_table[ISA_UNIT_COUNT] = {
#define ISA_UNIT(e, n, l, lat, iss, r) [ISA_UNIT_##e] = {n, l, lat, iss, r},
#include "isa-units.def"
#undef ISA_UNIT
};

/* Edits (insertions, deletions, substitutions, swaps of neighbours) from @a to @b, counted up
 * to 3 (names longer than 63 bytes count as far apart). */
guint
isa_name_distance(const char *a, const char *b)
{
  gsize n = strlen(a), m = strlen(b);
  if (n > 63 || m > 63)
    return 3;
  guint d[64][64];
  for (gsize i = 0; i <= n; i++)
    d[i][0] = (guint)i;
  for (gsize j = 0; j <= m; j++)
    d[0][j] = (guint)j;
  for (gsize i = 1; i <= n; i++)
    for (gsize j = 1; j <= m; j++) {
      guint v = MIN(d[i - 1][j] + 1, d[i][j - 1] + 1);
      v = MIN(v, d[i - 1][j - 1] + (a[i - 1] != b[j - 1]));
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        v = MIN(v, d[i - 2][j - 2] + 1);
      d[i][j] = v;
    }
  return MIN(d[n][m], 3u);
}

const char *
isa_op_nearest(const char *mnemonic)
{
  const char *best = NULL;
  guint best_d = 3;
  for (guint i = 0; i < ISA_OP_COUNT; i++) {
    guint d = isa_name_distance(mnemonic, isa_op_table[i].mnemonic);
    if (d < best_d && 2 * d < strlen(mnemonic)) {
      best = isa_op_table[i].mnemonic;
      best_d = d;
    }
  }
  return best;
}

gboolean
isa_op_lookup(const char *mnemonic, IsaOp *op)
{
  for (guint i = 0; i < ISA_OP_COUNT; i++) {
    if (strcmp(isa_op_table[i].mnemonic, mnemonic) == 0) {
      *op = (IsaOp)i;
      return TRUE;
    }
  }
  return FALSE;
}

const char *
isa_unit_name(IsaUnit unit)
{
  g_return_val_if_fail(unit < ISA_UNIT_COUNT, "?");
  return isa_unit_table[unit].name;
}

gboolean
isa_unit_lookup(const char *name, IsaUnit *unit)
{
  for (guint i = 0; i < ISA_UNIT_COUNT; i++) {
    if (strcmp(isa_unit_table[i].name, name) == 0) {
      *unit = (IsaUnit)i;
      return TRUE;
    }
  }
  return FALSE;
}
