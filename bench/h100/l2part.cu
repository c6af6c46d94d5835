// Whether the L2 reads sectors written in part from DRAM before their lines leave it, and what
// the lines a launch replaces cost such stores, on the whole GPU: one block of W warps on each
// SM, each warp `iters` times a warp-access that writes 4 bytes in each of K sectors (K = 1, 2
// or 4) of 8 distinct fresh lines of a 4 GiB buffer (8 K lanes on, one sector a lane: every
// sector written in part), launched after one of three preparations:
//   fresh   256 MB of another buffer read: the L2 full of clean lines, none of the kernel's
//   held    the same, then the lines the kernel will write read (at most 35 MB): their sectors
//           held, clean, so nothing need be read for them
//   dirty   l2dirty.cu's flush (every float of 128 MB incremented): the L2 full of dirty lines
// each followed by a synchronisation.  Where `fresh` takes longer than `held` at the same lines,
// the L2 read sectors written in part from DRAM before the kernel's end; the lines are the same
// for every K, the sectors written in part K times as many.
//
//   l2part     CSV on stdout: k, prep, warps_per_sm, sms, iters, lines_mb, partial_sectors, run,
//              cycles_per_insn_med, span_med, span_max
#include <algorithm>
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

static constexpr size_t BUF = 4ull << 30;
static constexpr size_t PREP = 256ull << 20;  // the other buffer read
static constexpr size_t FL_N = 32ull << 20;    // 128 MB of floats: more than the L2

struct Rec {
  long long t0, t1;
};

template <int K>
__global__ void __launch_bounds__(1024, 1) part(char *buf, int iters, Rec *rec) {
  int lane = threadIdx.x & 31;
  size_t gw = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) >> 5;
  size_t tw = ((size_t)gridDim.x * blockDim.x) >> 5;
  unsigned lb = (lane % 8) * 128 + (lane / 8) * 32;  // line lane % 8, sector lane / 8
  unsigned v = (unsigned)lane;
  long long t0 = clock64();
#pragma unroll 1
  for (int it = 0; it < iters; it++) {
    size_t first = ((size_t)it * tw + gw) * 8;
    if (lane < 8 * K) *(unsigned *)(buf + first * 128 + lb) = v++;
  }
  long long t1 = clock64();
  if (lane == 0) rec[gw] = Rec{t0, t1};
}

__global__ void flush(float *f, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    f[i] += 1.f;
}

__global__ void readall(const float *f, size_t n, float *sink) {
  float s = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    s += __ldcg(f + i);
  if (s == 12345.f) *sink = s;
}

int main() {
  int sms;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  char *d_buf;
  float *d_other, *d_fl, *d_sink;
  Rec *d_rec;
  CK(cudaMalloc(&d_buf, BUF));
  CK(cudaMemset(d_buf, 0, BUF));
  CK(cudaMalloc(&d_other, PREP));
  CK(cudaMemset(d_other, 0, PREP));
  CK(cudaMalloc(&d_fl, FL_N * 4));
  CK(cudaMemset(d_fl, 0, FL_N * 4));
  CK(cudaMalloc(&d_sink, 4));
  CK(cudaMalloc(&d_rec, sizeof(Rec) * sms * 32));
  printf("k,prep,warps_per_sm,sms,iters,lines_mb,partial_sectors,run,cycles_per_insn_med,"
         "span_med,span_max\n");
  const char *preps[] = {"fresh", "held", "dirty"};
  struct Size {
    int w, iters;
  };
  const Size sizes[] = {{8, 4},  {8, 8},  {8, 12}, {8, 16}, {8, 20}, {8, 24},
                        {8, 32}, {2, 16}, {2, 32}, {2, 48}, {2, 64}, {2, 96}, {2, 128}};
  for (int k : {1, 2, 4}) {
    void (*kern)(char *, int, Rec *) = k == 1 ? part<1> : k == 2 ? part<2> : part<4>;
    for (const Size &sz : sizes) {
      size_t tw = (size_t)sms * sz.w, lines = tw * 8 * sz.iters;
      for (int prep = 0; prep < 3; prep++) {
        for (int run = 0; run < 3; run++) {
          if (prep == 2) flush<<<sms * 4, 512>>>(d_fl, FL_N);
          else readall<<<sms * 4, 512>>>(d_other, PREP / 4, d_sink);
          if (prep == 1) readall<<<sms * 4, 512>>>((const float *)d_buf, lines * 32, d_sink);
          CK(cudaDeviceSynchronize());
          kern<<<sms, 32 * sz.w>>>(d_buf, sz.iters, d_rec);
          CK(cudaGetLastError());
          CK(cudaDeviceSynchronize());
          std::vector<Rec> r(tw);
          CK(cudaMemcpy(r.data(), d_rec, sizeof(Rec) * tw, cudaMemcpyDeviceToHost));
          std::vector<double> span(tw);
          for (size_t i = 0; i < tw; i++) span[i] = (double)(r[i].t1 - r[i].t0);
          std::sort(span.begin(), span.end());
          double med = span[tw / 2], mx = span[tw - 1];
          printf("%d,%s,%d,%d,%d,%.1f,%zu,%d,%.2f,%.0f,%.0f\n", k, preps[prep], sz.w, sms,
                 sz.iters, lines * 128 / 1e6, lines * k, run, med / sz.iters, med, mx);
          fflush(stdout);
        }
      }
    }
  }
  return 0;
}
