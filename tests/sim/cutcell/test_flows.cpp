// Sources, drains and open sides in the cut-cell simulator
// (lib/sim/cutcell/flows.hpp), stepped through sim::advance_frame as fsicut
// steps them: the inflow rate of a faucet against A v t, the books of a
// drained tank and of a dam break through an open side, and the refusal of a
// source that starts inside a solid.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "lib/core/error.hpp"
#include "lib/scene/load.hpp"
#include "lib/sim/advance.hpp"
#include "lib/sim/cutcell/simulator.hpp"
#include "tests/support.hpp"

using namespace fsicut;

namespace {

scene::Scene parse_flow_scene(const std::string& text) { return scene::parse_scene(text, "flows.json", "."); }

// Frame k's liquid volume, and the books' terms, after each frame.
struct Books {
  std::vector<Real> volume, added, removed;
};

Books run_frames(sim::CutCellSimulator& s, int frames) {
  Books b;
  b.volume.push_back(*s.liquid_volume());
  b.added.push_back(s.flows.added);
  b.removed.push_back(s.flows.removed);
  for (int f = 1; f <= frames; ++f) {
    sim::FrameStats tally;
    StageTimes times;
    REQUIRE(sim::advance_frame(s, tally, times));
    b.volume.push_back(*s.liquid_volume());
    b.added.push_back(s.flows.added);
    b.removed.push_back(s.flows.removed);
  }
  return b;
}

// liquid_volume + liquid_removed within 1 % of frame 0's volume at every frame.
void check_books(const Books& b) {
  for (std::size_t f = 0; f < b.volume.size(); ++f)
    CHECK(std::abs(b.volume[f] + b.removed[f] - b.volume[0]) <= 0.01 * b.volume[0]);
  MESSAGE("removed " << b.removed.back() << " of " << b.volume[0] << " m^3");
}

// A tank 0.5 x 0.6 x 0.5 m (cells of 2.5 cm) with a faucet: a box source of
// 0.1 x 0.1 m cross-section 0.1 m below the top, pouring down at 1 m/s.
const char* FAUCET = R"({
  "grid": { "resolution": [20, 24, 20], "cell_size": 0.025 },
  "time": { "fps": 30 },
  "fluid": { "sources": [ { "type": "box", "min": [0.2, 0.45, 0.2], "max": [0.3, 0.5, 0.3], "velocity": [0, -1, 0] } ] } })";

}  // namespace

TEST_CASE("flows: a faucet pours A v t into a tank, and liquid_added agrees with the measured volume") {
  sim::CutCellSimulator s(parse_flow_scene(FAUCET));
  REQUIRE(s.liquid);
  CHECK(*s.liquid_volume() == 0);
  const int frames = 30;
  const Books b = run_frames(s, frames);
  // From frame 3 on (the source's own volume filled, the jet down): A v t.
  const Real area = 0.1 * 0.1, speed = 1, span = (frames - 3) / 30.0;
  const Real poured = b.volume[frames] - b.volume[3];
  MESSAGE("poured " << poured << " m^3 in " << span << " s; A v t = " << area * speed * span);
  CHECK(poured == doctest::Approx(area * speed * span).epsilon(0.02));
  MESSAGE("liquid_added " << b.added[frames] << " m^3, measured volume " << b.volume[frames]);
  CHECK(b.added[frames] == doctest::Approx(b.volume[frames]).epsilon(0.01));
  CHECK(b.removed[frames] == 0);
}

TEST_CASE("flows: a source across the -x wall pours A v t in through the wall") {
  // A tank 0.6 x 0.3 x 0.2 m; the source spans its width over the bottom
  // 0.1 m and reaches 5 cm behind the wall: 0.02 m^2 at 0.5 m/s.
  sim::CutCellSimulator s(parse_flow_scene(R"({
    "grid": { "resolution": [24, 12, 8], "cell_size": 0.025 },
    "time": { "fps": 30 },
    "fluid": { "sources": [ { "type": "box", "min": [-0.05, 0, 0], "max": [0.1, 0.1, 0.2], "velocity": [0.5, 0, 0] } ] } })"));
  const int frames = 30;
  const Books b = run_frames(s, frames);
  const Real span = (frames - 3) / 30.0, expected = 0.1 * 0.2 * 0.5 * span;
  const Real poured = b.volume[frames] - b.volume[3];
  MESSAGE("poured " << poured << " m^3 in " << span << " s through the wall; A v t = " << expected);
  CHECK(poured == doctest::Approx(expected).epsilon(0.02));
  CHECK(b.added[frames] == doctest::Approx(b.volume[frames]).epsilon(0.01));
  for (Index p = 0; p < s.liquid->particles.cols(); ++p) REQUIRE(s.liquid->particles(0, p) >= 0);
}

TEST_CASE("flows: a drained tank keeps its books, liquid_volume + liquid_removed within 1 % of frame 0's") {
  sim::CutCellSimulator s(parse_flow_scene(R"({
    "grid": { "resolution": [20, 16, 20], "cell_size": 0.025 },
    "time": { "fps": 30 },
    "fluid": { "regions": [ { "type": "box", "min": [0, 0, 0], "max": [0.5, 0.2, 0.5] } ],
               "drains": [ { "type": "box", "min": [0.2, 0, 0.2], "max": [0.3, 0.05, 0.3] } ] } })"));
  const int frames = 60;
  const Books b = run_frames(s, frames);
  check_books(b);
  CHECK(b.removed[frames] > 0.2 * b.volume[0]);
  CHECK(b.added[frames] == 0);
}

TEST_CASE("flows: a dam break through an open side keeps its books, and what left does not come back") {
  sim::CutCellSimulator s(parse_flow_scene(R"({
    "grid": { "resolution": [32, 12, 8], "cell_size": 0.025, "open": ["+x"] },
    "time": { "fps": 30 },
    "fluid": { "regions": [ { "type": "box", "min": [0, 0, 0], "max": [0.2, 0.25, 0.2] } ] } })"));
  const int frames = 60;
  const Books b = run_frames(s, frames);
  check_books(b);
  CHECK(b.removed[frames] > 0.3 * b.volume[0]);
  // Nothing flows back in: the volume never grows by more than the
  // measurement's own noise (0.5 % of frame 0's) from one frame to the next.
  for (int f = 1; f <= frames; ++f) CHECK(b.volume[f] <= b.volume[f - 1] + 0.005 * b.volume[0]);
}

TEST_CASE("flows: a source that starts inside a solid is refused with its pointer") {
  const std::string text = R"({
    "grid": { "resolution": [8, 8, 8], "cell_size": 0.125 },
    "fluid": { "sources": [ { "type": "box", "min": [0.4, 0.4, 0.4], "max": [0.6, 0.6, 0.6] } ] },
    "solids": [ { "name": "block", "mesh": { "type": "box", "min": [0.25, 0.25, 0.25], "max": [0.75, 0.75, 0.75] } } ] })";
  try {
    const sim::CutCellSimulator s(parse_flow_scene(text));
    FAIL("no error");
  } catch (const SceneError& e) {
    CHECK(test::contains(e.what(), "/fluid/sources/0: overlaps solid \"block\""));
    CHECK(e.code() == ExitCode::data);
  }
}
