/* Printing a run's results: text for people, JSON for programs. */
#pragma once

#include "../config/kernel.h"
#include "stats.h"

/* Derived per-run numbers, the same in text and JSON. */
typedef struct {
  double ipc_total;
  double ipc_unit[ISA_UNIT_COUNT];
  double requests_per_cycle, bytes_per_cycle;
  double level_requests_per_cycle[CFG_MAX_LEVELS], level_bytes_per_cycle[CFG_MAX_LEVELS];
  double mean_load_latency; /* cycles; 0 without loads */
  double theoretical_occupancy, achieved_occupancy;
  double state_share[SM_STATE_COUNT];     /* of all warp-cycles */
  double state_per_issue[SM_STATE_COUNT]; /* warp-cycles per issued instruction */
  double issue_utilisation[SM_MAX_SCHEDULERS];
  double eligible_per_cycle, active_per_cycle;
} SmSummary;

void sm_summary_compute(const SmStats *stats, SmSummary *out);
void sm_report_text(const CfgGpu *gpu, const CfgKernel *kernel, const SmStats *stats, GString *out);
char *sm_report_json(const CfgGpu *gpu, const CfgKernel *kernel, const SmStats *stats);

typedef struct _JsonBuilder JsonBuilder;
/* The builder's document as indented JSON text (newly allocated). */
char *sm_json_text(JsonBuilder *builder);
