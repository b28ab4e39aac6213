#pragma once
// Signed distance to closed triangle surfaces: obj obstacles, obj fluid regions
// and (every substep) the deformed boundary of the solids.
//
// Sign convention (as in levelset/solid_sdf.hpp): NEGATIVE inside the closed
// surface, positive outside, zero on it. The surface must be closed and
// outward-oriented (triangles counter-clockwise seen from outside, see
// mesh/mesh.hpp; mesh::check_closed_surface() verifies it for OBJ input).
//
// Method:
//  - distance: exact Euclidean distance to the nearest triangle (closest point
//    on a triangle by Voronoi regions, mesh/closest_point.hpp), found through
//    a bounding-volume hierarchy of axis-aligned boxes (mesh/bvh.hpp: median
//    split on the longest axis, nearest child first, pruned by the box
//    distance), so a query costs O(log #triangles) near the surface;
//  - sign: the angle-weighted pseudonormal of the feature (face, edge or
//    vertex) that holds the closest point (Baerentzen & Aanaes 2005): x is
//    inside iff (x - closest) . pseudonormal < 0. This is exact for any closed,
//    consistently oriented, non-self-intersecting surface, at edges and vertices
//    too, concave ones included.
// On a self-intersecting or open surface the sign is that of the nearest
// feature, which need not match any inside/outside.
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "lib/core/types.hpp"
#include "lib/grid/mac_grid.hpp"
#include "lib/levelset/solid_sdf.hpp"
#include "lib/mesh/bvh.hpp"
#include "lib/mesh/closest_point.hpp"
#include "lib/mesh/mesh.hpp"

namespace fsicut::levelset {

// The part of a triangle that holds a closest point (face, edge, vertex).
using MeshFeature = mesh::TriangleFeature;

// The result of a closest-point query.
struct MeshHit {
  bool found = false;     // false: no triangle within the query's max_distance
  Real distance = std::numeric_limits<Real>::infinity();  // signed [m], < 0 inside
  Vec3 point{0, 0, 0};    // closest point on the surface [m]
  Vec3 normal{0, 0, 0};   // unit outward pseudonormal of the closest feature
  Index triangle = -1;    // index into triangles() of a triangle holding `point`
  MeshFeature feature = MeshFeature::face;
};

// Where a segment meets a surface (MeshDistance::segment_hits): count, the
// first and last meeting parameters in [0, 1] and triangles met there.
using SegmentHits = mesh::SegmentHits;

// Distance queries against one closed triangle surface. Construction is
// O(n log n) in the number of triangles; queries are const and thread-safe
// (no shared scratch), so they may run inside parallel_for.
class MeshDistance {
 public:
  // Leaf size of the hierarchy (mesh::TriangleBvh).
  static constexpr int LEAF_TRIANGLES = mesh::TriangleBvh::LEAF_TRIANGLES;

  // vertices: 3 x #vertices [m]; triangles: vertex indices, counter-clockwise
  // seen from outside. Vertices no triangle uses are allowed (pass a solid's
  // node positions with its boundary triangles). Throws MeshError for an
  // index out of range, a non-finite vertex, or no triangles.
  MeshDistance(Points vertices, std::vector<mesh::Triangle> triangles);
  explicit MeshDistance(const mesh::SurfaceMesh& mesh);

  // Moves the vertices (same count, same triangles; e.g. the deformed solid of
  // this substep) and rebuilds normals and hierarchy: O(n log n), no query
  // structure survives from the old positions. Throws MeshError for a wrong
  // shape or a non-finite position.
  void set_vertices(const Points& vertices);

  // The closest point among triangles within max_distance [m] (found = false
  // if there is none: then nothing else is set). A finite max_distance prunes
  // the search, which is what makes narrow bands cheap. `hint` (a triangle
  // index, e.g. the previous query's at a neighbouring point; -1 = none) is
  // tested first to tighten the search; it never changes the distance found.
  MeshHit closest(const Vec3& x, Real max_distance = std::numeric_limits<Real>::infinity(),
                  Index hint = -1) const;
  // Signed distance [m]: negative inside, 0 on the surface.
  Real signed_distance(const Vec3& x) const;
  // Unsigned distance to the nearest triangle [m].
  Real unsigned_distance(const Vec3& x) const;
  // Where the closed segment a -> b meets the triangles (through the hierarchy,
  // O(log n) for a short segment). Triangles met at one point (a shared edge or
  // vertex) count once; a segment that only touches the surface at an edge
  // counts there too, so count is an upper bound of the surface crossings; a
  // segment in a triangle's plane does not meet it. Used to find what a
  // node distance field cannot show: a solid thinner than the grid spacing
  // between two points, and particle paths through a surface.
  SegmentHits segment_hits(const Vec3& a, const Vec3& b) const;
  // The same for many segments inside one small box [lo, hi] [m]: near() once,
  // then segment_hits(a, b, near) for each (mesh::TriangleBvh::near: the same
  // answers, testing only the triangles near the box).
  using Near = mesh::TriangleBvh::Near;
  Near near(const Vec3& lo, const Vec3& hi) const { return bvh_.near(lo, hi); }
  SegmentHits segment_hits(const Vec3& a, const Vec3& b, const Near& near) const {
    return bvh_.segment_hits(a, b, near);
  }
  // True strictly inside. False outside the bounding box without a query;
  // otherwise by the parity of the crossings of a ray from x
  // (O(log n) through the hierarchy, also deep inside or far away); when the
  // ray grazes an edge or a vertex, another ray; when x is within round-off of
  // the surface, the sign of signed_distance(x).
  bool inside(const Vec3& x) const;

  const Points& vertices() const { return vertices_; }
  const std::vector<mesh::Triangle>& triangles() const { return triangles_; }
  // Unit outward normal of a triangle at the current positions (zero if degenerate).
  const Vec3& face_normal(Index triangle) const { return face_normals_[static_cast<std::size_t>(triangle)]; }
  // Bounding box of the triangles' vertices [m].
  const Vec3& bounds_min() const { return bvh_.bounds_min(); }
  const Vec3& bounds_max() const { return bvh_.bounds_max(); }

 private:
  void check_vertices(const Points& vertices) const;
  void build_adjacency();
  void update_normals();
  Vec3 pseudonormal(Index triangle, MeshFeature feature, int which) const;

  Points vertices_;
  std::vector<mesh::Triangle> triangles_;
  std::vector<Eigen::Vector3i> triangle_edges_;   // per triangle: edge ids of (v0v1, v1v2, v2v0)
  std::vector<std::vector<int>> edge_triangles_;  // per edge: the triangles sharing it
  std::vector<Vec3> face_normals_;                // unit, per triangle (zero if degenerate)
  std::vector<Vec3> edge_normals_;                // sum of the adjacent unit face normals
  std::vector<Vec3> vertex_normals_;              // angle-weighted sum of incident face normals
  mesh::TriangleBvh bvh_;                         // over triangles_ at vertices_
};

// The static solid bounded by `mesh` (inside_out = true: everything outside it,
// a container): x -> signed distance [m], negative in the solid. The callable
// shares the MeshDistance (copies are cheap) and is thread-safe; union_solid()
// combines it with other static solids.
// A finite `band` [m] clamps the distance to [-band, band]: values within the
// band stay exact, points beyond it cost a pruned search plus a ray parity
// test instead of an unbounded nearest-triangle search (which visits most of
// the mesh deep inside a round solid). A StaticSolid need only be a distance
// near the surface, so a few cells (e.g. 5 dx) suffice.
// Throws MeshError as MeshDistance does, and for band <= 0.
StaticSolid mesh_solid(const mesh::SurfaceMesh& mesh, bool inside_out = false,
                       Real band = std::numeric_limits<Real>::infinity());

// The membership test of a fluid region bounded by `mesh`: x -> true strictly
// inside. Same type as fluid::Region (fluid/particles.hpp); the bounding box is
// tested first, so points far from the region are cheap.
std::function<bool(const Vec3&)> mesh_region(const mesh::SurfaceMesh& mesh);

// Samples the signed distance of `mesh` at every grid node (array of size
// grid.node_shape() [m]) in a narrow band: values with |d| < band are exact,
// the others are clamped to +band (outside) or -band (inside).
//
// Only nodes within max(band, dx) of the surface get an exact distance (tiles
// of 4^3 nodes farther away are skipped with one pruned query each); the sign
// of the others is constant on each 6-connected set of them (no grid edge
// between two of them crosses the surface, since an edge that crosses has both
// ends within dx of it) and is taken from one inside() test per set. Nodes
// farther than the band from the mesh's bounding box are +band without a query.
// Parallel over tiles (the labelling of far sets is serial and O(#nodes)).
// Throws SimulationError unless band > 0 and finite.
grid::Array3<Real> sample_mesh_sdf_at_nodes(const grid::MacGrid& grid, const MeshDistance& mesh,
                                            Real band);
// The same into `phi`, reusing its storage when it already has grid.node_shape()
// (per-substep use without reallocating a grid-sized array).
void sample_mesh_sdf_at_nodes(const grid::MacGrid& grid, const MeshDistance& mesh, Real band,
                              grid::Array3<Real>& phi);

}  // namespace fsicut::levelset
