#include <doctest/doctest.h>

#include <random>
#include <stdexcept>
#include <unsupported/Eigen/SparseExtra>

#include "lib/io/matrix_market.hpp"
#include "tests/support.hpp"

using namespace fsicut;

namespace {

// A random n x n sparse matrix, symmetric when asked, with values that need
// all 17 digits (and some tiny and huge ones).
linsolve::SparseMatrix random_matrix(int n, bool symmetric, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<Real> u(-1, 1);
  std::uniform_int_distribution<int> index(0, n - 1), exponent(-300, 300);
  std::vector<Eigen::Triplet<Real, int>> t;
  for (int k = 0; k < 6 * n; ++k) {
    const int i = index(rng), j = index(rng);
    const Real v = u(rng) * std::pow(10.0, exponent(rng) / 10);
    t.emplace_back(i, j, v);
    if (symmetric && i != j) t.emplace_back(j, i, v);
  }
  linsolve::SparseMatrix A(n, n);
  A.setFromTriplets(t.begin(), t.end());
  return A;
}

}  // namespace

TEST_CASE("matrix market: a general matrix and a vector read back bit for bit") {
  test::ScratchDir dir("matrix_market");
  const linsolve::SparseMatrix A = random_matrix(40, false, 3);
  io::write_matrix_market(dir / "A.mtx", A, io::MatrixSymmetry::general);
  Eigen::SparseMatrix<Real> back;
  REQUIRE(Eigen::loadMarket(back, (dir / "A.mtx").string()));
  CHECK(back.rows() == 40);
  CHECK(back.nonZeros() == A.nonZeros());
  CHECK(Eigen::MatrixXd(back) == Eigen::MatrixXd(A));

  linsolve::Vector v = linsolve::Vector::Random(25);
  v[3] = 1e-310;  // subnormal
  v[4] = -1.2345678901234567e300;
  io::write_matrix_market(dir / "v.mtx", v);
  Eigen::VectorXd w;
  REQUIRE(Eigen::loadMarketVector(w, (dir / "v.mtx").string()));
  CHECK(w == v);
}

TEST_CASE("matrix market: a symmetric matrix stores its lower triangle under the symmetric header") {
  test::ScratchDir dir("matrix_market");
  const linsolve::SparseMatrix A = random_matrix(30, true, 5);
  io::write_matrix_market(dir / "S.mtx", A, io::MatrixSymmetry::symmetric);
  CHECK(test::read_file(dir / "S.mtx").rfind("%%MatrixMarket matrix coordinate real symmetric\n", 0) == 0);
  Eigen::SparseMatrix<Real> lower;
  REQUIRE(Eigen::loadMarket(lower, (dir / "S.mtx").string()));
  const Eigen::MatrixXd L = Eigen::MatrixXd(lower);
  CHECK(L.triangularView<Eigen::StrictlyUpper>().toDenseMatrix().isZero(0));
  const Eigen::MatrixXd full = L + L.transpose() - Eigen::MatrixXd(L.diagonal().asDiagonal());
  CHECK(full == Eigen::MatrixXd(A));
  // A matrix that is not exactly symmetric is refused, and nothing is written.
  linsolve::SparseMatrix B = A;
  B.coeffRef(1, 0) += 1e-12;
  CHECK_THROWS_AS(io::write_matrix_market(dir / "B.mtx", B, io::MatrixSymmetry::symmetric), std::invalid_argument);
  CHECK_FALSE(std::filesystem::exists(dir / "B.mtx"));
}
