#include "lib/eulerian/corotated.hpp"

#include <Eigen/SVD>
#include <algorithm>

namespace fsicut::eulerian {

namespace {

// The smallest s_i + s_j the rotational eigenvalue divides by. Why: at
// s_i + s_j -> 0 (an element inverted through a pair of axes) the quotient is
// unbounded; below this the pair is treated as that far from it, and the clamp
// at zero handles the sign.
constexpr Real MIN_PAIR_SUM = 1e-6;

constexpr int PAIRS[3][2] = {{0, 1}, {0, 2}, {1, 2}};

Vec3 principal_stresses(const Lame& lame, const Vec3& s) {
  const Real volume_term = lame.lambda * (s.sum() - 3);
  return (2 * lame.mu * (s.array() - 1) + volume_term).matrix();
}

}  // namespace

Lame lame_from_young(Real youngs_modulus, Real poisson_ratio) {
  Lame l;
  l.mu = youngs_modulus / (2 * (1 + poisson_ratio));
  l.lambda = youngs_modulus * poisson_ratio / ((1 + poisson_ratio) * (1 - 2 * poisson_ratio));
  return l;
}

SignedSvd signed_svd(const Mat3& F) {
  Eigen::JacobiSVD<Mat3> svd(F, Eigen::ComputeFullU | Eigen::ComputeFullV);
  SignedSvd out{svd.matrixU(), svd.matrixV(), svd.singularValues()};
  if (out.U.determinant() < 0) {
    out.U.col(2) *= -1;
    out.s[2] *= -1;
  }
  if (out.V.determinant() < 0) {
    out.V.col(2) *= -1;
    out.s[2] *= -1;
  }
  return out;
}

Real energy_density(const Lame& lame, const Mat3& F) {
  const Vec3 s = signed_svd(F).s;
  const Real trace = s.sum() - 3;
  return lame.mu * (s.array() - 1).square().sum() + 0.5 * lame.lambda * trace * trace;
}

CorotatedPoint::CorotatedPoint(const Lame& lame, const Mat3& F) : svd_(signed_svd(F)), lame_(lame) {
  const Vec3& s = svd_.s;
  const Vec3 psi = principal_stresses(lame, s);
  P_ = svd_.U * psi.asDiagonal() * svd_.V.transpose();
  const Real trace = s.sum() - 3;
  energy_ = lame.mu * (s.array() - 1).square().sum() + 0.5 * lame.lambda * trace * trace;
  for (int p = 0; p < 3; ++p) {
    const int i = PAIRS[p][0], j = PAIRS[p][1];
    const Real value = (psi[i] + psi[j]) / std::max(s[i] + s[j], MIN_PAIR_SUM);
    clamped_ = clamped_ || value < 0;
    rotational_[p] = std::max(value, Real(0));
  }
}

Mat3 CorotatedPoint::differential(const Mat3& dF) const {
  const Mat3 d = svd_.U.transpose() * dF * svd_.V;
  Mat3 h = Mat3::Zero();
  const Real trace = d.diagonal().sum();
  for (int i = 0; i < 3; ++i) h(i, i) = 2 * lame_.mu * d(i, i) + lame_.lambda * trace;
  const Real symmetric = 2 * lame_.mu;
  for (int p = 0; p < 3; ++p) {
    const int i = PAIRS[p][0], j = PAIRS[p][1];
    // Eigenvalue `symmetric` on (d_ij + d_ji)/2, rotational_[p] on (d_ij - d_ji)/2.
    const Real sym = 0.5 * (d(i, j) + d(j, i));
    const Real rot = 0.5 * (d(i, j) - d(j, i));
    h(i, j) = symmetric * sym + rotational_[p] * rot;
    h(j, i) = symmetric * sym - rotational_[p] * rot;
  }
  return svd_.U * h * svd_.V.transpose();
}

}  // namespace fsicut::eulerian
