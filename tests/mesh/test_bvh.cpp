#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "lib/mesh/bvh.hpp"
#include "lib/mesh/primitives.hpp"

using namespace fsicut;
using namespace fsicut::mesh;

namespace {

Vec3 random_point(std::mt19937_64& rng, Real lo, Real hi) {
  std::uniform_real_distribution<Real> u(lo, hi);
  return Vec3(u(rng), u(rng), u(rng));
}

// 300 random triangles of size about 0.2 in the unit cube.
SurfaceMesh triangle_soup(std::mt19937_64& rng) {
  SurfaceMesh m;
  const int n = 300;
  m.vertices.resize(3, 3 * n);
  for (int t = 0; t < n; ++t) {
    const Vec3 c = random_point(rng, 0, 1);
    for (int k = 0; k < 3; ++k) m.vertices.col(3 * t + k) = c + random_point(rng, -0.1, 0.1);
    m.triangles.emplace_back(3 * t, 3 * t + 1, 3 * t + 2);
  }
  return m;
}

Real brute_distance2(const SurfaceMesh& m, const Vec3& x) {
  Real best = std::numeric_limits<Real>::infinity();
  for (const Triangle& t : m.triangles) {
    const TriangleClosest q =
        closest_on_triangle(x, m.vertices.col(t[0]), m.vertices.col(t[1]), m.vertices.col(t[2]));
    best = std::min(best, (x - q.point).squaredNorm());
  }
  return best;
}

// Parameters t in [0, 1] where a + t (b - a) meets triangle t (Moeller-Trumbore), or -1.
Real meet(const SurfaceMesh& m, const Triangle& t, const Vec3& a, const Vec3& b) {
  const Vec3 p0 = m.vertices.col(t[0]), e1 = m.vertices.col(t[1]) - p0, e2 = m.vertices.col(t[2]) - p0;
  const Vec3 d = b - a, p = d.cross(e2);
  const Real det = e1.dot(p);
  if (det == 0) return -1;
  const Vec3 r = a - p0, q = r.cross(e1);
  const Real u = r.dot(p) / det, v = d.dot(q) / det, s = e2.dot(q) / det;
  return u >= 0 && v >= 0 && u + v <= 1 && s >= 0 && s <= 1 ? s : -1;
}

}  // namespace

TEST_CASE("TriangleBvh::closest equals brute force over all triangles - with a range and a hint") {
  std::mt19937_64 rng(11);
  const SurfaceMesh soup = triangle_soup(rng);
  const TriangleBvh bvh(soup.vertices, soup.triangles);
  CHECK(bvh.num_triangles() == 300);
  CHECK((bvh.bounds_min() - soup.vertices.rowwise().minCoeff()).norm() == 0);
  CHECK((bvh.bounds_max() - soup.vertices.rowwise().maxCoeff()).norm() == 0);
  int wrong = 0, wrong_range = 0, wrong_hint = 0, found = 0;
  for (int s = 0; s < 2000; ++s) {
    const Vec3 x = random_point(rng, -0.5, 1.5);
    const Real exact = brute_distance2(soup, x);
    const TriangleBvh::Closest c = bvh.closest(x);
    if (c.triangle < 0 || c.distance2 != exact || (x - c.point.point).squaredNorm() != exact) ++wrong;
    // The closest point lies on the triangle named.
    if (c.triangle >= 0) {
      const Triangle& t = soup.triangles[static_cast<std::size_t>(c.triangle)];
      const TriangleClosest q =
          closest_on_triangle(x, soup.vertices.col(t[0]), soup.vertices.col(t[1]), soup.vertices.col(t[2]));
      if (q.point != c.point.point) ++wrong;
    }
    const Real range = 0.05;
    const TriangleBvh::Closest near = bvh.closest(x, range);
    found += near.triangle >= 0;
    if ((near.triangle >= 0) != (exact <= range * range) || (near.triangle >= 0 && near.distance2 != exact))
      ++wrong_range;
    const Index hint = static_cast<Index>(s % 300);
    if (bvh.closest(x, std::numeric_limits<Real>::infinity(), hint).distance2 != exact) ++wrong_hint;
  }
  MESSAGE(found << " of 2000 points within the range");
  CHECK(wrong == 0);
  CHECK(wrong_range == 0);
  CHECK(wrong_hint == 0);
  CHECK(found > 100);
}

TEST_CASE("TriangleBvh::segment_hits counts and orders the meetings of brute force") {
  std::mt19937_64 rng(12);
  const SurfaceMesh soup = triangle_soup(rng);
  const TriangleBvh bvh(soup.vertices, soup.triangles);
  int wrong = 0, met = 0;
  for (int s = 0; s < 2000; ++s) {
    const Vec3 a = random_point(rng, -0.2, 1.2), b = a + random_point(rng, -0.4, 0.4);
    int count = 0;
    Real first = std::numeric_limits<Real>::infinity(), last = -first;
    for (const Triangle& t : soup.triangles) {
      const Real u = meet(soup, t, a, b);
      if (u < 0) continue;
      ++count;
      first = std::min(first, u);
      last = std::max(last, u);
    }
    const SegmentHits h = bvh.segment_hits(a, b);
    met += count > 0;
    if (h.count != count) ++wrong;
    if (count > 0 && (std::abs(h.first - first) > 1e-12 || std::abs(h.last - last) > 1e-12)) ++wrong;
    if (count > 0 && meet(soup, soup.triangles[static_cast<std::size_t>(h.triangle)], a, b) < 0) ++wrong;
  }
  MESSAGE(met << " of 2000 segments meet a triangle");
  CHECK(wrong == 0);
  CHECK(met > 100);
}

TEST_CASE("TriangleBvh::segment_hits through near() answers as the descent, bit for bit") {
  // A thin rotated plate (a paddle: a few large triangles, every leaf's box
  // around every segment near it) and the soup; segments between points of
  // small boxes around and through them, as the neighbour tests of a grid
  // cell draw them, half of them from the box's centre.
  std::mt19937_64 rng(21);
  SurfaceMesh plate;
  plate.vertices.resize(3, 8);
  const Vec3 u = Vec3(1, 0, 1).normalized(), v(0, 1, 0), w = u.cross(v);
  for (int c = 0; c < 8; ++c)
    plate.vertices.col(c) = Vec3(0.5, 0.5, 0.5) + ((c & 1) ? 0.3 : -0.3) * u + ((c & 2) ? 0.2 : -0.2) * v +
                            ((c & 4) ? 0.005 : -0.005) * w;
  const int faces[6][4] = {{0, 2, 6, 4}, {1, 5, 7, 3}, {0, 4, 5, 1}, {2, 3, 7, 6}, {0, 1, 3, 2}, {4, 6, 7, 5}};
  for (const auto& f : faces) {
    plate.triangles.emplace_back(f[0], f[1], f[2]);
    plate.triangles.emplace_back(f[0], f[2], f[3]);
  }
  for (const SurfaceMesh& mesh : {plate, triangle_soup(rng)}) {
    const TriangleBvh bvh(mesh.vertices, mesh.triangles);
    int wrong = 0, met = 0;
    for (int box = 0; box < 400; ++box) {
      const Vec3 lo = random_point(rng, 0.2, 0.75), hi = lo + Vec3::Constant(0.06);
      const Vec3 centre = (lo + hi) / 2;
      const TriangleBvh::Near near = bvh.near(lo, hi);
      for (int s = 0; s < 50; ++s) {
        const Vec3 a = s % 2 ? centre : lo + 0.06 * random_point(rng, 0, 1), b = lo + 0.06 * random_point(rng, 0, 1);
        const SegmentHits whole = bvh.segment_hits(a, b), part = bvh.segment_hits(a, b, near);
        met += whole.count > 0;
        if (part.count != whole.count || part.triangle != whole.triangle || part.last_triangle != whole.last_triangle)
          ++wrong;
        if (whole.count > 0 && (part.first != whole.first || part.last != whole.last || part.point != whole.point))
          ++wrong;
      }
    }
    MESSAGE(met << " of 20000 segments meet a triangle");
    CHECK(wrong == 0);
    CHECK(met > 300);
  }
}

TEST_CASE("TriangleBvh::ray_parity is odd exactly inside a closed surface") {
  const SurfaceMesh ball = icosphere(Vec3(0.1, 0.2, 0.3), 0.8, 3);
  const TriangleBvh bvh(ball.vertices, ball.triangles);
  std::mt19937_64 rng(13);
  int wrong = 0, unknown = 0;
  for (int s = 0; s < 2000; ++s) {
    const Vec3 x = random_point(rng, -1, 1.2);
    const Vec3 direction = random_point(rng, -1, 1).normalized();
    // Brute force: the crossings of a long segment along the ray.
    int count = 0;
    for (const Triangle& t : ball.triangles) count += meet(ball, t, x, x + 10 * direction) >= 0;
    const TriangleBvh::Parity p = bvh.ray_parity(x, direction);
    if (p == TriangleBvh::Parity::unknown) {
      ++unknown;
      continue;
    }
    if ((p == TriangleBvh::Parity::odd) != (count % 2 == 1)) ++wrong;
    // Far from the polyhedron's surface the parity is the sphere's inside.
    const Real r = (x - Vec3(0.1, 0.2, 0.3)).norm();
    if (std::abs(r - 0.8) > 0.05 && (p == TriangleBvh::Parity::odd) != (r < 0.8)) ++wrong;
  }
  CHECK(wrong == 0);
  CHECK(unknown < 5);
  // A ray through a vertex cannot be called.
  CHECK(bvh.ray_parity(Vec3(0.1, 0.2, 0.3), (ball.vertices.col(0) - Vec3(0.1, 0.2, 0.3)).normalized()) ==
        TriangleBvh::Parity::unknown);
}
