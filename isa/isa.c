/* Op metadata from the X-macro table (isa-ops.def): names, units, spaces, operand shapes.
 * Not text parsing (lexer.c, asm.c). */
#include "isa.h"

#include <string.h>

const IsaOpInfo isa_op_table[ISA_OP_COUNT] = {
#define ISA_OP(e, m, u, s, sp, ef) [ISA_OP_##e] = {m, u, s, sp, ef},
#include "isa-ops.def"
#undef ISA_OP
};

static const char *const unit_names[ISA_UNIT_COUNT] = {"alu", "sfu", "ldst"};

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
  return unit_names[unit];
}

gboolean
isa_unit_lookup(const char *name, IsaUnit *unit)
{
  for (guint i = 0; i < ISA_UNIT_COUNT; i++) {
    if (strcmp(unit_names[i], name) == 0) {
      *unit = (IsaUnit)i;
      return TRUE;
    }
  }
  return FALSE;
}
