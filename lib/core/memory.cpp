#include "lib/core/memory.hpp"

#include <cstdlib>  // defines __GLIBC__ on glibc

#if defined(__GLIBC__)
#include <malloc.h>

#include <climits>
#endif

namespace fsicut {

void retain_freed_memory() {
#if defined(__GLIBC__)
  // Every chunk from the heap, none mmap'd (glibc still falls back to mmap when
  // the heap cannot grow), and the heap's top trimmed only past 2 GiB free.
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, INT_MAX);
#endif
}

}  // namespace fsicut
