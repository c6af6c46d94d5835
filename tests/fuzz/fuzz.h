/* What the fuzz harnesses share: the libFuzzer entry point each defines, and small fixed
 * inputs they combine with the fuzzed one.  Not a harness (fuzz-*.c). */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "sm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A small GPU and a small kernel to pair with a fuzzed kernel or GPU. */
#define FUZZ_GPU                                                                                   \
  "schedulers: 2\nunits:\n  alu: {latency_cycles: 4}\n  sfu: {lanes_per_scheduler: 8}\n"           \
  "memory:\n  dram: {latency_cycles: 40, bytes_per_cycle: 16, channels: 2}\n"                      \
  "  l2: {latency_cycles: 20, bytes_per_cycle: 32}\n"                                              \
  "caches:\n  l1: {bytes: 1024, ways: 2}\n  l2: {bytes: 8192, partitions: 2, far_latency_cycles: " \
  "30}\n"
#define FUZZ_KERNEL                                                                                \
  "name: k\nparams: {n: 3}\nwarps_per_sm: 4\nstream: |\n  repeat $n {\n    LDG R1, [R1]\n"         \
  "    LDS R2, [R2]\n    MUFU.RSQ R3, R3\n    FADD R1, R1, R2\n  }\n"

/* Simulates @gpu + @kernel for at most a few thousand cycles (a fuzzed loop may be long). */
static inline void
fuzz_simulate(const CfgGpu *gpu, const CfgKernel *kernel)
{
  SmGpu *sm = sm_new(gpu, kernel);
  sm_run_until(sm, 20000);
  sm_close(sm);
  (void)sm_stats(sm);
  sm_free(sm);
}
