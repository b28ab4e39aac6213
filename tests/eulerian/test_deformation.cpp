#include <doctest/doctest.h>

#include <Eigen/LU>
#include <algorithm>

#include "lib/core/error.hpp"
#include "lib/eulerian/deformation.hpp"
#include "tests/eulerian/fixtures.hpp"

using namespace fsicut;
using namespace fsicut::eulerian;

TEST_CASE("eulerian deformation: a rigidly rotated and translated reference map gives F = R at every Gauss point") {
  const grid::MacGrid g = test::cube_grid(5, 0.1);
  const Vec3 c(0.25, 0.25, 0.25), shift(0.03, -0.02, 0.05);
  for (const Mat3& R : {test::rotation(0.7, Vec3(1, 2, 3)), test::rotation(3.14159, Vec3(0, 0, 1))}) {
    // x = R (x_bar - c) + c + shift  <=>  x_bar = R^T (x - c - shift) + c
    const NodeField u = test::sample_field(g, [&](const Vec3& x) { return Vec3(x - (R.transpose() * (x - c - shift) + c)); });
    Real worst = 0;
    for (int k = 0; k < 5; ++k)
      for (int j = 0; j < 5; ++j)
        for (int i = 0; i < 5; ++i)
          for (int gp = 0; gp < GAUSS_POINTS; ++gp)
            worst = std::max(worst, (deformation_gradient(g, u, Vec3i(i, j, k), gauss_point(gp)) - R).norm());
    CHECK(worst < 1e-12);
  }
}

TEST_CASE("eulerian deformation: Eq. 1 F = (I - du/dx)^-1 for an affine displacement") {
  const grid::MacGrid g = test::cube_grid(3, 0.5);
  const Mat3 B = (Mat3() << 0.1, 0.2, 0.0, -0.1, 0.3, 0.05, 0.0, 0.1, -0.2).finished();
  const NodeField u = test::sample_field(g, [&](const Vec3& x) { return Vec3(B * x + Vec3(0.1, 0, 0)); });
  const Mat3 expected = (Mat3::Identity() - B).inverse();
  CHECK((deformation_gradient(g, u, Vec3i(1, 1, 1), gauss_point(3)) - expected).norm() < 1e-12);
  // The general element form at zero motion is the same F.
  const Vec3 xi = gauss_point(5);
  const Mat3 F = world_jacobian(g, nullptr, Vec3i(2, 0, 1), xi) * material_jacobian(g, u, Vec3i(2, 0, 1), xi).inverse();
  CHECK((F - expected).norm() < 1e-12);
}

TEST_CASE("eulerian deformation: a singular reference map is an error, not a NaN") {
  const grid::MacGrid g = test::cube_grid(2, 1.0);
  // u = x e_x: dx_bar/dx has a zero row
  const NodeField u = test::sample_field(g, [](const Vec3& x) { return Vec3(x.x(), 0, 0); });
  CHECK_THROWS_AS(deformation_gradient(g, u, Vec3i(0, 0, 0), gauss_point(0)), SimulationError);
}
