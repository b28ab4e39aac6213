#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "lib/core/error.hpp"
#include "lib/scene/load.hpp"
#include "tests/scene/fixtures.hpp"
#include "tests/support.hpp"

using namespace fsicut;
using namespace fsicut::scene;

namespace {

const char* MINIMAL = R"({ "grid": { "resolution": [8, 8, 8], "cell_size": 0.125 } })";

Scene parse(const std::string& text, const std::vector<Override>& overrides = {}) {
  return parse_scene(text, "test.json", "/scenes", overrides);
}

// The message of the SceneError that parsing `text` throws ("" if none).
std::string error_of(const std::string& text, const std::vector<Override>& overrides = {}) {
  return test::scene_error(text, overrides);
}

using test::contains;

}  // namespace

TEST_CASE("a minimal scene takes the documented defaults") {
  const Scene s = parse(MINIMAL);
  CHECK(s.grid.resolution == Vec3i(8, 8, 8));
  CHECK(s.grid.cell_size == 0.125);
  CHECK(s.grid.origin == Vec3::Zero());
  CHECK(s.time.fps == 30);
  CHECK(s.time.frames == 120);
  CHECK(s.time.cfl == 1.0);
  CHECK(s.time.max_substeps == 50);
  CHECK(s.gravity == Vec3(0, -9.81, 0));
  CHECK(s.fluid.density == 1000);
  CHECK(s.fluid.particles_per_cell == 8);
  CHECK(s.fluid.viscosity == 0);
  CHECK(s.coupling.scheme == Coupling::Scheme::spd);
  CHECK(s.coupling.preconditioner == Coupling::Preconditioner::multigrid);
  CHECK(s.coupling.sigma == 0.9);
  CHECK(s.coupling.alpha == 1e-3);
  CHECK_FALSE(s.coupling.alpha_auto);
  CHECK(s.coupling.tolerance == 1e-10);
  CHECK(s.output.directory == "/scenes/out");
  CHECK(s.output.checkpoint_every == 10);
}

TEST_CASE("comments are allowed - syntax errors report line and column") {
  CHECK_NOTHROW(parse("// a comment\n{ /* block */ \"grid\": {\"resolution\": [8,8,8], \"cell_size\": 0.1} }"));
  const std::string e = error_of("{\n  \"grid\": {\n    \"resolution\": [8, 8, 8],,\n  }\n}");
  MESSAGE(e);
  CHECK(contains(e, "test.json:3:"));
  CHECK(contains(e, "syntax error"));
}

TEST_CASE("unknown keys are errors with a did-you-mean suggestion and the JSON pointer") {
  const std::string e = error_of(R"({ "grid": { "resolution": [8,8,8], "cell_size": 0.1, "orgin": [0,0,0] } })");
  MESSAGE(e);
  CHECK(contains(e, "test.json: /grid/orgin: unknown key \"orgin\" (did you mean \"origin\"?)"));
  const std::string top = error_of(R"({ "grid": { "resolution": [8,8,8], "cell_size": 0.1 }, "solid": [] })");
  CHECK(contains(top, "/solid: unknown key \"solid\" (did you mean \"solids\"?)"));
}

TEST_CASE("types and ranges are checked, errors point at the value") {
  const std::string base = R"({ "grid": { "resolution": [8,8,8], "cell_size": 0.1 }, )";
  CHECK(contains(error_of(base + R"("time": { "fps": "thirty" } })"), "/time/fps: expected a number, got a string"));
  CHECK(contains(error_of(base + R"("time": { "frames": 2.5 } })"), "/time/frames: expected an integer"));
  CHECK(contains(error_of(base + R"("gravity": [0, -9.81] })"), "/gravity: expected an array of 3 numbers"));
  CHECK(contains(error_of(R"({ "grid": { "resolution": [8,0,8], "cell_size": 0.1 } })"), "/grid/resolution/1: must be >= 1"));
  CHECK(contains(error_of(R"({ "grid": { "resolution": [8,8,8] } })"), "(root)") == false);
  CHECK(contains(error_of(R"({ "grid": { "resolution": [8,8,8] } })"), "/grid: missing required key \"cell_size\""));
  const std::string solid = base + R"("solids": [ { "name": "b", "mesh": { "type": "box", "min": [0,0,0], "max": [0.2,0.2,0.2] }, )";
  CHECK(contains(error_of(solid + R"("density": -5 } ] })"), "/solids/0/density: must be > 0"));
  CHECK(contains(error_of(solid + R"("poisson_ratio": 0.5 } ] })"), "/solids/0/poisson_ratio: must be in [0, 0.5)"));
  CHECK(contains(error_of(solid + R"("damping": { "mas": 1 } } ] })"), "/solids/0/damping/mas: unknown key \"mas\" (did you mean \"mass\"?)"));
  CHECK(contains(error_of(base + R"("coupling": { "scheme": "spdd" } })"), "/coupling/scheme: unknown scheme \"spdd\""));
  CHECK(contains(error_of(base + R"("coupling": { "preconditioner": "amg" } })"),
                 "/coupling/preconditioner: unknown preconditioner \"amg\""));
  CHECK(contains(error_of(base + R"("coupling": { "alpha": "automatic" } })"), "/coupling/alpha: expected a positive number or \"auto\""));
  CHECK(contains(error_of(base + R"("coupling": { "sigma": 1.0 } })"), "/coupling/sigma: must be in (0"));
}

TEST_CASE("fluid/viscosity is a finite non-negative viscosity of the liquid, written back only when set") {
  const std::string base = R"({ "grid": { "resolution": [8,8,8], "cell_size": 0.1 }, )";
  CHECK(parse(base + R"("fluid": { "viscosity": 12.5 } })").fluid.viscosity == 12.5);
  CHECK(contains(error_of(base + R"("fluid": { "viscosity": -1 } })"), "/fluid/viscosity: must be >= 0"));
  CHECK(contains(error_of(base + R"("fluid": { "viscosity": 1e300 } })"), "/fluid/viscosity: must be >= 0 and at most 1e+09 Pa s"));
  CHECK(contains(error_of(base + R"("fluid": { "viscosity": "honey" } })"), "/fluid/viscosity: expected a number"));
  const std::string smoke = R"("coupling": { "scheme": "eulerian" }, "fluid": { "kind": "smoke", "viscosity": 1 } })";
  CHECK(contains(error_of(base + smoke), "/fluid/viscosity: applies to the liquid only"));
  CHECK(!contains(to_json(parse(base + R"("fluid": {} })")), "viscosity"));
  CHECK(parse(to_json(parse(base + R"("fluid": { "viscosity": 3 } })"))).fluid.viscosity == 3);
}

TEST_CASE("shapes accept only the keys of their type") {
  const std::string base = R"({ "grid": { "resolution": [8,8,8], "cell_size": 0.1 }, )";
  const std::string e = error_of(base + R"("fluid": { "regions": [ { "type": "sphere", "center": [0.4,0.4,0.4], "radius": 0.1, "min": [0,0,0] } ] } })");
  CHECK(contains(e, "/fluid/regions/0/min: unknown key \"min\""));
  CHECK(contains(error_of(base + R"("fluid": { "regions": [ { "type": "box", "min": [0,0,0], "max": [2,0.5,0.5] } ] } })"),
                 "/fluid/regions/0: extends outside the grid"));
  CHECK(contains(error_of(base + R"("obstacles": [ { "type": "cone" } ] })"), "/obstacles/0/type: unknown type \"cone\""));
  const std::string mesh = base + R"("solids": [ { "name": "s", "mesh": )";
  CHECK(contains(error_of(mesh + R"({ "type": "shell", "center": [0.4,0.4,0.4], "outer_radius": 0.1, "inner_radius": 0.2 } } ] })"),
                 "/solids/0/mesh/inner_radius: inner_radius must be smaller than outer_radius"));
  CHECK(contains(error_of(mesh + R"({ "type": "box", "min": [0,0,0], "max": [0.2,0.2,0.2], "radius": 1 } } ] })"),
                 "/solids/0/mesh/radius: unknown key"));
}

TEST_CASE("solid names must be unique and usable as file names") {
  const std::string base = R"({ "grid": { "resolution": [8,8,8], "cell_size": 0.1 }, "solids": [ )";
  const std::string box = R"("mesh": { "type": "box", "min": [0,0,0], "max": [0.2,0.2,0.2] } })";
  CHECK(contains(error_of(base + R"({ "name": "a/b", )" + box + "] }"), "/solids/0/name:"));
  CHECK(contains(error_of(base + R"({ "name": "a", )" + box + R"(, { "name": "a", )" + box + "] }"),
                 "/solids/1/name: duplicate solid name \"a\""));
}

TEST_CASE("relative paths resolve against the scene folder") {
  const Scene s = parse(R"({ "grid": { "resolution": [8,8,8], "cell_size": 0.1 },
    "solids": [ { "name": "t", "mesh": { "type": "obj", "path": "../meshes/toy.obj" } } ],
    "output": { "directory": "runs/a" } })");
  CHECK(s.solids[0].mesh.path == "/meshes/toy.obj");
  CHECK(s.output.directory == "/scenes/runs/a");
}

TEST_CASE("--set overrides any value before validation") {
  const Scene s = parse(MINIMAL, {parse_override("/time/frames=3"), parse_override("/coupling/alpha=auto"),
                                  parse_override("/gravity=[0,0,-1]")});
  CHECK(s.time.frames == 3);
  CHECK(s.coupling.alpha_auto);
  CHECK(s.gravity == Vec3(0, 0, -1));
  CHECK(contains(error_of(MINIMAL, {parse_override("/time/fsp=24")}), "/time/fsp: unknown key \"fsp\" (did you mean \"fps\"?)"));
  CHECK_THROWS_AS(parse_override("time/frames=3"), SceneError);
  CHECK_THROWS_AS(parse_override("/time/frames"), SceneError);
}

TEST_CASE("--set with a malformed pointer or an index past an array's end says so - naming the argument") {
  // nlohmann's raw "[json.exception.parse_error.108] parse error: escape
  // character '~' must be followed with '0' or '1'" used to be the message.
  const std::string tilde = error_of(MINIMAL, {parse_override("/a~2b=5")});
  MESSAGE(tilde);
  CHECK(contains(tilde, "--set: /a~2b=5: \"/a~2b\" is not a JSON pointer: '~' must be followed by 0"));
  CHECK(!contains(tilde, "json.exception"));
  // Past the end, nlohmann filled the array with nulls up to the index and the
  // error named another element.
  const std::string scene = R"({ "grid": { "resolution": [4, 4, 4], "cell_size": 0.25 },
    "solids": [ { "name": "a", "mesh": { "type": "box", "min": [0, 0, 0], "max": [1, 1, 1] } } ] })";
  const std::string past = error_of(scene, {parse_override("/solids/3/density=800")});
  MESSAGE(past);
  CHECK(contains(past, "--set: /solids/3/density=800: index 3 is past the end of /solids, which has 1"));
  CHECK(contains(error_of(scene, {parse_override("/solids/x=1")}), "/solids is an array: \"x\" is not an index"));
  CHECK(!contains(error_of(scene, {parse_override("/grid/cell_size/x=1")}), "json.exception"));
  // Appending at the end, escaped keys and ordinary pointers still work.
  CHECK(contains(error_of(scene, {parse_override("/solids/1/name=\"b\"")}), "/solids/1: missing required key \"mesh\""));
  CHECK(contains(error_of(scene, {parse_override("/a~1b=2")}), "unknown key \"a/b\""));
  CHECK(parse(scene, {parse_override("/solids/0/density=800")}).solids[0].density == 800);
}

TEST_CASE("the resolved scene reloads to the same scene") {
  const Scene a = parse(R"({ "grid": { "resolution": [8,9,10], "cell_size": 0.1, "origin": [1,2,3] },
    "fluid": { "regions": [ { "type": "box", "min": [1.1,2.1,3.1], "max": [1.5,2.5,3.5], "velocity": [1,0,0] } ] },
    "solids": [ { "name": "s", "mesh": { "type": "sphere", "center": [1.4,2.4,3.4], "radius": 0.2 },
                  "pinned": [ { "type": "box", "min": [1,2,3], "max": [1.2,2.2,3.2] } ] } ],
    "coupling": { "alpha": "auto", "scheme": "weak", "preconditioner": "mic" } })");
  const Scene b = parse(to_json(a));
  CHECK(to_json(a) == to_json(b));
  CHECK(b.coupling.preconditioner == Coupling::Preconditioner::mic);
  CHECK(b.coupling.alpha_auto);
  CHECK(b.coupling.scheme == Coupling::Scheme::weak);
  CHECK(b.solids[0].pinned.size() == 1);
}

TEST_CASE("a missing scene file is a missing input (exit 66)") {
  try {
    load_scene("/nonexistent/scene.json");
    FAIL("expected an error");
  } catch (const MissingInputError& e) {
    CHECK(e.code() == ExitCode::no_input);
    CHECK(contains(e.what(), "/nonexistent/scene.json"));
  }
}
