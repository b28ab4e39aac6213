#pragma once
// The velocity update of an Eulerian solid before the incompressibility
// projection: Teng, Levin & Kim 2016 Eq. 8 (Algorithm 1 lines 8-9),
//
//   G v* = f*,   G = M + dt C + dt^2 K,   f* = M v^n + dt (f_ext + f)
//
// over the unknowns (unknowns.hpp; vectors of 3 * #unknowns): M the lumped mass
// (diagonal) [kg], K the stiffness (elasticity.hpp) [N/m], f the elastic force
// on the nodes and f_ext the external forces [N], v in [m/s], dt in [s].
// C = tau_m M + tau_k K is Rayleigh damping (tau_m [1/s], tau_k [s]), so
//   G = (1 + dt tau_m) M + (dt tau_k + dt^2) K.
// Explicit integration (the paper's Fig. 3 comparison) is forward Euler:
//   v* = v^n + dt M^-1 (f_ext + f - C v^n).
//
// Why an assembled sparse G and PCG: G is symmetric positive definite (M > 0
// on every unknown, K positive semi-definite, C a positive combination of
// both), the paper assembles it too (its Table 2 times "Compute G"), the
// assembled K is what the symmetry and definiteness tests inspect, and
// linsolve's PCG returns the report every solve owes. Jacobi preconditioning
// is the paper's choice (it used PCR, which for an SPD G solves the same
// system CG does).
#include "lib/eulerian/q1.hpp"
#include "lib/linsolve/pcg.hpp"
#include "lib/linsolve/report.hpp"

namespace fsicut::eulerian {

enum class Integration { semi_implicit, explicit_euler };

// Rayleigh damping C = mass M + stiffness K.
struct Damping {
  Real mass = 0;       // tau_m [1/s]
  Real stiffness = 0;  // tau_k [s]
};

struct VelocitySettings {
  Integration integration = Integration::semi_implicit;
  // The paper's PCR threshold for the velocity solves (1e-4 for one scene).
  Real tolerance = 1e-3;
  int max_iterations = 2000;
};

// G of Eq. 8: 3U x 3U, both triangles [kg].
linsolve::SparseMatrix system_matrix(const Vector& mass, const linsolve::SparseMatrix& K, const Damping& damping,
                                     Real dt);

// Solves Eq. 8 (or steps forward Euler): `v` holds v^n on entry (also the warm
// start) and v* on return. `force` = f_ext + f [N]. The explicit step reports
// 0 iterations.
linsolve::Report solve_velocity(const Vector& mass, const linsolve::SparseMatrix& K, const Damping& damping, Real dt,
                                const Vector& force, Vector& v, const VelocitySettings& settings);

}  // namespace fsicut::eulerian
