#include "lib/sim/advance.hpp"

#include <algorithm>
#include <cmath>
#include <limits>


namespace fsicut::sim {
namespace {

// The target time is reached when less than this fraction of a frame remains:
// the substeps' dt sum to the stretch only up to round-off.
constexpr Real TIME_SLACK = 1e-12;

Real slack(const Simulator& sim) { return TIME_SLACK / sim.scene.time.fps; }

}  // namespace

Real cfl_limit(const Simulator& sim) {
  const scene::Scene& s = sim.scene;
  const Real speed = sim.max_speed() + std::sqrt(GRAVITY_CFL_FACTOR * s.grid.cell_size * s.gravity.norm());
  const Real cfl = sim.cfl_number();
  return speed > 0 ? cfl * s.grid.cell_size / speed : std::numeric_limits<Real>::infinity();
}

Substep choose_substep(const Simulator& sim, Real remaining, int substeps_left) {
  const Real limit = cfl_limit(sim);
  if (limit >= remaining) return {remaining, false};
  if (substeps_left <= 1) return {remaining, true};
  // Two steps of half the remainder rather than a full one and a sliver.
  if (2 * limit >= remaining) return {remaining / 2, false};
  const Real floor_dt = remaining / substeps_left;
  if (limit < floor_dt) return {floor_dt, true};
  return {limit, false};
}

bool advance_to(Simulator& sim, Real t_end, FrameStats& tally, StageTimes& times, const AdvanceHooks& hooks) {
  while (t_end - sim.time > slack(sim)) {
    const Real remaining = t_end - sim.time;
    const Substep sub = choose_substep(sim, remaining, sim.scene.time.max_substeps - tally.substeps);
    if (hooks.before_substep) hooks.before_substep(sim, tally);
    const StepReport r = sim.step(sub.dt, times, hooks.observe);
    // The last substep lands on t_end exactly, not on a sum of dt.
    if (sub.dt >= remaining) sim.time = t_end;
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
    tally.particle_substeps += r.particle_steps;
    tally.loads.add(r.loads, sub.dt);
    tally.probe_rows += sim.probes_row();
    if (hooks.after_substep) hooks.after_substep(sim, r);
    if (hooks.stop && hooks.stop(sim)) return false;
  }
  return true;
}

int advance_to(Simulator& sim, Real t_end, const AdvanceHooks& hooks) {
  FrameStats tally;
  StageTimes times;
  advance_to(sim, t_end, tally, times, hooks);
  return tally.substeps;
}

Real frame_end(const Simulator& sim, int frame) { return frame * (1 / sim.scene.time.fps); }

bool advance_frame(Simulator& sim, FrameStats& tally, StageTimes& times, const AdvanceHooks& hooks) {
  const int frame = sim.frame + 1;
  if (!advance_to(sim, frame_end(sim, frame), tally, times, hooks)) return false;
  sim.frame = frame;
  return true;
}

int advance_frames_to(Simulator& sim, Real t_end, const AdvanceHooks& hooks) {
  int substeps = 0;
  while (t_end - sim.time > slack(sim)) {
    FrameStats tally;
    StageTimes times;
    const Real end = frame_end(sim, sim.frame + 1);
    const bool reached = end - t_end <= slack(sim) ? advance_frame(sim, tally, times, hooks)
                                                     : advance_to(sim, t_end, tally, times, hooks);
    substeps += tally.substeps;
    if (!reached) break;
  }
  return substeps;
}

}  // namespace fsicut::sim
