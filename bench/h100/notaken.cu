// What a branch around a block no lane runs costs: each warp runs a loop of 4 dependent FFMAs
// an iteration (`#pragma unroll 1`), and in variants an `if` around a block that never runs, on
// a predicate that is
//   base      (none: the loop alone)
//   param     a kernel parameter's (the same for every thread)
//   warp      the warp's index (the same for the warp's lanes, in a vector register)
//   lane      the lane's own running value (may differ between lanes)
// The skipped block is a loop of its own, so the compiler branches around it rather than
// predicating it: in the SASS that ran (notaken.sass.gz) each iteration takes a forward
// `@P1 BRA` over the block and then the loop's branch back, inside BSSY / BSYNC for `warp` and
// `lane`; it also reads the loop's bound and the parameter from the constant bank (LDC) every
// iteration but in `base`.  One block of W = 1, 4 or 32 warps on one SM; lane 0 of each warp
// reads clock64() around its loop.
//
//   notaken time   CSV: variant, warps, iters, cycles_per_iter_med, cycles_per_iter_max
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

enum { BASE, PARAM, WARP, LANE };

template <int V>
__global__ void
notaken(int iters, float c, int never, long long *spans, float *sink)
{
  int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  float x = (float)threadIdx.x;
  long long t0 = clock64();
#pragma unroll 1
  for (int i = 0; i < iters; i++) {
#pragma unroll
    for (int u = 0; u < 4; u++)
      x = x * c + c;
    bool take = V == PARAM  ? never == i + 12345
                : V == WARP ? warp == never + i
                : V == LANE ? x == (float)never
                            : false;
    if (V != BASE && take) {
#pragma unroll 1
      for (int k = 0; k < never; k++)
        x = x * 0.5f + sink[k & 7];
      sink[lane] = x;
    }
  }
  long long t1 = clock64();
  if (x == 1.2345f)
    *sink = x;
  if (lane == 0)
    spans[blockIdx.x * 32 + warp] = t1 - t0;
}

typedef void (*Kern)(int, float, int, long long *, float *);

int
main(int argc, char **argv)
{
  if (argc < 2 || strcmp(argv[1], "time")) {
    fprintf(stderr, "usage: notaken time\n");
    return 2;
  }
  struct {
    const char *name;
    Kern k;
  } vs[] = {{"base", notaken<BASE>}, {"param", notaken<PARAM>}, {"warp", notaken<WARP>},
            {"lane", notaken<LANE>}};
  long long *spans;
  float *sink;
  CK(cudaMalloc(&spans, 32 * sizeof(long long)));
  CK(cudaMalloc(&sink, 64 * sizeof(float)));
  CK(cudaMemset(sink, 0, 64 * sizeof(float)));
  const int iters = 1024;
  printf("variant,warps,iters,cycles_per_iter_med,cycles_per_iter_max\n");
  for (auto &v : vs)
    for (int w : {1, 4, 32}) {
      std::vector<long long> h(w);
      for (int r = 0; r < 3; r++) { /* the last of three kept */
        v.k<<<1, 32 * w>>>(iters, 1.0001f, 1 << 30, spans, sink);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
      }
      CK(cudaMemcpy(h.data(), spans, w * sizeof(long long), cudaMemcpyDeviceToHost));
      std::sort(h.begin(), h.end());
      printf("%s,%d,%d,%.2f,%.2f\n", v.name, w, iters, (double)h[w / 2] / iters,
             (double)h[w - 1] / iters);
    }
  return 0;
}
