#pragma once
// Results no physics explains, checked at every frame's end by the frame loop
// (run.hpp). By default (scene key `on_absurd`: "stop") the first absurd frame
// is written, then the run stops with exit 70 naming what went wrong and the
// frame; "warn" warns once per kind and goes on, for studies that want to see
// a scheme go wrong (the paper's stability comparison).
//
// Absurd, with the bounds measured against the shipped scenes (the largest
// value any of them reaches in parentheses):
//   - a solid's volume (the sum of its signed tet volumes) not positive: the
//     solid as a whole has turned inside out (scenes: at least 0.996 of the
//     initial volume; spring_cube and the compressibility test start at
//     1/8 and 1/10 of their rest volume, so no positive floor is safe);
//   - a solid's volume above SOLID_VOLUME_GROWTH_LIMIT times its rest volume
//     (scenes: 1.02);
//   - a solid's kinetic energy above 1/2 m v_b^2, m its mass and v_b the
//     scene's velocity bound (from_scene.hpp: 10 times the speed its energy
//     sources explain): its nodes' root-mean-square speed is past that bound
//     (scenes: at most 1e-4 of it);
//   - the fastest liquid face above the velocity bound (scenes: 0.1 of it);
//   - the liquid volume more than LIQUID_VOLUME_LOSS_LIMIT away from frame 0's
//     or changed by more than LIQUID_VOLUME_JUMP_LIMIT since the previous
//     frame (scenes: 4.2 % and 4.7 %);
//   - a solid position or velocity that is not finite;
//   - Eulerian solids (coupling/scheme eulerian) the same by their measures
//     (eulerian/measure.hpp): volume not positive or above
//     SOLID_VOLUME_GROWTH_LIMIT times the material volume they started with,
//     kinetic energy past the bound, u or v not finite; the smoke's fastest
//     node past the velocity bound (scenes: Eulerian solids within 1.03 of
//     their volume, the smoke at most 0.07 of the bound, in eulerian_cheb).
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "lib/core/types.hpp"

namespace fsicut::sim {

// A solid this many times its rest volume is being pulled apart by nothing a
// scene holds: tension from pins and gravity stretches along one axis, where
// volume grows like stretch^(1 - 2 nu) (3 times needs a 15-fold stretch at
// nu = 0.3), and equal stretch every way needs 44 % per axis.
inline constexpr Real SOLID_VOLUME_GROWTH_LIMIT = 3;
// Relative change of the liquid volume from frame 0: five times the drift
// that already warns (run.hpp). The method loses or gains a few % (particles
// cluster, splashes thin out below a cell); half the liquid is not that.
inline constexpr Real LIQUID_VOLUME_LOSS_LIMIT = 0.5;
// Relative change of the liquid volume over one frame: five times the largest
// per-frame change of the shipped scenes.
inline constexpr Real LIQUID_VOLUME_JUMP_LIMIT = 0.25;

// One absurd finding: `kind` names the rule (for warning once per kind),
// `message` says what, where and how far past the bound, with the frame.
struct Absurdity {
  std::string kind;
  std::string message;
};

// The liquid volumes an absurdity test compares with [m^3]: frame 0's and
// the previous frame's (none: no liquid, or not known), and this frame's when
// the caller has measured it already (none: the simulator measures it,
// Simulator::liquid_volume, which beside thin walls measures the split cells'
// regions).
// With sources, drains or open sides (sim/cutcell/flows.hpp) these are the
// liquid's books, liquid_volume - liquid_added + liquid_removed (liquid_books),
// and `net` says so: what the scene let in and out is accounted, not lost.
// The rules then measure a change against the liquid there is, `measured`
// (this frame's liquid_volume) when that is more: a tank a faucet fills
// starts with books of 0, and their noise is no loss.
struct LiquidVolumes {
  std::optional<Real> initial;
  std::optional<Real> previous;
  std::optional<Real> now;
  bool net = false;
  Real measured = 0;
};

// The rules above, shared by the simulators (Simulator::absurdities lists a
// state's findings in the order of the list above, at most one per kind and
// solid). `frame` is the frame the findings are at.

// A solid's measures: its volume and the volume it started with [m^3], its
// kinetic energy [J] and mass [kg]; `collapsed` says what a volume that is not
// positive means for it ("turned inside out").
struct SolidFigures {
  std::string name;
  Real volume = 0, rest_volume = 0;
  Real kinetic_energy = 0, mass = 0;
};
void check_solid(int frame, const SolidFigures& solid, const char* collapsed, Real speed_bound,
                 std::vector<Absurdity>& out);

// The liquid: its volume now [m^3] against `volumes`, its fastest face [m/s].
void check_liquid(int frame, Real volume, const LiquidVolumes& volumes, Real fastest, Real speed_bound,
                  std::vector<Absurdity>& out);

// A fluid's fastest speed [m/s] (`what`: "the smoke"), whose energy comes
// from the sources as well.
void check_fluid_speed(int frame, const char* what, Real fastest, Real speed_bound, std::vector<Absurdity>& out);

// "frame F: solid "NAME" " or "frame F: ", how every message starts.
std::string frame_prefix(int frame);
std::string solid_prefix(int frame, const std::string& name);

// A stats record's liquid books [m^3]: liquid_volume - liquid_added +
// liquid_removed (keys that are absent count 0), what stays at frame 0's
// volume when nothing is lost or made; none without liquid_volume.
std::optional<Real> liquid_books(const nlohmann::json& record);

// The liquid_books of the last line of a stats.jsonl text, if any: the
// previous frame's, for a resumed run.
std::optional<Real> last_liquid_volume(const std::string& stats_text);

}  // namespace fsicut::sim
