#include <doctest/doctest.h>

#include <algorithm>
#include <vector>

#include "lib/core/parallel.hpp"

TEST_CASE("parallel_for visits every index exactly once") {
  fsicut::set_threads(2);
  std::vector<int> hits(1000, 0);
  fsicut::parallel_for(0, 1000, [&](fsicut::Index i) { hits[i] += 1; });
  for (int h : hits) CHECK(h == 1);
  CHECK(fsicut::threads() == 2);
}

TEST_CASE("Chunks split a range into one contiguous run per thread in order and into one run below the threshold") {
  fsicut::set_threads(2);
  for (const fsicut::Index n : {fsicut::Index(0), fsicut::Index(1), fsicut::Index(7), fsicut::Index(100001)}) {
    CAPTURE(n);
    const fsicut::Chunks chunks(n, 5);
    CHECK(chunks.count == (n < 5 ? 1 : 2));
    CHECK(chunks.begin(0) == 0);
    CHECK(chunks.begin(chunks.count) == n);
    for (int c = 0; c < chunks.count; ++c) CHECK(chunks.begin(c) <= chunks.begin(c + 1));
    std::vector<int> owner(static_cast<std::size_t>(n), -1);
    chunks.each([&](int c) {
      for (fsicut::Index i = chunks.begin(c); i < chunks.begin(c + 1); ++i) owner[i] = c;
    });
    bool ordered = true, covered = true;
    for (fsicut::Index i = 1; i < n; ++i) ordered = ordered && owner[i] >= owner[i - 1];
    for (int o : owner) covered = covered && o >= 0;
    CHECK(ordered);
    CHECK(covered);
  }
}

TEST_CASE("parallel_for_from visits every index once below and above its threshold") {
  fsicut::set_threads(2);
  for (const fsicut::Index n : {fsicut::Index(3), fsicut::Index(5000)}) {
    std::vector<int> hits(static_cast<std::size_t>(n), 0);
    fsicut::parallel_for_from(100, n, [&](fsicut::Index i) { hits[i] += 1; });
    CHECK(std::count(hits.begin(), hits.end(), 1) == n);
  }
}
