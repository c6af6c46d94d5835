// Which warp a scheduler issues when several can: each warp of one block runs K independent
// chains of FMULs (the compiler's stall count 1 and no yield between them, as in stq.cu's loop)
// for `iters` iterations, lane 0 reading clock64() before and after its loop.  Round robin
// among the ready warps ends every warp's loop at about the same time; a scheduler that keeps
// the warp it issued last (greedy) ends them in turn, the first after about a W-th of the last's
// span.  One block of W warps on one SM (W = 4 to 32, 17 and 20: five warps on some
// schedulers), K = 1 (one dependent chain: latency bound) to 8.
//
//   order time   CSV: k, warps, run, warp, start, end (each warp's clock reads, cycles after
//                the block's first; 3 launches after a warm-up)
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

template <int K>
__global__ void order(float *out, int iters, long long *marks, float x)
{
  int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  float v[K];
#pragma unroll
  for (int k = 0; k < K; k++)
    v[k] = x + k + lane;
  long long t0 = clock64();
  for (int i = 0; i < iters; i++) {
#pragma unroll
    for (int k = 0; k < K; k++)
      v[k] = v[k] * 1.0001f;
  }
  long long t1 = clock64();
  float s = 0.0f;
#pragma unroll
  for (int k = 0; k < K; k++)
    s += v[k];
  out[threadIdx.x] = s;
  if (lane == 0) {
    marks[2 * warp] = t0;
    marks[2 * warp + 1] = t1;
  }
}

static const int KS[] = {1, 2, 4, 8};
static const int WS[] = {4, 5, 8, 16, 17, 20, 32};

static void
launch(int k, int warps, int iters, float *out, long long *marks)
{
  dim3 grid(1), block(32 * warps);
  switch (k) {
  case 1: order<1><<<grid, block>>>(out, iters, marks, 1.0f); break;
  case 2: order<2><<<grid, block>>>(out, iters, marks, 1.0f); break;
  case 4: order<4><<<grid, block>>>(out, iters, marks, 1.0f); break;
  case 8: order<8><<<grid, block>>>(out, iters, marks, 1.0f); break;
  }
  CK(cudaGetLastError());
}

int
main(int argc, char **argv)
{
  if (argc < 2 || strcmp(argv[1], "time")) {
    fprintf(stderr, "usage: order time\n");
    return 2;
  }
  float *out;
  long long *marks;
  CK(cudaMalloc(&out, 1024 * sizeof(float)));
  CK(cudaMalloc(&marks, 2 * 32 * sizeof(long long)));
  const int iters = 256;
  printf("k,warps,iters,run,warp,start,end\n");
  for (int warps : WS)
    for (int k : KS) {
      launch(k, warps, iters, out, marks); /* warm-up */
      CK(cudaDeviceSynchronize());
      for (int r = 0; r < 3; r++) {
        launch(k, warps, iters, out, marks);
        CK(cudaDeviceSynchronize());
        std::vector<long long> m(2 * warps);
        CK(cudaMemcpy(m.data(), marks, m.size() * sizeof(long long), cudaMemcpyDeviceToHost));
        long long first = m[0];
        for (int w = 0; w < warps; w++)
          first = std::min(first, m[2 * w]);
        for (int w = 0; w < warps; w++)
          printf("%d,%d,%d,%d,%d,%lld,%lld\n", k, warps, iters, r, w, m[2 * w] - first,
                 m[2 * w + 1] - first);
      }
    }
  return 0;
}
