#pragma once
// A bounding-volume hierarchy over the triangles of a surface and the queries
// through it: the closest triangle to a point, the parity of a ray's
// crossings, and where a segment meets the triangles.
//
// The hierarchy holds axis-aligned boxes, split at the median centroid along
// the longest axis of the centroids' box, down to leaves of at most
// LEAF_TRIANGLES triangles (or of triangles whose centroids coincide). Each
// leaf keeps copies of its triangles' corners, so queries read contiguous
// memory and need neither the vertices nor the triangles they were built from.
// Queries are const and thread-safe (no shared scratch). Triangles are named
// by their index in the list the hierarchy was built from.
#include <limits>
#include <vector>

#include "lib/core/types.hpp"
#include "lib/mesh/closest_point.hpp"
#include "lib/mesh/mesh.hpp"

namespace fsicut::mesh {

// Where a segment meets a surface (TriangleBvh::segment_hits).
struct SegmentHits {
  int count = 0;         // distinct points where the segment meets triangles
  Real first = std::numeric_limits<Real>::infinity();  // parameter in [0, 1] of the first meeting from the start
  Index triangle = -1;   // a triangle met there
  Vec3 point{0, 0, 0};   // the first meeting point [m]
  Real last = -std::numeric_limits<Real>::infinity();  // parameter of the last meeting
  Index last_triangle = -1;  // a triangle met there
};

class TriangleBvh {
 public:
  // Leaf size: few enough triangles that a leaf costs about as much as
  // descending one more level.
  static constexpr int LEAF_TRIANGLES = 4;

  // The nearest triangle found by closest().
  struct Closest {
    Index triangle = -1;  // -1: no triangle within the query's max_distance
    Real distance2 = std::numeric_limits<Real>::infinity();  // squared distance [m^2]
    TriangleClosest point{Vec3::Zero(), TriangleFeature::face, 0};  // the closest point and its feature
  };

  // The parity of a ray's crossings; unknown when the ray grazes an edge or a
  // vertex, runs (nearly) in a triangle's plane, or starts on the surface.
  enum class Parity { even, odd, unknown };

  TriangleBvh() = default;
  TriangleBvh(const Points& vertices, const std::vector<Triangle>& triangles) { build(vertices, triangles); }

  // (Re)builds over `triangles` (vertex indices into `vertices`, 3 x
  // #vertices [m]), reusing this object's storage: O(n log n). Requires at
  // least one triangle, indices in range and finite vertices (unchecked).
  void build(const Points& vertices, const std::vector<Triangle>& triangles);

  // The closest point among the triangles within max_distance [m] of x. A
  // finite max_distance prunes the search. `hint` (a triangle index, -1 =
  // none) is tested first to tighten the search; it wins ties with the
  // triangles found later but never changes the distance found. Ties among
  // the others go to the first found.
  Closest closest(const Vec3& x, Real max_distance = std::numeric_limits<Real>::infinity(),
                  Index hint = -1) const;

  // The parity of the crossings of the ray x + t direction, t >= 0, with the
  // triangles (`direction` of unit length). Crossings within 1e-9
  // (barycentric) of a triangle's edge or closer to x than 1e-12 times the
  // bounding box's diagonal, and rays (nearly) parallel to a triangle's plane,
  // are too close to call: unknown (try another ray).
  Parity ray_parity(const Vec3& x, const Vec3& direction) const;

  // Where the closed segment a -> b meets the triangles. Triangles met at one
  // point (within 1e-9 of the segment's length: a shared edge or vertex) count
  // once; meetings within 1e-12 (barycentric) outside an edge count, so a
  // segment through a shared edge does not slip between its triangles; a
  // segment in a triangle's plane does not meet it.
  SegmentHits segment_hits(const Vec3& a, const Vec3& b) const;

  // Many segments inside one small box (the neighbour tests of one grid
  // cell): near(lo, hi) lists once the triangles such a segment can meet
  // (those whose own box comes within 1e-6 of the box's size of [lo, hi]
  // and whose plane passes through it or within twice that margin),
  // and segment_hits(a, b, near) tests only those whose plane the segment
  // crosses or comes within that margin of, each after its leaf's box as the
  // descent tests it, in the descent's order (slot order). For a segment
  // with both ends in [lo, hi] the answer is segment_hits(a, b)'s, bit for
  // bit: a triangle left out is one whose test could only reject (the
  // segment's meeting with its plane lies off the segment by far more than
  // the test's round-off, for triangles not thinner than about 1e-5 in
  // angle). Why: a surface of a few large triangles (a box obstacle) has
  // every leaf's box around every segment near it, so the descent tested
  // all of its triangles for each segment, most of them lying beside it.
  struct Near {
    std::vector<int> slots;  // of order_, ascending
    Real margin = 0;         // [m]
  };
  Near near(const Vec3& lo, const Vec3& hi) const;
  SegmentHits segment_hits(const Vec3& a, const Vec3& b, const Near& near) const;

  // Bounding box of the triangles' vertices [m].
  const Vec3& bounds_min() const { return lo_; }
  const Vec3& bounds_max() const { return hi_; }
  Index num_triangles() const { return static_cast<Index>(order_.size()); }

 private:
  struct Node {
    Vec3 lo, hi;       // box of the triangles below
    int first = 0;     // leaf: first slot in order_; inner: index of the second child
    int count = 0;     // leaf: number of triangles (> 0); inner: 0, first child is this + 1
  };

  int build_node(int begin, int end, const Points& vertices, const std::vector<Triangle>& triangles,
                 const std::vector<Vec3>& centroids);

  std::vector<Node> nodes_;
  std::vector<int> order_;     // triangle ids in leaf order
  std::vector<Vec3> corners_;  // 3 per slot of order_: the triangle's vertices
  std::vector<int> slot_of_;   // per triangle: its slot in order_
  std::vector<int> leaf_of_;   // per slot: its leaf in nodes_
  std::vector<Vec3> planes_;   // per slot: (c1 - c0) x (c2 - c0) of its corners c
  std::vector<Real> plane_norms_;  // per slot: the length of planes_
  Vec3 lo_{0, 0, 0}, hi_{0, 0, 0};
};

}  // namespace fsicut::mesh
