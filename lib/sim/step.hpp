#pragma once
// One substep of Algorithm 1 (Zarifi & Batty 2017) on the whole state.
#include <optional>

#include "lib/core/timer.hpp"
#include "lib/coupling/partitioned.hpp"
#include "lib/linsolve/report.hpp"
#include "lib/sim/couple.hpp"
#include "lib/sim/state.hpp"

namespace fsicut::sim {

// Stage names, as they appear under "seconds" in stats.jsonl.
inline constexpr const char* STAGE_SOLID_POSITIONS = "solid_positions";
inline constexpr const char* STAGE_ADVECTION = "advection";
inline constexpr const char* STAGE_FORCES = "forces";
inline constexpr const char* STAGE_DISTANCE_FIELDS = "distance_fields";
inline constexpr const char* STAGE_PROJECTION = "projection";
inline constexpr const char* STAGE_EXTRAPOLATION = "extrapolation";
inline constexpr const char* STAGE_DENSITY_CORRECTION = "density_correction";

struct StepReport {
  linsolve::Report worst_solve;  // the worst linear solve of the substep (none: solve_count = 0)
  int solve_count = 0;           // how many linear solves it ran
  std::optional<coupling::PartitionedReport> partitioned;  // schemes partitioned and xpm
  FluidLoads loads;  // the liquid's load on each solid (coupled) and each obstacle (with liquid), sim/loads.hpp
};

// Advances `state` by dt [s], adding each stage's wall time to `times`.
// Throws SimulationError on NaN or a failed solve (unless the scene allows it).
// With liquid and solids, `observe` (optional) sees the coupled system of the
// substep before it is solved (sim/couple.hpp).
StepReport step(SimState& state, Real dt, StageTimes& times, const SystemObserver& observe = {});

// The fastest speed anything moves at [m/s]: liquid faces and solid nodes.
Real max_speed(const SimState& state);

}  // namespace fsicut::sim
