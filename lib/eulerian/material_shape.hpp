#pragma once
// A solid's shape in its MATERIAL space (the reference configuration x_bar),
// and what the grid reads from it: which part of each Gauss point's sub-cell
// holds solid, and whether a world point lies inside the solid.
//
// Sign convention (as levelset/solid_sdf.hpp): the distance is NEGATIVE inside
// the solid, in metres of material space. A world point x is inside the solid
// when distance(x_bar(x)) < 0, x_bar(x) = x - u(x) the reference map (u the
// displacement field, nodal, q1.hpp). The shape never changes: only u moves it.
#include "lib/eulerian/q1.hpp"
#include "lib/levelset/solid_sdf.hpp"

namespace fsicut::eulerian {

// The material-space distance, sampled at the nodes of its own grid (any
// lattice covering the solid with a margin; the solid's world grid at t = 0
// is the natural choice, since x_bar = x there). Outside its grid the samples
// are clamped (grid::interpolate), so keep a margin of a few cells.
struct MaterialShape {
  grid::MacGrid grid;
  grid::Array3<Real> distance;  // size grid.node_shape() [m]
};

// Samples `solid` (levelset::StaticSolid: negative inside) on `grid`'s nodes.
MaterialShape sample_material_shape(const grid::MacGrid& grid, const levelset::StaticSolid& solid);

// The material-space distance at material point x_bar [m] (trilinear).
Real material_distance(const MaterialShape& shape, const Vec3& x_bar);

// The share of a Gauss point's sub-cell (edge h = dx/2) that lies inside the
// solid, from the distance phi at the point: clamp(1/2 - phi / h, 0, 1), the
// exact share for a plane parallel to a face of the sub-cube.
Real fill_fraction(Real distance, Real dx);

// Whether world point x [m] is inside the solid with displacement `u` on `grid`.
bool inside(const MaterialShape& shape, const grid::MacGrid& grid, const NodeField& u, const Vec3& x);

}  // namespace fsicut::eulerian
