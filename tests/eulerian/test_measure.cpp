// What output reads of an Eulerian solid (lib/eulerian/measure.hpp).
#include <doctest/doctest.h>

#include <cmath>

#include "lib/eulerian/measure.hpp"
#include "tests/eulerian/fixtures.hpp"

using namespace fsicut;
using namespace fsicut::eulerian;

TEST_CASE("eulerian measure: a ball at rest and moving - volume, mass, centre, kinetic energy") {
  const grid::MacGrid g = test::cube_grid(16, 1.0 / 16);
  EulerianSolid s = make_solid(g, test::ball(g, Vec3(0.5, 0.5, 0.5), 0.25), lame_from_young(1e5, 0.3), 1000,
                               [](const Vec3& x) { return x; });
  SolidMeasure m = measure_solid(s);
  const Real sphere = 4.0 / 3 * M_PI * std::pow(0.25, 3);
  // The fill fractions' plane approximation loses a little at 4 cells of radius (measured -3.1 %).
  CHECK(m.report.volume == doctest::Approx(sphere).epsilon(0.04).scale(0));
  CHECK(m.mass == doctest::Approx(1000 * m.report.volume).epsilon(1e-12));
  CHECK((m.centroid - Vec3(0.5, 0.5, 0.5)).norm() < 1e-12);
  CHECK(m.report.elastic_energy == 0);
  CHECK(m.report.max_strain < 1e-12);
  CHECK(m.report.drift == 0);
  CHECK(m.report.kinetic_energy == 0);
  CHECK(max_speed(make_world(g)) == 0);
  for (Index n = 0; n < node_count(g); ++n) s.v.segment<3>(3 * n) = Vec3(0, -2, 0);
  m = measure_solid(s);
  CHECK(m.mean_velocity.isApprox(Vec3(0, -2, 0), 1e-12));
  CHECK(m.report.kinetic_energy == doctest::Approx(0.5 * m.mass * 4).epsilon(1e-12));
  World w = make_world(g);
  w.solids.push_back(s);
  CHECK(max_speed(w) == doctest::Approx(2));
}

TEST_CASE("eulerian measure: advect_surface moves vertices by dt v_after at the predicted point") {
  const grid::MacGrid g = test::cube_grid(8, 0.125);
  // v_before uniform, v_after linear in x: the corrector reads v_after at x + dt v_before.
  const NodeField before = test::sample_field(g, [](const Vec3&) { return Vec3(0.5, 0, 0); });
  const NodeField after = test::sample_field(g, [](const Vec3& x) { return Vec3(0, x.x(), 0); });
  Points x(3, 2);
  x.col(0) = Vec3(0.3, 0.4, 0.5);
  x.col(1) = Vec3(0.6, 0.2, 0.7);
  const Real dt = 0.1;
  Points moved = x;
  advect_surface(g, before, after, dt, moved);
  for (int i = 0; i < 2; ++i) {
    const Vec3 expected = x.col(i) + dt * Vec3(0, x(0, i) + dt * 0.5, 0);
    CHECK((moved.col(i) - expected).norm() < 1e-14);
  }
}
