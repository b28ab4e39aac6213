#include <doctest/doctest.h>

#include <algorithm>

#include "lib/eulerian/advection.hpp"
#include "tests/eulerian/fixtures.hpp"

using namespace fsicut;
using namespace fsicut::eulerian;

TEST_CASE("eulerian advection: extrapolation continues an affine field exactly, ring by ring") {
  const grid::MacGrid g = test::cube_grid(12, 0.1);
  const Mat3 A = (Mat3() << 0.1, -0.3, 0.2, 0.5, 0.0, -0.1, 0.2, 0.4, -0.2).finished();
  const Vec3 b(0.01, -0.02, 0.03), c(0.6, 0.6, 0.6);
  const NodeField exact = test::sample_field(g, [&](const Vec3& x) { return Vec3(A * x + b); });
  NodeField field = zero_field(g);
  std::vector<char> valid(static_cast<std::size_t>(node_count(g)), 0);
  for (Index n = 0; n < node_count(g); ++n)
    if ((test::node_position(g, n) - c).norm() < 0.25) {
      valid[n] = 1;
      field.segment<3>(3 * n) = exact.segment<3>(3 * n);
    }
  const Index before = std::count(valid.begin(), valid.end(), 1);
  extrapolate(g, field, valid, 3);
  const Index after = std::count(valid.begin(), valid.end(), 1);
  CHECK(after > before);
  Real worst = 0;
  for (Index n = 0; n < node_count(g); ++n)
    if (valid[n]) worst = std::max(worst, (field.segment<3>(3 * n) - exact.segment<3>(3 * n)).norm());
  CHECK(worst < 1e-12);
  // Three rings: nodes 3 spacings (Chebyshev) outside the ball are reached, 4 are not.
  for (Index n = 0; n < node_count(g); ++n) {
    const Real r = (test::node_position(g, n) - c).norm();
    if (r > 0.25 + 0.3 * std::sqrt(3.0) + 1e-9) CHECK_FALSE(valid[n]);
  }
}

TEST_CASE("eulerian advection: a linear field carried by a uniform velocity is shifted exactly") {
  const grid::MacGrid g = test::cube_grid(10, 0.1);
  const Vec3 velocity(0.3, -0.2, 0.1);
  const Real dt = 0.5;  // 1.5 cells along x
  const Mat3 A = (Mat3() << 1, 2, 0, 0, -1, 3, 2, 0, 1).finished();
  NodeField field = test::sample_field(g, [&](const Vec3& x) { return Vec3(A * x); });
  const NodeField v = test::sample_field(g, [&](const Vec3&) { return velocity; });
  std::vector<char> valid = test::all_valid(g);
  advect(g, field, v, dt, valid);
  for (Index n = 0; n < node_count(g); ++n) {
    const Vec3i c = node_coord(g, n);
    // Nodes whose departure point lies inside the grid.
    if (c.x() < 2 || c.y() > 7 || c.z() < 1) continue;
    const Vec3 x = test::node_position(g, n);
    CHECK((field.segment<3>(3 * n) - A * (x - dt * velocity)).norm() < 1e-12);
  }
}

TEST_CASE("eulerian advection: a node whose departure cell has an invalid corner becomes invalid") {
  const grid::MacGrid g = test::cube_grid(6, 1.0);
  NodeField field = zero_field(g);
  const NodeField v = test::sample_field(g, [](const Vec3&) { return Vec3(1, 0, 0); });
  std::vector<char> valid = test::all_valid(g);
  valid[node_index(g, Vec3i(2, 3, 3))] = 0;
  advect(g, field, v, 0.5, valid);
  // Node (3,3,3) departs from x = 2.5: its cell (2,.,.) has the invalid node as a corner.
  CHECK_FALSE(valid[node_index(g, Vec3i(3, 3, 3))]);
  CHECK(valid[node_index(g, Vec3i(5, 3, 3))]);
}
