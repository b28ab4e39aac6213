#include "lib/sim/advance.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "lib/sim/eulerian_run.hpp"
#include "lib/sim/probes.hpp"

namespace fsicut::sim {
namespace {

// The target time is reached when less than this fraction of a frame remains:
// the substeps' dt sum to the stretch only up to round-off.
constexpr Real TIME_SLACK = 1e-12;

Real slack(const SimState& state) { return TIME_SLACK / state.scene.time.fps; }

}  // namespace

Real cfl_limit(const SimState& state) {
  const scene::Scene& s = state.scene;
  const Real speed = max_speed(state) + std::sqrt(GRAVITY_CFL_FACTOR * s.grid.cell_size * s.gravity.norm());
  const Real cfl = state.eulerian ? eulerian_cfl(state) : s.time.cfl;
  return speed > 0 ? cfl * s.grid.cell_size / speed : std::numeric_limits<Real>::infinity();
}

Substep choose_substep(const SimState& state, Real remaining, int substeps_left) {
  const Real limit = cfl_limit(state);
  if (limit >= remaining) return {remaining, false};
  if (substeps_left <= 1) return {remaining, true};
  // Two steps of half the remainder rather than a full one and a sliver.
  if (2 * limit >= remaining) return {remaining / 2, false};
  const Real floor_dt = remaining / substeps_left;
  if (limit < floor_dt) return {floor_dt, true};
  return {limit, false};
}

bool advance_to(SimState& state, Real t_end, FrameStats& tally, StageTimes& times, const AdvanceHooks& hooks) {
  while (t_end - state.time > slack(state)) {
    const Real remaining = t_end - state.time;
    const Substep sub = choose_substep(state, remaining, state.scene.time.max_substeps - tally.substeps);
    if (hooks.before_substep) hooks.before_substep(state, tally);
    const StepReport r = step(state, sub.dt, times, hooks.observe);
    // The last substep lands on t_end exactly, not on a sum of dt.
    if (sub.dt >= remaining) state.time = t_end;
    if (r.solve_count > 0) {
      tally.solver = tally.solves == 0 ? r.worst_solve : linsolve::worst(tally.solver, r.worst_solve);
      tally.solves += r.solve_count;
    }
    if (r.partitioned) {
      if (!tally.partitioned) {
        tally.partitioned = r.partitioned;
      } else {
        coupling::PartitionedReport& t = *tally.partitioned;
        const double fluid = t.fluid_seconds + r.partitioned->fluid_seconds,
                     solid = t.solid_seconds + r.partitioned->solid_seconds,
                     interface = t.interface_seconds + r.partitioned->interface_seconds;
        if (r.partitioned->iterations > t.iterations) t = *r.partitioned;
        t.fluid_seconds = fluid;
        t.solid_seconds = solid;
        t.interface_seconds = interface;
      }
    }
    tally.cfl_exceeded += sub.cfl_exceeded ? 1 : 0;
    ++tally.substeps;
    tally.loads.add(r.loads, sub.dt);
    tally.probe_rows += probes_row(state);
    if (hooks.after_substep) hooks.after_substep(state, r);
    if (hooks.stop && hooks.stop(state)) return false;
  }
  return true;
}

int advance_to(SimState& state, Real t_end, const AdvanceHooks& hooks) {
  FrameStats tally;
  StageTimes times;
  advance_to(state, t_end, tally, times, hooks);
  return tally.substeps;
}

Real frame_end(const SimState& state, int frame) { return frame * (1 / state.scene.time.fps); }

bool advance_frame(SimState& state, FrameStats& tally, StageTimes& times, const AdvanceHooks& hooks) {
  const int frame = state.frame + 1;
  if (!advance_to(state, frame_end(state, frame), tally, times, hooks)) return false;
  state.frame = frame;
  return true;
}

int advance_frames_to(SimState& state, Real t_end, const AdvanceHooks& hooks) {
  int substeps = 0;
  while (t_end - state.time > slack(state)) {
    FrameStats tally;
    StageTimes times;
    const Real end = frame_end(state, state.frame + 1);
    const bool reached = end - t_end <= slack(state) ? advance_frame(state, tally, times, hooks)
                                                     : advance_to(state, t_end, tally, times, hooks);
    substeps += tally.substeps;
    if (!reached) break;
  }
  return substeps;
}

}  // namespace fsicut::sim
