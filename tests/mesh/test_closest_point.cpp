#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "lib/mesh/closest_point.hpp"

using namespace fsicut;
using namespace fsicut::mesh;

namespace {

// Closest point on a segment, independently of the library.
Vec3 segment_point(const Vec3& p, const Vec3& a, const Vec3& b) {
  const Vec3 ab = b - a;
  const Real t = std::clamp((p - a).dot(ab) / ab.squaredNorm(), Real(0), Real(1));
  return a + t * ab;
}

// Closest point on a triangle by brute force: the plane's projection when it
// falls inside, else the nearest of the three edges' closest points.
Vec3 brute_triangle_point(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c) {
  const Vec3 n = (b - a).cross(c - a).normalized();
  const Vec3 q = p - n.dot(p - a) * n;
  if (n.dot((b - a).cross(q - a)) >= 0 && n.dot((c - b).cross(q - b)) >= 0 && n.dot((a - c).cross(q - c)) >= 0)
    return q;
  Vec3 best = segment_point(p, a, b);
  for (const Vec3& e : {segment_point(p, b, c), segment_point(p, c, a)})
    if ((p - e).squaredNorm() < (p - best).squaredNorm()) best = e;
  return best;
}

Vec3 random_point(std::mt19937_64& rng, Real lo, Real hi) {
  std::uniform_real_distribution<Real> u(lo, hi);
  return Vec3(u(rng), u(rng), u(rng));
}

}  // namespace

TEST_CASE("closest_on_triangle: each Voronoi region gives its feature and the brute-force point") {
  const Vec3 a(0, 0, 0), b(2, 0, 0), c(0, 2, 0);
  struct Case {
    Vec3 p;
    TriangleFeature feature;
    int which;
    Vec3 point;
  };
  const Case cases[] = {
      {Vec3(-1, -1, 0.5), TriangleFeature::vertex, 0, a},
      {Vec3(3, -0.5, -1), TriangleFeature::vertex, 1, b},
      {Vec3(-0.5, 3, 2), TriangleFeature::vertex, 2, c},
      {Vec3(1, -1, 0.3), TriangleFeature::edge, 0, Vec3(1, 0, 0)},
      {Vec3(2, 2, -0.7), TriangleFeature::edge, 1, Vec3(1, 1, 0)},
      {Vec3(-1, 0.5, 0.1), TriangleFeature::edge, 2, Vec3(0, 0.5, 0)},
      {Vec3(0.5, 0.5, 1.5), TriangleFeature::face, 0, Vec3(0.5, 0.5, 0)},
      {Vec3(0.25, 1, -2), TriangleFeature::face, 0, Vec3(0.25, 1, 0)},
  };
  for (const Case& k : cases) {
    CAPTURE(k.p.transpose());
    const TriangleClosest q = closest_on_triangle(k.p, a, b, c);
    CHECK(q.feature == k.feature);
    CHECK(q.which == k.which);
    CHECK((q.point - k.point).norm() < 1e-15);
    CHECK((q.point - brute_triangle_point(k.p, a, b, c)).norm() < 1e-15);
  }
}

TEST_CASE("closest_on_triangle equals brute force on random triangles and points - the feature holds the point") {
  std::mt19937_64 rng(3);
  int wrong = 0, off_feature = 0;
  int seen[3] = {0, 0, 0};
  for (int s = 0; s < 20000; ++s) {
    const Vec3 a = random_point(rng, -1, 1), b = random_point(rng, -1, 1), c = random_point(rng, -1, 1);
    const Vec3 p = random_point(rng, -2, 2);
    const TriangleClosest q = closest_on_triangle(p, a, b, c);
    if ((q.point - brute_triangle_point(p, a, b, c)).norm() > 1e-12) ++wrong;
    const Vec3 corners[3] = {a, b, c};
    ++seen[static_cast<int>(q.feature)];
    if (q.feature == TriangleFeature::vertex) {
      off_feature += q.point != corners[q.which];
    } else if (q.feature == TriangleFeature::edge) {
      const Vec3 e0 = corners[q.which], e1 = corners[(q.which + 1) % 3];
      off_feature += (q.point - segment_point(q.point, e0, e1)).norm() > 1e-12;
    }
  }
  MESSAGE("faces " << seen[0] << ", edges " << seen[1] << ", vertices " << seen[2]);
  CHECK(wrong == 0);
  CHECK(off_feature == 0);
  CHECK(std::min({seen[0], seen[1], seen[2]}) > 500);
}

TEST_CASE("closest_on_triangle of a degenerate triangle is the nearest point of its edges") {
  const Vec3 a(0, 0, 0), b(1, 0, 0), c(2, 0, 0);  // collinear
  const TriangleClosest q = closest_on_triangle(Vec3(1.5, 1, 0), a, b, c);
  CHECK((q.point - Vec3(1.5, 0, 0)).norm() < 1e-15);
  CHECK(q.feature == TriangleFeature::edge);
  const TriangleClosest end = closest_on_triangle(Vec3(3, 1, 0), a, b, c);
  CHECK(end.point == c);
  CHECK(end.feature == TriangleFeature::vertex);
  CHECK(end.which == 2);
}

TEST_CASE("closest_on_segment clamps to the ends and names them as the triangle's vertices") {
  const Vec3 a(0, 0, 0), b(0, 0, 2);
  const TriangleClosest mid = closest_on_segment(Vec3(1, 1, 0.5), a, b, 1);
  CHECK(mid.feature == TriangleFeature::edge);
  CHECK(mid.which == 1);
  CHECK((mid.point - Vec3(0, 0, 0.5)).norm() < 1e-15);
  const TriangleClosest before = closest_on_segment(Vec3(0, 1, -1), a, b, 2);
  CHECK(before.feature == TriangleFeature::vertex);
  CHECK(before.which == 2);
  CHECK(before.point == a);
  const TriangleClosest after = closest_on_segment(Vec3(0, 1, 3), a, b, 2);
  CHECK(after.feature == TriangleFeature::vertex);
  CHECK(after.which == 0);
  CHECK(after.point == b);
  CHECK(closest_on_segment(Vec3(1, 1, 1), a, a, 0).point == a);  // zero length
}

TEST_CASE("box_distance2 is the squared distance to the box - zero inside") {
  const Vec3 lo(0, 0, 0), hi(1, 2, 3);
  CHECK(box_distance2(Vec3(0.5, 1, 1.5), lo, hi) == 0);
  CHECK(box_distance2(Vec3(1, 2, 3), lo, hi) == 0);
  CHECK(box_distance2(Vec3(-2, 1, 1), lo, hi) == doctest::Approx(4));          // face
  CHECK(box_distance2(Vec3(2, 3, 1), lo, hi) == doctest::Approx(2));           // edge
  CHECK(box_distance2(Vec3(-1, -1, 4), lo, hi) == doctest::Approx(3));         // corner
}
