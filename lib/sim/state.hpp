#pragma once
// The persistent state of a simulation and how a scene becomes one.
//
// SimState owns everything that survives a substep: the scene it came from,
// the solids (positions, velocities, rotations), the liquid (particles, face
// velocities, last pressure), the clock. Per-step temporaries (distance
// fields aside, which the liquid caches) are return values of the stages.
#include <optional>
#include <string>
#include <vector>

#include "lib/coupling/coupled_projection.hpp"
#include "lib/fluid/liquid.hpp"
#include "lib/sim/eulerian_state.hpp"
#include "lib/sim/loads.hpp"
#include "lib/sim/probes.hpp"
#include "lib/sim/solid_fields.hpp"
#include "lib/scene/scene.hpp"
#include "lib/solid/body.hpp"
#include "lib/solid/reduced.hpp"

namespace fsicut::sim {

struct SimState {
  scene::Scene scene;
  std::vector<solid::Body> solids;    // one per scene.solids entry, same order
  // One per solid: set for "model": "reduced", whose dynamics live here and
  // whose Body holds the reconstructed positions and velocities (solid/reduced.hpp).
  std::vector<std::optional<solid::ReducedBody>> reduced;
  std::optional<fluid::Liquid> liquid;  // present when the scene has fluid regions
  // coupling/scheme "eulerian": its world, solids and smoke (sim/eulerian_run.hpp);
  // then `solids`, `liquid` and the rest above stay empty.
  std::optional<EulerianState> eulerian;
  SolidSurfaces surfaces;             // the solids' moving surfaces (with liquid; derived from x)
  std::vector<ProbeSite> probes;      // the scene's probes, ready to sample (sim/probes.hpp)
  std::vector<ObstacleSurface> obstacle_surfaces;  // with liquid: one per obstacle, for its load (sim/loads.hpp)
  Real time = 0;                      // simulated time [s]
  int frame = 0;                      // last completed frame (0 = initial state)
  // The coupled spd solve's set-up kept between substeps (results do not
  // depend on it; not checkpointed, copies start empty).
  coupling::SpdWorkspace spd_workspace;
};

// Builds the meshes and bodies and seeds the liquid. Everything the scene asks
// for is checked here, before any output exists: meshes (MeshError naming the
// OBJ file and the scene pointer), solids that do not fit in the grid and
// stages this build cannot run (SceneError with the pointer), so a refused
// scene leaves the output folder untouched.
SimState build_state(const scene::Scene& scene);

// True when solid b is a reduced body.
inline bool is_reduced(const SimState& state, std::size_t b) {
  return b < state.reduced.size() && state.reduced[b].has_value();
}

// The liquid volume [m^3] that stats.jsonl reports (0 without liquid): the
// regions of the cells thin walls split counted one by one (fluid/volume.hpp),
// measured against state.surfaces.
Real liquid_volume(const SimState& state);

// A human-readable summary (grid, liquid, solids with node/tet counts,
// coupling; a reduced body's modal frequencies) for `fsicut --validate`.
std::string summary(const SimState& state);

}  // namespace fsicut::sim
