#include <doctest/doctest.h>

#include <Eigen/Cholesky>
#include <csignal>
#include <random>
#include <stdexcept>
#include <vector>

#include "lib/core/cancel.hpp"
#include "lib/linsolve/block_diagonal_cholesky.hpp"
#include "tests/linsolve/fixtures.hpp"

using namespace fsicut;
using namespace fsicut::linsolve;

namespace {

using Matrix = Eigen::MatrixXd;

// A block-diagonal symmetric matrix with diagonal blocks of the given sizes,
// each a random dense SPD block R R^T + size Id with about a third of its
// off-diagonal pairs dropped (kept symmetric; the first off-diagonal kept so
// that no block splits further). `indefinite`: that block gets a negative
// diagonal entry large enough to make it indefinite.
SparseMatrix block_system(const std::vector<int>& sizes, std::mt19937& rng, int indefinite = -1) {
  std::uniform_real_distribution<Real> value(-1, 1);
  std::vector<Eigen::Triplet<Real>> t;
  int start = 0;
  for (int b = 0; b < static_cast<int>(sizes.size()); ++b) {
    const int m = sizes[b];
    Matrix R(m, m);
    for (int j = 0; j < m; ++j)
      for (int i = 0; i < m; ++i) R(i, j) = value(rng);
    Matrix B = R * R.transpose() + m * Matrix::Identity(m, m);
    for (int j = 0; j < m; ++j)
      for (int i = j + 2; i < m; ++i)
        if ((i + 2 * j + b) % 3 == 0) B(i, j) = B(j, i) = 0;
    if (b == indefinite) B(m / 2, m / 2) = -10.0 * m * m;
    for (int j = 0; j < m; ++j)
      for (int i = 0; i < m; ++i)
        if (B(i, j) != 0) t.emplace_back(start + i, start + j, B(i, j));
    start += m;
  }
  SparseMatrix A(start, start);
  A.setFromTriplets(t.begin(), t.end());
  return A;
}

Real relative_error(const Vector& x, const Vector& reference) { return (x - reference).norm() / reference.norm(); }

}  // namespace

TEST_CASE("block-diagonal Cholesky: finds the diagonal blocks and solves as a dense LLT does") {
  std::mt19937 rng(17);
  for (const std::vector<int>& sizes : {std::vector<int>{1}, std::vector<int>{5, 1, 8, 3}, std::vector<int>{12},
                                        std::vector<int>{2, 2, 2, 2, 2, 7, 30}}) {
    const SparseMatrix A = block_system(sizes, rng);
    BlockDiagonalCholesky chol;
    REQUIRE(chol.compute(A));
    CHECK(chol.failed_block() == -1);
    REQUIRE(chol.blocks() == static_cast<int>(sizes.size()));
    int start = 0;
    for (int k = 0; k < chol.blocks(); ++k) {
      CHECK(chol.block_start(k) == start);
      start += sizes[k];
    }
    CHECK(chol.block_start(chol.blocks()) == start);
    const Vector b = test::random_vector(A.rows(), rng);
    const Vector reference = Eigen::LLT<Matrix>(Matrix(A)).solve(b);
    Vector x;
    chol.solve(b, x);
    CHECK(relative_error(x, reference) <= 1e-12);
  }
}

TEST_CASE("block-diagonal Cholesky: a pair factored and solved together equals each alone") {
  std::mt19937 rng(19);
  const SparseMatrix A = block_system({4, 9, 3}, rng), B = block_system({6, 10}, rng);
  BlockDiagonalCholesky a, b;
  REQUIRE(a.compute_pair(A, b, B));
  CHECK(a.blocks() == 3);
  CHECK(b.blocks() == 2);
  const Vector rhs = test::random_vector(A.rows(), rng);
  Vector x, y;
  a.solve_pair(rhs, x, &b, &y);
  CHECK(relative_error(x, Eigen::LLT<Matrix>(Matrix(A)).solve(rhs)) <= 1e-12);
  CHECK(relative_error(y, Eigen::LLT<Matrix>(Matrix(B)).solve(rhs)) <= 1e-12);
}

TEST_CASE("block-diagonal Cholesky: a block that is not positive definite is reported") {
  std::mt19937 rng(23);
  const SparseMatrix A = block_system({3, 4, 5, 2}, rng, 2);
  BlockDiagonalCholesky chol;
  CHECK_FALSE(chol.compute(A));
  CHECK(chol.failed_block() == 2);

  BlockDiagonalCholesky first, second;
  CHECK_FALSE(first.compute_pair(block_system({3, 3}, rng), second, A));
  CHECK(first.failed_block() == -1);
  CHECK(second.failed_block() == 2);

  BlockDiagonalCholesky empty;
  CHECK(empty.compute(SparseMatrix(0, 0)));
  CHECK(empty.blocks() == 0);
}

TEST_CASE("block-diagonal Cholesky: a pair refactorized on its kept analysis equals a fresh factorization bit for bit") {
  std::mt19937 rng(29);
  const SparseMatrix A = block_system({4, 9, 3}, rng), B = block_system({6, 10}, rng);
  BlockDiagonalCholesky a, b;
  REQUIRE(a.compute_pair(A, b, B));
  // New values on the same patterns: the pattern is the analyzed one.
  SparseMatrix A2 = A, B2 = B;
  for (Index k = 0; k < A2.nonZeros(); ++k) A2.valuePtr()[k] *= 1.5;
  for (int r = 0; r < A2.rows(); ++r) A2.coeffRef(r, r) += r;
  for (Index k = 0; k < B2.nonZeros(); ++k) B2.valuePtr()[k] *= 0.75;
  REQUIRE(a.analyzed_for(A2));
  REQUIRE(b.analyzed_for(B2));
  REQUIRE(a.factorize_pair(A2, b, B2));
  BlockDiagonalCholesky fresh_a, fresh_b;
  REQUIRE(fresh_a.compute_pair(A2, fresh_b, B2));
  const Vector rhs = test::random_vector(A.rows(), rng);
  Vector x, y, fx, fy;
  a.solve_pair(rhs, x, &b, &y);
  fresh_a.solve_pair(rhs, fx, &fresh_b, &fy);
  CHECK(x == fx);
  CHECK(y == fy);
  // Another pattern (the pair (0, 1), (1, 0) dropped) is not the analyzed one.
  SparseMatrix A3 = A2;
  A3.prune([](Index r, Index c, Real) { return r + c != 1; });
  REQUIRE(A3.nonZeros() == A2.nonZeros() - 2);
  CHECK_FALSE(a.analyzed_for(A3));
  CHECK_THROWS_AS(a.factorize_pair(A3, b, B2), std::invalid_argument);
}

TEST_CASE("block-diagonal Cholesky: under a stop scope it factors as in place, and a stop leaves it unanalyzed") {
  std::mt19937 rng(31);
  const SparseMatrix A = block_system({4, 9, 3}, rng), B = block_system({6, 10}, rng);
  BlockDiagonalCholesky a, b;
  REQUIRE(a.compute_pair(A, b, B));
  const Vector rhs = test::random_vector(A.rows(), rng);
  Vector x, y;
  a.solve_pair(rhs, x, &b, &y);

  volatile std::sig_atomic_t stop = 0;
  const CancelScope scope(&stop);
  BlockDiagonalCholesky c, d;
  REQUIRE(c.compute_pair(A, d, B));
  REQUIRE(d.factorize(B));
  Vector cx, dy;
  c.solve_pair(rhs, cx, &d, &dy);
  CHECK(cx == x);
  CHECK(dy == y);

  stop = SIGTERM;
  CHECK_THROWS_AS(c.factorize_pair(A, d, B), Cancelled);
  CHECK(c.blocks() == 0);
  CHECK(d.blocks() == 0);
  CHECK_FALSE(c.analyzed_for(A));
  CHECK_FALSE(d.analyzed_for(B));
  CHECK_THROWS_AS(c.compute(A), Cancelled);
  CHECK(c.blocks() == 0);
  stop = 0;
  REQUIRE(c.compute_pair(A, d, B));
  c.solve_pair(rhs, cx, &d, &dy);
  CHECK(cx == x);
  CHECK(dy == y);
}
