// The absurd-result rules shared by the simulators (lib/sim/absurd.hpp): each
// bound just below and just above, volumes that are not positive or not finite,
// the kind of each finding and messages that name the frame and the solid, and
// the previous frame's liquid volume read back from a stats.jsonl text.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "lib/scene/load.hpp"
#include "lib/sim/absurd.hpp"
#include "lib/sim/cutcell/simulator.hpp"
#include "lib/sim/from_scene.hpp"

using namespace fsicut;

namespace {

constexpr Real NAN_VALUE = std::numeric_limits<Real>::quiet_NaN();
constexpr Real INF = std::numeric_limits<Real>::infinity();
// Relative steps around a bound: far above round-off of the products below,
// far below anything the rules should tolerate.
constexpr Real BELOW = 1 - 1e-9, ABOVE = 1 + 1e-9;

// A solid of rest volume 2 m^3 and 3 kg.
sim::SolidFigures solid(Real volume, Real kinetic_energy = 0) { return {"cube", volume, 2.0, kinetic_energy, 3.0}; }

std::vector<sim::Absurdity> check_solid(Real volume, Real kinetic_energy = 0, Real speed_bound = 4) {
  std::vector<sim::Absurdity> out;
  sim::check_solid(12, solid(volume, kinetic_energy), "turned inside out", speed_bound, out);
  return out;
}

std::vector<sim::Absurdity> check_liquid(Real now, std::optional<Real> initial, std::optional<Real> previous,
                                         Real fastest = 0, Real speed_bound = 5) {
  std::vector<sim::Absurdity> out;
  sim::check_liquid(9, now, sim::LiquidVolumes{initial, previous, std::nullopt}, fastest, speed_bound, out);
  return out;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("absurd: frame_prefix and solid_prefix start every message") {
  CHECK(sim::frame_prefix(0) == "frame 0: ");
  CHECK(sim::frame_prefix(1234) == "frame 1234: ");
  CHECK(sim::solid_prefix(7, "jelly") == "frame 7: solid \"jelly\" ");
}

TEST_CASE("absurd: a solid's volume up to SOLID_VOLUME_GROWTH_LIMIT times its rest volume is not absurd - above it is") {
  const Real limit = sim::SOLID_VOLUME_GROWTH_LIMIT * 2.0;
  CHECK(check_solid(2.0).empty());
  CHECK(check_solid(limit * BELOW).empty());
  CHECK(check_solid(limit).empty());  // the bound itself is allowed
  const std::vector<sim::Absurdity> found = check_solid(limit * ABOVE);
  REQUIRE(found.size() == 1);
  CHECK(found[0].kind == "solid volume");
  CHECK(found[0].message.rfind("frame 12: solid \"cube\" ", 0) == 0);
  CHECK(contains(found[0].message, "grown to 3 times its rest volume"));
  CHECK(contains(found[0].message, "bound 3 times"));
}

TEST_CASE("absurd: a solid's volume that is not positive or not finite is absurd and says what it means") {
  // A tiny positive volume is allowed: some scenes start far compressed.
  CHECK(check_solid(1e-12).empty());
  for (Real volume : {0.0, -1e-12, -2.0, NAN_VALUE}) {
    CAPTURE(volume);
    const std::vector<sim::Absurdity> found = check_solid(volume);
    REQUIRE(found.size() == 1);
    CHECK(found[0].kind == "solid volume");
    CHECK(found[0].message.rfind(sim::solid_prefix(12, "cube"), 0) == 0);
    CHECK(contains(found[0].message, "rest 2 m^3"));
    CHECK(contains(found[0].message, "turned inside out"));
  }
  const std::vector<sim::Absurdity> infinite = check_solid(INF);
  REQUIRE(infinite.size() == 1);
  CHECK(infinite[0].kind == "solid volume");
  CHECK(contains(infinite[0].message, "grown to inf times"));
  // The collapse text is the caller's (an Eulerian solid loses its material instead).
  std::vector<sim::Absurdity> eulerian;
  sim::check_solid(3, {"ball", 0.0, 1.0, 0.0, 1.0}, "no material left on the grid", 1, eulerian);
  REQUIRE(eulerian.size() == 1);
  CHECK(contains(eulerian[0].message, "frame 3: solid \"ball\" has volume 0 m^3 (rest 1 m^3): no material left"));
}

TEST_CASE("absurd: a solid's kinetic energy up to 1/2 m v_b^2 is not absurd - above it or not finite it is") {
  // m = 3 kg, v_b = 4 m/s: 24 J.
  const Real bound = 0.5 * 3.0 * 4.0 * 4.0;
  CHECK(check_solid(2.0, bound * BELOW).empty());
  CHECK(check_solid(2.0, bound).empty());
  for (Real energy : {bound * ABOVE, INF, NAN_VALUE}) {
    CAPTURE(energy);
    const std::vector<sim::Absurdity> found = check_solid(2.0, energy);
    REQUIRE(found.size() == 1);
    CHECK(found[0].kind == "solid kinetic energy");
    CHECK(found[0].message.rfind("frame 12: solid \"cube\" ", 0) == 0);
    CHECK(contains(found[0].message, "above 24 J"));
    CHECK(contains(found[0].message, "its 3 kg moving at 4 m/s"));
  }
  // Both rules at once: one finding per kind, volume first.
  const std::vector<sim::Absurdity> both = check_solid(-1, bound * 2);
  REQUIRE(both.size() == 2);
  CHECK(both[0].kind == "solid volume");
  CHECK(both[1].kind == "solid kinetic energy");
}

TEST_CASE("absurd: the liquid volume within LIQUID_VOLUME_LOSS_LIMIT of frame 0's is not absurd - beyond it either way it is") {
  const Real initial = 4.0, limit = sim::LIQUID_VOLUME_LOSS_LIMIT * initial;
  for (Real sign : {-1.0, 1.0}) {
    CAPTURE(sign);
    CHECK(check_liquid(initial + sign * limit * BELOW, initial, std::nullopt).empty());
    const std::vector<sim::Absurdity> found = check_liquid(initial + sign * limit * ABOVE, initial, std::nullopt);
    REQUIRE(found.size() == 1);
    CHECK(found[0].kind == "liquid volume");
    CHECK(found[0].message.rfind("frame 9: the liquid volume is ", 0) == 0);
    CHECK(contains(found[0].message, sign < 0 ? "-50.0 % from frame 0's 4 m^3" : "+50.0 % from frame 0's 4 m^3"));
    CHECK(contains(found[0].message, "(bound 50 %)"));
  }
  // No reference (no liquid at frame 0, or not known): nothing to compare.
  CHECK(check_liquid(100.0, std::nullopt, std::nullopt).empty());
  CHECK(check_liquid(100.0, 0.0, std::nullopt).empty());
}

TEST_CASE("absurd: the liquid volume changing by up to LIQUID_VOLUME_JUMP_LIMIT in a frame is not absurd - more is") {
  // Within frame 0's bound throughout (initial 1 m^3, now 1.2 m^3 at most).
  const Real previous = 0.96, limit = sim::LIQUID_VOLUME_JUMP_LIMIT * previous;
  for (Real sign : {-1.0, 1.0}) {
    CAPTURE(sign);
    CHECK(check_liquid(previous + sign * limit * BELOW, 1.0, previous).empty());
    const std::vector<sim::Absurdity> found = check_liquid(previous + sign * limit * ABOVE, 1.0, previous);
    REQUIRE(found.size() == 1);
    CHECK(found[0].kind == "liquid volume");
    CHECK(contains(found[0].message, "from the previous frame's 0.96 m^3"));
    CHECK(contains(found[0].message, "(bound 25 % per frame)"));
  }
  // Without frame 0's volume the jump alone still counts.
  CHECK(check_liquid(2.0, std::nullopt, 1.0).size() == 1);
  // Past both bounds: one finding, against frame 0's.
  const std::vector<sim::Absurdity> both = check_liquid(0.1, 1.0, 1.0);
  REQUIRE(both.size() == 1);
  CHECK(contains(both[0].message, "frame 0's"));
}

TEST_CASE("absurd: a liquid volume that is not finite is its own kind and ends the liquid's checks") {
  for (Real now : {NAN_VALUE, INF, -INF}) {
    CAPTURE(now);
    const std::vector<sim::Absurdity> found = check_liquid(now, 1.0, 1.0, /*fastest=*/1e9, /*speed_bound=*/1);
    REQUIRE(found.size() == 1);
    CHECK(found[0].kind == "not finite");
    CHECK(found[0].message == "frame 9: the liquid volume is not finite");
  }
}

TEST_CASE("absurd: the fastest liquid face up to the velocity bound is not absurd - above it or NaN it is") {
  const Real bound = 5;
  CHECK(check_liquid(1.0, 1.0, 1.0, bound * BELOW, bound).empty());
  CHECK(check_liquid(1.0, 1.0, 1.0, bound, bound).empty());
  for (Real fastest : {bound * ABOVE, INF, NAN_VALUE}) {
    CAPTURE(fastest);
    const std::vector<sim::Absurdity> found = check_liquid(1.0, 1.0, 1.0, fastest, bound);
    REQUIRE(found.size() == 1);
    CHECK(found[0].kind == "liquid speed");
    CHECK(found[0].message.rfind("frame 9: the liquid moves at ", 0) == 0);
    CHECK(contains(found[0].message, "above 5 m/s"));
  }
  // Volume and speed at once: both, volume first.
  const std::vector<sim::Absurdity> both = check_liquid(3.0, 1.0, 1.0, 2 * bound, bound);
  REQUIRE(both.size() == 2);
  CHECK(both[0].kind == "liquid volume");
  CHECK(both[1].kind == "liquid speed");
}

TEST_CASE("absurd: check_fluid_speed names the fluid and the frame - up to the bound is not absurd") {
  std::vector<sim::Absurdity> out;
  sim::check_fluid_speed(4, "the smoke", 2.0 * BELOW, 2.0, out);
  sim::check_fluid_speed(4, "the smoke", 2.0, 2.0, out);
  CHECK(out.empty());
  for (Real fastest : {2.0 * ABOVE, NAN_VALUE}) {
    out.clear();
    sim::check_fluid_speed(4, "the smoke", fastest, 2.0, out);
    REQUIRE(out.size() == 1);
    CHECK(out[0].kind == "fluid speed");
    CHECK(out[0].message.rfind("frame 4: the smoke moves at ", 0) == 0);
    CHECK(contains(out[0].message, "above 2 m/s"));
  }
}

TEST_CASE("absurd: last_liquid_volume reads the last line - trailing newlines - empty text - a malformed last line") {
  const std::string two = R"({"frame":0,"liquid_volume":0.5})"
                          "\n"
                          R"({"frame":1,"liquid_volume":0.25})";
  CHECK(sim::last_liquid_volume(two) == Real(0.25));
  CHECK(sim::last_liquid_volume(two + "\n") == Real(0.25));
  CHECK(sim::last_liquid_volume(two + "\n\n\n") == Real(0.25));
  CHECK(sim::last_liquid_volume(R"({"liquid_volume":3})") == Real(3));
  CHECK_FALSE(sim::last_liquid_volume(""));
  CHECK_FALSE(sim::last_liquid_volume("\n"));
  CHECK_FALSE(sim::last_liquid_volume("\n\n"));
  // A malformed last line (a run killed while writing it) gives nothing, not
  // the line before it.
  CHECK_FALSE(sim::last_liquid_volume(two + "\n" + R"({"frame":2,"liquid_vol)"));
  CHECK_FALSE(sim::last_liquid_volume(two + "\n" + R"({"frame":2})"));
  CHECK_FALSE(sim::last_liquid_volume(two + "\n" + R"({"frame":2,"liquid_volume":"much"})"));
  CHECK_FALSE(sim::last_liquid_volume(two + "\n" + R"([1, 2])"));
}

TEST_CASE("absurd: the cut-cell simulator applies the rules to its solids with the scene's velocity bound") {
  // A free block of 0.5 x 0.25 x 0.25 m at rest, no liquid.
  sim::CutCellSimulator s(scene::parse_scene(R"({
    "grid": { "resolution": [8, 8, 8], "cell_size": 0.125 },
    "solids": [ { "name": "block", "mesh": { "type": "box", "min": [0.25, 0.25, 0.25], "max": [0.75, 0.5, 0.5],
                  "cells": [2, 1, 1] }, "density": 1000, "youngs_modulus": 1e5 } ] })",
                                             "test.json", "."));
  s.frame = 5;
  CHECK(s.absurdities({}).empty());
  const Real bound = sim::velocity_bound(s.scene);
  REQUIRE(bound > 0);
  solid::Body& b = s.solids[0];
  // Every node moving at just below the bound: 1/2 m v^2 just below 1/2 m v_b^2.
  b.v.setZero();
  b.v.row(0).setConstant(bound * (1 - 1e-6));
  CHECK(s.absurdities({}).empty());
  b.v.row(0).setConstant(bound * (1 + 1e-6));
  std::vector<sim::Absurdity> found = s.absurdities({});
  REQUIRE(found.size() == 1);
  CHECK(found[0].kind == "solid kinetic energy");
  CHECK(found[0].message.rfind("frame 5: solid \"block\" ", 0) == 0);
  b.v.setZero();
  // Stretched by 1.5 along every axis about its corner: 3.375 times its rest volume.
  const Vec3 corner(0.25, 0.25, 0.25);
  const Points rest = b.x;
  for (Index i = 0; i < b.x.cols(); ++i) b.x.col(i) = corner + 1.5 * (rest.col(i) - corner);
  found = s.absurdities({});
  REQUIRE(found.size() == 1);
  CHECK(found[0].kind == "solid volume");
  CHECK(contains(found[0].message, "grown to 3.3"));
  // Turned inside out: mirrored through the plane x = 0.25.
  for (Index i = 0; i < b.x.cols(); ++i) b.x(0, i) = 0.5 - rest(0, i);
  found = s.absurdities({});
  REQUIRE(found.size() == 1);
  CHECK(found[0].kind == "solid volume");
  CHECK(contains(found[0].message, "turned inside out"));
  b.x = rest;
  b.x(1, 0) = NAN_VALUE;
  found = s.absurdities({});
  REQUIRE(found.size() == 1);
  CHECK(found[0].kind == "not finite");
  CHECK(found[0].message == "frame 5: solid \"block\" has a position or velocity that is not finite");
}
