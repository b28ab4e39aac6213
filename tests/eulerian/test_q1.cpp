#include <doctest/doctest.h>

#include <cmath>

#include "lib/eulerian/q1.hpp"
#include "tests/eulerian/fixtures.hpp"

using namespace fsicut;
using namespace fsicut::eulerian;

TEST_CASE("eulerian q1: shape functions sum to one and reproduce linear fields and their gradients") {
  const grid::MacGrid g = test::cube_grid(4, 0.25);
  const Mat3 A = (Mat3() << 0.3, -1.2, 0.5, 2.0, 0.1, -0.7, 0.4, 0.9, -1.5).finished();
  const Vec3 b(0.2, -0.4, 1.1);
  const NodeField field = test::sample_field(g, [&](const Vec3& x) { return Vec3(A * x + b); });
  const Vec3i cell(1, 2, 3);
  for (int gp = 0; gp < GAUSS_POINTS; ++gp) {
    const Vec3 xi = gauss_point(gp);
    Real sum = 0;
    for (Real n : shape_values(xi)) sum += n;
    CHECK(sum == doctest::Approx(1).epsilon(1e-14));
    // d field / dx = local gradient / dx = A
    CHECK((local_gradient(g, field, cell, xi) / g.dx - A).norm() < 1e-12);
    const Vec3 x = g.origin + g.dx * (cell.cast<Real>() + xi);
    CHECK((interpolate(g, field, x) - (A * x + b)).norm() < 1e-12);
  }
  CHECK(corner_node(g, cell, 7) == node_index(g, Vec3i(2, 3, 4)));
  CHECK(node_coord(g, node_index(g, Vec3i(4, 0, 2))) == Vec3i(4, 0, 2));
  // Gauss points at 1/2 -+ 1/(2 sqrt 3)
  CHECK(gauss_point(0).x() == doctest::Approx(0.5 - 0.5 / std::sqrt(3.0)));
  CHECK(gauss_point(7).z() == doctest::Approx(0.5 + 0.5 / std::sqrt(3.0)));
}
