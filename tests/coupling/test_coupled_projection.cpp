// The coupled solve of (33) on systems written by hand: what it reports when
// the solid block cannot be factored (tests/sim/test_coupled_system.cpp checks
// the systems the driver assembles from real cut-cell geometry).
#include <doctest/doctest.h>

#include <string>

#include "lib/coupling/coupled_projection.hpp"

namespace fsicut {
namespace {
using coupling::SparseMatrix;
using coupling::Vector;
}  // namespace

TEST_CASE("coupled spd: a solid block that is not positive definite is reported as a failed factorization") {
  // One cell, one dof. Z2 = (1 - sigma) m + k = -0.4 makes the solid block of
  // (33), Z2 + Z2^2 / Z1 = -0.4 + 0.16 / 0.9, negative: what a flat tet does.
  coupling::CoupledSystem sys;
  sys.fluid = SparseMatrix(1, 1);
  sys.fluid.insert(0, 0) = 1;
  sys.fluid_rhs = Vector::Ones(1);
  sys.coupling = SparseMatrix(1, 1);
  sys.coupling.insert(0, 0) = 0.5;
  sys.solid.mass_term = Vector::Ones(1);
  sys.solid.stiffness_term = SparseMatrix(1, 1);
  sys.solid.stiffness_term.insert(0, 0) = -0.5;
  sys.solid.rhs = Vector::Ones(1);
  coupling::CoupledSettings settings;
  settings.sigma = 0.9;
  const coupling::CoupledSolution s = coupling::solve_spd(sys, settings, {});
  MESSAGE("report: converged " << s.report.converged << ", " << s.report.failure);
  CHECK_FALSE(s.report.converged);
  CHECK(s.report.iterations == 0);
  CHECK(s.report.relative_residual == doctest::Approx(1));  // still the zero guess
  CHECK(s.report.failure.find("solid block") != std::string::npos);
  // The cause in numbers: K's negative diagonal, not a guess about the mesh.
  REQUIRE(s.solid_failure);
  CHECK(s.solid_failure->min_stiffness == -0.5);
  CHECK(s.solid_failure->pivot_ratio < 0);
  CHECK(s.report.failure.find("negative diagonal") != std::string::npos);
  CHECK(s.report.failure.find("flat") == std::string::npos);
  // A positive stiffness factors and solves.
  sys.solid.stiffness_term.coeffRef(0, 0) = 0.5;
  const coupling::CoupledSolution ok = coupling::solve_spd(sys, settings, {});
  CHECK(ok.report.converged);
  CHECK(ok.report.failure.empty());
  CHECK(!ok.solid_failure);
}

TEST_CASE("coupled spd: a solid block beyond double precision names its stiffness-to-mass ratio") {
  // Two dofs joined by a spring of stiffness term k over mass terms m: the
  // block (33) has eigenvalues from (1 - sigma) m / sigma (the rigid motion)
  // to (1 - sigma + 2k/m)(1 + 2k/m) m / sigma; at k/m = 1e10 their ratio,
  // 4e21, is far past 1/eps, and the factorization meets round-off.
  coupling::CoupledSystem sys;
  sys.fluid = SparseMatrix(1, 1);
  sys.fluid.insert(0, 0) = 1;
  sys.fluid_rhs = Vector::Ones(1);
  sys.coupling = SparseMatrix(1, 2);
  sys.coupling.insert(0, 0) = 0.5;
  sys.solid.mass_term = Vector::Ones(2);
  const Real k = 1e10;
  sys.solid.stiffness_term = SparseMatrix(2, 2);
  sys.solid.stiffness_term.insert(0, 0) = k;
  sys.solid.stiffness_term.insert(0, 1) = -k;
  sys.solid.stiffness_term.insert(1, 0) = -k;
  sys.solid.stiffness_term.insert(1, 1) = k;
  sys.solid.rhs = Vector::Ones(2);
  coupling::CoupledSettings settings;
  settings.sigma = 0.9;
  const coupling::CoupledSolution s = coupling::solve_spd(sys, settings, {});
  MESSAGE(s.report.failure);
  CHECK_FALSE(s.report.converged);
  REQUIRE(s.solid_failure);
  CHECK(s.solid_failure->stiffness_to_mass == k);
  CHECK(s.solid_failure->condition_estimate == doctest::Approx((0.1 + k) * (1 + k) / 0.1));
  CHECK(s.solid_failure->min_stiffness == k);
  CHECK(s.report.failure.find("too stiff for its mass") != std::string::npos);
  CHECK(s.report.failure.find("flat") == std::string::npos);
  // The same spring a million times softer: well conditioned, solved.
  sys.solid.stiffness_term *= 1e-6;
  const coupling::CoupledSolution soft = coupling::solve_spd(sys, settings, {});
  CHECK(soft.report.converged);
  CHECK(!soft.solid_failure);
}

}  // namespace fsicut
