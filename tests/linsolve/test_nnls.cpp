#include <doctest/doctest.h>

#include <Eigen/QR>
#include <random>
#include <stdexcept>

#include "lib/linsolve/nnls.hpp"
#include "tests/linsolve/fixtures.hpp"

using namespace fsicut;
using namespace fsicut::linsolve;

namespace {

using Matrix = Eigen::MatrixXd;
using Vec = Eigen::VectorXd;

Matrix random_matrix(int rows, int cols, std::mt19937& rng) {
  std::uniform_real_distribution<Real> value(-1, 1);
  Matrix A(rows, cols);
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < rows; ++i) A(i, j) = value(rng);
  return A;
}

// The KKT conditions of min |A x - b| over x >= 0, with w = A^T (b - A x):
// x >= 0, w <= eps where x = 0, |w| <= eps where x > 0.
void check_kkt(const Matrix& A, const Vec& b, const NnlsResult& r) {
  REQUIRE(r.x.size() == A.cols());
  const Vec w = A.transpose() * (b - A * r.x);
  const Real eps = 1e-10 * (1 + A.norm() * (A.norm() * r.x.norm() + b.norm()));
  for (Index k = 0; k < r.x.size(); ++k) {
    CHECK(r.x[k] >= 0);
    if (r.x[k] == 0)
      CHECK(w[k] <= eps);
    else
      CHECK(std::abs(w[k]) <= eps);
  }
}

}  // namespace

TEST_CASE("NNLS: the solution meets the KKT conditions on random problems of every shape") {
  std::mt19937 rng(7);
  int active_total = 0, zero_total = 0;
  for (const auto& [m, n] : {std::pair{12, 5}, std::pair{5, 12}, std::pair{8, 8}, std::pair{30, 20}, std::pair{1, 4},
                             std::pair{4, 1}}) {
    for (int trial = 0; trial < 20; ++trial) {
      const Matrix A = random_matrix(m, n, rng);
      const Vec b = test::random_vector(m, rng);
      const NnlsResult r = nonnegative_least_squares(A, b);
      CHECK(r.converged);
      CHECK(r.iterations >= 0);
      CHECK(r.tolerance > 0);
      check_kkt(A, b, r);
      for (Index k = 0; k < r.x.size(); ++k) (r.x[k] > 0 ? active_total : zero_total) += 1;
    }
  }
  // The problems exercise both sides of the complementarity.
  CHECK(active_total > 0);
  CHECK(zero_total > 0);
}

TEST_CASE("NNLS: an unconstrained optimum inside the orthant is the least-squares solution") {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 10; ++trial) {
    const Matrix A = random_matrix(15, 6, rng);
    const Vec x_star = test::random_vector(6, rng, 1, 2);
    // b off the range of A by a small residual: the least-squares solution
    // stays near x_star, so it is positive.
    const Vec b = A * x_star + 1e-2 * test::random_vector(15, rng);
    const Vec ls = A.colPivHouseholderQr().solve(b);
    REQUIRE(ls.minCoeff() > 0);
    const NnlsResult r = nonnegative_least_squares(A, b);
    CHECK(r.converged);
    CHECK((r.x - ls).norm() <= 1e-12 * ls.norm());
    CHECK(r.x.minCoeff() > 0);
  }
}

TEST_CASE("NNLS: a target in the negative orthant's image gives x = 0 and degenerate shapes are handled") {
  const Matrix A = Matrix::Identity(3, 3);
  const Vec b = -Vec::Ones(3);
  const NnlsResult r = nonnegative_least_squares(A, b);
  CHECK(r.converged);
  CHECK(r.iterations == 0);
  CHECK(r.x == Vec::Zero(3));

  const NnlsResult empty = nonnegative_least_squares(Matrix(4, 0), Vec::Ones(4));
  CHECK(empty.converged);
  CHECK(empty.x.size() == 0);
  const NnlsResult no_rows = nonnegative_least_squares(Matrix(0, 3), Vec(0));
  CHECK(no_rows.x == Vec::Zero(3));
  CHECK_THROWS_AS(nonnegative_least_squares(Matrix::Identity(3, 3), Vec::Ones(2)), std::invalid_argument);
}
