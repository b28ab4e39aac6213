#include <doctest/doctest.h>

#include <random>

#include "lib/mesh/barycentric.hpp"

using namespace fsicut;

TEST_CASE("barycentric: the vertices, the centroid and random points are reproduced - off-plane points project") {
  const Vec3 a(0.1, -0.2, 0.3), b(1.4, 0.1, -0.2), c(0.3, 0.9, 0.5);
  CHECK((mesh::barycentric(a, a, b, c) - Vec3(1, 0, 0)).norm() < 1e-14);
  CHECK((mesh::barycentric(b, a, b, c) - Vec3(0, 1, 0)).norm() < 1e-14);
  CHECK((mesh::barycentric(c, a, b, c) - Vec3(0, 0, 1)).norm() < 1e-14);
  CHECK((mesh::barycentric((a + b + c) / 3, a, b, c) - Vec3::Constant(1.0 / 3)).norm() < 1e-14);
  const Vec3 normal = (b - a).cross(c - a).normalized();
  std::mt19937 rng(7);
  std::uniform_real_distribution<Real> u(-0.5, 1.5);
  for (int n = 0; n < 100; ++n) {
    const Real l1 = u(rng), l2 = u(rng), l0 = 1 - l1 - l2;
    const Vec3 p = l0 * a + l1 * b + l2 * c + u(rng) * normal;  // some outside, all off the plane
    const Vec3 l = mesh::barycentric(p, a, b, c);
    CHECK(l.sum() == doctest::Approx(1).epsilon(1e-12));
    CHECK((l - Vec3(l0, l1, l2)).norm() < 1e-12);
  }
}

TEST_CASE("barycentric: a degenerate triangle gives its first node") {
  const Vec3 a(0, 0, 0), b(1, 1, 1), c(2, 2, 2);
  CHECK(mesh::barycentric(Vec3(0.5, 0.2, 0), a, b, c) == Vec3(1, 0, 0));
  CHECK(mesh::barycentric(Vec3(1, 2, 3), a, a, a) == Vec3(1, 0, 0));
}
