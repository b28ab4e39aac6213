#pragma once
// Cut cells of the solid surface: the planar patches Q_i of Zarifi & Batty 2017,
// Sec. 5.1, eqs. (10)-(12), formed every substep (their Sec. 7, "Distance Field
// Computations") by intersecting each surface triangle with the MAC cells.
//
// A patch is the part of one surface triangle inside one grid cell: a convex
// polygon (a triangle clipped by at most six axis planes) of which only what the
// coupling needs is kept: its area, the triangle's unit normal, and the
// barycentric coordinates of its centroid in that triangle. The patches give the
// two coupling matrices of the paper:
//  - N (one row per patch, the area-weighted normal a_i n_i) and C (per patch,
//    the barycentric weights (12) that interpolate the three nodal velocities at
//    the centroid), so that N^T C v is, per cell, sum_i a_i v(c_i) . n_i: eq. (10),
//    the flux of the solid velocity OUT OF the fluid cell through its solid part
//    (dOmega_S in (7));
//  - C^T N p: the nodal pressure forces f_j = alpha_j p a_i n_i of eq. (15),
//    with p the pressure of the patch's cell.
// Both need n_i oriented INTO the solid ("pointing out of the fluid", paper
// Sec. 5.1 and 5.2): it is the outward normal of the fluid region, so the
// fluid's divergence (7) gets + v.n a, and a positive pressure pushes the
// solid surface inward. It is therefore MINUS the outward triangle normal.
//
// Cells are half-open on internal planes: a point with x exactly on the plane
// between cells i-1 and i belongs to cell i (same for y, z), and the cells on
// the high walls of the grid are closed. (So a grid-aligned box's low faces
// lie in its own boundary cells and its high faces in the cells beyond: both
// half a cell above the face, which keeps the pressure difference between
// opposite faces hydrostatically consistent.) So every bit of a triangle lies in
// exactly one cell, even a triangle lying in a grid plane or with vertices on
// grid nodes and edges: the patch areas of a triangle add up to its area
// inside the grid box (up to round-off and the dropped slivers below). Parts
// of triangles outside the grid box [grid.origin, grid.max()] are dropped.
#include <vector>

#include "lib/core/types.hpp"
#include "lib/grid/mac_grid.hpp"
#include "lib/mesh/mesh.hpp"

namespace fsicut::cutcell {

// Why: a vertex or an edge lying on (or within round-off of) a cell plane
// leaves a zero-area polygon, or one of round-off width, on the other side of
// the plane. It carries no flux or force but would add a structurally non-zero
// entry to N and C, and its centroid is 0/0 or noise. Patches below this
// fraction of dx^2 are dropped: far above round-off of cell-sized areas
// (~1e-16 dx^2 relative, a little more for grids far from the origin) and far
// below anything the discretization resolves, so at most this much area (and
// flux) is lost per patch.
constexpr Real MIN_PATCH_AREA_FRACTION = 1e-12;

// The part of one surface triangle inside one grid cell.
struct SurfacePatch {
  Index cell = -1;        // linear cell index, grid::Array3 layout of grid.cell_shape() (x fastest)
  Index triangle = -1;    // index into the triangle list passed in
  Real area = 0;          // [m^2]
  Vec3 normal{0, 0, 0};   // unit normal pointing INTO the solid (minus the outward triangle normal)
  Vec3 barycentric{0, 0, 0};  // of the patch centroid in the triangle's vertices (t[0], t[1], t[2]); sums to 1
};

// Clips every triangle against the cells of `grid` and returns the patches with
// area >= MIN_PATCH_AREA_FRACTION * dx^2.
//  - grid: dx > 0; cells as in grid/mac_grid.hpp.
//  - vertices: 3 x #vertices [m], e.g. a solid's current node positions
//    (vertices no triangle uses are ignored).
//  - triangles: vertex indices, counter-clockwise seen from outside, so the
//    outward normal is (b - a) x (c - a) normalized (mesh/mesh.hpp). Triangles
//    of zero area give no patches.
// Output: sorted by (cell, triangle); each pair occurs at most once (a triangle
// meets a cell in one convex polygon). Barycentric coordinates are >= 0 (up to
// round-off) and sum to 1; the centroid sum_k barycentric[k] * x(t[k]) lies in
// the patch's cell. The result is deterministic and independent of the thread
// count (parallel over triangles, then a sort on the unique keys).
// Method: each triangle is clipped to the grid box if it leaves it, then split
// successively along the x, y and z cell planes it spans (Sutherland-Hodgman
// against one plane at a time, carrying positions and barycentric coordinates
// linearly), visiting only the cells its bounding box touches; area and
// centroid come from a fan triangulation of each final polygon.
// Throws MeshError for a vertex index out of range and SimulationError for a
// non-finite vertex used by a triangle.
std::vector<SurfacePatch> clip_surface(const grid::MacGrid& grid, const Points& vertices,
                                       const std::vector<mesh::Triangle>& triangles);
// The same into `out` (cleared first), reusing its capacity: the per-substep call.
void clip_surface(const grid::MacGrid& grid, const Points& vertices,
                  const std::vector<mesh::Triangle>& triangles, std::vector<SurfacePatch>& out);

}  // namespace fsicut::cutcell
