#pragma once
// The eulerian scheme driven by the one stepping path (sim::advance_to ->
// sim::step): how a scene becomes an eulerian::World, one substep of it, and
// what a frame records of it. The Lagrangian stages never run for such a
// scene; sim::step dispatches here.
//
// From the scene (scene/read_eulerian.hpp has the keys):
//  - the world's grid is /grid (MacGrid: resolution, origin, cell size);
//  - each solid's material shape is the signed distance of its mesh (a
//    sphere's exact distance; any other mesh's surface through
//    levelset::mesh_solid) sampled on that grid, so x_bar = x at t = 0;
//    initial_scale < 1 starts it compressed about its surface's centroid
//    (x_bar = c + (x - c) / scale), velocity sets its velocity copy; density,
//    Lame constants (youngs_modulus, poisson_ratio) and Rayleigh damping
//    (damping/mass tau_m, damping/stiffness tau_k) are its material,
//    plasticity {yield, flow} its plastic flow (eulerian/plasticity.hpp);
//  - fluid/kind "smoke": a fluid of fluid/density filling the box, its
//    buoyancy, vorticity confinement and sources (eulerian/smoke.hpp), the
//    sources' smoke set at t = 0; otherwise the solids are alone in void;
//  - the step's settings: gravity, coupling/eulerian's tolerances and
//    integration, coupling/max_iterations for every solve, the solids'
//    incompressible flag.
// A substep is one eulerian::step of dt (sim/advance.hpp chooses dt by the
// scene's CFL rule with sim::max_speed, which reads the world here), then
// every output surface moves through it.
#include <string>

#include <nlohmann/json.hpp>

#include "lib/checkpoint/snapshot.hpp"
#include "lib/core/timer.hpp"
#include "lib/scene/scene.hpp"
#include "lib/sim/eulerian_state.hpp"
#include "lib/sim/step.hpp"

namespace fsicut::sim {

// Stage name (stats.jsonl "seconds") of the world's step.
inline constexpr const char* STAGE_EULERIAN = "eulerian_step";

// The world, settings and surfaces of `scene` (coupling/scheme "eulerian").
// Throws SceneError naming /solids/i/mesh for a solid outside the grid, and
// what building its mesh throws (sim/solid_mesh.hpp).
EulerianState build_eulerian(const scene::Scene& scene);

// One substep of dt [s]: the world's step, the surfaces moved, the tally.
// StepReport::worst_solve is the worst of the step's solves. Throws
// SimulationError as eulerian::step does.
StepReport step_eulerian(SimState& state, Real dt, StageTimes& times);

// Adds the scheme's keys to a frame's stats record (stats.hpp): one entry
// per Eulerian solid appended to `solids` ({name, representation, centroid,
// volume, mean_velocity, kinetic_energy, elastic_energy, max_strain,
// inverted_points, drift, and plastic_strain, max |F_p - I|, for a plastic
// solid}), max_fluid_speed from the smoke, solver/tolerance
// the pressure solve's, and `eulerian` {substeps, velocity_iterations,
// pressure_iterations, correction_iterations, divergence, unknowns,
// constraints, contacts, smoke_amount, smallest_dt, seconds {assemble, velocity_solves,
// pressure_solve, collision, advection}: the paper's Table 2 columns}.
void add_eulerian_record(const SimState& state, nlohmann::json& record);

// The checkpoint record of `e` (checkpoint/snapshot.hpp): everything a step
// reads that the scene does not fix (the world's velocity and multiplier;
// each solid's u, v, valid nodes, warm start and F_p if plastic; the smoke's density and
// velocity; the surfaces' vertices; the frame tally but its seconds and
// smallest_dt, which only describe the substeps run). Material shapes,
// materials, settings, the smoke's sources and the surfaces' triangles are
// built again from the scene.
checkpoint::EulerianRecord eulerian_record(const EulerianState& e);

// Restores `record` into `e` built from the same scene by build_eulerian.
// Throws Error(data = 65) "<where>: does not fit this scene: ..." when its
// sizes are not the scene's (another grid, other solids or meshes).
void restore_eulerian(const checkpoint::EulerianRecord& record, const std::string& where, EulerianState& e);

// The CFL number of the substep about to start: coupling/eulerian/contact_cfl
// while two solids are less than 2 cells apart (eulerian/time_step.hpp),
// time/cfl otherwise or when the key is absent.
Real eulerian_cfl(const SimState& state);

// The --validate lines of the scheme.
std::string eulerian_summary(const SimState& state);

}  // namespace fsicut::sim
