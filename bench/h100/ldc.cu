// What reading the constant bank costs a warp: a kernel's parameters and __constant__ data come
// through LDC (a register gets a word of the bank: the constant caches), which every kernel's
// prologue runs.  A loop of `iters` iterations whose running value feeds, each iteration, on a
// constant read whose address depends on the word read before (LDC R, c[0x3][R]: a dependent
// chain the compiler cannot hoist), against the same loop without it.  One block of 1 to 32
// warps on one SM; each warp's first lane records its cycles (clock64()) around the loop.
//
//   ldc              prints CSV: mode, lines, stride, apart, warps, iterations, median cycles an
//                    iteration over warps
//   ldc ncu          a subset, one launch each, for Nsight Compute
//
// Modes: base (acc = acc * 3 + i, no constant read), chase (a chain through `lines` words
// `stride` bytes apart: the next offset is this one plus the stride, round the footprint, plus
// the word read, which is 0 (the bank holds zeros, as a simulator's bank of zeros does); the
// footprint lines x stride finds the caches' capacities; `apart` chains a warp, its lanes spread
// over them evenly: that many distinct addresses each LDC, which the constant cache serves one
// at a time).
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

enum { BASE, CHASE, N_MODES };
static const char *mode_names[] = {"base", "chase"};

#define WORDS 16384  // the whole 64 KB bank
__constant__ unsigned cwords[WORDS];

template <int MODE>
__global__ void ldc(int iters, unsigned apart, unsigned stride, unsigned total, unsigned *sink,
                    long long *out) {
  unsigned acc = threadIdx.x;
  // lane l starts its chain at the (l % apart)-th of `apart` evenly spread places (bytes)
  unsigned j = (threadIdx.x % 32 % apart) * (total / apart);
  long long t0 = clock64();
#pragma unroll 1
  for (int i = 0; i < iters; i++) {
    unsigned v = i;
    if (MODE == CHASE) {
      j += cwords[j / 4] + stride;  // the word read (0) feeds the next address: a dependent chain
      if (j >= total) j -= total;
      v = j;
    }
    acc = acc * 3 + v;
  }
  long long t1 = clock64();
  if ((threadIdx.x & 31) == 0) out[threadIdx.x / 32] = t1 - t0;
  if (acc == 1) sink[0] = acc;
}

typedef void (*K)(int, unsigned, unsigned, unsigned, unsigned *, long long *);
static const K kernels[] = {ldc<BASE>, ldc<CHASE>};

struct Config {
  int mode, lines, stride, apart;
};

int main(int argc, char **argv) {
  bool ncu = argc > 1 && !strcmp(argv[1], "ncu");
  std::vector<Config> configs;
  configs.push_back({BASE, 0, 0, 1});
  for (int stride : {64, 128, 256})
    for (int lines : {1, 2, 4, 8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512})
      if (lines * stride <= WORDS * 4) configs.push_back({CHASE, lines, stride, 1});
  for (int apart : {2, 4, 8, 16, 32}) configs.push_back({CHASE, 32, 64, apart});
  unsigned *sink = nullptr;
  long long *out = nullptr;
  CK(cudaMalloc(&sink, 4096));
  CK(cudaMalloc(&out, 32 * sizeof(long long)));
  const int iters = 1024;
  printf(ncu ? "mode,lines,stride,apart,warps,iters\n"
             : "mode,lines,stride,apart,warps,iters,cycles_per_iter_med\n");
  static unsigned h_words[WORDS];  // zeros
  CK(cudaMemcpyToSymbol(cwords, h_words, sizeof h_words));
  for (const Config &c : configs) {
    if (ncu && !(c.mode == BASE || (c.apart == 1 && (c.lines == 1 || c.lines == 64) &&
                                    c.stride == 128) ||
                 (c.apart == 32)))
      continue;
    unsigned total = (unsigned)(c.lines * c.stride);
    for (int w : {1, 2, 4, 8, 16, 32}) {
      if ((ncu || c.mode == CHASE && c.lines != 1 && c.lines != 64) && w != 1 && w != 32)
        continue;
      std::vector<long long> h(w);
      for (int rep = 0; rep < (ncu ? 1 : 3); rep++) {
        kernels[c.mode]<<<1, 32 * w>>>(iters, c.apart, (unsigned)c.stride, total, sink, out);
        CK(cudaDeviceSynchronize());
        CK(cudaGetLastError());
      }
      if (ncu) {
        printf("%s,%d,%d,%d,%d,%d\n", mode_names[c.mode], c.lines, c.stride, c.apart, w, iters);
        continue;
      }
      CK(cudaMemcpy(h.data(), out, w * sizeof(long long), cudaMemcpyDeviceToHost));
      std::sort(h.begin(), h.end());
      printf("%s,%d,%d,%d,%d,%d,%.2f\n", mode_names[c.mode], c.lines, c.stride, c.apart, w, iters,
             (double)h[w / 2] / iters);
      fflush(stdout);
    }
  }
  return 0;
}
