#include "lib/sim/absurd.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

#include <nlohmann/json.hpp>

#include "lib/eulerian/measure.hpp"
#include "lib/fluid/liquid.hpp"
#include "lib/sim/from_scene.hpp"

namespace fsicut::sim {
namespace {

std::string format(const char* pattern, double a, double b = 0, double c = 0) {
  char text[256];
  std::snprintf(text, sizeof text, pattern, a, b, c);
  return text;
}

std::string solid_prefix(const SimState& state, const solid::Body& body) {
  return "frame " + std::to_string(state.frame) + ": solid \"" + body.name + "\" ";
}

void check_solid(const SimState& state, const solid::Body& body, Real speed_bound, std::vector<Absurdity>& out) {
  const std::string at = solid_prefix(state, body);
  if (!body.x.allFinite() || !body.v.allFinite()) {
    out.push_back({"not finite", at + "has a position or velocity that is not finite"});
    return;
  }
  const solid::BodyStats st = solid::stats(body);
  const Real rest = std::accumulate(body.rest_volume.begin(), body.rest_volume.end(), Real(0));
  if (!(st.volume > 0))
    out.push_back({"solid volume", at + format("has volume %.4g m^3 (rest %.4g m^3): turned inside out", st.volume,
                                               rest)});
  else if (st.volume > SOLID_VOLUME_GROWTH_LIMIT * rest)
    out.push_back({"solid volume", at + format("has grown to %.3g times its rest volume (%.4g m^3; bound %.3g times)",
                                               st.volume / rest, rest, SOLID_VOLUME_GROWTH_LIMIT)});
  const Real energy_bound = 0.5 * body.total_mass() * speed_bound * speed_bound;
  if (!(st.kinetic_energy <= energy_bound))
    out.push_back({"solid kinetic energy",
                   at + format("has kinetic energy %.4g J, above %.4g J, its %.4g kg moving at ", st.kinetic_energy,
                               energy_bound, body.total_mass()) +
                       format("%.4g m/s, the fastest speed the scene's gravity, domain, initial velocities and "
                              "compression explain",
                              speed_bound)});
}

void check_liquid(const SimState& state, const LiquidVolumes& volumes, Real speed_bound, std::vector<Absurdity>& out) {
  const std::string at = "frame " + std::to_string(state.frame) + ": ";
  const Real now = volumes.now ? *volumes.now : liquid_volume(state);
  if (!std::isfinite(now)) {
    out.push_back({"not finite", at + "the liquid volume is not finite"});
    return;
  }
  if (volumes.initial && *volumes.initial > 0 &&
      std::abs(now - *volumes.initial) > LIQUID_VOLUME_LOSS_LIMIT * *volumes.initial)
    out.push_back({"liquid volume", at + format("the liquid volume is %.4g m^3, %+.1f %% from frame 0's %.4g m^3",
                                                now, 100 * (now - *volumes.initial) / *volumes.initial,
                                                *volumes.initial) +
                                        format(" (bound %.0f %%)", 100 * LIQUID_VOLUME_LOSS_LIMIT)});
  else if (volumes.previous && *volumes.previous > 0 &&
           std::abs(now - *volumes.previous) > LIQUID_VOLUME_JUMP_LIMIT * *volumes.previous)
    out.push_back({"liquid volume", at + format("the liquid volume is %.4g m^3, %+.1f %% from the previous frame's "
                                                "%.4g m^3",
                                                now, 100 * (now - *volumes.previous) / *volumes.previous,
                                                *volumes.previous) +
                                        format(" (bound %.0f %% per frame)", 100 * LIQUID_VOLUME_JUMP_LIMIT)});
  const Real fastest = fluid::max_speed(*state.liquid);
  if (!(fastest <= speed_bound))
    out.push_back({"liquid speed", at + format("the liquid moves at %.4g m/s, above %.4g m/s, the fastest speed the "
                                               "scene's gravity, domain, initial velocities and compression explain",
                                               fastest, speed_bound)});
}

// An Eulerian solid (eulerian/measure.hpp), against the material volume it
// carried at the start; the smoke's speed.
void check_eulerian(const SimState& state, Real speed_bound, std::vector<Absurdity>& out) {
  const EulerianState& e = *state.eulerian;
  for (std::size_t l = 0; l < e.world.solids.size(); ++l) {
    const eulerian::EulerianSolid& solid = e.world.solids[l];
    const std::string at = "frame " + std::to_string(state.frame) + ": solid \"" + e.surfaces[l].name + "\" ";
    if (!solid.u.allFinite() || !solid.v.allFinite()) {
      out.push_back({"not finite", at + "has a displacement or velocity that is not finite"});
      continue;
    }
    const eulerian::SolidMeasure m = eulerian::measure_solid(solid);
    const Real rest = solid.material_volume;
    if (!(m.report.volume > 0))
      out.push_back({"solid volume", at + format("has volume %.4g m^3 (rest %.4g m^3): no material left on the grid",
                                                 m.report.volume, rest)});
    else if (m.report.volume > SOLID_VOLUME_GROWTH_LIMIT * rest)
      out.push_back({"solid volume", at + format("has grown to %.3g times its rest volume (%.4g m^3; bound %.3g "
                                                 "times)",
                                                 m.report.volume / rest, rest, SOLID_VOLUME_GROWTH_LIMIT)});
    const Real energy_bound = 0.5 * m.mass * speed_bound * speed_bound;
    if (!(m.report.kinetic_energy <= energy_bound))
      out.push_back({"solid kinetic energy",
                     at + format("has kinetic energy %.4g J, above %.4g J, its %.4g kg moving at ",
                                 m.report.kinetic_energy, energy_bound, m.mass) +
                         format("%.4g m/s, the fastest speed the scene's gravity, domain, initial velocities and "
                                "compression explain",
                                speed_bound)});
  }
  if (!e.world.smoke) return;
  Real fastest = 0;
  const eulerian::NodeField& v = e.world.smoke->velocity;
  for (Index k = 0; k + 2 < v.size(); k += 3) fastest = std::max(fastest, v.segment<3>(k).norm());
  if (!(fastest <= speed_bound))
    out.push_back({"fluid speed", "frame " + std::to_string(state.frame) +
                                      format(": the smoke moves at %.4g m/s, above %.4g m/s, the fastest speed the "
                                             "scene's gravity, domain, initial velocities and sources explain",
                                             fastest, speed_bound)});
}

}  // namespace

std::vector<Absurdity> find_absurdities(const SimState& state, const LiquidVolumes& volumes) {
  std::vector<Absurdity> out;
  const Real speed_bound = velocity_bound(state.scene);
  for (const solid::Body& body : state.solids) check_solid(state, body, speed_bound, out);
  if (state.liquid) check_liquid(state, volumes, speed_bound, out);
  if (state.eulerian) check_eulerian(state, speed_bound, out);
  return out;
}

std::optional<Real> last_liquid_volume(const std::string& stats_text) {
  std::size_t end = stats_text.size();
  while (end > 0 && stats_text[end - 1] == '\n') --end;
  if (end == 0) return std::nullopt;
  const std::size_t start = stats_text.rfind('\n', end - 1);
  const std::size_t first = start == std::string::npos ? 0 : start + 1;
  const std::string last = stats_text.substr(first, end - first);
  const nlohmann::json j = nlohmann::json::parse(last, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("liquid_volume") || !j["liquid_volume"].is_number()) return std::nullopt;
  return j["liquid_volume"].get<Real>();
}

}  // namespace fsicut::sim
