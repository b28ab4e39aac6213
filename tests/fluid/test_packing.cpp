#include <doctest/doctest.h>

#include "lib/fluid/liquid.hpp"
#include "lib/fluid/packing.hpp"

using namespace fsicut;
using namespace fsicut::fluid;

TEST_CASE("packing: seeded water is as dense as seeded, squeezed water is denser") {
  grid::MacGrid g;
  g.resolution = {12, 12, 12};
  g.dx = 0.1;
  Liquid l = make_liquid(g, 1000, Vec3::Zero(), {});
  add_liquid(l, [](const Vec3& x) { return x.y() < 0.6; }, Vec3::Zero(), 8, 1);
  const Packing seeded = packing(l);
  CHECK(seeded.particle_volume == doctest::Approx(1.2 * 0.6 * 1.2).epsilon(1e-12));
  CHECK(seeded.deep_density == 1);
  CHECK(seeded.packed_cells == 0);
  // The water squeezed into the lower half of its depth (twice as dense).
  for (Index p = 0; p < l.particles.cols(); ++p) l.particles(1, p) *= 0.5;
  const Packing squeezed = packing(l);
  MESSAGE("squeezed: deep density " << squeezed.deep_density << ", packed cells " << squeezed.packed_cells);
  CHECK(squeezed.particle_volume == seeded.particle_volume);
  CHECK(squeezed.deep_density > 1.9);
  CHECK(squeezed.packed_cells > 0.9);
  Liquid empty = make_liquid(g, 1000, Vec3::Zero(), {});
  CHECK(packing(empty).particle_volume == 0);
  CHECK(packing(empty).deep_density == 0);
}
