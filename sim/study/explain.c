/* What each warp state, report line and model number means: the texts of `smsim explain` and
 * of the lab page's one-line explanations (serve/), in one table. */
#include "explain.h"

#include <string.h>

static const SmExplainTopic topics[] = {
    /* warp states (the run report's, by Nsight Compute's names) */
    {"selected", "the warp issued an instruction this cycle",
     "A warp-cycle in which the warp issued.  The sum over warps of selected is the number of\n"
     "warp-instructions issued; a scheduler issues at most issue_width a cycle, so the share of\n"
     "its issue slots used is selected / (cycles x issue_width)."},
    {"not_selected", "ready to issue, but the scheduler picked another warp",
     "The warp could have issued: its operands were ready and its pipe free.  The scheduler chose\n"
     "another (policy: lrr, gto, ...) or was busy with a multi-cycle issue.  Much not_selected\n"
     "means the warps hide the latency and more warps would not help: the issue slots are the\n"
     "limit."},
    {"wait", "waiting a fixed latency (a CUDA-core result, a branch's cycles)",
     "The warp's next instruction needs a result of a fixed-latency instruction (FADD, FFMA,\n"
     "IMAD: units.alu.latency_cycles), or the warp waits the fixed cycles after a branch or a\n"
     "convergence barrier (branch.*).  Hidden by other warps, or by independent instructions in\n"
     "the same warp (ILP)."},
    {"long_scoreboard", "waiting for a global-memory load",
     "The warp's next instruction needs the result of a global load still in flight (L1 hit, L2\n"
     "or DRAM latency plus queueing), or rewrites a register a global store has not read yet\n"
     "(kernels over SASS: the store waits in the LD/ST path).  The classic latency to hide:\n"
     "Little's law says how many loads must be in flight to keep memory busy ('smsim explain\n"
     "littles-law')."},
    {"short_scoreboard", "waiting for a shared-memory load or an SFU result",
     "The warp needs the result of an LDS (shared memory: its latency plus a pass per bank\n"
     "conflict way) or of an SFU instruction (MUFU: rsqrt, sin, ...)."},
    {"math_pipe_throttle", "its CUDA-core or SFU pipe is busy with earlier instructions",
     "The warp's instruction is ready, but its pipe has not finished accepting earlier ones (a\n"
     "pipe of L lanes takes a warp's 32 threads in 32/L cycles).  The pipe is the limit: peak\n"
     "throughput, not latency.  (A unit that is through_mio shows this as mio_throttle.)"},
    {"lg_throttle", "its global access cannot enter the LD/ST pipe",
     "The warp's global load or store waits: the LD/ST pipe is taking earlier accesses' lines,\n"
     "the SM has as many transactions in flight as it may (memory.max_outstanding, and\n"
     "max_store_outstanding for stores), or its store queue is full (lsu.store_queue: stores\n"
     "waiting for room with their registers unread).  Too many memory instructions at once.\n"
     "The warps waiting take the room as it frees in the order they came, or the oldest first\n"
     "(memory.throttle_order): then the youngest warps wait while the oldest go on."},
    {"mio_throttle",
     "its shared-memory access finds the queue to the banks full, or an MIO pipe busy",
     "Shared-memory accesses queue for the banks (shared_memory.queue_depth); each takes a pass\n"
     "per conflict way.  Bank conflicts or too many LDS/STS at once.  Also an instruction whose\n"
     "unit is reached through the MIO (units.UNIT.through_mio: the H100's SFU, for MUFU, POPC,\n"
     "F2I, ..., and SHFL on its LD/ST pipe) finding that pipe busy."},
    {"barrier", "waiting at BAR.SYNC for the rest of its block",
     "The warp reached __syncthreads() (BAR.SYNC) and waits for the other warps of its block\n"
     "(and for its own shared-memory stores to land: the barrier is a fence)."},
    {"no_instruction", "no instruction yet: just launched, or after a taken branch",
     "A warp just launched into its slot, whose scheduler has not looked at its first instruction\n"
     "yet; or (kernels over SASS) a warp after a taken branch, past the branch's stall count and\n"
     "its branch_resolving, while its target is fetched."},
    {"branch_resolving", "after a taken branch, its target being resolved",
     "Kernels over SASS: a warp after a taken branch, past the branch's stall count, for the\n"
     "first sass.branch_resolving_cycles of its wait (Nsight's branch_resolving; the rest of\n"
     "the wait, while the target is fetched, is no_instruction)."},
    {"dispatch_stall", "its result would find no register-file write port",
     "The warp could issue, but its CUDA-core result would arrive in a cycle whose register-file\n"
     "write ports (register_write_ports) are taken by SFU or memory results."},
    {"async_copy_wait", "waiting at DEPBAR for asynchronous copies to land",
     "The warp waits at DEPBAR.LE SB0, N for groups of asynchronous copies (LDGSTS, cp.async)\n"
     "to land in shared memory."},
    {"drain", "exited, its stores still in flight",
     "The warp issued its last instruction (EXIT) and its memory accesses, stores too, are\n"
     "still in flight: its slot is held until they complete (a store: until it is done for\n"
     "the warp, memory.store_drain and store_ack_cycles)."},
    {"membar", "at a fence, waiting for its SM's stores before it",
     "The warp is at a memory fence at GPU or system scope (MEMBAR.SC.GPU, MEMBAR.GPU, what\n"
     "__threadfence() compiles to): it goes on once its own trip is back (memory.fence_cycles),\n"
     "its own loads' data too, and the stores its SM issued before the fence are acknowledged\n"
     "(memory.fence: taken by their level, or complete there; then fence_ack_cycles)."},
    {"inactive", "the warp slot holds no warp",
     "Not a warp's state but a slot's: no warp launched into it yet, or the last one exited with\n"
     "nothing in flight.  The run report gives the other states as shares of resident\n"
     "warp-cycles (as Nsight samples only resident warps) and inactive apart, as a share of all\n"
     "slots' cycles."},
    /* report lines */
    {"cycles", "simulated cycles: first warp's start to last warp's end",
     "The SM clock cycles from the first warp's launch to the last warp's end (its last access\n"
     "done).  elapsed_cycles adds launch_cycles, what the launch itself costs (an empty\n"
     "kernel's time), to these or to the block dispatcher's last turn if that ends later\n"
     "(block_dispatch_cycles); milliseconds = elapsed_cycles / clock_mhz / 1000."},
    {"ipc", "warp-instructions issued per cycle per SM",
     "IPC/SM = warp-instructions issued / (cycles x SMs), in total and per unit (alu, sfu,\n"
     "ldst).  The peak is schedulers x issue_width; each unit's peak is in 'smsim describe'."},
    {"issue-slots", "the share of the schedulers' issue slots used",
     "Each scheduler has issue_width slots a cycle; busy = selected warp-cycles / (cycles x\n"
     "schedulers x issue_width).  Low: warps wait (latency not hidden); near 100 %: issue-bound."},
    {"memory", "requests and bytes per cycle, mean load latency",
     "requests/cycle and bytes/cycle: transactions and bytes sent to the memory levels (read and\n"
     "written) per cycle per SM, all levels together: with caches, a store is written into the\n"
     "L2 (and reaches DRAM when evicted) while missing loads read DRAM, so the total can pass\n"
     "DRAM's bytes_per_cycle; run --json gives each level's (memory.levels), and against a\n"
     "level's bytes_per_cycle they say how busy it is.\n"
     "mean load latency: issue to data of global loads, queueing included (above the level's\n"
     "latency_cycles when bandwidth is short)."},
    {"occupancy", "theoretical and achieved occupancy",
     "theoretical: resident warps the launch allows (warps per block x blocks per SM, each limit\n"
     "of registers, shared memory, warps and blocks; 'smsim occupancy') over limits.max_warps.\n"
     "achieved: resident warp-cycles / (cycles x max_warps), lower when blocks finish at\n"
     "different times or a grid's last wave is partial."},
    {"model", "Volkov's model: the latency and throughput bounds beside the results",
     "For mix-like kernels (a load or other instruction, then alpha dependent FADDs), Volkov's\n"
     "thesis (section 4.1): IPC = min(latency bound, throughput bound), where\n"
     "  latency bound    = warps x ilp x instructions per group / latency of a group\n"
     "  throughput bound = instructions per group x groups per cycle at the tightest unit\n"
     "A formula printed for comparison: the simulation never uses it."},
    {"littles-law", "warps needed to hide latency: describe's and run's",
     "Little's law: concurrency = latency x throughput.  To keep a unit at its peak, this many\n"
     "independent instructions must be in flight; with one dependent chain per warp, as many\n"
     "warps (divided by ilp, the chains per warp).\n"
     "  smsim describe GPU: latency x peak of each unit or memory level alone (a DRAM load's\n"
     "    latency x the loads a cycle DRAM's bandwidth allows).\n"
     "  smsim run (model line): the latency of a whole group of the kernel (the load, then\n"
     "    alpha dependent FADDs) x groups a cycle at the bound: more than describe's, by the\n"
     "    FADD chain's latency.\n"
     "Give a GPU and a kernel to see both worked out: smsim explain littles-law h100 mix."},
    {"cusp", "the occupancy needed for 90 % of peak, against arithmetic intensity",
     "Volkov's cusp (thesis section 4.5): sweep alpha and warps; for each alpha the warps\n"
     "needed for 90 % of peak.  Few FADDs a load: memory-bound, Little's law's warps for\n"
     "memory; many: ALU-bound, its warps for the ALU; in between both latencies add up and the\n"
     "warps needed peak (the cusp).  tools/dev demo draws it."},
};

const SmExplainTopic *
sm_explain_topics(guint *n)
{
  *n = G_N_ELEMENTS(topics);
  return topics;
}

const SmExplainTopic *
sm_explain_topic(const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS(topics); i++)
    if (g_ascii_strcasecmp(topics[i].topic, name) == 0)
      return &topics[i];
  return NULL;
}

static void
little_free(gpointer p)
{
  SmLittle *l = p;
  g_free(l->how);
  g_free(l);
}

gboolean
sm_explain_littles_law(const CfgGpu *gpu, const CfgKernel *kernel, SmModelPoint *m,
                       GPtrArray **lines)
{
  *lines = NULL;
  if (!sm_model_mix(gpu, kernel, m))
    return FALSE;
  *lines = g_ptr_array_new_with_free_func(little_free);
  if (m->level >= 0) {
    const CfgMemLevel *lv = &gpu->memory.levels[m->level];
    double peak = sm_model_level_peak(gpu, (guint)m->level);
    SmLittle *l = g_new0(SmLittle, 1);
    l->name = "describe";
    l->warps = lv->latency_cycles * peak;
    l->how = g_strdup_printf("%s latency %u cycles x %.5f line loads a cycle (%g bytes a cycle / "
                             "%u-byte lines)",
                             lv->name, lv->latency_cycles, peak, lv->bytes_per_cycle,
                             gpu->memory.line_bytes);
    g_ptr_array_add(*lines, l);
  }
  SmLittle *l = g_new0(SmLittle, 1);
  l->name = "run";
  l->warps = m->warps_needed;
  l->how = g_strdup_printf("a group's latency %.0f cycles (the other instruction's %.0f, then the "
                           "dependent ALU ops') x %.5f groups a cycle (%s-bound)",
                           m->latency, m->other_latency, m->groups_per_cycle, m->bound);
  g_ptr_array_add(*lines, l);
  return TRUE;
}
