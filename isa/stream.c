/* IsaProgram's life and its text form.  Not how programs are built (asm.c) or run (sim/). */
#include "stream.h"

void
isa_program_free(IsaProgram *program)
{
  if (program == NULL)
    return;
  g_free(program->insns);
  g_free(program->deps);
  g_strfreev(program->reg_names);
  g_strfreev(program->levels);
  g_free(program->accesses);
  g_free(program);
}

static const char *
reg_name(const IsaProgram *program, guint8 slot)
{
  return slot == ISA_NO_REG ? "RZ" : program->reg_names[slot];
}

char *
isa_insn_format(const IsaProgram *program, const IsaInsn *insn)
{
  if (insn->kind == ISA_INSN_LOOP)
    return g_strdup_printf("repeat %u {", insn->iterations);
  if (insn->kind == ISA_INSN_END)
    return g_strdup("}");
  const IsaOpInfo *info = isa_op_info(insn->op);
  GString *s = g_string_new(NULL);
  guint nsrc = insn->nsrc;
  if (insn->guard == ISA_GUARD_NEVER) {
    g_string_append(s, "@!PT ");
  } else if (insn->guard != ISA_GUARD_NONE) {
    nsrc--;
    g_string_append_printf(s, "@%s%s ", insn->guard == ISA_GUARD_UNLESS ? "!" : "",
                           program->reg_names[insn->src[nsrc]]);
  }
  g_string_append(s, info->mnemonic);
  if (insn->width != 0 && insn->width != 4)
    g_string_append(s, insn->width == 8 ? ".64" : ".128");
  switch (info->shape) {
  case ISA_SHAPE_NONE:
    break;
  case ISA_SHAPE_DM:
    g_string_append_printf(s, " %s, [%s]", reg_name(program, insn->dst),
                           reg_name(program, insn->src[0]));
    break;
  case ISA_SHAPE_MS:
    g_string_append_printf(s, " [%s], %s", reg_name(program, insn->src[0]),
                           nsrc > 1 ? reg_name(program, insn->src[1]) : "RZ");
    break;
  case ISA_SHAPE_MM:
    g_string_append_printf(s, " [%s], [%s]", reg_name(program, insn->src[0]),
                           nsrc > 1 ? reg_name(program, insn->src[1]) : "RZ");
    break;
  case ISA_SHAPE_SBN:
    g_string_append_printf(s, " SB0, %u", insn->groups);
    break;
  case ISA_SHAPE_BRA:
    if (insn->labelled)
      g_string_append_printf(s, " @%u", insn->target); /* the target instruction's index */
    break;
  case ISA_SHAPE_BSSY:
    g_string_append_printf(s, " B%u, @%u", insn->barrier, insn->sync);
    break;
  case ISA_SHAPE_BSYNC:
    g_string_append_printf(s, " B%u", insn->barrier);
    break;
  case ISA_SHAPE_DSR:
    g_string_append_printf(s, " %s, SR_CLOCKLO", reg_name(program, insn->dst));
    break;
  case ISA_SHAPE_SETP:
    g_string_append_printf(s, " %s", reg_name(program, insn->dst));
    if (insn->pattern == ISA_PRED_LANES)
      g_string_append_printf(s, ", lanes 0x%08x", insn->lanes);
    else if (insn->pattern == ISA_PRED_CHANCE)
      g_string_append_printf(s, ", chance(%.6g)", insn->chance / 4294967296.0);
    else
      for (guint i = 0; i < nsrc; i++)
        g_string_append_printf(s, ", %s", reg_name(program, insn->src[i]));
    break;
  default:
    g_string_append_printf(s, " %s", reg_name(program, insn->dst));
    for (guint i = 0; i < nsrc; i++)
      g_string_append_printf(s, ", %s", reg_name(program, insn->src[i]));
    break;
  }
  static const char *const patterns[] = {
      [ISA_PATTERN_COALESCED] = "coalesced",
      [ISA_PATTERN_RANDOM] = "random",
      [ISA_PATTERN_BROADCAST] = "broadcast",
  };
  if (info->space == ISA_SPACE_NONE)
    ; /* pattern and level hold other things (ISETP's kind, a barrier number) */
  else if (insn->pattern == ISA_PATTERN_STRIDE)
    g_string_append_printf(s, " pattern=stride%u", insn->stride);
  else if (info->space == ISA_SPACE_GLOBAL || insn->pattern != ISA_PATTERN_COALESCED)
    g_string_append_printf(s, " pattern=%s", patterns[insn->pattern]);
  if (info->space == ISA_SPACE_GLOBAL && insn->level != ISA_LEVEL_NONE)
    g_string_append_printf(s, " level=%s", program->levels[insn->level]);
  if (info->space == ISA_SPACE_GLOBAL && insn->access) {
    static const char *const caches[] = {"ca", "nc", "cg"};
    const IsaAccess *acc = &program->accesses[insn->access - 1];
    if (acc->window)
      g_string_append_printf(s, " window=%" G_GUINT64_FORMAT, acc->window);
    if (acc->cache != ISA_CACHE_CA)
      g_string_append_printf(s, " cache=%s", caches[acc->cache]);
  }
  return g_string_free(s, FALSE);
}
