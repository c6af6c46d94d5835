// The queue in front of the H100's shared memory (MIO): how many shared-memory loads a warp and
// an SM may have waiting before warps stall in Nsight's `mio_throttle`, and what a wide load
// that many lanes share (a broadcast) costs.  A microbenchmark, not a kernel a user writes;
// bench/h100/README.md says what the columns mean and how it was run.
//
//   mioq        every warp runs `iters` iterations of K independent loads (LDS of `width`
//               4 or LDS.128 of 16 bytes a lane, K = 1..16, all at the same addresses) whose
//               results the next iteration's address depends on; `pattern`: `w1` (no bank
//               conflict), `w32` (32-way conflicts: every lane a different row of the same
//               banks), `bcast` (every lane the same address), `two` (lanes 0-15 one address,
//               16-31 another: a tile's row as a 16 x 16 block's warp reads it); 1..64 warps on
//               every SM (two blocks above 32)
//   mioq ncu    a subset launched once each, for Nsight Compute's warp states
#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

#define CK(x)                                                                                  \
  do {                                                                                         \
    cudaError_t e_ = (x);                                                                      \
    if (e_ != cudaSuccess) {                                                                   \
      fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));       \
      exit(1);                                                                                 \
    }                                                                                          \
  } while (0)

struct Rec {  // one warp's record
  long long t0, t1;
  int smid, pad;
};

__device__ __forceinline__ int smid() {
  int s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}

// element a lane reads: pattern 1 and 32 are bank-conflict ways; 0 every lane the same; 2 the
// two halves of the warp two addresses
__device__ __forceinline__ unsigned element(int lane, int pattern, int W) {
  if (pattern == 0) return 0;
  if (pattern == 2) return lane < 16 ? 0 : 1;
  return (unsigned)(lane / pattern) + (unsigned)(lane % pattern) * (128 / W);
}

template <int K, int W>
__global__ void __launch_bounds__(1024, 2) mioq(int iters, int pattern, unsigned zmask, Rec *rec) {
  extern __shared__ int4 sh4[];
  char *sh = (char *)sh4;
  int lane = threadIdx.x & 31;
  size_t gw = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) >> 5;
  unsigned e = element(lane, pattern, W);
  unsigned acc = (unsigned)lane, off = 0;
  long long t0 = clock64();
#pragma unroll 1
  for (int it = 0; it < iters; it++) {
    unsigned a = (unsigned)__cvta_generic_to_shared(sh + e * W + off);
    unsigned x[K];
    // load k one 128-byte row further: the same banks, a different address (the assembler
    // would merge loads of one address)
#pragma unroll
    for (int k = 0; k < K; k++) {
      if (W == 4) {
        asm volatile("ld.shared.u32 %0, [%1];" : "=r"(x[k]) : "r"(a + 128 * k) : "memory");
      } else {
        unsigned p, q, r, s;
        asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(p), "=r"(q), "=r"(r), "=r"(s) : "r"(a + 128 * k) : "memory");
        x[k] = p + q + r + s;
      }
    }
#pragma unroll
    for (int k = 0; k < K; k++) acc += x[k];
    off = acc & zmask;  // zmask 0: the same address, after every load's result
  }
  long long t1 = clock64();
  if (lane == 0) rec[gw] = Rec{t0, t1, smid(), (int)(acc & 1)};
}

typedef void (*Kern)(int, int, unsigned, Rec *);
template <int W> static Kern pick_k(int k) {
  switch (k) {
  case 1: return mioq<1, W>;
  case 2: return mioq<2, W>;
  case 4: return mioq<4, W>;
  case 8: return mioq<8, W>;
  default: return mioq<16, W>;
  }
}

static const char *pattern_name(int p) {
  return p == 0 ? "bcast" : p == 2 ? "two" : p == 1 ? "w1" : "w32";
}

int main(int argc, char **argv) {
  if (argc < 2 || strcmp(argv[1], "mioq")) {
    fprintf(stderr, "usage: mioq mioq [ncu]\n");
    return 2;
  }
  bool ncu = argc > 2 && !strcmp(argv[2], "ncu");
  int sms;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int maxw = sms * 64;
  Rec *d_rec;
  CK(cudaMalloc(&d_rec, sizeof(Rec) * maxw));
  std::vector<Rec> h(maxw);
  printf("k,width,pattern,warps_per_sm,iters,cycles_per_iter_med,cycles_per_iter_max,"
         "lds_per_cycle_per_sm\n");
  for (int W : {4, 16})
    for (int pattern : {1, 32, 0, 2})
      for (int K : {1, 2, 4, 8, 16})
        for (int w : {1, 4, 8, 16, 32, 64}) {
          if (ncu && (K == 2 || K == 8 || pattern == 2 || (w != 8 && w != 32 && w != 64)))
            continue;
          int blocks = w > 32 ? 2 * sms : sms, threads = w > 32 ? 16 * w : 32 * w;
          size_t tw = (size_t)blocks * threads / 32;
          int iters = 256;
          Kern k = W == 4 ? pick_k<4>(K) : pick_k<16>(K);
          std::vector<double> med, mx;
          for (int r = 0; r < (ncu ? 1 : 3); r++) {
            k<<<blocks, threads, 16384>>>(iters, pattern, 0u, d_rec);
            CK(cudaGetLastError());
            CK(cudaDeviceSynchronize());
            if (ncu || r == 0) continue;
            CK(cudaMemcpy(h.data(), d_rec, sizeof(Rec) * tw, cudaMemcpyDeviceToHost));
            std::vector<int> count(1024, 0);
            for (size_t i = 0; i < tw; i++) count[h[i].smid]++;
            std::vector<double> cpi;
            for (size_t i = 0; i < tw; i++)
              if (count[h[i].smid] == w) cpi.push_back((double)(h[i].t1 - h[i].t0) / iters);
            std::sort(cpi.begin(), cpi.end());
            med.push_back(cpi[cpi.size() / 2]);
            mx.push_back(cpi.back());
          }
          if (ncu) {
            printf("%d,%d,%s,%d,%d,,,\n", K, W, pattern_name(pattern), w, iters);
            continue;
          }
          double c = (med[0] + med[1]) / 2;
          printf("%d,%d,%s,%d,%d,%.2f,%.2f,%.4f\n", K, W, pattern_name(pattern), w, iters, c,
                 std::max(mx[0], mx[1]), (double)w * K / c);
          fflush(stdout);
        }
  return 0;
}
