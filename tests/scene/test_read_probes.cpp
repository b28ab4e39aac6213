// The scene key `probes` (lib/scene/read_probes.hpp): what it reads, the
// errors it names by JSON pointer, and the round trip through to_json.
#include <doctest/doctest.h>

#include <string>

#include "lib/core/error.hpp"
#include "lib/scene/load.hpp"
#include "tests/scene/fixtures.hpp"

using namespace fsicut;
using namespace fsicut::scene;

namespace {

std::string with_probes(const std::string& probes) {
  return R"({ "grid": { "resolution": [8, 8, 8], "cell_size": 0.125 },
    "solids": [ { "name": "gate", "mesh": { "type": "box", "min": [0.4, 0, 0.4], "max": [0.5, 0.5, 0.6] } } ],
    "probes": )" + probes + " }";
}

std::string error_of(const std::string& probes) { return test::scene_error(with_probes(probes)); }

}  // namespace

TEST_CASE("probes: pressure and gauge and point probes are read - a gauge given as x and z spans the grid height") {
  const Scene s = parse_scene(with_probes(R"([
      { "name": "p1", "type": "pressure", "position": [0.9, 0.1, 0.5] },
      { "name": "g1", "type": "gauge", "position": [0.2, 0.3] },
      { "name": "g2", "type": "gauge", "position": [[0.7, 0.1, 0.2], [0.7, 0.6, 0.2]] },
      { "name": "tip", "type": "point", "solid": "gate", "position": [0.45, 0.5, 0.5] } ])"),
                              "test.json", "/scenes");
  REQUIRE(s.probes.size() == 4);
  CHECK(s.probes[0].type == Probe::Type::pressure);
  CHECK(s.probes[0].position == Vec3(0.9, 0.1, 0.5));
  CHECK(s.probes[1].type == Probe::Type::gauge);
  CHECK(s.probes[1].position == Vec3(0.2, 0, 0.3));
  CHECK(s.probes[1].top == 1.0);
  CHECK(s.probes[2].position == Vec3(0.7, 0.1, 0.2));
  CHECK(s.probes[2].top == 0.6);
  CHECK(s.probes[3].solid == "gate");
  CHECK(s.probes[3].pointer == "/probes/3");
  // to_json writes what loads back to the same probes.
  const Scene back = parse_scene(to_json(s), "test.json", "/scenes");
  REQUIRE(back.probes.size() == 4);
  for (std::size_t i = 0; i < 4; ++i) {
    CHECK(back.probes[i].name == s.probes[i].name);
    CHECK(back.probes[i].type == s.probes[i].type);
    CHECK(back.probes[i].position == s.probes[i].position);
    CHECK(back.probes[i].top == s.probes[i].top);
    CHECK(back.probes[i].solid == s.probes[i].solid);
  }
}

TEST_CASE("probes: mistakes are named by their JSON pointer") {
  CHECK(error_of(R"([ { "name": "a", "type": "pressure", "position": [0, 0, 0], "radius": 1 } ])") ==
        "test.json: /probes/0/radius: unknown key \"radius\"");
  CHECK(error_of(R"([ { "name": "a", "type": "thermometer", "position": [0, 0, 0] } ])").find("/probes/0/type") !=
        std::string::npos);
  CHECK(error_of(R"([ { "name": "a", "position": [0, 0, 0] } ])") ==
        "test.json: /probes/0: missing required key \"type\"");
  CHECK(error_of(R"([ { "name": "a", "type": "pressure" } ])") ==
        "test.json: /probes/0: missing required key \"position\"");
  CHECK(error_of(R"([ { "name": "a.b", "type": "pressure", "position": [0, 0, 0] } ])") ==
        "test.json: /probes/0/name: \"a.b\" names columns of probes.csv: use letters, digits, '_' and '-' only");
  CHECK(error_of(R"([ { "name": "time", "type": "pressure", "position": [0, 0, 0] } ])") ==
        "test.json: /probes/0/name: \"time\" is the first column of probes.csv");
  CHECK(error_of(R"([ { "name": "a", "type": "pressure", "position": [0, 0, 0] },
                      { "name": "a", "type": "gauge", "position": [0, 0] } ])") ==
        "test.json: /probes/1/name: duplicate probe name \"a\" (also /probes/0)");
  CHECK(error_of(R"([ { "name": "g", "type": "gauge", "position": [[0, 0, 0], [0.1, 1, 0]] } ])") ==
        "test.json: /probes/0/position: a gauge's segment must be vertical: both ends need the same x and z");
  CHECK(error_of(R"([ { "name": "g", "type": "gauge", "position": [[0, 1, 0], [0, 0.5, 0]] } ])") ==
        "test.json: /probes/0/position/1/1: the segment's second end must lie above its first (y1 > y0)");
  CHECK(error_of(R"([ { "name": "g", "type": "gauge", "position": [1, 2, 3] } ])") ==
        "test.json: /probes/0/position: expected [x, z] or a vertical segment [[x, y0, z], [x, y1, z]], got an array");
  CHECK(error_of(R"([ { "name": "t", "type": "point", "position": [0, 0, 0] } ])") ==
        "test.json: /probes/0: missing required key \"solid\"");
  CHECK(error_of(R"([ { "name": "t", "type": "point", "solid": "door", "position": [0, 0, 0] } ])") ==
        "test.json: /probes/0/solid: no solid is named \"door\"");
  CHECK(error_of(R"({ "name": "a" })").find("/probes: expected an array") != std::string::npos);
  // Outside the grid (0 .. 1 on every axis) a probe reads nothing: refused.
  CHECK(error_of(R"([ { "name": "p", "type": "pressure", "position": [0.5, 1.2, 0.5] } ])") ==
        "test.json: /probes/0/position: lies outside the grid [0 0 0] - [1 1 1] along axis 1: a probe there reads "
        "nothing");
  CHECK(error_of(R"([ { "name": "g", "type": "gauge", "position": [-0.1, 0.5] } ])").find(
            "/probes/0/position: lies outside the grid [0 0 0] - [1 1 1] along axis 0") != std::string::npos);
  CHECK(error_of(R"([ { "name": "g", "type": "gauge", "position": [[0.5, 1.5, 0.5], [0.5, 2, 0.5]] } ])")
            .find("/probes/0/position: lies outside the grid [0 0 0] - [1 1 1] along axis 1") != std::string::npos);
  // A segment reaching into the grid from below or above reads its part.
  CHECK(error_of(R"([ { "name": "g", "type": "gauge", "position": [[0.5, -1, 0.5], [0.5, 0.5, 0.5]] } ])").empty());
}
