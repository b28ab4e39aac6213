#pragma once
// Scene data to runtime objects and settings: the conversions the driver makes
// (for both simulators, sim/build.hpp) so that nothing below sim/ sees a scene
// type. Errors that concern a scene value name its JSON pointer.
#include <vector>

#include "lib/coupling/coupled_projection.hpp"
#include "lib/coupling/partitioned.hpp"
#include "lib/fluid/liquid.hpp"
#include "lib/fluid/pressure_projection.hpp"
#include "lib/grid/mac_grid.hpp"
#include "lib/levelset/solid_sdf.hpp"
#include "lib/linsolve/pcg.hpp"
#include "lib/scene/scene.hpp"

namespace fsicut::sim {

// The MAC grid of /grid: resolution, origin [m], cell size dx [m].
grid::MacGrid make_grid(const scene::Grid& g);

// The PCG preconditioner /coupling/preconditioner names.
linsolve::Preconditioner preconditioner(scene::Coupling::Preconditioner kind);

// The liquid-alone projection's solver settings from /coupling (tolerance,
// max_iterations, allow_unconverged, preconditioner).
fluid::ProjectionSettings projection_settings(const scene::Coupling& c);

// The coupled solve's settings from /coupling (sigma, alpha or auto, tolerance,
// max_iterations, preconditioner).
coupling::CoupledSettings coupled_settings(const scene::Coupling& c);

// The fastest speed [m/s] the scene's energy sources explain, times a margin:
//   VELOCITY_MARGIN * sqrt(v0^2 + 2 a L + v_e^2 + (dx fps)^2)
// with v0 the fastest initial velocity (fluid regions, liquid sources, solids,
// smoke inflows) or prescribed motion (scene::speed_bound of moving obstacles
// and pinned regions), a = |g| + |smoke buoyancy| times the densest smoke source (at
// least 1), L the grid's diagonal (a fall through the whole domain turns
// 2 a L of speed squared into motion), v_e the fastest solid's release of its initial compression
// (a uniform strain e = |1 - initial_scale| stores 9/2 K e^2 per unit volume,
// K = E / (3 (1 - 2 nu)) the bulk modulus, so v_e = 3 e sqrt(K / rho)), and
// dx fps a cell per frame, so that a scene with no energy source at all still
// has a bound round-off stays below. It is a scale, not a proof: pressure can
// focus the liquid's energy into a thin jet, a light solid take a heavy
// liquid's momentum; the margin of 10 (100 in kinetic energy) covers that.
// The partitioned iteration calls a residual above it diverged.
constexpr Real VELOCITY_MARGIN = 10;
Real velocity_bound(const scene::Scene& s);

// The partitioned iteration's settings from /coupling/partitioned; its
// tolerance, in cells per substep, becomes a velocity [m/s] for cells of
// /grid/cell_size [m] and substeps of dt [s]; velocity_bound as above.
coupling::PartitionedSettings partitioned_settings(const scene::Scene& s, Real dt);

// The liquid of a scene: grid, density, gravity, the projection settings, the
// extrapolation depth for /time/cfl (cfl + 2 faces, at least
// fluid::DEFAULT_EXTRAPOLATION_LAYERS), and particles seeded in every fluid
// region (box, sphere; obj regions need `obj_regions`, one membership test per
// obj region in order, else SimulationError) with the region's initial
// velocity; where regions overlap the first one seeds. Particles inside `solid`
// or inside `bodies` (true inside the deformable solids; may be empty) are not
// seeded: both are decided at the sub-cell centres, as the liquid fraction
// measures open space, so a sub-cell beside a body is filled exactly when the
// fraction counts it. Ends with distance fields and an extrapolated, constrained
// velocity, ready for the first step. `exact`: the cells seeded without
// jitter (fluid::seed_particles); empty: none.
fluid::Liquid make_liquid(const scene::Scene& scene, levelset::StaticSolid solid,
                          const std::vector<fluid::Region>& obj_regions = {}, const fluid::Region& bodies = {},
                          const grid::Array3<char>& exact = {});

}  // namespace fsicut::sim
