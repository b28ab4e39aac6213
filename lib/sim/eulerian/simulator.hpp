#pragma once
// The Eulerian simulator (sim/simulator.hpp): Teng, Levin & Kim 2016's
// Eulerian solids and smoke (lib/eulerian) for scenes with coupling/scheme
// "eulerian". A substep is one eulerian::step of dt (sim/advance.hpp chooses
// dt by the scene's CFL rule with max_speed, which reads the world, and the
// CFL number of cfl_number), then every output surface moves through it.
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
//
// Files: simulator.cpp builds and steps it; record.cpp is what a frame
// reports (stats, outputs, checks, cost); snapshot.cpp its part of a
// checkpoint.
#include <string>
#include <vector>

#include "lib/eulerian/world.hpp"
#include "lib/mesh/mesh.hpp"
#include "lib/sim/simulator.hpp"

namespace fsicut::sim {

// Stage names (stats.jsonl "seconds"): the world's step, and moving the
// output surfaces through it.
inline constexpr const char* STAGE_EULERIAN = "eulerian_step";
inline constexpr const char* STAGE_SURFACES = "surface_advection";

// An Eulerian solid's output surface: its input mesh's boundary, moved each
// step by the solid's velocity (eulerian/measure.hpp advect_surface); the
// same vertices and triangles every frame.
struct EulerianSurface {
  std::string name;
  Points vertices;                        // 3 x #vertices, simulation frame [m]
  std::vector<mesh::Triangle> triangles;  // outward, counter-clockwise seen from outside
};

// The solves of the substeps since the last completed frame (stats.jsonl's
// per-frame `eulerian` record).
struct EulerianTally {
  int frame = -1;  // Simulator::frame while these substeps ran (-1: none yet)
  int substeps = 0;
  long velocity_iterations = 0;    // summed over the substeps (Eq. 8)
  long pressure_iterations = 0;    // (Eq. 12)
  long correction_iterations = 0;  // (Eq. 13; 0 with the mass correction)
  Real divergence = 0;             // the largest WorldReport::divergence
  Index unknowns = 0, constraints = 0;  // of the last substep
  long contacts = 0;               // particle contacts (ContactReport::contacts), summed
  // Not in checkpoints (a frame resumed part-way counts only its rest): the
  // wall-clock seconds of the step's parts, summed (WorldReport::Seconds),
  // and the smallest substep [s] (0: none yet).
  eulerian::WorldReport::Seconds seconds;
  Real smallest_dt = 0;
};

class EulerianSimulator final : public Simulator {
 public:
  // The world, settings and surfaces of `scene`. Throws SceneError naming
  // /solids/i/mesh for a solid outside the grid, and what building its mesh
  // throws (sim/solid_mesh.hpp).
  explicit EulerianSimulator(const scene::Scene& scene);

  eulerian::World world;
  eulerian::WorldSettings settings;
  std::vector<EulerianSurface> surfaces;  // one per world.solids, same order as the scene's solids
  EulerianTally tally;

  // The world's step, the surfaces moved, the tally. StepReport::worst_solve
  // is the worst of the step's solves. Throws SimulationError as
  // eulerian::step does.
  StepReport step(Real dt, StageTimes& times, const SystemObserver& observe = {}) override;
  Real max_speed() const override;
  // coupling/eulerian/contact_cfl while two solids are less than 2 cells
  // apart (eulerian/time_step.hpp), time/cfl otherwise or when the key is
  // absent.
  Real cfl_number() const override;
  std::vector<std::string> stages() const override;

  // Each solid's surface as `<name>.NNNN.obj`, the smoke as `smoke.NNNN.vdb`.
  FrameOutput capture_frame() const override;
  std::vector<std::string> frame_file_names(int f) const override;

  // One entry per Eulerian solid in `solids` ({name, representation,
  // centroid, volume, mean_velocity, kinetic_energy, elastic_energy,
  // max_strain, inverted_points, drift, and plastic_strain, max |F_p - I|,
  // for a plastic solid}), max_fluid_speed from the smoke, solver/tolerance
  // the pressure solve's, and `eulerian` {substeps, velocity_iterations,
  // pressure_iterations, correction_iterations, divergence, unknowns,
  // constraints, contacts, smoke_amount, smallest_dt, seconds {assemble,
  // velocity_solves, pressure_solve, collision, advection}: the paper's
  // Table 2 columns}.
  void add_record(nlohmann::json& record, const FrameStats& stats) const override;

  // Each solid against the material volume it started with; the smoke's speed.
  std::vector<Absurdity> absurdities(const LiquidVolumes& volumes) const override;
  SubstepCost estimate_substep() const override;
  std::string summary() const override;

  // Stores everything a step reads that the scene does not fix (the world's
  // velocity and multiplier; each solid's u, v, valid nodes, warm start and
  // F_p if plastic; the smoke's density and velocity; the surfaces' vertices;
  // the frame tally but its seconds and smallest_dt, which only describe the
  // substeps run). Material shapes, materials, settings, the smoke's sources
  // and the surfaces' triangles are built again from the scene.
  void save(checkpoint::Snapshot& snapshot) const override;
  void restore(const checkpoint::Snapshot& snapshot, const std::string& file) override;
};

}  // namespace fsicut::sim
