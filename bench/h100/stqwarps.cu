// In what order warps' stores get through an SM's LD/ST path: stq.cu's kernel (each warp runs K
// independent chains of FMULs for `iters` iterations, then issues K independent stores of 32
// lines back to back, one partial sector a line), recording each warp's own clock reads rather
// than their difference, so that a warp's start and end can be set beside the others' of its
// block.  Two variants:
//
//   plain  stq.cu's kernel, its two clock reads written as they are (t0 before the loop, t1 after
//          the stores: t1 waits until the LD/ST path has read the last store's registers)
//   mark   a third clock read between the loop and the stores (tl: when the warp left its loop)
//
// One block of W warps on 1 SM or on all 132 (the rows give block 0's warps), iters 64 (stq.cu's)
// or 8 (loops short beside the stores), three launches after a warm-up.
//
//   stqwarps   CSV: variant, k, warps, sms, iters, run, warp, t0, tl, t1 (cycles from the
//              block's first t0; tl empty for plain)
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

/* rec: three words a warp (t0, tl, t1) */
template <int K, int MARK>
__global__ void stqw(float *g, int iters, long long *rec, float x)
{
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
  float *p = g + (size_t)(warp % 64) * K * 32 * 32 + lane * 32;
  float v[K];
#pragma unroll
  for (int k = 0; k < K; k++)
    v[k] = x + k + lane;
  long long t0 = clock64(), tl = 0;
  if (!MARK) { /* stq.cu's loop: the compiler keeps the last iteration's stores, after it */
    for (int i = 0; i < iters; i++) {
#pragma unroll
      for (int k = 0; k < K; k++)
        p[k * 32 * 32] = v[k];
#pragma unroll
      for (int k = 0; k < K; k++)
        v[k] = v[k] * 1.0001f;
    }
  } else { /* the same stores of the same values, a clock read before them */
    for (int i = 0; i < iters - 1; i++) {
#pragma unroll
      for (int k = 0; k < K; k++)
        v[k] = v[k] * 1.0001f;
    }
    tl = clock64();
#pragma unroll
    for (int k = 0; k < K; k++)
      p[k * 32 * 32] = v[k];
  }
  long long t1 = clock64();
  if (lane == 0) {
    rec[3 * warp] = t0;
    if (MARK)
      rec[3 * warp + 1] = tl;
    rec[3 * warp + 2] = t1;
  }
}

static const int KS[] = {1, 2, 4, 8, 16};
static const int WS[] = {4, 8, 16, 32};
static const int SMS[] = {1, 132};
static const int ITERS[] = {64, 8};

#define CASE(k)                                                                                  \
  case k:                                                                                        \
    if (mark)                                                                                    \
      stqw<k, 1><<<grid, block>>>(g, iters, rec, 1.0f);                                          \
    else                                                                                         \
      stqw<k, 0><<<grid, block>>>(g, iters, rec, 1.0f);                                          \
    break

static void
launch(bool mark, int k, int warps, int sms, int iters, float *g, long long *rec)
{
  dim3 grid(sms), block(32 * warps);
  switch (k) {
    CASE(1);
    CASE(2);
    CASE(4);
    CASE(8);
    CASE(16);
  }
  CK(cudaGetLastError());
}

int
main()
{
  float *g;
  long long *rec;
  CK(cudaMalloc(&g, (size_t)64 * 16 * 32 * 32 * sizeof(float) + 4096));
  CK(cudaMalloc(&rec, 3 * 132 * 32 * sizeof(long long)));
  printf("variant,k,warps,sms,iters,run,warp,t0,tl,t1\n");
  for (int mark = 0; mark < 2; mark++)
    for (int iters : ITERS)
      for (int sms : SMS)
        for (int warps : WS)
          for (int k : KS) {
            launch(mark, k, warps, sms, iters, g, rec); /* warm-up */
            CK(cudaDeviceSynchronize());
            for (int r = 0; r < 3; r++) {
              CK(cudaMemset(rec, 0, 3 * 132 * 32 * sizeof(long long)));
              launch(mark, k, warps, sms, iters, g, rec);
              CK(cudaDeviceSynchronize());
              std::vector<long long> s(3 * warps); /* block 0's warps */
              CK(cudaMemcpy(s.data(), rec, s.size() * sizeof(long long), cudaMemcpyDeviceToHost));
              long long first = s[0];
              for (int w = 0; w < warps; w++)
                first = std::min(first, s[3 * w]);
              for (int w = 0; w < warps; w++) {
                printf("%s,%d,%d,%d,%d,%d,%d,%lld,", mark ? "mark" : "plain", k, warps, sms, iters,
                       r, w, s[3 * w] - first);
                if (mark)
                  printf("%lld", s[3 * w + 1] - first);
                printf(",%lld\n", s[3 * w + 2] - first);
              }
            }
          }
  return 0;
}
