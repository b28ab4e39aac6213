#include <doctest/doctest.h>

#include "lib/levelset/solid_sdf.hpp"

using namespace fsicut;
using namespace fsicut::levelset;

TEST_CASE("solid SDF: primitives are signed distances, negative inside the solid") {
  const auto box = box_solid(Vec3(0, 0, 0), Vec3(1, 2, 3));
  CHECK(box(Vec3(0.5, 1, 1.5)) == doctest::Approx(-0.5));
  CHECK(box(Vec3(2, 1, 1.5)) == doctest::Approx(1));
  CHECK(box(Vec3(2, 3, 1.5)) == doctest::Approx(std::sqrt(2.0)));
  const auto container = box_solid(Vec3(0, 0, 0), Vec3(1, 2, 3), /*inside_out=*/true);
  CHECK(container(Vec3(0.5, 1, 1.5)) == doctest::Approx(0.5));
  const auto ball = sphere_solid(Vec3(1, 1, 1), 0.5);
  CHECK(ball(Vec3(1, 1, 1)) == doctest::Approx(-0.5));
  CHECK(sphere_solid(Vec3(1, 1, 1), 0.5, true)(Vec3(1, 1, 2)) == doctest::Approx(-0.5));
  const auto ramp = plane_solid(Vec3(0, 1, 0), Vec3(0, 2, 0));
  CHECK(ramp(Vec3(5, 3, 7)) == doctest::Approx(2));
  const auto both = union_solid({ball, ramp, {}});
  CHECK(both(Vec3(1, 1.2, 1)) == doctest::Approx(-0.3));
  CHECK(solid_normal(ramp, Vec3(0.3, 0.2, 0.1), 1e-3).isApprox(Vec3(0, 1, 0)));
  CHECK(!union_solid({}));
}
