// When each warp of a block starts on its SM, and what a read of the global timer costs: the
// launch of a block's warps, for smsim's launch rows (bench/h100/mempipe.cu's launch experiment,
// whose one-block-per-SM blocks of 32 warps read %globaltimer around clock64()).
//
//   warpstart [csv]     prints CSV: one row per configuration and warp index in its block
//
// Each warp's lane 0 reads clock64() as its first instruction, then %globaltimer twice and
// clock64() again, and stores them with its SM.  Configurations: 132 blocks of 1024 threads with
// 120 KB of dynamic shared memory (one block an SM, as mempipe's launch rows), 528 blocks of 256
// threads with 30 KB (four an SM), and 132 blocks of 32 threads (one warp).  Per warp index:
// the median over SMs of its start after the SM's first warp start (clock64, SM cycles), and of
// the cycles its two global-timer reads took.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                                      \
  do {                                                                                             \
    cudaError_t e_ = (x);                                                                          \
    if (e_ != cudaSuccess) {                                                                       \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));                 \
      exit(1);                                                                                     \
    }                                                                                              \
  } while (0)

struct WRec {
  long long c0, c1;
  unsigned long long g0, g1;
  int smid, warp, block, pad;
};

__device__ __forceinline__ unsigned long long gtime() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__device__ __forceinline__ int smid() {
  int s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}

__global__ void warpstart(WRec *out) {
  long long c0 = clock64();
  unsigned long long g0 = gtime();
  unsigned long long g1 = gtime();
  long long c1 = clock64();
  if ((threadIdx.x & 31) == 0) {
    int w = threadIdx.x >> 5;
    int i = blockIdx.x * (blockDim.x >> 5) + w;
    out[i] = WRec{c0, c1, g0, g1, smid(), w, (int)blockIdx.x, 0};
  }
}

static double median(std::vector<double> v) {
  if (v.empty()) return -1;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main() {
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CK(cudaFuncSetAttribute(warpstart, cudaFuncAttributeMaxDynamicSharedMemorySize, 122880));
  struct Cfg {
    const char *name;
    int per_sm, threads, smem;
  } cfgs[] = {{"1x1024", 1, 1024, 122880}, {"4x256", 4, 256, 30720}, {"1x32", 1, 32, 0}};
  WRec *d = nullptr;
  CK(cudaMalloc(&d, sizeof(WRec) * 132 * 64 * 4));
  printf("config,blocks,threads,warp,start_cycles_med,start_cycles_max,gtime_pair_cycles_med,"
         "block_start_cycles_med\n");
  for (const Cfg &c : cfgs) {
    int blocks = c.per_sm * sms, wpb = c.threads / 32;
    std::vector<WRec> h((size_t)blocks * wpb);
    for (int rep = 0; rep < 3; rep++) {  // the first launch is not kept
      CK(cudaMemset(d, 0, sizeof(WRec) * h.size()));
      warpstart<<<blocks, c.threads, c.smem>>>(d);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
    }
    CK(cudaMemcpy(h.data(), d, sizeof(WRec) * h.size(), cudaMemcpyDeviceToHost));
    std::vector<long long> first(1024, -1);
    for (const WRec &r : h)
      if (first[r.smid] < 0 || r.c0 < first[r.smid]) first[r.smid] = r.c0;
    // a block's start: its first warp's, after its SM's first warp
    std::vector<long long> bfirst(blocks, -1);
    for (const WRec &r : h)
      if (bfirst[r.block] < 0 || r.c0 < bfirst[r.block]) bfirst[r.block] = r.c0;
    for (int w = 0; w < wpb; w++) {
      std::vector<double> start, pair, bstart;
      double mx = 0;
      for (const WRec &r : h) {
        if (r.warp != w) continue;
        double s = (double)(r.c0 - bfirst[r.block]);
        start.push_back(s);
        mx = std::max(mx, s);
        pair.push_back((double)(r.c1 - r.c0));
        bstart.push_back((double)(bfirst[r.block] - first[r.smid]));
      }
      printf("%s,%d,%d,%d,%.0f,%.0f,%.0f,%.0f\n", c.name, blocks, c.threads, w, median(start), mx,
             median(pair), median(bstart));
    }
  }
  CK(cudaFree(d));
  return 0;
}
