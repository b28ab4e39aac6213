// The substep driver (lib/sim/advance.hpp): the CFL rule, the per-frame budget
// and advance_to's bookkeeping.
#include <doctest/doctest.h>

#include <cmath>

#include "lib/sim/advance.hpp"
#include "lib/sim/run.hpp"
#include "tests/sim/cutcell/coupled_support.hpp"

using namespace fsicut;

namespace {

// A solid-only scene (no liquid): a free block under `gravity` [m/s^2] (y),
// dx = 0.05 m, 30 fps, at most `budget` substeps per frame.
sim::CutCellSimulator falling_block(Real gravity, int budget) {
  return test::coupled_state(R"({
    "grid": { "resolution": [20, 200, 20], "cell_size": 0.05 },
    "time": { "fps": 30, "max_substeps": )" + std::to_string(budget) + R"( },
    "gravity": [0, )" + std::to_string(-gravity) + R"(, 0],
    "solids": [ { "name": "block", "mesh": { "type": "box", "min": [0.4, 9.0, 0.4], "max": [0.6, 9.2, 0.6], "cells": [1, 1, 1] } } ] })");
}

void set_speed(sim::CutCellSimulator& s, Real speed) {
  s.solids[0].v.setZero();
  s.solids[0].v.row(1).setConstant(-speed);
}

}  // namespace

TEST_CASE("advance: the CFL limit is cfl dx / (max speed + sqrt(dx |g|))") {
  sim::CutCellSimulator s = falling_block(9.81, 50);
  set_speed(s, 2.0);
  CHECK(sim::cfl_limit(s) == doctest::Approx(0.05 / (2.0 + std::sqrt(sim::GRAVITY_CFL_FACTOR * 0.05 * 9.81))));
  s.scene.time.cfl = 3;
  CHECK(sim::cfl_limit(s) == doctest::Approx(3 * 0.05 / (2.0 + std::sqrt(sim::GRAVITY_CFL_FACTOR * 0.05 * 9.81))));
  s.scene.gravity.setZero();
  set_speed(s, 0);
  CHECK(std::isinf(sim::cfl_limit(s)));
}

TEST_CASE("advance: choose_substep never needs more substeps than the budget, even when the speed grows") {
  sim::CutCellSimulator s = falling_block(0, 50);
  const Real frame = 1.0 / 30;
  // The speed after each substep of the frame grows (the block accelerates):
  // whatever the speeds, a frame with budget n is covered in at most n substeps.
  for (int budget = 1; budget <= 5; ++budget)
    for (Real growth : {1.0, 1.5, 2.0, 4.0}) {
      Real speed = 0.2, remaining = frame;
      int taken = 0;
      while (remaining > 1e-15 * frame) {
        set_speed(s, speed);
        const sim::Substep sub = sim::choose_substep(s, remaining, budget - taken);
        CHECK(sub.dt > 0);
        CHECK(sub.dt <= remaining);
        CHECK(sub.cfl_exceeded == (sub.dt > sim::cfl_limit(s) * (1 + 1e-12)));
        remaining = sub.dt >= remaining ? 0 : remaining - sub.dt;  // as advance_to lands on the end
        ++taken;
        speed *= growth;
        REQUIRE(taken <= budget);
      }
    }
  // The last substep of the budget takes all that remains, past the CFL limit.
  set_speed(s, 10);  // limit 0.005 s
  const sim::Substep last = sim::choose_substep(s, frame, 1);
  CHECK(last.dt == frame);
  CHECK(last.cfl_exceeded);
  // Within the limit: the remainder in one substep, or in two halves rather than a sliver.
  set_speed(s, 0.5);  // limit 0.1 s
  CHECK(sim::choose_substep(s, frame, 2).dt == frame);
  set_speed(s, 2.0);  // limit 0.025 s: 0.025 + 0.0083 would leave a sliver
  CHECK(sim::choose_substep(s, frame, 5).dt == doctest::Approx(frame / 2));
}

TEST_CASE("advance: a frame of an accelerating solid stays within max_substeps and counts the excess") {
  // Falling at 3 g from rest, 20 frames: the CFL limit soon wants more than 2 substeps per frame.
  sim::CutCellSimulator s = falling_block(29.43, 2);
  int exceeded = 0;
  for (int frame = 1; frame <= 20; ++frame) {
    sim::FrameStats tally;
    StageTimes times;
    REQUIRE(sim::advance_frame(s, tally, times));
    CHECK(s.frame == frame);
    CHECK(tally.substeps <= 2);
    CHECK(tally.substeps >= 1);
    CHECK(s.time == sim::frame_end(s, frame));  // lands on the frame end exactly
    exceeded += tally.cfl_exceeded;
  }
  MESSAGE("substeps past the CFL limit over 20 frames: " << exceeded);
  CHECK(exceeded > 0);
  // The same fall with a generous budget takes more substeps than 2 per frame.
  sim::CutCellSimulator free_fall = falling_block(29.43, 50);
  CHECK(sim::advance_frames_to(free_fall, 20 / 30.0) > 40);
  // The velocity after 20 frames is that of a free fall either way (gravity is
  // explicit and linear in dt): -g t.
  CHECK(s.solids[0].v(1, 0) == doctest::Approx(-29.43 * 20 / 30.0).epsilon(1e-9));
  CHECK(free_fall.solids[0].v(1, 0) == doctest::Approx(-29.43 * 20 / 30.0).epsilon(1e-9));
}

TEST_CASE("advance: a tally carried over counts against the frame's budget (mid-frame resume)") {
  sim::CutCellSimulator s = falling_block(29.43, 3);
  sim::advance_frames_to(s, 10 / 30.0);  // fast enough that each frame wants all 3
  sim::FrameStats tally;
  tally.substeps = 2;  // as if a checkpoint had been written after 2 substeps of this frame
  StageTimes times;
  REQUIRE(sim::advance_frame(s, tally, times));
  CHECK(s.frame == 11);
  CHECK(tally.substeps == 3);
}

TEST_CASE("advance: frame k ends at k / fps computed from k - a stretch that ends inside a frame leaves it open") {
  sim::CutCellSimulator s = falling_block(9.81, 50);
  CHECK(sim::frame_end(s, 0) == 0);
  CHECK(sim::frame_end(s, 7) == 7 * (1 / 30.0));
  CHECK(sim::frame_end(s, 3000) == 3000 * (1 / 30.0));
  // 2.5 frames: two whole frames, then half of the third.
  const int first = sim::advance_frames_to(s, 2.5 / 30.0);
  CHECK(first > 0);
  CHECK(s.frame == 2);
  CHECK(s.time == 2.5 / 30.0);
  // The next call finishes frame 3 on its end exactly, then frame 4.
  sim::advance_frames_to(s, sim::frame_end(s, 4));
  CHECK(s.frame == 4);
  CHECK(s.time == sim::frame_end(s, 4));
}

TEST_CASE("advance: a stop hook ends the advance after the substep that asks, the frame left unfinished") {
  sim::CutCellSimulator s = falling_block(29.43, 50);
  int taken = 0;
  sim::AdvanceHooks hooks;
  hooks.after_substep = [&](const sim::Simulator&, const sim::StepReport&) { ++taken; };
  hooks.stop = [&](const sim::Simulator&) { return taken >= 3; };
  sim::FrameStats tally;
  StageTimes times;
  // A frame of a fast fall needs more than 3 substeps (see above), so the hook ends it.
  set_speed(s, 10);
  CHECK_FALSE(sim::advance_frame(s, tally, times, hooks));
  CHECK(taken == 3);
  CHECK(tally.substeps == 3);
  CHECK(s.frame == 0);
  CHECK(s.time > 0);
  CHECK(s.time < sim::frame_end(s, 1));
  // advance_frames_to stops with it too and reports the substeps it took.
  taken = 0;
  CHECK(sim::advance_frames_to(s, 1.0, hooks) == 3);
  CHECK(s.time < 1.0);
}
