// Scene data to runtime settings (sim/from_scene.hpp): the velocity bound the
// partitioned iteration holds its residual to.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "lib/scene/load.hpp"
#include "lib/sim/from_scene.hpp"

namespace fsicut {

TEST_CASE("velocity_bound: ten times the speed the scene's initial velocities - gravity over the domain and compression explain") {
  // A 2 x 1 x 2 m grid (diagonal 3 m), g = 10 m/s^2, a liquid region at
  // (3, 4, 0) m/s and a solid compressed to 0.9 of its size: bulk modulus
  // K = 1.2e6 / (3 (1 - 2 0.25)) = 8e5 Pa, density 800, e = 0.1, so
  // v_e = 3 e sqrt(K / rho) = 0.3 sqrt(1000).
  const scene::Scene s = scene::parse_scene(R"({ "grid": { "resolution": [20, 10, 20], "cell_size": 0.1 },
    "time": { "fps": 25 }, "gravity": [0, -10, 0],
    "fluid": { "regions": [ { "type": "box", "min": [0, 0, 0], "max": [1, 0.5, 1], "velocity": [3, 4, 0] } ] },
    "solids": [ { "name": "b", "mesh": { "type": "box", "min": [1.2, 0.2, 1.2], "max": [1.6, 0.6, 1.6] },
                  "density": 800, "youngs_modulus": 1.2e6, "poisson_ratio": 0.25, "initial_scale": 0.9 } ] })",
                                            "t.json", ".");
  const Real v0 = 5, fall = 2 * 10 * 3, elastic = 0.09 * 1000, cell_per_frame = 0.1 * 25;
  const Real expected = 10 * std::sqrt(v0 * v0 + fall + elastic + cell_per_frame * cell_per_frame);
  CHECK(sim::velocity_bound(s) == doctest::Approx(expected).epsilon(1e-12));
  const coupling::PartitionedSettings p = sim::partitioned_settings(s, 0.01);
  CHECK(p.velocity_bound == doctest::Approx(expected).epsilon(1e-12));
  CHECK(p.tolerance == doctest::Approx(0.05 * 0.1 / 0.01));  // the default 0.05 cells per substep

  // Nothing moves and nothing falls: still a cell per frame, never 0.
  const scene::Scene still = scene::parse_scene(
      R"({ "grid": { "resolution": [4, 4, 4], "cell_size": 0.25 }, "gravity": [0, 0, 0] })", "t.json", ".");
  CHECK(sim::velocity_bound(still) == doctest::Approx(10 * 0.25 * 30));

  // Smoke: an inflow of 4 m/s is an initial velocity, and buoyancy 2 m/s^2
  // per unit density on sources of density 3 adds 6 m/s^2 to |g| = 10.
  const scene::Scene smoke = scene::parse_scene(R"({ "grid": { "resolution": [20, 10, 20], "cell_size": 0.1 },
    "time": { "fps": 25 }, "gravity": [0, -10, 0],
    "fluid": { "kind": "smoke", "smoke": { "buoyancy": 2, "sources": [
      { "min": [0, 0, 0], "max": [0.5, 0.2, 0.5], "density": 3, "velocity": [0, 4, 0] } ] } },
    "coupling": { "scheme": "eulerian" } })",
                                                "t.json", ".");
  CHECK(sim::velocity_bound(smoke) == doctest::Approx(10 * std::sqrt(16 + 2 * 16 * 3 + 2.5 * 2.5)).epsilon(1e-12));
}

}  // namespace fsicut
