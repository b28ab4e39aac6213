#pragma once
// Thread control and the one loop primitive the stages use. Static scheduling
// keeps the split of work a function of the thread count only, so runs are
// reproducible for a given --threads.
#include "lib/core/types.hpp"

namespace fsicut {

// n > 0: use n threads; n == 0: OMP_NUM_THREADS if set, otherwise all cores.
void set_threads(int n);
int threads();

template <class F>
void parallel_for(Index begin, Index end, F&& body) {
#pragma omp parallel for schedule(static)
  for (Index i = begin; i < end; ++i) body(i);
}

}  // namespace fsicut
