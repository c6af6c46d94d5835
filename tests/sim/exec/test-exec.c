/* The SASS reader and executor: the H100's own results for the corpus, the textbook kernels
 * against C references, and every way bad input is refused. */
#include "exec.h"
#include "helpers.h"

#include <math.h>
#include <string.h>

/* ---- helpers ---- */

static SassFile *
load_sass(const char *relative)
{
  g_autofree char *path = test_source_path(relative);
  GError *error = NULL;
  SassFile *f = sass_file_load(path, &error);
  ck_assert_msg(f != NULL, "%s", error ? error->message : "");
  return f;
}

static guint8 *
slurp(const char *relative, gsize *size)
{
  g_autofree char *path = test_source_path(relative);
  gchar *data = NULL;
  ck_assert(g_file_get_contents(path, &data, size, NULL));
  return (guint8 *)data;
}

typedef struct {
  guint8 bytes[256];
  gsize size;
} Params;

static void
param(Params *p, const void *v, gsize size)
{
  p->size = (p->size + size - 1) & ~(size - 1); /* natural alignment */
  memcpy(p->bytes + p->size, v, size);
  p->size += size;
}

static void
param_u64(Params *p, guint64 v)
{
  param(p, &v, 8);
}

static void
param_i32(Params *p, gint32 v)
{
  param(p, &v, 4);
}

static void
param_f32(Params *p, float v)
{
  param(p, &v, 4);
}

/* The kernel @name of @f over @mem with parameters @p. */
static ExecKernel *
kernel(const SassFile *f, const char *name, ExecMemory *mem, ExecLaunch *launch, const Params *p)
{
  GError *error = NULL;
  const SassFunction *fn = sass_file_function(f, name, &error);
  ck_assert_msg(fn != NULL, "%s", error ? error->message : "");
  launch->params = p->bytes;
  launch->params_size = p->size;
  ExecKernel *k = exec_kernel_new(fn, f->path, mem, launch, &error);
  ck_assert_msg(k != NULL, "%s", error ? error->message : "");
  return k;
}

/* Runs @name over @mem; the run must succeed. */
static guint64
run(const SassFile *f, const char *name, ExecMemory *mem, ExecLaunch *launch, const Params *p)
{
  g_autoptr(ExecKernel) k = kernel(f, name, mem, launch, p);
  GError *error = NULL;
  guint64 steps = 0;
  gboolean ok = exec_grid_run(k, &steps, &error);
  ck_assert_msg(ok, "%s: %s", name, error ? error->message : "");
  return steps;
}

/* Runs @name expecting it to fail; returns the message. */
static char *
run_fails(const SassFile *f, const char *name, ExecMemory *mem, ExecLaunch *launch, const Params *p)
{
  g_autoptr(ExecKernel) k = kernel(f, name, mem, launch, p);
  GError *error = NULL;
  ck_assert(!exec_grid_run(k, NULL, &error));
  ck_assert(error != NULL);
  char *msg = g_strdup(error->message);
  g_error_free(error);
  return msg;
}

static float *
floats(ExecMemory *mem, guint index)
{
  return (float *)exec_memory_data(mem, index, NULL, NULL);
}

/* a varied but reproducible value */
static float
value(guint i)
{
  return (float)((i * 2654435761u) % 2001u) / 100.0f - 10.0f;
}

/* ---- the corpus: the H100's results ---- */

static const char *const corpus[] = {
    "int_arith",     "int_div",     "bits",    "float_arith", "float_div_sqrt",
    "float_special", "conversions", "doubles", "int64",       "warp_ops",
    "atomics",       "data_loops",  "scan",    "local_array", "halves",
};

/* Outputs a multi-function unit computes approximately (MUFU): the H100's own approximation
 * cannot be reproduced bit for bit.  They must be within 2 ulp of the H100's, or, where the
 * CUDA guide bounds the intrinsic's error absolutely (__sinf, __cosf, __logf near their zeros),
 * within that bound (2^-21.41 = 3.59e-7 for __sinf and __logf, 2^-21.19 = 4.18e-7 for __cosf). */
typedef struct {
  const char *kernel;
  guint output;
  double abs_bound; /* 0: 2 ulp only */
} Approx;

static const Approx approximate[] = {
    {"float_div_sqrt", 2, 0},      /* rsqrtf: MUFU.RSQ */
    {"float_div_sqrt", 3, 0},      /* __fdividef: MUFU.RCP */
    {"float_special", 0, 3.59e-7}, /* __sinf: MUFU.SIN */
    {"float_special", 1, 4.18e-7}, /* __cosf: MUFU.COS */
    {"float_special", 2, 0},       /* __expf: MUFU.EX2 */
    {"float_special", 3, 3.59e-7}, /* __logf: MUFU.LG2 */
    {"float_special", 5, 0},       /* expf ends in MUFU.EX2 */
    {"float_special", 7, 0},       /* exp2f + log2f: MUFU.EX2, MUFU.LG2 */
};

START_TEST(test_corpus_matches_h100)
{
  const char *name = corpus[_i];
  g_autoptr(SassFile) f = load_sass("tests/data/sass-corpus/h100-corpus.sass.txt");
  gsize n_in;
  g_autofree guint8 *inputs = slurp("tests/data/sass-corpus/inputs.bin", &n_in);
  ck_assert_uint_eq(n_in, 4 * 4096);
  g_autofree char *ref_name = g_strdup_printf("tests/data/sass-corpus/%s.bin", name);
  gsize n_ref;
  g_autofree guint32 *ref = (guint32 *)slurp(ref_name, &n_ref);
  ck_assert_uint_eq(n_ref, 1024 * 8 * 4);
  g_autoptr(ExecMemory) mem = exec_memory_new();
  Params p = {0};
  for (guint i = 0; i < 4; i++) {
    param_u64(&p, exec_memory_add(mem, "in", 4096));
    memcpy(exec_memory_data(mem, i, NULL, NULL), inputs + 4096 * i, 4096);
  }
  param_u64(&p, exec_memory_add(mem, "out", 1024 * 8 * 4));
  /* shared and local sizes from res-usage.txt (at most 3072 and 128 bytes) */
  ExecLaunch launch = {
      .grid = {4, 1, 1}, .block = {256, 1, 1}, .shared_bytes = 3072, .local_bytes = 128};
  run(f, name, mem, &launch, &p);
  const guint32 *out = (const guint32 *)exec_memory_data(mem, 4, NULL, NULL);
  for (guint j = 0; j < 8; j++) {
    const Approx *a = NULL;
    for (guint k = 0; k < G_N_ELEMENTS(approximate); k++)
      if (strcmp(approximate[k].kernel, name) == 0 && approximate[k].output == j)
        a = &approximate[k];
    for (guint t = 0; t < 1024; t++) {
      guint32 got = out[t * 8 + j], want = ref[t * 8 + j];
      if (!a) {
        ck_assert_msg(got == want, "%s output %u thread %u: 0x%08x, the H100 0x%08x", name, j, t,
                      got, want);
        continue;
      }
      gint64 ulps = (gint64)(gint32)got - (gint64)(gint32)want;
      float fg, fw;
      memcpy(&fg, &got, 4);
      memcpy(&fw, &want, 4);
      gboolean ok =
          (ulps >= -2 && ulps <= 2) || (a->abs_bound > 0 && fabs(fg - fw) <= a->abs_bound);
      ck_assert_msg(ok, "%s output %u thread %u: %.9g, the H100 %.9g", name, j, t, fg, fw);
    }
  }
}
END_TEST

/* ---- the textbook kernels against C references ---- */

static const char *textbook = "isa/kernels/textbook/textbook.sass";

START_TEST(test_saxpy)
{
  g_autoptr(SassFile) f = load_sass(textbook);
  g_autoptr(ExecMemory) mem = exec_memory_new();
  const gint32 n = 3000; /* not a multiple of the grid: the loop's tail */
  Params p = {0};
  param_i32(&p, n);
  param_f32(&p, 1.5f);
  param_u64(&p, exec_memory_add(mem, "x", n * 4));
  param_u64(&p, exec_memory_add(mem, "y", n * 4));
  for (gint32 i = 0; i < n; i++) {
    floats(mem, 0)[i] = value(i);
    floats(mem, 1)[i] = value(i + 7777);
  }
  ExecLaunch launch = {.grid = {4, 1, 1}, .block = {256, 1, 1}};
  run(f, "saxpy", mem, &launch, &p);
  for (gint32 i = 0; i < n; i++) {
    float want = fmaf(1.5f, value(i), value(i + 7777)); /* FFMA: one rounding */
    ck_assert_msg(floats(mem, 1)[i] == want, "y[%d] = %g, want %g", i, floats(mem, 1)[i], want);
  }
}
END_TEST

START_TEST(test_reduce)
{
  g_autoptr(SassFile) f = load_sass(textbook);
  g_autoptr(ExecMemory) mem = exec_memory_new();
  const gint32 n = 5000;
  Params p = {0};
  param_u64(&p, exec_memory_add(mem, "in", n * 4));
  param_u64(&p, exec_memory_add(mem, "out", 4));
  param_i32(&p, n);
  double sum = 0;
  for (gint32 i = 0; i < n; i++) {
    floats(mem, 0)[i] = value(i);
    sum += value(i);
  }
  ExecLaunch launch = {.grid = {3, 1, 1}, .block = {256, 1, 1}, .shared_bytes = 256 * 4};
  run(f, "reduce", mem, &launch, &p);
  /* the sum in a different order: within float rounding of n terms */
  ck_assert_msg(fabs(floats(mem, 1)[0] - sum) < 1e-5 * 10 * n, "sum %g, want %g", floats(mem, 1)[0],
                sum);
  ck_assert(floats(mem, 1)[0] != 0);
}
END_TEST

static void
transpose(const char *name, guint32 shared)
{
  g_autoptr(SassFile) f = load_sass(textbook);
  g_autoptr(ExecMemory) mem = exec_memory_new();
  const gint32 n = 96;
  Params p = {0};
  param_u64(&p, exec_memory_add(mem, "in", n * n * 4));
  param_u64(&p, exec_memory_add(mem, "out", n * n * 4));
  param_i32(&p, n);
  for (gint32 i = 0; i < n * n; i++)
    floats(mem, 0)[i] = value(i);
  ExecLaunch launch = {.grid = {n / 32, n / 32, 1}, .block = {32, 8, 1}, .shared_bytes = shared};
  run(f, name, mem, &launch, &p);
  for (gint32 y = 0; y < n; y++)
    for (gint32 x = 0; x < n; x++)
      ck_assert_msg(floats(mem, 1)[x * n + y] == floats(mem, 0)[y * n + x], "%s: out[%d][%d]", name,
                    x, y);
}

START_TEST(test_transpose_naive)
{
  transpose("transpose_naive", 0);
}
END_TEST

START_TEST(test_transpose_tiled)
{
  transpose("transpose_tiled", 4224);
}
END_TEST

START_TEST(test_sgemm)
{
  g_autoptr(SassFile) f = load_sass(textbook);
  g_autoptr(ExecMemory) mem = exec_memory_new();
  const gint32 n = 48;
  Params p = {0};
  for (guint i = 0; i < 3; i++)
    param_u64(&p, exec_memory_add(mem, i == 0 ? "A" : i == 1 ? "B" : "C", n * n * 4));
  param_i32(&p, n);
  for (gint32 i = 0; i < n * n; i++) {
    floats(mem, 0)[i] = value(i);
    floats(mem, 1)[i] = value(i + 999);
  }
  ExecLaunch launch = {.grid = {n / 16, n / 16, 1}, .block = {16, 16, 1}, .shared_bytes = 2048};
  run(f, "sgemm_tiled", mem, &launch, &p);
  for (gint32 r = 0; r < n; r++)
    for (gint32 c = 0; c < n; c++) {
      float acc = 0; /* the kernel's order: k ascending, FFMA */
      for (gint32 k = 0; k < n; k++)
        acc = fmaf(floats(mem, 0)[r * n + k], floats(mem, 1)[k * n + c], acc);
      ck_assert_msg(fabsf(floats(mem, 2)[r * n + c] - acc) <= 1e-4f * fabsf(acc) + 1e-4f,
                    "C[%d][%d] = %g, want %g", r, c, floats(mem, 2)[r * n + c], acc);
    }
}
END_TEST

START_TEST(test_stencil1d)
{
  g_autoptr(SassFile) f = load_sass(textbook);
  g_autoptr(ExecMemory) mem = exec_memory_new();
  const gint32 n = 2048, R = 8, threads = 128;
  Params p = {0};
  guint64 in = exec_memory_add(mem, "in", (n + 2 * R) * 4);
  guint64 out = exec_memory_add(mem, "out", (n + 2 * R) * 4);
  param_u64(&p, in + R * 4); /* passed 8 floats in, as the host code does */
  param_u64(&p, out + R * 4);
  param_i32(&p, n);
  for (gint32 i = 0; i < n + 2 * R; i++)
    floats(mem, 0)[i] = value(i);
  ExecLaunch launch = {
      .grid = {4, 1, 1}, .block = {threads, 1, 1}, .shared_bytes = (threads + 2 * R) * 4};
  run(f, "stencil1d", mem, &launch, &p);
  for (gint32 g = 0; g < n; g++) {
    float v = 0;
    for (gint32 o = -R; o <= R; o++)
      v += floats(mem, 0)[g + R + o];
    ck_assert_msg(floats(mem, 1)[g + R] == v, "out[%d] = %g, want %g", g, floats(mem, 1)[g + R], v);
  }
  ck_assert(floats(mem, 1)[0] == 0 && floats(mem, 1)[n + 2 * R - 1] == 0); /* padding untouched */
}
END_TEST

/* ---- every runnable file of the measurements reads ---- */

/* the SASS of every H100 measurement and of the corpus and textbook kernels, and how many
 * functions each holds */
static const struct {
  const char *path;
  guint functions;
} runnable[] = {
    {"tests/data/sass-corpus/h100-corpus.sass.txt", 15},
    {"isa/kernels/textbook/textbook.sass", 6},
    {"isa/kernels/h100/divergence.sass.gz", 1},
    {"isa/kernels/h100/prefetch.sass.gz", 46},
    {"tests/data/sass/h100-control-flow.sass.txt.gz", 15},
    {"tests/data/sass/h100-extra.sass.txt.gz", 6},
    {"tests/data/sass/h100-footprint.sass.txt.gz", 2},
    {"tests/data/sass/h100-latency.sass.txt.gz", 2},
    {"tests/data/sass/h100-mix2.sass.txt.gz", 39},
    {"tests/data/sass/h100-mix3.sass.txt.gz", 28},
    {"tests/data/sass/h100-mlp.sass.txt.gz", 49},
    {"tests/data/sass/h100-mlp-addressed.sass.txt.gz", 36},
    {"tests/data/sass/h100-control-flow-addressed.sass.txt.gz", 10},
};

/* Every function reads, and the executor computes every instruction of it. */
START_TEST(test_files_read_and_every_instruction_runs)
{
  g_autoptr(SassFile) f = load_sass(runnable[_i].path);
  ck_assert_uint_eq(f->n_functions, runnable[_i].functions);
  for (guint i = 0; i < f->n_functions; i++) {
    ck_assert_uint_gt(f->functions[i].n_insns, 0);
    for (guint k = 0; k < f->functions[i].n_insns; k++) {
      const SassInsn *in = &f->functions[i].insns[k];
      char op[96];
      sass_insn_opcode(in, op, sizeof op);
      ck_assert_msg(exec_insn_supported(in), "%s:%u: %s", runnable[_i].path, in->line, op);
    }
  }
}
END_TEST

/* ---- bad input ---- */

static char *
parse_error(const char *text)
{
  GError *error = NULL;
  SassFile *f = sass_file_parse(text, strlen(text), "k.sass", &error);
  ck_assert(f == NULL);
  ck_assert(error != NULL);
  char *msg = g_strdup(error->message);
  g_error_free(error);
  return msg;
}

#define HEAD "\t\tFunction : _Z1kPj\n"

START_TEST(test_unknown_opcode_is_refused)
{
  g_autofree char *msg = parse_error(HEAD "        /*0000*/   FOO R1, R2 ;\n");
  ck_assert_str_eq(msg, "k.sass:2: unsupported SASS instruction 'FOO'");
}
END_TEST

START_TEST(test_unknown_modifier_is_refused)
{
  g_autofree char *msg = parse_error(HEAD "        /*0000*/   IADD3.ZZ R1, R2, R3, RZ ;\n");
  ck_assert_str_eq(msg, "k.sass:2: unsupported SASS instruction 'IADD3.ZZ' (modifier .ZZ)");
}
END_TEST

START_TEST(test_branch_outside_function_is_refused)
{
  g_autofree char *msg = parse_error(HEAD "        /*0000*/   BRA 0x100 ;\n"
                                          "        /*0010*/   EXIT ;\n");
  ck_assert_str_eq(msg, "k.sass:2: branch target 0x100 outside function _Z1kPj");
}
END_TEST

START_TEST(test_bad_operand_is_refused)
{
  g_autofree char *msg = parse_error(HEAD "        /*0000*/   MOV R1, Q7 ;\n");
  ck_assert_str_eq(msg, "k.sass:2: cannot read operand 'Q7'");
}
END_TEST

START_TEST(test_text_without_function_is_refused)
{
  g_autofree char *msg = parse_error("hello\n");
  ck_assert_str_eq(msg, "k.sass: no function (expected cuobjdump -sass text)");
}
END_TEST

static SassFile *
parse(const char *text)
{
  GError *error = NULL;
  SassFile *f = sass_file_parse(text, strlen(text), "k.sass", &error);
  ck_assert_msg(f != NULL, "%s", error ? error->message : "");
  return f;
}

/* out[tid] = ..., the kernel's only parameter at c[0x0][0x210] */
#define PROLOGUE                                                                                   \
  HEAD "        /*0000*/   S2R R0, SR_TID.X ;\n"                                                   \
       "        /*0010*/   LDC.64 R2, c[0x0][0x210] ;\n"                                           \
       "        /*0020*/   ULDC.64 UR4, c[0x0][0x208] ;\n"                                         \
       "        /*0030*/   IMAD.WIDE R2, R0, 0x4, R2 ;\n"

/* cuobjdump's encodings: the second word of each instruction carries its control bits, the
 * stall count in bits 41-44 (the 128-bit encoding's 105-108) and the yield hint in bit 45 (set:
 * no yield); text without them has none */
START_TEST(test_stall_counts_from_the_control_bits)
{
  g_autoptr(SassFile) f =
      parse(HEAD "        /*0000*/   UIADD3 UR4, UR4, 0x1, URZ ;    /* 0x0000000104047890 */\n"
                 "                                                  /* 0x000fe2000fffe03f */\n"
                 "        /*0010*/   ISETP.LE.AND P0, PT, R2, UR4, PT ; /* 0x0000000402007c0c */\n"
                 "                                                  /* 0x000fda000bf03270 */\n"
                 "        /*0020*/   @!P0 BRA 0x0 ;                 /* 0xfffffffc00f08947 */\n"
                 "                                                  /* 0x000fea000383ffff */\n"
                 "        /*0030*/   EXIT ;\n");
  const SassFunction *fn = &f->functions[0];
  ck_assert_uint_eq(fn->n_insns, 4);
  ck_assert_uint_eq(fn->insns[0].stall, 1);
  ck_assert_uint_eq(fn->insns[1].stall, 13);
  ck_assert_uint_eq(fn->insns[2].stall, 5);
  ck_assert_uint_eq(fn->insns[3].stall, 0); /* no encoding */
  ck_assert_uint_eq(fn->insns[0].no_yield, 1);
  ck_assert_uint_eq(fn->insns[1].no_yield, 0);
  ck_assert_uint_eq(fn->insns[2].no_yield, 1);
  ck_assert_uint_eq(fn->insns[3].no_yield, 0);
}
END_TEST

START_TEST(test_address_outside_buffers_is_reported)
{
  g_autoptr(SassFile) f = parse(PROLOGUE "        /*0040*/   STG.E desc[UR4][R2.64+0x100], R0 ;\n"
                                         "        /*0050*/   EXIT ;\n");
  g_autoptr(ExecMemory) mem = exec_memory_new();
  Params p = {0};
  guint64 base = exec_memory_add(mem, "out", 64 * 4);
  param_u64(&p, base);
  ExecLaunch launch = {.grid = {1, 1, 1}, .block = {64, 1, 1}};
  g_autofree char *msg = run_fails(f, NULL, mem, &launch, &p);
  /* lane 0 writes at out + 0x100 = out[64]: one past the end */
  g_autofree char *want = g_strdup_printf("k.sass:6: global address 0x%" G_GINT64_MODIFIER
                                          "x (4 bytes) by lane 0 is outside every "
                                          "buffer (STG.E at 0x0040, block 0, warp 0)",
                                          base + 0x100);
  ck_assert_str_eq(msg, want);
}
END_TEST

/* Lanes that store to one word leave the value of the last of them, whether every lane or a
 * few store; a shared word written by every lane reads back as the last lane's. */
START_TEST(test_lanes_storing_one_word_leave_the_last_lanes_value)
{
  g_autoptr(SassFile) f =
      parse(PROLOGUE "        /*0040*/   LDC.64 R4, c[0x0][0x210] ;\n"
                     "        /*0050*/   STG.E desc[UR4][R4.64], R0 ;\n"
                     "        /*0060*/   ISETP.GE.U32.AND P0, PT, R0, 0x11, PT ;\n"
                     "        /*0070*/   @!P0 STG.E desc[UR4][R4.64+0x4], R0 ;\n"
                     "        /*0080*/   MOV R6, 0x404 ;\n"
                     "        /*0090*/   STS [R6], R0 ;\n"
                     "        /*00a0*/   LDS R7, [R6+-0x4] ;\n"
                     "        /*00b0*/   STS [R6+-0x4], R0 ;\n"
                     "        /*00c0*/   LDS R7, [R6+-0x4] ;\n"
                     "        /*00d0*/   STG.E desc[UR4][R2.64+0x8], R7 ;\n"
                     "        /*00e0*/   EXIT ;\n");
  g_autoptr(ExecMemory) mem = exec_memory_new();
  Params p = {0};
  param_u64(&p, exec_memory_add(mem, "out", 34 * 4));
  ExecLaunch launch = {.grid = {1, 1, 1}, .block = {32, 1, 1}, .shared_bytes = 8};
  run(f, NULL, mem, &launch, &p);
  const guint32 *out = (const guint32 *)exec_memory_data(mem, 0, NULL, NULL);
  ck_assert_uint_eq(out[0], 31); /* every lane */
  ck_assert_uint_eq(out[1], 16); /* lanes 0-16 */
  for (guint i = 2; i < 34; i++)
    ck_assert_uint_eq(out[i], 31);
}
END_TEST

/* @P0 EXIT P1: a lane leaves where both its guard and the operand predicate hold (the compiler's
 * `if (a && b) return;`, bench/h100/front.cu): lanes 0-15 have P0, odd lanes P1, so the odd
 * lanes of 0-15 leave and the others store their index. */
START_TEST(test_exit_with_a_predicate_operand)
{
  g_autoptr(SassFile) f =
      parse(PROLOGUE "        /*0040*/   ISETP.GE.U32.AND P0, PT, R0, 0x10, PT ;\n"
                     "        /*0050*/   LOP3.LUT R5, R0, 0x1, RZ, 0xc0, !PT ;\n"
                     "        /*0060*/   ISETP.NE.U32.AND P1, PT, R5, RZ, PT ;\n"
                     "        /*0070*/   @!P0 EXIT P1 ;\n"
                     "        /*0080*/   STG.E desc[UR4][R2.64], R0 ;\n"
                     "        /*0090*/   EXIT ;\n");
  g_autoptr(ExecMemory) mem = exec_memory_new();
  Params p = {0};
  param_u64(&p, exec_memory_add(mem, "out", 32 * 4));
  ExecLaunch launch = {.grid = {1, 1, 1}, .block = {32, 1, 1}, .shared_bytes = 0};
  guint32 *init = (guint32 *)exec_memory_data(mem, 0, NULL, NULL);
  for (guint i = 0; i < 32; i++)
    init[i] = 0xdead;
  run(f, NULL, mem, &launch, &p);
  const guint32 *out = (const guint32 *)exec_memory_data(mem, 0, NULL, NULL);
  for (guint i = 0; i < 32; i++)
    ck_assert_uint_eq(out[i], i < 16 && i % 2 ? 0xdead : i);
}
END_TEST

/* What a guard on global memory saw (exec_memory_set_guard()), and what it refuses. */
typedef struct {
  guint reads, writes, read_bytes, write_bytes;
  guint32 lanes, smid;
  guint64 first;
  gboolean refuse_reads, refuse_writes;
} Guarded;

static gboolean
guard_fn(gpointer data, guint32 smid, const guint64 addr[32], guint32 lanes, guint bytes,
         gboolean write)
{
  Guarded *g = data;
  if (write) {
    g->writes++;
    g->write_bytes += bytes;
  } else {
    g->reads++;
    g->read_bytes += bytes;
  }
  g->lanes = lanes;
  g->smid = smid;
  g->first = addr[__builtin_ctz(lanes)];
  return write ? !g->refuse_writes : !g->refuse_reads;
}

/* Global loads (a word, then a byte: the lane-by-lane path) and a store ask the guard before
 * they touch memory, and what it refuses touches nothing: a refused load leaves its register,
 * a refused store the buffer. */
START_TEST(test_guard_asked_before_global_memory_is_touched)
{
  g_autoptr(SassFile) f = parse(PROLOGUE "        /*0040*/   LDG.E R5, desc[UR4][R2.64] ;\n"
                                         "        /*0050*/   LDG.E.U8 R6, desc[UR4][R2.64] ;\n"
                                         "        /*0060*/   IADD3 R5, R5, R6, RZ ;\n"
                                         "        /*0070*/   STG.E desc[UR4][R2.64], R5 ;\n"
                                         "        /*0080*/   EXIT ;\n");
  for (guint refuse = 0; refuse < 3; refuse++) {
    g_autoptr(ExecMemory) mem = exec_memory_new();
    Params p = {0};
    guint64 base = exec_memory_add(mem, "out", 32 * 4);
    param_u64(&p, base);
    guint32 *out = (guint32 *)exec_memory_data(mem, 0, NULL, NULL);
    for (guint i = 0; i < 32; i++)
      out[i] = 0x100 + i;
    Guarded g = {.refuse_reads = refuse == 1, .refuse_writes = refuse == 2};
    exec_memory_set_guard(mem, guard_fn, &g);
    ExecLaunch launch = {.grid = {1, 1, 1}, .block = {32, 1, 1}};
    run(f, NULL, mem, &launch, &p);
    ck_assert_uint_eq(g.reads, 2);
    ck_assert_uint_eq(g.read_bytes, 4 + 1);
    ck_assert_uint_eq(g.writes, 1);
    ck_assert_uint_eq(g.write_bytes, 4);
    ck_assert_uint_eq(g.lanes, 0xffffffffu);
    ck_assert_uint_eq(g.first, base);
    for (guint i = 0; i < 32; i++) {
      /* loaded: 0x100 + i, and its low byte i; refused loads leave the registers at 0 */
      guint32 want = refuse == 0 ? 0x100 + 2 * i : refuse == 1 ? 0 : 0x100 + i;
      ck_assert_msg(out[i] == want, "refusing %u: out[%u] = %#x, want %#x", refuse, i, out[i],
                    want);
    }
  }
}
END_TEST

/* ISETP's forms (signed and unsigned, AND, OR and XOR with a predicate, both results, a
 * guard, a negated operand), each lane's predicates stored as 0 or 1 */
START_TEST(test_isetp_forms)
{
  g_autoptr(SassFile) f =
      parse(PROLOGUE "        /*0040*/   IADD3 R1, R0, -0x10, RZ ;\n"
                     "        /*0050*/   ISETP.GE.AND P0, P1, R1, RZ, PT ;\n"
                     "        /*0060*/   ISETP.GE.U32.AND P2, PT, R1, 0x5, PT ;\n"
                     "        /*0070*/   ISETP.NE.OR P3, PT, R0, 0x3, P0 ;\n"
                     "        /*0080*/   ISETP.EQ.XOR P4, P5, R0, 0x7, P2 ;\n"
                     "        /*0090*/   @P0 ISETP.LT.AND P6, PT, R0, 0x18, PT ;\n"
                     "        /*00a0*/   ISETP.GT.OR P6, PT, -R1, 0x4, P6 ;\n"
                     "        /*00b0*/   SEL R4, 0x1, RZ, P0 ;\n"
                     "        /*00c0*/   STG.E desc[UR4][R2.64], R4 ;\n"
                     "        /*00d0*/   SEL R4, 0x1, RZ, P1 ;\n"
                     "        /*00e0*/   STG.E desc[UR4][R2.64+0x80], R4 ;\n"
                     "        /*00f0*/   SEL R4, 0x1, RZ, P2 ;\n"
                     "        /*0100*/   STG.E desc[UR4][R2.64+0x100], R4 ;\n"
                     "        /*0110*/   SEL R4, 0x1, RZ, P3 ;\n"
                     "        /*0120*/   STG.E desc[UR4][R2.64+0x180], R4 ;\n"
                     "        /*0130*/   SEL R4, 0x1, RZ, P4 ;\n"
                     "        /*0140*/   STG.E desc[UR4][R2.64+0x200], R4 ;\n"
                     "        /*0150*/   SEL R4, 0x1, RZ, P5 ;\n"
                     "        /*0160*/   STG.E desc[UR4][R2.64+0x280], R4 ;\n"
                     "        /*0170*/   SEL R4, 0x1, RZ, P6 ;\n"
                     "        /*0180*/   STG.E desc[UR4][R2.64+0x300], R4 ;\n"
                     "        /*0190*/   EXIT ;\n");
  g_autoptr(ExecMemory) mem = exec_memory_new();
  Params p = {0};
  param_u64(&p, exec_memory_add(mem, "out", 7 * 32 * 4));
  ExecLaunch launch = {.grid = {1, 1, 1}, .block = {32, 1, 1}};
  run(f, NULL, mem, &launch, &p);
  const guint32 *out = (const guint32 *)exec_memory_data(mem, 0, NULL, NULL);
  for (guint t = 0; t < 32; t++) {
    gint32 r1 = (gint32)t - 16;
    gboolean p0 = r1 >= 0, p2 = (guint32)r1 >= 5;
    gboolean want[7] = {
        p0, !p0, p2, t != 3 || p0, (t == 7) != p2, (t != 7) != p2, -r1 > 4 || (p0 && t < 24)};
    for (guint k = 0; k < 7; k++)
      ck_assert_msg(out[k * 32 + t] == (guint32)want[k], "lane %u: P%u = %u, want %d", t, k,
                    out[k * 32 + t], want[k]);
  }
}
END_TEST

START_TEST(test_unimplemented_at_run_time_is_reported)
{
  /* BMOV parses (the tables know it) but the executor does not compute it */
  g_autoptr(SassFile) f = parse(PROLOGUE "        /*0040*/   BMOV.32 R5, B1 ;\n"
                                         "        /*0050*/   EXIT ;\n");
  g_autoptr(ExecMemory) mem = exec_memory_new();
  Params p = {0};
  param_u64(&p, exec_memory_add(mem, "out", 32 * 4));
  ExecLaunch launch = {.grid = {1, 1, 1}, .block = {32, 1, 1}};
  g_autofree char *msg = run_fails(f, NULL, mem, &launch, &p);
  ck_assert_str_eq(msg, "k.sass:6: unsupported SASS instruction 'BMOV.32'");
}
END_TEST

/* An if/else inside BSSY/BSYNC: each path runs for its lanes only, one after the other, and
 * the warp runs whole again after BSYNC. */
START_TEST(test_divergent_paths_reconverge)
{
  g_autoptr(SassFile) f =
      parse(PROLOGUE "        /*0040*/   ISETP.GE.U32.AND P0, PT, R0, 0xa, PT ;\n"
                     "        /*0050*/   BSSY B0, 0xa0 ;\n"
                     "        /*0060*/   @P0 BRA 0x90 ;\n"
                     "        /*0070*/   IADD3 R5, R0, 0x64, RZ ;\n"
                     "        /*0080*/   BRA 0xa0 ;\n"
                     "        /*0090*/   IMAD.SHL.U32 R5, R0, 0x2, RZ ;\n"
                     "        /*00a0*/   BSYNC B0 ;\n"
                     "        /*00b0*/   STG.E desc[UR4][R2.64], R5 ;\n"
                     "        /*00c0*/   EXIT ;\n");
  g_autoptr(ExecMemory) mem = exec_memory_new();
  Params p = {0};
  param_u64(&p, exec_memory_add(mem, "out", 32 * 4));
  ExecLaunch launch = {.grid = {1, 1, 1}, .block = {32, 1, 1}};
  GError *error = NULL;
  launch.params = p.bytes;
  launch.params_size = p.size;
  g_autoptr(ExecKernel) k = exec_kernel_new(&f->functions[0], "k.sass", mem, &launch, &error);
  g_autoptr(ExecBlock) b = exec_block_new(k, 0);
  ExecStep step;
  guint32 seen[16] = {0};
  guint n = 0;
  while (exec_warp_step(&b->warps[0], &step, &error) == EXEC_STEP_OK)
    seen[n++ < 16 ? n - 1 : 15] = step.active;
  /* S2R LDC ULDC IMAD ISETP BSSY BRA | IADD3 BRA (lanes 0-9) | IMAD.SHL (10-31) | BSYNC STG EXIT */
  ck_assert_uint_eq(n, 13);
  ck_assert_uint_eq(seen[6], 0xffffffffu);
  ck_assert_uint_eq(seen[7], 0x3ffu);
  ck_assert_uint_eq(seen[8], 0x3ffu);
  ck_assert_uint_eq(seen[9], ~0x3ffu);
  ck_assert_uint_eq(seen[10], 0xffffffffu);
  const guint32 *out = (const guint32 *)exec_memory_data(mem, 0, NULL, NULL);
  for (guint32 t = 0; t < 32; t++)
    ck_assert_uint_eq(out[t], t >= 10 ? 2 * t : t + 100);
}
END_TEST

static Suite *
exec_suite(void)
{
  Suite *s = suite_create("exec");
  TCase *tc = tcase_create("corpus");
  tcase_set_timeout(tc, 600);
  tcase_add_loop_test(tc, test_corpus_matches_h100, 0, G_N_ELEMENTS(corpus));
  suite_add_tcase(s, tc);
  tc = tcase_create("textbook");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, test_saxpy);
  tcase_add_test(tc, test_reduce);
  tcase_add_test(tc, test_transpose_naive);
  tcase_add_test(tc, test_transpose_tiled);
  tcase_add_test(tc, test_sgemm);
  tcase_add_test(tc, test_stencil1d);
  tcase_add_loop_test(tc, test_files_read_and_every_instruction_runs, 0, G_N_ELEMENTS(runnable));
  suite_add_tcase(s, tc);
  tc = tcase_create("errors");
  tcase_add_test(tc, test_unknown_opcode_is_refused);
  tcase_add_test(tc, test_unknown_modifier_is_refused);
  tcase_add_test(tc, test_branch_outside_function_is_refused);
  tcase_add_test(tc, test_bad_operand_is_refused);
  tcase_add_test(tc, test_text_without_function_is_refused);
  tcase_add_test(tc, test_stall_counts_from_the_control_bits);
  tcase_add_test(tc, test_address_outside_buffers_is_reported);
  tcase_add_test(tc, test_unimplemented_at_run_time_is_reported);
  tcase_add_test(tc, test_lanes_storing_one_word_leave_the_last_lanes_value);
  tcase_add_test(tc, test_exit_with_a_predicate_operand);
  tcase_add_test(tc, test_divergent_paths_reconverge);
  tcase_add_test(tc, test_guard_asked_before_global_memory_is_touched);
  tcase_add_test(tc, test_isetp_forms);
  suite_add_tcase(s, tc);
  return s;
}

int
main(void)
{
  return test_run_suite(exec_suite());
}
