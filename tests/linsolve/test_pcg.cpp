#include <doctest/doctest.h>

#include "lib/linsolve/pcg.hpp"

using namespace fsicut;
using namespace fsicut::linsolve;

namespace {
// 3-D 7-point Laplacian with Dirichlet walls on an n^3 grid: SPD, condition ~ n^2.
SparseMatrix laplacian(int n) {
  std::vector<Eigen::Triplet<Real>> t;
  auto id = [n](int i, int j, int k) { return (k * n + j) * n + i; };
  for (int k = 0; k < n; ++k)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        int r = id(i, j, k);
        t.emplace_back(r, r, 6.0);
        if (i > 0) t.emplace_back(r, id(i - 1, j, k), -1.0);
        if (i + 1 < n) t.emplace_back(r, id(i + 1, j, k), -1.0);
        if (j > 0) t.emplace_back(r, id(i, j - 1, k), -1.0);
        if (j + 1 < n) t.emplace_back(r, id(i, j + 1, k), -1.0);
        if (k > 0) t.emplace_back(r, id(i, j, k - 1), -1.0);
        if (k + 1 < n) t.emplace_back(r, id(i, j, k + 1), -1.0);
      }
  SparseMatrix A(n * n * n, n * n * n);
  A.setFromTriplets(t.begin(), t.end());
  return A;
}
}  // namespace

TEST_CASE("PCG reaches the requested relative residual and reports it truthfully") {
  const SparseMatrix A = laplacian(16);
  Vector x_true = Vector::LinSpaced(A.rows(), -1.0, 2.0);
  Vector b = A * x_true;
  for (auto pre : {Preconditioner::none, Preconditioner::jacobi, Preconditioner::incomplete_cholesky}) {
    Vector x = Vector::Zero(b.size());
    PcgSettings s;
    s.preconditioner = pre;
    Report r = solve_pcg(A, b, x, s);
    CHECK(r.converged);
    CHECK(r.relative_residual <= 1e-10);
    CHECK((b - A * x).norm() / b.norm() == doctest::Approx(r.relative_residual));
    CHECK((x - x_true).norm() / x_true.norm() < 1e-8);
  }
}

TEST_CASE("PCG with incomplete Cholesky needs fewer iterations than plain CG") {
  const SparseMatrix A = laplacian(20);
  Vector b = Vector::Ones(A.rows());
  Vector x0 = Vector::Zero(b.size()), x1 = Vector::Zero(b.size());
  PcgSettings plain{1e-10, 2000, Preconditioner::none};
  PcgSettings ic{1e-10, 2000, Preconditioner::incomplete_cholesky};
  Report r0 = solve_pcg(A, b, x0, plain), r1 = solve_pcg(A, b, x1, ic);
  MESSAGE("CG iterations " << r0.iterations << ", ICPCG iterations " << r1.iterations);
  CHECK(r1.converged);
  CHECK(r1.iterations < r0.iterations);
}

TEST_CASE("PCG reports failure when the iteration budget is too small") {
  const SparseMatrix A = laplacian(16);
  Vector b = Vector::Ones(A.rows()), x = Vector::Zero(b.size());
  Report r = solve_pcg(A, b, x, PcgSettings{1e-12, 3, Preconditioner::none});
  CHECK_FALSE(r.converged);
  CHECK(r.iterations == 3);
  CHECK(r.relative_residual > 1e-12);
}

TEST_CASE("PCG separates meeting the tolerance from stopping at the round-off floor") {
  const SparseMatrix A = laplacian(12);
  const Vector x_true = Vector::LinSpaced(A.rows(), -1.0, 2.0);
  const Vector b = A * x_true;
  const ApplyPreconditioner mic = make_preconditioner(Preconditioner::modified_incomplete_cholesky, A);
  REQUIRE(mic);
  // A reachable tolerance: both flags.
  Vector x = Vector::Zero(b.size());
  Report r = solve_pcg(A, b, x, PcgSettings{1e-10, 2000, Preconditioner::none}, mic);
  CHECK(r.converged);
  CHECK(r.met_tolerance);
  CHECK(r.relative_residual <= 1e-10);
  // A tolerance below double precision (eps = 2.2e-16): no iterate's residual
  // can be evaluated that accurately. PCG stops at the round-off floor:
  // converged (within ROUND_OFF_MARGIN of the floor), not met_tolerance.
  x.setZero();
  r = solve_pcg(A, b, x, PcgSettings{1e-18, 2000, Preconditioner::none}, mic);
  MESSAGE("relative residual " << r.relative_residual << ", round-off floor " << r.round_off_floor);
  CHECK(r.round_off_floor > 1e-18);
  CHECK(r.round_off_floor == doctest::Approx(round_off_floor(A, b, x)));
  CHECK(r.relative_residual <= ROUND_OFF_MARGIN * r.round_off_floor);
  CHECK(r.converged);
  CHECK_FALSE(r.met_tolerance);
  // Too few iterations: neither.
  x.setZero();
  r = solve_pcg(A, b, x, PcgSettings{1e-10, 2, Preconditioner::none}, mic);
  CHECK_FALSE(r.converged);
  CHECK_FALSE(r.met_tolerance);
}

TEST_CASE("the worst of two reports met the tolerance only if both did") {
  Report met = nothing_to_solve();
  met.relative_residual = 1e-11;
  Report floor = met;
  floor.met_tolerance = false;  // converged at the round-off floor
  floor.relative_residual = 5e-11;
  floor.round_off_floor = 1e-11;
  CHECK(met.met_tolerance);
  CHECK_FALSE(worst(met, floor).met_tolerance);
  CHECK_FALSE(worst(floor, met).met_tolerance);
  CHECK(worst(met, floor).round_off_floor == 1e-11);
  // The pick itself is unchanged: the larger residual among converged solves.
  Report larger_met = met;
  larger_met.relative_residual = 8e-11;
  CHECK(worst(larger_met, floor).relative_residual == 8e-11);
  CHECK_FALSE(worst(larger_met, floor).met_tolerance);
  CHECK(worst(met, larger_met).met_tolerance);
}
