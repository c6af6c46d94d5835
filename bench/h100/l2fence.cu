// What a __threadfence() after stores waits for on the whole GPU, by how many lines the stores
// wrote, after the L2 was left clean or dirty: l2fill.cu's loop (one block of W warps on each SM,
// each warp `iters` times a warp-access whose 32 lanes write 4 bytes each in L distinct fresh
// lines of a 4 GiB buffer, one sector a line), then __threadfence() (MEMBAR.SC.GPU), each warp's
// lane 0 reading the clock before the loop, after it and after the fence; launched after one of
// two preparations of the L2:
//   clean       256 MB of another buffer read (not written): the L2 full of clean lines
//   dirty       every float of 128 MB incremented (l2dirty.cu's flush): whole lines dirty
// each followed by a synchronisation.  Ops: st_partial (L = 8: one partial sector of 16 bytes
// a line), st_whole (L = 4: one whole sector a line).
//
//   l2fence    CSV on stdout: op, lines, prep, warps_per_sm, sms, iters, run,
//              span_med (the median warp's loop cycles), span_max, fence_med (the median warp's
//              cycles from the second clock read to the third), fence_max;
//              on stderr the SM clock, for scale
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
  long long t0, t1, t2;
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
  __threadfence();
  long long t2 = clock64();
  if (lane == 0) rec[gw] = Rec{t0, t1 + (off & 1), t2};
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
  char *d_buf;
  float *d_fl, *d_other, *d_sink;
  long long *d_ll;
  Rec *d_rec;
  CK(cudaMalloc(&d_buf, BUF));
  CK(cudaMemset(d_buf, 0, BUF));
  CK(cudaMalloc(&d_fl, FL_N * 4));
  CK(cudaMalloc(&d_other, PREP));
  CK(cudaMemset(d_fl, 0, FL_N * 4));
  CK(cudaMemset(d_other, 0, PREP));
  CK(cudaMalloc(&d_sink, 4));
  CK(cudaMalloc(&d_ll, 8));
  CK(cudaMalloc(&d_rec, sizeof(Rec) * sms * 32));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));

  spin<<<1, 32>>>(1000000, d_ll);
  CK(cudaEventRecord(e0));
  spin<<<1, 32>>>(100000000, d_ll);
  CK(cudaEventRecord(e1));
  fprintf(stderr, "sm clock %.0f MHz\n", 100000000.0 / (ms_of(e0, e1) * 1e3));

  printf("op,lines,prep,warps_per_sm,sms,iters,run,span_med,span_max,fence_med,fence_max\n");
  const char *ops[] = {"st_partial", "st_whole"};
  const char *preps[] = {"clean", "dirty"};
  struct Size {
    int w, iters;
  };
  const Size sizes[] = {{8, 2},  {8, 4},  {8, 8},   {8, 12},  {8, 16},  {8, 20},
                        {8, 24}, {8, 32}, {8, 48},  {8, 64},  {2, 16},  {2, 32},
                        {2, 64}, {2, 96}, {2, 128}, {32, 4}, {32, 8}, {32, 16}};
  for (int op = 0; op < 2; op++) {
    int L = op == 0 ? 8 : 4;
    void (*k)(char *, int, unsigned, Rec *) = op == 0 ? lines<ST, 8> : lines<ST, 4>;
    for (const Size &s : sizes) {
      size_t tw = (size_t)sms * s.w;
      for (int prep = 0; prep < 2; prep++) {
        for (int run = 0; run < 3; run++) {
          if (prep == 0) readall<<<sms * 4, 512>>>((const float *)d_other, PREP / 4, d_sink);
          else flush<<<sms * 4, 512>>>(d_fl, FL_N);
          CK(cudaDeviceSynchronize());
          k<<<sms, 32 * s.w>>>(d_buf, s.iters, 0u, d_rec);
          CK(cudaGetLastError());
          CK(cudaDeviceSynchronize());
          std::vector<Rec> r(tw);
          CK(cudaMemcpy(r.data(), d_rec, sizeof(Rec) * tw, cudaMemcpyDeviceToHost));
          std::vector<double> span(tw), fence(tw);
          for (size_t i = 0; i < tw; i++) {
            span[i] = (double)(r[i].t1 - r[i].t0);
            fence[i] = (double)(r[i].t2 - r[i].t1);
          }
          std::sort(span.begin(), span.end());
          std::sort(fence.begin(), fence.end());
          printf("%s,%d,%s,%d,%d,%d,%d,%.0f,%.0f,%.0f,%.0f\n", ops[op], L, preps[prep], s.w, sms,
                 s.iters, run, span[tw / 2], span[tw - 1], fence[tw / 2], fence[tw - 1]);
          fflush(stdout);
        }
      }
    }
  }
  return 0;
}
