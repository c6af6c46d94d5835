/* Fuzzes the SASS reader (functions, instructions, operands, labels) and a short execution of
 * every function it accepts: one block of two warps over a small buffer, a few thousand steps
 * a warp (a fuzzed loop may never end), every error reported rather than crashing. */
#include "fuzz.h"

#include "../../sim/exec/exec.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  GError *error = NULL;
  SassFile *f = sass_file_parse((const char *)data, size, "fuzz.sass", &error);
  g_clear_error(&error);
  if (!f)
    return 0;
  for (guint i = 0; i < f->n_functions && i < 4; i++) {
    char op[96];
    for (guint k = 0; k < f->functions[i].n_insns; k++)
      sass_insn_opcode(&f->functions[i].insns[k], op, sizeof op);
    ExecMemory *mem = exec_memory_new();
    guint64 params[4];
    for (guint b = 0; b < 4; b++)
      params[b] = exec_memory_add(mem, "buf", 4096);
    ExecLaunch launch = {.grid = {2, 1, 1},
                         .block = {48, 1, 1},
                         .shared_bytes = 1024,
                         .local_bytes = 64,
                         .params = (const guint8 *)params,
                         .params_size = sizeof params};
    ExecKernel *k = exec_kernel_new(&f->functions[i], f->path, mem, &launch, &error);
    g_clear_error(&error);
    if (k) {
      ExecBlock *b = exec_block_new(k, 1);
      ExecStep step;
      for (guint w = 0; w < b->n_warps; w++)
        for (guint n = 0; n < 4000; n++) {
          ExecStepStatus s = exec_warp_step(&b->warps[w], &step, &error);
          g_clear_error(&error);
          if (s == EXEC_STEP_EXITED || s == EXEC_STEP_ERROR)
            break;
        }
      exec_block_free(b);
      exec_kernel_free(k);
    }
    exec_memory_free(mem);
  }
  sass_file_free(f);
  return 0;
}
