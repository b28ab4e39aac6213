#include <doctest/doctest.h>

#include <Eigen/Eigenvalues>
#include <random>
#include <stdexcept>
#include <vector>

#include "lib/linsolve/lowest_eigenpairs.hpp"

using namespace fsicut;
using namespace fsicut::linsolve;

namespace {

using Matrix = Eigen::MatrixXd;
using Vec = Eigen::VectorXd;
using Sparse = Eigen::SparseMatrix<Real>;

// A chain of n masses joined by springs of random stiffness in [1, 5]
// (K = sum_e k_e (e_i - e_j)(e_i - e_j)^T), plus next-nearest springs for a
// wider pattern; `anchored` adds a spring from node 0 to the ground, which
// makes K positive definite (else its one zero mode is the uniform motion).
Sparse spring_chain(int n, bool anchored, std::mt19937& rng) {
  std::uniform_real_distribution<Real> stiffness(1, 5);
  std::vector<Eigen::Triplet<Real>> t;
  const auto spring = [&](int i, int j) {
    const Real k = stiffness(rng);
    t.emplace_back(i, i, k);
    t.emplace_back(j, j, k);
    t.emplace_back(i, j, -k);
    t.emplace_back(j, i, -k);
  };
  for (int i = 0; i + 1 < n; ++i) spring(i, i + 1);
  for (int i = 0; i + 2 < n; i += 3) spring(i, i + 2);
  if (anchored) t.emplace_back(0, 0, stiffness(rng));
  Sparse K(n, n);
  K.setFromTriplets(t.begin(), t.end());
  return K;
}

Vec random_mass(int n, std::mt19937& rng) {
  std::uniform_real_distribution<Real> mass(1, 3);
  Vec m(n);
  for (int i = 0; i < n; ++i) m[i] = mass(rng);
  return m;
}

// Both methods' `count` lowest pairs against Eigen's dense generalized solver.
void check_against_dense(const Sparse& K, const Vec& m, int count) {
  const Matrix Kd(K);
  const Matrix M = m.asDiagonal();
  const Eigen::GeneralizedSelfAdjointEigenSolver<Matrix> reference(Kd, M);
  REQUIRE(reference.info() == Eigen::Success);
  const Real lmax = reference.eigenvalues().maxCoeff();
  for (EigenMethod method : {EigenMethod::dense, EigenMethod::shift_invert_lanczos}) {
    CAPTURE(static_cast<int>(method));
    const LowestEigenpairs e = lowest_eigenpairs(K, m, count, method);
    REQUIRE(e.ok());
    REQUIRE(e.values.size() == count);
    REQUIRE(e.vectors.rows() == K.rows());
    REQUIRE(e.vectors.cols() == count);
    CHECK(e.scale == doctest::Approx((Kd.diagonal().array() / m.array()).maxCoeff()));
    CHECK(e.scale <= lmax * (1 + 1e-12));
    CHECK((e.values - reference.eigenvalues().head(count)).cwiseAbs().maxCoeff() <= 1e-9 * lmax);
    for (int k = 1; k < count; ++k) CHECK(e.values[k - 1] <= e.values[k]);
    const Matrix X = e.vectors;
    CHECK((X.transpose() * M * X - Matrix::Identity(count, count)).cwiseAbs().maxCoeff() <= 1e-10);
    CHECK((X.transpose() * Kd * X - Matrix(e.values.asDiagonal())).cwiseAbs().maxCoeff() <= 1e-9 * lmax);
    // Same eigenvectors up to sign (the random springs make the spectrum simple).
    for (int k = 0; k < count; ++k)
      CHECK(std::abs(reference.eigenvectors().col(k).dot(M * X.col(k))) == doctest::Approx(1).epsilon(1e-8));
    if (method == EigenMethod::shift_invert_lanczos) CHECK(e.operations > 0);
  }
}

}  // namespace

TEST_CASE("lowest eigenpairs of K x = lambda M x: dense and Lanczos agree with Eigen's generalized solver") {
  std::mt19937 rng(3);
  const int n = 60;
  SUBCASE("positive definite K") {
    check_against_dense(spring_chain(n, true, rng), random_mass(n, rng), 6);
  }
  SUBCASE("singular K: the zero mode comes first") {
    const Sparse K = spring_chain(n, false, rng);
    const Vec m = random_mass(n, rng);
    check_against_dense(K, m, 5);
    const LowestEigenpairs e = lowest_eigenpairs(K, m, 5, EigenMethod::shift_invert_lanczos);
    CHECK(std::abs(e.values[0]) <= 1e-9 * e.scale);
    // The zero mode is the uniform motion, normalized in M.
    const Vec x0 = e.vectors.col(0);
    CHECK((x0 - Vec::Constant(n, x0[0])).cwiseAbs().maxCoeff() <= 1e-6 * std::abs(x0[0]));
  }
}

TEST_CASE("lowest eigenpairs: an indefinite K is reported and bad requests are refused") {
  std::mt19937 rng(5);
  const int n = 30;
  Sparse K = spring_chain(n, true, rng);
  K.coeffRef(4, 4) = -10;  // a negative diagonal entry: K is not positive semi-definite
  const Vec m = Vec::Ones(n);
  const LowestEigenpairs e = lowest_eigenpairs(K, m, 3, EigenMethod::shift_invert_lanczos);
  CHECK(e.status == LowestEigenpairs::Status::shift_not_positive_definite);
  CHECK_FALSE(e.ok());
  CHECK(e.values.size() == 0);

  const Sparse good = spring_chain(n, true, rng);
  CHECK_THROWS_AS(lowest_eigenpairs(good, m, n, EigenMethod::shift_invert_lanczos), std::invalid_argument);
  CHECK_THROWS_AS(lowest_eigenpairs(good, m, n + 1, EigenMethod::dense), std::invalid_argument);
  CHECK_THROWS_AS(lowest_eigenpairs(good, Vec::Ones(n - 1), 2, EigenMethod::dense), std::invalid_argument);
  CHECK(lowest_eigenpairs(good, m, n, EigenMethod::dense).values.size() == n);
  const LowestEigenpairs none = lowest_eigenpairs(good, m, 0, EigenMethod::dense);
  CHECK(none.ok());
  CHECK(none.values.size() == 0);
}
