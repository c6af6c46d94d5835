/* Printing a run's results: text for people, JSON for programs.  Not the numbers themselves:
 * stats.h derives them. */
#pragma once

#include "../../config/kernel.h"
#include "../stats.h"

void sm_report_text(const CfgGpu *gpu, const CfgKernel *kernel, const SmStats *stats, GString *out);
char *sm_report_json(const CfgGpu *gpu, const CfgKernel *kernel, const SmStats *stats);

typedef struct _JsonBuilder JsonBuilder;
/* The builder's document as indented JSON text (newly allocated). */
char *sm_json_text(JsonBuilder *builder);
