#include "lib/sim/sanity.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "lib/core/error.hpp"
#include "lib/core/log.hpp"

namespace fsicut::sim {

void check_absurd(const Simulator& sim, const LiquidVolumes& volumes, SanityWarnings& warned) {
  const std::vector<Absurdity> found = sim.absurdities(volumes);
  if (!found.empty() && sim.scene.on_absurd == scene::Scene::OnAbsurd::stop) {
    // Every finding of the frame: which rule trips first is chance when a run
    // goes wrong several ways at once.
    std::string what = "absurd result at " + found.front().message;
    for (std::size_t i = 1; i < found.size(); ++i) what += "; absurd result at " + found[i].message;
    throw SimulationError(what + "; stopped after writing frame " + std::to_string(sim.frame) +
                          " (the scene key \"on_absurd\": \"warn\" lets a run go on)");
  }
  for (const Absurdity& a : found) {
    if (std::find(warned.absurd.begin(), warned.absurd.end(), a.kind) != warned.absurd.end()) continue;
    log::warn("absurd result at " + a.message + " (on_absurd: warn, the run goes on)");
    warned.absurd.push_back(a.kind);
  }
}

void check_sanity(const Simulator& sim, const LiquidVolumes& volumes, SanityWarnings& warned, bool strict) {
  for (const InvertedSolid& solid : sim.inverted_solids()) {
    const std::string message = "frame " + std::to_string(sim.frame) + ": solid \"" + solid.name + "\" has " +
                                std::to_string(solid.elements) +
                                " inverted tetrahedra (det F <= 0): its motion is no longer physical (too soft, "
                                "too fast, or time/cfl too large)";
    if (strict) throw SimulationError(message + "; stopped by --strict (or the scene key \"strict\")");
    if (warned.inverted.insert(solid.name).second) log::warn(message + "; stats.jsonl counts them as inverted_elements");
  }
  if (warned.volume_drift) return;
  const std::optional<Real> now = volumes.now ? volumes.now : sim.liquid_volume();
  const std::optional<Real>& initial = volumes.initial;
  const Real scale = initial ? (volumes.net ? std::max(*initial, volumes.measured) : *initial) : 0;
  if (now && initial && scale > 0 && std::abs(*now - *initial) > LIQUID_VOLUME_DRIFT_WARNING * scale) {
    char message[256];
    std::snprintf(message, sizeof message,
                  "frame %d: the liquid volume%s is %.4g m^3, %+.1f %% from frame 0's %.4g m^3 (more than %.0f %%)",
                  sim.frame, volumes.net ? " net of sources and drains" : "", *now, 100 * (*now - *initial) / scale,
                  *initial, 100 * LIQUID_VOLUME_DRIFT_WARNING);
    log::warn(message);
    warned.volume_drift = true;
  }
}

}  // namespace fsicut::sim
