// What an instruction's constant operand costs (`FADD R, R, c[0x3][off]`, ULDC): the constant
// words an instruction names in its encoding come through the SM's immediate constant cache
// (IMC), which a warp waits for at issue (Nsight's imc_miss) where LDC's words are waited for
// in short_scoreboard.  Each warp runs a dependent chain of N FADDs, the k-th taking in the
// __constant__ word at byte k x stride (its offset in the instruction), reading the clock
// before the chain, after it and after the same chain again:
//
//   lines    N = 1 to 128 words 64 bytes apart (a line each), stride 4 to 256 at N = 16
//   ldc      the same after LDC has read the same words (an index the compiler cannot see):
//            whether the LDC path's fills serve the operands
//   params   the words of the kernel's parameters (bank 0: a struct of 512 floats by value,
//            written for each launch), N = 16 at stride 64
//   warps    N = 16 at stride 64, 1 to 32 warps of one block: one miss for all, or one each
//
// One block an SM on 1 SM or on all 132, four launches of each (run -1 is the first of its
// configuration: the constant data stays where the last launch left it, the parameters are new
// each launch).
//
//   imc time   CSV: exp, n, stride, warps, sms, run, warp, cold, warm (cycles: the first
//              chain, the second; block 0's warps)
//   imc ncu    one launch of each configuration (132 SMs), its columns printed first
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CK(x)                                                                                    \
  do {                                                                                           \
    cudaError_t e_ = (x);                                                                        \
    if (e_ != cudaSuccess) {                                                                     \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));               \
      exit(1);                                                                                   \
    }                                                                                            \
  } while (0)

#define WORDS 16384 /* 64 KB: all of bank 3 */
__constant__ float cbuf[WORDS];

struct Params {
  float w[512];
};

template <int N, int STRIDE>
__device__ __forceinline__ float
chain(float x)
{
#pragma unroll
  for (int k = 0; k < N; k++)
    x = x + cbuf[k * STRIDE / 4];
  return x;
}

template <int N, int STRIDE>
__device__ __forceinline__ float
chain_params(float x, const Params &p)
{
#pragma unroll
  for (int k = 0; k < N; k++)
    x = x + p.w[k * STRIDE / 4];
  return x;
}

/* MODE 0: lines / warps; 1: ldc (the same words read through LDC first) */
template <int N, int STRIDE, int MODE>
__global__ void imc(float *out, long long *t, float x, int idx)
{
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
  if (MODE == 1) { /* idx is 0 at run time: LDC of each word the chain names */
    float s = 0;
#pragma unroll
    for (int k = 0; k < N; k++)
      s += cbuf[(k * STRIDE / 4 + idx) & (WORDS - 1)];
    x += s * (float)idx;
  }
  long long t0 = clock64();
  x = chain<N, STRIDE>(x);
  long long t1 = clock64();
  x = chain<N, STRIDE>(x);
  long long t2 = clock64();
  out[blockIdx.x * blockDim.x + threadIdx.x] = x;
  if (lane == 0) {
    t[2 * warp] = t1 - t0;
    t[2 * warp + 1] = t2 - t1;
  }
}

template <int N, int STRIDE>
__global__ void imc_params(float *out, long long *t, float x, Params p)
{
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
  long long t0 = clock64();
  x = chain_params<N, STRIDE>(x, p);
  long long t1 = clock64();
  x = chain_params<N, STRIDE>(x, p);
  long long t2 = clock64();
  out[blockIdx.x * blockDim.x + threadIdx.x] = x;
  if (lane == 0) {
    t[2 * warp] = t1 - t0;
    t[2 * warp + 1] = t2 - t1;
  }
}

struct Config {
  const char *exp;
  int n, stride, warps;
  void (*fn)(float *, long long *, float, int);
  void (*fp)(float *, long long *, float, Params);
};

#define L(n, s) {"lines", n, s, 1, imc<n, s, 0>, nullptr}
#define D(n, s) {"ldc", n, s, 1, imc<n, s, 1>, nullptr}
#define W(w) {"warps", 16, 64, w, imc<16, 64, 0>, nullptr}
static const Config CONFIGS[] = {
    L(1, 64),  L(2, 64),  L(4, 64),  L(8, 64),  L(16, 64), L(32, 64), L(64, 64), L(128, 64),
    L(16, 4),  L(16, 8),  L(16, 16), L(16, 32), L(16, 128), L(16, 256),
    D(1, 64),  D(4, 64),  D(16, 64), D(64, 64),
    {"params", 16, 64, 1, nullptr, imc_params<16, 64>},
    {"params", 4, 64, 1, nullptr, imc_params<4, 64>},
    W(2),      W(4),      W(8),      W(16),     W(32),
};

static void
launch(const Config &c, int sms, float *out, long long *t, const Params &p)
{
  if (c.fn)
    c.fn<<<sms, 32 * c.warps>>>(out, t, 1.0f, 0);
  else
    c.fp<<<sms, 32 * c.warps>>>(out, t, 1.0f, p);
  CK(cudaGetLastError());
}

int
main(int argc, char **argv)
{
  bool ncu = argc > 1 && !strcmp(argv[1], "ncu");
  if (argc < 2 || (!ncu && strcmp(argv[1], "time"))) {
    fprintf(stderr, "usage: imc time|ncu\n");
    return 2;
  }
  std::vector<float> h(WORDS);
  for (int i = 0; i < WORDS; i++)
    h[i] = 1e-6f * (float)(i % 97);
  CK(cudaMemcpyToSymbol(cbuf, h.data(), sizeof(float) * WORDS));
  Params p;
  for (int i = 0; i < 512; i++)
    p.w[i] = 1e-6f * (float)(i % 89);
  float *out;
  long long *t;
  CK(cudaMalloc(&out, 132 * 1024 * sizeof(float)));
  CK(cudaMalloc(&t, 2 * 132 * 32 * sizeof(long long)));
  printf(ncu ? "exp,n,stride,warps,sms\n" : "exp,n,stride,warps,sms,run,warp,cold,warm\n");
  for (const Config &c : CONFIGS)
    for (int sms : {1, 132}) {
      if (ncu) {
        if (sms == 1)
          continue;
        launch(c, sms, out, t, p);
        CK(cudaDeviceSynchronize());
        printf("%s,%d,%d,%d,%d\n", c.exp, c.n, c.stride, c.warps, sms);
        continue;
      }
      for (int r = -1; r < 3; r++) { /* -1: the configuration's first launch */
        launch(c, sms, out, t, p);
        CK(cudaDeviceSynchronize());
        std::vector<long long> s(2 * c.warps);
        CK(cudaMemcpy(s.data(), t, s.size() * sizeof(long long), cudaMemcpyDeviceToHost));
        for (int w = 0; w < c.warps; w++)
          printf("%s,%d,%d,%d,%d,%d,%d,%lld,%lld\n", c.exp, c.n, c.stride, c.warps, sms, r, w,
                 s[2 * w], s[2 * w + 1]);
      }
    }
  return 0;
}
