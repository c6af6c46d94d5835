// What two warps on one scheduler cost each other: warp 0 and warp 4 of a block of five (the
// same scheduler; warps 1-3 leave after the block's barrier) each run a loop of U dependent
// FFMAs closed by a taken branch (bench/h100/loop.cu's loop: UIADD3, U x FFMA, ISETP, BRA),
// warp A (0) with U = UA, warp B (4) with U = UB (0: B leaves too, A runs alone).  After the
// barrier B waits `delay` cycles on the clock before its loop, so the two loops start at
// different offsets; lane 0 of each reads clock64() around its loop.  4 096 FFMAs a warp
// (4096 / U iterations; U = 7: 585).  Does a pair lose time whatever the offset (a cost of the
// pair itself), only at some offsets (collisions of the two issue patterns), and which of the
// two loses it (the warp that branches, or the other)?
//
//   pairloop time   CSV: ua, ub, delay, run, a_start, a_end, a_iters, b_start, b_end, b_iters
//                   (cycles after the earlier of the two starts; two launches after a warm-up)
//   pairloop ncu    launches (8, 8), (1, 1) and (8, 128) at delay 0 once each (Nsight's Source
//                   page: which instruction of each loop waits, and for what)
#include <algorithm>
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

template <int U>
__device__ __forceinline__ float
chain(float x, float c, int iters)
{
#pragma unroll 1
  for (int i = 0; i < iters; i++) {
#pragma unroll
    for (int u = 0; u < U; u++)
      x = x * c + c;
  }
  return x;
}

template <int UA, int UB>
__global__ void
pairloop(int iters_a, int iters_b, int delay, float c, long long *marks, float *sink)
{
  int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  float x = (float)threadIdx.x;
  __syncthreads();
  if (warp == 0) {
    long long c0 = clock64();
    x = chain<UA>(x, c, iters_a);
    long long c1 = clock64();
    if (lane == 0) {
      marks[0] = c0;
      marks[1] = c1;
    }
  } else if (warp == 4 && UB > 0) {
    long long t = clock64();
    while (clock64() - t < delay)
      ;
    long long c0 = clock64();
    x = chain<UB>(x, c, iters_b);
    long long c1 = clock64();
    if (lane == 0) {
      marks[2] = c0;
      marks[3] = c1;
    }
  }
  if (x == 1.2345f)
    *sink = x;
}

typedef void (*Kern)(int, int, int, float, long long *, float *);

struct Pair {
  int ua, ub;
  Kern k;
  int delays; /* delays 0 .. delays - 1 */
};

static const Pair PAIRS[] = {
    {1, 0, pairloop<1, 0>, 1},       {2, 0, pairloop<2, 0>, 1},
    {4, 0, pairloop<4, 0>, 1},       {8, 0, pairloop<8, 0>, 1},
    {128, 0, pairloop<128, 0>, 1},   {1, 1, pairloop<1, 1>, 48},
    {2, 2, pairloop<2, 2>, 48},      {4, 4, pairloop<4, 4>, 48},
    {8, 8, pairloop<8, 8>, 64},      {128, 128, pairloop<128, 128>, 16},
    {1, 128, pairloop<1, 128>, 16},  {2, 128, pairloop<2, 128>, 16},
    {4, 128, pairloop<4, 128>, 16},  {8, 128, pairloop<8, 128>, 16},
    {8, 7, pairloop<8, 7>, 8},       {8, 1, pairloop<8, 1>, 16},
};

int
main(int argc, char **argv)
{
  bool ncu = argc > 1 && !strcmp(argv[1], "ncu");
  if (argc < 2 || (strcmp(argv[1], "time") && !ncu)) {
    fprintf(stderr, "usage: pairloop time|ncu\n");
    return 2;
  }
  long long *marks;
  float *sink;
  CK(cudaMalloc(&marks, 4 * sizeof(long long)));
  CK(cudaMalloc(&sink, sizeof(float)));
  printf("ua,ub,delay,run,a_start,a_end,a_iters,b_start,b_end,b_iters\n");
  for (const Pair &p : PAIRS) {
    if (ncu) {
      if ((p.ua == 8 && (p.ub == 8 || p.ub == 128)) || (p.ua == 1 && p.ub == 1)) {
        p.k<<<1, 160>>>(4096 / p.ua, 4096 / p.ub, 0, 1.0001f, marks, sink);
        CK(cudaDeviceSynchronize());
      }
      continue;
    }
    int ia = 4096 / p.ua, ib = p.ub ? 4096 / p.ub : 0;
    for (int d = 0; d < p.delays; d++)
      for (int r = -1; r < 2; r++) { /* r = -1: warm-up */
        CK(cudaMemset(marks, 0, 4 * sizeof(long long)));
        p.k<<<1, 160>>>(ia, ib, d, 1.0001f, marks, sink);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        if (r < 0)
          continue;
        long long m[4];
        CK(cudaMemcpy(m, marks, sizeof m, cudaMemcpyDeviceToHost));
        long long first = p.ub ? std::min(m[0], m[2]) : m[0];
        printf("%d,%d,%d,%d,%lld,%lld,%d,%lld,%lld,%d\n", p.ua, p.ub, d, r, m[0] - first,
               m[1] - first, ia, p.ub ? m[2] - first : 0, p.ub ? m[3] - first : 0, ib);
      }
  }
  return 0;
}
