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
// Newmark (ours, not the paper's): the average-acceleration (trapezoidal)
// rule, linearized as Eq. 8 is,
//   u^{n+1} = u^n + dt/2 (v^n + v^{n+1})
//   M (v^{n+1} - v^n) = dt/2 (f^n + f^{n+1}) - dt C (v^n + v^{n+1}) / 2
// with f^{n+1} ~ f^n - K (u^{n+1} - u^n) = f^n - dt/2 K (v^n + v^{n+1}) (and
// f_ext constant over the step). Gathering v^{n+1} on the left:
//   (M + dt/2 C + dt^2/4 K) v* = M v^n + dt (f_ext + f) - (dt/2 C + dt^2/4 K) v^n,
// that is G v* = f* - (G - M) v^n with
//   G = (1 + dt/2 tau_m) M + (dt/2 tau_k + dt^2/4) K.
// On a linear undamped system (f = -K u) this is the trapezoidal rule, which
// keeps 1/2 v^T M v + 1/2 u^T K u exactly and has no amplitude error, where
// backward Euler multiplies the amplitude by (1 + (omega dt)^2)^(-1/2) per
// step (28 % per period at 60 steps per period). Its phase error is
// O((omega dt)^2) as backward Euler's, and modes far above 1/dt are not damped
// out (their amplification tends to -1): the price of keeping the energy.
// The projection (projection.hpp) acts on this v* as on Eq. 8's, its G the
// one above (either solver: the saddle-point solve takes this G and f*), and
// lines 19-20 move u by the average dt/2 (v^n + v^{n+1}) and advect it along
// that average (void_step.hpp update_displacement).
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

enum class Integration { semi_implicit, explicit_euler, newmark };

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

// G = M + damping C + stiffness K: the weights dt and dt^2 of Eq. 8 (also
// for explicit_euler, whose G only the projection's "system" correction
// uses), dt/2 and dt^2/4 for newmark.
struct SystemWeights {
  Real damping = 0;    // [s]
  Real stiffness = 0;  // [s^2]
};
SystemWeights system_weights(Real dt, Integration integration);

// G of Eq. 8 (or of the newmark step): 3U x 3U, both triangles [kg].
linsolve::SparseMatrix system_matrix(const Vector& mass, const linsolve::SparseMatrix& K, const Damping& damping,
                                     Real dt, Integration integration = Integration::semi_implicit);

// The right-hand side of the implicit steps [kg m/s]: f* = M v^n + dt force
// (Eq. 8), and for newmark f* - (G - M) v^n, G the newmark system_matrix.
// `force` = f_ext + f [N], `v` = v^n [m/s].
Vector right_hand_side(const Vector& mass, const linsolve::SparseMatrix& G, Real dt, const Vector& force,
                       const Vector& v, Integration integration);

// Solves Eq. 8, the newmark step, or steps forward Euler: `v` holds v^n on
// entry (also the warm start) and v* on return. `force` = f_ext + f [N]. The
// explicit step reports 0 iterations.
linsolve::Report solve_velocity(const Vector& mass, const linsolve::SparseMatrix& K, const Damping& damping, Real dt,
                                const Vector& force, Vector& v, const VelocitySettings& settings);

// G v = rhs (G symmetric positive definite, both triangles) by Jacobi PCG to
// `tolerance` (relative residual over all of rhs), `v` the warm start in and
// the solution out. The rows that hold their diagonal alone (a fluid node
// away from every solid: G = M there) are divided out exactly; PCG runs on
// the rest only, to tolerance * |rhs| / |rhs of the rest|, the same
// criterion, for their residual is zero. Why: in a smoke box those rows are
// nearly all of G (the Ball benchmark's 64 x 75 x 64 box around a ball of radius 9.6 cells: 98 %),
// and PCG on all of it spent its time on them. Report::unknowns counts all
// rows, iterations are those of the coupled rows' PCG.
linsolve::Report solve_velocity_system(const linsolve::SparseMatrix& G, const Vector& rhs, Vector& v, Real tolerance,
                                       int max_iterations);

}  // namespace fsicut::eulerian
