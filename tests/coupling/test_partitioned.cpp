// The partitioned iteration (coupling/partitioned.hpp) on sides written by
// hand: what it calls converged, what diverged, and what its failures say
// (tests/sim/test_partitioned_coupling.cpp runs it on the driver's systems).
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>

#include "lib/coupling/partitioned.hpp"
#include "tests/support.hpp"

namespace fsicut {
namespace {

using coupling::PartitionedSettings;
using coupling::Vector;

using test::contains;

// One dof: the liquid answers v with g = -a v [N], the solid answers g with
// v = b + g / m [m/s]. Plain iteration's error is multiplied by -a / m each
// pass (the weak amplification), the fixed point is b / (1 + a / m).
struct Toy {
  Real a, m, b;
  coupling::FluidSide fluid() const {
    const Real k = a;
    return [k](const Vector& v) { return Vector(-k * v); };
  }
  coupling::SolidSide solid() const {
    const Real mass = m, rhs = b;
    return [mass, rhs](const Vector& g) { return Vector((rhs + g.array() / mass).matrix()); };
  }
};

PartitionedSettings plain(Real tolerance, int max_iterations) {
  PartitionedSettings s;
  s.tolerance = tolerance;
  s.max_iterations = max_iterations;
  return s;
}

}  // namespace

TEST_CASE("partitioned: a residual above the velocity bound is never converged - whatever the tolerance") {
  // A light body (a / m = 4): the first pass jumps from 0 to 100 m/s and every
  // pass after it four times further. A tolerance of 1e9 m/s let the first
  // pass through as converged; a bound of 10 m/s (what the scene's energy
  // explains) does not, and the iteration that ends above it is diverged.
  const Toy light{4, 1, 100};
  PartitionedSettings s = plain(1e9, 3);
  s.velocity_bound = 10;
  const coupling::PartitionedResult r = coupling::iterate(light.fluid(), light.solid(), Vector::Zero(1), s);
  MESSAGE("residual " << r.report.interface_residual << " m/s after " << r.report.iterations << " iterations");
  CHECK_FALSE(r.report.converged);
  CHECK(r.report.iterations == 3);
  CHECK(r.report.interface_residual > 10);
  CHECK(coupling::diverged(r.report, s));
  const linsolve::Report rep = coupling::partitioned_report(linsolve::nothing_to_solve(), r.report, s);
  CHECK_FALSE(rep.converged);
  CHECK_FALSE(rep.met_tolerance);
  MESSAGE(rep.failure);
  CHECK(contains(rep.failure, "the partitioned iteration diverged: interface residual 1600 m/s after 3 "
                              "iterations, above 10 m/s"));

  // Without a bound (infinite, the default) the same tolerance still accepts it.
  const coupling::PartitionedResult loose = coupling::iterate(light.fluid(), light.solid(), Vector::Zero(1), plain(1e9, 3));
  CHECK(loose.report.converged);
  CHECK(loose.report.iterations == 1);
}

TEST_CASE("partitioned: an under-relaxed iteration may pass through residuals above the bound and still converge") {
  // omega (1 + a / m) = 0.25 * 5 < 2: converges, though its first pass
  // changes v by 100 m/s, ten times the bound.
  const Toy light{4, 1, 100};
  PartitionedSettings s = plain(1e-9, 200);
  s.relaxation = 0.25;
  s.velocity_bound = 10;
  const coupling::PartitionedResult r = coupling::iterate(light.fluid(), light.solid(), Vector::Zero(1), s);
  CHECK(r.report.converged);
  CHECK_FALSE(coupling::diverged(r.report, s));
  CHECK(r.velocity[0] == doctest::Approx(100.0 / 5));
}

TEST_CASE("partitioned: a residual that is not finite ends the iteration as diverged - never a number like nan") {
  const coupling::FluidSide broken = [](const Vector& v) {
    return Vector(Vector::Constant(v.size(), std::numeric_limits<Real>::quiet_NaN()));
  };
  const Toy toy{0.5, 1, 1};
  const PartitionedSettings s = plain(1e-3, 30);
  const coupling::PartitionedResult r = coupling::iterate(broken, toy.solid(), Vector::Zero(1), s);
  CHECK_FALSE(r.report.converged);
  CHECK(r.report.iterations == 1);
  CHECK(coupling::diverged(r.report, s));
  const linsolve::Report rep = coupling::partitioned_report(linsolve::nothing_to_solve(), r.report, s);
  MESSAGE(rep.failure);
  CHECK(contains(rep.failure, "the partitioned iteration diverged: the interface residual is not finite after 1 iterations"));
  CHECK_FALSE(contains(rep.failure, "nan"));
}

TEST_CASE("partitioned: the failure message prints tolerance and residual as a user writes them (1e-30 - not 0.000000)") {
  const Toy toy{0.5, 1, 1};
  const PartitionedSettings s = plain(1e-30, 2);
  const coupling::PartitionedResult r = coupling::iterate(toy.fluid(), toy.solid(), Vector::Zero(1), s);
  REQUIRE_FALSE(r.report.converged);
  const linsolve::Report rep = coupling::partitioned_report(linsolve::nothing_to_solve(), r.report, s);
  MESSAGE(rep.failure);
  // Passes 0 -> 1 -> 0.5: the last change is 0.5 m/s.
  CHECK(contains(rep.failure, "the partitioned iteration did not converge: interface residual 0.5 m/s after 2 "
                              "iterations (tolerance 1e-30 m/s)"));
  CHECK_FALSE(contains(rep.failure, "0.000000"));
}

}  // namespace fsicut
