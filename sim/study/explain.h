/* What each warp state, report line and model number means (explain.c): one table for `smsim
 * explain` (cli/) and the lab page (serve/). */
#pragma once

#include <glib.h>

#include "model.h"

typedef struct {
  const char *topic;
  const char *summary; /* one line, for the list */
  const char *body;    /* a few lines */
} SmExplainTopic;

/* Every topic: the warp states first (by Nsight Compute's names, "inactive" last of them), then
 * the report's lines and the model's numbers, from "cycles" on. */
const SmExplainTopic *sm_explain_topics(guint *n);
/* The topic called @name (any case), or NULL. */
const SmExplainTopic *sm_explain_topic(const char *name);

/* Little's law worked out for a GPU and a mix-like kernel (sm_model_mix): "describe", the
 * memory level's latency x its line loads a cycle (absent without a global load), and "run",
 * a whole group's latency x the groups a cycle at the bound; each a number of warps and how it
 * comes (one line, its inputs).  FALSE when the kernel has no mix parameters. */
typedef struct {
  const char *name; /* "describe", "run" */
  double warps;
  char *how; /* "dram latency 714 cycles x 0.08594 line loads a cycle (...)" */
} SmLittle;

gboolean sm_explain_littles_law(const CfgGpu *gpu, const CfgKernel *kernel, SmModelPoint *model,
                                GPtrArray **lines /* SmLittle, freed with it */);
