// One substep of Algorithm 1 (sim/step.hpp): what it does with a solve that
// cannot be trusted.
#include <doctest/doctest.h>

#include <limits>
#include <string>

#include "lib/core/error.hpp"
#include "tests/sim/coupled_support.hpp"

namespace fsicut {

TEST_CASE("step: a solve whose residual is not finite is an error even with allow_unconverged - not a warning with nan") {
  // A NaN in one face velocity inside the liquid reaches the projection's
  // right side: its PCG residual is NaN. allow_unconverged lets a solve that
  // stops early through; this used to be let through as well, with the
  // warning "relative residual -nan", and the run exited 0.
  const std::string solid =
      R"("solids": [ { "name": "b", "mesh": { "type": "box", "min": [0.25, 0.6, 0.25], "max": [0.75, 0.8, 0.75] } } ],)";
  for (const std::string& keys : {solid + R"( "coupling": { "allow_unconverged": true, "scheme": "partitioned" } })",
                                  std::string(R"( "coupling": { "allow_unconverged": true } })")}) {
    CAPTURE(keys);
    sim::SimState state = test::coupled_state(R"({ "grid": { "resolution": [8, 8, 8], "cell_size": 0.125 },
      "fluid": { "regions": [ { "type": "box", "min": [0, 0, 0], "max": [1, 0.5, 1] } ] },)" + keys);
    state.liquid->velocity[1](4, 2, 4) = std::numeric_limits<Real>::quiet_NaN();
    StageTimes times;
    std::string message;
    try {
      sim::step(state, 0.01, times);
    } catch (const SimulationError& e) {
      message = e.what();
    }
    MESSAGE(message);
    CHECK(message.find("not finite") != std::string::npos);
    CHECK(message.find("nan") == std::string::npos);
  }
}

}  // namespace fsicut
