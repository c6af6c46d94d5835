/* GPU and kernel files: defaults, --set, launch checks, and positioned errors. */
#include <check.h>
#include <string.h>

#include "../../config/ranges.h"
#include "helpers.h"

static CfgGpu *
gpu_from(const char *text, GError **error)
{
  g_autoptr(CfgNode) root = cfg_load_string("gpu.yaml", text, error);
  return root ? cfg_gpu_load(root, error) : NULL;
}

static void
assert_gpu_error(const char *text, const char *expect)
{
  GError *error = NULL;
  g_autoptr(CfgGpu) g = gpu_from(text, &error);
  ck_assert_msg(g == NULL, "accepted: %s", text);
  ck_assert_str_eq(error->message, expect);
  g_error_free(error);
}

#define MEM "memory:\n  dram: {latency_cycles: 400, bytes_per_cycle: 16}\n"

START_TEST(test_minimal_gpu_gets_documented_defaults)
{
  GError *error = NULL;
  g_autoptr(CfgGpu) g = gpu_from(MEM, &error);
  ck_assert_msg(g != NULL, "%s", error ? error->message : "");
  ck_assert_uint_eq(g->schedulers, 4);
  ck_assert_uint_eq(g->issue_width, 1);
  ck_assert_int_eq(g->policy, CFG_POLICY_LRR);
  ck_assert_uint_eq(g->units[ISA_UNIT_ALU].lanes_per_scheduler, 32);
  ck_assert_uint_eq(g->memory.line_bytes, 128);
  ck_assert_int_eq(g->memory.fence, CFG_FENCE_NONE); /* a fence waits for nothing */
  ck_assert_uint_eq(g->memory.fence_cycles, 0);
  ck_assert_uint_eq(g->memory.n_levels, 1);
  ck_assert_uint_eq(g->memory.levels[0].channels, 1);
  ck_assert_uint_eq(g->memory.levels[0].min_access_bytes, 32);
  ck_assert_uint_eq(g->limits.max_warps, 64);
}
END_TEST

START_TEST(test_consumer_latencies_and_op_overrides)
{
  GError *error = NULL;
  g_autoptr(CfgGpu) g = gpu_from("units:\n  alu:\n    latency_cycles: 6\n    ops: {IMAD: "
                                 "{latency_cycles: 5, issue_cycles: 2}}\n  sfu:\n"
                                 "    latency_cycles: 13\n    latency_to: {alu: 9}\n" MEM,
                                 &error);
  ck_assert_msg(g != NULL, "%s", error ? error->message : "");
  ck_assert_uint_eq(cfg_gpu_op_latency(g, ISA_OP_MUFU_RSQ, ISA_UNIT_ALU), 9);
  ck_assert_uint_eq(cfg_gpu_op_latency(g, ISA_OP_MUFU_RSQ, ISA_UNIT_SFU), 13);
  ck_assert_uint_eq(cfg_gpu_op_latency(g, ISA_OP_IMAD, ISA_UNIT_ALU), 5);
  ck_assert_uint_eq(cfg_gpu_op_latency(g, ISA_OP_FADD, ISA_UNIT_ALU), 6);
  ck_assert_uint_eq(cfg_gpu_op_issue_cycles(g, ISA_OP_IMAD), 2);
  ck_assert_uint_eq(cfg_gpu_op_issue_cycles(g, ISA_OP_FADD), 1);
}
END_TEST

START_TEST(test_bad_gpu_values_name_file_line_and_column)
{
  assert_gpu_error(
      "schedulers: 4\nshedulers: 2\n" MEM,
      "gpu.yaml:2:1: unknown key 'shedulers' in the GPU file (known keys: name, "
      "clock_mhz, schedulers, issue_width, dual_issue, policy, block_priority, block_priority_at, "
      "sm_count, "
      "launch_cycles, block_launch_cycles, block_dispatch_cycles, block_dispatch_burst, "
      "warp_launch_cycles, "
      "register_write_ports, "
      "register_write_bytes, "
      "two_level_pool, resume_window, "
      "limits, units, "
      "shared_memory, branch, memory, caches, lsu, constant_cache, sass)");
  assert_gpu_error("schedulers: four\n" MEM,
                   "gpu.yaml:1:13: schedulers: expected a whole number, got 'four'");
  assert_gpu_error("constant_cache: {bytes: 1000}\n" MEM,
                   "gpu.yaml:1:25: constant_cache.bytes (1000) must be a whole number of sets: "
                   "line_bytes x ways (256)");
  assert_gpu_error("constant_cache: {bytes: 2048, line_bytes: 2}\n" MEM,
                   "gpu.yaml:1:43: line_bytes: must be at least 4, got 2");
  assert_gpu_error("constant_cache: {bytes: 2048, hit_cycles: 2}\n" MEM,
                   "gpu.yaml:1:31: unknown key 'hit_cycles' in constant_cache (known keys: bytes, "
                   "line_bytes, ways, hit_latency_cycles, miss_latency_cycles, address_cycles, "
                   "port_cycles)");
  assert_gpu_error(
      "block_priority: eldest\n" MEM,
      "gpu.yaml:1:17: 'block_priority' must be one of none, oldest, youngest, got 'eldest'");
  assert_gpu_error("units:\n  alu: {latency_cycles: -5}\n" MEM,
                   "gpu.yaml:2:25: latency_cycles: must be at least 1, got -5");
  assert_gpu_error("units:\n  alu: {latency_cycles: 0}\n" MEM,
                   "gpu.yaml:2:25: latency_cycles: must be at least 1, got 0");
  assert_gpu_error("units:\n  sfu: {lanes_per_scheduler: 12}\n" MEM,
                   "gpu.yaml:2:30: lanes_per_scheduler must divide 32 or be a multiple of 32, got "
                   "12");
  assert_gpu_error("units:\n  tensor: {}\n" MEM,
                   "gpu.yaml:2:3: unknown unit 'tensor' in units (alu, sfu, ldst)");
  assert_gpu_error("block_priority_at: always\n" MEM,
                   "gpu.yaml:1:20: 'block_priority_at' must be one of every_pick, yields, got "
                   "'always'");
  assert_gpu_error("shared_memory: {throttle_order: fifo}\n" MEM,
                   "gpu.yaml:1:33: 'throttle_order' must be one of turns, arrival, got 'fifo'");
  assert_gpu_error(
      "memory:\n  throttle_order: youngest\n  dram: {latency_cycles: 400, "
      "bytes_per_cycle: 16}\n",
      "gpu.yaml:2:19: 'throttle_order' must be one of arrival, oldest, got 'youngest'");
  assert_gpu_error("lsu: {store_queue: 44, store_queue_hold_cycles: -3}\n" MEM,
                   "gpu.yaml:1:49: store_queue_hold_cycles: must be at least 0, got -3");
  assert_gpu_error("policy: fifo\n" MEM, "gpu.yaml:1:9: 'policy' must be one of lrr, gto, oldest, "
                                         "two_level, last_resumed, got 'fifo'");
  assert_gpu_error(
      "memory:\n  fence: always\n  dram: {latency_cycles: 400, bytes_per_cycle: 16}\n",
      "gpu.yaml:2:10: 'fence' must be one of none, acceptance, completion, got 'always'");
  assert_gpu_error(
      "memory:\n  fence_cycles: -5\n  dram: {latency_cycles: 400, bytes_per_cycle: 16}\n",
      "gpu.yaml:2:17: fence_cycles: must be at least 0, got -5");
  assert_gpu_error("memory:\n  dram: {latency_cycles: 400}\n",
                   "gpu.yaml:2:3: memory level 'dram' needs bytes_per_cycle");
  assert_gpu_error("memory:\n  dram: {latency_cycles: 4, bytes_per_cycle: 0}\n",
                   "gpu.yaml:2:46: bytes_per_cycle: must be at least 1e-06, got 0");
  assert_gpu_error("memory:\n  dram: {bytes_per_cycle: 4, latency_histogram: [[100]]}\n",
                   "gpu.yaml:2:50: expected a pair [cycles, weight]");
  assert_gpu_error("memory:\n  dram: {bytes_per_cycle: 4, latency_histogram: [[100, 0]]}\n",
                   "gpu.yaml:2:49: latency_histogram: the weights add up to 0");
  assert_gpu_error("memory:\n  dram: {bytes_per_cycle: 4, latency_histogram: 100}\n",
                   "gpu.yaml:2:49: latency_histogram must be a list");
  /* latencies shared while in flight: sizes, a histogram to share, a split with weight on
   * both sides */
#define HIST "memory:\n  dram: {bytes_per_cycle: 4, latency_histogram: [[100, 1], [300, 1]], "
  assert_gpu_error(HIST "latency_block_bytes: 384}\n",
                   "gpu.yaml:2:92: memory.dram.latency_block_bytes (384) must be a power of two, "
                   "at least line_bytes (128)");
  assert_gpu_error(HIST "latency_region_bytes: 64, latency_split_cycles: 200}\n",
                   "gpu.yaml:2:93: memory.dram.latency_region_bytes (64) must be a power of two, "
                   "at least line_bytes (128)");
  assert_gpu_error("memory:\n  dram: {bytes_per_cycle: 4, latency_cycles: 400, "
                   "latency_block_bytes: 256}\n",
                   "gpu.yaml:2:72: memory.dram.latency_block_bytes shares drawn latencies: it "
                   "needs latency_histogram");
  assert_gpu_error(HIST "latency_block_bytes: 1024, latency_region_bytes: 512, "
                        "latency_split_cycles: 200}\n",
                   "gpu.yaml:2:92: memory.dram.latency_block_bytes (1024) is larger than its "
                   "latency_region_bytes (512)");
  assert_gpu_error(HIST "latency_region_bytes: 4096}\n",
                   "gpu.yaml:2:93: memory.dram.latency_region_bytes shares a mode: it needs "
                   "latency_split_cycles");
  assert_gpu_error(HIST "latency_split_cycles: 200}\n",
                   "gpu.yaml:2:93: memory.dram.latency_split_cycles divides the modes of "
                   "latency_region_bytes, which is not given");
  assert_gpu_error(HIST "latency_region_bytes: 4096, latency_split_cycles: 400}\n",
                   "gpu.yaml:2:121: memory.dram.latency_split_cycles (400) leaves no weight of "
                   "latency_histogram on one side");
#undef HIST
  /* DRAM rows: a size, what an open one costs, no more than a closed one */
#define ROWS "memory:\n  dram: {bytes_per_cycle: 4, latency_cycles: 400, min_access_bytes: 96, "
  assert_gpu_error(ROWS "row_bytes: 3000, row_hit_bytes: 64}\n",
                   "gpu.yaml:2:84: memory.dram.row_bytes (3000) must be a power of two, at least "
                   "line_bytes (128)");
  assert_gpu_error(ROWS "row_bytes: 4096}\n",
                   "gpu.yaml:2:84: memory.dram.row_bytes needs row_hit_bytes (what an access to "
                   "an open row costs)");
  assert_gpu_error(ROWS "row_hit_bytes: 64}\n",
                   "gpu.yaml:2:88: memory.dram.row_hit_bytes is what an open row costs: it "
                   "needs row_bytes");
#undef ROWS
  assert_gpu_error("memory:\n  dram: {bytes_per_cycle: 4, latency_cycles: 400}\n  l2: "
                   "{bytes_per_cycle: 8, latency_cycles: 100}\ncaches:\n  l2: {bytes: 4096, "
                   "fill_bytes: 48}\n",
                   "gpu.yaml:5:33: caches.l2.fill_bytes (48) must be a power of two from "
                   "sector_bytes (32) to line_bytes (128)");
  assert_gpu_error("memory:\n  dram: {bytes_per_cycle: 4, latency_cycles: 400}\n  l2: "
                   "{bytes_per_cycle: 8, latency_cycles: 100}\ncaches:\n  l2: {bytes: 4096, "
                   "ways: 4, clean_ways: 4}\n",
                   "gpu.yaml:5:42: caches.l2.clean_ways (4) needs replacement: lru and fewer "
                   "than ways (4)");
  assert_gpu_error("memory:\n  dram: {bytes_per_cycle: 4, latency_cycles: 400}\n  l2: "
                   "{bytes_per_cycle: 8, latency_cycles: 100}\ncaches:\n  l2: {bytes: 4096, "
                   "replacement: random, clean_ways: 1}\n",
                   "gpu.yaml:5:54: caches.l2.clean_ways (1) needs replacement: lru and fewer "
                   "than ways (16)");
  assert_gpu_error("schedulers: [1, 2]\n" MEM,
                   "gpu.yaml:1:13: schedulers: expected a whole number, got a list");
  assert_gpu_error("name: a\nname: b\n" MEM, "gpu.yaml:2:1: duplicate key 'name'");
  assert_gpu_error("name: [a\n", "gpu.yaml:2:1: did not find expected ',' or ']' while parsing "
                                 "a flow sequence");
  assert_gpu_error("- a\n- b\n", "gpu.yaml:1:1: the top level must be a mapping of keys to values");
  /* indentation and tabs, in words besides libyaml's */
  assert_gpu_error("name: x\n\tschedulers: 4\n",
                   "gpu.yaml:2:1: a tab in the indentation: YAML indents with spaces only (replace "
                   "the tab with spaces) (YAML: found a tab character that violates "
                   "indentation while scanning a plain scalar)");
  assert_gpu_error("name: x\nschedulers: 4\n  issue_width: 1\n",
                   "gpu.yaml:3:14: a 'key:' where none can start: the line is indented deeper "
                   "than the keys above it (a key's own keys go on the lines below it, each "
                   "indented alike), or a value holding ': ' needs quotes (YAML: mapping values "
                   "are not allowed in this context)");
  assert_gpu_error("units:\n  alu:\n    latency_cycles: 4\n   lanes_per_scheduler: 32\n",
                   "gpu.yaml:4:4: this line's indentation lines up with none above it: the keys "
                   "of one section start in the same column (YAML: did not find expected key "
                   "while parsing a block mapping)");
  assert_gpu_error("", "gpu.yaml:1:1: the file is empty");
  assert_gpu_error("units:\n  alu:\n    ops: {LDG: {latency_cycles: 3}}\n" MEM,
                   "gpu.yaml:3:11: LDG does not run on alu (it runs on ldst)");
}
END_TEST

START_TEST(test_set_overrides_gpu_kernel_and_params)
{
  g_autofree char *gp = test_source_path("config/gpus/maxwell.yaml");
  g_autofree char *kp = test_source_path("isa/kernels/mix.yaml");
  const char *sets[] = {
      "memory.dram.latency_cycles=500", "alpha=3", "warps_per_sm=12", "registers_per_thread=64",
      "units.alu.latency_cycles=7",     NULL};
  CfgGpu *g = NULL;
  CfgKernel *k = NULL;
  GError *error = NULL;
  ck_assert_msg(cfg_load_run(gp, kp, sets, &g, &k, &error), "%s", error ? error->message : "");
  ck_assert_uint_eq(g->memory.levels[cfg_gpu_level(g, "dram")].latency_cycles, 500);
  ck_assert_uint_eq(g->units[ISA_UNIT_ALU].latency_cycles, 7);
  ck_assert_uint_eq(k->warps_per_sm, 12);
  ck_assert_uint_eq(k->registers_per_thread, 64);
  ck_assert_str_eq(g_hash_table_lookup(k->params, "alpha"), "3");
  /* 64 groups of LDG + 3 FADD */
  ck_assert_uint_eq(k->program->dynamic_count, 64 * 4);
  cfg_gpu_free(g);
  cfg_kernel_free(k);
}
END_TEST

/* sass.fetch_turns and fetch_cycles: off and 0 by default (and then not printed), read, printed
 * back and read back the same; bad values refused at their place */
START_TEST(test_sass_fetch_turns)
{
  GError *error = NULL;
  g_autoptr(CfgGpu) none = gpu_from(MEM, &error);
  ck_assert_msg(none != NULL, "%s", error ? error->message : "");
  ck_assert(!none->sass.fetch_turns);
  ck_assert_uint_eq(none->sass.fetch_cycles, 0);
  g_autoptr(GString) none_out = g_string_new(NULL);
  cfg_gpu_print(none, none_out);
  ck_assert_msg(!strstr(none_out->str, "fetch_"), "%s", none_out->str);
  g_autoptr(CfgGpu) g = gpu_from(MEM "sass: {fetch_turns: true, fetch_cycles: 6}\n", &error);
  ck_assert_msg(g != NULL, "%s", error ? error->message : "");
  ck_assert(g->sass.fetch_turns);
  ck_assert_uint_eq(g->sass.fetch_cycles, 6);
  g_autoptr(GString) out = g_string_new(NULL);
  cfg_gpu_print(g, out);
  ck_assert_msg(strstr(out->str, "  fetch_turns: true\n  fetch_cycles: 6\n"), "%s", out->str);
  g_autoptr(CfgGpu) back = gpu_from(out->str, &error);
  ck_assert_msg(back != NULL, "%s", error ? error->message : "");
  ck_assert(back->sass.fetch_turns);
  ck_assert_uint_eq(back->sass.fetch_cycles, 6);
  assert_gpu_error(MEM "sass: {fetch_turns: 1}\n",
                   "gpu.yaml:3:21: 'fetch_turns' must be true or false");
  assert_gpu_error(MEM "sass: {fetch_cycles: 256}\n",
                   "gpu.yaml:3:22: fetch_cycles: must be at most 255, got 256");
}
END_TEST

/* sass.branch: the branch section's costs but for the keys it gives (a later --set of branch
 * reaches the keys it does not); printed back, only those keys, and read back the same */
START_TEST(test_sass_branch_inherits_and_prints_back)
{
  const char *text = MEM "branch: {taken_cycles: 7, bsync_cycles: 20, divergent_cycles: 16}\n"
                         "sass: {branch: {taken_cycles: 9, bsync_cycles: 11}}\n";
  GError *error = NULL;
  g_autoptr(CfgGpu) g = gpu_from(text, &error);
  ck_assert_msg(g != NULL, "%s", error ? error->message : "");
  ck_assert_uint_eq(g->branch.taken_cycles, 7);
  ck_assert_uint_eq(g->sass.branch.taken_cycles, 9);
  ck_assert_uint_eq(g->branch.bsync_cycles, 20);
  ck_assert_uint_eq(g->sass.branch.bsync_cycles, 11);
  ck_assert_uint_eq(g->sass.branch.divergent_cycles, 16);
  g_autoptr(GString) out = g_string_new(NULL);
  cfg_gpu_print(g, out);
  ck_assert_msg(strstr(out->str, "sass:\n  branch:\n    taken_cycles: 9\n    bsync_cycles: 11\n"),
                "%s", out->str);
  ck_assert_ptr_null(strstr(out->str, "    divergent_cycles"));
  g_autoptr(CfgGpu) back = gpu_from(out->str, &error);
  ck_assert_msg(back != NULL, "%s", error ? error->message : "");
  ck_assert_mem_eq(&back->sass.branch, &g->sass.branch, sizeof g->sass.branch);
  ck_assert_mem_eq(&back->branch, &g->branch, sizeof g->branch);

  g_autofree char *gp = test_source_path("config/gpus/h100.yaml");
  g_autofree char *kp = test_source_path("isa/kernels/mix.yaml");
  const char *sets[] = {"branch.bssy_cycles=3", "branch.bsync_cycles=30", NULL};
  CfgGpu *h = NULL;
  CfgKernel *k = NULL;
  ck_assert_msg(cfg_load_run(gp, kp, sets, &h, &k, &error), "%s", error ? error->message : "");
  ck_assert_uint_eq(h->sass.branch.bssy_cycles, 3);   /* the preset's sass.branch leaves it */
  ck_assert_uint_eq(h->sass.branch.bsync_cycles, 11); /* ... and gives this one */
  ck_assert(h->sass.stall_counts);
  cfg_gpu_free(h);
  cfg_kernel_free(k);
  assert_gpu_error(MEM "sass: {stalls: true}\n",
                   "gpu.yaml:3:8: unknown key 'stalls' in sass (known keys: stall_counts, "
                   "yield_hints, branch_resolving_cycles, launch_fetch_cycles, fetch_turns, "
                   "fetch_cycles, exit_cycles, fair_window, fair_margin, ops, branch)");
  assert_gpu_error(MEM "sass: {yield_hints: 2}\n",
                   "gpu.yaml:3:21: 'yield_hints' must be true or false");
  assert_gpu_error(MEM "sass: {fair_window: 65}\n",
                   "gpu.yaml:3:21: fair_window: must be at most 64, got 65");
  assert_gpu_error(MEM "sass: {fair_margin: -1}\n",
                   "gpu.yaml:3:21: fair_margin: must be at least 0, got -1");
  assert_gpu_error(MEM "sass: {branch: {taken: 3}}\n",
                   "gpu.yaml:3:17: unknown key 'taken' in sass.branch (known keys: taken_cycles, "
                   "bssy_cycles, bsync_cycles, not_taken_cycles, divergent_cycles)");
}
END_TEST

/* sass.ops' pipe: an opcode of the CUDA cores on the integer pipe or the FMA pipe's heavy half,
 * printed back and read back the same; refused for an opcode of another unit, and for a pipe
 * that is not one of the three */
START_TEST(test_sass_ops_pipe_prints_back_and_is_checked)
{
  const char *text = MEM "sass:\n  ops:\n    LOP3: {pipe: int, lanes_per_scheduler: 16}\n"
                         "    IMAD: {pipe: fmaheavy}\n";
  GError *error = NULL;
  g_autoptr(CfgGpu) g = gpu_from(text, &error);
  ck_assert_msg(g != NULL, "%s", error ? error->message : "");
  SassOp lop3, imad, ffma;
  ck_assert(sass_op_lookup("LOP3", &lop3) && sass_op_lookup("IMAD", &imad) &&
            sass_op_lookup("FFMA", &ffma));
  ck_assert_uint_eq(g->sass.pipe[lop3], CFG_SASS_PIPE_INT);
  ck_assert_uint_eq(g->sass.lanes[lop3], 16);
  ck_assert_uint_eq(g->sass.pipe[imad], CFG_SASS_PIPE_FMAHEAVY);
  ck_assert_uint_eq(g->sass.pipe[ffma], CFG_SASS_PIPE_UNIT);
  g_autoptr(GString) out = g_string_new(NULL);
  cfg_gpu_print(g, out);
  ck_assert_msg(strstr(out->str, "    IMAD: {pipe: fmaheavy}\n") &&
                    strstr(out->str, "    LOP3: {lanes_per_scheduler: 16, pipe: int}\n"),
                "%s", out->str);
  g_autoptr(CfgGpu) back = gpu_from(out->str, &error);
  ck_assert_msg(back != NULL, "%s", error ? error->message : "");
  ck_assert_mem_eq(back->sass.pipe, g->sass.pipe, sizeof g->sass.pipe);
  assert_gpu_error(MEM "sass:\n  ops:\n    MUFU: {pipe: int}\n",
                   "gpu.yaml:5:18: MUFU runs on sfu: only an opcode of the CUDA cores (alu) has "
                   "another pipe");
  assert_gpu_error(MEM "sass:\n  ops:\n    IMAD: {unit: sfu, pipe: fmaheavy}\n",
                   "gpu.yaml:5:29: IMAD runs on sfu: only an opcode of the CUDA cores (alu) has "
                   "another pipe");
  assert_gpu_error(MEM "sass:\n  ops:\n    IMAD: {pipe: heavy}\n",
                   "gpu.yaml:5:18: 'pipe' must be one of unit, int, fmaheavy, got 'heavy'");
}
END_TEST

/* An opcode with one modifier has an entry of its own (IMAD.WIDE), written apart or inside its
 * opcode's; it prints back and reads back the same, and --set finds it whole. */
START_TEST(test_sass_ops_modifier_entries)
{
  const char *text = MEM "units:\n  sfu: {through_mio: true}\n"
                         "sass:\n  ops:\n    IMAD: {pipe: fmaheavy, lanes_per_scheduler: 16}\n"
                         "    IMAD.WIDE: {lanes_per_scheduler: 8, latency_cycles: 11}\n"
                         "    SHF: {R: {latency_cycles: 6}}\n";
  GError *error = NULL;
  g_autoptr(CfgGpu) g = gpu_from(text, &error);
  ck_assert_msg(g != NULL, "%s", error ? error->message : "");
  SassOp imad, shf;
  SassMod wide, r;
  ck_assert(sass_op_lookup("IMAD", &imad) && sass_op_lookup("SHF", &shf));
  ck_assert(sass_mod_lookup("WIDE", &wide) && sass_mod_lookup("R", &r));
  ck_assert_uint_eq(g->sass.n_mod_ops, 2);
  ck_assert_uint_eq(g->sass.mod_ops[0].op, imad);
  ck_assert_uint_eq(g->sass.mod_ops[0].mod, wide);
  ck_assert_uint_eq(g->sass.mod_ops[0].lanes, 8);
  ck_assert_uint_eq(g->sass.mod_ops[0].latency, 11);
  ck_assert_uint_eq(g->sass.mod_ops[0].pipe, CFG_SASS_PIPE_UNIT); /* the opcode's */
  ck_assert_uint_eq(g->sass.mod_ops[1].op, shf);
  ck_assert_uint_eq(g->sass.mod_ops[1].mod, r);
  ck_assert_uint_eq(g->sass.mod_ops[1].latency, 6);
  ck_assert_uint_eq(g->sass.lanes[imad], 16); /* the opcode alone keeps its own */
  ck_assert_uint_eq(g->sass.latency[shf], 0);
  g_autoptr(GString) out = g_string_new(NULL);
  cfg_gpu_print(g, out);
  ck_assert_msg(strstr(out->str, "    IMAD.WIDE: {latency_cycles: 11, lanes_per_scheduler: 8}\n") &&
                    strstr(out->str, "    SHF.R: {latency_cycles: 6}\n"),
                "%s", out->str);
  g_autoptr(CfgGpu) back = gpu_from(out->str, &error);
  ck_assert_msg(back != NULL, "%s", error ? error->message : "");
  /* units' through_mio prints back where set (and only there) */
  ck_assert(g->units[ISA_UNIT_SFU].through_mio && !g->units[ISA_UNIT_ALU].through_mio);
  const char *mio = strstr(out->str, "    through_mio: true\n");
  ck_assert_msg(mio && !strstr(mio + strlen("    through_mio: true\n"), "through_mio"), "%s",
                out->str);
  ck_assert(back->units[ISA_UNIT_SFU].through_mio && !back->units[ISA_UNIT_LDST].through_mio);
  /* shared_memory.throttle_order prints back where it is not turns (the default) */
  ck_assert_int_eq(g->smem.throttle_order, CFG_THROTTLE_TURNS);
  ck_assert_msg(!strstr(out->str, "throttle_order"), "%s", out->str);
  g_autoptr(CfgGpu) arrival = gpu_from(MEM "shared_memory: {throttle_order: arrival}\n", &error);
  ck_assert_msg(arrival != NULL, "%s", error ? error->message : "");
  ck_assert_int_eq(arrival->smem.throttle_order, CFG_THROTTLE_ARRIVAL);
  g_autoptr(GString) arrival_out = g_string_new(NULL);
  cfg_gpu_print(arrival, arrival_out);
  ck_assert_msg(strstr(arrival_out->str, "  throttle_order: arrival\n"), "%s", arrival_out->str);
  g_autoptr(CfgGpu) arrival_back = gpu_from(arrival_out->str, &error);
  ck_assert_msg(arrival_back != NULL, "%s", error ? error->message : "");
  ck_assert_int_eq(arrival_back->smem.throttle_order, CFG_THROTTLE_ARRIVAL);
  /* memory.throttle_order likewise, where it is not arrival (the default), and
   * lsu.store_queue_hold_cycles with the other LD/ST keys */
  ck_assert_int_eq(g->memory.throttle_order, CFG_LG_ARRIVAL);
  g_autoptr(CfgGpu) oldest = gpu_from("lsu: {store_queue: 44, store_queue_hold_cycles: 30}\n"
                                      "memory:\n  throttle_order: oldest\n"
                                      "  dram: {latency_cycles: 400, bytes_per_cycle: 16}\n",
                                      &error);
  ck_assert_msg(oldest != NULL, "%s", error ? error->message : "");
  ck_assert_int_eq(oldest->memory.throttle_order, CFG_LG_OLDEST);
  ck_assert_uint_eq(oldest->lsu.store_queue_hold_cycles, 30);
  g_autoptr(GString) oldest_out = g_string_new(NULL);
  cfg_gpu_print(oldest, oldest_out);
  ck_assert_msg(strstr(oldest_out->str, "  throttle_order: oldest\n") &&
                    strstr(oldest_out->str, "  store_queue_hold_cycles: 30\n"),
                "%s", oldest_out->str);
  g_autoptr(CfgGpu) oldest_back = gpu_from(oldest_out->str, &error);
  ck_assert_msg(oldest_back != NULL, "%s", error ? error->message : "");
  ck_assert_int_eq(oldest_back->memory.throttle_order, CFG_LG_OLDEST);
  ck_assert_uint_eq(oldest_back->lsu.store_queue_hold_cycles, 30);
  /* block_priority_at likewise, where it is not every_pick (the default) */
  ck_assert_int_eq(g->block_priority_at, CFG_BLOCK_PRIORITY_AT_EVERY_PICK);
  ck_assert_msg(!strstr(out->str, "block_priority_at"), "%s", out->str);
  g_autoptr(CfgGpu) lend = gpu_from("block_priority_at: yields\n" MEM, &error);
  ck_assert_msg(lend != NULL, "%s", error ? error->message : "");
  g_autoptr(GString) lend_out = g_string_new(NULL);
  cfg_gpu_print(lend, lend_out);
  ck_assert_msg(strstr(lend_out->str, "block_priority_at: yields\n"), "%s", lend_out->str);
  g_autoptr(CfgGpu) lend_back = gpu_from(lend_out->str, &error);
  ck_assert_msg(lend_back != NULL, "%s", error ? error->message : "");
  ck_assert_int_eq(lend_back->block_priority_at, CFG_BLOCK_PRIORITY_AT_YIELDS);
  ck_assert_uint_eq(back->sass.n_mod_ops, 2);
  ck_assert_mem_eq(back->sass.mod_ops, g->sass.mod_ops, 2 * sizeof g->sass.mod_ops[0]);

  /* --set changes the file's IMAD.WIDE; one the file lacks goes inside its opcode's entry */
  g_autofree char *gp = test_source_path("config/gpus/h100.yaml");
  g_autofree char *kp = test_source_path("isa/kernels/h100/pipes.yaml");
  const char *sets[] = {"sass.ops.IMAD.WIDE.latency_cycles=6", "sass.ops.IADD3.X.latency_cycles=7",
                        NULL};
  CfgGpu *h = NULL;
  CfgKernel *k = NULL;
  ck_assert_msg(cfg_load_run(gp, kp, sets, &h, &k, &error), "%s", error ? error->message : "");
  SassOp iadd3;
  SassMod x;
  ck_assert(sass_op_lookup("IADD3", &iadd3) && sass_mod_lookup("X", &x));
  gboolean wide_seen = FALSE, x_seen = FALSE;
  for (guint i = 0; i < h->sass.n_mod_ops; i++) {
    if (h->sass.mod_ops[i].op == imad && h->sass.mod_ops[i].mod == wide) {
      wide_seen = TRUE;
      ck_assert_uint_eq(h->sass.mod_ops[i].latency, 6);
      ck_assert_uint_eq(h->sass.mod_ops[i].lanes, 8); /* the file's, kept */
    }
    if (h->sass.mod_ops[i].op == iadd3 && h->sass.mod_ops[i].mod == x) {
      x_seen = TRUE;
      ck_assert_uint_eq(h->sass.mod_ops[i].latency, 7);
    }
  }
  ck_assert(wide_seen && x_seen);
  ck_assert_uint_eq(h->sass.pipe[iadd3], CFG_SASS_PIPE_INT); /* IADD3's own entry, kept */
  cfg_gpu_free(h);
  cfg_kernel_free(k);

  assert_gpu_error(MEM "sass:\n  ops:\n    IMAD.WIDEST: {lanes_per_scheduler: 8}\n",
                   "gpu.yaml:5:5: unknown SASS modifier 'WIDEST' in sass.ops.IMAD.WIDEST");
  assert_gpu_error(MEM "sass:\n  ops:\n    IMAD.WIDE.U32: {lanes_per_scheduler: 8}\n",
                   "gpu.yaml:5:5: sass.ops.IMAD.WIDE.U32: an opcode with one modifier at most "
                   "(IMAD.WIDE)");
  assert_gpu_error(MEM "sass:\n  ops:\n    IMAD.WIDE: {latency_cycles: 9}\n"
                       "    IMAD: {WIDE: {latency_cycles: 8}}\n",
                   "gpu.yaml:6:12: sass.ops.IMAD.WIDE is given twice");
  assert_gpu_error(MEM "sass:\n  ops:\n    MUFU.RSQ: {pipe: int}\n",
                   "gpu.yaml:5:22: MUFU.RSQ runs on sfu: only an opcode of the CUDA cores (alu) "
                   "has another pipe");
  assert_gpu_error(MEM "sass:\n  ops:\n    IMAD.WIDE: {lanes_per_scheduler: 3}\n",
                   "gpu.yaml:5:38: lanes_per_scheduler must divide 32 or be a multiple of 32, got "
                   "3");
}
END_TEST

/* A value in brackets is a list: kernel keys and GPU keys that take one, nested lists too. */
START_TEST(test_set_gives_lists)
{
  g_autofree char *gp = test_source_path("config/gpus/h100.yaml");
  g_autofree char *kp = test_source_path("isa/kernels/occupancy-lab.yaml");
  const char *sets[] = {"block_passes=[1, 1,2]", "warp_passes=[3]",
                        "memory.dram.latency_histogram=[[500, 1], [900, 3]]", NULL};
  CfgGpu *g = NULL;
  CfgKernel *k = NULL;
  GError *error = NULL;
  ck_assert_msg(cfg_load_run(gp, kp, sets, &g, &k, &error), "%s", error ? error->message : "");
  ck_assert_uint_eq(k->block_passes->len, 3);
  ck_assert_uint_eq(g_array_index(k->block_passes, guint, 1), 1);
  ck_assert_uint_eq(g_array_index(k->block_passes, guint, 2), 2);
  ck_assert_uint_eq(k->warp_passes->len, 1);
  ck_assert_uint_eq(g_array_index(k->warp_passes, guint, 0), 3);
  const CfgMemLevel *dram = &g->memory.levels[cfg_gpu_level(g, "dram")];
  ck_assert_uint_eq(dram->n_latencies, 2);
  ck_assert_uint_eq(dram->latency_bin[1], 900);
  ck_assert_double_eq(dram->latency_weight[1], 3);
  cfg_gpu_free(g);
  cfg_kernel_free(k);

  const struct {
    const char *set, *expect;
  } bad[] = {
      {"block_passes=[1,", "--set block_passes: '[1,' is not a list of values, e.g. [1, 2] ("},
      {"block_passes=[1, 2] x", "--set block_passes: '[1, 2] x' is not a list of values"},
      {"block_passes=2", "--set block_passes: 'block_passes' must be a list of whole numbers"},
      {"block_passes=[1,-2]", "--set block_passes: 'pass count' must be a whole number from 0 "
                              "to 1000000, got -2"},
      {"written_before_launch=-1",
       "'written_before_launch' must be a whole number from 0 to 1000000000000000, got -1"},
      {"memory.dram.latency_histogram=[[500, 1], [900]]",
       "--set memory.dram.latency_histogram: expected a pair [cycles, weight]"},
      {"memory.dram.latency_histogram=700", "--set memory.dram.latency_histogram: "
                                            "'latency_histogram' is a list: give one, e.g. "
                                            "memory.dram.latency_histogram=[1, 2]"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
    const char *one[] = {bad[i].set, NULL};
    ck_assert(!cfg_load_run(gp, kp, one, &g, &k, &error));
    ck_assert_msg(strstr(error->message, bad[i].expect) != NULL, "--set %s: got '%s'", bad[i].set,
                  error->message);
    g_clear_error(&error);
  }
}
END_TEST

static char *
run_error(const char *const *sets)
{
  g_autofree char *gp = test_source_path("config/gpus/maxwell.yaml");
  g_autofree char *kp = test_source_path("isa/kernels/mix.yaml");
  CfgGpu *g = NULL;
  CfgKernel *k = NULL;
  GError *error = NULL;
  ck_assert(!cfg_load_run(gp, kp, sets, &g, &k, &error));
  char *msg = g_strdup(error->message);
  g_error_free(error);
  return msg;
}

START_TEST(test_bad_sets_and_launches_are_rejected)
{
  const struct {
    const char *set;
    const char *expect; /* suffix of the message */
  } cases[] = {
      {"frobnicate=1",
       "--set frobnicate: no kernel parameter (warps_per_sm, alpha, ilp, other, "
       "pattern, level, window, warm, groups, alu_op, mov_per_load, unroll, loop_overhead, "
       "loop_movs, chain_movs), kernel key or GPU key of that name"},
      /* a name a typo away from one that exists is suggested, a GPU key with its path */
      {"alpah=2", "kernel key or GPU key of that name; did you mean 'alpha'?"},
      {"wraps_per_sm=2", "did you mean 'warps_per_sm'?"},
      {"memroy.dram.latency_cycles=3", "did you mean 'memory.dram.latency_cycles'?"},
      {"memory.dram.latency_cycles=-3", "--set memory.dram.latency_cycles: must be at least 1, "
                                        "got -3"},
      {"memory.dram.latncy=3", "--set memory.dram.latncy: unknown key 'latncy' in memory.dram "
                               "(known keys: latency_cycles, bytes_per_cycle, channels, "
                               "min_access_bytes, write_request_bytes, write_sector_bytes, "
                               "partial_sector_bytes, service, latency_histogram, "
                               "latency_block_bytes, latency_region_bytes, latency_split_cycles, "
                               "row_bytes, row_hit_bytes)"},
      {"schedulers=x", "--set schedulers: expected a whole number, got 'x'"},
      {"alpha", "--set alpha: expected KEY=VALUE"},
      {"alpha=", "--set alpha: empty value"},
      {"warps_per_sm=65", "65 warps per SM is impossible: the GPU holds at most 64"},
      {"registers_per_thread=300", "300 registers per thread is over the limit of 255"},
      {"level=l3", "memory level 'l3' is not in the GPU file (it has: dram, l2)"},
      {"other=FOO", "unknown op 'FOO'"},
      {"groups=-1", "repeat count must be a whole number from 0 to 4294967295, got -1"},
      {"units.alu=3", "--set units.alu: 'alu' is a section, set one of its keys instead"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
    const char *sets[] = {cases[i].set, NULL};
    g_autofree char *msg = run_error(sets);
    ck_assert_msg(strstr(msg, cases[i].expect) != NULL, "--set %s: got '%s'", cases[i].set, msg);
  }
  /* a bad parameter value is reported where the kernel uses it, naming the --set */
  const char *w65[] = {"warps_per_sm=65", NULL};
  g_autofree char *m65 = run_error(w65);
  ck_assert_msg(g_str_has_suffix(m65, "at most 64 (parameters set with --set: warps_per_sm=65)"),
                "%s", m65);
  /* an error inside the stream points into the kernel file */
  const char *sets[] = {"other=FOO", NULL};
  g_autofree char *msg = run_error(sets);
  ck_assert_msg(g_str_has_prefix(msg, SMSIM_SOURCE_DIR "/isa/kernels/mix.yaml:"), "%s", msg);
  ck_assert_msg(strstr(msg, "mix.yaml:60:17: unknown op 'FOO'") != NULL, "%s", msg);
}
END_TEST

START_TEST(test_register_file_bounds_occupancy)
{
  /* 48 warps x 32 threads x 64 registers = 98304 > 65536 */
  const char *sets[] = {"warps_per_sm=48", "registers_per_thread=64", NULL};
  g_autofree char *msg = run_error(sets);
  ck_assert_msg(strstr(msg, "48 warps x 32 threads x 64 registers = 98304 registers, more than the "
                            "65536 the SM has") != NULL,
                "%s", msg);
}
END_TEST

START_TEST(test_every_shipped_gpu_loads)
{
  const char *gpus[] = {"g80", "gt200", "fermi", "kepler", "maxwell", "h100", "toy-fig47"};
  for (guint i = 0; i < G_N_ELEMENTS(gpus); i++) {
    g_autofree char *rel = g_strdup_printf("config/gpus/%s.yaml", gpus[i]);
    g_autofree char *path = test_source_path(rel);
    GError *error = NULL;
    g_autoptr(CfgGpu) g = cfg_gpu_load_file(path, &error);
    ck_assert_msg(g != NULL, "%s: %s", gpus[i], error ? error->message : "");
    ck_assert_int_ge(cfg_gpu_level(g, "dram"), 0);
  }
}
END_TEST

/* 'ranges': a slider's span or a menu's values per parameter, checked where they are written */
/* Collections nested deeper than 64 levels are refused where they pass the limit (a pasted
 * "[[[[..." once overflowed the loader's stack) */
START_TEST(test_deep_nesting_is_refused)
{
  g_autoptr(GString) text = g_string_new("schedulers: ");
  for (guint i = 0; i < 100000; i++)
    g_string_append_c(text, '[');
  assert_gpu_error(text->str, "gpu.yaml:1:76: nested deeper than 64 levels");
  g_string_assign(text, "schedulers: ");
  for (guint i = 0; i < 63; i++)
    g_string_append_c(text, '[');
  for (guint i = 0; i < 63; i++)
    g_string_append_c(text, ']');
  assert_gpu_error(text->str, "gpu.yaml:1:13: schedulers: expected a whole number, got a list");
}
END_TEST

START_TEST(test_param_ranges)
{
  const char *kernel = "params:\n  a: 4\n  b: x\nranges:\n  a: {min: 1, max: 64, step: 2}\n"
                       "  b: [x, y, z]\nwarps_per_sm: 1\nstream: |\n  FADD R1, R1, R1\n";
  g_autoptr(CfgNode) root = cfg_load_string("k.yaml", kernel, NULL);
  GError *error = NULL;
  g_autoptr(GPtrArray) ranges = cfg_param_ranges(root, &error);
  ck_assert_ptr_nonnull(ranges);
  ck_assert_uint_eq(ranges->len, 2);
  const CfgParamRange *a = g_ptr_array_index(ranges, 0), *b = g_ptr_array_index(ranges, 1);
  ck_assert_str_eq(a->name, "a");
  ck_assert(a->choices == NULL && a->min == 1 && a->max == 64 && a->step == 2);
  ck_assert_uint_eq(g_strv_length(b->choices), 3);
  ck_assert_str_eq(b->choices[2], "z");
  g_autoptr(CfgGpu) gpu = gpu_from("schedulers: 1\n" MEM, NULL);
  g_autoptr(CfgKernel) k = cfg_kernel_load(root, gpu, &error);
  ck_assert_msg(k != NULL, "%s", error ? error->message : "");
  const struct {
    const char *ranges, *expect;
  } bad[] = {
      {"  c: {min: 1, max: 2}\n", "k.yaml:5:3: ranges.c: the kernel has no parameter 'c'"},
      {"  a: {min: 9, max: 2}\n", "k.yaml:5:6: ranges.a: min 9 is above max 2"},
      {"  a: {min: 1}\n", "k.yaml:5:6: ranges.a needs both min and max"},
      {"  a: {min: 1, max: z}\n", "k.yaml:5:20: ranges.a.max must be a number, got 'z'"},
      {"  a: {min: 1, max: 2, step: 0}\n", "k.yaml:5:29: ranges.a.step must be above 0"},
      {"  a: {low: 1}\n", "k.yaml:5:7: unknown key 'low' in ranges.a (known keys: min, max, step)"},
      {"  a: 3\n", "k.yaml:5:6: ranges.a is {min: A, max: B} (and optionally step: S), or a "
                   "list of the values the parameter takes"},
  };
  for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
    g_autofree char *text = g_strdup_printf("params:\n  a: 4\nwarps_per_sm: 1\nranges:\n%s"
                                            "stream: |\n  FADD R1, R1, R1\n",
                                            bad[i].ranges);
    g_autoptr(CfgNode) r = cfg_load_string("k.yaml", text, NULL);
    GError *e = NULL;
    g_autoptr(CfgKernel) kk = cfg_kernel_load(r, gpu, &e);
    ck_assert_msg(kk == NULL, "accepted: %s", bad[i].ranges);
    ck_assert_str_eq(e->message, bad[i].expect);
    g_error_free(e);
  }
}
END_TEST

START_TEST(test_every_key_is_documented)
{
  g_autofree char *path = test_source_path("docs/config.md");
  g_autofree char *doc = NULL;
  ck_assert(g_file_get_contents(path, &doc, NULL, NULL));
  guint n;
  const CfgFieldTable *tables = cfg_gpu_field_tables(&n);
  for (guint t = 0; t < n; t++) {
    for (guint f = 0; f < tables[t].n_fields; f++) {
      g_autofree char *key = g_strdup_printf("`%s`", tables[t].fields[f].key);
      ck_assert_msg(strstr(doc, key) != NULL, "docs/config.md does not document %s (%s)", key,
                    tables[t].section);
    }
  }
  const CfgField *kf = cfg_kernel_fields(&n);
  for (guint f = 0; f < n; f++) {
    g_autofree char *key = g_strdup_printf("`%s`", kf[f].key);
    ck_assert_msg(strstr(doc, key) != NULL, "docs/config.md does not document kernel key %s", key);
  }
}
END_TEST

static Suite *
config_suite(void)
{
  Suite *s = suite_create("config");
  TCase *tc = tcase_create("gpu");
  tcase_add_test(tc, test_minimal_gpu_gets_documented_defaults);
  tcase_add_test(tc, test_consumer_latencies_and_op_overrides);
  tcase_add_test(tc, test_bad_gpu_values_name_file_line_and_column);
  tcase_add_test(tc, test_every_shipped_gpu_loads);
  tcase_add_test(tc, test_every_key_is_documented);
  suite_add_tcase(s, tc);
  TCase *tk = tcase_create("kernel");
  tcase_add_test(tk, test_set_overrides_gpu_kernel_and_params);
  tcase_add_test(tk, test_sass_branch_inherits_and_prints_back);
  tcase_add_test(tk, test_sass_fetch_turns);
  tcase_add_test(tk, test_sass_ops_pipe_prints_back_and_is_checked);
  tcase_add_test(tk, test_sass_ops_modifier_entries);
  tcase_add_test(tk, test_bad_sets_and_launches_are_rejected);
  tcase_add_test(tk, test_set_gives_lists);
  tcase_add_test(tk, test_param_ranges);
  tcase_add_test(tk, test_deep_nesting_is_refused);
  tcase_add_test(tk, test_register_file_bounds_occupancy);
  suite_add_tcase(s, tk);
  return s;
}

int
main(void)
{
  return test_run_suite(config_suite());
}
