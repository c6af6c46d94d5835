// What a scheduler's front end (fetch after a taken branch) costs warps that share it: loop.cu's
// loop of one FFMA (a counter, FFMA, compare, taken branch back: 4 instructions, one branch
// taken each) run by 1 to 8 warps a scheduler, and variants of it that each change one thing:
//
//   same    every warp runs the same copy of the loop (loop.cu's U = 1, written in PTX)
//   copies  warp w runs copy (w / 4) % 8 of eight copies of the loop at different addresses: the
//           warps of one scheduler (w % 4) each run their own code
//   flat    the same 4 instructions a step, but the branch of each step is not taken (it leaves
//           the loop once the count is reached): 16 steps, then one taken branch back
//   pad     the loop with 4 more independent FFMAs an iteration (8 instructions, one branch)
//   mixed   warps (w / 4) odd chase lines through memory (a dependent load of a new line a step,
//           n / 4 steps over a zeroed 4 MB window: they wait on memory throughout), the others
//           run the loop: whether warps waiting on memory take part in the fetch's turns
//           (copy 0: the loop's warps, copy 1: the chasers)
//
// `sched`: all four schedulers' warps run (4 x W warps a block), or only scheduler 0's (warps
// w % 4 != 0 of the same block leave at once): whether what warps cost each other is the
// scheduler's or the SM's.  One block an SM (120 KB of dynamic shared memory), on all SMs.  Lane 0
// of each warp reads clock64() around its 1 024 steps.
//
//   front          prints CSV: variant, sched, warps_per_sched, steps, the median over running
//                  warps of cycles a step, the largest, and the median of each copy's warps
//   front ncu      each configuration of 1, 4 and 8 warps a scheduler once (Nsight Compute)
//   front src      each variant at 8 warps a scheduler, all four schedulers, once (Nsight's
//                  Source page)
//   front MODE V   the same for variant V alone
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

struct FRec {
  long long c0, c1;
  int copy, ran;
};

struct Consts {
  float c[8];
};

// The loop of one FFMA: a counter, the FFMA, the compare and the branch back.
#define LOOP1(C)                                                                                   \
  asm volatile("{\n\t.reg .pred p;\n\t.reg .s32 i;\n\tmov.s32 i, 0;\n"                             \
               "TOP:\n\tadd.s32 i, i, 1;\n\tfma.rn.f32 %0, %0, %1, %1;\n\t"                        \
               "setp.lt.s32 p, i, %2;\n\t@p bra.uni TOP;\n\t}"                                     \
               : "+f"(x)                                                                           \
               : "f"(C), "r"(n))

#define STEP                                                                                       \
  "add.s32 i, i, 1;\n\tfma.rn.f32 %0, %0, %1, %1;\n\tsetp.ge.s32 p, i, %2;\n\t@p bra.uni DONE;\n\t"

template <int V>
__global__ void front(int n, Consts k, int spread, int one_sched, FRec *out, float *sink) {
  int w = threadIdx.x >> 5;
  if (one_sched && (w & 3) != 0) return;
  int copy = V == 3 ? (w >> 2) & 1 : spread ? (w >> 2) & 7 : 0;
  float x = (float)threadIdx.x, y0 = x + 1, y1 = x + 2, y2 = x + 3, y3 = x + 4;
  long long c0 = clock64();
  if (V == 0) {
    switch (copy) {
    case 0: LOOP1(k.c[0]); break;
    case 1: LOOP1(k.c[1]); break;
    case 2: LOOP1(k.c[2]); break;
    case 3: LOOP1(k.c[3]); break;
    case 4: LOOP1(k.c[4]); break;
    case 5: LOOP1(k.c[5]); break;
    case 6: LOOP1(k.c[6]); break;
    default: LOOP1(k.c[7]); break;
    }
  } else if (V == 1) {
    asm volatile("{\n\t.reg .pred p;\n\t.reg .s32 i;\n\tmov.s32 i, 0;\nTOP:\n\t" STEP STEP STEP STEP
                 STEP STEP STEP STEP STEP STEP STEP STEP STEP STEP STEP STEP
                 "bra.uni TOP;\nDONE:\n\t}"
                 : "+f"(x)
                 : "f"(k.c[0]), "r"(n));
  } else if (V == 3) {
    if (copy) {
      const unsigned *m = (const unsigned *)sink;
      unsigned idx = 0;
      for (int i = 0; i < n / 4; i++)
        idx = m[(idx + (unsigned)i * 32u + (threadIdx.x & 31)) & ((1u << 20) - 1)];
      x += (float)idx;
    } else {
      LOOP1(k.c[0]);
    }
  } else {
    asm volatile("{\n\t.reg .pred p;\n\t.reg .s32 i;\n\tmov.s32 i, 0;\n"
                 "TOP:\n\tadd.s32 i, i, 1;\n\tfma.rn.f32 %0, %0, %5, %5;\n\t"
                 "fma.rn.f32 %1, %1, %5, %5;\n\tfma.rn.f32 %2, %2, %5, %5;\n\t"
                 "fma.rn.f32 %3, %3, %5, %5;\n\tfma.rn.f32 %4, %4, %5, %5;\n\t"
                 "setp.lt.s32 p, i, %6;\n\t@p bra.uni TOP;\n\t}"
                 : "+f"(x), "+f"(y0), "+f"(y1), "+f"(y2), "+f"(y3)
                 : "f"(k.c[0]), "r"(n));
  }
  long long c1 = clock64();
  if (x + y0 + y1 + y2 + y3 == 1.2345f) *sink = x;
  if ((threadIdx.x & 31) == 0) out[blockIdx.x * 32 + w] = FRec{c0, c1, copy, 1};
}

typedef void (*Kern)(int, Consts, int, int, FRec *, float *);

static double median(std::vector<double> v) {
  if (v.empty()) return -1;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main(int argc, char **argv) {
  bool src = argc > 1 && strcmp(argv[1], "src") == 0;
  bool ncu = src || (argc > 1 && strcmp(argv[1], "ncu") == 0);
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  struct V {
    const char *name;
    Kern k;
    int spread;
  } vs[] = {{"same", front<0>, 0}, {"copies", front<0>, 1}, {"flat", front<1>, 0},
            {"pad", front<2>, 0}, {"mixed", front<3>, 0}};
  for (const V &v : vs)
    CK(cudaFuncSetAttribute(v.k, cudaFuncAttributeMaxDynamicSharedMemorySize, 122880));
  Consts k;
  for (int j = 0; j < 8; j++) k.c[j] = 1.0001f + j * 1e-6f;
  const int n = 1024;
  FRec *d = nullptr;
  float *sink = nullptr;
  CK(cudaMalloc(&d, sizeof(FRec) * (size_t)sms * 32));
  CK(cudaMalloc(&sink, 4u << 20)); /* also the chasers' zeroed window */
  CK(cudaMemset(sink, 0, 4u << 20));
  printf(ncu ? "variant,sched,warps_per_sched,steps\n"
             : "variant,sched,warps_per_sched,steps,cycles_per_step_med,cycles_per_step_max,"
               "copy0,copy1,copy2,copy3,copy4,copy5,copy6,copy7\n");
  const char *only = argc > 2 ? argv[2] : nullptr; /* one variant's configurations */
  for (const V &v : vs)
    for (int one = 0; one < 2; one++)
      for (int wps = 1; wps <= 8; wps++) {
        if (ncu && wps != 1 && wps != 4 && wps != 8) continue;
        if (v.k == front<3> && (wps % 2 || one)) continue; /* two warps a scheduler and up */
        if (only && strcmp(only, v.name)) continue;
        if (src && (wps != 8 || one)) continue;
        int warps = 4 * wps;
        std::vector<FRec> h((size_t)sms * 32);
        for (int rep = ncu ? 2 : 0; rep < 3; rep++) {  // two launches warm up; the last is kept
          CK(cudaMemset(d, 0, sizeof(FRec) * h.size()));
          v.k<<<sms, warps * 32, 122880>>>(n, k, v.spread, one, d, sink);
          CK(cudaGetLastError());
          CK(cudaDeviceSynchronize());
        }
        if (ncu) {
          printf("%s,%s,%d,%d\n", v.name, one ? "one" : "all", wps, n);
          continue;
        }
        CK(cudaMemcpy(h.data(), d, sizeof(FRec) * h.size(), cudaMemcpyDeviceToHost));
        std::vector<double> per, by_copy[8];
        double mx = 0;
        for (const FRec &r : h) {
          if (!r.ran) continue;
          double p = (double)(r.c1 - r.c0) / n;
          per.push_back(p);
          by_copy[r.copy & 7].push_back(p);
          mx = std::max(mx, p);
        }
        printf("%s,%s,%d,%d,%.2f,%.2f", v.name, one ? "one" : "all", wps, n, median(per), mx);
        for (int j = 0; j < 8; j++) printf(",%.2f", median(by_copy[j]));
        printf("\n");
        fflush(stdout);
      }
  CK(cudaFree(d));
  CK(cudaFree(sink));
  return 0;
}
