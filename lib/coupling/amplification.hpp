#pragma once
// The added-mass amplification of the weak (alternating) coupling scheme
// (coupled_projection.hpp, solve_weak), on one substep's assembled matrices.
//
// The weak scheme projects the liquid against the solid velocity it had before
// the solve, F p = b_f - J v*, then steps the solid with those pressure forces,
// A_s v = b_s + J^T p. A change d of the solid's velocity from one substep to
// the next reaches the liquid as an extra flux J d, which the projection
// answers with the pressure -F^-1 J d; its force -J^T F^-1 J d enters the
// solid's next step, which turns it into the velocity change
//     d' = -A_s^-1 (J^T F^-1 J) d = T d.
// J^T F^-1 J [kg/s] is the added mass (over dt) the liquid lends each solid
// motion; A_s = (1/dt + tau_m) M + (dt + tau_k) K the solid's own operator.
// T is similar to the symmetric positive semi-definite A_s^-1/2 J^T F^-1 J
// A_s^-1/2, so its eigenvalues are real and >= 0, and the scheme amplifies a
// disturbance from substep to substep exactly when the largest, the spectral
// radius, exceeds 1: the added mass of some motion is larger than the mass (plus
// dt times damping, plus dt^2 times stiffness) the solid opposes it with. A
// light body's rigid motions have only their mass; a stiff pinned body's
// motions have dt^2 K on top, so stiffness, pinning and short substeps all
// lower the radius. The strongly coupled schemes (spd, indefinite,
// damping_only) solve for p and v together and have no such iteration.
#include "lib/coupling/coupled_projection.hpp"

namespace fsicut::coupling {

struct Amplification {
  Real spectral_radius = 0;  // largest eigenvalue of T (0 with no cells or no dofs or J = 0)
  int iterations = 0;        // power iterations taken
  bool converged = false;    // the Rayleigh quotient settled to `tolerance` (relative)
};

// The spectral radius of T = A_s^-1 J^T F^-1 J of `system` (whatever scheme
// assembled it: A_s as in system.solid), by power iteration on the generalized
// symmetric problem (J^T F^-1 J) x = lambda A_s x with Rayleigh quotients,
// F^-1 by a sparse LDL^T factorization, A_s^-1 by a sparse Cholesky
// factorization. Throws SimulationError if either factorization fails.
Amplification weak_amplification(const CoupledSystem& system, Real tolerance = 1e-6, int max_iterations = 500);

}  // namespace fsicut::coupling
