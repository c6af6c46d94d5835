/* Fuzzes the readers of measurement files (both formats) and of sweep part files. */
#include "../../sim/study/sweep.h"
#include "../../sim/study/validate.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  g_autofree char *text = g_strndup((const char *)data, size);
  GError *error = NULL;
  SmValidation *v = sm_validation_parse("m.csv", text, &error);
  sm_validation_free(v);
  g_clear_error(&error);
  SmSweepPart *part = sm_sweep_part_parse("part.csv", text, &error);
  if (part) {
    g_autoptr(GPtrArray) parts = g_ptr_array_new();
    g_ptr_array_add(parts, part);
    SmSweep *sw = sm_sweep_merge(parts, &error);
    if (sw) {
      GPtrArray *curves = sm_sweep_curves(sw);
      g_ptr_array_free(curves, TRUE);
    }
    sm_sweep_free(sw);
  }
  sm_sweep_part_free(part);
  g_clear_error(&error);
  return 0;
}
