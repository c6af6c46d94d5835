/* A kernel file's 'ranges' key (ranges.c): for each parameter, the span a slider offers or the
 * values a menu lists.  Not the parameters themselves (kernel.h). */
#pragma once

#include <glib.h>

#include "load.h"

typedef struct {
  char *name;    /* the parameter */
  GStrv choices; /* a menu of these values; NULL: a number from min to max */
  double min, max;
  double step; /* 0: not given */
} CfgParamRange;

void cfg_param_range_free(CfgParamRange *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(CfgParamRange, cfg_param_range_free)

/* The ranges of the kernel file @root (CfgParamRange, in file order; empty without the key);
 * NULL with a "file:line:col: ..." error for a range of no parameter or of bad form. */
GPtrArray *cfg_param_ranges(const CfgNode *root, GError **error);
