#pragma once
// Shared helpers of the coupled-projection tests: scenes from JSON text and a
// driver that runs sim::step with the frame loop's substep rule.
#include <algorithm>
#include <string>

#include "lib/scene/load.hpp"
#include "lib/sim/run.hpp"
#include "lib/sim/step.hpp"
#include "lib/solid/body.hpp"

namespace fsicut::test {

inline sim::SimState coupled_state(const std::string& json) {
  return sim::build_state(scene::parse_scene(json, "test.json", "."));
}

// Runs substeps until `duration` [s] has passed, calling observe(state) after each.
template <class Observe>
int advance(sim::SimState& state, Real duration, Observe&& observe) {
  StageTimes times;
  const Real frame = 1 / state.scene.time.fps;
  const Real end = state.time + duration;
  int steps = 0;
  while (state.time < end - 1e-12) {
    const Real frame_end = std::min(end, (std::floor(state.time / frame + 1e-9) + 1) * frame);
    const sim::Substep s = sim::choose_substep(state, frame_end - state.time, state.scene.time.max_substeps);
    sim::step(state, std::min(s.dt, frame_end - state.time), times);
    ++steps;
    observe(state);
  }
  return steps;
}

inline int advance(sim::SimState& state, Real duration) {
  return advance(state, duration, [](const sim::SimState&) {});
}

}  // namespace fsicut::test
