#pragma once
// Signed distance of the static solids (obstacles and containers) and its
// samples at the grid nodes.
//
// Sign convention (used everywhere in fsicut): the solid SDF is NEGATIVE inside
// the solid and positive in the space the liquid may occupy; its gradient points
// out of the solid. The domain walls are not part of these functions: the faces
// on the grid boundary are simply closed (see cutcell/face_fractions.hpp).
#include <functional>
#include <vector>

#include "lib/core/types.hpp"
#include "lib/grid/mac_grid.hpp"

namespace fsicut::levelset {

// A static solid as a signed distance function [m] of a world position [m].
// An empty function means "no static solid". Any shape fits (a ramp plane, a
// mesh SDF built by the caller); it need only be a distance near the surface
// (|grad| ~ 1 within a few cells of it).
using StaticSolid = std::function<Real(const Vec3&)>;

// Distance used where there is no solid at all; finite, so differences and
// interpolation of node samples stay finite.
Real no_solid_distance(const grid::MacGrid& grid);

// The solid outside (inside_out = true: inside) an axis-aligned box [min, max] [m].
StaticSolid box_solid(const Vec3& min, const Vec3& max, bool inside_out = false);
// The solid ball (inside_out = true: everything outside the sphere, a container).
StaticSolid sphere_solid(const Vec3& center, Real radius, bool inside_out = false);
// The half-space { x : n . (x - point) < 0 }; `normal` (normalized here) points out of the solid.
StaticSolid plane_solid(const Vec3& point, const Vec3& normal);
// Union of solids: the minimum of their distances. Empty parts are skipped.
StaticSolid union_solid(std::vector<StaticSolid> parts);

// Samples `solid` at every grid node: an array of size grid.node_shape() [m].
// Parallel over nodes. An empty `solid` gives no_solid_distance(grid) everywhere.
grid::Array3<Real> sample_solid_at_nodes(const grid::MacGrid& grid, const StaticSolid& solid);

// How far [cells] every node sample of a solid's distance is moved out of the
// solid before the liquid reads it (resolve_surface_ties). Why: a grid node on
// a solid's surface (a box face on a grid plane, a solid flush with a domain wall
// or with another solid) has distance 0 up to round-off, and the sign of that
// round-off decided whether the faces lying in the plane were open: a pinned
// wall flush with the floor had half-open faces along the floor through its
// whole thickness, and still water drained through it. Biased, such nodes are
// inside the solid for every consumer alike (face fractions, cell centres,
// particle push-out, the velocity constraint). The bias is far below any length
// the simulation resolves.
constexpr Real SURFACE_TIE_CELLS = 1e-6;

// Subtracts SURFACE_TIE_CELLS * grid.dx from every node sample of a solid
// distance [m] (`phi` of size grid.node_shape()).
void resolve_surface_ties(const grid::MacGrid& grid, grid::Array3<Real>& phi);

// Gives every node on the domain's boundary the value of its inward neighbour
// (`phi` of size grid.node_shape(), axis by axis). Why: the domain's walls are
// solid, and a solid face lying in a wall is no surface the liquid can meet;
// but a solid flush with a wall has distance 0 at every boundary node under
// it, which moved its surface by up to a cell along the wall (a box wall
// 0.17..0.245 read 0.175 in the boundary layer of cells) and set still water
// beside it moving at cm/s. The copy is the solid continued straight through
// the wall, as if it extended past the domain, which is exact for surfaces
// that meet the wall at right angles.
void extend_through_domain_walls(grid::Array3<Real>& phi);

// The open fraction of cell (i, j, k) [0, 1] by the node SDF `phi` (< 0 in
// solids, at the cell's 8 corners): where the trilinear interpolant is
// positive, integrated exactly along the axis it changes most on
// OPEN_FRACTION_POINTS^2 lines across the cell (it is linear on each). A flat
// wall facing an axis reads exactly (its face a third of the way into the
// cell: 2/3), a tilted one within 1 / (2 OPEN_FRACTION_POINTS). 1 when no
// corner is negative.
inline constexpr int OPEN_FRACTION_POINTS = 4;
Real cell_open_fraction(const grid::Array3<Real>& phi, int i, int j, int k);

// The value and the outward unit normal (normalized central-difference gradient
// with step h [m]) of `solid` at x. The normal is zero where the gradient vanishes.
Vec3 solid_normal(const StaticSolid& solid, const Vec3& x, Real h);

}  // namespace fsicut::levelset
