/* A GPU (one SM and its share of the memory system) as described in a YAML file; not its
 * simulation (sim/).  Units: cycles are SM clock cycles; throughputs are per SM. */
#pragma once

#include "load.h"
#include "../isa/isa.h"
#include "../isa/sass/sass.h"

/* most SMs a GPU file may have (sm_count) */
#define CFG_MAX_SM_COUNT 1024u

typedef enum {
  CFG_POLICY_LRR,
  CFG_POLICY_GTO,
  CFG_POLICY_OLDEST,
  CFG_POLICY_TWO_LEVEL,
  CFG_POLICY_LAST_RESUMED
} CfgPolicy;
typedef enum { CFG_DUAL_SAME_WARP, CFG_DUAL_ANY_WARP } CfgDualIssue;
/* which resident block's warps a scheduler issues from first (none: all alike) */
typedef enum {
  CFG_BLOCK_PRIORITY_NONE,
  CFG_BLOCK_PRIORITY_OLDEST,
  CFG_BLOCK_PRIORITY_YOUNGEST
} CfgBlockPriority;
/* block_priority_at: block_priority decides every pick, or only the picks after an instruction
 * that yields: when the warp whose instruction did not yield cannot go on, the next warp in turn
 * issues, whatever its block (sass.yield_hints) */
typedef enum { CFG_BLOCK_PRIORITY_AT_EVERY_PICK, CFG_BLOCK_PRIORITY_AT_YIELDS } CfgBlockPriorityAt;
typedef enum { CFG_SERVICE_DETERMINISTIC, CFG_SERVICE_EXPONENTIAL } CfgService;
/* shared_memory.queue_counts: an access fills the queue by its passes (the banks' time it waits
 * for), or once */
typedef enum { CFG_QUEUE_PASSES, CFG_QUEUE_ACCESSES } CfgQueueCounts;
/* shared_memory.throttle_order: the schedulers take turns at the places that free in a full
 * queue, each issuing the warp its policy picks, or its warps waiting in the order they found
 * the queue full */
typedef enum { CFG_THROTTLE_TURNS, CFG_THROTTLE_ARRIVAL } CfgThrottleOrder;
/* memory.throttle_order: room that frees among an SM's transactions in flight (or in its store
 * queue) goes to the warp waiting for it that found none first, or to the oldest waiting (its
 * block launched first, then the lower warp slot) */
typedef enum { CFG_LG_ARRIVAL, CFG_LG_OLDEST } CfgLgOrder;
/* shared_memory.store_read_at: a store's registers are free to be written again after its last
 * bank pass, or once its first pass starts (its data read from them as it leaves the queue) */
typedef enum { CFG_STORE_READ_LAST_PASS, CFG_STORE_READ_FIRST_PASS } CfgStoreReadAt;
/* memory.store_drain: a store is done for its warp (what an exited warp waits for, drain) at its
 * completion in its level, once its level's channel has taken it, or once it has left the SM */
typedef enum { CFG_DRAIN_COMPLETION, CFG_DRAIN_ACCEPTANCE, CFG_DRAIN_DEPARTURE } CfgStoreDrain;
/* memory.fence: what a fence at GPU scope (MEMBAR.GPU, MEMBAR.SC.GPU, MEMBAR.SYS) waits for:
 * nothing, or its SM's stores before it taken by their level (at the SM's share of its write
 * rate where stores are paced, lsu.store_backlog_cycles; else by their channel), or completed
 * in their level (its latency after their channel took them); then acknowledged
 * (fence_ack_cycles) */
typedef enum { CFG_FENCE_NONE, CFG_FENCE_ACCEPTANCE, CFG_FENCE_COMPLETION } CfgFence;
typedef enum { CFG_REG_PER_WARP, CFG_REG_PER_BLOCK } CfgRegGranularity;
typedef enum { CFG_REPLACE_LRU, CFG_REPLACE_RANDOM } CfgReplacement;
typedef enum { CFG_INDEX_HASHED, CFG_INDEX_MODULO } CfgCacheIndex;
/* which global loads the L1 keeps (loads marked .STRONG.GPU, PTX ld.global.cg, never do) */
typedef enum { CFG_L1_LOADS_ALL, CFG_L1_LOADS_CONSTANT, CFG_L1_LOADS_NONE } CfgL1Loads;
/* sass.ops' pipe: the pipe an opcode of the CUDA cores (unit alu) holds: theirs, the integer
 * pipe beside them (logic, shifts, compares, integer adds), or the FMA pipe's heavy half
 * (integer multiply-adds), each a pipe of its own with the opcode's lanes */
typedef enum { CFG_SASS_PIPE_UNIT, CFG_SASS_PIPE_INT, CFG_SASS_PIPE_FMAHEAVY } CfgSassPipe;
/* how many opcode-with-modifier entries a GPU file's sass.ops may hold */
#define CFG_SASS_MOD_OPS 16
/* how an opcode with one modifier runs (IMAD.WIDE), as sass.ops' arrays below say for opcodes */
typedef struct {
  guint16 op, mod; /* SassOp, SassMod */
  guint8 unit;     /* IsaUnit + 1 */
  guint8 pipe;     /* CfgSassPipe */
  guint latency, issue_cycles, lanes;
} CfgSassModOp;

#define CFG_MAX_LEVELS 8u

typedef struct {
  guint lanes_per_scheduler;           /* a warp-instruction occupies the pipe 32/lanes cycles */
  guint latency_cycles;                /* result latency of the unit's ops */
  guint issue_cycles;                  /* scheduler cycles one issue takes */
  guint op_latency[ISA_OP_COUNT];      /* per-op override, 0 = latency_cycles */
  guint op_issue_cycles[ISA_OP_COUNT]; /* per-op override, 0 = issue_cycles */
  guint latency_to[ISA_UNIT_COUNT];    /* latency seen by a consumer on that unit, 0 = default */
  gboolean through_mio; /* its instructions reach it through the MIO's queue: a warp that finds
                           the pipe busy waits in mio_throttle, not math_pipe_throttle */
} CfgUnit;

#define CFG_MAX_LATENCY_BINS 256

/* A cache (caches.l1 per SM, caches.l2 shared): set-associative, lines of memory.line_bytes
 * holding memory.sector_bytes sectors; bytes = 0: no such cache. */
typedef struct {
  guint64 bytes;         /* capacity (L2: all partitions together) */
  guint64 unified_bytes; /* L1: storage shared with shared memory; 0 = bytes is the L1 */
  guint ways;            /* lines per set */
  int replacement;       /* CfgReplacement */
  int index;             /* CfgCacheIndex: sets chosen by a hash of the line or its low bits */
  guint latency_cycles;  /* L1: a hit's round trip */
  guint constant_latency_cycles; /* L1: a read-only load's hit (LDG.CONSTANT); 0 = latency */
  int loads;                     /* L1: CfgL1Loads */
  gboolean write_allocate;       /* L1: stores allocate (else write through, the line dropped) */
  gboolean write_update;         /* L1: a store keeps the line it finds, with what it writes */
  guint partitions;              /* L2: an SM's near partition first, then the line's home */
  guint far_latency_cycles;      /* L2: a hit in another partition than the SM's; 0 = latency */
  guint fill_bytes; /* L2: a store that writes a piece of this many bytes in part, the rest not
                       held, waits for the piece from its miss level (0: never) */
  guint clean_ways; /* L2: the least recently used ways of a set kept clean (0: none) */
  char *hit_level;  /* L2: the memory level whose channels serve its hits */
  char *miss_level; /* L2: ... and its misses */
  int hit_level_index, miss_level_index; /* those levels' indexes (-1 = none) */
} CfgCache;

typedef struct {
  char *name;
  guint latency_cycles;   /* unloaded round trip of one transaction */
  double bytes_per_cycle; /* peak, all channels together */
  guint channels;         /* independent servers, chosen by address hash */
  guint min_access_bytes; /* a transaction occupies a channel for at least this many bytes */
  /* a store's line occupies the channel for write_request_bytes, plus write_sector_bytes for
   * each sector it writes whole and partial_sector_bytes for each it writes in part (0: as a
   * load of its sectors; partial 0: as a whole one) */
  guint write_request_bytes, write_sector_bytes, partial_sector_bytes;
  int service; /* CfgService */
  /* unloaded latencies drawn per transaction: n_latencies (cycles, weight) pairs; 0 = always
   * latency_cycles */
  guint n_latencies;
  guint latency_bin[CFG_MAX_LATENCY_BINS];
  double latency_weight[CFG_MAX_LATENCY_BINS];
  /* drawn latencies shared while one is in flight (0: none): by lines of one block of
   * latency_block_bytes (the whole latency), and by blocks of one region of
   * latency_region_bytes (its mode: the bins below latency_split_cycles, or the rest) */
  guint latency_block_bytes, latency_region_bytes, latency_split_cycles;
  /* a transaction to a row of row_bytes that another transaction in flight opened occupies
   * its channel for at least row_hit_bytes (no more than min_access_bytes) rather than
   * min_access_bytes (0: no rows) */
  guint row_bytes, row_hit_bytes;
} CfgMemLevel;

/* what a branch costs a warp beyond its issue */
typedef struct {
  guint taken_cycles; /* a warp waits this long after a taken branch (fetch redirect) */
  guint bssy_cycles, bsync_cycles; /* ... and after a convergence-barrier instruction */
  guint not_taken_cycles; /* after a conditional BRA that falls through (kernels over SASS) */
  guint divergent_cycles; /* added when a branch splits the warp's lanes */
} CfgBranch;

/* The constant cache each SM reads LDC's words through (kernels over SASS). */
typedef struct {
  guint bytes, line_bytes, ways;
  guint hit_latency_cycles;  /* a warp's LDC whose lines are all held: its result this late */
  guint miss_latency_cycles; /* ... and one with a line not held (the next level's) */
  guint address_cycles;      /* each distinct address of the warp's lanes beyond the first */
  guint port_cycles; /* a read of several addresses takes the SM's port this long an address */
} CfgConstantCache;

typedef struct {
  char *name;
  double clock_mhz;
  guint schedulers;
  guint issue_width;
  int dual_issue;               /* CfgDualIssue */
  int policy;                   /* CfgPolicy */
  int block_priority;           /* CfgBlockPriority */
  int block_priority_at;        /* CfgBlockPriorityAt */
  guint block_launch_cycles;    /* a retired block's slot takes a new block after this long */
  double block_dispatch_cycles; /* the GPU's block dispatcher's turn, cycles a block */
  guint block_dispatch_burst;   /* blocks an SM may take at once under it (token bucket) */
  guint warp_launch_cycles;     /* a block's warps start this long apart, in their order */
  guint launch_cycles;          /* a kernel lasts this much beyond its warps (launch and end) */
  guint sm_count;               /* SMs sharing the memory system (bandwidth and channels x count) */
  guint register_write_ports;   /* results written per cycle per scheduler; 0: unlimited */
  guint register_write_bytes;   /* bytes a lane a write port takes in a cycle: a load's wider
                                   result holds its port longer (0: any result in one cycle) */
  guint two_level_pool;         /* policy two_level: active warps per scheduler */
  guint resume_window; /* policy last_resumed: cycles within which resumed warps are equals */
  struct {
    guint max_warps, max_blocks, registers, max_registers_per_thread, shared_memory_bytes,
        max_threads_per_block;
    guint register_alloc_unit;              /* registers are given out in multiples of this */
    int register_alloc_granularity;         /* CfgRegGranularity: per warp or per block */
    guint warp_alloc_granularity;           /* warps limited by registers round down to this */
    guint max_shared_memory_per_block;      /* 0: shared_memory_bytes */
    guint shared_memory_alloc_unit;         /* bytes */
    guint reserved_shared_memory_per_block; /* bytes the runtime adds to every block */
  } limits;
  CfgUnit units[ISA_UNIT_COUNT];
  struct {
    guint latency_cycles;
    guint latency_to[ISA_UNIT_COUNT];
    double cycles_per_access;    /* one warp-access per this many cycles, per SM */
    guint issue_cycles;          /* issue cost of LDS/STS */
    guint queue_depth;           /* accesses waiting for the banks before mio_throttle */
    int queue_counts;            /* CfgQueueCounts: what queue_depth counts */
    int throttle_order;          /* CfgThrottleOrder: who takes a freed place of a full queue */
    gboolean half_warps;         /* wide accesses by half-warps, each one pass where it fits */
    gboolean warp_passes_apart;  /* a warp's next access starts pass_latency after its last pass */
    int store_read_at;           /* CfgStoreReadAt: when a store's registers are free again */
    guint store_read_cycles;     /* first_pass: the first data register read after that pass */
    guint store_register_cycles; /* ... each 4-byte register after it this much later */
    guint pass_latency_cycles;   /* each pass beyond the first delays the result this much; 0: as
                                    cycles_per_access */
    guint banks;                 /* a pass serves one bank_width_bytes word from each bank */
    guint bank_width_bytes;
    gboolean async_copy; /* LDGSTS, LDGDEPBAR, DEPBAR exist */
  } smem;
  CfgBranch branch;
  /* how SASS opcodes run here (kernels over SASS): the unit, result latency, issue cycles and
   * lanes per scheduler of each, and the pipe it holds; 0 = those of the unit its lowered op
   * runs on (sass-ops.def) */
  struct {
    guint8 unit[SASS_OP_COUNT]; /* IsaUnit + 1 */
    guint latency[SASS_OP_COUNT];
    guint issue_cycles[SASS_OP_COUNT];
    guint lanes[SASS_OP_COUNT];
    guint8 pipe[SASS_OP_COUNT]; /* CfgSassPipe */
    /* an opcode with one modifier that runs apart from its opcode (sass.ops.IMAD.WIDE): the
     * same settings, for the instructions that carry the modifier (0: the opcode's) */
    CfgSassModOp mod_ops[CFG_SASS_MOD_OPS];
    guint n_mod_ops;
    /* a warp waits after each instruction the cycles its SASS's control bits say (the
     * compiler's stall count: Nsight's "wait"), besides its operands' readiness */
    gboolean stall_counts;
    /* a warp whose instruction's control bits do not ask it to yield keeps its scheduler the
     * next cycle, if it can issue then (the compiler's yield hints) */
    gboolean yield_hints;
    /* of a taken branch's wait past its stall count, the first cycles are branch_resolving, the
     * rest no_instruction */
    guint branch_resolving_cycles;
    /* a warp's first instruction is fetched this long after its start (no_instruction) */
    guint launch_fetch_cycles;
    /* a scheduler fetches for its warps in turn, one a cycle: a taken branch's target is fetched
     * at its warp's first turn once the branch resolves and can issue fetch_cycles later, its
     * two instructions first and the rest at the warp's next turn (no_instruction) */
    gboolean fetch_turns;
    guint fetch_cycles;
    /* an EXIT's wait past its stall count (branch_resolving), before the lanes it leaves go on
     * or the warp leaves its slot */
    guint exit_cycles;
    /* past a yield, the turn skips a warp that issued in more than fair_margin cycles more of
     * the last fair_window than the eligible warp of its block that issued in fewest (0: no
     * window) */
    guint fair_window;
    guint fair_margin;
    /* what branches cost kernels over SASS: the branch section's, but for the keys sass.branch
     * gives (with stall counts, the compiler's waits already hold part of them) */
    CfgBranch branch;
  } sass;
  struct {
    guint line_bytes, sector_bytes;
    guint max_outstanding;       /* transactions in flight per SM before lg_throttle */
    guint max_store_outstanding; /* of them stores' (0: no limit of their own) */
    int throttle_order;          /* CfgLgOrder: who takes room that frees */
    int store_drain;             /* CfgStoreDrain: when a store is done for its warp */
    guint store_ack_cycles;      /* ... and this much later (its acknowledgement back) */
    int fence;                   /* CfgFence: what a fence at GPU scope waits for */
    guint fence_cycles;          /* ... and at least this long (its own trip) */
    guint fence_ack_cycles;      /* a store is acknowledged to a fence this long after that */
    double sm_bytes_per_cycle;   /* an SM's own path to the levels (its crossbar port); inf */
    guint64 seed;                /* addresses and random service times */
    CfgMemLevel levels[CFG_MAX_LEVELS];
    guint n_levels;
  } memory;
  struct {
    CfgCache l1, l2;
  } caches;
  /* The LD/ST path between the warps and the memory system (kernels over SASS): the L1TEX
   * stage that looks up a global warp-access's lines before they go on, and the stores' data
   * it reads from the register file.  All 0: no stage (accesses reach the memory system at
   * issue, stores free their registers at once). */
  struct {
    guint load_line_cycles;        /* stage cycles per line of a load */
    guint return_line_cycles;      /* each line of a load after the first: later data */
    guint store_line_cycles;       /* stage cycles per line of a store */
    guint partial_sector_cycles;   /* ... and per sector a store writes in part */
    guint store_bytes_per_cycle;   /* a store's data enters the stage at this rate (0: at once) */
    guint store_read_cycles;       /* a store's registers are read this long after its issue */
    guint store_buffer;            /* stores read and not yet through the stage, per SM (0: any) */
    guint store_queue;             /* stores issued and not yet read, per SM: they wait in the
                                      path for room among the stores in flight (0: at issue) */
    guint store_queue_hold_cycles; /* a store keeps its place in the queue this long after its
                                      registers are read */
    guint store_backlog_cycles;    /* the stage holds a store whose lines' level would take them
                                      later than this behind the SM's share of its write rate
                                      (0: never) */
  } lsu;
  /* The constant cache each SM reads LDC's words through (kernels over SASS): which lines it
   * holds, what a hit and a miss cost, and how it serves a warp's distinct addresses one at a
   * time.  bytes 0: none (LDC runs as an op of its unit). */
  CfgConstantCache constant_cache;
} CfgGpu;

/* Whether the GPU file has a constant cache (constant_cache.bytes is not 0). */
gboolean cfg_gpu_has_constant_cache(const CfgGpu *gpu);

/* Whether the GPU file has an LD/ST stage (some lsu key is not 0). */
gboolean cfg_gpu_has_lsu(const CfgGpu *gpu);

/* Loads a GPU from @root (a parsed YAML file with any --set overrides applied). */
CfgGpu *cfg_gpu_load(const CfgNode *root, GError **error);
CfgGpu *cfg_gpu_load_file(const char *path, GError **error);
/* Loads @path with "KEY=VALUE" overrides @sets (may be NULL); errors name "--set KEY". */
CfgGpu *cfg_gpu_load_file_with_sets(const char *path, const char *const *sets, GError **error);
void cfg_gpu_free(CfgGpu *gpu);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(CfgGpu, cfg_gpu_free)

/* Whether the GPU has an L1 or an L2 cache: then global accesses that name no level go
 * through them (an L1 per SM, a shared L2), and their addresses decide the level. */
gboolean cfg_gpu_has_caches(const CfgGpu *gpu);

/* Index of the memory level called @name, or -1. */
int cfg_gpu_level(const CfgGpu *gpu, const char *name);
/* Latency of @op's result for a consumer on @consumer. */
guint cfg_gpu_op_latency(const CfgGpu *gpu, IsaOp op, IsaUnit consumer);
guint cfg_gpu_op_issue_cycles(const CfgGpu *gpu, IsaOp op);

/* Prints every key with its value (defaults filled in) as YAML. */
void cfg_gpu_print(const CfgGpu *gpu, GString *out);

/* The field tables, for documentation checks: section names are "", "limits", "units.*",
 * "shared_memory", "memory", "memory.*" (levels). */
typedef struct {
  const char *section;
  const CfgField *fields;
  guint n_fields;
  gboolean in_gpu; /* the offsets are into CfgGpu itself (a default GPU shows the defaults) */
} CfgFieldTable;
const CfgFieldTable *cfg_gpu_field_tables(guint *n_tables);
