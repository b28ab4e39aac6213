#include <doctest/doctest.h>

#include <random>

#include "lib/linsolve/minres.hpp"

using namespace fsicut;
using namespace fsicut::linsolve;

namespace {

// A saddle-point matrix [G J^T; J 0]: G SPD (a 1-D Laplacian plus a mass), J
// a full-row-rank difference operator, so the matrix is symmetric,
// indefinite and nonsingular.
SparseMatrix saddle_point(int n, int m) {
  std::vector<Eigen::Triplet<Real>> t;
  for (int i = 0; i < n; ++i) {
    t.emplace_back(i, i, 2.5 + 0.1 * i);
    if (i > 0) t.emplace_back(i, i - 1, -1.0), t.emplace_back(i - 1, i, -1.0);
  }
  for (int r = 0; r < m; ++r) {
    t.emplace_back(n + r, 2 * r, 1.0), t.emplace_back(2 * r, n + r, 1.0);
    t.emplace_back(n + r, 2 * r + 1, -1.0), t.emplace_back(2 * r + 1, n + r, -1.0);
  }
  SparseMatrix A(n + m, n + m);
  A.setFromTriplets(t.begin(), t.end());
  return A;
}

}  // namespace

TEST_CASE("minres: a saddle-point system is solved to its tolerance, matching a direct solve") {
  const int n = 40, m = 15;
  const SparseMatrix A = saddle_point(n, m);
  std::mt19937 rng(7);
  std::uniform_real_distribution<Real> d(-1, 1);
  Vector b(n + m);
  for (Index i = 0; i < b.size(); ++i) b[i] = d(rng);
  const Vector exact = Eigen::MatrixXd(A).fullPivLu().solve(b);
  const ApplyOperator apply = [&](const Vector& x, Vector& y) { y = A * x; };
  const ApplyPreconditioner identity = [](const Vector& r, Vector& z) { z = r; };
  for (const Real tolerance : {1e-4, 1e-10}) {
    Vector x = Vector::Zero(n + m);
    const Report r = solve_minres(apply, identity, b, x, MinresSettings{tolerance, 1000});
    CHECK(r.converged);
    CHECK(r.relative_residual <= tolerance);
    CHECK((b - A * x).norm() / b.norm() == doctest::Approx(r.relative_residual).epsilon(1e-6));
    CHECK((x - exact).norm() / exact.norm() < 1e3 * tolerance);
  }
  // A diagonal SPD preconditioner (|diag| on the G block, 1 on the zero block)
  // changes the path, not the answer.
  const ApplyPreconditioner jacobi = [&](const Vector& r, Vector& z) {
    z = r;
    for (int i = 0; i < n; ++i) z[i] /= A.coeff(i, i);
  };
  Vector x = Vector::Zero(n + m);
  const Report r = solve_minres(apply, jacobi, b, x, MinresSettings{1e-10, 1000});
  CHECK(r.converged);
  CHECK((x - exact).norm() / exact.norm() < 1e-7);
  // A warm start at the solution takes no iteration; a cap too small fails honestly.
  const Report again = solve_minres(apply, jacobi, b, x, MinresSettings{1e-8, 1000});
  CHECK(again.iterations == 0);
  Vector y = Vector::Zero(n + m);
  const Report capped = solve_minres(apply, jacobi, b, y, MinresSettings{1e-12, 3});
  CHECK_FALSE(capped.converged);
  CHECK(capped.iterations == 3);
  CHECK(capped.relative_residual > 1e-12);
}
