#pragma once
// Elastic energy, nodal forces and stiffness of an Eulerian solid (Teng, Levin
// & Kim 2016, section 4.4; Algorithm 1 line 4), from its displacement field u
// and its material shape, with the corotated material (corotated.hpp).
//
// Every cell whose eight corners carry a valid u is a Q1 element
// (deformation.hpp); each of its 2x2x2 Gauss points g stands for the material
// volume V_g = |det Xbar(xi_g)| / 8 [m^3], of which the share theta_g =
// fill_fraction(distance(x_bar_g)) is solid (material_shape.hpp). Only points
// with theta_g > 0 are kept. With g_q = dN_q/dx_bar = Xbar^-T dN_q/dxi [1/m]:
//
//   energy     E = sum_g theta_g V_g Psi(F_g)                                  [J]
//   force      f_q = -dE/dd_q = -sum_g theta_g V_g P(F_g) g_q                   [N]
//   stiffness  (K w)_q = sum_g theta_g V_g dP(F_g; sum_b w_b (outer) g_b) g_q   [N/m]
//
// d is the motion of the world nodes with the material fixed (deformation.hpp).
// A plastic solid (plasticity.hpp) replaces Xbar by F_p Xbar at each point,
// so F_g is the elastic part F_e and g_q the gradients of the relaxed shape.
// Sign convention: f is the force ON the nodes (it pushes back towards rest),
// K = d2E/dd2 = -df/dd is symmetric positive semi-definite (the definiteness
// fix of corotated.hpp). The paper's f_int is -f, its K this K: Eq. 8 reads
// (M + dt C + dt^2 K) v* = M v^n + dt (f_ext + f).
#include <vector>

#include "lib/eulerian/corotated.hpp"
#include "lib/eulerian/material_shape.hpp"
#include "lib/eulerian/unknowns.hpp"

namespace fsicut::eulerian {

struct PlasticStrain;  // plasticity.hpp

struct QuadraturePoint {
  Vec3i cell{0, 0, 0};
  int gauss = 0;
  Real fraction = 0;          // theta_g, in (0, 1]
  Real reference_volume = 0;  // V_g [m^3]
  std::array<Vec3, CORNERS> gradients;  // g_q [1/m]
  CorotatedPoint model;
};

// The quadrature points of the solid, grouped by cell (cells in increasing
// index; the points of cells[c] are points[first[c] .. first[c+1])).
struct ElasticState {
  std::vector<QuadraturePoint> points;
  std::vector<Vec3i> cells;
  std::vector<Index> first;
  Index inverted = 0;  // points whose F has det <= 0
};

// Evaluates every Gauss point of every cell whose corners are all valid
// (valid: #nodes, nonzero where u is defined). `moved` (nullptr in the step):
// world node motion d of deformation.hpp, for derivative checks. `plastic`
// (nullptr: an elastic solid): the solid's F_p, which makes every point's
// model Psi(F_e), F_e = F F_p^-1, and its gradients g_q those of its relaxed
// rest shape (plasticity.hpp); where F_p = I the point is bit for bit the
// elastic one. Throws SimulationError where a solid point's reference map is
// singular.
ElasticState evaluate_elasticity(const grid::MacGrid& grid, const NodeField& u, const std::vector<char>& valid,
                                 const MaterialShape& shape, const Lame& lame, const NodeField* moved = nullptr,
                                 const PlasticStrain* plastic = nullptr);

// Whether all eight corners of `cell` carry a valid u (valid: #nodes).
bool corners_valid(const grid::MacGrid& grid, const std::vector<char>& valid, const Vec3i& cell);

Real elastic_energy(const ElasticState& state);

// f of the header on every node (zero away from the solid) [N].
NodeField elastic_forces(const grid::MacGrid& grid, const ElasticState& state);

// K w on every node, w a nodal displacement [m] -> [N].
NodeField stiffness_product(const grid::MacGrid& grid, const ElasticState& state, const NodeField& w);

// K over the unknowns: 3U x 3U, both triangles stored, symmetric positive
// semi-definite [N/m]. Entries of non-unknown (wall) nodes are dropped.
linsolve::SparseMatrix assemble_stiffness(const grid::MacGrid& grid, const ElasticState& state,
                                          const Unknowns& unknowns);

// Row-sum lumped mass of each node: sum_g density theta_g V_g N_q(xi_g) (#nodes) [kg].
std::vector<Real> lumped_masses(const grid::MacGrid& grid, const ElasticState& state, Real density);

// The solid's world volume sum_g theta_g dx^3 / 8 [m^3].
Real solid_volume(const grid::MacGrid& grid, const ElasticState& state);

}  // namespace fsicut::eulerian
