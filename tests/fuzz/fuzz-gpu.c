/* Fuzzes the GPU file loader (YAML, keys, ranges, histograms) and a short simulation of every
 * GPU it accepts. */
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  g_autofree char *text = g_strndup((const char *)data, size);
  GError *error = NULL;
  CfgNode *root = cfg_load_string("gpu.yaml", text, &error);
  CfgGpu *gpu = root ? cfg_gpu_load(root, &error) : NULL;
  if (gpu) {
    g_autoptr(GString) out = g_string_new(NULL);
    cfg_gpu_print(gpu, out);
    CfgNode *kroot = cfg_load_string("k.yaml", FUZZ_KERNEL, NULL);
    CfgKernel *kernel = cfg_kernel_load(kroot, gpu, NULL);
    if (kernel && gpu->sm_count <= 4 && gpu->schedulers * gpu->sm_count <= 16)
      fuzz_simulate(gpu, kernel);
    cfg_kernel_free(kernel);
    cfg_node_free(kroot);
  }
  cfg_gpu_free(gpu);
  cfg_node_free(root);
  g_clear_error(&error);
  return 0;
}
