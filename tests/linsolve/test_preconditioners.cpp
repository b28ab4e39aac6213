#include <doctest/doctest.h>

#include <Eigen/SparseCholesky>
#include <cmath>
#include <random>

#include "lib/linsolve/mic.hpp"
#include "lib/linsolve/multigrid.hpp"
#include "lib/linsolve/pcg.hpp"
#include "tests/linsolve/fixtures.hpp"

using namespace fsicut;
using namespace fsicut::linsolve;

namespace {

// The pressure Poisson matrix of a pool: liquid below the height 0.6 in the
// unit cube on an n^3 grid, around a round pillar (radius 0.2, axis y through
// (0.5, 0.5)) that is not an unknown; closed walls and pillar (Neumann: no
// term), ghost-fluid free surface on top (p = 0 at the height, the cell's
// distance to it as the fraction theta). Rows in grid order, x fastest.
struct Pool {
  SparseMatrix A;
  std::vector<Vec3i> cells;
};

Pool pool(int n) {
  const Real h = 1.0 / n, surface = 0.6, pillar = 0.2;
  const auto centre = [h](int i) { return (i + 0.5) * h; };
  const auto liquid = [&](int i, int j, int k) {
    if (i < 0 || j < 0 || k < 0 || i >= n || k >= n) return false;
    const Real dx = centre(i) - 0.5, dz = centre(k) - 0.5;
    return dx * dx + dz * dz > pillar * pillar;
  };
  Eigen::Array<int, Eigen::Dynamic, 1> row = Eigen::Array<int, Eigen::Dynamic, 1>::Constant(n * n * n, -1);
  const auto id = [n](int i, int j, int k) { return (k * n + j) * n + i; };
  Pool p;
  for (int k = 0; k < n; ++k)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i)
        if (centre(j) < surface && liquid(i, j, k)) {
          row[id(i, j, k)] = static_cast<int>(p.cells.size());
          p.cells.emplace_back(i, j, k);
        }
  std::vector<Eigen::Triplet<Real>> t;
  for (int r = 0; r < static_cast<int>(p.cells.size()); ++r) {
    const Vec3i c = p.cells[r];
    Real diag = 0;
    for (int a = 0; a < 3; ++a)
      for (int side : {-1, 1}) {
        Vec3i nb = c;
        nb[a] += side;
        if (!liquid(nb.x(), nb.y(), nb.z()) || nb.y() < 0) continue;
        if (nb.y() < n && row[id(nb.x(), nb.y(), nb.z())] >= 0) {
          diag += 1;
          t.emplace_back(r, row[id(nb.x(), nb.y(), nb.z())], -1.0);
        } else if (a == 1 && side > 0) {
          diag += 1 / std::max(0.01, (surface - centre(c.y())) / h);
        }
      }
    t.emplace_back(r, r, diag);
  }
  p.A.resize(static_cast<int>(p.cells.size()), static_cast<int>(p.cells.size()));
  p.A.setFromTriplets(t.begin(), t.end());
  return p;
}

int iterations(const Pool& p, Preconditioner kind) {
  const Vector b = p.A * test::random_vector(p.A.rows(), 7);
  Vector x = Vector::Zero(b.size());
  PcgSettings s;
  const Report r = solve_pcg(p.A, b, x, s, make_preconditioner(kind, p.A, p.cells));
  REQUIRE(r.converged);
  return r.iterations;
}

}  // namespace

TEST_CASE("preconditioners: multigrid, MIC(0) and IC(0) are symmetric and positive definite") {
  const Pool p = pool(20);
  REQUIRE(p.A.rows() > 3000);
  for (Preconditioner kind : {Preconditioner::multigrid, Preconditioner::modified_incomplete_cholesky,
                              Preconditioner::incomplete_cholesky}) {
    CAPTURE(static_cast<int>(kind));
    const ApplyPreconditioner apply = make_preconditioner(kind, p.A, p.cells);
    REQUIRE(apply);
    for (unsigned seed = 1; seed <= 3; ++seed) {
      const Vector x = test::random_vector(p.A.rows(), seed), y = test::random_vector(p.A.rows(), 100 + seed);
      Vector px, py;
      apply(x, px);
      apply(y, py);
      const Real xpy = x.dot(py), ypx = y.dot(px);
      CHECK(std::abs(xpy - ypx) <= 1e-12 * x.norm() * py.norm());
      CHECK(x.dot(px) > 0);
    }
  }
}

TEST_CASE("preconditioners: multigrid smoothing a lowered operator A - C is SPD and solves A - C") {
  // A = the pool's Laplacian plus a heavy rank-8 term E = 50 sum b b^T (b the
  // indicator of a 2x2x2 block of cells, as the coupling J Z1^-1 J^T adds a
  // solid's mass term to A11), C = 0.9 E: S = A - C is what a solid of
  // smaller inverse mass leaves. Multigrid built on A with the lowering C
  // must be SPD and PCG on S with it must converge.
  Pool p = pool(20);
  const int n = static_cast<int>(p.A.rows());
  SparseMatrix E(n, n);
  {
    std::vector<Eigen::Triplet<Real>> t;
    for (int k = 0; k < 8; ++k) {
      std::vector<int> block;
      const Vec3i corner(2 + 2 * k, 3 + (k % 2) * 4, 1);
      for (int r = 0; r < n; ++r)
        if ((p.cells[r] - corner).minCoeff() >= 0 && (p.cells[r] - corner).maxCoeff() <= 1) block.push_back(r);
      REQUIRE(block.size() == 8);
      for (int i : block)
        for (int j : block) t.emplace_back(i, j, 50.0);
    }
    E.setFromTriplets(t.begin(), t.end());
  }
  const SparseMatrix A = p.A + E, S = p.A + SparseMatrix(0.1 * E);
  const LinearOperator lowering = [&](const Vector& x, Vector& y) { y = 0.9 * (E * x); };
  const Multigrid lowered(A, p.cells, lowering);
  REQUIRE(lowered.ok());
  const ApplyPreconditioner apply = [&](const Vector& r, Vector& z) { lowered.apply(r, z); };
  for (unsigned seed = 1; seed <= 3; ++seed) {
    const Vector x = test::random_vector(n, seed), y = test::random_vector(n, 100 + seed);
    Vector px, py;
    apply(x, px);
    apply(y, py);
    CHECK(std::abs(x.dot(py) - y.dot(px)) <= 1e-12 * x.norm() * py.norm());
    CHECK(x.dot(px) > 0);
  }
  const Vector solution = test::random_vector(n, 7), b = S * solution;
  PcgSettings s;
  Vector x = Vector::Zero(n);
  const Report r = solve_pcg(S, b, x, s, apply);
  MESSAGE("PCG on A - C with the lowered multigrid: " << r.iterations << " iterations");
  CHECK(r.converged);
  CHECK((x - solution).norm() < 1e-6 * solution.norm());

  // The same lowering given on C's support only (the 64 block cells, C x
  // gathered and scattered there) is the same preconditioner, to round-off;
  // an empty support is C = 0.
  std::vector<int> support;
  for (int r = 0; r < n; ++r)
    if (E.outerIndexPtr()[r + 1] > E.outerIndexPtr()[r]) support.push_back(r);
  REQUIRE(support.size() == 64);
  SparseMatrix E_support(64, 64);
  {
    std::vector<Eigen::Triplet<Real>> t;
    for (int i = 0; i < 64; ++i)
      for (int j = 0; j < 64; ++j)
        if (E.coeff(support[i], support[j]) != 0) t.emplace_back(i, j, E.coeff(support[i], support[j]));
    E_support.setFromTriplets(t.begin(), t.end());
  }
  const Multigrid on_support(A, p.cells, [&](const Vector& xs, Vector& ys) { ys = 0.9 * (E_support * xs); },
                             support);
  const Multigrid no_lowering(A, p.cells, [&](const Vector&, Vector& ys) { ys = Vector::Zero(n); });
  const Multigrid empty_support(A, p.cells, [&](const Vector&, Vector&) { FAIL("called with no support"); }, {});
  for (unsigned seed = 1; seed <= 3; ++seed) {
    const Vector v = test::random_vector(n, 20 + seed);
    Vector full, gathered, zero, empty;
    lowered.apply(v, full);
    on_support.apply(v, gathered);
    no_lowering.apply(v, zero);
    empty_support.apply(v, empty);
    CHECK((full - gathered).norm() <= 1e-13 * full.norm());
    CHECK((zero - empty).norm() <= 1e-13 * zero.norm());
    CHECK((full - zero).norm() > 1e-3 * full.norm());  // C matters: the comparison above can fail
  }
}

TEST_CASE("preconditioners: multigrid builds a hierarchy down to a small coarsest level") {
  const Pool p = pool(24);
  const Multigrid mg(p.A, p.cells);
  REQUIRE(mg.ok());
  CHECK(mg.levels() >= 3);
}

TEST_CASE("preconditioners: multigrid PCG iterations barely grow with the resolution") {
  const int coarse = iterations(pool(16), Preconditioner::multigrid);
  const int fine = iterations(pool(32), Preconditioner::multigrid);
  MESSAGE("multigrid PCG iterations to 1e-10: " << coarse << " at 16^3, " << fine << " at 32^3");
  CHECK(fine <= 1.3 * coarse);
}

TEST_CASE("preconditioners: MIC(0) needs fewer PCG iterations than IC(0) on a Poisson problem") {
  const Pool p = pool(32);
  const int ic = iterations(p, Preconditioner::incomplete_cholesky);
  const int mic = iterations(p, Preconditioner::modified_incomplete_cholesky);
  MESSAGE("PCG iterations to 1e-10 at 32^3: IC " << ic << ", MIC " << mic);
  CHECK(mic < ic);
}

TEST_CASE("preconditioners: every preconditioner gives the direct solution") {
  const Pool p = pool(16);
  const Vector b = test::random_vector(p.A.rows(), 11);
  Eigen::SimplicialLDLT<Eigen::SparseMatrix<Real>> direct(Eigen::SparseMatrix<Real>(p.A));
  REQUIRE(direct.info() == Eigen::Success);
  const Vector exact = direct.solve(b);
  for (Preconditioner kind : {Preconditioner::multigrid, Preconditioner::modified_incomplete_cholesky,
                              Preconditioner::incomplete_cholesky}) {
    CAPTURE(static_cast<int>(kind));
    Vector x = Vector::Zero(b.size());
    const Report r = solve_pcg(p.A, b, x, PcgSettings{}, make_preconditioner(kind, p.A, p.cells));
    REQUIRE(r.converged);
    // |x - x*| <= cond(A) |b - A x| / |b| |x*|; cond(A) of this pool is below 1e3.
    CHECK((x - exact).norm() <= 1e3 * PcgSettings{}.tolerance * exact.norm());
  }
}

TEST_CASE("preconditioners: full modification keeps the row sums of A") {
  // tau = 1: L D L^T has A's row sums (what makes MIC exact on smooth modes),
  // so (L D L^T)^-1 A 1 = 1 when no pivot needed the safeguard.
  const Pool p = pool(12);
  const ModifiedIncompleteCholesky mic(p.A, 1);
  REQUIRE(mic.ok());
  const Vector ones = Vector::Ones(p.A.rows());
  Vector z;
  mic.apply(p.A * ones, z);
  CHECK((z - ones).lpNorm<Eigen::Infinity>() <= 1e-10);
}
