#pragma once
// The corotated hyperelastic material of McAdams et al. 2011 (the model of all
// of Teng, Levin & Kim's examples), per material point, as a function of the
// deformation gradient F (dimensionless, world = F * material).
//
// With the signed SVD F = U diag(s) V^T (U, V rotations; s_3 < 0 when F is
// inverted) and R = U V^T:
//   energy density   Psi(F) = mu |F - R|^2 + lambda/2 tr(R^T F - I)^2
//                           = mu sum_i (s_i - 1)^2 + lambda/2 (sum_i s_i - 3)^2     [J/m^3 = Pa]
//   first Piola      P(F)   = dPsi/dF = U diag(psi) V^T,
//                             psi_i = 2 mu (s_i - 1) + lambda (sum_j s_j - 3)      [Pa]
//   differential     dP(F; dF): the Hessian d2Psi/dF2 applied to dF, in the
//                    diagonal space of Teran et al. 2005 (dFh = U^T dF V):
//                      dPh_ii = sum_j (2 mu delta_ij + lambda) dFh_jj
//                      (dPh_ij, dPh_ji) = 2x2 block with eigenvalue 2 mu on the
//                        symmetric mode (dFh_ij = dFh_ji) and
//                        (psi_i + psi_j) / (s_i + s_j) on the rotational one,
//                      dP = U dPh V^T.
// Definiteness fix (McAdams et al. 2011): the rotational eigenvalue is negative
// under compression (and unbounded near s_i + s_j = 0); it is clamped at 0, so
// the differential is symmetric positive semi-definite for every F and exact
// wherever no clamp applies. The 3x3 block 2 mu I + lambda 1 1^T is positive
// definite for mu > 0, lambda >= 0.
#include "lib/eulerian/q1.hpp"

namespace fsicut::eulerian {

// Lame parameters [Pa].
struct Lame {
  Real mu = 0;
  Real lambda = 0;
};

// From Young's modulus E [Pa] and Poisson's ratio nu (-1 < nu < 1/2).
Lame lame_from_young(Real youngs_modulus, Real poisson_ratio);

// The signed SVD F = U diag(s) V^T with det U = det V = +1 (Irving et al.
// 2004: the sign of an inversion goes to the smallest singular value).
struct SignedSvd {
  Mat3 U, V;
  Vec3 s;
};
SignedSvd signed_svd(const Mat3& F);

// Psi(F) [Pa].
Real energy_density(const Lame& lame, const Mat3& F);

// Everything the force and the differential need at one material point.
class CorotatedPoint {
 public:
  CorotatedPoint() = default;
  CorotatedPoint(const Lame& lame, const Mat3& F);
  Real energy_density() const { return energy_; }
  // P(F) [Pa].
  const Mat3& first_piola() const { return P_; }
  // dP(F; dF) with the definiteness fix [Pa per unit dF].
  Mat3 differential(const Mat3& dF) const;
  // det F = s_0 s_1 s_2 (<= 0: the point is inverted or flat).
  Real determinant() const { return svd_.s.prod(); }
  // True when the rotational eigenvalue of some pair was clamped.
  bool clamped() const { return clamped_; }

 private:
  SignedSvd svd_{Mat3::Identity(), Mat3::Identity(), Vec3::Ones()};
  Lame lame_;
  Mat3 P_ = Mat3::Zero();
  Real energy_ = 0;
  Vec3 rotational_ = Vec3::Zero();  // pair (0,1), (0,2), (1,2)
  bool clamped_ = false;
};

}  // namespace fsicut::eulerian
