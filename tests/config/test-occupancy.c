/* The occupancy calculator against the occupancy lab and NVIDIA's calculator rules. */
#include <check.h>
#include <string.h>

#include "occupancy.h"
#include "helpers.h"

/* the lab's compute capability 5.0 SM: 64 warps, 32 blocks, 65536 registers, 64 KiB */
static CfgGpu *
cc50(const char *extra)
{
  g_autofree char *text =
      g_strdup_printf("limits:\n  max_warps: 64\n  max_blocks: 32\n  registers: 65536\n"
                      "  shared_memory_bytes: 65536\n  max_threads_per_block: 1024\n"
                      "  max_registers_per_thread: 255\n%s"
                      "memory:\n  dram: {latency_cycles: 400, bytes_per_cycle: 16}\n",
                      extra);
  GError *error = NULL;
  g_autoptr(CfgNode) root = cfg_load_string("cc50.yaml", text, &error);
  ck_assert_msg(root != NULL, "%s", error ? error->message : "");
  CfgGpu *g = cfg_gpu_load(root, &error);
  ck_assert_msg(g != NULL, "%s", error ? error->message : "");
  return g;
}

static CfgGpu *
h100(void)
{
  g_autofree char *path = test_source_path("config/gpus/h100.yaml");
  GError *error = NULL;
  CfgGpu *g = cfg_gpu_load_file_with_sets(path, NULL, &error);
  ck_assert_msg(g != NULL, "%s", error ? error->message : "");
  return g;
}

START_TEST(test_h100_reserves_1_kib_of_shared_memory_per_block)
{
  g_autoptr(CfgGpu) g = h100();
  CfgOccupancy o;
  /* 228 KiB per SM: (16 KiB + 1 KiB) x 13 fits, x 14 does not (without the reserve: 14) */
  ck_assert(cfg_occupancy(g, 128, 32, 16384, &o, NULL));
  ck_assert_uint_eq(o.shared_memory_allocated, 17408);
  ck_assert_uint_eq(o.blocks, 13);
  ck_assert(cfg_occupancy(g, 128, 32, 32768, &o, NULL));
  ck_assert_uint_eq(o.blocks, 6); /* 7 without the reserve */
  /* the largest dynamic allocation a block may have, 227 KiB, plus the reserve fills the SM */
  ck_assert(cfg_occupancy(g, 128, 32, 232448, &o, NULL));
  ck_assert_uint_eq(o.blocks, 1);
  ck_assert(!cfg_occupancy(g, 128, 32, 232449, &o, NULL));
  g_autoptr(CfgGpu) none = cc50("  reserved_shared_memory_per_block: 0\n");
  ck_assert(cfg_occupancy(none, 128, 32, 16384, &o, NULL));
  ck_assert_uint_eq(o.blocks, 4);
}
END_TEST

/* cudaOccupancyMaxActiveBlocksPerMultiprocessor for compute capability 9.0, written the way
 * NVIDIA's cuda_occupancy.h computes it: registers in 4 sub-partitions, a block checked as if
 * its warps were a multiple of 4, shared memory with the runtime's reserve in 128 B units. */
static guint
cuda_blocks(guint threads, guint regs, guint smem)
{
  guint warps = (threads + 31) / 32;
  guint by_warps = 64 / warps;
  guint per_warp = (regs * 32 + 255) / 256 * 256;
  guint by_regs = per_warp * ((warps + 3) / 4 * 4) > 65536 ? 0 : (16384 / per_warp) * 4 / warps;
  guint alloc = (smem + 1024 + 127) / 128 * 128;
  guint by_smem = 233472 / alloc;
  return MIN(MIN(by_warps, 32u), MIN(by_regs, by_smem));
}

START_TEST(test_h100_agrees_with_the_cuda_occupancy_rules)
{
  g_autoptr(CfgGpu) g = h100();
  guint checked = 0;
  for (guint t = 32; t <= 1024; t += 32) {
    for (guint r = 24; r <= 255; r++) {
      for (guint kib = 0; kib <= 227; kib++) {
        CfgOccupancy o;
        guint want = cuda_blocks(t, r, kib * 1024);
        gboolean ok = cfg_occupancy(g, t, r, kib * 1024, &o, NULL);
        ck_assert_msg(ok ? o.blocks == want : want == 0,
                      "%u threads, %u registers, %u KiB: smsim %u, CUDA %u", t, r, kib,
                      ok ? o.blocks : 0, want);
        checked++;
      }
    }
  }
  ck_assert_uint_eq(checked, 32 * 232 * 228);
}
END_TEST

START_TEST(test_lab_worked_example)
{
  /* 128 threads, 48 registers, 5000 B: limits 16 (warps), 13 (shared memory, the lab counts
   * bytes; 12 with the 256 B allocation unit), 10 (registers): 10 blocks, 40 warps, 0.625 */
  g_autoptr(CfgGpu) g = cc50("");
  CfgOccupancy o;
  ck_assert(cfg_occupancy(g, 128, 48, 5000, &o, NULL));
  ck_assert_uint_eq(o.limit_blocks[CFG_LIMIT_WARPS], 16);
  ck_assert_uint_eq(o.limit_blocks[CFG_LIMIT_SHARED_MEMORY], 12);
  ck_assert_uint_eq(o.limit_blocks[CFG_LIMIT_REGISTERS], 10);
  ck_assert_uint_eq(o.blocks, 10);
  ck_assert_uint_eq(o.warps, 40);
  ck_assert_double_eq(o.occupancy, 0.625);
  ck_assert(o.binds[CFG_LIMIT_REGISTERS] && !o.binds[CFG_LIMIT_SHARED_MEMORY]);
  g_autoptr(CfgGpu) bytes = cc50("  shared_memory_alloc_unit: 1\n");
  ck_assert(cfg_occupancy(bytes, 128, 48, 5000, &o, NULL));
  ck_assert_uint_eq(o.limit_blocks[CFG_LIMIT_SHARED_MEMORY], 13);
}
END_TEST

START_TEST(test_lab_task_1_more_shared_memory)
{
  /* 10000 B per block: 65536 / 10240 = 6 blocks, 24 warps, 0.375: shared memory binds */
  g_autoptr(CfgGpu) g = cc50("");
  CfgOccupancy o;
  ck_assert(cfg_occupancy(g, 128, 48, 10000, &o, NULL));
  ck_assert_uint_eq(o.blocks, 6);
  ck_assert_uint_eq(o.warps, 24);
  ck_assert_double_eq(o.occupancy, 0.375);
  ck_assert(o.binds[CFG_LIMIT_SHARED_MEMORY] && !o.binds[CFG_LIMIT_REGISTERS]);
}
END_TEST

START_TEST(test_each_limit_binds_in_turn)
{
  g_autoptr(CfgGpu) g = cc50("");
  CfgOccupancy o;
  /* warps: 512 threads = 16 warps, 4 blocks */
  ck_assert(cfg_occupancy(g, 512, 16, 0, &o, NULL));
  ck_assert_uint_eq(o.blocks, 4);
  ck_assert(o.binds[CFG_LIMIT_WARPS] && !o.binds[CFG_LIMIT_REGISTERS]);
  /* blocks: 32-thread blocks, 32 blocks = 32 warps = 0.5 */
  ck_assert(cfg_occupancy(g, 32, 16, 0, &o, NULL));
  ck_assert_uint_eq(o.blocks, 32);
  ck_assert_double_eq(o.occupancy, 0.5);
  ck_assert(o.binds[CFG_LIMIT_BLOCKS]);
  /* registers: 255 per thread -> 8192 per warp -> 8 warps, 2 blocks of 4 warps */
  ck_assert(cfg_occupancy(g, 128, 255, 0, &o, NULL));
  ck_assert_uint_eq(o.limit_blocks[CFG_LIMIT_REGISTERS], 2);
  ck_assert_uint_eq(o.warps, 8);
  /* shared memory: 48 KiB per block: 1 block */
  ck_assert(cfg_occupancy(g, 256, 32, 48 * 1024, &o, NULL));
  ck_assert_uint_eq(o.blocks, 1);
  ck_assert(o.binds[CFG_LIMIT_SHARED_MEMORY]);
}
END_TEST

START_TEST(test_allocation_granularity)
{
  /* 33 registers: 1056 per warp, rounded to 1280 with the unit 256 -> 51 warps -> 12 blocks
   * of 4; without the unit 62 warps -> 15 blocks; with a warp granularity of 4, 48 -> 12 */
  g_autoptr(CfgGpu) g = cc50("");
  g_autoptr(CfgGpu) fine = cc50("  register_alloc_unit: 1\n");
  g_autoptr(CfgGpu) quad = cc50("  register_alloc_unit: 1\n  warp_alloc_granularity: 4\n");
  g_autoptr(CfgGpu) block =
      cc50("  register_alloc_granularity: block\n  register_alloc_unit: 512\n");
  CfgOccupancy o;
  ck_assert(cfg_occupancy(g, 128, 33, 0, &o, NULL));
  ck_assert_uint_eq(o.limit_blocks[CFG_LIMIT_REGISTERS], 12);
  ck_assert(cfg_occupancy(fine, 128, 33, 0, &o, NULL));
  ck_assert_uint_eq(o.limit_blocks[CFG_LIMIT_REGISTERS], 15);
  ck_assert(cfg_occupancy(quad, 96, 33, 0, &o, NULL));
  ck_assert_uint_eq(o.limit_blocks[CFG_LIMIT_REGISTERS], 20); /* 62 -> 60 warps / 3 */
  /* per block: 96 threads x 33 = 3168 -> 3584: 18 blocks */
  ck_assert(cfg_occupancy(block, 96, 33, 0, &o, NULL));
  ck_assert_uint_eq(o.limit_blocks[CFG_LIMIT_REGISTERS], 18);
}
END_TEST

START_TEST(test_impossible_launches)
{
  g_autoptr(CfgGpu) g = cc50("  max_shared_memory_per_block: 49152\n");
  CfgOccupancy o;
  GError *e = NULL;
  ck_assert(!cfg_occupancy(g, 2048, 32, 0, &o, &e));
  ck_assert_str_eq(e->message, "blocks of 2048 threads are impossible: 1 to 1024 threads");
  g_clear_error(&e);
  ck_assert(!cfg_occupancy(g, 128, 256, 0, &o, &e));
  ck_assert_str_eq(e->message, "256 registers per thread is over the limit of 255");
  g_clear_error(&e);
  ck_assert(!cfg_occupancy(g, 128, 32, 50000, &o, &e));
  ck_assert_str_eq(e->message, "50000 bytes of shared memory per block is over the limit of 49152");
  g_clear_error(&e);
  g_autoptr(CfgGpu) small = cc50("");
  small->limits.registers = 16384;
  ck_assert(!cfg_occupancy(small, 1024, 32, 0, &o, &e));
  ck_assert(strstr(e->message, "needs 32768 registers, more than the SM's 16384") != NULL);
  g_clear_error(&e);
}
END_TEST

START_TEST(test_occupancy_command)
{
  const char *args[] = {"occupancy",
                        "config/gpus/maxwell.yaml",
                        "--threads-per-block",
                        "128",
                        "--regs-per-thread",
                        "48",
                        "--smem-per-block",
                        "5000",
                        "--set",
                        "limits.shared_memory_bytes=65536",
                        NULL};
  g_autofree char *out = NULL, *err = NULL;
  ck_assert_int_eq(test_smsim(args, &out, &err), 0);
  const char *expect[] = {"limited by     registers\n",
                          "resident       10 blocks, 40 warps per SM",
                          "occupancy      0.625",
                          "     128      4      10      40      0.625  registers",
                          "    1024     32       1      32      0.500  registers\n",
                          NULL};
  for (guint i = 0; expect[i]; i++)
    ck_assert_msg(strstr(out, expect[i]) != NULL, "missing '%s' in\n%s", expect[i], out);
  const char *bad[] = {"occupancy", "config/gpus/maxwell.yaml", "--threads-per-block", "4096",
                       NULL};
  g_autofree char *o2 = NULL, *e2 = NULL;
  ck_assert_int_eq(test_smsim(bad, &o2, &e2), 2);
  ck_assert_str_eq(e2, "blocks of 4096 threads are impossible: 1 to 1024 threads\n");
}
END_TEST

static Suite *
occupancy_suite(void)
{
  Suite *s = suite_create("occupancy");
  TCase *tc = tcase_create("calculator");
  tcase_add_test(tc, test_lab_worked_example);
  tcase_add_test(tc, test_lab_task_1_more_shared_memory);
  tcase_add_test(tc, test_each_limit_binds_in_turn);
  tcase_add_test(tc, test_allocation_granularity);
  tcase_add_test(tc, test_impossible_launches);
  tcase_add_test(tc, test_occupancy_command);
  tcase_add_test(tc, test_h100_reserves_1_kib_of_shared_memory_per_block);
  tcase_add_test(tc, test_h100_agrees_with_the_cuda_occupancy_rules);
  suite_add_tcase(s, tc);
  return s;
}

int
main(void)
{
  return test_run_suite(occupancy_suite());
}
