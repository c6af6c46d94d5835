// Which warp a scheduler issues when the warp it was issuing cannot go on: warps of two kinds
// share each scheduler, and each records its own progress.
//
//   hog      a loop whose body is C independent chains of FMULs (C = 16: 16 FMULs in a row, or
//            C = 4: four chains, each FMUL waiting exactly for the one four before it) and the
//            loop's counter and branch, one iteration a body (loop `one`: the compiler marks only
//            the body's last FMUL to yield), or C = 16 unrolled by the compiler (loop `unrolled`:
//            four iterations a body, none of them marked to yield, as in stq.cu's loops); the
//            warp can issue every cycle until its branch
//   yielder  a loop of one chain of 16 dependent FMULs, each marked to yield (its stall count
//            covers the FMUL's latency): it can issue one instruction in four cycles
//
// One block of 4 n warps on one SM (n warps a scheduler, warps w, w + 4, ... on scheduler w % 4);
// warp w is a hog where bit w / 4 of the mask is set.  Each warp runs 16 steps of `iters`
// iterations of its loop and reads the clock after each step into shared memory (the steps are
// one loop: after the first, every instruction comes from a warm instruction cache).  Every
// configuration is launched once to warm up, then three times.  (A first version unrolled the
// steps and kept the reads in registers, so that each step ran code new to the instruction
// cache: its rows and SASS are raw/turns-cold.csv.gz and raw/turns-cold.sass.gz.)
//
//   turns       CSV: n, mask, chains, loop, iters, run, warp, role, t0, s1 ... s16 (cycles from
//               the block's first t0: t0 before the first step, sK after step K)
//   turns ncu   one launch of nine of them, for Nsight Compute (warp states, Source page)
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

enum { STEPS = 16 };

/* rec: 1 + STEPS words a warp (t0, s1 ... s16) */
template <int C, int U>
__global__ void turns(float *out, unsigned *rec, unsigned mask, int iters, float x)
{
  __shared__ unsigned t[32][1 + STEPS];
  int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  float v[16];
#pragma unroll
  for (int k = 0; k < 16; k++)
    v[k] = x + k + lane;
  bool hog = (mask >> (warp >> 2)) & 1;
  t[warp][0] = (unsigned)clock();
  if (hog) {
#pragma unroll 1
    for (int s = 1; s <= STEPS; s++) {
      if (U) { /* the compiler's unrolling: four iterations a body, none marked to yield */
        for (int i = 0; i < iters; i++) {
#pragma unroll
          for (int k = 0; k < 16; k++)
            v[k % C] = v[k % C] * 1.0001f;
        }
      } else {
#pragma unroll 1
        for (int i = 0; i < iters; i++) {
#pragma unroll
          for (int k = 0; k < 16; k++)
            v[k % C] = v[k % C] * 1.0001f;
        }
      }
      t[warp][s] = (unsigned)clock(); /* every lane the same word: one store */
    }
  } else {
#pragma unroll 1
    for (int s = 1; s <= STEPS; s++) {
#pragma unroll 1
      for (int i = 0; i < iters; i++) {
#pragma unroll
        for (int k = 0; k < 16; k++)
          v[0] = v[0] * 1.0001f;
      }
      t[warp][s] = (unsigned)clock();
    }
  }
  float sum = 0;
#pragma unroll
  for (int k = 0; k < 16; k++)
    sum += v[k];
  out[threadIdx.x] = sum;
  __syncwarp();
  if (lane <= STEPS)
    rec[warp * (1 + STEPS) + lane] = t[warp][lane];
}

static void
launch(int chains, int unrolled, int n, unsigned mask, int iters, float *out, unsigned *rec)
{
  if (unrolled)
    turns<16, 1><<<1, 128 * n>>>(out, rec, mask, iters, 1.0f);
  else if (chains == 16)
    turns<16, 0><<<1, 128 * n>>>(out, rec, mask, iters, 1.0f);
  else
    turns<4, 0><<<1, 128 * n>>>(out, rec, mask, iters, 1.0f);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
}

int
main(int argc, char **argv)
{
  float *out;
  unsigned *rec;
  CK(cudaMalloc(&out, 1024 * sizeof(float)));
  CK(cudaMalloc(&rec, 32 * (1 + STEPS) * sizeof(unsigned)));
  const int iters = 8;
  if (argc > 1 && !strcmp(argv[1], "ncu")) { /* one launch of each, for Nsight Compute */
    struct {
      int n;
      unsigned mask;
      int unrolled;
    } runs[] = {{1, 1, 0}, {2, 1, 0}, {4, 1, 0}, {8, 1, 0},    {8, 1, 1},
                {8, 0xff, 0}, {8, 0xff, 1}, {8, 0, 0}, {4, 0xf, 1}};
    printf("n,mask,chains,loop\n");
    for (auto &r : runs) {
      launch(16, r.unrolled, r.n, r.mask, iters, out, rec);
      printf("%d,0x%x,16,%s\n", r.n, r.mask, r.unrolled ? "unrolled" : "one");
    }
    return 0;
  }
  struct {
    int n;
    std::vector<unsigned> masks;
  } sets[] = {{1, {1, 0}},
              {2, {3, 0, 1, 2}},
              {3, {7, 0, 1, 4}},
              {4, {0xf, 0, 1, 8, 3, 0xc}},
              {8, {0xff, 0, 1, 0x80, 0xf, 0xf0, 0x55}}};
  printf("n,mask,chains,loop,iters,run,warp,role,t0");
  for (int s = 1; s <= STEPS; s++)
    printf(",s%d", s);
  printf("\n");
  for (auto &set : sets)
    for (unsigned mask : set.masks)
      for (int v = 0; v < 3; v++) {
        int chains = v == 1 ? 4 : 16, unrolled = v == 2;
        if (mask == 0 && v)
          continue; /* no hog: its loop does not matter */
        for (int run = -1; run < 3; run++) {
          launch(chains, unrolled, set.n, mask, iters, out, rec);
          if (run < 0)
            continue;
          int w = 4 * set.n;
          std::vector<unsigned> h(w * (1 + STEPS));
          CK(cudaMemcpy(h.data(), rec, h.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
          unsigned first = h[0];
          for (int i = 1; i < w; i++)
            if ((int)(h[i * (1 + STEPS)] - first) < 0)
              first = h[i * (1 + STEPS)];
          for (int i = 0; i < w; i++) {
            printf("%d,0x%x,%d,%s,%d,%d,%d,%s", set.n, mask, chains, unrolled ? "unrolled" : "one",
                   iters, run, i,
                   (mask >> (i / 4)) & 1 ? "hog" : "yielder");
            for (int s = 0; s <= STEPS; s++)
              printf(",%d", (int)(h[i * (1 + STEPS) + s] - first));
            printf("\n");
          }
        }
      }
  CK(cudaFree(out));
  CK(cudaFree(rec));
  return 0;
}
