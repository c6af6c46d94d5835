#include "model.h"

#include <math.h>

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
