#include "lib/sim/step.hpp"

#include <cmath>
#include <cstdio>

#include "lib/core/error.hpp"
#include "lib/core/log.hpp"
#include "lib/cutcell/split_cells.hpp"
#include "lib/fluid/density_correction.hpp"
#include "lib/eulerian/measure.hpp"
#include "lib/sim/couple.hpp"
#include "lib/sim/eulerian_run.hpp"
#include "lib/sim/particle_paths.hpp"
#include "lib/sim/solid_fields.hpp"
#include "lib/solid/integrate.hpp"
#include "lib/solid/reduced.hpp"

namespace fsicut::sim {
namespace {

linsolve::PcgSettings solid_solver_settings(const scene::Coupling& c) {
  linsolve::PcgSettings s;
  s.tolerance = c.tolerance;
  s.max_iterations = c.max_iterations;
  return s;
}

void record(StepReport& report, const linsolve::Report& solve, const scene::Scene& scene, const std::string& what) {
  report.worst_solve = report.solve_count == 0 ? solve : linsolve::worst(report.worst_solve, solve);
  ++report.solve_count;
  if (solve.converged) return;
  // A residual that is not a number comes from a system that already holds
  // NaN or infinity: nothing later can repair it, so no setting lets it pass.
  if (!std::isfinite(solve.relative_residual))
    throw SimulationError(what + ": the linear solve's residual is not finite after " +
                          std::to_string(solve.iterations) +
                          " iterations (the system holds NaN or infinity: the simulation has blown up)");
  // A solver that could not start (failure) has no iterations to raise.
  std::string message = what + ": ", advice = "; set /coupling/allow_unconverged to go on";
  if (!solve.failure.empty()) {
    message += solve.failure;
  } else {
    char numbers[160];
    std::snprintf(numbers, sizeof numbers, " iterations at relative residual %.3g (tolerance %.3g)",
                  solve.relative_residual, scene.coupling.tolerance);
    message += "linear solve stopped after " + std::to_string(solve.iterations) + numbers;
    advice = "; raise /coupling/max_iterations or set /coupling/allow_unconverged";
  }
  if (!scene.coupling.allow_unconverged) throw SimulationError(message + advice);
  log::warn(message);
}

// Stage 1 for the solids: x += dt v and the element rotations; a reduced
// body's frame and modes, q += dt qdot, and its nodes from them.
void update_solid_positions(SimState& state, Real dt) {
  for (std::size_t b = 0; b < state.solids.size(); ++b) {
    if (!is_reduced(state, b)) {
      solid::update_positions(state.solids[b], dt);
      continue;
    }
    solid::ReducedBody& r = *state.reduced[b];
    solid::advance_reduced_positions(r.basis, r.state, dt);
    solid::write_reduced_to_body(r.basis, r.state, state.solids[b]);
  }
}

// Stage 3 for the solids: gravity by forward Euler on the free nodes of full
// bodies (a reduced body takes it within its velocity step, stage 5).
void apply_solid_gravity(SimState& state, Real dt) {
  for (std::size_t k = 0; k < state.solids.size(); ++k)
    if (!is_reduced(state, k)) solid::apply_gravity(state.solids[k], state.scene.gravity, dt);
}

// Stage 5 without liquid around them: each solid's backward Euler step in
// velocities (6); a reduced body's velocity step with gravity.
void advance_solids_alone(SimState& state, Real dt, StepReport& report) {
  const scene::Scene& scene = state.scene;
  for (std::size_t k = 0; k < state.solids.size(); ++k) {
    solid::Body& b = state.solids[k];
    if (is_reduced(state, k)) {
      solid::ReducedBody& r = *state.reduced[k];
      solid::advance_reduced_velocities(r.basis, r.state, dt, solid::gravity_forces(r.basis, scene.gravity));
      solid::write_reduced_to_body(r.basis, r.state, b);
      continue;
    }
    record(report, solid::advance_velocities(b, dt, Vec3::Zero(), solid_solver_settings(scene.coupling)), scene,
           "solid \"" + b.name + "\"");
  }
}

// Stage 6 for the solids: nodes kept inside the domain walls (an explicit
// correction, as the paper does), then checked for NaN.
void collide_solids_with_walls(SimState& state) {
  const scene::Grid& grid = state.scene.grid;
  for (std::size_t k = 0; k < state.solids.size(); ++k) {
    solid::Body& b = state.solids[k];
    if (is_reduced(state, k)) {
      solid::ReducedBody& r = *state.reduced[k];
      solid::collide_reduced_walls(r.basis, r.state, grid.origin, grid.max());
      solid::write_reduced_to_body(r.basis, r.state, b);
    } else {
      solid::collide_walls(b, grid.origin, grid.max());
    }
    solid::check_finite(b);
  }
}

}  // namespace

StepReport step(SimState& state, Real dt, StageTimes& times, const SystemObserver& observe) {
  if (state.eulerian) return step_eulerian(state, dt, times);
  const scene::Scene& scene = state.scene;
  StepReport report;
  const bool coupled = state.liquid && !state.solids.empty();
  const bool surfaces = state.liquid && !state.surfaces.meshes.empty();  // bodies or box/obj obstacles

  // 1. Update solid positions, x += dt v (34), and element rotations (Mueller & Gross 2004);
  //    a reduced body's frame and modes (solid/reduced.hpp).
  {
    ScopedStage t(times, STAGE_SOLID_POSITIONS);
    update_solid_positions(state, dt);
  }
  // The region of a split cell (cutcell/split_cells.hpp) a point lies in, by
  // the surfaces the split cells were made from.
  const fluid::RegionOf regions = [&state](Index cell, const Vec3& x) {
    const fluid::Liquid& l = *state.liquid;
    return cutcell::region_of(l.split, l.grid, state.surfaces.meshes, cell, x);
  };
  // 2. Advect marker particles (RK2, each through the velocities on its side of a
  //    thin solid) and face velocities (semi-Lagrangian, RK2 backtrace); remember
  //    where the particles started relative to the solids (sim/particle_paths.hpp).
  ParticlePaths paths;
  {
    ScopedStage t(times, STAGE_ADVECTION);
    if (surfaces) {
      paths = start_particle_paths(state);
      update_particle_reach(state);
    }
    if (state.liquid) fluid::advect(*state.liquid, dt, regions);
  }
  // 3. External forces: gravity by forward Euler on fluid faces and free solid nodes.
  {
    ScopedStage t(times, STAGE_FORCES);
    if (state.liquid) fluid::apply_gravity(*state.liquid, dt);
    apply_solid_gravity(state, dt);
  }
  // 4. Distance fields: solid SDF at nodes (moving solids united with the static
  //    obstacles), face open fractions, cut cells; liquid SDF at cell centres.
  {
    ScopedStage t(times, STAGE_DISTANCE_FIELDS);
    if (surfaces) update_solid_fields(state);
    if (state.liquid) fluid::update_distance_fields(*state.liquid);
  }
  // 5. Pressure projection: liquid and solids together (19) / (33); the liquid
  //    alone (13), (20); solids alone: backward Euler in velocities (6).
  {
    ScopedStage t(times, STAGE_PROJECTION);
    if (coupled) {
      record(report, project_coupled(state, dt, observe, &report.partitioned, &report.loads.solids), scene,
             std::string("coupled pressure projection (") + scene::to_string(scene.coupling.scheme) + ")");
    } else {
      if (state.liquid) record(report, fluid::project(*state.liquid, dt), scene, "liquid pressure projection");
      advance_solids_alone(state, dt, report);
    }
    if (!state.obstacle_surfaces.empty()) report.loads.obstacles = obstacle_loads(state);
  }
  // 5b. Particle density correction (Kugelstadt et al. 2019, not in the paper): particles
  //     that packed move apart; stage 6 keeps them out of solids (fluid/density_correction.hpp).
  {
    ScopedStage t(times, STAGE_DENSITY_CORRECTION);
    if (state.liquid && scene.fluid.density_correction) fluid::correct_density(*state.liquid);
  }
  // 6. Extrapolate fluid velocities, constrain them at solids, push particles out of solids
  //    and stop those whose path crossed a solid's surface; keep solid nodes inside the
  //    domain walls.
  {
    ScopedStage t(times, STAGE_EXTRAPOLATION);
    if (state.liquid) fluid::extrapolate_and_constrain(*state.liquid, solid_velocity(state));
    if (surfaces) stop_particles_at_solids(state, paths);
    collide_solids_with_walls(state);
  }
  state.time += dt;
  return report;
}

Real max_speed(const SimState& state) {
  Real speed = state.liquid ? fluid::max_speed(*state.liquid) : 0;
  for (const solid::Body& b : state.solids)
    if (b.num_nodes() > 0) speed = std::max(speed, b.v.colwise().norm().maxCoeff());
  if (state.eulerian) speed = std::max(speed, eulerian::max_speed(state.eulerian->world));
  return speed;
}

}  // namespace fsicut::sim
