#pragma once
// The Q1 (trilinear hexahedral) discretization of the Eulerian solids (Teng,
// Levin & Kim 2016, section 4.2) on the grid of grid/mac_grid.hpp.
//
// Layout.
//  - Velocity v, displacement u and forces live at the grid NODES (cell
//    corners), node (i,j,k) at origin + dx*(i,j,k), 0 <= i <= nx etc. A nodal
//    vector field is a NodeField: 3 values per node, node-major, the value of
//    component a at node n at 3*n + a, with n = i + (nx+1)*(j + (ny+1)*k) (x
//    fastest, as grid::Array3 over grid.node_shape()).
//  - Pressure (the incompressibility multiplier) lives at cell CENTRES, one per
//    cell, cell index c = i + nx*(j + ny*k).
//  - Each cell is one Q1 element. Its corner q (0..7) is node
//    (i + (q&1), j + ((q>>1)&1), k + ((q>>2)&1)): bit 0 is x, bit 1 y, bit 2 z.
//  - Local coordinates xi in [0,1]^3 span the cell: x = cell min corner + dx*xi.
//    Shape function of corner q: N_q(xi) = prod_a (bit_a(q) ? xi_a : 1 - xi_a).
//  - Element integrals use the 2x2x2 Gauss rule (points 1/2 +- 1/(2 sqrt 3) per
//    axis, weight 1/8 of the cell each), the paper's eight-point rule; the
//    incompressibility constraint is one point, the cell centre (under-
//    integrated, which the paper uses against locking).
#include <array>

#include <Eigen/Core>

#include "lib/core/types.hpp"
#include "lib/grid/mac_grid.hpp"
#include "lib/linsolve/pcg.hpp"

namespace fsicut::eulerian {

using Mat3 = Eigen::Matrix3d;
using linsolve::Vector;
// A nodal vector field: 3 * #nodes values (layout above) [unit of the field].
using NodeField = Vector;

constexpr int CORNERS = 8;
constexpr int GAUSS_POINTS = 8;
// Each Gauss point's share of its cell's volume.
constexpr Real GAUSS_WEIGHT = 1.0 / 8.0;

// Local coordinates of Gauss point g (0..7), its bits chosen as the corners'.
Vec3 gauss_point(int g);

// Shape function values N_q(xi), q = 0..7.
std::array<Real, CORNERS> shape_values(const Vec3& xi);

// Gradients dN_q/dxi with respect to the LOCAL coordinates (divide by dx for
// world gradients [1/m]).
std::array<Vec3, CORNERS> shape_gradients(const Vec3& xi);

// Inline, these index helpers: they sit in the innermost loops of every
// stencil (as calls, 7.6 % of the Ball benchmark's profile).

// The local coordinate offset of corner q: (q&1, (q>>1)&1, (q>>2)&1).
inline Vec3i corner_offset(int q) { return {q & 1, (q >> 1) & 1, (q >> 2) & 1}; }

// The sign of corner q's side along `axis`: +1 on the high side, -1 on the low.
inline Real corner_sign(int q, int axis) { return ((q >> axis) & 1) ? 1.0 : -1.0; }

// The linear node index of node (i,j,k) and back.
inline Index node_index(const grid::MacGrid& grid, const Vec3i& node) {
  const Vec3i s = grid.node_shape();
  return node.x() + static_cast<Index>(s.x()) * (node.y() + static_cast<Index>(s.y()) * node.z());
}
inline Vec3i node_coord(const grid::MacGrid& grid, Index node) {
  const Vec3i s = grid.node_shape();
  const Index r = node / s.x();
  return {static_cast<int>(node % s.x()), static_cast<int>(r % s.y()), static_cast<int>(r / s.y())};
}
inline Index node_count(const grid::MacGrid& grid) {
  const Vec3i s = grid.node_shape();
  return static_cast<Index>(s.x()) * s.y() * s.z();
}

// The node index of corner q of cell `cell` (see layout).
inline Index corner_node(const grid::MacGrid& grid, const Vec3i& cell, int q) {
  return node_index(grid, cell + corner_offset(q));
}

// The linear index of cell (i,j,k) (pressure layout).
inline Index cell_index(const grid::MacGrid& grid, const Vec3i& c) {
  return c.x() + static_cast<Index>(grid.resolution.x()) * (c.y() + static_cast<Index>(grid.resolution.y()) * c.z());
}

// The nodal value of `field` at node n.
inline Vec3 node_value(const NodeField& field, Index n) { return field.segment<3>(3 * n); }

// A NodeField of zeros for `grid`.
NodeField zero_field(const grid::MacGrid& grid);

// Sum over the corners of `cell` of field_q (outer) dN_q/dxi at xi: the
// gradient of the interpolated field with respect to the local coordinates,
// row a = component a [unit of the field] (divide by dx for d/dx [unit/m]).
Mat3 local_gradient(const grid::MacGrid& grid, const NodeField& field, const Vec3i& cell, const Vec3& xi);

// The cell holding world position x [m] (clamped onto the grid) and x's local
// coordinates in it.
Vec3i locate(const grid::MacGrid& grid, const Vec3& x, Vec3& xi);

// Trilinear interpolation of a nodal field at world position x [m]; positions
// outside the grid are clamped onto it.
Vec3 interpolate(const grid::MacGrid& grid, const NodeField& field, const Vec3& x);

}  // namespace fsicut::eulerian
