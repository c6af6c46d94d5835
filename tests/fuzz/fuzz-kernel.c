/* Fuzzes the kernel file loader and the stream assembler (lexer, expressions, statements),
 * and a short simulation of every kernel they accept. */
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static CfgGpu *gpu;
  if (gpu == NULL) {
    CfgNode *groot = cfg_load_string("gpu.yaml", FUZZ_GPU, NULL);
    gpu = cfg_gpu_load(groot, NULL);
    cfg_node_free(groot);
  }
  g_autofree char *text = g_strndup((const char *)data, size);
  GError *error = NULL;
  CfgNode *root = cfg_load_string("kernel.yaml", text, &error);
  CfgKernel *kernel = root ? cfg_kernel_load(root, gpu, &error) : NULL;
  if (kernel) {
    for (guint i = 0; i < kernel->program->n_insns; i++)
      g_free(isa_insn_format(kernel->program, &kernel->program->insns[i]));
    if (kernel->grid_blocks <= 64)
      fuzz_simulate(gpu, kernel);
  }
  cfg_kernel_free(kernel);
  cfg_node_free(root);
  g_clear_error(&error);
  return 0;
}
