// Hostile and absurd scenes through the fsicut executable: every input the
// loader accepts runs or fails cleanly, and every refused one exits 65 naming
// the file and the JSON pointer with nothing written (README "Reliability and
// limits"). Each case here once crashed, hung or was silently misread.
#include <doctest/doctest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/support.hpp"

namespace fs = std::filesystem;
using fsicut::test::ScratchDir;

namespace {

struct Result {
  int code = -1;
  std::string out, err;
};

std::string quoted(const std::string& s) { return "'" + s + "'"; }

// Exit code, or 128 + N when fsicut died of signal N (the shell's convention).
Result run_fsicut(const ScratchDir& dir, const std::string& args) {
  const std::string cmd = quoted(fsicut::test::fsicut_exe().string()) + " " + args + " >" +
                          quoted((dir / "stdout.txt").string()) + " 2>" + quoted((dir / "stderr.txt").string());
  const int status = std::system(cmd.c_str());
  Result r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = fsicut::test::read_file(dir / "stdout.txt");
  r.err = fsicut::test::read_file(dir / "stderr.txt");
  return r;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// A small liquid-and-solid scene every case mutates.
const char* BASE = R"({
  "grid": { "resolution": [8, 8, 8], "cell_size": 0.125 },
  "time": { "fps": 30, "frames": 2, "max_substeps": 4 },
  "fluid": { "regions": [ { "type": "box", "min": [0, 0, 0], "max": [0.5, 0.5, 1] } ] },
  "solids": [ { "name": "block", "mesh": { "type": "box", "min": [0.25, 0.25, 0.25], "max": [0.75, 0.5, 0.5],
                "cells": [8, 4, 4] }, "youngs_modulus": 2e4 } ] })";

// Runs `scene` (BASE when empty) with `args`; the output folder is `out` in a scratch folder.
Result run_scene(const ScratchDir& dir, const std::string& args, const std::string& scene = BASE) {
  std::ofstream(dir / "scene.json") << scene;
  return run_fsicut(dir, quoted((dir / "scene.json").string()) + " -o " + quoted((dir / "out").string()) +
                             " -q -j 2 " + args);
}

// Exit 65, the file and `pointer` named with `what`, nothing written.
void check_refused(const std::string& args, const std::string& pointer, const std::string& what,
                   const std::string& scene = BASE) {
  ScratchDir dir("hostile");
  const Result r = run_scene(dir, args, scene);
  MESSAGE("exit " << r.code << ": " << r.err);
  CHECK(r.code == 65);
  CHECK(contains(r.err, "scene.json: " + pointer + ": "));
  CHECK(contains(r.err, what));
  CHECK(!fs::exists(dir / "out"));
}

}  // namespace

TEST_SUITE("app") {

TEST_CASE("numbers that overflow and integers out of range exit 65 with the pointer") {
  check_refused("--set /time/fps=1e400", "/time/fps", "overflows a double");
  std::string scene = BASE;
  scene.insert(scene.rfind('}'), R"(, "gravity": [0, -1e400, 0])");
  check_refused("", "/gravity/1", "overflows a double", scene);
  // 2^40 used to become 0 silently, 2^63 to wrap to a negative frame count.
  check_refused("--set /fluid/seed=1099511627776", "/fluid/seed", "out of range");
  check_refused("--set /time/frames=9223372036854775808", "/time/frames", "out of range");
  check_refused("--set /time/max_substeps=4294967296", "/time/max_substeps", "out of range");
}

TEST_CASE("duplicate keys are errors naming the second one") {
  std::string scene = BASE;
  scene.replace(scene.find("\"fps\": 30"), 9, "\"fps\": 30, \"fps\": 24");
  check_refused("", "/time/fps", "duplicate key \"fps\"", scene);
  scene = BASE;
  scene.replace(scene.find("\"youngs_modulus\""), 0, "\"density\": 800, \"density\": 900, ");
  check_refused("", "/solids/0/density", "duplicate key", scene);
}

TEST_CASE("over-long solid names and mesh paths that are not regular files exit 65") {
  check_refused("--set /solids/0/name=\"" + std::string(240, 'a') + "\"", "/solids/0/name", "at most 128");
  ScratchDir dir("hostile");
  check_refused("--set /solids/0/mesh='{\"type\": \"obj\", \"path\": \"" + dir.path().string() + "\"}'",
                "/solids/0/mesh/path", "is not a regular file");
  check_refused("--set /solids/0/mesh='{\"type\": \"obj\", \"path\": \"/dev/zero\"}'", "/solids/0/mesh/path",
                "is not a regular file");
}

TEST_CASE("a CFL number longer than the grid exits 65 instead of extrapolating for ever") {
  check_refused("--set /time/cfl=1e9", "/time/cfl", "at most the grid's largest resolution (8 cells)");
}

TEST_CASE("a solid thrown at 1e12 m/s runs to the end: the domain walls hold it") {
  // It used to crash (SIGSEGV) computing its distance field far outside the grid.
  ScratchDir dir("hostile");
  const Result r = run_scene(dir, "--set /solids/0/velocity=[1e12,0,0]");
  MESSAGE("exit " << r.code << ": " << r.err);
  CHECK(r.code == 0);
  CHECK(fs::exists(dir / "out" / "block.0002.obj"));
}

}  // TEST_SUITE
