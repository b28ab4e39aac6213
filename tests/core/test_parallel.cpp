#include <doctest/doctest.h>

#include <vector>

#include "lib/core/parallel.hpp"

TEST_CASE("parallel_for visits every index exactly once") {
  fsicut::set_threads(2);
  std::vector<int> hits(1000, 0);
  fsicut::parallel_for(0, 1000, [&](fsicut::Index i) { hits[i] += 1; });
  for (int h : hits) CHECK(h == 1);
  CHECK(fsicut::threads() == 2);
}
