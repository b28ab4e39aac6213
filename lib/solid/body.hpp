#pragma once
// A deformable solid: corotational linear FEM on a tetrahedral mesh (paper
// Section 4; Mueller & Gross 2004).
//
// Layout conventions used throughout lib/solid:
//  - Node quantities are 3 x #nodes matrices (`Points`), column i is node i.
//  - "Full" vectors and matrices are over all node dofs: size 3n, node-major,
//    dof 3*i + d is component d (x, y, z) of node i.
//  - "Free" vectors and matrices are over the dofs of the free (not pinned)
//    nodes only, the unknowns of (6), (19) and (30). Pinning is per node, so
//    the free dofs are node-major too: free dof 3*k + d is component d of free
//    node k = DofMap::free_index[i] of node i (see DofMap).
//  - Per-element 12-vectors and 12 x 12 matrices are ordered like the tet's
//    nodes: entry 3*a + d is component d of the tet's local node a (0..3);
//    quadratic elements' 30-vectors and 30 x 30 matrices likewise over their
//    10 nodes (a = 0..9, mesh/quadratic.hpp).
//
// Elements ("element" in the scene): linear 4-node tets (constant strain, the
// paper's) or quadratic 10-node tets (linear strain: bending without the
// locking of constant-strain tets). A quadratic body is a straight-sided
// quadratic mesh (mesh::make_quadratic); element t has corners mesh.tets[t],
// so the per-tet arrays below are per element either way.
//
// Units are SI: positions [m], velocities [m/s], masses [kg], forces [N],
// stiffness [N/m], energies [J].
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "lib/core/types.hpp"
#include "lib/linsolve/pcg.hpp"
#include "lib/mesh/mesh.hpp"

namespace fsicut::solid {

using Mat3 = Eigen::Matrix3d;
using Mat12 = Eigen::Matrix<Real, 12, 12>;
using Vec12 = Eigen::Matrix<Real, 12, 1>;
using Mat30 = Eigen::Matrix<Real, 30, 30>;
using linsolve::SparseMatrix;
using linsolve::Vector;

// Free dofs <-> node dofs. Pinned nodes carry no unknowns.
struct DofMap {
  std::vector<int> free_index;  // #nodes: index k of the node among the free nodes, -1 if pinned
  std::vector<int> free_nodes;  // #free nodes: node index of free node k (ascending)

  int num_free_nodes() const { return static_cast<int>(free_nodes.size()); }
  int num_free_dofs() const { return 3 * num_free_nodes(); }
  // Free dof of node dof (node, d), or -1 when the node is pinned.
  int free_dof(int node, int d) const { return free_index[node] < 0 ? -1 : 3 * free_index[node] + d; }
  // Node dof 3*i + d of free dof k.
  int node_dof(int k) const { return 3 * free_nodes[k / 3] + k % 3; }

  // 3 x #nodes -> #free dofs (the free nodes' columns, stacked).
  Vector gather(const Points& p) const;
  // #free dofs -> columns of the free nodes of `p` (3 x #nodes); pinned columns untouched.
  void scatter(const Vector& v, Points& p) const;
};

namespace detail {
struct BlockLayout;  // fixed sparsity of a node-block matrix and where each element block goes
class VelocitySolver;  // integrate.cpp: the set-up of (6)'s solve, kept across substeps

// Holds a body's VelocitySolver (made by its first advance_velocities). A copy
// of the slot starts empty: a copied body sets up its own solver on its first
// solve, so copies never share mutable state, and the set-up depends only on
// the body's pattern, so a copy's results are those the original would give.
struct VelocitySolverSlot {
  std::shared_ptr<VelocitySolver> solver;
  VelocitySolverSlot() = default;
  VelocitySolverSlot(const VelocitySolverSlot&) {}
  VelocitySolverSlot& operator=(const VelocitySolverSlot&) {
    solver.reset();
    return *this;
  }
  VelocitySolverSlot(VelocitySolverSlot&&) = default;
  VelocitySolverSlot& operator=(VelocitySolverSlot&&) = default;
};
}  // namespace detail

struct Body {
  std::string name;  // the solid's name, used in error messages and outputs
  mesh::TetMesh mesh;  // rest mesh: rest positions X (3 x #nodes), tets, outward boundary

  Points x;  // 3 x #nodes, current positions [m]
  Points v;  // 3 x #nodes, current velocities [m/s]; zero at pinned nodes

  // Material.
  Real density = 0;         // [kg/m^3]
  Real youngs_modulus = 0;  // [Pa]
  Real poisson_ratio = 0;   // [-]
  Real tau_m = 0;           // Rayleigh mass damping [1/s]:      D = tau_m M + tau_k K (4)
  Real tau_k = 0;           // Rayleigh stiffness damping [s]

  // Per node.
  // #nodes, lumped mass [kg]: a linear tet's rho V split equally to its 4
  // nodes; a quadratic one's by HRZ lumping (the consistent mass matrix's
  // diagonal scaled to rho V: corners rho V / 36, mid-edge nodes 4 rho V / 27;
  // row sums would give the corners negative mass).
  Vector mass;
  std::vector<char> pinned;   // #nodes, 1 = pinned: no unknowns; never moves, v = 0, unless a
                              // motion drives it (sim/cutcell/moving.hpp sets its x and v)
  DofMap dofs;                // consistent with `pinned` (set_pinned keeps it so)

  // Per tet (#tets each).
  std::vector<Real> rest_volume;  // [m^3], > 0
  std::vector<Mat3> Dm_inv;       // inverse of the rest edge matrix [X1-X0, X2-X0, X3-X0] of the corners [1/m]
  std::vector<Mat12> K0;          // linear elements: rest stiffness [N/m], symmetric PSD, 6 zero modes
  std::vector<Mat30> K0q;         // quadratic elements: rest stiffness [N/m], symmetric PSD, 6 zero modes
  std::vector<Mat3> R;            // element rotation of the current positions (update_rotations)

  // Sparsity layouts over all nodes and over the free nodes (shared, immutable).
  std::shared_ptr<const detail::BlockLayout> layout_all, layout_free;
  // The backward Euler solve's symbolic set-up, valid while layout_free stays (integrate.hpp).
  detail::VelocitySolverSlot velocity_solver;

  Index num_nodes() const { return mesh.rest.cols(); }
  Index num_tets() const { return static_cast<Index>(mesh.tets.size()); }
  bool quadratic() const { return mesh.is_quadratic(); }
  int nodes_per_element() const { return quadratic() ? 10 : 4; }
  Real total_mass() const { return mass.sum(); }
};

// The polynomial order of a body's elements: linear 4-node or quadratic
// 10-node tets.
enum class ElementOrder { linear, quadratic };

// What a body is made of and how it starts, besides its rest mesh.
struct BodySpec {
  std::string name;         // used in error messages and outputs
  Real density = 0;         // [kg/m^3], > 0
  Real youngs_modulus = 0;  // [Pa], > 0
  Real poisson_ratio = 0;   // [-], in [0, 0.5)
  Real tau_m = 0;           // Rayleigh mass damping [1/s], >= 0
  Real tau_k = 0;           // Rayleigh stiffness damping [s], >= 0
  ElementOrder element = ElementOrder::linear;
  Vec3 velocity{0, 0, 0};   // every free node's initial velocity [m/s]
  Real initial_scale = 1;   // > 0; < 1 starts compressed about the rest centroid
  // Rest position [m] -> pinned. Empty: no node is pinned.
  std::function<bool(const Vec3&)> pinned;
};

// Builds a body from its spec and its (already placed) rest mesh (made
// quadratic first when spec.element is quadratic): lumped masses from
// `density`, K0 from `youngs_modulus` and `poisson_ratio`, damping tau_m and
// tau_k, every node's velocity set to `velocity`, nodes whose rest position
// satisfies `pinned` pinned with zero velocity, and, for `initial_scale` s != 1,
// the free nodes' initial positions set to c + s (X - c) about the rest
// centroid c (the rest shape is unchanged, so a cube at s = 0.5 starts at 1/8
// of its rest volume and springs back). Rotations are computed for the
// initial positions. The material values are taken as given (the driver
// checks them against the scene).
// Throws MeshError ("solid '<name>': ...") for an empty mesh, a node index out
// of range, a node in no tet or a tet with non-positive rest volume.
Body make_body(const BodySpec& spec, mesh::TetMesh mesh);

// Replaces the pinned flags (#nodes) and rebuilds the dof map and the
// free-dof sparsity layout; pinned nodes get zero velocity.
void set_pinned(Body& body, const std::vector<char>& pinned);

// Rest stiffness of one linear (constant-strain) tet with rest node positions
// X0..X3 (positively oriented), isotropic linear elasticity with Lame
// parameters lambda, mu [Pa]: 12 x 12, symmetric positive semi-definite, its
// null space the 6 rigid infinitesimal motions. Block (a, b) is
// V (lambda g_a g_b^T + mu g_b g_a^T + mu (g_a . g_b) I), g_a the gradient of
// the shape function of node a.
Mat12 tet_stiffness(const Mat3& Dm_inv, Real rest_volume, Real lambda, Real mu);

// Rest stiffness of one straight-sided quadratic (10-node) tet with corner
// edge matrix inverse Dm_inv and volume rest_volume: 30 x 30, symmetric PSD,
// null space the 6 rigid motions, blocks as above with the quadratic shape
// functions' gradients. The shear term and the volumetric term up to
// lambda = QUADRATIC_FULL_LAMBDA_PER_MU * mu (nu <= 1/3) are integrated exactly
// (4-point rule, the integrand is quadratic in the barycentric coordinates);
// the volumetric term's excess over that acts on the element's mean
// dilatation (the P2/P0 mixed element, inf-sup stable). Why: exact
// integration puts 4 dilatation constraints on each element, and nearly
// incompressible solids lock (nu 0.49, a strip 2 elements thick: 5.5 % too
// stiff against the plane-strain beam, 3.7 % against the converged mesh);
// the mean alone softens compressible ones on coarse meshes (nu 0.3, 1
// element thick: 15 % too soft, where exact integration is 2 % off). The split
// keeps exact integration where it is accurate and is within 1.5 % of the
// converged strip at nu 0.49 with 2 elements. Uniform strains stay exact.
inline constexpr Real QUADRATIC_FULL_LAMBDA_PER_MU = 2;
Mat30 quadratic_tet_stiffness(const Mat3& Dm_inv, Real rest_volume, Real lambda, Real mu);

// Lame parameters from Young's modulus E [Pa] and Poisson ratio nu in [0, 0.5).
Real lame_lambda(Real E, Real nu);
Real lame_mu(Real E, Real nu);

// Per-solid statistics (stats.jsonl `solids`, docs/outputs.md "stats.jsonl keys").
struct BodyStats {
  Vec3 centroid{0, 0, 0};       // mass-weighted mean of the current positions [m]
  Real volume = 0;              // sum of signed tet volumes at the current positions [m^3]
  Vec3 mean_velocity{0, 0, 0};  // momentum / mass [m/s]
  Real kinetic_energy = 0;      // 1/2 sum m |v|^2 [J]
  Vec3 linear_momentum{0, 0, 0};   // sum m v [kg m/s]
  Vec3 angular_momentum{0, 0, 0};  // sum m (x - centroid) x v, about the centre of mass [kg m^2/s]
  Real elastic_energy = 0;      // corotated: 1/2 sum_e (R^T x_e - X_e)^T K0_e (R^T x_e - X_e) [J]
  // Largest principal strain over all tets: max_e max_i |s_i - 1|, s_i the
  // singular values of F_e = Ds Dm^-1, the smallest negated when det F_e < 0,
  // so an inverted tet counts more than 1. Rotation-invariant; about the
  // largest stress over E while the solid stays in linear elasticity's range.
  Real max_strain = 0;
};
BodyStats stats(const Body& body);

// Throws SimulationError naming the solid and the first node whose position
// or velocity is NaN or infinite.
void check_finite(const Body& body);

}  // namespace fsicut::solid
