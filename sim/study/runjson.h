/* A run as a JSON object, built in one place so that `smsim run --json` and the metrics of a
 * kernel-measurement file (`smsim validate`) always agree.  Not the text report (cli/). */
#pragma once

#include <json-glib/json-glib.h>

#include "../../config/kernel.h"
#include "../sm/stats.h"

/* The object `smsim run --json` prints (a new node). */
JsonNode *sm_run_json(const CfgGpu *gpu, const CfgKernel *kernel, const SmStats *stats);
/* A node or a builder's document as indented JSON text (newly allocated). */
char *sm_json_node_text(JsonNode *root);
char *sm_json_text(JsonBuilder *builder);
/* The number at a dotted path ("ipc.total", "memory.levels.dram.bytes_per_cycle",
 * "issue_slot_utilisation.0"); FALSE when there is none or it is not a number. */
gboolean sm_json_lookup_number(JsonNode *root, const char *path, double *out);
