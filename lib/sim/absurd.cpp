#include "lib/sim/absurd.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

namespace fsicut::sim {
namespace {

std::string format(const char* pattern, double a, double b = 0, double c = 0) {
  char text[256];
  std::snprintf(text, sizeof text, pattern, a, b, c);
  return text;
}

// What LiquidVolumes hold, in words.
std::string volume_words(bool net) {
  return net ? "the liquid volume net of sources and drains (liquid_volume - liquid_added + liquid_removed)"
             : "the liquid volume";
}

}  // namespace

std::string frame_prefix(int frame) { return "frame " + std::to_string(frame) + ": "; }

std::string solid_prefix(int frame, const std::string& name) { return frame_prefix(frame) + "solid \"" + name + "\" "; }

void check_solid(int frame, const SolidFigures& solid, const char* collapsed, Real speed_bound,
                 std::vector<Absurdity>& out) {
  const std::string at = solid_prefix(frame, solid.name);
  const Real rest = solid.rest_volume;
  if (!(solid.volume > 0))
    out.push_back({"solid volume", at + format("has volume %.4g m^3 (rest %.4g m^3): ", solid.volume, rest) + collapsed});
  else if (solid.volume > SOLID_VOLUME_GROWTH_LIMIT * rest)
    out.push_back({"solid volume", at + format("has grown to %.3g times its rest volume (%.4g m^3; bound %.3g times)",
                                               solid.volume / rest, rest, SOLID_VOLUME_GROWTH_LIMIT)});
  const Real energy_bound = 0.5 * solid.mass * speed_bound * speed_bound;
  if (!(solid.kinetic_energy <= energy_bound))
    out.push_back({"solid kinetic energy",
                   at + format("has kinetic energy %.4g J, above %.4g J, its %.4g kg moving at ", solid.kinetic_energy,
                               energy_bound, solid.mass) +
                       format("%.4g m/s, the fastest speed the scene's gravity, domain, initial velocities and "
                              "compression explain",
                              speed_bound)});
}

void check_liquid(int frame, Real now, const LiquidVolumes& volumes, Real fastest, Real speed_bound,
                  std::vector<Absurdity>& out) {
  const std::string at = frame_prefix(frame);
  const std::string what = volume_words(volumes.net);
  if (!std::isfinite(now)) {
    out.push_back({"not finite", at + "the liquid volume is not finite"});
    return;
  }
  // The scales the changes are measured against (see LiquidVolumes).
  const Real first = volumes.initial ? *volumes.initial : 0, last = volumes.previous ? *volumes.previous : 0;
  const Real initial_scale = volumes.net ? std::max(first, volumes.measured) : first;
  const Real previous_scale = volumes.net ? std::max(last, volumes.measured) : last;
  if (volumes.initial && initial_scale > 0 && std::abs(now - *volumes.initial) > LIQUID_VOLUME_LOSS_LIMIT * initial_scale)
    out.push_back({"liquid volume", at + what + format(" is %.4g m^3, %+.1f %% from frame 0's %.4g m^3",
                                                now, 100 * (now - *volumes.initial) / initial_scale,
                                                *volumes.initial) +
                                        format(" (bound %.0f %%)", 100 * LIQUID_VOLUME_LOSS_LIMIT)});
  else if (volumes.previous && previous_scale > 0 &&
           std::abs(now - *volumes.previous) > LIQUID_VOLUME_JUMP_LIMIT * previous_scale)
    out.push_back({"liquid volume", at + what + format(" is %.4g m^3, %+.1f %% from the previous frame's %.4g m^3",
                                                now, 100 * (now - *volumes.previous) / previous_scale,
                                                *volumes.previous) +
                                        format(" (bound %.0f %% per frame)", 100 * LIQUID_VOLUME_JUMP_LIMIT)});
  if (!(fastest <= speed_bound))
    out.push_back({"liquid speed", at + format("the liquid moves at %.4g m/s, above %.4g m/s, the fastest speed the "
                                               "scene's gravity, domain, initial velocities and compression explain",
                                               fastest, speed_bound)});
}

void check_fluid_speed(int frame, const char* what, Real fastest, Real speed_bound, std::vector<Absurdity>& out) {
  if (!(fastest <= speed_bound))
    out.push_back({"fluid speed", "frame " + std::to_string(frame) + ": " + what +
                                      format(" moves at %.4g m/s, above %.4g m/s, the fastest speed the "
                                             "scene's gravity, domain, initial velocities and sources explain",
                                             fastest, speed_bound)});
}

std::optional<Real> liquid_books(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("liquid_volume") || !j["liquid_volume"].is_number()) return std::nullopt;
  const auto value = [&j](const char* key) { return j.contains(key) && j[key].is_number() ? j[key].get<Real>() : 0; };
  return value("liquid_volume") - value("liquid_added") + value("liquid_removed");
}

std::optional<Real> last_liquid_volume(const std::string& stats_text) {
  std::size_t end = stats_text.size();
  while (end > 0 && stats_text[end - 1] == '\n') --end;
  if (end == 0) return std::nullopt;
  const std::size_t start = stats_text.rfind('\n', end - 1);
  const std::size_t first = start == std::string::npos ? 0 : start + 1;
  const std::string last = stats_text.substr(first, end - first);
  return liquid_books(nlohmann::json::parse(last, nullptr, /*allow_exceptions=*/false));
}

}  // namespace fsicut::sim
