#pragma once
// Partitioned coupling (Akbay, Nobles, Zordan & Shinar 2018): the liquid and
// the solids solved separately, each as a black box, and iterated to the
// coupled solution of coupled_projection.hpp's equations
//   F p + J v = b_f,   A_s v - J^T p = b_s.
//
// The interface lives on the solids' free dofs (stacked as in
// CoupledSolution::velocity). A partitioned scheme sees each side only as a
// function:
//  - the liquid (FluidSide) answers a boundary velocity v [m/s] with the force
//    its pressure puts on the solids, g = J^T p [N], p solving F p = b_f - J v;
//  - the solids (SolidSide) answer a force g [N] with their velocity after the
//    step, v solving A_s v = b_s + g.
// Any solver that can do this, another fluid code or a third-party solid, can
// take either side's place: `iterate` uses nothing else. Both maps are affine
// here, g = g0 - (J^T F^-1 J) v and v = v0 + A_s^-1 g, and the coupled solution
// is the fixed point v = S(F(v)).
//
// What the liquid hands the solids (coupling/partitioned/impulses):
//  - pressure: g = J^T p, the force the monolithic schemes apply too, the
//    work-conjugate of the flux J v: the power the liquid's pressure does
//    through the moving surface, p^T J v, is exactly what the solids receive,
//    (J^T p)^T v, and the partitioned fixed point is the monolithic solution.
//    Momentum balances only to discretization error: the liquid's faces feel
//    the pressure through face fractions, the solids through their surface
//    patches.
//  - conservative (the paper's (8), after Robinson-Mosher et al. 2008): g = G p,
//    the impulse rate the liquid's faces lost to the solids. Cell i's pressure
//    pushes the liquid on its open faces, dt p_i dx^2 sum_a (w_{i+1/2} -
//    w_{i-1/2}) e_a; the part of that imbalance the solids cause (their share
//    c = w_static - w of each face's closure, w_static the fractions with the
//    static obstacles and walls alone) goes to the solids with the opposite
//    sign, spread over the surface patches in cell i (or, if it holds none,
//    in its 26 neighbours) by area and barycentric weight. The liquid's and
//    solids' momenta then change by opposite amounts to round-off (tests); the
//    fixed point is no longer the monolithic one (G is not J^T), and energy
//    balances only to discretization error.

// Methods:
//  - relaxed (their Algorithm 3): v_{k+1} = v_k + omega (S(F(v_k)) - v_k). The
//    error obeys e_{k+1} = ((1 - omega) I - omega T) e_k with T = A_s^-1 J^T F^-1 J
//    (amplification.hpp), whose eigenvalues lambda are real and >= 0: it
//    converges iff omega (1 + rho(T)) < 2, so omega = 1 (one pass of which is the
//    `weak` scheme) diverges exactly when rho(T) >= 1.
//  - xpm (their Algorithm 1, the reduced model interface): after two plain
//    passes (the first checked for convergence like the plain iteration's), each side gets a linear model from its own input/output pairs of
//    this substep, F_x = dG_f dV_f^+ (liquid) and S_p = dV_s dG_s^+ (solids),
//    d* the differences of the pairs to the latest one and ^+ the
//    pseudo-inverse (rank-revealing complete orthogonal decomposition, the
//    paper's pivoted QR). Before each liquid call the models' coupled system
//    gives its input, (I - S_p F_x) v = v_s + S_p (g_f - g_s - F_x v_f) (their
//    (6)); before each solid call, (I - F_x S_p) g = g_f + F_x (v_s - v_f - S_p g_s)
//    (7). Both models have rank <= k, so the systems are solved exactly through
//    the Woodbury identity with a k x k dense solve, never an n x n matrix.
//
// Convergence: max_i |r_i| <= tolerance [m/s], r the change of the solids'
// velocity between the last two solid calls (the paper's 0.05 dx on positions
// is 0.05 dx / dt on velocities; sim/from_scene.cpp converts), and
// max_i |r_i| <= velocity_bound [m/s], the fastest speed the scene's energy
// explains (sim/from_scene.hpp's velocity_bound: initial speeds, a fall
// through the whole domain, the initial compression's elastic energy, with a
// margin of 10). Two candidate velocities that differ by more than any
// velocity the scene can have are no solution whatever the tolerance, so such
// a residual is never "converged"; an iteration that ends above the bound
// (after max_iterations: an under-relaxed one may pass through such residuals
// on its way to converging) or with a residual that is not finite (which ends
// it at once) is `diverged`.
#include <functional>
#include <limits>

#include "lib/coupling/coupled_projection.hpp"

namespace fsicut::coupling {

using FluidSide = std::function<Vector(const Vector& velocity)>;  // v [m/s] -> g = J^T p [N]
using SolidSide = std::function<Vector(const Vector& force)>;     // g [N] -> v [m/s]

struct PartitionedSettings {
  enum class Method { relaxed, xpm };
  Method method = Method::relaxed;
  Real relaxation = 1;    // omega in (0, 1], relaxed only
  Real tolerance = 1e-3;  // on max_i |v_{k+1} - v_k| [m/s]
  int max_iterations = 30;  // solid calls; > max is a failure
  // [m/s], > 0: a residual above it is diverged, never converged (above).
  Real velocity_bound = std::numeric_limits<Real>::infinity();
};

struct PartitionedReport {
  bool converged = false;
  int iterations = 0;             // solid calls (= liquid calls)
  Real interface_residual = 0;    // max_i |r_i| at the end [m/s]; inf/NaN when it overflowed
  double fluid_seconds = 0;       // in the liquid's calls
  double solid_seconds = 0;       // in the solids' calls
  double interface_seconds = 0;   // everything else: relaxation, the xpm models and their solves
};

struct PartitionedResult {
  Vector velocity;  // the last solid call's answer [m/s]
  PartitionedReport report;
};

// True when the iteration `r` ended diverged under `settings`: its residual is
// not finite or exceeds settings.velocity_bound. A diverged iteration is a
// failure even where an unconverged one may be let through.
bool diverged(const PartitionedReport& r, const PartitionedSettings& settings);

// Iterates from `start` (the solids' velocity before the step, the paper's
// extrapolated state) until converged, max_iterations, or a residual that is
// not finite. Throws nothing of its own; the sides may.
PartitionedResult iterate(const FluidSide& fluid, const SolidSide& solid, const Vector& start,
                          const PartitionedSettings& settings);

// The solids' side of `block`: a sparse Cholesky factorization of A_s, made
// once here; v = A_s^-1 (b_s + g). Empty when A_s is not positive definite.
SolidSide solid_side(const SolidBlock& block);

// The liquid's side of `system`: PCG on F with settings' tolerance, iteration
// limit and preconditioner (set up once here), warm-started from and writing
// `pressure` (#cells), each solve's report folded into `worst`; returns J^T p,
// or G p when the system carries the conservative map G (system.impulse).
// `pressure` and `worst` must outlive the function.
FluidSide fluid_side(const CoupledSystem& system, const CoupledSettings& settings, Vector& pressure,
                     linsolve::Report& worst);

// The result's report when the iteration `r` ends: the liquid's worst solve,
// not converged (with the failure named, numbers as %g) when the interface did
// not converge; a diverged one's failure says so and gives the bound.
linsolve::Report partitioned_report(const linsolve::Report& worst, const PartitionedReport& r,
                                    const PartitionedSettings& settings);

// On an assembled system: the liquid side is PCG on F with
// settings.preconditioner, set up once and warm-started from its previous
// pressure; the solid side a sparse Cholesky factorization of A_s, factored
// once per call. solution.pressure is the liquid's last answer,
// solution.velocity the solids' last; solution.report is the worst linear
// solve, converged only if every one did and so did the interface (its
// failure then says why). `guess` as for solve_spd (its velocity is the start).
struct PartitionedSolution {
  CoupledSolution solution;
  PartitionedReport partitioned;
};
PartitionedSolution solve_partitioned(const CoupledSystem& system, const CoupledSettings& settings,
                                      const PartitionedSettings& partitioned, const CoupledSolution& guess);

}  // namespace fsicut::coupling
