// Which pipe an arithmetic instruction holds, and for how long: every warp of one block on one
// SM runs a loop over 8 chains of values (8 registers; chain k and k + 4 take each other's
// value, so a warp has 4 steps it can issue at once and no run of steps folds into fewer
// instructions), each iteration 4 steps of every chain, a step being one operation (ffma, imad,
// iadd3, lop3, ...) or a pair (an int compare feeding a select, a float compare feeding a
// select), or one of two operations on alternate chains (ffma and iadd3, ffma and imad, ...:
// does one pipe's work hide behind the other's?).  8 warps a scheduler keep any pipe busy: the
// cycles an iteration at 32 warps, over 8 warps a scheduler and the loop's instructions, are
// the cycles a scheduler takes per instruction (1: a pipe of 32 lanes, or two pipes in turn; 2:
// a pipe of 16 lanes).  Lane 0 of each warp reads clock64() around the loop.  The later steps
// pair an opcode whose pipe is not yet known (IMNMX, FMNMX, IABS, POPC, FLO, BREV, F2I,
// IMAD.WIDE, FMUL, HFMA2, SHFL, MUFU.EX2 / SIN / RCP, I2F.U32.RP) with a LOP3 or an FADD,
// whose pipes are; the last is an unsigned division by another chain's value (the compiler's
// sequence: I2F, MUFU.RCP, F2I, IMAD.HI and their fix-ups, every step).
//
//   pipes time   CSV: op, warps, iters, run, cycles_med, cycles_min, cycles_max (per warp, the
//                loop's), span (the first warp's start to the last warp's end: warps that
//                issue in turn make each warp's own loop shorter than the block's); two
//                launches after a warm-up
//   pipes ncu    each op once at 32 warps (for Nsight's instructions by pipe)
//
// The loop's SASS says which instructions each step became (pipes.sass.gz beside this file).
#include <algorithm>
#include <cuda_fp16.h>
#include <string>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                                    \
  do {                                                                                           \
    cudaError_t e_ = (x);                                                                        \
    if (e_ != cudaSuccess) {                                                                     \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));               \
      exit(1);                                                                                   \
    }                                                                                            \
  } while (0)

enum {
  OP_FFMA,
  OP_FADD,
  OP_IMAD,
  OP_IADD3,
  OP_LOP3,
  OP_SHF,
  OP_PRMT,
  OP_LEA,
  OP_I2FP,
  OP_ISETP_SEL,
  OP_FSETP_FSEL,
  OP_FFMA_IADD3,
  OP_FFMA_LOP3,
  OP_FFMA_IMAD,
  OP_IMAD_IADD3,
  // each with a LOP3 (int pipe, measured above) or an FADD beside it, so no step folds
  OP_IMNMX,
  OP_FMNMX,
  OP_IABS,
  OP_POPC,
  OP_FLO,
  OP_BREV,
  OP_F2I,
  OP_IMAD_WIDE,
  OP_FMUL,
  OP_HFMA2,
  // a warp shuffle, and MUFU's other functions, each beside a LOP3
  OP_SHFL,
  OP_EX2,
  OP_SIN,
  OP_RCP,
  // a conversion with a rounding mode, and an integer division by a value that changes
  OP_I2F_RU,
  OP_UDIV,
  OP_COUNT
};
static const char *const op_names[OP_COUNT] = {
    "ffma",      "fadd",       "imad",       "iadd3",      "lop3",      "shf",
    "prmt",      "lea",        "i2fp",       "isetp_sel",  "fsetp_fsel", "ffma_iadd3",
    "ffma_lop3", "ffma_imad",  "imad_iadd3", "imnmx",     "fmnmx",     "iabs",
    "popc",      "flo",        "brev",       "f2i",        "imad_wide", "fmul",
    "hfma2",     "shfl",       "ex2",        "sin",        "rcp",       "i2f_ru",
    "udiv"};

// one step of chain @x: @o is another chain's value (chains k and k + 4 feed each other, so no
// run of steps folds into fewer instructions), @c a parameter; the pairs of ops alternate
// between the chains (@k odd: the second op)
template <int OP>
__device__ __forceinline__ void
step(unsigned &x, unsigned o, unsigned c, int k)
{
  float f = __uint_as_float(x), fo = __uint_as_float(o), fc = __uint_as_float(c);
  switch (OP) {
  case OP_FFMA:
    x = __float_as_uint(fmaf(f, fo, fc));
    break;
  case OP_FADD:
    x = __float_as_uint(f + fo);
    break;
  case OP_IMAD:
    x = x * o + c;
    break;
  case OP_IADD3:
    x = x + o + c;
    break;
  case OP_LOP3:
    x = (x & o) ^ c;
    break;
  case OP_SHF:
    x = __funnelshift_l(x, o, c);
    break;
  case OP_PRMT:
    x = __byte_perm(x, o, c);
    break;
  case OP_LEA:
    x = (x << 3) + o;
    break;
  case OP_I2FP:
    x = __float_as_uint((float)(int)x); // an int's float, its bits the next int
    break;
  case OP_ISETP_SEL:
    x = (int)x < (int)o ? o : c;
    break;
  case OP_FSETP_FSEL:
    x = __float_as_uint(f < fo ? fo : fc);
    break;
  case OP_FFMA_IADD3:
    x = (k & 1) ? x + o + c : __float_as_uint(fmaf(f, fo, fc));
    break;
  case OP_FFMA_LOP3:
    x = (k & 1) ? (x & o) ^ c : __float_as_uint(fmaf(f, fo, fc));
    break;
  case OP_FFMA_IMAD:
    x = (k & 1) ? x * o + c : __float_as_uint(fmaf(f, fo, fc));
    break;
  case OP_IMAD_IADD3:
    x = (k & 1) ? x + o + c : x * o + c;
    break;
  case OP_IMNMX:
    x = (unsigned)max((int)x, (int)o) ^ c;
    break;
  case OP_FMNMX:
    x = __float_as_uint(fmaxf(f, fo) + fc);
    break;
  case OP_IABS:
    x = (unsigned)abs((int)(x ^ o));
    break;
  case OP_POPC:
    x = (unsigned)__popc(x) ^ o;
    break;
  case OP_FLO:
    x = (unsigned)__clz((int)x) ^ o;
    break;
  case OP_BREV:
    x = __brev(x) ^ o;
    break;
  case OP_F2I:
    x = (unsigned)(int)f ^ o;
    break;
  case OP_IMAD_WIDE: {
    unsigned long long y = (unsigned long long)x * o + c;
    x = (unsigned)y ^ (unsigned)(y >> 32);
    break;
  }
  case OP_FMUL:
    x = __float_as_uint(f * fo);
    break;
  case OP_SHFL:
    x = __shfl_xor_sync(0xffffffffu, x, 1) ^ o;
    break;
  case OP_EX2: {
    float r;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(f));
    x = __float_as_uint(r) ^ o;
    break;
  }
  case OP_SIN: {
    float r;
    asm("sin.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(f));
    x = __float_as_uint(r) ^ o;
    break;
  }
  case OP_RCP: {
    float r;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(f));
    x = __float_as_uint(r) ^ o;
    break;
  }
  case OP_I2F_RU:
    x = __float_as_uint(__uint2float_ru(x)) ^ o;
    break;
  case OP_UDIV:
    x = x / (o | 1u) + c;
    break;
  case OP_HFMA2: {
    __half2 h = *reinterpret_cast<__half2 *>(&x), ho = *reinterpret_cast<__half2 *>(&o),
            hc = *reinterpret_cast<__half2 *>(&c);
    h = __hfma2(h, ho, hc);
    x = *reinterpret_cast<unsigned *>(&h);
    break;
  }
  }
}

template <int OP>
__global__ void
pipes(int iters, unsigned c, long long *marks, unsigned *sink)
{
  unsigned x[8];
#pragma unroll
  for (int k = 0; k < 8; k++)
    x[k] = (threadIdx.x * 8 + k) | 0x3f000000u;
  __syncthreads();
  long long c0 = clock64();
#pragma unroll 1
  for (int i = 0; i < iters; i++) {
#pragma unroll
    for (int u = 0; u < 4; u++) {
#pragma unroll
      for (int k = 0; k < 8; k++)
        step<OP>(x[k], x[(k + 4) & 7], c, k);
    }
  }
  long long c1 = clock64();
  unsigned all = 0;
#pragma unroll
  for (int k = 0; k < 8; k++)
    all ^= x[k];
  if ((threadIdx.x & 31) == 0) {
    marks[2 * (threadIdx.x >> 5)] = c0;
    marks[2 * (threadIdx.x >> 5) + 1] = c1;
  }
  if (all == 0x12345u) // never: keeps the chains
    sink[0] = all;
}

typedef void (*Kernel)(int, unsigned, long long *, unsigned *);
template <int OP>
static void
table(Kernel *k)
{
  k[OP] = pipes<OP>;
  if constexpr (OP + 1 < OP_COUNT)
    table<OP + 1>(k);
}

int
main(int argc, char **argv)
{
  std::string mode = argc > 1 ? argv[1] : "";
  if (mode != "time" && mode != "ncu") {
    fprintf(stderr, "usage: pipes time|ncu\n");
    return 2;
  }
  Kernel kernels[OP_COUNT];
  table<0>(kernels);
  long long *cycles;
  unsigned *sink;
  CK(cudaMalloc(&cycles, 64 * sizeof(long long)));
  CK(cudaMalloc(&sink, 64));
  const int iters = 512;
  if (mode == "ncu") {
    for (int op = 0; op < OP_COUNT; op++)
      kernels[op]<<<1, 1024>>>(64, 0x3c000003u, cycles, sink);
    CK(cudaDeviceSynchronize());
    return 0;
  }
  const int warps[] = {1, 4, 8, 16, 24, 32};
  // c: a small float (the chains' floats stay finite) whose bits are also a usable int operand
  unsigned c = 0x3c000003u;
  printf("op,warps,iters,run,cycles_med,cycles_min,cycles_max,span\n");
  for (int op = 0; op < OP_COUNT; op++)
    for (int w : warps)
      for (int run = -1; run < 2; run++) {
        kernels[op]<<<1, 32 * w>>>(iters, c, cycles, sink);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        if (run < 0)
          continue; // warm-up
        std::vector<long long> m(2 * w), v(w);
        CK(cudaMemcpy(m.data(), cycles, 2 * w * sizeof(long long), cudaMemcpyDeviceToHost));
        long long first = m[0], last = m[1];
        for (int i = 0; i < w; i++) {
          v[i] = m[2 * i + 1] - m[2 * i];
          first = std::min(first, m[2 * i]);
          last = std::max(last, m[2 * i + 1]);
        }
        std::sort(v.begin(), v.end());
        printf("%s,%d,%d,%d,%lld,%lld,%lld,%lld\n", op_names[op], w, iters, run, v[w / 2], v[0],
               v[w - 1], last - first);
      }
  return 0;
}
