// The checkpoint codecs of the solvers' reports (lib/checkpoint/reports.hpp):
// every member survives the round trip bit for bit, in the layout format.hpp
// gives for section CLCK.
#include <doctest/doctest.h>

#include <cstring>
#include <limits>
#include <string>

#include "lib/checkpoint/reports.hpp"
#include "tests/support.hpp"

using namespace fsicut;
using namespace fsicut::checkpoint;

TEST_CASE("linsolve::Report survives the round trip member for member") {
  for (const bool flag : {true, false}) {
    CAPTURE(flag);
    const linsolve::Report a{flag, !flag, 17, 3.5e-11, 1e-13, 1234, flag ? "no failure" : ""};
    ByteWriter w;
    put(w, a);
    // u8 converged, u8 met_tolerance, i32 iterations, f64 relative_residual,
    // f64 round_off_floor, i32 unknowns, str failure.
    REQUIRE(w.size() == 1 + 1 + 4 + 8 + 8 + 4 + 8 + a.failure.size());
    CHECK(w.bytes()[0] == (flag ? 1 : 0));
    CHECK(w.bytes()[1] == (flag ? 0 : 1));
    double residual;
    std::memcpy(&residual, w.bytes().data() + 6, 8);
    CHECK(residual == 3.5e-11);
    linsolve::Report b;
    b.failure = "stale";
    ByteReader r(w.bytes().data(), w.size(), "mem (section CLCK)");
    get(r, b);
    CHECK(r.done());
    CHECK(b.converged == a.converged);
    CHECK(b.met_tolerance == a.met_tolerance);
    CHECK(b.iterations == 17);
    CHECK(b.relative_residual == 3.5e-11);
    CHECK(b.round_off_floor == 1e-13);
    CHECK(b.unknowns == 1234);
    CHECK(b.failure == a.failure);
  }
}

TEST_CASE("coupling::PartitionedReport survives the round trip member for member - a residual that overflowed too") {
  const coupling::PartitionedReport a{true, 7, std::numeric_limits<Real>::infinity(), 0.5, 0.125, 0.0625};
  ByteWriter w;
  put(w, a);
  // u8 converged, i32 iterations, f64 interface_residual, f64 fluid_seconds,
  // f64 solid_seconds, f64 interface_seconds.
  REQUIRE(w.size() == 1 + 4 + 4 * 8);
  coupling::PartitionedReport b;
  ByteReader r(w.bytes().data(), w.size(), "mem (section CLCK)");
  get(r, b);
  CHECK(r.done());
  CHECK(b.converged);
  CHECK(b.iterations == 7);
  CHECK(b.interface_residual == std::numeric_limits<Real>::infinity());
  CHECK(b.fluid_seconds == 0.5);
  CHECK(b.solid_seconds == 0.125);
  CHECK(b.interface_seconds == 0.0625);
  ByteReader cut(w.bytes().data(), w.size() - 1, "f (section CLCK)");
  test::require_error<CorruptError>([&] { get(cut, b); }, {"f (section CLCK): unexpected end of data"});
}

// Every member is stored (lib/checkpoint/reports.hpp). A new member changes
// the struct's size: write it in put and read it in get (and bump the
// checkpoint format), then the sizes here. Sizes are those of x86-64 with
// libstdc++, where CI runs.
TEST_CASE("the checkpointed reports have the members reports.hpp lists") {
#if defined(__x86_64__) && defined(__GLIBCXX__)
  CHECK_MESSAGE(sizeof(linsolve::Report) == 64, "linsolve::Report changed: update lib/checkpoint/reports.hpp");
  CHECK_MESSAGE(sizeof(coupling::PartitionedReport) == 40,
                "coupling::PartitionedReport changed: update lib/checkpoint/reports.hpp");
#else
  MESSAGE("struct sizes are only recorded for x86-64 with libstdc++");
#endif
}
