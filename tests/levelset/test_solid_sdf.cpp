#include <doctest/doctest.h>

#include <cmath>

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

TEST_CASE("solid SDF: a box flush with the domain's walls reads as the same box continued through them") {
  // A wall x = 0.17 .. 0.245 m spanning the domain in y and z; dx = 0.025 m.
  grid::MacGrid g{Vec3i(16, 8, 4), Vec3(0, 0, 0), 0.025};
  grid::Array3<Real> flush = sample_solid_at_nodes(g, box_solid(Vec3(0.17, 0, 0), Vec3(0.245, 0.2, 0.1)));
  const grid::Array3<Real> through = sample_solid_at_nodes(g, box_solid(Vec3(0.17, -1, -1), Vec3(0.245, 1, 1)));
  // In the walls the flush box's own faces are 0 away from every node under it:
  // its surface there reads half a cell off (0.175 instead of 0.17).
  CHECK(flush(7, 0, 2) == doctest::Approx(0).epsilon(1e-12));
  CHECK(through(7, 0, 2) == doctest::Approx(-0.005));
  extend_through_domain_walls(flush);
  // Every node within a cell of the wall's real faces (the ones the liquid
  // meets) now reads the continued box; deeper inside only the sign matters.
  for (Index n = 0; n < flush.count(); ++n) {
    CHECK((flush[n] < 0) == (through[n] < 0));
    if (std::abs(through[n]) <= g.dx) CHECK(flush[n] == doctest::Approx(through[n]));
  }
}

TEST_CASE("solid SDF: a cell's open fraction is the share of it outside a flat wall") {
  // A 1 x 1 x 1 grid of unit cells: phi at its 8 corners.
  grid::MacGrid grid;
  grid.resolution = {1, 1, 1};
  grid.dx = 1;
  const auto fraction_beside = [&](const StaticSolid& solid) {
    return cell_open_fraction(sample_solid_at_nodes(grid, solid), 0, 0, 0);
  };
  // No corner in a solid: the whole cell; every corner in one: none.
  CHECK(fraction_beside(plane_solid(Vec3(0, 0, -1), Vec3(0, 0, 1))) == 1);
  CHECK(fraction_beside(plane_solid(Vec3(0, 0, 2), Vec3(0, 0, 1))) == 0);
  // A wall's face a third of the way in along any axis: 2/3 exactly.
  for (int a = 0; a < 3; ++a) {
    const Vec3 e = Vec3::Unit(a);
    CHECK(fraction_beside(plane_solid(e / 3, e)) == doctest::Approx(2.0 / 3).epsilon(1e-12));
  }
  // Tilted: the solid below the plane x + y = 0.8, which leaves the triangle
  // x + y < 0.8 of each z-slice, area 0.32, in the solid: 0.68 open, within
  // half a line's spacing.
  const Vec3 n = Vec3(1, 1, 0).normalized();
  CHECK(std::abs(fraction_beside(plane_solid(Vec3(0.4, 0.4, 0), n)) - 0.68) <= 0.5 / OPEN_FRACTION_POINTS);
}
