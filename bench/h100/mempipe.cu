// The H100's memory pipeline, one mechanism at a time (microbenchmarks, not kernels a user
// writes).  Each experiment prints CSV on stdout; bench/h100/README.md says what every column
// means and bench/h100/run.sh how they were run.
//
//   lines   a warp-load or a warp-store whose 32 lanes touch L = 1..32 distinct 128-byte lines
//           (`packed`: a line's lanes side by side, max(4, L) sectors; `spread`: a line's lanes
//           in different sectors first, min(32, 4L) sectors), hitting L1, L2 or DRAM; a chain
//           of dependent loads per warp (each address adds the value loaded before, which is
//           0), or a stream of independent stores; 1..64 warps per SM, one SM alone or all
//   drain   blocks of one warp that issue S stores of L lines each and exit: what the exit
//           waits for (time per block, against S = 0)
//   raw     a store and then a load of the same address, every iteration, by the same warp
//           (`same`), by the neighbouring warp (`other`), or of an address nobody stores
//           (`none`), in global and in shared memory
//   smem    shared-memory loads (a dependent chain with alpha FFMAs between) and stores (a
//           stream, alpha FFMAs between) of 4, 8 and 16 bytes a lane with 1..32-way bank
//           conflicts, 1..64 warps per SM
//   launch  an empty kernel, and grids of 1..8 x 132 blocks of short work: event times, the
//           kernel's span on the GPU's global timer, the gap between a block's end and the
//           next block's start on the same SM
//
// `mempipe EXPERIMENT` times every configuration (3 launches, the last 2 kept); `mempipe
// EXPERIMENT ncu` launches a chosen subset once each, in the order printed, for Nsight Compute
// (`mempipe lines ncu1`: the lines subset on one SM alone; `mempipe smem ncu2`: its 8- and
// 16-byte stores between 4 or 16 FFMAs, 1 to 64 warps).
#include <algorithm>
#include <climits>
#include <cstdint>
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

static constexpr size_t BUF = 4ull << 30;         // the DRAM streams' buffer
static constexpr size_t L2WIN = 4ull << 20;       // an L2-resident window (50 MB of L2)
static constexpr size_t L2WIN_LINES = L2WIN / 128;
static constexpr int MAXW = 132 * 64;              // warps of a launch at most

struct Rec {  // one warp's record
  long long t0, t1, t2;
  int smid, pad;
};

__device__ __forceinline__ int smid() {
  int s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}
__device__ __forceinline__ unsigned long long gtime() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// ---------------------------------------------------------------------------------- lines
enum { LD_L1, LD_L2, LD_DRAM, ST_L2, ST_DRAM, N_OPS };
static const char *op_name[] = {"ld_l1", "ld_l2", "ld_dram", "st_l2", "st_dram"};

// the byte offset of a lane's word in its warp's L lines (line index times 128 added by caller)
template <int L, bool SPREAD> __device__ __forceinline__ unsigned lane_byte(int lane) {
  unsigned line = lane % L, k = lane / L;  // k-th lane of its line
  unsigned in = SPREAD ? ((k % 4) * 32 + (k / 4) * 4) : k * 4;
  return line * 128 + in;
}

template <int OP, int L, bool SPREAD>
__global__ void __launch_bounds__(1024, 2) lines(char *buf, int iters, unsigned zmask, Rec *rec) {
  int lane = threadIdx.x & 31;
  size_t gw = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) >> 5;
  size_t tw = ((size_t)gridDim.x * blockDim.x) >> 5;
  unsigned lb = lane_byte<L, SPREAD>(lane);
  unsigned off = 0, v = (unsigned)lane;
  long long t0 = clock64();
#pragma unroll 1
  for (int it = 0; it < iters; it++) {
    size_t first;  // the warp's first line this iteration
    if (OP == LD_L1) first = 0;
    else if (OP == LD_L2 || OP == ST_L2) first = (((size_t)it * tw + gw) * L) % L2WIN_LINES;
    else first = ((size_t)it * tw + gw) * L;
    char *p = buf + first * 128 + lb + off;
    if (OP == LD_L1) off = __ldca((const unsigned *)p) & zmask;
    else if (OP == LD_L2 || OP == LD_DRAM) off = __ldcg((const unsigned *)p) & zmask;
    else *(unsigned *)p = v++;
  }
  long long t1 = clock64();
  if (OP == ST_L2 || OP == ST_DRAM) __threadfence();
  long long t2 = clock64();
  if (lane == 0) rec[gw] = Rec{t0, t1, t2, smid(), (int)off};
}

__global__ void flush(float *f, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    f[i] += 1.f;
}
__global__ void warm_l2(const unsigned *p, size_t n, unsigned *sink) {
  unsigned s = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    s += __ldcg(p + i);
  if (s == 0x12345) sink[0] = s;
}

typedef void (*LinesK)(char *, int, unsigned, Rec *);
template <int OP, bool S> LinesK pick_l(int L) {
  switch (L) {
  case 1: return lines<OP, 1, S>;
  case 2: return lines<OP, 2, S>;
  case 4: return lines<OP, 4, S>;
  case 8: return lines<OP, 8, S>;
  case 16: return lines<OP, 16, S>;
  default: return lines<OP, 32, S>;
  }
}
template <bool S> LinesK pick_op(int op, int L) {
  switch (op) {
  case LD_L1: return pick_l<LD_L1, S>(L);
  case LD_L2: return pick_l<LD_L2, S>(L);
  case LD_DRAM: return pick_l<LD_DRAM, S>(L);
  case ST_L2: return pick_l<ST_L2, S>(L);
  default: return pick_l<ST_DRAM, S>(L);
  }
}

// ---------------------------------------------------------------------------------- shared
enum { S_LD, S_ST };
template <int OP, int W, int ALPHA>
__global__ void __launch_bounds__(1024, 2) smem(int iters, int ways, unsigned zmask, float c, Rec *rec) {
  extern __shared__ int4 sh4[];
  char *sh = (char *)sh4;
  int lane = threadIdx.x & 31;
  size_t gw = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) >> 5;
  // element index: lanes l*ways .. l*ways+ways-1 share banks, in different rows
  unsigned e = (lane / ways) + (lane % ways) * (128 / W);
  unsigned wbase = (threadIdx.x >> 5) * 0;  // every warp of the block at the same addresses
  unsigned off = 0;
  float acc = (float)lane;
  long long t0 = clock64();
#pragma unroll 1
  for (int it = 0; it < iters; it++) {
    char *p = sh + (wbase + e) * W + off;
    if (OP == S_LD) {
      float f;
      unsigned a = (unsigned)__cvta_generic_to_shared(p), x, y, z, u;
      if (W == 4) {
        asm volatile("ld.shared.u32 %0, [%1];" : "=r"(x) : "r"(a) : "memory");
        f = __uint_as_float(x);
      } else if (W == 8) {
        asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];" : "=r"(x), "=r"(y) : "r"(a) : "memory");
        f = __uint_as_float(x ^ y);
      } else {
        asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(x), "=r"(y), "=r"(z), "=r"(u) : "r"(a) : "memory");
        f = __uint_as_float(x ^ u ^ y ^ z);
      }
      acc += f;
#pragma unroll
      for (int a = 0; a < ALPHA; a++) acc = fmaf(acc, c, c);
      off = __float_as_uint(acc) & zmask;
    } else {
#pragma unroll
      for (int a = 0; a < ALPHA; a++) acc = fmaf(acc, c, c);
      unsigned a = (unsigned)__cvta_generic_to_shared(p);
      if (W == 4) asm volatile("st.shared.f32 [%0], %1;" ::"r"(a), "f"(acc) : "memory");
      else if (W == 8)
        asm volatile("st.shared.v2.f32 [%0], {%1, %1};" ::"r"(a), "f"(acc) : "memory");
      else
        asm volatile("st.shared.v4.f32 [%0], {%1, %1, %1, %1};" ::"r"(a), "f"(acc) : "memory");
      off = (unsigned)it & zmask;
    }
  }
  long long t1 = clock64();
  if (lane == 0) rec[gw] = Rec{t0, t1, t1, smid(), (int)__float_as_int(acc) & 1};
}
typedef void (*SmemK)(int, int, unsigned, float, Rec *);
template <int OP, int W> SmemK pick_sa(int alpha) {
  switch (alpha) {
  case 0: return smem<OP, W, 0>;
  case 4: return smem<OP, W, 4>;
  default: return smem<OP, W, 16>;
  }
}
template <int OP> SmemK pick_sw(int w, int alpha) {
  switch (w) {
  case 4: return pick_sa<OP, 4>(alpha);
  case 8: return pick_sa<OP, 8>(alpha);
  default: return pick_sa<OP, 16>(alpha);
  }
}

// ---------------------------------------------------------------------------------- raw
enum { R_SAME, R_OTHER, R_NONE };
static const char *raw_name[] = {"same", "other", "none"};
// `ld` and `st` are the same memory at run time; the compiler cannot know, so every iteration
// keeps its plain load (LDG.E / LDS) and store (STG.E / STS)
template <bool SHARED, int WHO>
__global__ void raw(unsigned *ld, unsigned *st, int zoff, int iters, Rec *rec) {
  __shared__ unsigned s[32 * 64];
  int lane = threadIdx.x & 31;
  int w = threadIdx.x >> 5;
  size_t gw = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) >> 5;
  // each warp's own line (global) or row (shared); lanes side by side
  unsigned mine = (unsigned)gw * 32 + lane, theirs = (unsigned)(gw ^ 1) * 32 + lane;
  unsigned nobody = (unsigned)(gw + MAXW) * 32 + lane;  // never stored
  if (SHARED) {
    mine = w * 32 + lane;
    theirs = (w ^ 1) * 32 + lane;
    nobody = (w + 32) * 32 + lane;
    s[mine] = 0;
    s[nobody] = 0;
    __syncthreads();
  }
  unsigned *lp = SHARED ? s + zoff : ld, *sp = SHARED ? s : st;
  unsigned from = WHO == R_SAME ? mine : WHO == R_OTHER ? theirs : nobody;
  unsigned v = 0;
  long long t0 = clock64();
#pragma unroll 1
  for (int it = 0; it < iters; it++) {
    v = lp[from] + 1;
    sp[mine] = v;
  }
  long long t1 = clock64();
  if (lane == 0) rec[gw] = Rec{t0, t1, t1, smid(), (int)v};
}

// ---------------------------------------------------------------------------------- drain
template <int L>
__global__ void drain(unsigned *g, int stores, Rec *rec) {
  int lane = threadIdx.x & 31;
  size_t b = blockIdx.x;
  unsigned lb = lane_byte<L, false>(lane) / 4;
  long long t0 = clock64();
#pragma unroll 1
  for (int i = 0; i < stores; i++) g[((b * 64 + i) * L) * 32 % (L2WIN / 4) + lb] = (unsigned)i;
  long long t1 = clock64();
  if (lane == 0) rec[b] = Rec{t0, t1, t1, smid(), 0};
}

// ---------------------------------------------------------------------------------- launch
__global__ void empty() {}
struct BRec {
  unsigned long long g0, g1;
  long long c0, c1;
  int smid, pad;
};
__global__ void work(int n, float c, BRec *rec, float *sink) {
  unsigned long long g0 = gtime();
  long long c0 = clock64();
  float a = threadIdx.x;
#pragma unroll 1
  for (int i = 0; i < n; i++) a = fmaf(a, c, c);
  if (a == 1.2345f) sink[0] = a;
  __syncthreads();
  long long c1 = clock64();
  unsigned long long g1 = gtime();
  if (threadIdx.x == 0) rec[blockIdx.x] = BRec{g0, g1, c0, c1, smid(), 0};
}

// ---------------------------------------------------------------------------------- host
static int g_sms;
static Rec *d_rec;
static std::vector<Rec> h_rec(MAXW);

struct Stats {  // per-warp cycles per iteration (median, max); per-SM span median
  double cpi_med, cpi_max, span_med, fence_med;
  int sms_seen;
};
// warps_per_sm: keep SMs that ran exactly that many warps
static Stats collect(size_t tw, int iters, int warps_per_sm) {
  CK(cudaMemcpy(h_rec.data(), d_rec, sizeof(Rec) * tw, cudaMemcpyDeviceToHost));
  std::vector<int> count(1024, 0);
  std::vector<long long> lo(1024, LLONG_MAX), hi(1024, 0);
  std::vector<double> cpi, fence, span;
  for (size_t i = 0; i < tw; i++) count[h_rec[i].smid]++;
  for (size_t i = 0; i < tw; i++) {
    const Rec &r = h_rec[i];
    if (count[r.smid] != warps_per_sm) continue;
    cpi.push_back((double)(r.t1 - r.t0) / iters);
    fence.push_back((double)(r.t2 - r.t1));
    lo[r.smid] = std::min(lo[r.smid], r.t0);
    hi[r.smid] = std::max(hi[r.smid], r.t1);
  }
  int seen = 0;
  for (int s = 0; s < 1024; s++)
    if (count[s] == warps_per_sm) {
      span.push_back((double)(hi[s] - lo[s]));
      seen++;
    }
  Stats st{0, 0, 0, 0, seen};
  if (cpi.empty()) return st;
  std::sort(cpi.begin(), cpi.end());
  std::sort(fence.begin(), fence.end());
  std::sort(span.begin(), span.end());
  st.cpi_med = cpi[cpi.size() / 2];
  st.cpi_max = cpi.back();
  st.span_med = span[span.size() / 2];
  st.fence_med = fence[fence.size() / 2];
  return st;
}

// blocks and threads for `w` warps on each of `sms` SMs (two blocks an SM above 32 warps)
static void shape(int sms, int w, int *blocks, int *threads) {
  *blocks = w > 32 ? 2 * sms : sms;
  *threads = w > 32 ? 16 * w : 32 * w;
}

static char *d_buf;
static float *d_fl;
static size_t fl_n = 32ull << 20;  // 128 MB of floats: more than L2
static unsigned *d_sink;

static bool g_one_sm;  // `ncu1`: the Nsight subset of lines on one SM alone
static bool g_wide;    // `ncu2`: the Nsight subset of smem's 8- and 16-byte stores between FFMAs

static void exp_lines(bool ncu) {
  printf("op,layout,lines,sectors,warps_per_sm,sms,iters,cycles_per_insn_med,cycles_per_insn_max,"
         "span_med,bytes_per_cycle_per_sm,sector_bytes_per_cycle_per_sm,fence_cycles_med\n");
  for (int op = 0; op < N_OPS; op++)
    for (int spread = 0; spread < 2; spread++)
      for (int L : {1, 2, 4, 8, 16, 32}) {
        if (spread && (L == 32)) continue;  // the same as packed
        if (ncu && (spread || (L != 1 && L != 4 && L != 32))) continue;
        for (int sms : {1, g_sms})
          for (int w : {1, 2, 4, 8, 16, 32, 64}) {
            if (sms == 1 && w > 32) continue;
            if (ncu && !g_one_sm && (sms == 1 || (w != 4 && w != 32 && w != 64))) continue;
            if (ncu && g_one_sm && (sms != 1 || (w != 4 && w != 32))) continue;
            int blocks, threads;
            shape(sms, w, &blocks, &threads);
            size_t tw = (size_t)blocks * threads / 32;
            int iters = 64;
            if (op == LD_DRAM || op == ST_DRAM) {
              size_t fit = BUF / (tw * L * 128);
              if (fit < (size_t)iters) iters = (int)fit;
            }
            if (op == LD_L1) iters = 256;
            LinesK k = spread ? pick_op<true>(op, L) : pick_op<false>(op, L);
            int reps = ncu ? 1 : 3;
            std::vector<double> cpi, span, fence, cpimax;
            int seen = 0;
            for (int r = 0; r < reps; r++) {
              if (op == LD_DRAM || op == ST_DRAM) {
                if (!ncu) flush<<<g_sms * 4, 512>>>(d_fl, fl_n);
              } else if (op == LD_L2 || op == ST_L2) {
                warm_l2<<<g_sms * 4, 512>>>((const unsigned *)d_buf, L2WIN / 4, d_sink);
              }
              k<<<blocks, threads>>>(d_buf, iters, 0u, d_rec);
              CK(cudaGetLastError());
              CK(cudaDeviceSynchronize());
              if (ncu || r == 0) continue;
              Stats s = collect(tw, iters, w);
              cpi.push_back(s.cpi_med);
              cpimax.push_back(s.cpi_max);
              span.push_back(s.span_med);
              fence.push_back(s.fence_med);
              seen = s.sms_seen;
            }
            int sectors = spread ? std::min(32, 4 * L) : std::max(4, L);
            if (ncu) {
              printf("%s,%s,%d,%d,%d,%d,%d,,,,,,\n", op_name[op], spread ? "spread" : "packed", L,
                     sectors, w, sms, iters);
              continue;
            }
            if (seen == 0) {
              fprintf(stderr, "lines %s L=%d w=%d sms=%d: no SM ran %d warps\n", op_name[op], L,
                      w, sms, w);
              continue;
            }
            double c = (cpi[0] + cpi[1]) / 2, cm = std::max(cpimax[0], cpimax[1]);
            double sp = (span[0] + span[1]) / 2, fe = (fence[0] + fence[1]) / 2;
            double insns = (double)w * iters;
            printf("%s,%s,%d,%d,%d,%d,%d,%.2f,%.2f,%.0f,%.3f,%.3f,%.0f\n", op_name[op],
                   spread ? "spread" : "packed", L, sectors, w, sms, iters, c, cm, sp,
                   insns * 128 / sp, insns * sectors * 32 / sp,
                   (op == ST_L2 || op == ST_DRAM) ? fe : 0.0);
            fflush(stdout);
          }
      }
}

static void exp_smem(bool ncu) {
  printf("op,width,ways,alpha,warps_per_sm,iters,cycles_per_iter_med,cycles_per_iter_max,"
         "span_med,smem_insn_per_cycle_per_sm,ffma_per_cycle_per_sm\n");
  for (int op : {S_LD, S_ST})
    for (int W : {4, 8, 16})
      for (int alpha : {0, 4, 16})
        for (int ways : {1, 2, 4, 8, 16, 32})
          for (int w : {1, 2, 4, 8, 16, 32, 64}) {
            if (ncu && !g_wide && (W != 4 || (ways != 1 && ways != 8 && ways != 32) || alpha == 16 ||
                        (w != 8 && w != 32 && w != 64)))
              continue;
            if (ncu && g_wide && (op != S_ST || W == 4 || ways != 1 || alpha == 0 ||
                                  (w != 1 && w != 8 && w != 32 && w != 64)))
              continue;
            if (!ncu && W != 4 && alpha != 0 && ways != 1 && ways != 32) continue;
            int blocks, threads;
            shape(g_sms, w, &blocks, &threads);
            size_t tw = (size_t)blocks * threads / 32;
            int iters = 512;
            SmemK k = op == S_LD ? pick_sw<S_LD>(W, alpha) : pick_sw<S_ST>(W, alpha);
            size_t shb = 32 * 128 * 4;  // 32 rows of 128 B, times 4 for 16-byte rows
            std::vector<double> cpi, cpimax, span;
            for (int r = 0; r < (ncu ? 1 : 3); r++) {
              k<<<blocks, threads, shb>>>(iters, ways, 0u, 1.0001f, d_rec);
              CK(cudaGetLastError());
              CK(cudaDeviceSynchronize());
              if (ncu || r == 0) continue;
              Stats s = collect(tw, iters, w);
              cpi.push_back(s.cpi_med);
              cpimax.push_back(s.cpi_max);
              span.push_back(s.span_med);
            }
            if (ncu) {
              printf("%s,%d,%d,%d,%d,%d,,,,,\n", op == S_LD ? "lds" : "sts", W, ways, alpha, w,
                     iters);
              continue;
            }
            double c = (cpi[0] + cpi[1]) / 2, sp = (span[0] + span[1]) / 2;
            printf("%s,%d,%d,%d,%d,%d,%.2f,%.2f,%.0f,%.4f,%.4f\n", op == S_LD ? "lds" : "sts", W,
                   ways, alpha, w, iters, c, std::max(cpimax[0], cpimax[1]), sp,
                   (double)w * iters / sp, (double)w * iters * alpha / sp);
            fflush(stdout);
          }
}

typedef void (*RawK)(unsigned *, unsigned *, int, int, Rec *);
static void exp_raw(bool ncu) {
  printf("space,who,warps_per_sm,iters,cycles_per_iter_med,cycles_per_iter_max\n");
  RawK ks[2][3] = {{raw<false, R_SAME>, raw<false, R_OTHER>, raw<false, R_NONE>},
                   {raw<true, R_SAME>, raw<true, R_OTHER>, raw<true, R_NONE>}};
  for (int sh = 0; sh < 2; sh++)
    for (int who = 0; who < 3; who++)
      for (int w : {1, 2, 8, 32}) {
        if (who == R_OTHER && w == 1) continue;
        if (ncu && w != 2 && w != 32) continue;
        int iters = 1024;
        std::vector<double> cpi, cpimax;
        CK(cudaMemset(d_buf, 0, (size_t)2 * MAXW * 128));
        for (int r = 0; r < (ncu ? 1 : 3); r++) {
          ks[sh][who]<<<1, 32 * w>>>((unsigned *)d_buf, (unsigned *)d_buf, 0, iters, d_rec);
          CK(cudaGetLastError());
          CK(cudaDeviceSynchronize());
          if (ncu || r == 0) continue;
          Stats s = collect(w, iters, w);
          cpi.push_back(s.cpi_med);
          cpimax.push_back(s.cpi_max);
        }
        if (ncu) {
          printf("%s,%s,%d,%d,,\n", sh ? "shared" : "global", raw_name[who], w, iters);
          continue;
        }
        printf("%s,%s,%d,%d,%.2f,%.2f\n", sh ? "shared" : "global", raw_name[who], w, iters,
               (cpi[0] + cpi[1]) / 2, std::max(cpimax[0], cpimax[1]));
        fflush(stdout);
      }
}

static float elapsed(cudaEvent_t a, cudaEvent_t b) {
  float ms;
  CK(cudaEventElapsedTime(&ms, a, b));
  return ms;
}

static void exp_drain(bool ncu) {
  // 32 one-warp blocks resident an SM, 8 such waves; each block S stores of L lines
  printf("lines,stores,blocks,ms_med,us_per_wave_per_block_slot,cycles_per_block_med\n");
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  typedef void (*DK)(unsigned *, int, Rec *);
  for (int L : {1, 32})
    for (int S : {0, 1, 4, 16, 64}) {
      if (ncu && S != 0 && S != 4 && S != 64) continue;
      DK k = L == 1 ? drain<1> : drain<32>;
      int blocks = g_sms * 32 * 8;
      std::vector<float> ms;
      std::vector<Rec> hr(blocks);
      std::vector<double> cyc;
      for (int r = 0; r < (ncu ? 1 : 7); r++) {
        CK(cudaEventRecord(a));
        k<<<blocks, 32>>>((unsigned *)d_buf, S, (Rec *)d_fl);
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        CK(cudaGetLastError());
        if (r == 0) continue;
        ms.push_back(elapsed(a, b));
      }
      if (ncu) {
        printf("%d,%d,%d,,,\n", L, S, blocks);
        continue;
      }
      CK(cudaMemcpy(hr.data(), d_fl, sizeof(Rec) * blocks, cudaMemcpyDeviceToHost));
      for (auto &r : hr) cyc.push_back((double)(r.t1 - r.t0));
      std::sort(ms.begin(), ms.end());
      std::sort(cyc.begin(), cyc.end());
      double m = ms[ms.size() / 2];
      printf("%d,%d,%d,%.4f,%.3f,%.0f\n", L, S, blocks, m, m * 1000 / 8, cyc[cyc.size() / 2]);
      fflush(stdout);
    }
}

static void exp_launch(bool ncu) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  BRec *d_b;
  int maxb = g_sms * 8;
  CK(cudaMalloc(&d_b, sizeof(BRec) * maxb));
  std::vector<BRec> hb(maxb);
  // blocks of 1024 threads with 120 KB of shared memory: one resident an SM, so k x 132
  // blocks run in k waves
  size_t big = 120 * 1024;
  CK(cudaFuncSetAttribute(work, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)big));
  if (ncu) {
    empty<<<1, 32>>>();
    CK(cudaDeviceSynchronize());
    printf("kind,blocks,threads,n\nempty,1,32,0\n");
    for (int k : {1, 2, 4, 8})
      for (int n : {0, 256}) {
        work<<<k * g_sms, 1024, big>>>(n, 1.0001f, d_b, (float *)d_sink);
        CK(cudaDeviceSynchronize());
        printf("work,%d,1024,%d\n", k * g_sms, n);
      }
    return;
  }
  printf("kind,blocks,threads,n,event_us_med,event_us_min,span_us_med,first_start_ns_med,"
         "block_cycles_med,gap_cycles_med,gap_ns_med\n");
  for (int r = 0; r < 20; r++) empty<<<1, 32>>>();
  CK(cudaDeviceSynchronize());
  std::vector<float> ms;
  for (int r = 0; r < 201; r++) {
    CK(cudaEventRecord(a));
    empty<<<1, 32>>>();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    if (r) ms.push_back(elapsed(a, b));
  }
  std::sort(ms.begin(), ms.end());
  printf("empty,1,32,0,%.3f,%.3f,,,,,\n", ms[ms.size() / 2] * 1000, ms[0] * 1000);
  // back to back: the launch rate
  CK(cudaEventRecord(a));
  for (int r = 0; r < 1000; r++) empty<<<1, 32>>>();
  CK(cudaEventRecord(b));
  CK(cudaEventSynchronize(b));
  printf("empty_back_to_back,1,32,0,%.3f,,,,,,\n", elapsed(a, b));
  for (int k : {1, 2, 3, 4, 6, 8})
    for (int n : {0, 256, 1024}) {
      int blocks = k * g_sms;
      std::vector<float> ev;
      std::vector<double> span, first, bc, gap, gapns;
      for (int r = 0; r < 11; r++) {
        CK(cudaEventRecord(a));
        work<<<blocks, 1024, big>>>(n, 1.0001f, d_b, (float *)d_sink);
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        CK(cudaGetLastError());
        if (r == 0) continue;
        ev.push_back(elapsed(a, b) * 1000);
        CK(cudaMemcpy(hb.data(), d_b, sizeof(BRec) * blocks, cudaMemcpyDeviceToHost));
        unsigned long long g0 = ULLONG_MAX, g1 = 0;
        for (int i = 0; i < blocks; i++) {
          g0 = std::min(g0, hb[i].g0);
          g1 = std::max(g1, hb[i].g1);
          bc.push_back((double)(hb[i].c1 - hb[i].c0));
        }
        span.push_back((g1 - g0) / 1000.0);
        // per SM: its blocks by start; the gap from one's end to the next one's start
        std::vector<std::vector<int>> per(1024);
        for (int i = 0; i < blocks; i++) per[hb[i].smid].push_back(i);
        std::vector<double> fs;
        for (auto &v : per) {
          if (v.empty()) continue;
          std::sort(v.begin(), v.end(), [&](int x, int y) { return hb[x].c0 < hb[y].c0; });
          fs.push_back((double)(hb[v[0]].g0 - g0));
          for (size_t j = 1; j < v.size(); j++) {
            gap.push_back((double)(hb[v[j]].c0 - hb[v[j - 1]].c1));
            gapns.push_back((double)(hb[v[j]].g0 - hb[v[j - 1]].g1));
          }
        }
        std::sort(fs.begin(), fs.end());
        first.push_back(fs[fs.size() / 2]);
      }
      auto med = [](std::vector<double> &v) {
        if (v.empty()) return -1.0;
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
      };
      std::sort(ev.begin(), ev.end());
      printf("work,%d,1024,%d,%.3f,%.3f,%.3f,%.0f,%.0f,%.0f,%.0f\n", blocks, n, ev[ev.size() / 2],
             ev[0], med(span), med(first), med(bc), med(gap), med(gapns));
      fflush(stdout);
    }
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: mempipe lines|smem|raw|drain|launch [ncu]\n");
    return 2;
  }
  bool ncu = argc > 2 &&
             (!strcmp(argv[2], "ncu") || !strcmp(argv[2], "ncu1") || !strcmp(argv[2], "ncu2"));
  g_one_sm = argc > 2 && !strcmp(argv[2], "ncu1");
  g_wide = argc > 2 && !strcmp(argv[2], "ncu2");
  CK(cudaDeviceGetAttribute(&g_sms, cudaDevAttrMultiProcessorCount, 0));
  CK(cudaMalloc(&d_rec, sizeof(Rec) * MAXW));
  CK(cudaMalloc(&d_sink, 64));
  CK(cudaMalloc(&d_fl, fl_n * 4));
  CK(cudaMemset(d_fl, 0, fl_n * 4));
  const char *e = argv[1];
  if (!strcmp(e, "lines")) {
    CK(cudaMalloc(&d_buf, BUF));
    CK(cudaMemset(d_buf, 0, BUF));
    exp_lines(ncu);
  } else {
    CK(cudaMalloc(&d_buf, L2WIN));
    CK(cudaMemset(d_buf, 0, L2WIN));
    if (!strcmp(e, "smem")) exp_smem(ncu);
    else if (!strcmp(e, "raw")) exp_raw(ncu);
    else if (!strcmp(e, "drain")) exp_drain(ncu);
    else if (!strcmp(e, "launch")) exp_launch(ncu);
    else {
      fprintf(stderr, "mempipe: unknown experiment '%s'\n", e);
      return 2;
    }
  }
  return 0;
}
