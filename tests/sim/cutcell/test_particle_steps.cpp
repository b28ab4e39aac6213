// The marker particles' steps within a substep (lib/sim/cutcell/particle_steps.hpp,
// scene key time/particle_cfl), through the driver `fsicut` runs
// (sim::advance_frame): how many steps a substep takes, that a key no substep
// reaches changes nothing, and the stats' particle_substeps.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "lib/fluid/liquid.hpp"
#include "lib/scene/load.hpp"
#include "lib/sim/advance.hpp"
#include "lib/sim/cutcell/particle_steps.hpp"
#include "lib/sim/cutcell/simulator.hpp"
#include "tests/support.hpp"

using namespace fsicut;

namespace {

sim::CutCellSimulator dam_break(const std::vector<scene::Override>& overrides) {
  return sim::CutCellSimulator(
      scene::load_scene((test::source_dir() / "scenes/dam_break.json").string(), overrides));
}

// Frames 1 to `frames` of `state`, each through its own tally as fsicut keeps
// them; returns the tallies.
std::vector<sim::FrameStats> run_frames(sim::CutCellSimulator& state, int frames,
                                        const sim::AdvanceHooks& hooks = {}) {
  std::vector<sim::FrameStats> tallies;
  for (int f = 0; f < frames; ++f) {
    sim::FrameStats tally;
    StageTimes times;
    REQUIRE(sim::advance_frame(state, tally, times, hooks));
    tallies.push_back(tally);
  }
  return tallies;
}

}  // namespace

TEST_CASE("particle steps: without time/particle_cfl one per substep - with one no substep reaches the state is the same bit for bit") {
  // scenes/dam_break.json, 4 frames (the column falls and spreads): at
  // time/cfl 1 no face moves a particle 100 cells in a substep.
  sim::CutCellSimulator plain = dam_break({});
  sim::CutCellSimulator keyed = dam_break({{"/time/particle_cfl", "100"}});
  CHECK(plain.scene.time.particle_cfl == 0);
  for (const sim::FrameStats& t : run_frames(plain, 4)) CHECK(t.particle_substeps == t.substeps);
  for (const sim::FrameStats& t : run_frames(keyed, 4)) CHECK(t.particle_substeps == t.substeps);
  REQUIRE(plain.liquid->particles.cols() == keyed.liquid->particles.cols());
  CHECK(plain.liquid->particles == keyed.liquid->particles);
  for (int a = 0; a < 3; ++a) CHECK(plain.liquid->velocity[a].data() == keyed.liquid->velocity[a].data());
  CHECK(plain.time == keyed.time);
}

TEST_CASE("particle steps: time/cfl 3 in steps of one cell - each substep takes ceil(v dt / dx) steps - the stats count them") {
  sim::CutCellSimulator state = dam_break({{"/time/cfl", "3"}, {"/time/particle_cfl", "1"}});
  const Real dx = state.scene.grid.cell_size;
  Real speed = 0, start = 0;
  int substeps = 0, split = 0, wrong = 0;
  sim::AdvanceHooks hooks;
  hooks.before_substep = [&](const sim::Simulator&, const sim::FrameStats&) {
    speed = fluid::max_speed(*state.liquid);
    start = state.time;
  };
  hooks.after_substep = [&](const sim::Simulator&, const sim::StepReport& r) {
    const Real dt = state.time - start;
    const int expected = std::max(1, static_cast<int>(std::ceil(speed * dt / dx)));
    ++substeps;
    split += r.particle_steps > 1 ? 1 : 0;
    if (r.particle_steps != expected) ++wrong;
  };
  int counted = 0, particle_steps = 0;
  for (const sim::FrameStats& t : run_frames(state, 12, hooks)) {
    counted += t.substeps;
    particle_steps += t.particle_substeps;
    CHECK(t.particle_substeps >= t.substeps);
    // No substep moves a particle more than time/cfl cells: at most 3 steps of one.
    CHECK(t.particle_substeps <= 3 * t.substeps);
  }
  MESSAGE(substeps << " substeps over 12 frames, " << split << " of them split, " << particle_steps
                   << " particle steps");
  CHECK(counted == substeps);
  CHECK(wrong == 0);
  CHECK(split > 0);  // the falling column reaches more than a cell per substep
}

TEST_CASE("particle steps: the count from the fastest face - 1 without the key or without motion") {
  sim::CutCellSimulator state = dam_break({{"/time/particle_cfl", "0.5"}});
  const Real dx = state.scene.grid.cell_size;
  CHECK(sim::particle_steps(state, 1.0) == 1);  // at rest
  state.liquid->velocity[1].data().assign(state.liquid->velocity[1].count(), -2.0);
  // 2 m/s over 0.03 s: 2.4 cells of 0.025 m, in steps of half a cell.
  CHECK(sim::particle_steps(state, 0.03) == static_cast<int>(std::ceil(2.0 * 0.03 / (0.5 * dx))));
  CHECK(sim::particle_steps(state, 0.03) == 5);
  state.scene.time.particle_cfl = 0;
  CHECK(sim::particle_steps(state, 0.03) == 1);
}
