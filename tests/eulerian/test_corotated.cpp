#include <doctest/doctest.h>

#include <Eigen/Eigenvalues>

#include "lib/eulerian/corotated.hpp"
#include "tests/eulerian/fixtures.hpp"

using namespace fsicut;
using namespace fsicut::eulerian;

namespace {

const Lame LAME = lame_from_young(1e5, 0.3);

// The 9x9 matrix of dP (row 3i+k: P_ik, column 3j+l: F_jl).
Eigen::Matrix<Real, 9, 9> differential_matrix(const CorotatedPoint& p) {
  Eigen::Matrix<Real, 9, 9> D;
  for (int c = 0; c < 9; ++c) {
    Mat3 dF = Mat3::Zero();
    dF(c / 3, c % 3) = 1;
    const Mat3 dP = p.differential(dF);
    for (int r = 0; r < 9; ++r) D(r, c) = dP(r / 3, r % 3);
  }
  return D;
}

}  // namespace

TEST_CASE("eulerian corotated: zero energy and stress under rotations, the textbook energy under a stretch") {
  for (const Mat3& R : {Mat3(Mat3::Identity()), test::rotation(0.9, Vec3(1, -1, 2)), test::rotation(3.14159, Vec3(1, 0, 0))}) {
    const CorotatedPoint p(LAME, R);
    CHECK(std::abs(p.energy_density()) < 1e-20 * LAME.mu);
    CHECK(p.first_piola().norm() < 1e-9 * LAME.mu);
    CHECK(p.determinant() == doctest::Approx(1));
  }
  // F = diag(1.1, 1, 1): Psi = mu 0.01 + lambda/2 0.01
  const CorotatedPoint p(LAME, Mat3(Vec3(1.1, 1, 1).asDiagonal()));
  CHECK(p.energy_density() == doctest::Approx(0.01 * LAME.mu + 0.005 * LAME.lambda).epsilon(1e-12));
  CHECK(LAME.mu == doctest::Approx(1e5 / 2.6));
  // Inverted: the sign goes to the smallest singular value.
  const SignedSvd svd = signed_svd(Mat3(Vec3(2, 1, -0.5).asDiagonal()));
  CHECK(svd.s.prod() == doctest::Approx(-1));
  CHECK(svd.U.determinant() == doctest::Approx(1));
  CHECK(svd.V.determinant() == doctest::Approx(1));
}

TEST_CASE("eulerian corotated: P is the derivative of the energy density (central differences)") {
  const Mat3 F = (Mat3() << 1.1, 0.2, -0.1, 0.05, 0.9, 0.15, -0.2, 0.1, 1.2).finished();
  const CorotatedPoint p(LAME, F);
  const Real h = 1e-6;
  Mat3 numeric;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      Mat3 dF = Mat3::Zero();
      dF(i, j) = h;
      numeric(i, j) = (energy_density(LAME, F + dF) - energy_density(LAME, F - dF)) / (2 * h);
    }
  CHECK((numeric - p.first_piola()).norm() < 1e-6 * p.first_piola().norm());
}

TEST_CASE("eulerian corotated: dP is the derivative of P where no clamp applies, PSD everywhere") {
  // Stretched: every s_i > 1, so psi_i + psi_j > 0 and no rotational eigenvalue is clamped.
  const Mat3 F = test::rotation(0.4, Vec3(1, 1, 0)) * (Mat3() << 1.3, 0.1, 0, 0.1, 1.2, 0.05, 0, 0.05, 1.15).finished();
  const CorotatedPoint p(LAME, F);
  REQUIRE_FALSE(p.clamped());
  const Real h = 1e-6;
  const Mat3 dF = (Mat3() << 0.3, -0.2, 0.5, 0.1, 0.7, -0.4, 0.2, 0.3, -0.6).finished();
  const Mat3 numeric = (CorotatedPoint(LAME, F + h * dF).first_piola() - CorotatedPoint(LAME, F - h * dF).first_piola()) / (2 * h);
  CHECK((numeric - p.differential(dF)).norm() < 1e-6 * numeric.norm());
  // Compressed and sheared: the rotational eigenvalue is negative and clamped;
  // D stays symmetric with no eigenvalue below -1e-12 of its largest.
  for (const Mat3& G : {Mat3((Mat3() << 0.6, 0.3, 0, 0, 0.7, 0.1, 0.1, 0, 0.5).finished()),
                        Mat3(Vec3(1.2, 0.8, -0.3).asDiagonal())}) {
    const CorotatedPoint q(LAME, G);
    CHECK(q.clamped());
    const Eigen::Matrix<Real, 9, 9> D = differential_matrix(q);
    CHECK((D - D.transpose()).norm() < 1e-10 * D.norm());
    const Eigen::SelfAdjointEigenSolver<Eigen::Matrix<Real, 9, 9>> eig(0.5 * (D + D.transpose()));
    CHECK(eig.eigenvalues().minCoeff() >= -1e-12 * eig.eigenvalues().maxCoeff());
  }
}
