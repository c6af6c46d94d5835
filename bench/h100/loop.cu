// How warps that each run a short loop share their scheduler: the issue of a loop of U
// dependent FFMAs closed by a taken branch (UIADD3, FFMA x U, ISETP, BRA: the launch rows' work
// loop at U = 1), one warp to 64 an SM, for smsim's issue and branch costs with many warps.
//
//   loop           prints CSV: one row per configuration
//   loop ncu       launches each configuration of U = 1 and 4 once (for Nsight Compute)
//
// Each thread runs iters = 1024 / U iterations of U dependent FFMAs; lane 0 of each warp reads
// clock64() before and after the loop.  Up to 32 warps an SM run as one block of 32 x warps
// threads with 120 KB of dynamic shared memory (one block an SM), 48 and 64 as two blocks of
// half as many with 100 KB (two an SM); 132 blocks per block an SM, so every SM runs the same.
// Per configuration: the median over warps of (end - start) / iters, the largest, and the
// median over SMs of the span of the SM's warps (last end - first start) over iters.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CK(x)                                                                                      \
  do {                                                                                             \
    cudaError_t e_ = (x);                                                                          \
    if (e_ != cudaSuccess) {                                                                       \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));                 \
      exit(1);                                                                                     \
    }                                                                                              \
  } while (0)

struct LRec {
  long long c0, c1;
  int smid, pad;
};

__device__ __forceinline__ int smid() {
  int s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}

template <int U>
__global__ void loop(int iters, float c, LRec *out, float *sink) {
  float x = (float)threadIdx.x;
  long long c0 = clock64();
#pragma unroll 1
  for (int i = 0; i < iters; i++) {
#pragma unroll
    for (int u = 0; u < U; u++) x = x * c + c;
  }
  long long c1 = clock64();
  if (x == 1.2345f) *sink = x;
  if ((threadIdx.x & 31) == 0) {
    int i = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    out[i] = LRec{c0, c1, smid(), 0};
  }
}

static double median(std::vector<double> v) {
  if (v.empty()) return -1;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

typedef void (*Kern)(int, float, LRec *, float *);

int main(int argc, char **argv) {
  bool ncu = argc > 1 && strcmp(argv[1], "ncu") == 0;
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  struct K {
    int u;
    Kern k;
  } ks[] = {{1, loop<1>}, {2, loop<2>}, {4, loop<4>}, {8, loop<8>}};
  for (const K &k : ks)
    CK(cudaFuncSetAttribute(k.k, cudaFuncAttributeMaxDynamicSharedMemorySize, 122880));
  int warps[] = {1, 2, 4, 6, 8, 12, 16, 20, 24, 28, 32, 48, 64};
  LRec *d = nullptr;
  float *sink = nullptr;
  CK(cudaMalloc(&d, sizeof(LRec) * (size_t)sms * 64));
  CK(cudaMalloc(&sink, 64));
  printf("unroll,warps,iters,cycles_per_iter_med,cycles_per_iter_max,span_per_iter_med,"
         "start_spread_med\n");
  for (const K &k : ks)
    for (int w : warps) {
      if (ncu && k.u != 1 && k.u != 4) continue;
      int per_sm = w > 32 ? 2 : 1, wpb = w / per_sm;
      int blocks = sms * per_sm, smem = per_sm == 1 ? 122880 : 102400;
      int iters = 1024 / k.u;
      std::vector<LRec> h((size_t)blocks * wpb);
      for (int rep = ncu ? 2 : 0; rep < 3; rep++) {  // the first launch warms up; the last is kept
        CK(cudaMemset(d, 0, sizeof(LRec) * h.size()));
        k.k<<<blocks, wpb * 32, smem>>>(iters, 1.0001f, d, sink);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
      }
      CK(cudaMemcpy(h.data(), d, sizeof(LRec) * h.size(), cudaMemcpyDeviceToHost));
      std::vector<double> per, spans, spread;
      double mx = 0;
      std::vector<long long> first(1024, -1), last(1024, -1), lstart(1024, -1);
      std::vector<int> count(1024, 0);
      for (const LRec &r : h) {
        double p = (double)(r.c1 - r.c0) / iters;
        per.push_back(p);
        mx = std::max(mx, p);
        if (first[r.smid] < 0 || r.c0 < first[r.smid]) first[r.smid] = r.c0;
        if (lstart[r.smid] < 0 || r.c0 > lstart[r.smid]) lstart[r.smid] = r.c0;
        if (last[r.smid] < 0 || r.c1 > last[r.smid]) last[r.smid] = r.c1;
        count[r.smid]++;
      }
      for (int s = 0; s < 1024; s++)
        if (count[s] == w) {  // SMs that held exactly this many warps
          spans.push_back((double)(last[s] - first[s]) / iters);
          spread.push_back((double)(lstart[s] - first[s]));
        }
      printf("%d,%d,%d,%.2f,%.2f,%.2f,%.0f\n", k.u, w, iters, median(per), mx, median(spans),
             median(spread));
      fflush(stdout);
    }
  CK(cudaFree(d));
  CK(cudaFree(sink));
  return 0;
}
