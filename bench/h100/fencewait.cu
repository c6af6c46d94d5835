// What a __threadfence() (MEMBAR.SC.GPU) waits for: its own SM's stores only, or the stores of
// the whole GPU.  One warp on one SM (the fencer, block 0) does no stores of its own: it spins
// until `delay` cycles after its start, reads the clock, fences, reads the clock again.  The other
// 131 blocks (one an SM: 8 warps each) store meanwhile, each warp `iters` times into `lines`
// distinct lines of one partial sector (its 32 lanes 4 bytes each, as mempipe.cu's lines
// experiment: `l2`, a 4 MiB window the L2 keeps; `dram`, fresh lines of a 4 GiB buffer after a
// flush of the L2), or do nothing (`none`).  Every block records its SM, and its first and last
// warp's %globaltimer at start and end, so the fence's end can be set against the stores' end.
//
//   fencewait      CSV: store, lines, delay, run, fence_cycles (the fencer's clock after the
//                  fence less before), fence_start_ns, fence_end_ns (globaltimer, from the first
//                  storer's start), stores_end_ns (the last storer's end), storer_loop_cycles
//                  (the median storer warp's loop)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                                    \
  do {                                                                                           \
    cudaError_t e_ = (x);                                                                        \
    if (e_ != cudaSuccess) {                                                                     \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));               \
      exit(1);                                                                                   \
    }                                                                                            \
  } while (0)

static constexpr size_t L2WIN_LINES = (4u << 20) / 128;
enum { NONE, L2, DRAM };

__device__ __forceinline__ unsigned long long gtime() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

struct Rec {  // a storer warp's, or the fencer's
  long long c0, c1;          // clock64 before and after (the fencer: around the fence)
  unsigned long long g0, g1;  // globaltimer likewise
};

__global__ void __launch_bounds__(256, 1)
fencewait(char *buf, int store, int lines, int iters, long long delay, Rec *rec) {
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (blockIdx.x == 0) {
    if (warp != 0) return;
    long long s = clock64();
    while (clock64() - s < delay) {
    }
    unsigned long long g0 = gtime();
    long long c0 = clock64();
    __threadfence();
    long long c1 = clock64();
    unsigned long long g1 = gtime();
    if (lane == 0) rec[0] = Rec{c0, c1, g0, g1};
    return;
  }
  size_t gw = (size_t)(blockIdx.x - 1) * (blockDim.x >> 5) + warp;
  size_t tw = (size_t)(gridDim.x - 1) * (blockDim.x >> 5);
  unsigned line_of = lane % lines, k = lane / lines;
  unsigned lb = line_of * 128 + k * 4;
  unsigned long long g0 = gtime();
  long long c0 = clock64();
  if (store != NONE) {
#pragma unroll 1
    for (int it = 0; it < iters; it++) {
      size_t first = ((size_t)it * tw + gw) * lines;
      if (store == L2) first %= L2WIN_LINES;
      *(unsigned *)(buf + first * 128 + lb) = (unsigned)it;
    }
  }
  long long c1 = clock64();
  unsigned long long g1 = gtime();
  if (lane == 0) rec[1 + gw] = Rec{c0, c1, g0, g1};
}

__global__ void flush(float *f, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    f[i] += 1.f;
}

int main() {
  int sms;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int blocks = sms, per = 8, warps = (blocks - 1) * per;
  // one block an SM: more shared memory than two blocks could have
  size_t smem = 120 * 1024;
  CK(cudaFuncSetAttribute(fencewait, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  const size_t bytes = (size_t)4 << 30;
  char *buf;
  CK(cudaMalloc(&buf, bytes));
  CK(cudaMemset(buf, 0, bytes));
  const size_t fl_n = (size_t)128 << 20 >> 2;
  float *fl;
  CK(cudaMalloc(&fl, fl_n * 4));
  Rec *d_rec;
  CK(cudaMalloc(&d_rec, (1 + warps) * sizeof(Rec)));
  std::vector<Rec> rec(1 + warps);
  printf("store,lines,delay,run,fence_cycles,fence_start_ns,fence_end_ns,stores_end_ns,"
         "storer_loop_cycles\n");
  const char *names[] = {"none", "l2", "dram"};
  struct Cfg { int store, lines, iters; };
  const Cfg cfgs[] = {{NONE, 1, 0},   {L2, 1, 64},   {L2, 32, 64},  {DRAM, 1, 64},
                      {DRAM, 16, 64}, {DRAM, 32, 64}};
  const long long delays[] = {0, 2000, 8000, 32000, 200000};
  for (const Cfg &c : cfgs)
    for (long long d : delays)
      for (int run = 0; run < 4; run++) {  // the first a warm-up, not printed
        if (c.store == DRAM) flush<<<sms * 4, 512>>>(fl, fl_n);
        fencewait<<<blocks, 32 * per, smem>>>(buf, c.store, c.lines, c.iters, d, d_rec);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        if (run == 0) continue;
        CK(cudaMemcpy(rec.data(), d_rec, rec.size() * sizeof(Rec), cudaMemcpyDeviceToHost));
        unsigned long long g_first = ~0ull, g_last = 0;
        std::vector<long long> loop;
        for (int w = 1; w <= warps; w++) {
          g_first = std::min(g_first, rec[w].g0);
          g_last = std::max(g_last, rec[w].g1);
          loop.push_back(rec[w].c1 - rec[w].c0);
        }
        std::sort(loop.begin(), loop.end());
        const Rec &f = rec[0];
        printf("%s,%d,%lld,%d,%lld,%lld,%lld,%lld,%lld\n", names[c.store], c.lines, d, run - 1,
               f.c1 - f.c0, (long long)(f.g0 - g_first), (long long)(f.g1 - g_first),
               (long long)(g_last - g_first), loop[loop.size() / 2]);
        fflush(stdout);
      }
  return 0;
}
