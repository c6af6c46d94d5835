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
