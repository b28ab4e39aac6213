#pragma once
// The substep driver: the one loop that advances a simulation in CFL substeps.
// fsicut's frame loop (run.hpp), the benchmarks and the tests all step through
// advance_to, so what they measure is what users run.
//
// The CFL rule (one, for liquids, solids and both):
//   dt_cfl = time.cfl * dx / (max_speed + sqrt(GRAVITY_CFL_FACTOR * dx * |g|)),
//   GRAVITY_CFL_FACTOR = 1
// max_speed: the fastest liquid face or free solid node [m/s] (Simulator::max_speed);
// time.cfl is the simulator's CFL number (Simulator::cfl_number).
// The gravity term bounds the speed gravity adds within one step (Bridson 2015,
// sec. 3.2): at rest max_speed is ~0 and the step would be the whole frame.
// With time.cfl = 1 nothing moves more than about one cell per substep. The
// paper substeps "to minimize the likelihood of tunneling" and reports about
// 4.42 substeps per frame on average (Sec. 8) without its rule; ours takes
// more (at 100^3 a dam-break front at 3 m/s alone needs 10 per 30 fps frame).
// scripts/paper-tables --cfl sets time.cfl for Table 1 to compare at a coarser
// rate.
//
// Why the default time.cfl stays 1, measured with time.cfl = 1 / 2 / 3 / 5 set
// for every run through this driver (validations, 2026-11-26):
//   Martin & Moyce dam break, worst volume drift (bound 5 %): 3.03 / 3.51 / 4.49 / 13.1 %
//   gate dam break (scenes/gate_dam_break.json), volume drift (bound 5 %): 2.31 / 3.52 / 4.19 / 4.96 %
//   compressibility cube, volume error (bound 2 %): 1.11 / 1.20 / 1.12 / 1.30 %
//   stability study: at 2 and 3 weak coupling strains past the bound at substep
//   9, before its spectral radius first exceeds 1 (substep 11): the paper's
//   finding that the check asserts no longer holds from time.cfl = 2 on
//   within bounds at every value: Martin & Moyce's front, no particle past the
//   gate, Archimedes, the ramp; hydrostatic rest, sloshing and the neutral cube
//   take the same steps at every value (their frames are shorter than the step).
// The particles' volume drift over a larger step limits it first, then the weak
// scheme's stability study. Table 1 scenes at half resolution (50^3, Thin Solid
// 2 32^3), frames 1-6: 4.38 / 2.50 / 1.81 / 1.33 substeps per frame on average
// (Fluid in Sphere 10.5 / 5.8 / 3.8 / 2.5).
//
// time/particle_cfl (sim/cutcell/particle_steps.hpp) moves the particles in
// RK2 steps of at most that many cells within a substep, so that time.cfl can
// rise while no particle moves further than that in one step; the projection
// then runs about time.cfl times less often. Re-measured on 2026-12-02 with
// the density correction, time.cfl = 3 and particle steps of one cell set for
// every run through this driver (docs/performance.md, "Fewer projections"):
// the thin walls' volumes keep the default at 1. The gate dam break reads
// -0.78 % (bound 0.5 %; -0.48 % at time.cfl 1, -0.75 % at 2), the swinging
// wall half a cell thick -0.60 % (quadratic -0.63 %; +0.32 % and -0.50 % at
// 1); the particle steps do not cause it (one step per substep at 3: -0.64 %,
// -0.60 %, -0.58 %). Within bounds at 3: Martin & Moyce (drift 1.25 %, lead
// +12.5 %), the shipped dam break's volume (-0.37 %), the quadratic gate
// (-0.42 %), Archimedes, the plate, the obstacle and still walls, the ramp,
// the compressibility cube, and the stability study (weak fails, its spectral
// radius first above 1 at substep 5, its strain past the bound at 9; spd holds).
#include <functional>

#include "lib/core/timer.hpp"
#include "lib/sim/simulator.hpp"
#include "lib/sim/stats.hpp"

namespace fsicut::sim {

// The gravity term's factor. sqrt(dx |g|) is the speed a liquid starting at
// rest reaches falling half a cell; at cfl = 1 it then falls half a cell in
// the first substep. Bridson suggests sqrt(5 dx |g|) (with cfl up to 5).
// Measured with this driver, factor 1 against 5: hydrostatic rest max |u|
// 0.0183 % vs 0.0186 % of sqrt(g R) (30 vs 60 substeps), Martin & Moyce
// largest lead +14.6 % vs +14.9 % (544 vs 600), ramp -0.68 % vs -0.56 %,
// sloshing period +3.88 % either way; all within their bounds. The coupled
// compressibility test's cube sinks 9.5 mm with 1 but 2.5 mm with 5 before it
// rises (shorter first substeps while it expands), below that test's 4 mm
// bound: the test runs with factor 1, fsicut's rule.
inline constexpr Real GRAVITY_CFL_FACTOR = 1;

// The CFL substep length [s] of the state as it is (see the header); +infinity
// when nothing moves and there is no gravity.
Real cfl_limit(const Simulator& sim);

// The next substep's length [s] with `remaining` [s] left until the target time
// and at most `substeps_left` (>= 1 is assumed; less counts as 1) substeps to
// cover it. The CFL limit, except: the last substep of the budget takes all
// that remains; when the limit would leave a sliver, two halves; when the
// limit is shorter than remaining / substeps_left, that (so the budget is never
// exceeded). cfl_exceeded: dt is longer than the CFL limit.
struct Substep {
  Real dt = 0;
  bool cfl_exceeded = false;
};
Substep choose_substep(const Simulator& sim, Real remaining, int substeps_left);

struct AdvanceHooks {
  // Sees each substep's coupled system before it is solved (sim/cutcell/couple.hpp).
  SystemObserver observe;
  // Called before every substep, with the state at its start and the tally
  // so far (the frame loop keeps a checkpoint of it to roll back to).
  std::function<void(const Simulator&, const FrameStats&)> before_substep;
  // Called after every substep, with the state at its end. It may throw an
  // error (an interrupted run); the state is consistent after every substep.
  std::function<void(const Simulator&, const StepReport&)> after_substep;
  // Asked after every substep (after after_substep): true ends the advance
  // there, before its target time (benchmarks that time a number of substeps).
  std::function<bool(const Simulator&)> stop;
};

// Advances `sim` to t_end [s] (> sim.time) in substeps chosen by
// choose_substep. `tally` accumulates substeps, cfl_exceeded, solves and the
// worst solve (linsolve::worst); its substeps count against the budget, so at
// most sim.scene.time.max_substeps - tally.substeps (at least one) substeps
// are taken: pass a fresh FrameStats per frame, or the partial one of a frame
// being resumed. `times` accumulates each Algorithm 1 stage's wall time.
// sim.time ends exactly at t_end. Returns false when hooks.stop ended the
// advance first. Throws what Simulator::step throws.
bool advance_to(Simulator& sim, Real t_end, FrameStats& tally, StageTimes& times, const AdvanceHooks& hooks = {});

// The same without statistics: advances to t_end in substeps whose budget is
// time.max_substeps per call. Returns the substeps taken.
int advance_to(Simulator& sim, Real t_end, const AdvanceHooks& hooks = {});

// The frame-end rule, the one `fsicut`, the benchmarks and the tests share:
// frame k (k >= 1; frame 0 is the initial state) ends at k / time.fps [s],
// computed from k so that round-off does not accumulate over long runs.
Real frame_end(const Simulator& sim, int frame);

// Advances frame sim.frame + 1 to its end within its own substep budget
// (`tally`: a fresh FrameStats, or the partial one of a frame being resumed)
// and then sets sim.frame to it. Returns false, the frame unfinished, when
// hooks.stop ended it first.
bool advance_frame(Simulator& sim, FrameStats& tally, StageTimes& times, const AdvanceHooks& hooks = {});

// Advances frame by frame as advance_frame does until t_end [s]; a t_end
// inside a frame stops there (the next call finishes that frame). Returns the
// substeps taken. What tests use to run "for 2 seconds".
int advance_frames_to(Simulator& sim, Real t_end, const AdvanceHooks& hooks = {});

}  // namespace fsicut::sim
