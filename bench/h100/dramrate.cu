// DRAM's rate for the write-backs of dirty lines that stores of whole lines replace, beside its
// rate for loads of whole lines, on all SMs: one block of W warps on each SM (W = 8, 16, 32),
// each warp `iters` times a warp-access of one whole line (32 lanes, 4 bytes each) of fresh
// lines of a 4 GiB buffer, 69 or 138 MB of lines in all:
//   st_line     stores, then __threadfence() (l2wb.cu's st_line), after the flush (`dirty`:
//               every float of 128 MB incremented, whole lines dirty) or after 256 MB of
//               another buffer read (`clean`)
//   ld_line     independent loads (__ldcg) summed, the sum consumed before the second clock
//               read, after the same preparations
// lane 0 reading the clock before the loop, after it (and after the fence).
//
//   dramrate time  CSV on stdout: op, lines, prep, warps_per_sm, sms, iters, run, loop_med,
//                  loop_max, fence_med (0 for loads), ms (the kernel's CUDA-event time); three
//                  runs of each; on stderr the SM clock
//   dramrate ncu   one run of each, in the order of `time`, for Nsight Compute
//                  (--cache-control none, the whole program replayed for each pass): CSV of
//                  the configurations on stdout
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

struct Rec {
  long long t0, t1, t2;
};

__global__ void __launch_bounds__(1024, 1) st_line(char *buf, int iters, Rec *rec) {
  int lane = threadIdx.x & 31;
  size_t gw = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) >> 5;
  size_t tw = ((size_t)gridDim.x * blockDim.x) >> 5;
  unsigned v = (unsigned)lane + 1;
  long long t0 = clock64();
#pragma unroll 1
  for (int it = 0; it < iters; it++)
    *(unsigned *)(buf + ((size_t)it * tw + gw) * 128 + lane * 4) = v++;
  long long t1 = clock64();
  __threadfence();
  long long t2 = clock64();
  if (lane == 0) rec[gw] = Rec{t0, t1, t2};
}

__global__ void __launch_bounds__(1024, 1) ld_line(const char *buf, int iters, Rec *rec) {
  int lane = threadIdx.x & 31;
  size_t gw = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) >> 5;
  size_t tw = ((size_t)gridDim.x * blockDim.x) >> 5;
  unsigned s = 0;
  long long t0 = clock64();
#pragma unroll 4
  for (int it = 0; it < iters; it++)
    s += __ldcg((const unsigned *)(buf + ((size_t)it * tw + gw) * 128 + lane * 4));
  asm volatile("" ::"r"(s) : "memory");  // the sum (every load's data) before the clock read
  long long t1 = clock64();
  if (lane == 0) rec[gw] = Rec{t0, t1, t1 + (s == 0x9e3779b9u)};
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
    fprintf(stderr, "usage: dramrate time|ncu\n");
    return 2;
  }
  int sms;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  char *d_buf;
  float *d_fl, *d_other, *d_sink;
  long long *d_ll;
  Rec *d_rec;
  CK(cudaMalloc(&d_buf, BUF));
  CK(cudaMemset(d_buf, 1, BUF));
  CK(cudaMalloc(&d_fl, FL_N * 4));
  CK(cudaMalloc(&d_other, PREP));
  CK(cudaMemset(d_fl, 0, FL_N * 4));
  CK(cudaMemset(d_other, 0, PREP));
  CK(cudaMalloc(&d_sink, 4));
  CK(cudaMalloc(&d_ll, 8));
  CK(cudaMalloc(&d_rec, sizeof(Rec) * sms * 32));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  if (!ncu) {
    spin<<<1, 32>>>(1000000, d_ll);
    CK(cudaEventRecord(e0));
    spin<<<1, 32>>>(100000000, d_ll);
    CK(cudaEventRecord(e1));
    fprintf(stderr, "sm clock %.0f MHz\n", 100000000.0 / (ms_of(e0, e1) * 1e3));
    printf("op,lines,prep,warps_per_sm,sms,iters,run,loop_med,loop_max,fence_med,ms\n");
  } else {
    printf("kernel,op,lines,prep,warps_per_sm,sms,iters\n");
  }
  const char *ops[] = {"st_line", "ld_line"};
  const char *preps[] = {"clean", "dirty"};
  const int warps[] = {8, 16, 32};
  const size_t totals[] = {69ull << 20, 138ull << 20};  // bytes of lines, about
  for (int op = 0; op < 2; op++)
    for (int w : warps)
      for (size_t total : totals) {
        size_t tw = (size_t)sms * w;
        int iters = (int)(total / (tw * 128));
        for (int prep = 0; prep < 2; prep++)
          for (int run = 0; run < (ncu ? 1 : 3); run++) {
            if (prep == 0) readall<<<sms * 4, 512>>>((const float *)d_other, PREP / 4, d_sink);
            else flush<<<sms * 4, 512>>>(d_fl, FL_N);
            CK(cudaDeviceSynchronize());
            CK(cudaEventRecord(e0));
            if (op == 0) st_line<<<sms, 32 * w>>>(d_buf, iters, d_rec);
            else ld_line<<<sms, 32 * w>>>(d_buf, iters, d_rec);
            CK(cudaEventRecord(e1));
            CK(cudaGetLastError());
            CK(cudaDeviceSynchronize());
            float ms = ms_of(e0, e1);
            if (ncu) {
              printf("%s,%s,1,%s,%d,%d,%d\n", ops[op], ops[op], preps[prep], w, sms, iters);
              continue;
            }
            std::vector<Rec> r(tw);
            CK(cudaMemcpy(r.data(), d_rec, sizeof(Rec) * tw, cudaMemcpyDeviceToHost));
            std::vector<double> loop(tw), fence(tw);
            for (size_t i = 0; i < tw; i++) {
              loop[i] = (double)(r[i].t1 - r[i].t0);
              fence[i] = op == 0 ? (double)(r[i].t2 - r[i].t1) : 0.0;
            }
            double lm, lx, fm, fx;
            med_max(loop, &lm, &lx);
            med_max(fence, &fm, &fx);
            printf("%s,1,%s,%d,%d,%d,%d,%.0f,%.0f,%.0f,%.4f\n", ops[op], preps[prep], w, sms, iters,
                   run, lm, lx, fm, ms);
            fflush(stdout);
          }
      }
  return 0;
}
