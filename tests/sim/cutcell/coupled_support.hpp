#pragma once
// Shared helpers of the coupled-projection tests: scenes from JSON text and a
// driver that runs them through sim::advance_frames_to, as `fsicut` does.
#include <algorithm>
#include <string>

#include "lib/scene/load.hpp"
#include "lib/sim/advance.hpp"
#include "lib/sim/cutcell/simulator.hpp"
#include "lib/solid/body.hpp"

namespace fsicut::test {

inline sim::CutCellSimulator coupled_state(const std::string& json) {
  return sim::CutCellSimulator(scene::parse_scene(json, "test.json", "."));
}

// Runs `duration` [s] from state.time through sim::advance_frames_to (the
// driver `fsicut` runs, frame by frame with its substep budget), calling
// observe(state) after each substep. Returns the substeps taken.
template <class Observe>
int advance(sim::CutCellSimulator& state, Real duration, Observe&& observe) {
  sim::AdvanceHooks hooks;
  hooks.after_substep = [&](const sim::Simulator&, const sim::StepReport&) { observe(state); };
  return sim::advance_frames_to(state, state.time + duration, hooks);
}

inline int advance(sim::CutCellSimulator& state, Real duration) {
  return advance(state, duration, [](const sim::CutCellSimulator&) {});
}

}  // namespace fsicut::test
