// How fast the GPU hands blocks to its SMs: grids of small blocks, each block's first warp
// recording its SM and when it started (clock64(), the SM's own cycles) and ended.  For the
// block dispatch smsim models (a kernel's launch, docs/memory-pipeline.md): the drain rows of
// bench/h100/mempipe.cu, 33 792 one-warp blocks on 132 SMs, last 44 632 SM cycles by Nsight's
// sm__cycles_elapsed.max with no stores, where a retired block's slot refilled 470 cycles later
// would give about 10 000.
//
//   dispatch [csv]     prints CSV: one row per configuration
//
// Configurations: blocks of 32, 256 or 1024 threads (one warp, eight, 32), `work` dependent
// FFMAs a thread (0: a block is its launch and its end), grids of 132 x k blocks.  Per SM its
// blocks are sorted by start; per configuration (the median of 5 launches after one not kept):
// event time, and over the SMs the medians of: the blocks an SM ran, the span of its starts
// (last start - first), the gap between one start and the next among the first `resident`
// (the blocks an SM holds at once) and among the rest, the cycles a block took (first warp).
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

struct DRec {
  long long c0, c1;
  int smid, pad;
};

__device__ __forceinline__ int smid() {
  int s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}

__global__ void dispatch(DRec *out, int work, float c, float *sink) {
  long long c0 = clock64();
  float v = (float)threadIdx.x;
#pragma unroll 1
  for (int i = 0; i < work; i++) v = v * c + c;
  __syncthreads();
  long long c1 = clock64();
  if (threadIdx.x == 0) out[blockIdx.x] = DRec{c0, c1, smid(), 0};
  if (v == 12345.0f) sink[0] = v;  // never: keeps the chain
}

static double median(std::vector<double> v) {
  if (v.empty()) return -1;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main() {
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int max_k = 256;
  DRec *d = nullptr;
  float *sink = nullptr;
  CK(cudaMalloc(&d, sizeof(DRec) * sms * max_k));
  CK(cudaMalloc(&sink, 64));
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  printf("threads,work,blocks,resident,ms_med,blocks_per_sm_med,span_med,first_gap_med,"
         "later_gap_med,block_cycles_med,first_wave_span_med\n");
  struct Cfg {
    int threads, work;
  } cfgs[] = {{32, 0}, {32, 256}, {256, 0}, {1024, 0}};
  for (const Cfg &cf : cfgs) {
    int resident = std::min(32, 64 / (cf.threads / 32));
    for (int k : {1, 2, 4, 8, 16, 32, 64, 128, 256}) {
      if (k > max_k || (cf.threads == 1024 && k > 16)) continue;
      int blocks = sms * k;
      std::vector<double> ms, per_sm, span, first_gap, later_gap, bcyc, wave;
      std::vector<DRec> h(blocks);
      for (int rep = 0; rep < 6; rep++) {
        CK(cudaMemset(d, 0, sizeof(DRec) * blocks));
        CK(cudaEventRecord(a));
        dispatch<<<blocks, cf.threads>>>(d, cf.work, 1.0001f, sink);
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        CK(cudaGetLastError());
        if (rep == 0) continue;
        float t = 0;
        CK(cudaEventElapsedTime(&t, a, b));
        ms.push_back(t);
        CK(cudaMemcpy(h.data(), d, sizeof(DRec) * blocks, cudaMemcpyDeviceToHost));
        std::vector<std::vector<DRec>> by(sms);
        for (const DRec &r : h) by[r.smid].push_back(r);
        std::vector<double> s_n, s_span, s_fg, s_lg, s_b, s_w;
        for (auto &v : by) {
          if (v.empty()) continue;
          std::sort(v.begin(), v.end(), [](const DRec &x, const DRec &y) { return x.c0 < y.c0; });
          s_n.push_back((double)v.size());
          s_span.push_back((double)(v.back().c0 - v.front().c0));
          for (size_t i = 1; i < v.size(); i++)
            (i < (size_t)resident ? s_fg : s_lg).push_back((double)(v[i].c0 - v[i - 1].c0));
          for (const DRec &r : v) s_b.push_back((double)(r.c1 - r.c0));
          size_t last = std::min(v.size(), (size_t)resident) - 1;
          s_w.push_back((double)(v[last].c0 - v.front().c0));
        }
        per_sm.push_back(median(s_n));
        span.push_back(median(s_span));
        first_gap.push_back(median(s_fg));
        later_gap.push_back(median(s_lg));
        bcyc.push_back(median(s_b));
        wave.push_back(median(s_w));
      }
      printf("%d,%d,%d,%d,%.4f,%.0f,%.0f,%.1f,%.1f,%.0f,%.0f\n", cf.threads, cf.work, blocks,
             resident, median(ms), median(per_sm), median(span), median(first_gap),
             median(later_gap), median(bcyc), median(wave));
      fflush(stdout);
    }
  }
  // one launch of 256 x sms one-warp blocks, every block of SMs 0 to 3 in start order
  {
    int blocks = sms * 256;
    std::vector<DRec> h(blocks);
    for (int rep = 0; rep < 2; rep++) {
      dispatch<<<blocks, 32>>>(d, 0, 1.0001f, sink);
      CK(cudaDeviceSynchronize());
    }
    CK(cudaMemcpy(h.data(), d, sizeof(DRec) * blocks, cudaMemcpyDeviceToHost));
    fprintf(stderr, "block,smid,c0,c1\n");
    for (int i = 0; i < blocks; i++)
      if (h[i].smid < 4) fprintf(stderr, "%d,%d,%lld,%lld\n", i, h[i].smid, h[i].c0, h[i].c1);
  }
  return 0;
}
