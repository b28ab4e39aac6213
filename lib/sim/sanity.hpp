#pragma once
// The checks at the end of every frame of a run (run.hpp): inverted
// tetrahedra and liquid volume drift warn (or stop with --strict), absurd
// results (absurd.hpp) stop the run unless the scene's on_absurd is "warn".
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "lib/sim/absurd.hpp"
#include "lib/sim/simulator.hpp"

namespace fsicut::sim {

// Relative change of liquid_volume from frame 0 past which the run warns. The
// method does not conserve volume exactly (particles cluster, splashes thin
// out below a cell): a few % over a dam break is normal; 10 % means the
// liquid is being lost or created (e.g. squeezed through an inverted solid).
inline constexpr Real LIQUID_VOLUME_DRIFT_WARNING = 0.1;

// What the sanity checks have already warned about in this run: each warns
// once, at the first frame it applies to (stats.jsonl has the numbers).
struct SanityWarnings {
  std::set<std::string> inverted;  // the solids warned about
  bool volume_drift = false;
  std::vector<std::string> absurd;  // kinds of absurdity warned about (on_absurd "warn")
};

// Absurd results stop the run after this frame (SimulationError, exit 70,
// naming every finding of the frame), or with the scene's on_absurd "warn"
// each kind is a warning once.
void check_absurd(const Simulator& sim, const LiquidVolumes& volumes, SanityWarnings& warned);

// At each frame's end (`volumes`: frame 0's liquid volume and, when known,
// this frame's [m^3]): warns about
// inverted tetrahedra (naming the solid and the frame) and about liquid volume
// drift beyond LIQUID_VOLUME_DRIFT_WARNING; with `strict`, inverted tetrahedra
// are a SimulationError (exit 70) instead.
void check_sanity(const Simulator& sim, const LiquidVolumes& volumes, SanityWarnings& warned, bool strict);

}  // namespace fsicut::sim
