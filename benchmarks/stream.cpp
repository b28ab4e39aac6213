// The machine's memory bandwidth, STREAM style (McCalpin): the floor that a
// memory-bound kernel such as a sparse matrix-vector product cannot beat.
//   fsicut_bench_stream [MEGABYTES_PER_ARRAY]
// Three arrays of doubles (default 128 MB each, far beyond any cache), the four
// STREAM kernels run 10 times each in parallel (OMP_NUM_THREADS threads,
// default all cores), the best time of each kept. Prints one JSON object with
// GB/s per kernel (bytes counted as STREAM does: 2 arrays for copy and scale,
// 3 for add and triad; write-allocate traffic not counted).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <vector>

#include "lib/core/parallel.hpp"

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

int main(int argc, char** argv) {
  const double megabytes = argc > 1 ? std::atof(argv[1]) : 128;
  if (!(megabytes > 0)) {
    std::fprintf(stderr, "usage: %s [MEGABYTES_PER_ARRAY]\n", argv[0]);
    return 64;
  }
  fsicut::set_threads(0);
  const fsicut::Index n = static_cast<fsicut::Index>(megabytes * 1e6 / sizeof(double));
  std::vector<double> a(n), b(n), c(n);
  // First touch in parallel, so each thread's pages sit where it runs.
  fsicut::parallel_for(0, n, [&](fsicut::Index i) {
    a[i] = 1;
    b[i] = 2;
    c[i] = 0;
  });
  const double s = 3;
  double best[4];
  std::fill(best, best + 4, std::numeric_limits<double>::infinity());
  for (int repeat = 0; repeat < 10; ++repeat) {
    double t = now();
    fsicut::parallel_for(0, n, [&](fsicut::Index i) { c[i] = a[i]; });
    best[0] = std::min(best[0], now() - t);
    t = now();
    fsicut::parallel_for(0, n, [&](fsicut::Index i) { b[i] = s * c[i]; });
    best[1] = std::min(best[1], now() - t);
    t = now();
    fsicut::parallel_for(0, n, [&](fsicut::Index i) { c[i] = a[i] + b[i]; });
    best[2] = std::min(best[2], now() - t);
    t = now();
    fsicut::parallel_for(0, n, [&](fsicut::Index i) { a[i] = b[i] + s * c[i]; });
    best[3] = std::min(best[3], now() - t);
  }
  const double bytes[4] = {2.0 * n * sizeof(double), 2.0 * n * sizeof(double), 3.0 * n * sizeof(double),
                           3.0 * n * sizeof(double)};
  // A use of the result, so no loop is optimized away.
  double check = 0;
  for (fsicut::Index i = 0; i < n; i += 4096) check += a[i];
  std::printf("{\"threads\": %d, \"megabytes_per_array\": %g, \"copy_GBps\": %.4g, \"scale_GBps\": %.4g, "
              "\"add_GBps\": %.4g, \"triad_GBps\": %.4g, \"checksum\": %g}\n",
              fsicut::threads(), megabytes, bytes[0] / best[0] / 1e9, bytes[1] / best[1] / 1e9,
              bytes[2] / best[2] / 1e9, bytes[3] / best[3] / 1e9, check);
  return 0;
}
