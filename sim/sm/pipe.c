/* Decoding a stream into per-instruction pipe costs.  No state of a running SM lives here. */
#include "pipe.h"

#include "../mem/chase.h"

#include "../mem/memory.h"
#include "smem.h"

SmInsnInfo *
sm_pipe_decode(const CfgGpu *gpu, const CfgKernel *kernel)
{
  const IsaProgram *prog = kernel->program;
  SmInsnInfo *info = g_new0(SmInsnInfo, prog->n_insns);
  for (guint i = 0; i < prog->n_insns; i++) {
    const IsaInsn *insn = &prog->insns[i];
    if (insn->kind != ISA_INSN_OP)
      continue;
    const IsaOpInfo *op = isa_op_info(insn->op);
    SmInsnInfo *ii = &info[i];
    ii->unit = op->unit;
    ii->pipe = op->unit;
    ii->space = op->space;
    ii->is_load = isa_op_is_load(insn->op);
    ii->is_store = isa_op_is_store(insn->op);
    static const SmSpecial special[] = {
        [ISA_EFFECT_COPY] = SM_SPECIAL_LDGSTS,      [ISA_EFFECT_COPY_COMMIT] = SM_SPECIAL_LDGDEPBAR,
        [ISA_EFFECT_COPY_WAIT] = SM_SPECIAL_DEPBAR, [ISA_EFFECT_BARRIER] = SM_SPECIAL_BAR,
        [ISA_EFFECT_CLOCK] = SM_SPECIAL_CLOCK,      [ISA_EFFECT_LANES] = SM_SPECIAL_NONE,
        [ISA_EFFECT_NONE] = SM_SPECIAL_NONE,        [ISA_EFFECT_LOAD] = SM_SPECIAL_NONE,
        [ISA_EFFECT_STORE] = SM_SPECIAL_NONE,       [ISA_EFFECT_FENCE] = SM_SPECIAL_FENCE};
    ii->special = special[op->effect];
    ii->write_cycles = 1;
    if (ii->is_load && gpu->register_write_bytes && insn->width > gpu->register_write_bytes)
      ii->write_cycles =
          (guint8)((insn->width + gpu->register_write_bytes - 1) / gpu->register_write_bytes);
    if (prog->simt && isa_insn_follows_lanes(insn))
      ii->special = SM_SPECIAL_SIMT;
    ii->writes_register = insn->dst != ISA_NO_REG && prog->reg_names[insn->dst][0] == 'R';
    ii->fixed_latency =
        isa_unit_table[op->unit].result == ISA_RESULT_FIXED && op->space == ISA_SPACE_NONE;
    ii->issue_cycles = cfg_gpu_op_issue_cycles(gpu, insn->op);
    guint lanes = gpu->units[op->unit].lanes_per_scheduler;
    ii->ii_ticks = (SM_TICKS_PER_CYCLE * 32) / lanes;
    for (guint u = 0; u < ISA_UNIT_COUNT; u++) {
      ii->latency[u] = cfg_gpu_op_latency(gpu, insn->op, u);
      ii->max_latency = MAX(ii->max_latency, ii->latency[u]);
    }
    switch (op->space) {
    case ISA_SPACE_NONE:
      ii->result_state = isa_unit_table[op->unit].result == ISA_RESULT_SCOREBOARD
                             ? SM_STATE_SHORT_SCOREBOARD
                             : SM_STATE_WAIT;
      ii->throttle_state = sm_unit_throttle_state(gpu, op->unit);
      break;
    case ISA_SPACE_SHARED:
      ii->result_state = SM_STATE_SHORT_SCOREBOARD;
      ii->throttle_state = SM_STATE_MIO_THROTTLE;
      ii->smem_pattern = insn->pattern;
      ii->passes =
          insn->pattern == ISA_PATTERN_RANDOM
              ? 0
              : (guint16)sm_smem_passes(gpu->smem.banks, gpu->smem.bank_width_bytes, insn->pattern,
                                        insn->stride, insn->width, gpu->smem.half_warps, NULL);
      break;
    case ISA_SPACE_GLOBAL: {
      ii->result_state = SM_STATE_LONG_SCOREBOARD;
      ii->throttle_state = SM_STATE_LG_THROTTLE;
      ii->level =
          insn->level == ISA_LEVEL_NONE ? kernel->unnamed_level : kernel->level_map[insn->level];
      ii->random_lines = insn->pattern == ISA_PATTERN_RANDOM;
      guint n, bytes;
      sm_memory_transactions(gpu, insn->pattern, insn->stride, insn->width, &n, &bytes);
      ii->n_trans = (guint16)n;
      ii->trans_bytes = bytes;
      if (insn->access) {
        const IsaAccess *acc = &kernel->program->accesses[insn->access - 1];
        ii->cache_op = acc->cache; /* IsaCacheOp and SmCacheOp agree */
        if (acc->window) {
          ii->unit_bytes = ii->random_lines ? bytes : n * gpu->memory.line_bytes;
          ii->chase_units = MAX(acc->window / ii->unit_bytes, 1u);
          ii->chase_bits = (guint8)sm_chase_bits(ii->chase_units);
        }
      }
      break;
    }
    }
    /* what comes after it is known without lane masks; it reaches no memory (gpu/loop.c) */
    ii->may_run_ahead = ii->space == ISA_SPACE_NONE && ii->special != SM_SPECIAL_SIMT &&
                        ii->special != SM_SPECIAL_BAR && ii->special != SM_SPECIAL_CLOCK &&
                        ii->special != SM_SPECIAL_FENCE;
    if (insn->guard == ISA_GUARD_NEVER) {
      ii->never = 1; /* no memory access, no result: the rest of the decode is for its pipe */
      ii->result_state = SM_STATE_WAIT;
      ii->throttle_state = op->space == ISA_SPACE_NONE ? sm_unit_throttle_state(gpu, op->unit)
                                                       : SM_STATE_LG_THROTTLE;
      ii->space = ISA_SPACE_NONE;
      ii->fixed_latency = 1;
      ii->is_load = ii->is_store = 0;
      ii->special = SM_SPECIAL_NONE;
      ii->n_trans = 0;
      ii->writes_register = 0;
      ii->may_run_ahead = 1;
    }
  }
  return info;
}
