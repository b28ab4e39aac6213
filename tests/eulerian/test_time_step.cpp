#include <doctest/doctest.h>

#include "lib/eulerian/time_step.hpp"
#include "tests/eulerian/fixtures.hpp"

using namespace fsicut;
using namespace fsicut::eulerian;

namespace {

// Balls of radius 3 cells on 28 x 16 x 16 cells of 1/16 m, centred on y = z
// = 0.5 m, one at each x of `centres` [cells]; the second one moved by a
// rigid displacement `shift` [m] (the reference map carries it, as a step would).
World balls(const std::vector<Real>& centres, const Vec3& shift = Vec3::Zero()) {
  grid::MacGrid g = test::cube_grid(16, 1.0 / 16);
  g.resolution.x() = 28;
  World w = make_world(g);
  for (std::size_t l = 0; l < centres.size(); ++l) {
    const Vec3 c(centres[l] / 16, 0.5, 0.5);
    const Vec3 d = l == 1 ? shift : Vec3::Zero();
    w.solids.push_back(make_solid(g, test::ball(g, c, 3.0 / 16), lame_from_young(1e5, 0.3), 1000,
                                  [d](const Vec3& x) { return Vec3(x - d); }));
  }
  return w;
}

}  // namespace

TEST_CASE("eulerian time step: two balls count as near within 2 cells and apart beyond - the CFL number follows") {
  // Surfaces 1, 1.9, 2.5 and 4 cells apart (centres 6 + gap cells apart).
  CHECK(solids_within(balls({10, 17}), 2.0 / 16));
  CHECK(solids_within(balls({10, 17.9}), 2.0 / 16));
  CHECK_FALSE(solids_within(balls({10, 18.5}), 2.0 / 16));
  CHECK_FALSE(solids_within(balls({10, 20}), 2.0 / 16));
  // Overlapping balls are near.
  CHECK(solids_within(balls({10, 14}), 2.0 / 16));
  // The displacement field counts, not where the material was made: moved
  // 3 cells towards the other ball, a ball 4 cells apart is 1 cell apart.
  CHECK(solids_within(balls({10, 20}, Vec3(-3.0 / 16, 0, 0)), 2.0 / 16));
  CHECK(contact_cfl(balls({10, 17}), PAPER_NEAR_CFL, PAPER_FAR_CFL) == PAPER_NEAR_CFL);
  CHECK(contact_cfl(balls({10, 20}), PAPER_NEAR_CFL, PAPER_FAR_CFL) == PAPER_FAR_CFL);
  // One solid is always apart.
  CHECK(contact_cfl(balls({10}), PAPER_NEAR_CFL, PAPER_FAR_CFL) == PAPER_FAR_CFL);
}
