/* Volkov's model and the peaks derived from a GPU file: numbers printed beside simulated
 * results.  Not used by the simulated machine. */
#include "model.h"

#include <math.h>
#include <string.h>

#include "../mem/memory.h"

double
sm_model_issue_peak(const CfgGpu *gpu)
{
  return (double)gpu->schedulers * gpu->issue_width;
}

double
sm_model_unit_peak(const CfgGpu *gpu, IsaUnit unit)
{
  const CfgUnit *u = &gpu->units[unit];
  double pipe = gpu->schedulers * u->lanes_per_scheduler / 32.0;
  double issue = sm_model_issue_peak(gpu) / u->issue_cycles;
  return MIN(pipe, issue);
}

double
sm_model_smem_peak(const CfgGpu *gpu)
{
  double banks = 1.0 / gpu->smem.cycles_per_access;
  double issue = sm_model_issue_peak(gpu) / gpu->smem.issue_cycles;
  return MIN(MIN(banks, issue), sm_model_unit_peak(gpu, ISA_UNIT_LDST));
}

double
sm_model_level_peak(const CfgGpu *gpu, guint level)
{
  const CfgMemLevel *lv = &gpu->memory.levels[level];
  double bytes = MAX(gpu->memory.line_bytes, lv->min_access_bytes);
  double mem = isinf(lv->bytes_per_cycle) ? INFINITY : lv->bytes_per_cycle / bytes;
  return MIN(mem, sm_model_unit_peak(gpu, ISA_UNIT_LDST));
}

static const char *
param(const CfgKernel *k, const char *name, const char *fallback)
{
  const char *v = g_hash_table_lookup(k->params, name);
  return v ? v : fallback;
}

static double
param_number(const CfgKernel *k, const char *name, double fallback)
{
  const char *v = g_hash_table_lookup(k->params, name);
  if (v == NULL)
    return fallback;
  if (g_ascii_strcasecmp(v, "inf") == 0)
    return INFINITY;
  char *end;
  double d = g_ascii_strtod(v, &end);
  return *end == '\0' && end != v ? d : NAN;
}

gboolean
sm_model_mix(const CfgGpu *gpu, const CfgKernel *k, SmModelPoint *out)
{
  *out = (SmModelPoint){.cuda_guide = NAN, .level = -1};
  if (!g_hash_table_contains(k->params, "alpha") || !g_hash_table_contains(k->params, "other"))
    return FALSE;
  double alpha = param_number(k, "alpha", NAN);
  double ilp = param_number(k, "ilp", 1);
  if (isnan(alpha) || alpha < 0 || isnan(ilp) || ilp < 1)
    return FALSE;
  const char *other = param(k, "other", "none");
  IsaOp alu_op = ISA_OP_FADD, other_op = ISA_OP_NOP;
  isa_op_lookup(param(k, "alu_op", "FADD"), &alu_op);
  gboolean none = strcmp(other, "none") == 0;
  if (!none && !isa_op_lookup(other, &other_op))
    return FALSE;
  double n = k->warps_per_sm;
  double alu_thru = sm_model_unit_peak(gpu, ISA_UNIT_ALU);
  double issue_thru =
      gpu->schedulers * (gpu->dual_issue == CFG_DUAL_ANY_WARP ? gpu->issue_width : 1);
  double alu_lat = cfg_gpu_op_latency(gpu, alu_op, ISA_UNIT_ALU);
  double alu_issue = cfg_gpu_op_issue_cycles(gpu, alu_op);

  if (none || isinf(alpha)) {
    /* a pure ALU chain: one instruction per alu_lat per chain */
    out->warps = n;
    out->latency = alu_lat;
    out->latency_bound = n * ilp / alu_lat;
    out->throughput_bound = MIN(alu_thru, issue_thru / alu_issue);
    out->bound = alu_thru <= issue_thru / alu_issue ? "alu" : "issue";
    out->ipc = MIN(out->latency_bound, out->throughput_bound);
    out->warps_needed = alu_lat * out->throughput_bound / ilp;
    return TRUE;
  }

  const IsaOpInfo *info = isa_op_info(other_op);
  double other_lat_alu, other_lat_self, other_thru, movs = 0;
  if (info->space == ISA_SPACE_GLOBAL) {
    int level = cfg_gpu_level(gpu, param(k, "level", "dram"));
    if (level < 0)
      return FALSE;
    const CfgMemLevel *lv = &gpu->memory.levels[level];
    out->level = level;
    const char *pattern = param(k, "pattern", "coalesced");
    IsaPatternKind kind = ISA_PATTERN_COALESCED;
    guint stride = 1;
    if (strcmp(pattern, "random") == 0)
      kind = ISA_PATTERN_RANDOM;
    else if (g_str_has_prefix(pattern, "stride"))
      kind = ISA_PATTERN_STRIDE, stride = (guint)g_ascii_strtoull(pattern + 6, NULL, 10);
    guint trans, bytes;
    sm_memory_transactions(gpu, kind, MAX(stride, 1u), 4, &trans, &bytes);
    double cost = (double)trans * MAX(bytes, lv->min_access_bytes);
    other_thru = MIN(lv->bytes_per_cycle / cost, sm_model_unit_peak(gpu, ISA_UNIT_LDST));
    other_lat_alu = other_lat_self = lv->latency_cycles;
    movs = param_number(k, "mov_per_load", 0) > 0 ? 1 : 0;
  } else {
    other_lat_alu = cfg_gpu_op_latency(gpu, other_op, ISA_UNIT_ALU);
    other_lat_self = cfg_gpu_op_latency(gpu, other_op, info->unit);
    other_thru = info->space == ISA_SPACE_SHARED ? sm_model_smem_peak(gpu)
                                                 : sm_model_unit_peak(gpu, info->unit);
  }
  double other_issue = cfg_gpu_op_issue_cycles(gpu, other_op);
  double alu_to_other = cfg_gpu_op_latency(gpu, alu_op, info->unit);
  /* m other instructions and f ALU ops per group (alpha < 1: 1/alpha others per ALU op) */
  double m = alpha > 0 && alpha < 1 ? round(1 / alpha) : 1;
  double f = alpha >= 1 ? alpha : (alpha > 0 ? 1 : 0);
  double latency;
  if (f == 0)
    latency = other_lat_self;
  else
    latency = (m - 1) * other_lat_self + other_lat_alu + (f - 1) * alu_lat + alu_to_other;
  double per_group = m + f + m * movs;
  double slots = m * other_issue + f * alu_issue + m * movs;
  double g_other = other_thru / m;
  double g_alu = f > 0 ? alu_thru / f : INFINITY;
  double g_issue = issue_thru / slots;
  double g = MIN(g_other, MIN(g_alu, g_issue));
  const char *other_name = info->space == ISA_SPACE_GLOBAL   ? "memory"
                           : info->space == ISA_SPACE_SHARED ? "shared memory"
                                                             : "sfu";
  out->bound = g == g_other ? other_name : g == g_alu ? "alu" : "issue";
  out->warps = n;
  out->latency = latency;
  out->latency_bound = n * ilp / latency * per_group;
  out->throughput_bound = g * per_group;
  out->ipc = MIN(out->latency_bound, out->throughput_bound);
  out->warps_needed = latency * g / ilp;
  out->groups_per_cycle = g;
  out->other_latency = other_lat_self;
  if (alpha > 0)
    out->cuda_guide = other_lat_alu * alu_thru / alpha / ilp;
  return TRUE;
}

static const char *const bound_names[] = {"memory", "shared memory", "sfu", "alu", "issue", "?"};

guint
sm_model_bound_index(const char *bound)
{
  for (guint i = 0; i + 1 < G_N_ELEMENTS(bound_names); i++)
    if (bound && strcmp(bound, bound_names[i]) == 0)
      return i;
  return G_N_ELEMENTS(bound_names) - 1;
}

const char *
sm_model_bound_name(guint index)
{
  return bound_names[MIN(index, G_N_ELEMENTS(bound_names) - 1)];
}
