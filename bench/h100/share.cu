// How two blocks on an SM share its schedulers, by the loop their warps run: where the older
// block goes first and where the two take turns.  Every warp runs the same loop and lane 0
// reads clock64() around it; blocks of W warps, two an SM resident from the start (80 KB of
// dynamic shared memory each), against one block of W warps alone (120 KB: one an SM), on all
// SMs.  blocks.cu found the FFMA loop of one FFMA and a branch shared and loops of a MUFU or
// an LDS and dependent FADDs older-first; here the loop is one chain of A dependent FADDs and
// its branch, A = 1 to 32, so only the instructions between two branches change.
//
//   share          prints CSV: one row per configuration
//
// Loops (each thread, iters iterations):
//   chain  A dependent FADDs, x = x + c (the loop counter in a uniform register: UIADD3,
//          FADD x A, ISETP, BRA)
//   ind    A FADDs in 4 independent chains of A / 4 (A = 8, 16)
//   vec    one FADD, the trip count the thread's own (iters ^ (tid & zmask), zmask = 0), so
//          that the counter and its compare are per thread: IADD3, FADD, ISETP, BRA
// Per configuration and per SM: each block's median over its warps of (end - start) / iters;
// the columns are the medians over SMs of the older block's (the one whose first warp started
// first) and the younger's, of the SM's span (first start to last end) over iters, of the
// younger block's first and last warp start after the older's first, and of the share of the
// younger block's warps that started before the older block's first warp ended.
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

struct SRec {
  long long c0, c1;
  int smid, pad;
};

__device__ __forceinline__ int smid()
{
  int s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}

enum { CHAIN, IND, VEC };

template <int KIND, int A>
__global__ void share(int iters, float c, unsigned zmask, SRec *out, float *sink)
{
  float x = (float)(threadIdx.x + 1), y = x + 1, z = x + 2, w = x + 3;
  long long c0 = clock64();
  if (KIND == VEC) {
    int n = iters ^ (int)(threadIdx.x & zmask);
#pragma unroll 1
    for (int i = 0; i < n; i++)
      x = x + c;
  } else {
#pragma unroll 1
    for (int i = 0; i < iters; i++) {
      if (KIND == CHAIN) {
#pragma unroll
        for (int a = 0; a < A; a++)
          x = x + c;
      } else {
#pragma unroll
        for (int a = 0; a < A / 4; a++) {
          x = x + c;
          y = y + c;
          z = z + c;
          w = w + c;
        }
      }
    }
  }
  long long c1 = clock64();
  if (x + y + z + w == 1.2345f)
    *sink = x;
  if ((threadIdx.x & 31) == 0) {
    int i = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    out[i] = SRec{c0, c1, smid(), 0};
  }
}

static double median(std::vector<double> v)
{
  if (v.empty())
    return -1;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

typedef void (*Kern)(int, float, unsigned, SRec *, float *);

int main()
{
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  struct K {
    const char *kind;
    int a;
    Kern k;
  } ks[] = {{"chain", 1, share<CHAIN, 1>},   {"chain", 2, share<CHAIN, 2>},
            {"chain", 3, share<CHAIN, 3>},   {"chain", 4, share<CHAIN, 4>},
            {"chain", 6, share<CHAIN, 6>},   {"chain", 8, share<CHAIN, 8>},
            {"chain", 12, share<CHAIN, 12>}, {"chain", 16, share<CHAIN, 16>},
            {"chain", 32, share<CHAIN, 32>}, {"ind", 8, share<IND, 8>},
            {"ind", 16, share<IND, 16>},     {"vec", 1, share<VEC, 1>}};
  for (const K &k : ks) {
    CK(cudaFuncSetAttribute(k.k, cudaFuncAttributeMaxDynamicSharedMemorySize, 122880));
    CK(cudaFuncSetAttribute(k.k, cudaFuncAttributePreferredSharedMemoryCarveout, 100));
  }
  int wpbs[] = {8, 16, 24, 32};
  SRec *d = nullptr;
  float *sink = nullptr;
  CK(cudaMalloc(&d, sizeof(SRec) * (size_t)sms * 64));
  CK(cudaMalloc(&sink, 64));
  printf("kind,a,iters,warps_per_block,blocks_per_sm,older_per_iter_med,younger_per_iter_med,"
         "span_per_iter_med,younger_first_start_med,younger_last_start_med,younger_early_med,"
         "sms_ok\n");
  for (const K &k : ks)
    for (int wpb : wpbs)
      for (int per_sm = 1; per_sm <= 2; per_sm++) {
        // about 100 000 cycles for one block of the chain alone
        int iters = std::max(256, (131072 / (4 * k.a + 25)) & ~63);
        int blocks = sms * per_sm, smem = per_sm == 1 ? 122880 : 81920;
        std::vector<SRec> h((size_t)blocks * wpb);
        for (int rep = 0; rep < 3; rep++) { // the first launches warm up; the last is kept
          CK(cudaMemset(d, 0, sizeof(SRec) * h.size()));
          k.k<<<blocks, wpb * 32, smem>>>(iters, 1.0001f, 0u, d, sink);
          CK(cudaGetLastError());
          CK(cudaDeviceSynchronize());
        }
        CK(cudaMemcpy(h.data(), d, sizeof(SRec) * h.size(), cudaMemcpyDeviceToHost));
        struct Blk {
          long long first = -1, last = 0, end = 0, first_end = -1;
          std::vector<double> per;
          std::vector<long long> starts;
        };
        std::vector<std::vector<Blk>> by_sm(1024);
        for (int b = 0; b < blocks; b++) {
          Blk B;
          int s = -1;
          for (int w = 0; w < wpb; w++) {
            const SRec &r = h[(size_t)b * wpb + w];
            s = r.smid;
            if (B.first < 0 || r.c0 < B.first)
              B.first = r.c0;
            B.last = std::max(B.last, r.c0);
            B.end = std::max(B.end, r.c1);
            if (B.first_end < 0 || r.c1 < B.first_end)
              B.first_end = r.c1;
            B.per.push_back((double)(r.c1 - r.c0) / iters);
            B.starts.push_back(r.c0);
          }
          if (s >= 0 && s < 1024)
            by_sm[s].push_back(B);
        }
        std::vector<double> older, younger, span, yfirst, ylast, yearly;
        int ok = 0;
        for (auto &v : by_sm) {
          if ((int)v.size() != per_sm)
            continue;
          ok++;
          std::sort(v.begin(), v.end(),
                    [](const Blk &a, const Blk &b) { return a.first < b.first; });
          older.push_back(median(v[0].per));
          long long end = v[0].end;
          if (per_sm == 2) {
            younger.push_back(median(v[1].per));
            yfirst.push_back((double)(v[1].first - v[0].first));
            ylast.push_back((double)(v[1].last - v[0].first));
            int early = 0;
            for (long long s0 : v[1].starts)
              early += s0 < v[0].first_end;
            yearly.push_back((double)early / wpb);
            end = std::max(end, v[1].end);
          }
          span.push_back((double)(end - v[0].first) / iters);
        }
        printf("%s,%d,%d,%d,%d,%.2f,%.2f,%.2f,%.0f,%.0f,%.2f,%d\n", k.kind, k.a, iters, wpb, per_sm,
               median(older), median(younger), median(span), median(yfirst), median(ylast),
               median(yearly), ok);
        fflush(stdout);
      }
  CK(cudaFree(d));
  CK(cudaFree(sink));
  return 0;
}
