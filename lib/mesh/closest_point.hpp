#pragma once
// Closest points on triangles and segments, and the distance to a box: the
// exact geometry under the mesh distance queries (mesh/bvh.hpp,
// levelset/mesh_sdf.hpp).
//
// The closest point of a triangle (a, b, c) is found by its Voronoi regions
// (Ericson, Real-Time Collision Detection, 5.1.5). The region also names the
// feature that holds the point, which is what decides the sign of a mesh
// distance (the feature's pseudonormal):
//   vertex 0, 1, 2 = a, b, c;  edge 0 = (a, b), 1 = (b, c), 2 = (c, a);  face.
// The functions are inline: they run once per triangle in the hierarchy's
// inner loops.
#include <algorithm>
#include <initializer_list>

#include "lib/core/types.hpp"

namespace fsicut::mesh {

// The part of a triangle that holds a closest point.
enum class TriangleFeature { face, edge, vertex };

struct TriangleClosest {
  Vec3 point;               // the closest point [m]
  TriangleFeature feature;  // where it lies
  int which;                // vertex or edge number (0..2, see above); 0 for the face
};

// The closest point to p on the segment from a to b, which is edge `edge`
// (0..2) of a triangle: vertex `edge` at a, vertex (edge + 1) % 3 at b, the
// edge in between. A segment of zero length gives a.
inline TriangleClosest closest_on_segment(const Vec3& p, const Vec3& a, const Vec3& b, int edge);

// The closest point to p on the triangle (a, b, c). A (numerically)
// degenerate triangle, with no interior, gives the nearest point of its edges.
inline TriangleClosest closest_on_triangle(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c);

// Squared distance [m^2] from p to the axis-aligned box [lo, hi]; 0 inside.
inline Real box_distance2(const Vec3& p, const Vec3& lo, const Vec3& hi);

// Definitions.

inline TriangleClosest closest_on_segment(const Vec3& p, const Vec3& a, const Vec3& b, int edge) {
  const Vec3 ab = b - a;
  const Real len2 = ab.squaredNorm();
  const Real t = len2 > 0 ? std::clamp((p - a).dot(ab) / len2, Real(0), Real(1)) : Real(0);
  if (t <= 0) return {a, TriangleFeature::vertex, edge};
  if (t >= 1) return {b, TriangleFeature::vertex, (edge + 1) % 3};
  return {a + t * ab, TriangleFeature::edge, edge};
}

inline TriangleClosest closest_on_triangle(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c) {
  const Vec3 ab = b - a, ac = c - a, ap = p - a;
  const Real d1 = ab.dot(ap), d2 = ac.dot(ap);
  if (d1 <= 0 && d2 <= 0) return {a, TriangleFeature::vertex, 0};
  const Vec3 bp = p - b;
  const Real d3 = ab.dot(bp), d4 = ac.dot(bp);
  if (d3 >= 0 && d4 <= d3) return {b, TriangleFeature::vertex, 1};
  const Real vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) return {a + d1 / (d1 - d3) * ab, TriangleFeature::edge, 0};
  const Vec3 cp = p - c;
  const Real d5 = ab.dot(cp), d6 = ac.dot(cp);
  if (d6 >= 0 && d5 <= d6) return {c, TriangleFeature::vertex, 2};
  const Real vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) return {a + d2 / (d2 - d6) * ac, TriangleFeature::edge, 2};
  const Real va = d3 * d6 - d5 * d4;
  if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0)
    return {b + (d4 - d3) / ((d4 - d3) + (d5 - d6)) * (c - b), TriangleFeature::edge, 1};
  const Real sum = va + vb + vc;  // = |ab x ac|^2
  // A (numerically) degenerate triangle has no interior: fall back to the
  // nearest of its edges instead of dividing by a vanishing area.
  if (!(sum > 0)) {
    TriangleClosest best = closest_on_segment(p, a, b, 0);
    for (const TriangleClosest& e : {closest_on_segment(p, b, c, 1), closest_on_segment(p, c, a, 2)})
      if ((p - e.point).squaredNorm() < (p - best.point).squaredNorm()) best = e;
    return best;
  }
  return {a + (vb / sum) * ab + (vc / sum) * ac, TriangleFeature::face, 0};
}

inline Real box_distance2(const Vec3& p, const Vec3& lo, const Vec3& hi) {
  const Vec3 d = (lo - p).cwiseMax(p - hi).cwiseMax(0.0);
  return d.squaredNorm();
}

}  // namespace fsicut::mesh
