#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include "lib/linsolve/multigrid.hpp"
#include "lib/linsolve/pcg.hpp"
#include "tests/linsolve/fixtures.hpp"

using namespace fsicut;
using namespace fsicut::linsolve;

namespace {

// A 3-D Laplacian on an n^3 block of cells with a thin wall through the
// middle of the x = n/2 layer: every cell of that layer is split into two
// pressure unknowns, one per side of the wall, sharing the cell's (i, j, k).
// The left unknown couples to x-neighbour i - 1 and to the left unknowns of
// the layer's other cells, the right one to i + 1 and the right unknowns;
// nothing crosses the wall. A Dirichlet term (p = 0 beyond) on the top
// face makes the matrix positive definite on both sides.
struct SplitLaplacian {
  SparseMatrix A;
  std::vector<Vec3i> cells;
  int split = 0;  // unknowns sharing their cell with another
};

SplitLaplacian split_laplacian(int n) {
  const int wall = n / 2;
  SplitLaplacian s;
  // unknown[side][cell]: side 0 left (or the only unknown), side 1 right.
  std::vector<int> unknown[2];
  unknown[0].assign(n * n * n, -1);
  unknown[1].assign(n * n * n, -1);
  const auto id = [n](int i, int j, int k) { return (k * n + j) * n + i; };
  for (int k = 0; k < n; ++k)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        unknown[0][id(i, j, k)] = static_cast<int>(s.cells.size());
        s.cells.emplace_back(i, j, k);
        if (i != wall) continue;
        unknown[1][id(i, j, k)] = static_cast<int>(s.cells.size());
        s.cells.emplace_back(i, j, k);
        s.split += 2;
      }
  // The unknown of cell c seen from a neighbour on side `from` (0: from the
  // left of the wall, 1: from the right).
  const auto of = [&](const Vec3i& c, int from) {
    const int k = id(c.x(), c.y(), c.z());
    return c.x() == wall ? unknown[from][k] : unknown[0][k];
  };
  std::vector<Eigen::Triplet<Real>> t;
  for (int k = 0; k < n; ++k)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i)
        for (int side = 0; side < (i == wall ? 2 : 1); ++side) {
          const Vec3i c(i, j, k);
          const int r = unknown[side][id(i, j, k)];
          // Which side of the wall this unknown is on (cells off the wall: by x).
          const int at = i == wall ? side : (i < wall ? 0 : 1);
          Real diag = 0;
          for (int a = 0; a < 3; ++a)
            for (int step : {-1, 1}) {
              Vec3i nb = c;
              nb[a] += step;
              if (a == 1 && nb.y() == n) {
                diag += 1;  // p = 0 above the top face
                continue;
              }
              if ((nb.array() < 0).any() || (nb.array() >= n).any()) continue;  // closed wall
              // The wall: the left unknown of the split layer has no right
              // neighbour and the right one no left neighbour.
              if (i == wall && a == 0 && ((side == 0 && step > 0) || (side == 1 && step < 0))) continue;
              diag += 1;
              t.emplace_back(r, of(nb, at), -1.0);
            }
          t.emplace_back(r, r, diag);
        }
  const int size = static_cast<int>(s.cells.size());
  s.A.resize(size, size);
  s.A.setFromTriplets(t.begin(), t.end());
  return s;
}

}  // namespace

TEST_CASE("multigrid: unknowns sharing a grid cell give a symmetric positive cycle and PCG converges") {
  const SplitLaplacian s = split_laplacian(16);
  REQUIRE(s.split == 2 * 16 * 16);
  REQUIRE(s.A.isApprox(SparseMatrix(s.A.transpose())));
  const Multigrid mg(s.A, s.cells);
  REQUIRE(mg.ok());
  CHECK(mg.levels() >= 3);
  for (unsigned seed = 1; seed <= 3; ++seed) {
    const Vector x = test::random_vector(s.A.rows(), seed), y = test::random_vector(s.A.rows(), 100 + seed);
    Vector mx, my;
    mg.apply(x, mx);
    mg.apply(y, my);
    CHECK(std::abs(x.dot(my) - y.dot(mx)) <= 1e-12 * x.norm() * my.norm());
    CHECK(x.dot(mx) > 0);
  }
  // A right side that differs across the wall: the two unknowns of a split
  // cell must end with different pressures, which PCG reaches to 1e-10.
  Vector expected(s.A.rows());
  for (Index i = 0; i < s.A.rows(); ++i) expected[i] = i % 2 ? 1.0 : -0.5;
  const Vector b = s.A * expected;
  Vector x = Vector::Zero(b.size());
  PcgSettings settings;
  const Report r = solve_pcg(s.A, b, x, settings, [&](const Vector& in, Vector& out) { mg.apply(in, out); });
  MESSAGE("multigrid PCG with split cells: " << r.iterations << " iterations to " << r.relative_residual);
  REQUIRE(r.converged);
  CHECK(r.iterations <= 30);
  CHECK((x - expected).norm() <= 1e-6 * expected.norm());
}

TEST_CASE("multigrid: a hierarchy refreshed with a new matrix on the same cells equals a fresh build bit for bit") {
  const SplitLaplacian s = split_laplacian(12);
  Multigrid kept(s.A, s.cells);
  REQUIRE(kept.ok());
  // New values on the same cells: a heavier diagonal and a scaled operator.
  SparseMatrix A2 = 2.5 * s.A;
  for (int r = 0; r < A2.rows(); ++r) A2.coeffRef(r, r) += 0.01 * (r % 7);
  REQUIRE(kept.built_on(s.cells));
  kept.refresh(A2);
  REQUIRE(kept.ok());
  const Multigrid fresh(A2, s.cells);
  CHECK(kept.levels() == fresh.levels());
  const Vector r = test::random_vector(A2.rows(), 5);
  Vector z_kept, z_fresh;
  kept.apply(r, z_kept);
  fresh.apply(r, z_fresh);
  CHECK(z_kept == z_fresh);
  std::vector<Vec3i> moved = s.cells;
  moved.back() += Vec3i(0, 0, 1);
  CHECK_FALSE(kept.built_on(moved));
  CHECK_THROWS_AS(kept.refresh(SparseMatrix(3, 3)), std::invalid_argument);
}
