#pragma once
// Shared helpers of the coupled-projection tests: scenes from JSON text and a
// driver that runs them through sim::advance_frames_to, as `fsicut` does.
#include <algorithm>
#include <string>

#include "lib/scene/load.hpp"
#include "lib/sim/advance.hpp"
#include "lib/sim/step.hpp"
#include "lib/solid/body.hpp"

namespace fsicut::test {

inline sim::SimState coupled_state(const std::string& json) {
  return sim::build_state(scene::parse_scene(json, "test.json", "."));
}

// Runs `duration` [s] from state.time through sim::advance_frames_to (the
// driver `fsicut` runs, frame by frame with its substep budget), calling
// observe(state) after each substep. Returns the substeps taken.
template <class Observe>
int advance(sim::SimState& state, Real duration, Observe&& observe) {
  sim::AdvanceHooks hooks;
  hooks.after_substep = [&](const sim::SimState& s, const sim::StepReport&) { observe(s); };
  return sim::advance_frames_to(state, state.time + duration, hooks);
}

inline int advance(sim::SimState& state, Real duration) {
  return advance(state, duration, [](const sim::SimState&) {});
}

}  // namespace fsicut::test
