/* Printing a run's results as text for people.  Not the numbers themselves (stats.h derives
 * them) nor the JSON object (study/runjson.h). */
#pragma once

#include "../../config/kernel.h"
#include "../sm/stats.h"

void sm_report_text(const CfgGpu *gpu, const CfgKernel *kernel, const SmStats *stats, GString *out);
