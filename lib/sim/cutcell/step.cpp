// One substep of the cut-cell simulator: Algorithm 1 of Zarifi & Batty 2017,
// each stage one line under its banner, with the two stages the paper does
// not have (the loads and the particle density correction) named as stages
// of their own.
#include <cmath>
#include <cstdio>

#include "lib/core/error.hpp"
#include "lib/core/log.hpp"
#include "lib/fluid/density_correction.hpp"
#include "lib/sim/cutcell/couple.hpp"
#include "lib/sim/cutcell/flows.hpp"
#include "lib/sim/cutcell/particle_paths.hpp"
#include "lib/sim/cutcell/particle_steps.hpp"
#include "lib/sim/cutcell/simulator.hpp"
#include "lib/sim/cutcell/solid_fields.hpp"
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
void update_solid_positions(CutCellSimulator& state, Real dt) {
  // Moving obstacles and driven pinned nodes where their motion has them at the substep's end.
  if (!state.motions.empty()) place_moving(state, state.time + dt);
  for (std::size_t b = 0; b < state.solids.size(); ++b) {
    if (!state.is_reduced(b)) {
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
void apply_solid_gravity(CutCellSimulator& state, Real dt) {
  for (std::size_t k = 0; k < state.solids.size(); ++k)
    if (!state.is_reduced(k)) solid::apply_gravity(state.solids[k], state.scene.gravity, dt);
}

// Stage 5 without liquid around them: each solid's backward Euler step in
// velocities (6); a reduced body's velocity step with gravity.
void advance_solids_alone(CutCellSimulator& state, Real dt, StepReport& report) {
  const scene::Scene& scene = state.scene;
  for (std::size_t k = 0; k < state.solids.size(); ++k) {
    solid::Body& b = state.solids[k];
    if (state.is_reduced(k)) {
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
void collide_solids_with_walls(CutCellSimulator& state) {
  const scene::Grid& grid = state.scene.grid;
  for (std::size_t k = 0; k < state.solids.size(); ++k) {
    solid::Body& b = state.solids[k];
    if (state.is_reduced(k)) {
      solid::ReducedBody& r = *state.reduced[k];
      solid::collide_reduced_walls(r.basis, r.state, grid.origin, grid.max());
      solid::write_reduced_to_body(r.basis, r.state, b);
    } else {
      solid::collide_walls(b, grid.origin, grid.max());
    }
    solid::check_finite(b);
  }
}

// Stage 2: the marker particles (RK2, each through the velocities on its side
// of a thin solid; in several steps with time/particle_cfl,
// sim/cutcell/particle_steps.hpp) and the face velocities (semi-Lagrangian,
// RK2 backtrace); returns where the particles started their last step
// relative to the solids (sim/cutcell/particle_paths.hpp).
ParticlePaths advect(CutCellSimulator& state, Real dt, StepReport& report) {
  if (!state.liquid) return {};
  report.particle_steps = particle_steps(state, dt);
  ParticlePaths paths = move_particles(state, dt, report.particle_steps);
  fluid::advect_faces(*state.liquid, dt);
  return paths;
}

// Stage 3: gravity by forward Euler on the fluid faces and the free solid nodes.
void apply_gravity(CutCellSimulator& state, Real dt) {
  if (state.liquid) fluid::apply_gravity(*state.liquid, dt);
  apply_solid_gravity(state, dt);
}

// Stage 4: the solid SDF at nodes (moving solids united with the static
// obstacles), face open fractions, cut cells; the liquid SDF at cell centres.
void update_distance_fields(CutCellSimulator& state) {
  if (state.liquid && (!state.surfaces.meshes.empty() || !state.motions.obstacles.empty())) update_solid_fields(state);
  if (state.liquid) fluid::update_distance_fields(*state.liquid);
}

// Stage 5: liquid and solids together (19) / (33); the liquid alone (13),
// (20); solids alone, backward Euler in velocities (6). `loads` receives what
// the solids' loads are measured from (coupled only).
void project(CutCellSimulator& state, Real dt, const SystemObserver& observe, StepReport& report,
             std::optional<LoadRows>& loads) {
  const scene::Scene& scene = state.scene;
  if (state.liquid && !state.solids.empty()) {
    const std::string what = std::string("coupled pressure projection (") + scene::to_string(scene.coupling.scheme) + ")";
    record(report, project_coupled(state, dt, observe, &report.partitioned, &loads.emplace()), scene, what);
    return;
  }
  if (state.liquid)
    record(report, fluid::project(*state.liquid, dt, update_wall_velocity(state)), scene, "liquid pressure projection");
  advance_solids_alone(state, dt, report);
}

// After stage 5, a viscous liquid's implicit viscous step (Batty & Bridson
// 2008, fluid/viscosity.hpp), sticking to the solids at their velocity after
// the projection; nothing at all for an inviscid one.
// The liquid alone is then projected again (Batty & Bridson's order): the
// viscous step leaves a divergence near the free surface and the walls (a
// film down an incline: up to 1.47 1/s, 19 % of U/dx, and 9e-11 after the
// second projection), which advection would turn into lost or gained volume;
// the price is one more pressure solve per substep (the film's surface speed
// moved by 0.1-0.2 % of U, the spinning blob's angular momentum by 0.1 %).
// With solids the coupled solve is not redone (one-way: the liquid sticks to
// the solids' velocities, the solids feel no viscous traction); the next
// substep's projection removes the divergence.
void apply_viscosity(CutCellSimulator& state, Real dt, StepReport& report) {
  if (!state.liquid || !(state.liquid->viscosity > 0)) return;
  record(report, fluid::apply_viscosity(*state.liquid, dt, solid_velocity(state)), state.scene, "liquid viscosity");
  if (state.solids.empty())
    record(report, fluid::reproject(*state.liquid, dt, update_wall_velocity(state)), state.scene,
           "liquid pressure projection after viscosity");
}

// The liquid's force and torque on each solid (from the coupled solve's
// pressure) and each obstacle (sim/cutcell/loads.hpp).
FluidLoads measure_loads(const CutCellSimulator& state, const std::optional<LoadRows>& rows) {
  FluidLoads loads;
  if (rows) loads.solids = solid_loads(rows->load * rows->pressure, state.solids.size());
  if (!state.obstacle_surfaces.empty()) loads.obstacles = obstacle_loads(state);
  return loads;
}

// Particles that packed move apart (Kugelstadt et al. 2019), in the substeps
// its rule picks by the simulated time; stage 6 keeps them out of solids
// (fluid/density_correction.hpp).
void correct_density(CutCellSimulator& state, Real dt) {
  if (state.liquid && state.scene.fluid.density_correction && fluid::density_correction_due(state.time, dt))
    fluid::correct_density(*state.liquid);
}

// Stage 6: extrapolate the fluid velocities, constrain them at solids, push
// particles out of solids and stop those whose path crossed a solid's
// surface; keep solid nodes inside the domain walls.
void extrapolate_and_constrain(CutCellSimulator& state, ParticlePaths& paths) {
  if (state.liquid) fluid::extrapolate_and_constrain(*state.liquid, solid_velocity(state));
  if (state.liquid && !state.surfaces.meshes.empty()) stop_particles_at_solids(state, paths);
  collide_solids_with_walls(state);
}

}  // namespace

StepReport CutCellSimulator::step(Real dt, StageTimes& times, const SystemObserver& observe) {
  StepReport report;
  ParticlePaths paths;
  Carried carried;
  std::optional<LoadRows> load_rows;
  // 1. Update solid positions, x += dt v (34), and element rotations (Mueller & Gross 2004).
  { ScopedStage t(times, STAGE_SOLID_POSITIONS); update_solid_positions(*this, dt); }
  // 2. Advect marker particles (RK2, in steps of time/particle_cfl cells) and face velocities (semi-Lagrangian).
  { ScopedStage t(times, STAGE_ADVECTION); carried = carried_by_sources(*this); paths = advect(*this, dt, report); }
  // 3. External forces: gravity by forward Euler.
  { ScopedStage t(times, STAGE_FORCES); apply_gravity(*this, dt); }
  // Sources fill, drains and open sides empty (not in the paper: sim/cutcell/flows.hpp).
  { ScopedStage t(times, STAGE_SOURCES); exchange_liquid(*this, dt, carried, paths); }
  // 4. Distance fields: solid SDF, face fractions, cut cells; liquid SDF.
  { ScopedStage t(times, STAGE_DISTANCE_FIELDS); update_distance_fields(*this); }
  // 5. Pressure projection, coupled (33) or alone (13), (6).
  { ScopedStage t(times, STAGE_PROJECTION); project(*this, dt, observe, report, load_rows); }
  // Viscosity, implicit, after the projection (Batty & Bridson 2008; not in the paper).
  { ScopedStage t(times, STAGE_VISCOSITY); apply_viscosity(*this, dt, report); }
  // Loads on solids and obstacles (not in the paper: a measurement).
  { ScopedStage t(times, STAGE_LOADS); report.loads = measure_loads(*this, load_rows); }
  // Particle density correction (Kugelstadt et al. 2019, not in the paper).
  { ScopedStage t(times, STAGE_DENSITY_CORRECTION); correct_density(*this, dt); }
  // 6. Extrapolate and constrain velocities, push particles out of solids, collide solids with the walls.
  { ScopedStage t(times, STAGE_EXTRAPOLATION); extrapolate_and_constrain(*this, paths); }
  time += dt;
  return report;
}

}  // namespace fsicut::sim
