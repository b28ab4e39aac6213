// The command line as users and scripts see it: exit codes, messages that
// point into the scene file, and an output folder that stays empty when a
// scene is refused (README.md "Running", docs/reliability.md "Exit codes").
#include <doctest/doctest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/app/fixtures.hpp"
#include "tests/support.hpp"

namespace fs = std::filesystem;
using fsicut::test::ScratchDir;

namespace {

using Result = fsicut::test::RunResult;
using fsicut::test::quoted;
using fsicut::test::run_fsicut;

using fsicut::test::contains;
using fsicut::test::write_scene;

bool empty_or_absent(const fs::path& p) { return !fs::exists(p) || fs::is_empty(p); }

const std::string GRID = R"("grid": { "resolution": [16, 16, 16], "cell_size": 0.0625 })";

std::string solid_scene(const std::string& mesh, const std::string& extra = "") {
  return "{ " + GRID + R"(, "time": { "frames": 2 }, "solids": [ { "name": "s", "mesh": )" + mesh + extra + " } ] }";
}

std::string mesh_file(const std::string& name) {
  return (fsicut::test::source_dir() / "tests/data/meshes" / name).string();
}

// Runs a bad scene and checks the contract: the exit code, the message naming
// the scene file and `where` (a pointer or a mesh element), nothing written.
void check_refused(const std::string& scene, int code, const std::string& where, const std::string& what = "") {
  ScratchDir dir("cli");
  const fs::path file = write_scene(dir, scene);
  const fs::path out = dir / "out";
  const Result r = run_fsicut(dir, quoted(file.string()) + " -o " + quoted(out.string()));
  MESSAGE("exit " << r.code << ": " << r.err);
  CHECK(r.code == code);
  CHECK(contains(r.err, "fsicut: error: "));
  CHECK(contains(r.err, where));
  if (!what.empty()) CHECK(contains(r.err, what));
  CHECK(empty_or_absent(out));
}

}  // namespace

TEST_CASE("bad scenes: each gives its exit code, names the file and the pointer, writes nothing") {
  SUBCASE("syntax error: line and column") {
    check_refused("{\n  \"grid\": { \"resolution\": [16, 16, 16] \"cell_size\": 0.1 }\n}", 65, "scene.json:2:", "syntax error");
  }
  SUBCASE("unknown key with a suggestion") {
    check_refused("{ " + GRID + R"(, "tme": { "frames": 2 } })", 65, "scene.json: /tme", "did you mean \"time\"");
  }
  SUBCASE("wrong type") {
    check_refused("{ " + GRID + R"(, "time": { "frames": "two" } })", 65, "/time/frames", "expected an integer");
  }
  SUBCASE("negative density") {
    check_refused(solid_scene(R"({ "type": "box", "min": [0.2,0.2,0.2], "max": [0.4,0.4,0.4] })", R"(, "density": -1)"),
                  65, "/solids/0/density", "must be > 0");
  }
  SUBCASE("missing required key") {
    check_refused(R"({ "grid": { "cell_size": 0.1 } })", 65, "/grid", "missing required key \"resolution\"");
  }
  SUBCASE("missing mesh file: exit 66 naming the file and the pointer") {
    check_refused(solid_scene(R"({ "type": "obj", "path": "no/such/mesh.obj" })"), 66, "no/such/mesh.obj",
                  "/solids/0/mesh");
  }
  SUBCASE("open mesh names the edge") {
    check_refused(solid_scene(R"({ "type": "obj", "path": ")" + mesh_file("open.obj") + R"(" })"), 65, "open.obj",
                  "edge");
  }
  SUBCASE("non-manifold mesh names the edge") {
    check_refused(solid_scene(R"({ "type": "obj", "path": ")" + mesh_file("nonmanifold.obj") + R"(" })"), 65,
                  "nonmanifold.obj", "manifold");
  }
  SUBCASE("open mesh as an obstacle") {
    check_refused("{ " + GRID + R"(, "obstacles": [ { "type": "obj", "path": ")" + mesh_file("open.obj") + R"(" } ] })",
                  65, "open.obj", "/obstacles/0");
  }
  SUBCASE("inward-facing mesh") {
    check_refused(solid_scene(R"({ "type": "obj", "path": ")" + mesh_file("inward.obj") + R"(" })"), 65,
                  "inward.obj", "inward");
  }
  SUBCASE("solid outside the grid") {
    check_refused(solid_scene(R"({ "type": "box", "min": [0.8,0.8,0.8], "max": [1.2,1.0,1.0] })"), 65,
                  "scene.json: /solids/0/mesh", "outside the grid");
  }
  SUBCASE("fluid region outside the grid") {
    check_refused("{ " + GRID + R"(, "fluid": { "regions": [ { "type": "sphere", "center": [0.5,0.5,0.5], "radius": 0.6 } ] } })",
                  65, "/fluid/regions/0", "outside the grid");
  }
  SUBCASE("unknown solver scheme") {
    check_refused("{ " + GRID + R"(, "coupling": { "scheme": "strong" } })", 65, "/coupling/scheme", "expected one of");
  }
  SUBCASE("shell with inner radius above outer") {
    check_refused(solid_scene(R"({ "type": "shell", "center": [0.5,0.5,0.5], "outer_radius": 0.1, "inner_radius": 0.2 })"),
                  65, "/solids/0/mesh/inner_radius");
  }
}

TEST_CASE("a missing scene file exits 66 - a bad command line exits 64") {
  ScratchDir dir("cli");
  Result r = run_fsicut(dir, quoted((dir / "nope.json").string()));
  CHECK(r.code == 66);
  CHECK(contains(r.err, "nope.json"));
  r = run_fsicut(dir, "--no-such-flag x.json");
  CHECK(r.code == 64);
  r = run_fsicut(dir, "");
  CHECK(r.code == 64);
  const fs::path scene = write_scene(dir, "{ " + GRID + " }");
  // A malformed --set is a bad command line (README "Exit codes"); a
  // well-formed one that the scene refuses is a bad scene.
  for (const std::string set : {"time/frames=2", "/time/frames", "/=2"}) {
    CAPTURE(set);
    r = run_fsicut(dir, quoted(scene.string()) + " --set " + set);
    CHECK(r.code == 64);
    CHECK(contains(r.err, "--set"));
    CHECK(contains(r.err, "expected /json/pointer=value"));
  }
  r = run_fsicut(dir, quoted(scene.string()) + " --set /time/frams=2");
  CHECK(r.code == 65);
  CHECK(contains(r.err, "/time/frams"));
}

TEST_CASE("--version names fsicut and its libraries") {
  ScratchDir dir("cli");
  const Result r = run_fsicut(dir, "--version");
  CHECK(r.code == 0);
  CHECK(contains(r.out, "fsicut "));
  CHECK(contains(r.out, "OpenVDB"));
  CHECK(contains(r.out, "TetGen"));
  CHECK(contains(r.out, "Eigen"));
}

TEST_CASE("--validate prints a summary with node and tet counts and writes nothing") {
  ScratchDir dir("cli");
  const fs::path scene = write_scene(
      dir, "{ " + GRID + R"(, "solids": [ { "name": "beam", "mesh": { "type": "box", "min": [0.1,0.1,0.1], "max": [0.2,0.8,0.2], "cells": [4,28,4] } } ] })");
  const Result r = run_fsicut(dir, quoted(scene.string()) + " --validate -o " + quoted((dir / "out").string()));
  CHECK(r.code == 0);
  CHECK(contains(r.out, "beam: 725 nodes, 2688 tets"));
  CHECK(empty_or_absent(dir / "out"));
}

TEST_CASE("--validate and the run's start warn about a linear solid too few elements thick to bend right") {
  ScratchDir dir("cli");
  const std::string solid = R"("solids": [ { "name": "beam", "mesh": { "type": "box", "min": [0.1,0.1,0.1], "max": [0.2,0.8,0.2], "cells": [4,28,4] } )";
  const fs::path linear = write_scene(dir, "{ " + GRID + R"(, "time": { "frames": 1 }, )" + solid + "} ] }");
  const std::string warning = "solid \"beam\" has 4 linear elements through its thinnest dimension";
  const Result validate = run_fsicut(dir, quoted(linear.string()) + " --validate");
  CHECK(validate.code == 0);
  CHECK(contains(validate.err, "/solids/0: " + warning));
  CHECK(contains(validate.err, "about 21 % too stiff"));
  CHECK(contains(validate.err, "use \"element\": \"quadratic\""));
  const Result run = run_fsicut(dir, quoted(linear.string()) + " -o " + quoted((dir / "out").string()));
  CHECK(run.code == 0);
  CHECK(contains(run.err, warning));
  const fs::path quadratic =
      write_scene(dir, "{ " + GRID + ", " + solid + R"(, "element": "quadratic" } ] })");
  const Result none = run_fsicut(dir, quoted(quadratic.string()) + " --validate");
  CHECK(none.code == 0);
  CHECK_FALSE(contains(none.err, "thinnest dimension"));
}

TEST_CASE("--validate prints seconds per substep and warns about a solid whose substep takes over 30 s") {
  // The beam above: 725 linear nodes. A quadratic box of 12^3 cells: 15,625
  // nodes, 46,875 dofs; the cost model puts its substep at about 43 s (a
  // quadratic sphere of 17,348 nodes took 50 s a substep, and nothing said so).
  ScratchDir dir("cli");
  const fs::path small = write_scene(
      dir, "{ " + GRID + R"(, "solids": [ { "name": "beam", "mesh": { "type": "box", "min": [0.1,0.1,0.1], "max": [0.2,0.8,0.2], "cells": [4,28,4] } } ] })");
  const Result fast = run_fsicut(dir, quoted(small.string()) + " --validate");
  CHECK(fast.code == 0);
  CHECK(contains(fast.out, "time estimate: about "));
  CHECK(contains(fast.out, " per substep"));
  CHECK(contains(fast.out, "2175 dofs (linear)"));
  CHECK(contains(fast.out, "/grid/resolution"));
  CHECK_FALSE(contains(fast.err, "per substep, more than 30 s"));
  const fs::path big = write_scene(
      dir, "{ " + GRID + R"(, "solids": [ { "name": "ball", "element": "quadratic", "mesh": { "type": "box", "min": [0.1,0.1,0.1], "max": [0.7,0.7,0.7], "cells": [12,12,12] } } ] })");
  const Result slow = run_fsicut(dir, quoted(big.string()) + " --validate");
  MESSAGE(slow.out << slow.err);
  CHECK(slow.code == 0);
  CHECK(contains(slow.out, "46875 dofs (quadratic)"));
  CHECK(contains(slow.err, "/solids/0/mesh: solid \"ball\" (46875 dofs (quadratic)) is estimated at about 42.6 s"));
  CHECK(contains(slow.err, "per substep, more than 30 s: use a coarser mesh"));
}

TEST_CASE("a solid-only run writes run.json, one OBJ per frame and a stats line per frame") {
  ScratchDir dir("cli");
  const fs::path scene = write_scene(
      dir, "{ " + GRID + R"(, "time": { "frames": 3 }, "solids": [ { "name": "cube", "mesh": { "type": "box", "min": [0.3,0.3,0.3], "max": [0.5,0.5,0.5], "cells": [2,2,2] } } ] })");
  const fs::path out = dir / "out";
  const Result r = run_fsicut(dir, quoted(scene.string()) + " -q -o " + quoted(out.string()));
  REQUIRE(r.code == 0);
  CHECK(r.err.empty());
  CHECK(fs::exists(out / "run.json"));
  for (int f = 0; f <= 3; ++f) CHECK(fs::exists(out / ("cube.000" + std::to_string(f) + ".obj")));
  CHECK_FALSE(fs::exists(out / "cube.0004.obj"));
  const std::string stats = fsicut::test::read_file(out / "stats.jsonl");
  int lines = 0;
  for (char c : stats) lines += c == '\n';
  CHECK(lines == 4);
  for (const char* key : {"\"frame\"", "\"time\"", "\"substeps\"", "\"liquid_volume\"", "\"particle_volume\"",
                          "\"deep_density\"", "\"packed_cells\"", "\"max_fluid_speed\"", "\"solver\"", "\"iterations\"", "\"relative_residual\"", "\"converged\"",
                          "\"met_tolerance\"", "\"round_off_floor\"", "\"solids\"", "\"centroid\"",
                          "\"volume\"", "\"mean_velocity\"", "\"kinetic_energy\"", "\"elastic_energy\"", "\"seconds\"",
                          "\"output\"", "\"output_wait\"", "\"other\"", "\"density_correction\""})
    CHECK(contains(stats, key));
  // No temporary files are left behind.
  for (const auto& e : fs::directory_iterator(out)) CHECK(e.path().filename().string()[0] != '.');
}

// stats.jsonl's solver.met_tolerance is true only when the relative residual
// reached coupling/tolerance; a tolerance below double precision stops PCG at
// the round-off floor: converged (the acceptance test), not met_tolerance.
TEST_CASE("stats say whether the solves met the tolerance or stopped at the round-off floor") {
  ScratchDir dir("cli");
  const fs::path scene = write_scene(
      dir, "{ " + GRID + R"(, "time": { "frames": 1 }, "fluid": { "regions": [ { "type": "box", "min": [0,0,0], "max": [1,0.5,1] } ] }, "output": { "liquid": false } })");
  auto solver_of = [&](const std::string& tolerance, const char* name) {
    const fs::path out = dir / name;
    const Result r = run_fsicut(dir, quoted(scene.string()) + " -q -o " + quoted(out.string()) +
                                         " --set /coupling/tolerance=" + tolerance);
    REQUIRE(r.code == 0);
    const std::string stats = fsicut::test::read_file(out / "stats.jsonl");
    return stats.substr(stats.rfind("\"solver\""));
  };
  const std::string met = solver_of("1e-8", "met");
  CHECK(contains(met, "\"converged\":true"));
  CHECK(contains(met, "\"met_tolerance\":true"));
  CHECK(contains(met, "\"tolerance\":1e-08"));
  const std::string floor = solver_of("1e-18", "floor");
  CHECK(contains(floor, "\"converged\":true"));
  CHECK(contains(floor, "\"met_tolerance\":false"));
  CHECK_FALSE(contains(floor, "\"round_off_floor\":0,"));
}

TEST_CASE("an unwritable output folder exits 73 and names it") {
  ScratchDir dir("cli");
  const fs::path scene = write_scene(dir, "{ " + GRID + R"(, "time": { "frames": 1 } })");
  std::ofstream(dir / "file") << "x";
  // A folder under a regular file cannot be created, even by root.
  const Result r = run_fsicut(dir, quoted(scene.string()) + " -o " + quoted((dir / "file" / "out").string()));
  CHECK(r.code == 73);
  CHECK(contains(r.err, "file/out"));
}

TEST_CASE("--set may come before the scene and repeat - each occurrence takes one value") {
  ScratchDir dir("cli");
  const fs::path scene = write_scene(dir, "{ " + GRID + " }");
  const Result r = run_fsicut(dir, "--set /time/frames=7 --set /time/fps=24 " + quoted(scene.string()) + " --validate");
  CHECK(r.code == 0);
  CHECK(contains(r.out, "7 frames at 24 fps"));
}

namespace {
// The numbers of a text file (OBJ vertices, stats values), in order.
std::vector<double> numbers_in(const std::string& text) {
  std::vector<double> v;
  const char* p = text.c_str();
  while (*p) {
    char* end = nullptr;
    const double x = std::strtod(p, &end);
    if (end != p && (std::isdigit(static_cast<unsigned char>(*p)) || *p == '-' || *p == '.')) {
      v.push_back(x);
      p = end;
    } else {
      ++p;
    }
  }
  return v;
}
}  // namespace

TEST_CASE("--threads 1 and --threads 2 give the same results up to round-off") {
  ScratchDir dir("cli");
  const fs::path scene = write_scene(dir, "{ " + GRID + R"(, "time": { "frames": 3 },
      "fluid": { "regions": [ { "type": "box", "min": [0,0,0], "max": [0.4,0.6,1.0] } ] },
      "obstacles": [ { "type": "sphere", "center": [0.7,0.2,0.5], "radius": 0.15 } ] })");
  const fs::path solid_scene_file = dir / "solid.json";
  std::ofstream(solid_scene_file) << "{ " + GRID + R"(, "time": { "frames": 3 }, "solids": [ { "name": "cube",
      "mesh": { "type": "box", "min": [0.3,0.3,0.3], "max": [0.6,0.6,0.6], "cells": [4,4,4] }, "initial_scale": 0.7,
      "velocity": [1, 2, 0], "damping": { "stiffness": 0.01 } } ] })";
  for (const std::string threads : {"1", "2"}) {
    REQUIRE(run_fsicut(dir, quoted(scene.string()) + " -q -j " + threads + " -o " + quoted((dir / ("l" + threads)).string())).code == 0);
    REQUIRE(run_fsicut(dir, quoted(solid_scene_file.string()) + " -q -j " + threads + " -o " + quoted((dir / ("s" + threads)).string())).code == 0);
  }
  auto compare = [](const std::vector<double>& a, const std::vector<double>& b, double tolerance) {
    REQUIRE(a.size() == b.size());
    double worst = 0;
    for (size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(a[i] - b[i]) / std::max(1.0, std::abs(a[i])));
    MESSAGE("largest relative difference " << worst << " over " << a.size() << " numbers");
    CHECK(worst <= tolerance);
  };
  // Stats carry wall-clock seconds: compare everything before "seconds" on each line.
  auto physics = [](const std::string& stats) {
    std::string kept;
    std::istringstream in(stats);
    for (std::string line; std::getline(in, line);) {
      const auto cut = line.find("\"seconds\"");
      kept += line.substr(0, cut) + "\n";
      const auto solids = line.find("\"solids\"");
      if (solids != std::string::npos) kept += line.substr(solids) + "\n";
    }
    return kept;
  };
  constexpr double ROUND_OFF = 1e-9;
  compare(numbers_in(physics(fsicut::test::read_file(dir / "l1" / "stats.jsonl"))),
          numbers_in(physics(fsicut::test::read_file(dir / "l2" / "stats.jsonl"))), ROUND_OFF);
  compare(numbers_in(fsicut::test::read_file(dir / "s1" / "cube.0003.obj")),
          numbers_in(fsicut::test::read_file(dir / "s2" / "cube.0003.obj")), ROUND_OFF);
}

TEST_CASE("fsicut's idle OpenMP threads sleep unless the user chose a wait policy") {
  ScratchDir dir("cli");
  const fs::path scene = write_scene(
      dir, "{ " + GRID + R"(, "time": { "frames": 1 }, "solids": [ { "name": "cube", "mesh": { "type": "box", "min": [0.3,0.3,0.3], "max": [0.5,0.5,0.5], "cells": [2,2,2] } } ] })");
  const fs::path out = dir / "out";
  // libgomp reads OMP_WAIT_POLICY before main, so fsicut runs itself again
  // with it set; run.json records what the run saw. (The suite itself runs
  // under OMP_WAIT_POLICY=PASSIVE, tests/CMakeLists.txt: env sets both cases.)
  const auto policy = [&](const std::string& env) {
    const std::string command = "env " + env + " " + quoted(fsicut::test::fsicut_exe().string()) + " -q -o " +
                                quoted(out.string()) + " " + quoted(scene.string());
    REQUIRE(std::system(command.c_str()) == 0);
    return fsicut::test::read_file(out / "run.json");
  };
  CHECK(contains(policy("-u OMP_WAIT_POLICY"), "\"omp_wait_policy\": \"PASSIVE\""));
  CHECK(contains(policy("OMP_WAIT_POLICY=ACTIVE"), "\"omp_wait_policy\": \"ACTIVE\""));
}
