// Whether two lines' DRAM latencies go together: one warp on each SM chases its own random cycle
// of 128-byte lines through a 1 GiB window (the method of ../../../shared/data/kernels/latency.cu:
// every lane reads its word of the line; L2 emptied before each launch), and with each line of
// the chase loads a second, `dist` bytes further on (round the window), issued right behind the
// first or `delay` cycles later.  Each step records three clocks from its start: when the chase's
// load had come back (a dependent shared-memory store waits for it), when the second load
// issued, and when the second had come back.  So each step gives the first line's latency and
// the second's wherever it came back later than the first.
//
//   pair        prints CSV: one row a configuration (experiment, dist_bytes, delay_cycles, the
//               latencies' means and quantiles, the share of slow ones and how the second line's
//               follows the first's); HIST=FILE writes the histograms of both latencies
//
// Experiments: `single` (no second load), twice over the same chase with the L2 emptied between
// (`repeat`: does a line keep its latency from one launch to the next?); `pair` at distances of
// 128 B to 256 MiB; `delay`, the second line 128 B or 16 MiB on, issued 0 to 3 000 cycles after
// the first.  DRAM latencies are bimodal (about 590 and 780 cycles, h100-latency-hist.csv): a
// latency over 685 cycles counts as slow.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>
#include <cuda_runtime.h>

#define CK(x)                                                                                      \
  do {                                                                                             \
    cudaError_t e_ = (x);                                                                          \
    if (e_ != cudaSuccess) {                                                                       \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));                 \
      exit(1);                                                                                     \
    }                                                                                              \
  } while (0)

constexpr int N = 1024;                 // steps a warp
constexpr unsigned WIN = 1u << 30;      // the window, at the start of a 4 GiB-aligned block
constexpr unsigned SLOW = 685;          // between the two modes

template <bool PAIR>
__global__ void pair(const unsigned *starts, unsigned hi, unsigned dist, unsigned delay,
                     unsigned *rec) {
  __shared__ volatile unsigned sink[2 * N];
  unsigned p = starts[blockIdx.x] + (threadIdx.x & 31) * 4;
  for (int i = 0; i < N; i++) {
    unsigned b = 0;
    long long t0 = clock64(), tb = t0;
    unsigned a = *(volatile unsigned *)(((unsigned long long)hi << 32) | p);
    if (PAIR) {
      if (delay)
        do
          tb = clock64();
        while (tb - t0 < delay);
      b = *(volatile unsigned *)(((unsigned long long)hi << 32) | ((p + dist) & (WIN - 1)));
    }
    sink[i] = a;
    long long ta = clock64();
    if (PAIR)
      sink[N + i] = b;
    long long t2 = clock64();
    if (threadIdx.x == 0) {
      unsigned *r = rec + 3 * ((size_t)blockIdx.x * N + i);
      r[0] = (unsigned)(ta - t0);
      r[1] = (unsigned)(tb - t0);
      r[2] = (unsigned)(t2 - t0);
    }
    p = a;
  }
}

// the chase: a random cycle through the window's lines; each SM starts 1/nsm of the way on
static std::vector<unsigned> build(uintptr_t base, int nstarts, uint64_t seed) {
  size_t nl = WIN / 128;
  std::vector<uint32_t> nx(nl);
  for (size_t i = 0; i < nl; i++)
    nx[i] = (uint32_t)i;
  std::mt19937_64 rng(seed);
  for (size_t i = nl - 1; i > 0; i--)
    std::swap(nx[i], nx[rng() % i]);
  std::vector<unsigned> h(WIN / 4);
  for (size_t l = 0; l < nl; l++)
    for (int j = 0; j < 32; j++)
      h[l * 32 + j] = (unsigned)(nx[l] * 128u) + j * 4;
  CK(cudaMemcpy((void *)base, h.data(), WIN, cudaMemcpyHostToDevice));
  std::vector<unsigned> st(nstarts);
  size_t cur = 0, step = nl / nstarts;
  for (int w = 0; w < nstarts; w++) {
    st[w] = (unsigned)(cur * 128);
    for (size_t s = 0; s < step; s++)
      cur = nx[cur];
  }
  return st;
}

struct Run {
  std::vector<unsigned> a, b, issue;  // first latency, second's issue, second back (from start)
};

static double mean(const std::vector<double> &v) {
  double s = 0;
  for (double x : v)
    s += x;
  return v.empty() ? NAN : s / v.size();
}
static double quant(std::vector<double> v, double f) {
  if (v.empty())
    return NAN;
  std::sort(v.begin(), v.end());
  return v[(size_t)(f * (v.size() - 1))];
}

int main() {
  int nsm;
  CK(cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, 0));
  char *raw;
  CK(cudaMalloc(&raw, 6ull << 30));
  uintptr_t base = ((uintptr_t)raw + (4ull << 30) - 1) & ~((4ull << 30) - 1);
  unsigned hi = (unsigned)(base >> 32);
  char *flush;
  CK(cudaMalloc(&flush, 256ull << 20));
  unsigned *starts, *rec;
  CK(cudaMalloc(&starts, nsm * 4));
  CK(cudaMalloc(&rec, (size_t)nsm * N * 3 * 4));
  auto st = build(base, nsm, 7);
  CK(cudaMemcpy(starts, st.data(), nsm * 4, cudaMemcpyHostToDevice));

  auto launch = [&](bool two, unsigned dist, unsigned delay) {
    CK(cudaMemset(flush, 1, 256ull << 20));  // the L2 holds other lines
    if (two)
      pair<true><<<nsm, 32>>>(starts, hi, dist, delay, rec);
    else
      pair<false><<<nsm, 32>>>(starts, hi, 0, 0, rec);
    CK(cudaDeviceSynchronize());
    std::vector<unsigned> h((size_t)nsm * N * 3);
    CK(cudaMemcpy(h.data(), rec, h.size() * 4, cudaMemcpyDeviceToHost));
    Run r;
    for (int s = 0; s < nsm; s++)
      for (int i = 16; i < N; i++) {  // the first steps warm the instruction caches
        const unsigned *x = &h[3 * ((size_t)s * N + i)];
        r.a.push_back(x[0]);
        r.issue.push_back(x[1]);
        r.b.push_back(x[2]);
      }
    return r;
  };
  const char *hist_path = getenv("HIST");
  FILE *hist = hist_path ? fopen(hist_path, "w") : nullptr;
  if (hist)
    fprintf(hist, "experiment,dist_bytes,delay_cycles,which,bin_lo_cycles,count\n");
  auto histogram = [&](const char *exp, unsigned dist, unsigned delay, const char *which,
                       const std::vector<double> &v) {
    if (!hist)
      return;
    std::vector<long> c(400, 0);
    for (double x : v)
      c[std::min(399, std::max(0, (int)(x / 10)))]++;
    for (int i = 0; i < 400; i++)
      if (c[i])
        fprintf(hist, "%s,%u,%u,%s,%d,%ld\n", exp, dist, delay, which, i * 10, c[i]);
  };

  printf("experiment,dist_bytes,delay_cycles,steps,a_mean,a_p10,a_p50,a_p90,a_slow,"
         "b_mean,b_p50,b_p90,pair_mean,b_slow_if_a_fast,b_slow_if_a_slow,corr\n");
  // one row: a's latencies, the second line's (known where it came back after the first: its
  // return less its issue; else no later than the first), and how the second follows the first
  auto row = [&](const char *exp, unsigned dist, unsigned delay, const Run &r,
                 const Run *other) {
    std::vector<double> a, b, both;
    double n_af = 0, n_as = 0, bs_af = 0, bs_as = 0;
    for (size_t k = 0; k < r.a.size(); k++) {
      double la = r.a[k];
      a.push_back(la);
      if (other) {  // repeat: the same line in the other launch
        b.push_back(other->a[k]);
        both.push_back(std::max(la, (double)other->a[k]));
      } else {
        double issue = r.issue[k], back = r.b[k];
        b.push_back(back - issue);  // the second's latency, or an upper bound of it
        both.push_back(back);
      }
      bool as = la > SLOW, bsl = b.back() > SLOW;
      (as ? n_as : n_af) += 1;
      if (bsl)
        (as ? bs_as : bs_af) += 1;
    }
    double ma = mean(a), mb = mean(b), sab = 0, saa = 0, sbb = 0;
    for (size_t k = 0; k < a.size(); k++) {
      sab += (a[k] - ma) * (b[k] - mb);
      saa += (a[k] - ma) * (a[k] - ma);
      sbb += (b[k] - mb) * (b[k] - mb);
    }
    printf("%s,%u,%u,%zu,%.1f,%.0f,%.0f,%.0f,%.3f,%.1f,%.0f,%.0f,%.1f,%.3f,%.3f,%.3f\n", exp,
           dist, delay, a.size(), ma, quant(a, .1), quant(a, .5), quant(a, .9), n_as / a.size(),
           mb, quant(b, .5), quant(b, .9), mean(both), bs_af / std::max(n_af, 1.0),
           bs_as / std::max(n_as, 1.0), sab / std::sqrt(saa * sbb));
    fflush(stdout);
    histogram(exp, dist, delay, "first", a);
    histogram(exp, dist, delay, "both", both);
  };

  launch(false, 0, 0);  // not kept: the first launch
  Run s1 = launch(false, 0, 0), s2 = launch(false, 0, 0);
  row("single", 0, 0, s1, nullptr);
  row("repeat", 0, 0, s1, &s2);
  const unsigned dists[] = {128,     256,     384,     512,     768,      1024,     1536,
                            2048,    3072,    4096,    8192,    16384,    32768,    65536,
                            262144,  1 << 20, 4 << 20, 16 << 20, 64 << 20, 256 << 20};
  for (unsigned d : dists)
    row("pair", d, 0, launch(true, d, 0), nullptr);
  const unsigned delays[] = {0, 100, 300, 1000, 3000};
  for (unsigned d : {128u, 16u << 20})
    for (unsigned dl : delays)
      row("delay", d, dl, launch(true, d, dl), nullptr);
  if (hist)
    fclose(hist);
  return 0;
}
