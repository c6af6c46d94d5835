// What reading a special register and an untaken branch cost a warp: the S2R of a kernel's
// prologue (the thread's index, the block's, the SM's number) and the branch around code that
// never runs, each in a loop of `iters` iterations whose running value feeds on it, against the
// same loop without it.  One block of 1 to 32 warps on one SM; each warp's first lane records
// its cycles (clock64()) around the loop.
//
//   sreg             prints CSV: mode, warps, iterations, median cycles an iteration over warps
//   sreg ncu         one launch of each mode at 1 and 32 warps, for Nsight Compute
//
// Modes: base (acc = acc * 3 + i), tid (+ %tid.x: S2R SR_TID.X), ctaid (%ctaid.x), smid
// (%smid), clock (%clock: CS2R), untaken (base, and a branch around a loop of stores that no
// warp takes).
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

enum { BASE, TID, CTAID, SMID, CLOCK, UNTAKEN, N_MODES };
static const char *mode_names[] = {"base", "tid", "ctaid", "smid", "clock", "untaken"};

template <int MODE>
__global__ void sreg(int iters, int n, unsigned *sink, long long *out) {
  unsigned acc = threadIdx.x;
  long long t0 = clock64();
#pragma unroll 1
  for (int i = 0; i < iters; i++) {
    unsigned v = i;
    if (MODE == TID) asm volatile("mov.u32 %0, %%tid.x;" : "=r"(v));
    if (MODE == CTAID) asm volatile("mov.u32 %0, %%ctaid.x;" : "=r"(v));
    if (MODE == SMID) asm volatile("mov.u32 %0, %%smid;" : "=r"(v));
    if (MODE == CLOCK) asm volatile("mov.u32 %0, %%clock;" : "=r"(v));
    if (MODE == UNTAKEN && acc == 0x7fffffffu)
      for (int j = 0; j < n; j++) sink[j] = acc + j;  // never: no lane's acc is that
    acc = acc * 3 + v;
  }
  long long t1 = clock64();
  if ((threadIdx.x & 31) == 0) out[threadIdx.x / 32] = t1 - t0;
  if (acc == 1) sink[0] = acc;
}

typedef void (*K)(int, int, unsigned *, long long *);
static const K kernels[] = {sreg<BASE>, sreg<TID>, sreg<CTAID>, sreg<SMID>, sreg<CLOCK>,
                            sreg<UNTAKEN>};

int main(int argc, char **argv) {
  bool ncu = argc > 1 && !strcmp(argv[1], "ncu");
  unsigned *sink = nullptr;
  long long *out = nullptr;
  CK(cudaMalloc(&sink, 4096));
  CK(cudaMalloc(&out, 32 * sizeof(long long)));
  const int iters = 1024;
  printf(ncu ? "mode,warps,iters\n" : "mode,warps,iters,cycles_per_iter_med\n");
  for (int m = 0; m < N_MODES; m++)
    for (int w : {1, 2, 4, 8, 16, 32}) {
      if (ncu && w != 1 && w != 32) continue;
      std::vector<long long> h(w);
      for (int rep = 0; rep < (ncu ? 1 : 3); rep++) {
        kernels[m]<<<1, 32 * w>>>(iters, 16, sink, out);
        CK(cudaDeviceSynchronize());
        CK(cudaGetLastError());
      }
      if (ncu) {
        printf("%s,%d,%d\n", mode_names[m], w, iters);
        continue;
      }
      CK(cudaMemcpy(h.data(), out, w * sizeof(long long), cudaMemcpyDeviceToHost));
      std::sort(h.begin(), h.end());
      printf("%s,%d,%d,%.2f\n", mode_names[m], w, iters, (double)h[w / 2] / iters);
      fflush(stdout);
    }
  return 0;
}
