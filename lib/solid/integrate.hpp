#pragma once
// Time integration of a deformable solid on its own: the solid half of
// Algorithm 1 (paper Sections 4 and 7).
//
// One step of length dt, in the order of CutCellSimulator::step's stages:
//   update_positions(body, dt);               1: x += dt v (34), then new rotations
//   apply_gravity(body, g, dt);               3: v += dt g, forward Euler
//   advance_velocities(body, dt, 0, settings); 5: backward Euler in velocities (6)
//   collide_walls(body, lo, hi);              6: optional explicit wall contact
// The coupled projection (19)/(30) uses the pieces of backward_euler_system
// instead of advance_velocities.
#include "lib/linsolve/pcg.hpp"
#include "lib/solid/body.hpp"

namespace fsicut::solid {

// x += dt v for the free nodes (pinned nodes never move), then update_rotations.
void update_positions(Body& body, Real dt);

// Gravity g [m/s^2] by forward Euler on the free nodes: v += dt g.
void apply_gravity(Body& body, const Vec3& gravity, Real dt);

// The backward Euler system (6) over the free dofs (body.dofs), with the
// corotated model's K (x - x0) replaced by the negative elastic force:
//   (M/dt + D + dt K) v' = M v/dt + f_elastic + M g,    D = tau_m M + tau_k K.
// Pinned nodes standing still have v = 0, so their columns drop out of the
// product; pinned nodes a motion drives (their v set by the caller,
// sim/cutcell/moving.hpp) have known velocities, and b also holds
// -(dt + tau_k) K_fp v_p, the free rows of their columns.
// All vectors #free dofs, all matrices #free x #free (free dof 3*k + d, see
// body.hpp), both triangles stored.
struct BackwardEulerSystem {
  Real dt = 0;         // [s]
  Vector mass;         // lumped M, per free dof (the diagonal) [kg]
  SparseMatrix K;      // corotated stiffness R K0 R^T [N/m], symmetric PSD
  SparseMatrix D;      // Rayleigh damping tau_m M + tau_k K [kg/s]
  SparseMatrix A;      // M/dt + D + dt K [kg/s], symmetric positive definite
  Vector f_elastic;    // -R K0 (R^T x - X), assembled [N]
  Vector f_external;   // M g [N]
  Vector v;            // current velocities [m/s]
  Vector b;            // M v/dt + f_elastic + f_external [N]
};

// Builds (6) for the current state (positions, rotations, velocities).
// `gravity` [m/s^2] gives f_external = M g; pass zero when gravity was already
// applied to the velocities (Algorithm 1 step 3).
BackwardEulerSystem backward_euler_system(const Body& body, Real dt, const Vec3& gravity);

// Solves (6) and stores the result in body.v (pinned nodes keep v = 0).
//
// How: by sparse Cholesky (linsolve::BlockDiagonalCholesky, then
// linsolve::solve_refined) when factorizing A takes at most
// `max_factor_operations` multiply-adds (BlockDiagonalCholesky::factor_operations),
// else by PCG. The pattern of A is fixed per body (body.layout_free: pinned
// nodes carry no unknowns, a quadratic body's mid-edge nodes are in it from
// the start), so the symbolic analysis runs on a body's first solve and again
// only when set_pinned gives it a new layout; each call factorizes the current
// values. The analysis depends on the pattern alone, so a resumed run, whose
// bodies analyze afresh, steps bit for bit as the uninterrupted one.
//
// The direct solve's report (linsolve::solve_refined): iterations = 1 + its
// refinement steps, relative_residual the true |b - A v| / |b| of the stored v.
// The PCG fallback (bodies whose factor would exceed the limit, or whose
// factorization failed) warm-starts from the current velocities with
// settings.preconditioner (make_preconditioner; Jacobi when that set-up
// fails) and accepts a residual within ROUND_OFF_MARGIN of the round-off floor
// (pcg.hpp): on quadratic elements' stiff systems the floor can lie above the
// tolerance, where PCG used to stagnate.
// settings.tolerance applies to both, settings.max_iterations to PCG only.
// An unconverged but finite result is still stored and the caller decides
// (docs/outputs.md "Convergence": a failed solve is an error or a counted
// event). Throws
// SimulationError, naming the solid, when the solution is not finite.
//
// The limit, measured on this machine (2 cores, Eigen's simplicial LLT with
// AMD ordering against PCG with incomplete Cholesky, one substep at
// dt = 1/30 s, E = 1e8 Pa, the best of 3):
//   body (cells, element)      dofs   factor entries  multiply-adds  Cholesky   PCG
//   20 x 2 x 2 quadratic       3000   2.9e5 (3.5 MB)  1.7e7          0.022 s    0.124 s (272 it.)
//   20 x 3 x 3 quadratic       5880   1.3e6 (15 MB)   2.0e8          0.116 s    0.147 s (258 it.)
//   20 x 4 x 4 quadratic       9720   2.7e6 (32 MB)   5.6e8          0.320 s    0.249 s (258 it.)
//   6^3 quadratic              6084   2.0e6 (24 MB)   5.8e8          0.325 s    0.095 s (122 it.)
//   7^3 quadratic              9450   4.0e6 (49 MB)   1.6e9          1.27 s     0.168 s (141 it.)
//   16^3 linear               13872   6.0e6 (72 MB)   2.6e9          2.61 s     0.149 s (110 it.)
//   20 x 6 x 6 quadratic      20280   1.1e7 (128 MB)  5.2e9          6.8-9.4 s  1.8-2.3 s
// Cholesky runs at about 2e9 multiply-adds per second until its factor leaves
// the cache, PCG's iterations grow with the stiffness (E = 1e11 Pa: twice as
// many) and with slenderness, never the factorization's. Up to 6e8 the
// factorization costs at most about 0.3 s and at most 3.5 times PCG (compact
// bodies), and wins on slender ones; past it, it loses by 7 times and more.
constexpr double MAX_FACTOR_OPERATIONS = 6e8;
// Bodies with more free dofs than this go to PCG without the analysis (its
// ordering alone takes about 0.5 s at 20000 dofs, and no body this large
// factorizes within the limit above).
constexpr Index MAX_ANALYZED_DOFS = 100'000;
linsolve::Report advance_velocities(Body& body, Real dt, const Vec3& gravity, const linsolve::PcgSettings& settings,
                                    double max_factor_operations = MAX_FACTOR_OPERATIONS);

// True when the body's last advance_velocities chose Cholesky (false before
// its first solve).
bool solves_directly(const Body& body);

// Domain-wall contact, an explicit correction: every free node outside the
// box [lo, hi] is moved back onto it, and the velocity component pointing out
// through that wall is removed (set to zero; tangential and inward components
// are kept). Rotations are recomputed when a node moved. Returns the number
// of nodes corrected.
Index collide_walls(Body& body, const Vec3& lo, const Vec3& hi);

}  // namespace fsicut::solid
