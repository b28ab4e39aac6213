#pragma once
// Thread control and the one loop primitive the stages use. Static scheduling
// keeps the split of work a function of the thread count only, so runs are
// reproducible for a given --threads.
#include "lib/core/types.hpp"

namespace fsicut {

// Makes idle OpenMP threads sleep instead of spinning, unless the user set
// OMP_WAIT_POLICY. A spinning team steals the cores it shares: with one other
// busy process on a 2-core machine, 20,000 small parallel loops took 16-22 s
// spinning and 0.5-1.3 s passive; the paper dam break at 64^3 ran 0.27x as fast
// on 2 threads as on 1. libgomp reads its environment once, when the program
// is loaded (before main), so setting the variable is not enough: the program
// is executed again (/proc/self/exe with `argv` as main received it) with
// OMP_WAIT_POLICY=PASSIVE. Call first thing in main, before any other effect.
// Returns when the policy is the user's or passive, or when executing again
// failed (the run goes on with libgomp's default).
void use_passive_wait_policy(char** argv);

// n > 0: use n threads; n == 0: OMP_NUM_THREADS if set, otherwise all cores.
void set_threads(int n);
int threads();

template <class F>
void parallel_for(Index begin, Index end, F&& body) {
#pragma omp parallel for schedule(static)
  for (Index i = begin; i < end; ++i) body(i);
}

// body(i) for i in [0, n), in parallel only from min_parallel items on: below
// that a loop is shorter than an OpenMP fork and join.
template <class F>
void parallel_for_from(Index min_parallel, Index n, const F& body) {
  if (n < min_parallel) {
    for (Index i = 0; i < n; ++i) body(i);
  } else {
    parallel_for(0, n, body);
  }
}

// [0, rows) split into `count` contiguous ranges [begin(c), begin(c + 1)), one
// per thread (a single one below min_parallel rows): for kernels that gather
// per-thread buffers and then place them in order. each(body) calls body(c)
// for every chunk c, in parallel.
struct Chunks {
  Index rows;
  int count;
  Chunks(Index n, Index min_parallel) : rows(n), count(n < min_parallel || threads() < 1 ? 1 : threads()) {}
  Index begin(int c) const { return rows * c / count; }
  template <class F>
  void each(const F& body) const {
    if (count == 1) body(0);
    else parallel_for(0, count, [&](Index c) { body(static_cast<int>(c)); });
  }
};

}  // namespace fsicut
