#pragma once
// The cut-cell simulator (sim/simulator.hpp): Zarifi & Batty 2017's strongly
// coupled liquid and deformable solids, with static obstacles, loads and
// probes. One substep is Algorithm 1 (sim/cutcell/step.hpp).
//
// CutCellSimulator owns everything that survives a substep: the solids
// (positions, velocities, rotations), the liquid (particles, face velocities,
// last pressure), and beside the Simulator's scene and clock what is built
// from the scene once (probe sites, obstacle surfaces). Per-step temporaries
// (distance fields aside, which the liquid caches) are return values of the
// stages.
//
// Files: simulator.cpp builds it from a scene; step.cpp is Algorithm 1;
// record.cpp what a frame reports (stats, outputs, checks, cost);
// snapshot.cpp its part of a checkpoint; the coupling geometry
// (solid_fields, particle_paths, particle_steps, coupling_matrix, couple), the scene's bodies
// and obstacles (solids, obstacles) and the measurements (loads, probes) have
// a file each.
#include <optional>
#include <string>
#include <vector>

#include "lib/coupling/coupled_projection.hpp"
#include "lib/fluid/liquid.hpp"
#include "lib/scene/scene.hpp"
#include "lib/sim/cutcell/flows.hpp"
#include "lib/sim/cutcell/loads.hpp"
#include "lib/sim/cutcell/moving.hpp"
#include "lib/sim/cutcell/probes.hpp"
#include "lib/sim/cutcell/solid_fields.hpp"
#include "lib/sim/simulator.hpp"
#include "lib/solid/body.hpp"
#include "lib/solid/reduced.hpp"

namespace fsicut::sim {

// Stage names, as they appear under "seconds" in stats.jsonl.
inline constexpr const char* STAGE_SOLID_POSITIONS = "solid_positions";
inline constexpr const char* STAGE_ADVECTION = "advection";
inline constexpr const char* STAGE_FORCES = "forces";
inline constexpr const char* STAGE_SOURCES = "sources";
inline constexpr const char* STAGE_DISTANCE_FIELDS = "distance_fields";
inline constexpr const char* STAGE_PROJECTION = "projection";
inline constexpr const char* STAGE_VISCOSITY = "viscosity";
inline constexpr const char* STAGE_LOADS = "loads";
inline constexpr const char* STAGE_DENSITY_CORRECTION = "density_correction";
inline constexpr const char* STAGE_EXTRAPOLATION = "extrapolation";

class CutCellSimulator final : public Simulator {
 public:
  // Builds the meshes and bodies and seeds the liquid (sim/build.hpp says
  // what is checked and thrown).
  explicit CutCellSimulator(const scene::Scene& scene);
  // An empty simulator (default scene, nothing in it), for tests that fill
  // in a liquid or solids by hand.
  CutCellSimulator() : Simulator(scene::Scene{}) {}

  std::vector<solid::Body> solids;    // one per scene.solids entry, same order
  // One per solid: set for "model": "reduced", whose dynamics live here and
  // whose Body holds the reconstructed positions and velocities (solid/reduced.hpp).
  std::vector<std::optional<solid::ReducedBody>> reduced;
  std::optional<fluid::Liquid> liquid;  // present when the scene has fluid regions or sources
  LiquidFlows flows;                  // sources, drains and their books (sim/cutcell/flows.hpp)
  SolidSurfaces surfaces;             // the solids' moving surfaces (with liquid; derived from x)
  std::vector<ProbeSite> probes;      // the scene's probes, ready to sample (sim/cutcell/probes.hpp)
  std::vector<ObstacleSurface> obstacle_surfaces;  // with liquid: one per obstacle, for its load
  // The moving obstacles and driven pinned regions (sim/cutcell/moving.hpp):
  // derived from the scene and the time, placed at `time` after every substep.
  Motions motions;
  // The coupled spd solve's set-up kept between substeps (results do not
  // depend on it; not checkpointed, copies start empty).
  coupling::SpdWorkspace spd_workspace;

  // True when solid b is a reduced body.
  bool is_reduced(std::size_t b) const { return b < reduced.size() && reduced[b].has_value(); }

  StepReport step(Real dt, StageTimes& times, const SystemObserver& observe = {}) override;  // step.cpp
  // The fastest liquid face, solid node or active source [m/s].
  Real max_speed() const override;
  std::vector<std::string> stages() const override;

  FrameOutput capture_frame() const override;
  std::vector<std::string> frame_file_names(int f) const override;

  // liquid_volume, particle_volume, deep_density, packed_cells,
  // max_fluid_speed; solids [{name, centroid, volume, mean_velocity,
  // kinetic_energy, elastic_energy, linear_momentum, angular_momentum,
  // max_strain, inverted_elements, fluid_force, fluid_torque; a reduced body
  // also modes and modal_energy}]; obstacles [{index, fluid_force,
  // fluid_torque}] (docs/outputs.md has the units).
  void add_record(nlohmann::json& record, const FrameStats& stats) const override;
  bool has_liquid() const override { return liquid.has_value(); }
  // The regions of the cells thin walls split counted one by one
  // (fluid/volume.hpp), measured against `surfaces`.
  std::optional<Real> liquid_volume() const override;
  std::string probes_header() const override;
  std::string probes_row() const override;

  std::vector<Absurdity> absurdities(const LiquidVolumes& volumes) const override;
  std::vector<InvertedSolid> inverted_solids() const override;

  SubstepCost estimate_substep() const override;
  // Grid, liquid, solids with node/tet counts, coupling; a reduced body's
  // modal frequencies.
  std::string summary() const override;

  void save(checkpoint::Snapshot& snapshot) const override;
  void restore(const checkpoint::Snapshot& snapshot, const std::string& file) override;
};

// Tetrahedra of `body` turned inside out or flattened at its current
// positions: det F <= 0, i.e. a signed volume <= 0 (rest volumes are positive);
// a quadratic element counts when any of its 8 sub-tets (mesh/quadratic.hpp) does.
// The stats key `inverted_elements`; any at all means the solid's motion is no
// longer physical (too soft, too fast, or a too long time step).
Index inverted_elements(const solid::Body& body);

}  // namespace fsicut::sim
