// What the L2 does with stores to lines it lacks, by how much of each line they write: whether
// their loop, their fence and DRAM wait for the dirty lines they replace, and whether the lines
// stay in the L2.  On all SMs, one block of 8 warps each; each warp `iters` times a warp-access
// whose 32 lanes write 4 bytes each in L distinct fresh lines of a 4 GiB buffer:
//   st_line     L = 1: the whole line (128 bytes)
//   st_sector   L = 4: one whole sector a line (32 bytes)
//   st_partial  L = 8: half a sector a line (16 bytes)
// then __threadfence() (MEMBAR.SC.GPU), lane 0 reading the clock before the loop, after it and
// after the fence; iters x L = 32, 64, 128 or 256 lines a warp (4.3 to 35 MB of lines over 132
// SMs).  Then a second kernel reads the same words back (__ldcg, each load's address waiting
// for the one before, so its loop takes a load's latency an iteration), lane 0 timing its loop.  Each pair runs after one of two preparations:
//   clean       256 MB of another buffer read (not written): the L2 full of clean lines
//   dirty       every float of 128 MB incremented (l2dirty.cu's flush): whole lines dirty
// each followed by a synchronisation.
//
//   l2wb time  CSV on stdout: op, lines, prep, warps_per_sm, sms, iters, run, store_med (the
//              median warp's loop cycles), store_max, fence_med (the median warp's cycles from
//              the second clock read to the third), fence_max, read_med (the median warp's
//              read-back loop), read_max; three runs of each; on stderr the SM clock
//   l2wb ncu   one run of each, in the order of `time`, for Nsight Compute (--cache-control
//              none keeps the L2 as the preparation left it): CSV of the configurations on
//              stdout, one line per profiled kernel (the stores, then the read-back)
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

static constexpr size_t BUF = 4ull << 30;
static constexpr size_t FL_N = 32ull << 20;   // 128 MB of floats: more than the L2
static constexpr size_t PREP = 256ull << 20;  // the read-only preparation's bytes
static constexpr int W = 8;                   // warps an SM

struct Rec {
  long long t0, t1, t2;
};

template <int L> __device__ __forceinline__ char *addr(char *buf, int it, size_t gw, size_t tw, int lane) {
  size_t first = ((size_t)it * tw + gw) * L;
  return buf + first * 128 + (lane % L) * 128 + (lane / L) * 4;
}

template <int L>
__global__ void __launch_bounds__(1024, 1) stores(char *buf, int iters, Rec *rec) {
  int lane = threadIdx.x & 31;
  size_t gw = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) >> 5;
  size_t tw = ((size_t)gridDim.x * blockDim.x) >> 5;
  unsigned v = (unsigned)lane + 1;
  long long t0 = clock64();
#pragma unroll 1
  for (int it = 0; it < iters; it++) *(unsigned *)addr<L>(buf, it, gw, tw, lane) = v++;
  long long t1 = clock64();
  __threadfence();
  long long t2 = clock64();
  if (lane == 0) rec[gw] = Rec{t0, t1, t2};
}

template <int L>
__global__ void __launch_bounds__(1024, 1) readback(char *buf, int iters, unsigned zmask, Rec *rec) {
  int lane = threadIdx.x & 31;
  size_t gw = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) >> 5;
  size_t tw = ((size_t)gridDim.x * blockDim.x) >> 5;
  unsigned off = 0;
  long long t0 = clock64();
#pragma unroll 1
  for (int it = 0; it < iters; it++)  // each load's address waits for the one before
    off = __ldcg((const unsigned *)(addr<L>(buf, it, gw, tw, lane) + off)) & zmask;
  long long t1 = clock64();
  if (lane == 0) rec[gw] = Rec{t0, t1 + (off & 1), t1};
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

__global__ void spin(long long cycles, long long *out) {
  long long t0 = clock64();
  while (clock64() - t0 < cycles) {
  }
  if (threadIdx.x == 0) *out = clock64() - t0;
}

static float ms_of(cudaEvent_t a, cudaEvent_t b) {
  float ms;
  CK(cudaEventSynchronize(b));
  CK(cudaEventElapsedTime(&ms, a, b));
  return ms;
}

static void med_max(std::vector<double> v, double *med, double *max) {
  std::sort(v.begin(), v.end());
  *med = v[v.size() / 2];
  *max = v.back();
}

int main(int argc, char **argv) {
  bool ncu = argc > 1 && strcmp(argv[1], "ncu") == 0;
  if (argc < 2 || (!ncu && strcmp(argv[1], "time") != 0)) {
    fprintf(stderr, "usage: l2wb time|ncu\n");
    return 2;
  }
  int sms;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  char *d_buf;
  float *d_fl, *d_other, *d_sink;
  long long *d_ll;
  Rec *d_rec;
  CK(cudaMalloc(&d_buf, BUF));
  CK(cudaMemset(d_buf, 0, BUF));
  CK(cudaMalloc(&d_fl, FL_N * 4));
  CK(cudaMalloc(&d_other, PREP));
  CK(cudaMemset(d_fl, 0, FL_N * 4));
  CK(cudaMemset(d_other, 0, PREP));
  CK(cudaMalloc(&d_sink, 4));
  CK(cudaMalloc(&d_ll, 8));
  CK(cudaMalloc(&d_rec, sizeof(Rec) * sms * W));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));

  if (!ncu) {
    spin<<<1, 32>>>(1000000, d_ll);
    CK(cudaEventRecord(e0));
    spin<<<1, 32>>>(100000000, d_ll);
    CK(cudaEventRecord(e1));
    fprintf(stderr, "sm clock %.0f MHz\n", 100000000.0 / (ms_of(e0, e1) * 1e3));
    printf("op,lines,prep,warps_per_sm,sms,iters,run,store_med,store_max,fence_med,fence_max,"
           "read_med,read_max\n");
  } else {
    printf("kernel,op,lines,prep,warps_per_sm,sms,iters\n");
  }
  const char *ops[] = {"st_line", "st_sector", "st_partial"};
  const int ls[] = {1, 4, 8};
  const char *preps[] = {"clean", "dirty"};
  const int per_warp[] = {32, 64, 128, 256};  // lines a warp
  size_t tw = (size_t)sms * W;
  for (int op = 0; op < 3; op++) {
    int L = ls[op];
    void (*st)(char *, int, Rec *) = L == 1 ? stores<1> : L == 4 ? stores<4> : stores<8>;
    void (*rd)(char *, int, unsigned, Rec *) =
        L == 1 ? readback<1> : L == 4 ? readback<4> : readback<8>;
    for (int n : per_warp) {
      int iters = n / L;
      for (int prep = 0; prep < 2; prep++) {
        for (int run = 0; run < (ncu ? 1 : 3); run++) {
          if (prep == 0) readall<<<sms * 4, 512>>>((const float *)d_other, PREP / 4, d_sink);
          else flush<<<sms * 4, 512>>>(d_fl, FL_N);
          CK(cudaDeviceSynchronize());
          st<<<sms, 32 * W>>>(d_buf, iters, d_rec);
          CK(cudaGetLastError());
          CK(cudaDeviceSynchronize());
          std::vector<Rec> r(tw);
          CK(cudaMemcpy(r.data(), d_rec, sizeof(Rec) * tw, cudaMemcpyDeviceToHost));
          rd<<<sms, 32 * W>>>(d_buf, iters, 0u, d_rec);
          CK(cudaGetLastError());
          CK(cudaDeviceSynchronize());
          if (ncu) {
            printf("stores,%s,%d,%s,%d,%d,%d\n", ops[op], L, preps[prep], W, sms, iters);
            printf("readback,%s,%d,%s,%d,%d,%d\n", ops[op], L, preps[prep], W, sms, iters);
            continue;
          }
          std::vector<Rec> b(tw);
          CK(cudaMemcpy(b.data(), d_rec, sizeof(Rec) * tw, cudaMemcpyDeviceToHost));
          std::vector<double> span(tw), fence(tw), read(tw);
          for (size_t i = 0; i < tw; i++) {
            span[i] = (double)(r[i].t1 - r[i].t0);
            fence[i] = (double)(r[i].t2 - r[i].t1);
            read[i] = (double)(b[i].t1 - b[i].t0);
          }
          double sm_, sx, fm, fx, rm, rx;
          med_max(span, &sm_, &sx);
          med_max(fence, &fm, &fx);
          med_max(read, &rm, &rx);
          printf("%s,%d,%s,%d,%d,%d,%d,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f\n", ops[op], L, preps[prep], W,
                 sms, iters, run, sm_, sx, fm, fx, rm, rx);
          fflush(stdout);
        }
      }
    }
  }
  return 0;
}
