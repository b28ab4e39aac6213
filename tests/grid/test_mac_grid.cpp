#include <doctest/doctest.h>

#include <random>

#include "lib/grid/mac_grid.hpp"

using namespace fsicut;
using namespace fsicut::grid;

TEST_CASE("MAC grid: sample positions follow the documented layout") {
  MacGrid g;
  g.resolution = {4, 5, 6};
  g.origin = {1, 2, 3};
  g.dx = 0.5;
  CHECK(g.face_shape(0) == Vec3i(5, 5, 6));
  CHECK(g.face_shape(1) == Vec3i(4, 6, 6));
  CHECK(g.node_shape() == Vec3i(5, 6, 7));
  CHECK((g.cell_center(0, 0, 0) - Vec3(1.25, 2.25, 3.25)).norm() == doctest::Approx(0));
  // x-face (i,j,k) lies between cells (i-1,j,k) and (i,j,k)
  const Vec3 f = g.face_center(0, 2, 1, 1);
  CHECK((f - 0.5 * (g.cell_center(1, 1, 1) + g.cell_center(2, 1, 1))).norm() == doctest::Approx(0));
  CHECK((g.face_center(2, 1, 1, 3) - 0.5 * (g.cell_center(1, 1, 2) + g.cell_center(1, 1, 3))).norm() ==
        doctest::Approx(0));
  CHECK(g.cell_of(Vec3(1.7, 2.0, 100)) == Vec3i(1, 0, 5));
  Array3<int> a(Vec3i(4, 5, 6));
  CHECK(a.index(1, 2, 3) == 1 + 4 * (2 + 5 * 3));
  CHECK(a.coord(a.index(3, 4, 5)) == Vec3i(3, 4, 5));
}

TEST_CASE("MAC grid: trilinear interpolation reproduces linear fields exactly") {
  MacGrid g;
  g.resolution = {6, 7, 5};
  g.origin = {-0.3, 0.1, 0.2};
  g.dx = 0.1;
  const Vec3 grad(1.5, -2.0, 0.7);
  auto field = [&](const Vec3& x) { return 0.3 + grad.dot(x); };
  MacVelocity u = make_velocity(g);
  for (int a = 0; a < 3; ++a)
    for (Index n = 0; n < u[a].count(); ++n) {
      const Vec3i c = u[a].coord(n);
      u[a][n] = (a + 1) * field(g.face_center(a, c.x(), c.y(), c.z()));
    }
  Array3<Real> nodes(g.node_shape());
  for (Index n = 0; n < nodes.count(); ++n) {
    const Vec3i c = nodes.coord(n);
    nodes[n] = field(g.node_position(c.x(), c.y(), c.z()));
  }
  for (const Vec3& x : {Vec3(0.0, 0.33, 0.41), Vec3(-0.11, 0.52, 0.27), Vec3(0.21, 0.71, 0.55)}) {
    const Vec3 v = interpolate_velocity(g, u, x);
    CHECK(v.x() == doctest::Approx(field(x)).epsilon(1e-12));
    CHECK(v.y() == doctest::Approx(2 * field(x)).epsilon(1e-12));
    CHECK(v.z() == doctest::Approx(3 * field(x)).epsilon(1e-12));
    CHECK(interpolate(g, nodes, Sampling::node, x) == doctest::Approx(field(x)).epsilon(1e-12));
  }
}

TEST_CASE("MAC grid: interpolate_where renormalizes over the usable samples") {
  MacGrid g;
  g.resolution = {4, 4, 4};
  g.dx = 0.25;
  Array3<Real> f(g.node_shape());
  for (Index n = 0; n < f.count(); ++n) f[n] = 1.0 + 0.37 * n - 0.01 * n * n;  // no structure
  const Vec3 x(0.3, 0.55, 0.61);  // between nodes 1 and 2 along x and y, 2 and 3 along z
  const auto all = [](const Vec3i&) { return true; };
  CHECK(interpolate_where(g, f, Sampling::node, x, all) ==
        doctest::Approx(interpolate(g, f, Sampling::node, x)).epsilon(1e-14));
  // Only the samples at x-index 1: the bilinear value of that layer.
  const auto low_x = [](const Vec3i& s) { return s.x() == 1; };
  const Real layer = interpolate(g, f, Sampling::node, Vec3(0.25, 0.55, 0.61));
  CHECK(interpolate_where(g, f, Sampling::node, x, low_x) == doctest::Approx(layer).epsilon(1e-14));
  // Nothing usable: the plain value.
  const auto none = [](const Vec3i&) { return false; };
  CHECK(interpolate_where(g, f, Sampling::node, x, none) ==
        doctest::Approx(interpolate(g, f, Sampling::node, x)).epsilon(1e-14));
}

TEST_CASE("dilate: every cell within the Chebyshev radius of a set cell, and only those, becomes 1") {
  std::mt19937 rng(7);
  for (const Vec3i& size : {Vec3i(1, 1, 1), Vec3i(1, 7, 3), Vec3i(9, 1, 4), Vec3i(13, 11, 7), Vec3i(40, 3, 33)})
    for (int radius : {0, 1, 2, 3})
      for (const double density : {0.0, 0.01, 0.2}) {
        CAPTURE(size.transpose());
        CAPTURE(radius);
        CAPTURE(density);
        Array3<char> mask(size, 0);
        std::bernoulli_distribution set(density);
        std::uniform_int_distribution<int> value(1, 5);  // any nonzero value counts as set
        for (Index i = 0; i < mask.count(); ++i) mask[i] = set(rng) ? static_cast<char>(value(rng)) : 0;
        const Array3<char> before = mask;
        dilate(mask, radius);
        int wrong = 0;
        for (int k = 0; k < size.z(); ++k)
          for (int j = 0; j < size.y(); ++j)
            for (int i = 0; i < size.x(); ++i) {
              bool near = false;
              for (int c = std::max(0, k - radius); c <= std::min(size.z() - 1, k + radius) && !near; ++c)
                for (int b = std::max(0, j - radius); b <= std::min(size.y() - 1, j + radius) && !near; ++b)
                  for (int a = std::max(0, i - radius); a <= std::min(size.x() - 1, i + radius); ++a)
                    if (before(a, b, c)) near = true;
              wrong += mask(i, j, k) != static_cast<char>(near);
            }
        CHECK(wrong == 0);
      }
}
