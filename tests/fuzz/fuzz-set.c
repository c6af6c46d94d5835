/* Fuzzes --vary and --set values: the first line is a --vary argument, every other line a
 * --set argument, applied to a small GPU and kernel and loaded as a run would be. */
#include "../../sim/study/sweep.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  g_autofree char *text = g_strndup((const char *)data, size);
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  GError *error = NULL;
  if (lines[0]) {
    SmVary *v = sm_vary_parse(lines[0], &error);
    if (v) {
      g_autoptr(SmSweep) sw = sm_sweep_new();
      if (sm_sweep_add_vary(sw, v, &error))
        sm_sweep_make_points(sw);
    }
    g_clear_error(&error);
  }
  CfgRunSource src = {.gpu_path = "gpu.yaml",
                      .gpu_text = FUZZ_GPU,
                      .kernel_path = "kernel.yaml",
                      .kernel_text = FUZZ_KERNEL};
  const char *const *sets = lines[0] ? (const char *const *)lines + 1 : NULL;
  CfgGpu *gpu = NULL;
  CfgKernel *kernel = NULL;
  if (cfg_load_run_text(&src, sets, NULL, &gpu, &kernel, &error)) {
    cfg_kernel_free(kernel);
    cfg_gpu_free(gpu);
  }
  g_clear_error(&error);
  return 0;
}
