#pragma once
// Corotational linear elasticity (Mueller & Gross 2004), the solid model of
// paper Section 4.
//
// Each tet e keeps its rest stiffness K0_e and a rotation R_e, the rotation of
// the polar decomposition of its deformation gradient F = Ds Dm^-1. With x_e
// the tet's current node positions and X_e its rest positions (12-vectors),
//   elastic force     f_e = -R_e K0_e (R_e^T x_e - X_e)              [N]
//   stiffness         K   = sum_e R_e K0_e R_e^T  (rotations held fixed)
//   elastic energy    E   = 1/2 sum_e (R_e^T x_e - X_e)^T K0_e (R_e^T x_e - X_e)  [J]
// For linear tets f_e is exactly -dE/dx_e (the polar rotation makes the terms
// from dR vanish). Quadratic elements take R_e from F at the element's
// centroid (its mean over the element) and use f_e as above, the usual
// element-rotation corotational model: f_e = -dE/dx_e then holds at rest and
// up to terms of the order of the strain's variation over the element.
// Either way elastic forces sum to zero and exert no net torque (R_e aligns
// R_e^T x_e with X_e), and they vanish under any rigid motion, including
// rotations by 180 degrees.
#include "lib/solid/body.hpp"

namespace fsicut::solid {

// Rotation of the polar decomposition of F (det = +1), robust to inverted
// (det F < 0) and degenerate (rank-deficient) F: with the SVD F = U S V^T,
// R = U diag(1, 1, det(U V^T)) V^T, i.e. the direction of the smallest
// singular value is flipped when F is inverted (Irving et al. 2004).
Mat3 polar_rotation(const Mat3& F);

// Deformation gradient of element `t` at the current positions: Ds Dm^-1 for
// a linear tet, its value at the centroid (= its mean) for a quadratic one.
Mat3 deformation_gradient(const Body& body, Index t);

// Recomputes every R_e from the current positions (in parallel).
void update_rotations(Body& body);

// Elastic forces on all nodes, full: 3n, node-major (dof 3*i + d) [N].
// Uses the stored rotations: call update_rotations after moving nodes.
Vector elastic_forces(const Body& body);

// Corotated elastic energy (see above) [J], with the stored rotations.
Real elastic_energy(const Body& body);

// Corotated stiffness K = sum_e R_e K0_e R_e^T over all node dofs: 3n x 3n,
// node-major, both triangles stored, symmetric positive semi-definite [N/m].
// At rest (and at any rigidly moved rest state) it is the Jacobian -df/dx of
// elastic_forces.
SparseMatrix stiffness(const Body& body);

// The same over the free dofs only (body.dofs): #free x #free.
SparseMatrix free_stiffness(const Body& body);

}  // namespace fsicut::solid
