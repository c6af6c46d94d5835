/* What reading (validate-read.c) and replaying (validate.c) measurement files share. */
#pragma once

#include "validate.h"

/* kind -> the mix kernel's settings (the calibration README's workload table) */
typedef struct {
  const char *kind, *other, *pattern, *level, *alu_op;
} SmValidateKind;

extern const SmValidateKind sm_validate_kinds[7];

/* The curve a row belongs to: its curve column (or kernel and metric), or kind, alpha, ilp. */
char *sm_validate_row_label(const SmValidation *v, const SmValidateRow *r);
