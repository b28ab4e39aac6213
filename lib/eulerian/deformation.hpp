#pragma once
// The deformation gradient of an Eulerian solid from its displacement field,
// Teng, Levin & Kim 2016 Eq. 1:
//
//   x_bar(x) = x - u(x)                 the reference map (u nodal, Q1, [m])
//   dx_bar/dx = I - du/dx
//   F = dx/dx_bar = (I - du/dx)^-1      (dimensionless; world = F * material)
//
// The forces treat every grid cell as a Lagrangian Q1 element whose nodes sit
// at the grid nodes x_q in world space and at x_bar_q = x_q - u_q in material
// space (the paper's "nodes of the Eulerian mesh fictitiously deforming in a
// Lagrangian manner", section 4.4). Moving the world nodes by d_q with x_bar
// fixed gives, at local coordinates xi of the cell,
//   X(xi)    = dx/dxi    = dx I + sum_q d_q (outer) dN_q/dxi
//   Xbar(xi) = dxbar/dxi = dx I - sum_q u_q (outer) dN_q/dxi
//   F        = X Xbar^-1,  which is Eq. 1 at d = 0.
// The energy, forces and stiffness (elasticity.hpp) are those of this element,
// so the force is exactly -dE/dd and the stiffness dE^2/dd^2 (up to the
// definiteness fix), with d = dt v the motion of one step (Eq. 7).
#include "lib/eulerian/q1.hpp"

namespace fsicut::eulerian {

// x_bar(xi) = x(xi) - u(xi) at local coordinates xi of `cell`: the material
// point the reference map sends that world point to [m].
Vec3 material_point(const grid::MacGrid& grid, const NodeField& u, const Vec3i& cell, const Vec3& xi);

// Xbar(xi) = dx_bar/dxi of `cell` [m per unit xi].
Mat3 material_jacobian(const grid::MacGrid& grid, const NodeField& u, const Vec3i& cell, const Vec3& xi);

// X(xi) = dx/dxi of `cell` with the world nodes moved by `moved` (nullptr:
// not moved, X = dx I) [m per unit xi].
Mat3 world_jacobian(const grid::MacGrid& grid, const NodeField* moved, const Vec3i& cell, const Vec3& xi);

// Eq. 1: F = (I - du/dx)^-1 at local coordinates xi of `cell`. Throws
// SimulationError when I - du/dx is singular.
Mat3 deformation_gradient(const grid::MacGrid& grid, const NodeField& u, const Vec3i& cell, const Vec3& xi);

}  // namespace fsicut::eulerian
