// Where the L2 starts to hold stores to DRAM, and what the lines it replaces cost them, on the
// whole GPU: mempipe.cu's lines loop (one block of W warps on each SM, each warp `iters` times a
// warp-access whose 32 lanes write or read 4 bytes each in L distinct fresh lines of a 4 GiB
// buffer, one sector a line), the number of lines stepped by `iters` at a fixed W, launched
// after one of four preparations of the L2:
//   clean       256 MB of another buffer read (not written): the L2 full of clean lines
//   dirty       every float of 128 MB incremented (l2dirty.cu's flush): whole lines dirty
//   dirty_sector  one whole sector (32 bytes) written in each line of 256 MB: lines of one dirty
//               sector, the rest not held
//   dirty_part  4 bytes written in each line of 256 MB: lines of one sector written in part
// each followed by a synchronisation.  Ops: st_partial (L = 8: one partial sector of 16 bytes
// a line), st_whole (L = 4: one whole sector a line), ld_sectors (L = 32: one sector a line,
// loads chained through their value).
//
//   l2fill     CSV on stdout: op, lines, prep, warps_per_sm, sms, iters, run,
//              cycles_per_insn_med (the median warp's loop cycles over iters),
//              cycles_per_insn_max, span_med (the median warp's loop cycles), span_max;
//              on stderr the SM clock and DRAM's read and write rates, for scale
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

static constexpr size_t BUF = 4ull << 30;
static constexpr size_t FL_N = 32ull << 20;   // 128 MB of floats: more than the L2
static constexpr size_t PREP = 256ull << 20;  // the other preparations' bytes

struct Rec {
  long long t0, t1;
};

enum { ST, LD };

template <int OP, int L>
__global__ void __launch_bounds__(1024, 1) lines(char *buf, int iters, unsigned zmask, Rec *rec) {
  int lane = threadIdx.x & 31;
  size_t gw = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) >> 5;
  size_t tw = ((size_t)gridDim.x * blockDim.x) >> 5;
  unsigned lb = (lane % L) * 128 + (lane / L) * 4;
  unsigned off = 0, v = (unsigned)lane;
  long long t0 = clock64();
#pragma unroll 1
  for (int it = 0; it < iters; it++) {
    size_t first = ((size_t)it * tw + gw) * L;
    char *p = buf + first * 128 + lb + off;
    if (OP == LD) off = __ldcg((const unsigned *)p) & zmask;
    else *(unsigned *)p = v++;
  }
  long long t1 = clock64();
  if (lane == 0) rec[gw] = Rec{t0, t1 + (off & 1)};
}

__global__ void flush(float *f, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    f[i] += 1.f;
}

__global__ void readall(const float *f, size_t n, float *sink) {
  float s = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    s += __ldcg(f + i);
  if (s == 12345.f) *sink = s;
}

// @words 4-byte words written at the start of each 128-byte line of @bytes
__global__ void touch(unsigned *p, size_t bytes, int words) {
  size_t n = bytes / 128 * words;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    p[i / words * 32 + i % words] = (unsigned)i;
}

__global__ void writeall(float *f, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    f[i] = 1.f;
}

__global__ void spin(long long cycles, long long *out) {
  long long t0 = clock64();
  while (clock64() - t0 < cycles) {
  }
  if (threadIdx.x == 0) *out = clock64() - t0;
}

static float ms_of(cudaEvent_t a, cudaEvent_t b) {
  float ms;
  CK(cudaEventSynchronize(b));
  CK(cudaEventElapsedTime(&ms, a, b));
  return ms;
}

int main() {
  int sms;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  char *d_buf, *d_prep;
  float *d_fl, *d_other, *d_sink;
  long long *d_ll;
  Rec *d_rec;
  CK(cudaMalloc(&d_buf, BUF));
  CK(cudaMemset(d_buf, 0, BUF));
  CK(cudaMalloc(&d_fl, FL_N * 4));
  CK(cudaMalloc(&d_other, PREP));
  CK(cudaMalloc(&d_prep, PREP));
  CK(cudaMemset(d_fl, 0, FL_N * 4));
  CK(cudaMemset(d_other, 0, PREP));
  CK(cudaMemset(d_prep, 0, PREP));
  CK(cudaMalloc(&d_sink, 4));
  CK(cudaMalloc(&d_ll, 8));
  CK(cudaMalloc(&d_rec, sizeof(Rec) * sms * 32));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));

  // scale: the SM clock, DRAM's read and write rates over 1 GiB of the buffer
  spin<<<1, 32>>>(1000000, d_ll);
  CK(cudaEventRecord(e0));
  spin<<<1, 32>>>(100000000, d_ll);
  CK(cudaEventRecord(e1));
  double mhz = 100000000.0 / (ms_of(e0, e1) * 1e3);
  size_t gib = (size_t)1 << 30;
  readall<<<sms * 4, 512>>>((const float *)d_buf, gib / 4, d_sink);
  CK(cudaEventRecord(e0));
  readall<<<sms * 4, 512>>>((const float *)d_buf, gib / 4, d_sink);
  CK(cudaEventRecord(e1));
  double rd = gib / (ms_of(e0, e1) * 1e-3) / 1e9;
  writeall<<<sms * 4, 512>>>((float *)d_buf, gib / 4);
  CK(cudaEventRecord(e0));
  writeall<<<sms * 4, 512>>>((float *)d_buf, gib / 4);
  CK(cudaEventRecord(e1));
  double wr = gib / (ms_of(e0, e1) * 1e-3) / 1e9;
  CK(cudaMemset(d_buf, 0, BUF));
  fprintf(stderr, "sm clock %.0f MHz; DRAM read %.0f GB/s (%.1f bytes a cycle an SM), write %.0f GB/s (%.1f)\n",
          mhz, rd, rd * 1e3 / mhz / sms, wr, wr * 1e3 / mhz / sms);

  printf("op,lines,prep,warps_per_sm,sms,iters,run,cycles_per_insn_med,cycles_per_insn_max,"
         "span_med,span_max\n");
  const char *ops[] = {"st_partial", "st_whole", "ld_sectors"};
  const char *preps[] = {"clean", "dirty", "dirty_sector", "dirty_part"};
  struct Size {
    int w, iters;
  };
  const Size st_sizes[] = {{8, 8},  {8, 16}, {8, 24},  {8, 32},   {8, 40},   {8, 48},
                           {8, 64}, {8, 96}, {2, 64},  {2, 96},   {2, 128},  {2, 192},
                           {2, 256}, {32, 8}, {32, 16}, {32, 32}};
  const Size ld_sizes[] = {{1, 64}, {8, 64}};
  for (int op = 0; op < 3; op++) {
    int L = op == 0 ? 8 : op == 1 ? 4 : 32;
    void (*k)(char *, int, unsigned, Rec *) =
        op == 0 ? lines<ST, 8> : op == 1 ? lines<ST, 4> : lines<LD, 32>;
    const Size *sizes = op == 2 ? ld_sizes : st_sizes;
    int n_sizes = op == 2 ? 2 : (int)(sizeof st_sizes / sizeof st_sizes[0]);
    for (int s = 0; s < n_sizes; s++) {
      int w = sizes[s].w, iters = sizes[s].iters;
      size_t tw = (size_t)sms * w;
      for (int prep = 0; prep < 4; prep++) {
        for (int run = 0; run < 3; run++) {
          if (prep == 0) readall<<<sms * 4, 512>>>((const float *)d_other, PREP / 4, d_sink);
          else if (prep == 1) flush<<<sms * 4, 512>>>(d_fl, FL_N);
          else touch<<<sms * 4, 512>>>((unsigned *)d_prep, PREP, prep == 2 ? 8 : 1);
          CK(cudaDeviceSynchronize());
          k<<<sms, 32 * w>>>(d_buf, iters, 0u, d_rec);
          CK(cudaGetLastError());
          CK(cudaDeviceSynchronize());
          std::vector<Rec> r(tw);
          CK(cudaMemcpy(r.data(), d_rec, sizeof(Rec) * tw, cudaMemcpyDeviceToHost));
          std::vector<double> span(tw);
          for (size_t i = 0; i < tw; i++) span[i] = (double)(r[i].t1 - r[i].t0);
          std::sort(span.begin(), span.end());
          double med = span[tw / 2], mx = span[tw - 1];
          printf("%s,%d,%s,%d,%d,%d,%d,%.2f,%.2f,%.0f,%.0f\n", ops[op], L, preps[prep], w, sms,
                 iters, run, med / iters, mx / iters, med, mx);
          fflush(stdout);
        }
      }
    }
  }
  return 0;
}
