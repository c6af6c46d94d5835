/* The keys a kernel file takes, with their types, ranges and meanings: what the loader
 * (kernel.c) checks a file against, and what `smsim list keys`, the man page and the docs'
 * tests read.  Not the loading itself. */
#include <string.h>

#include "kernel.h"

/* Launch keys; their values may be numbers or expressions over params. */
static const CfgField kernel_fields[] = {
    {.key = "name", .type = CFG_FIELD_STRING, .doc = "display name"},
    {.key = "description", .type = CFG_FIELD_STRING, .doc = "one paragraph for users"},
    {.key = "params",
     .type = CFG_FIELD_SECTION,
     .doc = "parameter name -> default value; used as $name; settable with --set name=value"},
    {.key = "ranges",
     .type = CFG_FIELD_SECTION,
     .doc = "parameter name -> {min, max, step} or a list of the values it takes: what the lab "
            "page of smsim serve offers (a hint: values outside are not refused)"},
    {.key = "warps_per_sm",
     .type = CFG_FIELD_UINT,
     .min = 1,
     .max = 1u << 20, /* the GPU's limits (at most 1 024) say more: check_launch() */
     .unit = "warps",
     .doc = "resident warps (alternative to threads_per_block x blocks_per_sm)"},
    {.key = "threads_per_block",
     .type = CFG_FIELD_UINT,
     .min = 1,
     .max = 1u << 16,
     .unit = "threads",
     .doc = "block size"},
    {.key = "blocks_per_sm",
     .type = CFG_FIELD_UINT,
     .min = 1,
     .max = 1u << 20, /* the GPU's limits (at most 1 024) say more: check_launch() */
     .unit = "blocks",
     .doc = "resident blocks"},
    {.key = "registers_per_thread",
     .type = CFG_FIELD_UINT,
     .min = 1,
     .max = 1024,
     .unit = "registers",
     .doc = "registers each thread holds (checked against the register file)"},
    {.key = "shared_memory_per_block",
     .type = CFG_FIELD_UINT,
     .min = 0,
     .max = 1u << 30,
     .unit = "bytes",
     .doc = "shared memory each block holds"},
    {.key = "instructions_per_warp",
     .type = CFG_FIELD_UINT64,
     .min = 1,
     .max = 1e15,
     .unit = "instructions",
     .doc = "if set, each warp loops over the stream until it has issued this many"},
    {.key = "warm_up",
     .type = CFG_FIELD_UINT,
     .min = 0,
     .max = 1,
     .doc = "1: before the run, every warp of the first wave walks its window (window=) up to "
            "where it starts, through the caches, with no time passing: the measurement's "
            "warm-up pass"},
    {.key = "written_before_launch",
     .type = CFG_FIELD_UINT64,
     .min = 0,
     .max = 1e15,
     .unit = "bytes",
     .doc = "bytes of another buffer the GPU stored just before the launch (a measurement's "
            "flush of the L2 by writes): the L2 starts as those stores leave it, holding the "
            "last of them dirty, and the launch's misses write them back; no effect without an "
            "L2 cache"},
    {.key = "blocks",
     .type = CFG_FIELD_UINT,
     .min = 1,
     .max = 1e8,
     .unit = "blocks",
     .doc = "blocks in the grid; the SM holds what fits and launches the rest as blocks retire"},
    {.key = "warp_passes",
     .type = CFG_FIELD_SECTION,
     .doc = "list: times warp i of a block runs the stream (cycled over the warps)"},
    {.key = "block_passes",
     .type = CFG_FIELD_SECTION,
     .doc = "list: times the warps of block j run the stream (cycled over the grid)"},
    {.key = "stream",
     .type = CFG_FIELD_STRING,
     .doc = "the instruction stream (see docs/config.md)"},
    {.key = "require",
     .type = CFG_FIELD_LIST,
     .doc = "conditions on the parameters, each {that: EXPRESSION, else: MESSAGE}: a run whose "
            "parameters break one is refused with its message"},
    {.key = "sass",
     .type = CFG_FIELD_STRING,
     .doc = "instead of a stream: a SASS file (cuobjdump -sass or nvdisasm text, .gz too), "
            "relative to the kernel file (docs/real-kernels.md)"},
    {.key = "function",
     .type = CFG_FIELD_STRING,
     .doc = "the SASS file's function to run, mangled or plain (optional with one function)"},
    {.key = "grid",
     .type = CFG_FIELD_LIST,
     .unit = "blocks",
     .doc = "SASS: blocks in x, y, z (a number or a list of 1 to 3)"},
    {.key = "block",
     .type = CFG_FIELD_LIST,
     .unit = "threads",
     .doc = "SASS: threads per block in x, y, z (a number or a list of 1 to 3)"},
    {.key = "dynamic_shared_bytes",
     .type = CFG_FIELD_UINT,
     .unit = "bytes",
     .doc = "SASS: dynamic shared memory per block (the launch's third argument)"},
    {.key = "static_shared_bytes",
     .type = CFG_FIELD_UINT,
     .unit = "bytes",
     .doc = "SASS: static shared memory per block (cuobjdump -res-usage: SHARED)"},
    {.key = "local_bytes_per_thread",
     .type = CFG_FIELD_UINT,
     .unit = "bytes",
     .doc = "SASS: local memory per thread (cuobjdump -res-usage: STACK + LOCAL)"},
    {.key = "arguments",
     .type = CFG_FIELD_LIST,
     .doc = "SASS: the kernel's arguments in order: {name, type: i32|u32|i64|u64|f32|f64, "
            "value} or {name, type: buffer, bytes, fill, element, value, seed, file, offset, "
            "level}"},
    {.key = "constants",
     .type = CFG_FIELD_SECTION,
     .doc = "SASS: the kernel's __constant__ data, the constant bank c[0x3] LDC reads: {bytes "
            "(at most 65536), fill, element, value, seed, file} as a buffer's"},
};

const CfgField *
cfg_kernel_fields(guint *n_fields)
{
  *n_fields = G_N_ELEMENTS(kernel_fields);
  return kernel_fields;
}

const CfgField *
cfg_kernel_field(const char *key)
{
  for (guint i = 0; i < G_N_ELEMENTS(kernel_fields); i++)
    if (strcmp(kernel_fields[i].key, key) == 0)
      return &kernel_fields[i];
  return NULL;
}
