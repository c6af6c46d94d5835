// How a grid spreads over the whole GPU, in the GPU's global time: grids of one-warp blocks of
// no work (as bench/h100/mempipe.cu's drain launches), each block recording its SM, %globaltimer
// (ns, one clock for every SM) and clock64() at its start and end.  dispatch.cu measures each
// SM's starts on its own cycle counter; this one asks what lies between them and the launch's
// elapsed cycles (Nsight's sm__cycles_elapsed.max): how late each SM's first block starts after
// the grid's first, how many blocks each SM runs, and how long after its last block the grid's
// last block ends.
//
//   spread                prints CSV: one row per grid (the median of 5 launches after one
//                         not kept); every block of the 256-a-SM launch goes to stderr
//   spread ncu            one launch of each grid, for Nsight Compute (its configurations on
//                         stdout, each launch's row as above on stderr: the last replay's)
//   spread small          for Nsight Compute: an empty kernel and spread, of 1 and of 132 blocks,
//                         and mark, twice over
//   spread marks          a one-warp kernel before and after each grid in one stream: the
//                         global time from the first's end to the grid's first block, and from
//                         the grid's last block to the second's start (ns)
//
// Row columns: blocks, threads a block, event time (us), the grid's span in global time (first
// start to last end, ns), over the SMs: the latest first start after the grid's first (ns), the
// median first start, blocks an SM (min, median, max, and how many SMs ran the max), the median
// SM's span of its own starts in its cycles and of its first 32, the mean gap between starts after the first 64 of an
// SM (cycles), and the clock (SM cycles per ns) from clock64 against %globaltimer.
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

struct SRec {
  unsigned long long g0, g1;
  long long c0, c1;
  int smid, pad;
};

__device__ __forceinline__ int smid() {
  int s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}

__device__ __forceinline__ unsigned long long gtime() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void spread(SRec *out) {
  unsigned long long g0 = gtime();
  long long c0 = clock64();
  __syncwarp();
  long long c1 = clock64();
  unsigned long long g1 = gtime();
  if (threadIdx.x == 0) out[blockIdx.x] = SRec{g0, g1, c0, c1, smid(), 0};
}

__global__ void nothing() {}

// one warp's start and end in global time, launched alone before and after a grid: what lies
// between a kernel's last block and the next kernel's first, with and without a grid between
__global__ void mark(unsigned long long *out) {
  unsigned long long g0 = gtime();
  __syncwarp();
  unsigned long long g1 = gtime();
  if (threadIdx.x == 0) {
    out[0] = g0;
    out[1] = g1;
  }
}

static double median(std::vector<double> v) {
  if (v.empty()) return -1;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main(int argc, char **argv) {
  bool ncu = argc > 1 && !strcmp(argv[1], "ncu");
  bool marks = argc > 1 && !strcmp(argv[1], "marks");
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  if (argc > 1 && !strcmp(argv[1], "small")) {  // for Nsight: kernels of 1 or 132 blocks
    printf("kernel,blocks\n");
    SRec *d1 = nullptr;
    CK(cudaMalloc(&d1, sizeof(SRec) * sms));
    for (int rep = 0; rep < 2; rep++) {
      nothing<<<1, 32>>>();
      nothing<<<sms, 32>>>();
      spread<<<1, 32>>>(d1);
      spread<<<sms, 32>>>(d1);
      mark<<<1, 32>>>((unsigned long long *)d1);
      CK(cudaDeviceSynchronize());
      printf("nothing,1\nnothing,%d\nspread,1\nspread,%d\nmark,1\n", sms, sms);
    }
    CK(cudaGetLastError());
    return 0;
  }
  const int ks[] = {1, 8, 32, 64, 128, 256, 512};
  const int max_k = 512;
  SRec *d = nullptr;
  CK(cudaMalloc(&d, sizeof(SRec) * sms * max_k));
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  if (marks) {  // mark, grid, mark back to back in one stream: the gaps on either side (ns)
    unsigned long long *m = nullptr, hm[4];
    CK(cudaMalloc(&m, 4 * sizeof(unsigned long long)));
    printf("blocks,front_ns_med,back_ns_med,mark_to_mark_ns_med\n");
    for (int k : {0, 1, 8, 32, 64, 128, 256, 512}) {
      int blocks = sms * k;
      std::vector<SRec> h(blocks);
      std::vector<double> front, back, whole;
      for (int rep = 0; rep < 8; rep++) {
        mark<<<1, 32>>>(m);
        if (k) spread<<<blocks, 32>>>(d);
        mark<<<1, 32>>>(m + 2);
        CK(cudaDeviceSynchronize());
        CK(cudaGetLastError());
        if (rep < 2) continue;
        CK(cudaMemcpy(hm, m, sizeof hm, cudaMemcpyDeviceToHost));
        whole.push_back((double)(hm[2] - hm[1]));
        if (!k) continue;
        CK(cudaMemcpy(h.data(), d, sizeof(SRec) * blocks, cudaMemcpyDeviceToHost));
        unsigned long long first = ~0ull, last = 0;
        for (const SRec &r : h) {
          first = std::min(first, r.g0);
          last = std::max(last, r.g1);
        }
        front.push_back((double)(first - hm[1]));
        back.push_back((double)(hm[2] - last));
      }
      printf("%d,%.0f,%.0f,%.0f\n", blocks, median(front), median(back), median(whole));
      fflush(stdout);
    }
    return 0;
  }
  const char *head =
      "blocks,threads,event_us,span_ns,first_start_max_ns,first_start_med_ns,blocks_per_sm_min,"
      "blocks_per_sm_med,blocks_per_sm_max,sms_at_max,sm_span_cycles_med,first32_span_cycles_med,"
      "late_gap_cycles_med,cycles_per_ns\n";
  if (!ncu) printf("%s", head);
  for (int k : ks) {
    int blocks = sms * k;
    std::vector<SRec> h(blocks);
    std::vector<double> ev, span, fmax, fmed, nmin, nmed, nmax, natmax, sspan, wspan, lgap, clk;
    for (int rep = 0; rep < (ncu ? 1 : 6); rep++) {
      CK(cudaMemset(d, 0, sizeof(SRec) * blocks));
      CK(cudaEventRecord(a));
      spread<<<blocks, 32>>>(d);
      CK(cudaEventRecord(b));
      CK(cudaEventSynchronize(b));
      CK(cudaGetLastError());
      if (!ncu && rep == 0) continue;
      float t = 0;
      CK(cudaEventElapsedTime(&t, a, b));
      ev.push_back(t * 1000.0);
      CK(cudaMemcpy(h.data(), d, sizeof(SRec) * blocks, cudaMemcpyDeviceToHost));
      unsigned long long first = ~0ull, last = 0;
      for (const SRec &r : h) {
        first = std::min(first, r.g0);
        last = std::max(last, r.g1);
      }
      span.push_back((double)(last - first));
      std::vector<std::vector<SRec>> by(sms);
      for (const SRec &r : h) by[r.smid].push_back(r);
      std::vector<double> s_first, s_n, s_span, s_wave, s_gap, s_clk;
      for (auto &v : by) {
        if (v.empty()) continue;
        std::sort(v.begin(), v.end(), [](const SRec &x, const SRec &y) { return x.c0 < y.c0; });
        s_first.push_back((double)(v.front().g0 - first));
        s_n.push_back((double)v.size());
        s_span.push_back((double)(v.back().c0 - v.front().c0));
        s_wave.push_back((double)(v[std::min<size_t>(v.size(), 32) - 1].c0 - v.front().c0));
        if (v.size() > 65)
          s_gap.push_back((double)(v.back().c0 - v[64].c0) / (double)(v.size() - 65));
        if (v.back().g0 > v.front().g0 + 2000)
          s_clk.push_back((double)(v.back().c0 - v.front().c0) /
                          (double)(v.back().g0 - v.front().g0));
      }
      double mx = *std::max_element(s_n.begin(), s_n.end());
      fmax.push_back(*std::max_element(s_first.begin(), s_first.end()));
      fmed.push_back(median(s_first));
      nmin.push_back(*std::min_element(s_n.begin(), s_n.end()));
      nmed.push_back(median(s_n));
      nmax.push_back(mx);
      natmax.push_back((double)std::count(s_n.begin(), s_n.end(), mx));
      sspan.push_back(median(s_span));
      wspan.push_back(median(s_wave));
      lgap.push_back(median(s_gap));
      clk.push_back(median(s_clk));
    }
    if (ncu) {
      if (k == ks[0]) printf("blocks,threads\n");
      printf("%d,32\n", blocks);
    }
    if (ncu && k == ks[0]) fprintf(stderr, "%s", head);
    fprintf(ncu ? stderr : stdout, "%d,32,%.3f,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.1f,%.3f\n",
            blocks, median(ev), median(span), median(fmax), median(fmed), median(nmin),
            median(nmed), median(nmax), median(natmax), median(sspan), median(wspan),
            median(lgap), median(clk));
    fflush(ncu ? stderr : stdout);
    if (ncu) continue;
    if (k == 256) {  // the last launch's every block, for the SMs' shares and gaps
      fprintf(stderr, "block,smid,g0,g1,c0,c1\n");
      for (int i = 0; i < blocks; i++)
        fprintf(stderr, "%d,%d,%llu,%llu,%lld,%lld\n", i, h[i].smid, h[i].g0, h[i].g1, h[i].c0,
                h[i].c1);
    }
  }
  return 0;
}
