#pragma once
// Reduced deformable bodies (Lu, Jin & Fedkiw 2016, "Two-way coupling of
// fluids to reduced deformable bodies"; equation numbers below are theirs).
// Standalone pieces the coupled solve calls: the modal basis
// (reduced_basis.cpp), the reduced state and its reconstruction, the
// momentum-conserving split of nodal impulses, the impulse-response operator
// K_lambda and one backward Euler step (reduced.cpp), and domain-wall contact
// (reduced_contact.cpp).
//
// Kinematics (1)-(3). A reduced body is a rigid frame (rotation R, origin T)
// carrying a linear modal deformation:
//   x_i = R (S_i q + x0_i) + T                          node positions [m]
//   v_i = v + omega x r_i + R S_i qdot,  r_i = R (S_i q + x0_i)   (3)
// with x0_i = X_i - c0 the rest positions relative to the rest centre of mass
// c0, S_i the 3 x r rows of node i of the basis S and q the r modal
// coordinates. The basis is mass-orthonormal (S^T M S = I, so the paper's
// M_r = I) and M-orthogonal to the six rigid motions of the rest mesh, so
//   sum_i m_i S_i = 0            T is exactly the centre of mass, v its velocity;
//   sum_i m_i x0_i x S_i = 0     a modal velocity carries no angular momentum
//                                at q = 0 (it does at second order, see below).
// Units: with S^T M S = I, S is in [1/sqrt(kg)], q in [m sqrt(kg)], qdot in
// [m sqrt(kg)/s], and the eigenvalues lambda_k = omega_k^2 in [1/s^2].
//
// Momenta (about the centre of mass T):
//   P = m v,   L = I(q, R) omega + R h(q, qdot),
//   I = sum_i m_i (|r_i|^2 Id - r_i r_i^T)  the frame's inertia with deformed arms,
//   h = sum_i m_i (S_i q) x (S_i qdot)      the modes' own angular momentum (body frame).
// The paper's frame momentum is M_rigid v_rigid = (P, I omega); the total is
// J_rigid^T M v = (P, I omega + R h).
//
// A pinned body (any pinned node) has no free frame: R = Id and T = c0 stay
// fixed, v = omega = 0, and S spans constrained modes of the free dofs (zero
// rows at pinned nodes). Then P_rigid = 0 and P_d = Id below.
//
// Impulses (11)-(21): a nodal impulse j (3 x #nodes [N s]) is split as
//   modes:  delta qdot = S^T R^T P_d j,  P_d = Id - P_rigid,
//           P_rigid = M J_rigid M_rigid^-1 J_rigid^T                       (11)
//   frame:  M_rigid delta v_rigid = J_rigid^T (Id - P_r P_d) j,
//           P_r = M R S S^T R^T                                            (16)
// so the total linear momentum changes by exactly sum_i j_i and the angular
// momentum by exactly sum_i r_i x j_i: the part the truncated modes cannot
// take, (Id - P_r) P_d j, goes to the frame (the [SLYF15] correction).
//
// Time stepping, in Algorithm 1's order (as lib/solid/integrate.hpp):
//   advance_reduced_positions   q += dt qdot, T += dt v, R = exp(dt omega) R,
//                               omega re-derived so that P and L are unchanged
//   advance_reduced_velocities  backward Euler on the modes (31)-(34) with the
//                               stiffness at the new q; the frame by (33)/(35),
//                               computed as what keeps the total momentum equal
//                               to the old one plus the external impulse's
// With the positions step first, one pair (positions, velocities) is exactly
// the paper's q^{n+1} = q^n + dt qdot^{n+1} with qdot^{n+1} from (31): the
// positions step of the next step completes it.
//
// Rotating-frame (fictitious) forces F^fict of (5)-(8): the centrifugal and
// Coriolis forces act on the modes, explicitly, split by P_d like the
// external ones (25) (a spinning body stretches). They move no momentum: the
// frame, integrated by its angular momentum, already has its gyroscopic
// motion exactly. The Euler force (omega-dot x r) is left out: its modal part
// is second order in q (the rest arms x0 are M-orthogonal to the modes).
//
// How the coupled solve uses this (the (45) block of a reduced body): with
// configuration fixed after advance_reduced_positions, the end-of-step nodal
// velocities are affine in an extra nodal impulse j applied within the step:
//   v(j) = v_free + K_lambda j,
// v_free from advance_reduced_velocities on a copy of the state, K_lambda by
// apply_impulse_response or impulse_response_factor. After the solve, the
// state is advance_reduced_velocities(f) followed by
// add_velocity_change(implicit_impulse_response(j, dt)) (the configuration
// does not change within the velocity step, so either state gives the same
// response).
#include <string>

#include <Eigen/Core>

#include "lib/solid/body.hpp"

namespace fsicut::solid {

// Which eigensolver make_reduced_basis uses for K s = lambda M s.
enum class ModalSolver {
  automatic,  // dense up to DENSE_MODAL_MAX_DOFS free dofs or when the request is more than half
              // the spectrum, Lanczos otherwise
  dense,      // Eigen's dense symmetric eigensolver on M^-1/2 K M^-1/2: O(n^3) time, O(n^2) memory;
              // every mode available. Measured (1 core): 0.08 s at 405 dofs, 12 s at 2175 dofs
              // (the 725-node beam); use it up to a few thousand dofs at most
  lanczos,    // Spectra's shift-invert Lanczos (linsolve/lowest_eigenpairs.hpp; 10 modes) on a sparse
              // Cholesky of M^-1/2 K M^-1/2 - sigma Id: the lowest modes only. Measured (1 core, beams
              // 1:7:1): 0.005 s at 405 dofs, 0.05 s at 2175, 0.4 s at 6.3k, 1.7 s at 14k, 24 s at
              // 43k, 147 s at 98k dofs, three quarters of it the simplicial Cholesky's fill
};

// Free dofs up to which `automatic` takes the dense solver (a few hundredths of a second).
constexpr int DENSE_MODAL_MAX_DOFS = 300;

// The rigid motions of a free body: 3 translations and 3 rotations.
constexpr int RIGID_MODES = 6;

// The modal basis of a body's rest mesh (linear FEM: K = sum_e K0_e with all
// element rotations = Id, the lumped mass M = body.mass).
struct ReducedBasis {
  bool free_frame = true;           // no pinned node: rigid frame, 6 rigid modes removed
  Vec3 rest_center{0, 0, 0};        // c0, the rest centre of mass [m]
  Points x0;                        // 3 x #nodes, rest positions minus c0 [m]
  Vector mass;                      // #nodes, lumped masses [kg]
  Real total_mass = 0;              // [kg]
  Eigen::MatrixXd S;                // 3 #nodes x r, node-major (row 3 i + d), S^T M S = Id [1/sqrt(kg)]
  Vector eigenvalues;               // r, lambda_k = omega_k^2, ascending [1/s^2]
  Vector rigid_eigenvalues;         // the 6 removed ones of a free body (about 0) [1/s^2]; empty if pinned
  Real tau_m = 0, tau_k = 0;        // Rayleigh damping C = tau_m M + tau_k K [1/s], [s] (9)
  std::string solver;               // "dense", "lanczos", or "none" (modes = 0): what computed it

  int modes() const { return static_cast<int>(S.cols()); }
  Index num_nodes() const { return x0.cols(); }
  // sqrt(lambda_k) / (2 pi), r, ascending [Hz].
  Vector frequencies() const;
  // Rows of node i: 3 x r.
  auto node_rows(Index i) const { return S.middleRows(3 * i, 3); }
};

// Solves K s = lambda M s on the rest mesh of `body` and keeps the `modes`
// lowest non-rigid modes, mass-orthonormal and K-diagonal (S^T K S =
// diag(eigenvalues)). A free body's 6 rigid modes (lambda ~ 0) are dropped and
// the kept modes are made exactly M-orthogonal to the rigid motions (projected,
// then Rayleigh-Ritz on the projected subspace, which keeps both diagonal
// forms). A pinned body is solved on its free dofs. modes = 0 gives an empty
// basis (a rigid body). Throws std::invalid_argument when `modes` is negative
// or more than the body has (#free dofs, minus 6 when free), and
// SimulationError when the solver fails or a free body has more than 6
// (near-)zero modes (a mesh in disconnected pieces).
ReducedBasis make_reduced_basis(const Body& body, int modes, ModalSolver solver = ModalSolver::automatic);

// The rest-mesh linear stiffness sum_e K0_e (element rotations Id) over all
// node dofs: 3n x 3n, node-major, symmetric PSD [N/m].
SparseMatrix rest_stiffness(const Body& body);

// A reduced body's state (see the header comment for the kinematics).
struct ReducedState {
  Eigen::Matrix3d R = Eigen::Matrix3d::Identity();  // frame rotation, orthonormal, det +1
  Vec3 T{0, 0, 0};                                  // frame origin = centre of mass [m]
  Vector q;                                         // r modal coordinates [m sqrt(kg)]
  Vec3 v{0, 0, 0};                                  // velocity of the centre of mass [m/s]
  Vec3 omega{0, 0, 0};                              // frame angular velocity, world axes [rad/s]
  Vector qdot;                                      // r modal velocities [m sqrt(kg)/s]
};

// A solid of the scene's "model": "reduced" (sim::CutCellSimulator::reduced): its
// basis and state. The Body of the same solid holds the reconstructed x and v
// (write_reduced_to_body), which everything outside the dynamics reads.
struct ReducedBody {
  ReducedBasis basis;
  ReducedState state;
};

// The body at rest in its rest placement, moving rigidly with the body's mean
// velocity (momentum / mass) and no spin: R = Id, T = c0, q = qdot = 0 (a
// pinned body: at rest). body.x is not read: a scaled start (initial_scale)
// is not represented.
ReducedState make_reduced_state(const ReducedBasis& basis, const Body& body);

// The six rigid velocity fields J_rigid of a body with moment arms r_i
// (3 x #nodes [m]): 3 #nodes x 6, node-major; columns the translations e_x,
// e_y, e_z, then the rotations e_d x r_i [m].
Eigen::MatrixXd rigid_velocity_fields(const Points& arms);

// Node positions x_i = R (S_i q + x0_i) + T (1): 3 x #nodes [m].
Points reduced_positions(const ReducedBasis& basis, const ReducedState& state);
// Moment arms r_i = R (S_i q + x0_i): 3 x #nodes [m].
Points reduced_arms(const ReducedBasis& basis, const ReducedState& state);
// Node velocities (3): 3 x #nodes [m/s].
Points reduced_velocities(const ReducedBasis& basis, const ReducedState& state);

// Writes the reconstructed positions and velocities into body.x and body.v
// and recomputes its element rotations, so stats(), outputs and the surface
// see the reduced body.
void write_reduced_to_body(const ReducedBasis& basis, const ReducedState& state, Body& body);

struct ReducedMomentum {
  Vec3 linear{0, 0, 0};   // P = m v [kg m/s]
  Vec3 angular{0, 0, 0};  // L about the centre of mass T, I omega + R h [kg m^2/s]
};
ReducedMomentum reduced_momentum(const ReducedBasis& basis, const ReducedState& state);

// Energies [J]: kinetic 1/2 sum_i m_i |v_i|^2 of the reconstructed velocities
// and elastic 1/2 q^T diag(lambda) q (linear FEM in the frame).
Real reduced_kinetic_energy(const ReducedBasis& basis, const ReducedState& state);
Real reduced_elastic_energy(const ReducedBasis& basis, const ReducedState& state);

// The energy in the modes [J]: 1/2 |qdot|^2 + 1/2 q^T diag(lambda) q (kinetic
// and elastic energy of the deformation in the frame; mass-orthonormal S).
Real modal_energy(const ReducedBasis& basis, const ReducedState& state);

// The frame's inertia I(q, R) about T with deformed arms [kg m^2]. Positive
// definite for a body whose nodes are not all on one line.
Eigen::Matrix3d reduced_inertia(const ReducedBasis& basis, const ReducedState& state);

// The change of the reduced velocities caused by a nodal impulse.
struct ReducedVelocityChange {
  Vec3 v{0, 0, 0};      // [m/s]
  Vec3 omega{0, 0, 0};  // [rad/s]
  Vector qdot;          // r
};

// The momentum-conserving split (11)-(21) of nodal impulses j (3 x #nodes
// [N s]) applied instantaneously (no elastic response within the impulse):
// modes S^T R^T P_d j, frame J_rigid^T (Id - P_r P_d) j; the nodal velocity
// change is (20): P_rigid^T M^-1 P_rigid j + P_d^T R S S^T R^T P_d j.
ReducedVelocityChange split_impulse(const ReducedBasis& basis, const ReducedState& state, const Points& j);

// The same impulse applied within a backward Euler step of length dt (39)-(40):
// the modes answer through hat M_r = Id + dt C_r + dt^2 K_r (diagonal),
//   delta qdot = hat M_r^-1 S^T R^T P_d j,
// and the frame takes J_rigid^T (Id - P_r P_d) j plus the momentum of the
// elastic and damping forces that delta qdot brings, J_rigid^T M R S dt D_r
// delta qdot, D_r = C_r + dt K_r (35). Linear momentum changes by exactly
// sum j, angular by exactly sum r_i x j_i. dt = 0 is split_impulse.
ReducedVelocityChange implicit_impulse_response(const ReducedBasis& basis, const ReducedState& state,
                                                const Points& j, Real dt);

// Adds a velocity change to the state.
void add_velocity_change(ReducedState& state, const ReducedVelocityChange& dv);

// The nodal velocity change of a ReducedVelocityChange at the current
// configuration: 3 x #nodes, delta v + delta omega x r_i + R S_i delta qdot.
Points nodal_velocity_change(const ReducedBasis& basis, const ReducedState& state,
                             const ReducedVelocityChange& dv);

// K_lambda (43): the map from nodal impulses j to the nodal velocity change
// of implicit_impulse_response,
//   K_lambda = P_rigid^T M^-1 P_rigid + P_d^T R S hat M_r^-1 S^T R^T P_d,
// symmetric positive semi-definite (a sum of congruences of the positive
// definite M^-1 and hat M_r^-1), rank <= 6 + r. In the coupled solve it takes
// the place of a full body's inverse solid operator: eliminating the body's
// velocities adds dt J K_lambda J^T (J: nodes -> pressure rows) to the
// pressure block, which keeps it SPD. Units [1/kg] (velocity per impulse).
//
// Applied matrix-free: 3 x #nodes -> 3 x #nodes, O(#nodes r).
Points apply_impulse_response(const ReducedBasis& basis, const ReducedState& state, const Points& j, Real dt);

// Low-rank form K_lambda = W D W^T for Woodbury-style solves.
struct ImpulseResponseFactor {
  Eigen::MatrixXd W;  // 3 #nodes x (6 + r) node-major; columns: the 6 rigid velocity fields
                      // J_rigid (translations e_x, e_y, e_z, rotations e_d x r_i), then P_d^T R S
                      // (a pinned body: r columns R S only)
  Eigen::MatrixXd D;  // (6 + r) square, symmetric positive definite: blockdiag(m^-1 Id, I^-1, hat M_r^-1)
};
ImpulseResponseFactor impulse_response_factor(const ReducedBasis& basis, const ReducedState& state, Real dt);

// Algorithm 1 step 1 for a reduced body: q += dt qdot, T += dt v,
// R = exp(dt omega) R (Rodrigues' formula, exactly orthonormal up to
// round-off), then omega is re-derived from the angular momentum at the new
// configuration, omega = I^-1 (L - R h), so the step conserves P and L
// exactly (a torque-free body keeps its angular momentum; a free body's
// centre of mass moves in a straight line). A pinned body only updates q.
void advance_reduced_positions(const ReducedBasis& basis, ReducedState& state, Real dt);

// Algorithm 1's velocity update for a reduced body, after the positions
// step: backward Euler (31)-(35) under nodal forces f (3 x #nodes [N]; e.g.
// gravity m_i g) held over dt:
//   hat M_r qdot' = qdot - dt K_r q + S^T R^T P_d dt (f + F_fict)      (31), (32), (34)
//   F_fict,i = -m_i (omega x (omega x r_i) + 2 omega x R S_i qdot)      centrifugal, Coriolis
//   frame: the momentum changes by exactly J_rigid^T (dt f), the frame
//   absorbing the momentum of the elastic and damping forces (33), (35).
// For a pinned body with every mode kept this is solid::backward_euler_system
// with all element rotations Id (linear FEM), in modal coordinates.
void advance_reduced_velocities(const ReducedBasis& basis, ReducedState& state, Real dt, const Points& f);

// Nodal gravity forces m_i g: 3 x #nodes [N].
Points gravity_forces(const ReducedBasis& basis, const Vec3& gravity);

// Domain-wall contact for a reduced body, the counterpart of collide_walls
// (integrate.hpp), which a reduced body cannot use since it cannot move
// single nodes. An explicit correction after the step:
//  - positions: the frame is shifted (T) along each axis by the deepest
//    penetration of the walls [lo, hi] on that axis, which puts every node
//    back inside when only one of the axis' two walls is hit (a body wider
//    than the box is left where it is); a pinned body is not moved;
//  - velocities: every node that was outside gets the constraint
//    n . v_i >= 0 (n the wall's inward normal) and the walls push with normal
//    nodal impulses lambda_k >= 0, the LCP of the Delassus matrix
//    N K_lambda N^T (K_lambda of split_impulse, rank <= 6 + r), solved as the
//    equivalent least-distance problem in the body's 6 + r velocity dofs
//    (non-negative least squares, linsolve/nnls.hpp, exact up to round-off even when contacts
//    outnumber the dofs); the impulses go through split_impulse, so the
//    momentum changes only along the walls' normals (frictionless, inelastic).
//    When no push satisfies every wall (a body wider than the box), the
//    velocities are left unchanged.
struct ReducedContactReport {
  Index contacts = 0;      // nodes that were outside the box
  int iterations = 0;      // outer iterations of the non-negative least squares
  Real max_violation = 0;  // max(0, -n . v_i) over the contacts after the impulses [m/s]
};
ReducedContactReport collide_reduced_walls(const ReducedBasis& basis, ReducedState& state, const Vec3& lo,
                                           const Vec3& hi);

}  // namespace fsicut::solid
