// How many stores an SM's LD/ST path holds before a warp's next store waits at issue
// (Nsight's lg_throttle) rather than at the next write of its registers (long_scoreboard): each
// warp runs K independent chains of FMULs for `iters` iterations and stores each chain's value,
// each store of 32 lines (lane l writes one word of line l, one partial sector a line: the naive
// transpose's kind).  The stores go to the same addresses every iteration, so the compiler
// keeps only the last iteration's: the SASS (stq.sass.gz) issues a warp's K stores back to back
// after its loop, a burst of K x W 32-line stores an SM.  The clock read after them writes the
// stores' address registers (CS2R R4 after STG [R4.64]), so it waits until the LD/ST path has
// read the last store's registers: a warp's span is its loop plus that wait.  Blocks of W warps,
// one an SM, on 1 SM or all 132; the lines in an L2-resident window (64 warps' worth, 4 KB x K
// each).  Lane 0 of each warp reads clock64() around its loop.
//
//   stq time   CSV: k, warps, sms, iters, cycles_per_iter_med, cycles_per_iter_max (3 launches
//              of each, the median run's)
//   stq ncu    one launch of each configuration, its columns printed first (ncu2csv.py)
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

template <int K>
__global__ void stq(float *g, int iters, long long *spans, float x)
{
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
  float *p = g + (size_t)(warp % 64) * K * 32 * 32 + lane * 32;
  float v[K];
#pragma unroll
  for (int k = 0; k < K; k++)
    v[k] = x + k + lane;
  long long t0 = clock64();
  for (int i = 0; i < iters; i++) {
#pragma unroll
    for (int k = 0; k < K; k++)
      p[k * 32 * 32] = v[k];
#pragma unroll
    for (int k = 0; k < K; k++)
      v[k] = v[k] * 1.0001f;
  }
  long long t1 = clock64();
  if (lane == 0)
    spans[warp] = t1 - t0;
}

static const int KS[] = {1, 2, 4, 8, 16};
static const int WS[] = {4, 8, 16, 32};
static const int SMS[] = {1, 132};

static void
launch(int k, int warps, int sms, int iters, float *g, long long *spans)
{
  dim3 grid(sms), block(32 * warps);
  switch (k) {
  case 1: stq<1><<<grid, block>>>(g, iters, spans, 1.0f); break;
  case 2: stq<2><<<grid, block>>>(g, iters, spans, 1.0f); break;
  case 4: stq<4><<<grid, block>>>(g, iters, spans, 1.0f); break;
  case 8: stq<8><<<grid, block>>>(g, iters, spans, 1.0f); break;
  case 16: stq<16><<<grid, block>>>(g, iters, spans, 1.0f); break;
  }
  CK(cudaGetLastError());
}

int
main(int argc, char **argv)
{
  bool ncu = argc > 1 && !strcmp(argv[1], "ncu");
  if (argc < 2 || (!ncu && strcmp(argv[1], "time"))) {
    fprintf(stderr, "usage: stq time|ncu\n");
    return 2;
  }
  float *g;
  long long *spans;
  CK(cudaMalloc(&g, (size_t)64 * 16 * 32 * 32 * sizeof(float) + 4096));
  CK(cudaMalloc(&spans, 132 * 32 * sizeof(long long)));
  const int iters = 64;
  printf(ncu ? "k,warps,sms,iters\n" : "k,warps,sms,iters,cycles_per_iter_med,cycles_per_iter_max\n");
  for (int sms : SMS)
    for (int warps : WS)
      for (int k : KS) {
        if (ncu) {
          launch(k, warps, sms, iters, g, spans);
          CK(cudaDeviceSynchronize());
          printf("%d,%d,%d,%d\n", k, warps, sms, iters);
          continue;
        }
        launch(k, warps, sms, iters, g, spans); /* warm-up */
        CK(cudaDeviceSynchronize());
        std::vector<std::pair<double, double>> runs;
        for (int r = 0; r < 3; r++) {
          launch(k, warps, sms, iters, g, spans);
          CK(cudaDeviceSynchronize());
          std::vector<long long> s(sms * warps);
          CK(cudaMemcpy(s.data(), spans, s.size() * sizeof(long long), cudaMemcpyDeviceToHost));
          std::sort(s.begin(), s.end());
          runs.push_back({(double)s[s.size() / 2] / iters, (double)s.back() / iters});
        }
        std::sort(runs.begin(), runs.end());
        printf("%d,%d,%d,%d,%.2f,%.2f\n", k, warps, sms, iters, runs[1].first, runs[1].second);
      }
  return 0;
}
