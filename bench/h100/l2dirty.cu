// What the L2's state at launch costs loads from and stores to DRAM on the whole GPU: mempipe.cu's
// lines loop (one block of W warps on each of the 132 SMs, each warp `iters` times a warp-access
// whose 32 lanes write or read 4 bytes each in L distinct fresh lines of a 4 GiB buffer, one
// sector a line), launched after one of four preparations of the L2:
//   dirty       mempipe.cu's flush (every float of 128 MB incremented) just before, in the same
//               stream: the L2 full of dirty lines (what the `lines` experiment did)
//   dirty_sync  the same flush, then cudaDeviceSynchronize() before the launch
//   dirty_wait  the same flush, synchronised, then 2 ms on the host before the launch
//   clean       128 MB of another buffer read (not written), synchronised: the L2 full of clean
//               lines
// Ops: st_partial (L = 8: one partial sector of 16 bytes a line), st_whole (L = 4: one whole
// sector a line), ld_sectors (L = 32: one sector a line, loads chained through their value).
//
//   l2dirty    CSV: op, lines, prep, warps_per_sm, sms, iters, run, cycles_per_insn_med (the
//              median warp's loop cycles over iters), cycles_per_insn_max, span_med (the
//              median warp's loop cycles)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>
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
static constexpr size_t FL_N = 32ull << 20;  // 128 MB of floats: more than the L2

struct Rec {
  long long t0, t1;
};

enum { ST, LD };

template <int OP, int L>
__global__ void __launch_bounds__(1024, 1) lines(char *buf, int iters, unsigned zmask, Rec *rec) {
  int lane = threadIdx.x & 31;
  size_t gw = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) >> 5;
  size_t tw = ((size_t)gridDim.x * blockDim.x) >> 5;
  unsigned lb = (lane % L) * 128 + (lane / L) * 4;
  unsigned off = 0, v = (unsigned)lane;
  long long t0 = clock64();
#pragma unroll 1
  for (int it = 0; it < iters; it++) {
    size_t first = ((size_t)it * tw + gw) * L;
    char *p = buf + first * 128 + lb + off;
    if (OP == LD) off = __ldcg((const unsigned *)p) & zmask;
    else *(unsigned *)p = v++;
  }
  long long t1 = clock64();
  if (lane == 0) rec[gw] = Rec{t0, t1 + (off & 1)};
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
  float *d_fl, *d_other, *d_sink;
  Rec *d_rec;
  CK(cudaMalloc(&d_buf, BUF));
  CK(cudaMemset(d_buf, 0, BUF));
  CK(cudaMalloc(&d_fl, FL_N * 4));
  CK(cudaMalloc(&d_other, FL_N * 4));
  CK(cudaMemset(d_fl, 0, FL_N * 4));
  CK(cudaMemset(d_other, 0, FL_N * 4));
  CK(cudaMalloc(&d_sink, 4));
  CK(cudaMalloc(&d_rec, sizeof(Rec) * sms * 32));
  printf("op,lines,prep,warps_per_sm,sms,iters,run,cycles_per_insn_med,cycles_per_insn_max,"
         "span_med\n");
  const char *ops[] = {"st_partial", "st_whole", "ld_sectors"};
  const char *preps[] = {"dirty", "dirty_sync", "dirty_wait", "clean"};
  const int warps[] = {1, 2, 4, 8, 32};
  for (int op = 0; op < 3; op++) {
    int L = op == 0 ? 8 : op == 1 ? 4 : 32;
    void (*k)(char *, int, unsigned, Rec *) =
        op == 0 ? lines<ST, 8> : op == 1 ? lines<ST, 4> : lines<LD, 32>;
    for (int w : warps) {
      size_t tw = (size_t)sms * w;
      int iters = (int)std::min<size_t>(64, BUF / (tw * L * 128));
      for (int prep = 0; prep < 4; prep++) {
        for (int run = 0; run < 3; run++) {
          if (prep == 3) {
            readall<<<sms * 4, 512>>>(d_other, FL_N, d_sink);
          } else {
            flush<<<sms * 4, 512>>>(d_fl, FL_N);
          }
          if (prep >= 1) CK(cudaDeviceSynchronize());
          if (prep == 2) usleep(2000);
          k<<<sms, 32 * w>>>(d_buf, iters, 0u, d_rec);
          CK(cudaGetLastError());
          CK(cudaDeviceSynchronize());
          std::vector<Rec> r(tw);
          CK(cudaMemcpy(r.data(), d_rec, sizeof(Rec) * tw, cudaMemcpyDeviceToHost));
          std::vector<double> span(tw);
          for (size_t i = 0; i < tw; i++) span[i] = (double)(r[i].t1 - r[i].t0);
          std::sort(span.begin(), span.end());
          double med = span[tw / 2], mx = span[tw - 1];
          printf("%s,%d,%s,%d,%d,%d,%d,%.2f,%.2f,%.0f\n", ops[op], L, preps[prep], w, sms, iters,
                 run, med / iters, mx / iters, med);
          fflush(stdout);
        }
      }
    }
  }
  return 0;
}
