#pragma once
// Time integration of a deformable solid on its own: the solid half of
// Algorithm 1 (paper Sections 4 and 7).
//
// One step of length dt, in the order of sim::step's stages:
//   update_positions(body, dt);               1: x += dt v (34), then new rotations
//   apply_gravity(body, g, dt);               3: v += dt g, forward Euler
//   advance_velocities(body, dt, 0, pcg);     5: backward Euler in velocities (6)
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
// Pinned nodes have v = 0, so their columns drop out of the product.
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

// Solves (6) with PCG, warm-started from the current velocities (restarted
// once from its iterate if it stops short of the tolerance), and stores the
// result in body.v (pinned nodes keep v = 0). Returns the solve report
// (iterations summed over the restart):
// an unconverged but finite iterate is still stored and the caller decides
// (DESIGN.md: a failed solve is an error or a counted event). Throws
// SimulationError, naming the solid, when the solution is not finite.
linsolve::Report advance_velocities(Body& body, Real dt, const Vec3& gravity,
                                    const linsolve::PcgSettings& settings);

// Domain-wall contact, an explicit correction: every free node outside the
// box [lo, hi] is moved back onto it, and the velocity component pointing out
// through that wall is removed (set to zero; tangential and inward components
// are kept). Rotations are recomputed when a node moved. Returns the number
// of nodes corrected.
Index collide_walls(Body& body, const Vec3& lo, const Vec3& hi);

}  // namespace fsicut::solid
