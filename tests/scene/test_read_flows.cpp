// The keys of liquid that comes and goes (lib/scene/read.cpp): grid/open,
// fluid/sources and fluid/drains, what they read into, their defaults, and
// every refusal with its exit code and JSON pointer.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "lib/scene/fingerprint.hpp"
#include "lib/scene/load.hpp"
#include "tests/scene/fixtures.hpp"
#include "tests/support.hpp"

using namespace fsicut;
using namespace fsicut::scene;

namespace {

const std::string GRID = R"("grid": { "resolution": [8, 8, 8], "cell_size": 0.125)";

Scene parse_flows(const std::string& body) { return parse_scene("{ " + body + " }", "f.json", "/scenes"); }

std::string flows_error(const std::string& body) { return test::scene_error("{ " + body + " }", {}, "f.json"); }

using test::contains;

}  // namespace

TEST_CASE("flow keys: sources, drains and open sides read every key") {
  const Scene s = parse_flows(GRID + R"(, "open": ["+x", "-z"] },
      "fluid": { "sources": [ { "type": "box", "min": [-0.1, 0.5, 0.4], "max": [0.1, 0.6, 0.6],
                                "velocity": [2, 0, 0], "from": 0.5, "until": 1.5 } ],
                 "drains": [ { "type": "sphere", "center": [0.9, 0.1, 0.5], "radius": 0.1, "until": 2 } ] })");
  CHECK(s.grid.open == Sides{false, true, false, false, true, false});
  REQUIRE(s.fluid.sources.size() == 1);
  CHECK(s.fluid.sources[0].velocity == Vec3(2, 0, 0));
  CHECK(s.fluid.sources[0].from == 0.5);
  CHECK(s.fluid.sources[0].until == 1.5);
  CHECK(s.fluid.sources[0].pointer == "/fluid/sources/0");
  REQUIRE(s.fluid.drains.size() == 1);
  CHECK(s.fluid.drains[0].from == 0);
  CHECK(s.fluid.drains[0].until == 2);
  CHECK(has_liquid(s));
}

TEST_CASE("flow keys: the defaults are a closed box with no sources or drains, and the fingerprint is unchanged") {
  const Scene s = parse_flows(GRID + R"( }, "fluid": { "regions": [ { "type": "box", "min": [0, 0, 0], "max": [0.5, 0.5, 0.5] } ] })");
  CHECK(s.grid.open == Sides{});
  CHECK(s.fluid.sources.empty());
  CHECK(s.fluid.drains.empty());
  // Checkpoints of scenes without the keys keep their fingerprint: the keys
  // are written only when they are used.
  const std::string print = fingerprint(s);
  CHECK_FALSE(contains(print, "open"));
  CHECK_FALSE(contains(print, "sources"));
  CHECK_FALSE(contains(print, "drains"));
  const Scene source = parse_flows(GRID + R"( }, "fluid": { "sources": [ { "type": "box", "min": [0, 0, 0], "max": [0.2, 0.2, 0.2] } ] })");
  CHECK(std::isinf(source.fluid.sources[0].until));
  CHECK(has_liquid(source));
  CHECK(fingerprint(source) != fingerprint(parse_flows(GRID + R"( }, "fluid": { "sources": [
      { "type": "box", "min": [0, 0, 0], "max": [0.2, 0.2, 0.2], "velocity": [0, -1, 0] } ] })")));
}

TEST_CASE("flow keys: bad values are refused with the pointer") {
  CHECK(contains(flows_error(GRID + R"(, "open": ["+w"] })"), "f.json: /grid/open/0: unknown side \"+w\""));
  CHECK(contains(flows_error(GRID + R"(, "open": ["+x", "+x"] })"), "/grid/open/1: side \"+x\" is listed twice"));
  CHECK(contains(flows_error(GRID + R"(, "open": "+x" })"), "/grid/open: expected an array of sides"));
  // Motion is an obstacle's or a pinned region's, not a source's.
  CHECK(contains(flows_error(GRID + R"( }, "fluid": { "sources": [
      { "type": "box", "min": [0, 0, 0], "max": [0.2, 0.2, 0.2], "motion": { "sine": { "amplitude": [0.1, 0, 0], "period": 1 } } } ] })"),
                 "/fluid/sources/0"));
  CHECK(contains(flows_error(GRID + R"( }, "fluid": { "sources": [
      { "type": "box", "min": [0, 0, 0], "max": [0.2, 0.2, 0.2], "from": 1, "until": 1 } ] })"),
                 "/fluid/sources/0/until: must be later than from (1 s), got 1"));
  CHECK(contains(flows_error(GRID + R"( }, "fluid": { "drains": [
      { "type": "box", "min": [0, 0, 0], "max": [0.2, 0.2, 0.2], "from": -1 } ] })"),
                 "/fluid/drains/0/from"));
  CHECK(contains(flows_error(GRID + R"( }, "fluid": { "drains": [
      { "type": "box", "min": [0, 0, 0], "max": [0.2, 0.2, 0.2], "velocity": [1, 0, 0] } ] })"),
                 "/fluid/drains/0"));
  CHECK(contains(flows_error(GRID + R"( }, "fluid": { "sources": [
      { "type": "box", "min": [2, 0, 0], "max": [3, 0.2, 0.2] } ] })"),
                 "/fluid/sources/0: lies outside the grid along axis 0"));
  CHECK(contains(flows_error(GRID + R"( }, "fluid": { "kind": "smoke", "sources": [
      { "type": "box", "min": [0, 0, 0], "max": [0.2, 0.2, 0.2] } ] }, "coupling": { "scheme": "eulerian" })"),
                 "/fluid/sources"));
  CHECK(contains(flows_error(GRID + R"(, "open": ["+y"] }, "fluid": { "kind": "smoke" }, "coupling": { "scheme": "eulerian" })"),
                 "/grid/open: open sides are implemented for liquids only"));
}

TEST_CASE("flow keys: a source may cross the box's walls") {
  const Scene s = parse_flows(GRID + R"( }, "fluid": { "sources": [
      { "type": "sphere", "center": [0, 0.5, 0.5], "radius": 0.2, "velocity": [1, 0, 0] } ] })");
  CHECK(s.fluid.sources[0].radius == 0.2);
}
