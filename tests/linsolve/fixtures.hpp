#pragma once
// Random data shared by the tests of lib/linsolve.
#include <random>

#include "lib/linsolve/pcg.hpp"

namespace fsicut::test {

// n values drawn uniformly from [lo, hi) by `rng`, in order.
inline linsolve::Vector random_vector(Index n, std::mt19937& rng, Real lo = -1, Real hi = 1) {
  std::uniform_real_distribution<Real> value(lo, hi);
  linsolve::Vector v(n);
  for (Index i = 0; i < n; ++i) v[i] = value(rng);
  return v;
}

// n values in [-1, 1) from a generator seeded with `seed`.
inline linsolve::Vector random_vector(Index n, unsigned seed) {
  std::mt19937 rng(seed);
  return random_vector(n, rng);
}

}  // namespace fsicut::test
