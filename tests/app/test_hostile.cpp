// Hostile and absurd scenes through the fsicut executable: every input the
// loader accepts runs or fails cleanly, and every refused one exits 65 naming
// the file and the JSON pointer with nothing written (docs/reliability.md "Reliability and
// limits"). Each case here once crashed, hung or was silently misread.
#include <doctest/doctest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "lib/scene/load.hpp"
#include "tests/support.hpp"

namespace fs = std::filesystem;
using fsicut::test::ScratchDir;

namespace {

using Result = fsicut::test::RunResult;
using fsicut::test::quoted;
using fsicut::test::run_fsicut;

using fsicut::test::contains;

// A small liquid-and-solid scene every case mutates.
const char* BASE = R"({
  "grid": { "resolution": [8, 8, 8], "cell_size": 0.125 },
  "time": { "fps": 30, "frames": 2, "max_substeps": 4 },
  "fluid": { "regions": [ { "type": "box", "min": [0, 0, 0], "max": [0.5, 0.5, 1] } ] },
  "solids": [ { "name": "block", "mesh": { "type": "box", "min": [0.25, 0.25, 0.25], "max": [0.75, 0.5, 0.5],
                "cells": [8, 4, 4] }, "youngs_modulus": 2e4 } ] })";

// Runs `scene` (BASE when empty) with `args`; the output folder is `out` in a scratch folder.
// Quiet (-q) unless `quiet` is false: warnings need the default level.
Result run_scene(const ScratchDir& dir, const std::string& args, const std::string& scene = BASE, bool quiet = true) {
  std::ofstream(dir / "scene.json") << scene;
  return run_fsicut(dir, quoted((dir / "scene.json").string()) + " -o " + quoted((dir / "out").string()) +
                             (quiet ? " -q" : "") + " -j 2 " + args);
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
  // In a --set value too, named below its target.
  check_refused("--set /solids/0/damping='{\"mass\": 1, \"mass\": 2}'", "/solids/0/damping/mass", "duplicate key");
  check_refused("--set /solids/0/velocity='[0, 1e999, 0]'", "/solids/0/velocity/1", "overflows a double");
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

TEST_CASE("scenes estimated to need more memory than the machine has exit 65 naming the key that drives it") {
  check_refused("--set /grid/resolution=[2000,2000,2000]", "/grid/resolution", "of it for the grid");
  check_refused("--set /fluid/particles_per_cell=100000000", "/fluid/particles_per_cell", "of it for the particles");
  check_refused("--set /output/voxel_size=1e-4", "/output/voxel_size", "of it for the liquid VDB");
  check_refused("--set /solids/0/mesh/cells=[1000,1000,1000]", "/solids/0/mesh/cells", "of it for the solid block");
  // --max-memory sets a lower limit; --validate refuses too.
  check_refused("--max-memory 1M", "/solids/0/mesh/cells", "more than --max-memory (1.0 MB)");
  check_refused("--validate --max-memory 1M", "/solids/0/mesh/cells", "more than --max-memory");
  ScratchDir dir("hostile");
  const Result bad = run_scene(dir, "--max-memory lots");
  CHECK(bad.code == 64);
  const Result ok = run_scene(dir, "--validate --max-memory 8G");
  CHECK(ok.code == 0);
  CHECK(contains(ok.out, "memory estimate: "));
  CHECK(contains(ok.out, "/grid/resolution"));
  CHECK(contains(ok.out, "(limit 8.6 GB, --max-memory)"));
}

TEST_CASE("a TetGen volume bound that would make millions of tetrahedra exits 65 naming max_tet_volume") {
  // It used to run TetGen for ever.
  check_refused("--set /solids/0/mesh='{\"type\": \"sphere\", \"center\": [0.5, 0.5, 0.5], \"radius\": 0.2, "
                "\"max_tet_volume\": 1e-12}'",
                "/solids/0/mesh/max_tet_volume", "tetrahedra");
}

TEST_CASE("TetGen and OBJ meshes count in the memory estimate - a bound too fine for the limit exits 65 before TetGen") {
  const std::string torus = (fsicut::test::source_dir() / "meshes" / "torus.obj").string();
  const std::string mesh = "--set /solids/0/mesh='{\"type\": \"obj\", \"path\": \"" + torus +
                           "\", \"transform\": {\"translate\": [0.5, 0.4, 0.5]}, \"max_tet_volume\": ";
  // 1e-7 m^3 in the torus's 0.057 m^3 is under the 1e6-tet cap of
  // lib/sim/solid_mesh.cpp but about 1.7e6 tets (3.4 GB) by the estimate: refused
  // by --max-memory at once (TetGen would take minutes).
  check_refused(mesh + "1e-7}' --max-memory 1G", "/solids/0/mesh/max_tet_volume",
                "of it for the solid block (1.87e+06 tetrahedra), more than --max-memory");
  // --validate prints the solid's tets and the OBJ surfaces (solid and obstacle).
  ScratchDir dir("hostile");
  std::string scene = BASE;
  scene.insert(scene.rfind('}'), R"(, "obstacles": [ { "type": "obj", "path": ")" + torus + R"(" } ])");
  const Result r = run_scene(dir, "--validate " + mesh + "1e-5}'", scene);
  MESSAGE(r.out << r.err);
  REQUIRE(r.code == 0);
  CHECK(contains(r.out, "/solids/0/mesh surface"));
  CHECK(contains(r.out, "512 vertices"));
  CHECK(contains(r.out, "/solids/0/mesh/max_tet_volume"));
  CHECK(contains(r.out, "/obstacles/0/path"));
  // Without a bound the surface drives the count (4 tets per vertex).
  const Result unbounded = run_scene(dir, "--validate " + mesh + "0}'", scene);
  CHECK(unbounded.code == 0);
  CHECK(contains(unbounded.out, "2.05e+03 tetrahedra"));
  CHECK(contains(unbounded.out, "/solids/0/mesh/path"));
}

TEST_CASE("absurd thread counts are refused as a bad command line") {
  ScratchDir dir("hostile");
  CHECK(run_scene(dir, "--validate -j 100000").code == 64);
}

TEST_CASE("a solid too soft to hold its shape: inverted elements counted and warned about - --strict exits 70") {
  // E = 10 Pa: the block folds through itself within a few frames and the
  // liquid it squeezes loses a fifth of its volume; this used to pass silently.
  // By frame 9 the whole block is inside out, an absurd result that stops the
  // run by default: on_absurd "warn" keeps the inverted-element warnings in view.
  ScratchDir dir("hostile");
  const std::string args = "--frames 10 --set /solids/0/youngs_modulus=10 --set /on_absurd=warn";
  const Result r = run_scene(dir, args, BASE, /*quiet=*/false);
  REQUIRE(r.code == 0);
  CHECK(contains(r.err, "solid \"block\" has "));
  CHECK(contains(r.err, "inverted tetrahedra (det F <= 0)"));
  CHECK(contains(r.err, "the liquid volume is "));
  const std::string stats = fsicut::test::read_file(dir / "out" / "stats.jsonl");
  CHECK(contains(stats, "\"inverted_elements\":0"));
  const std::string last = stats.substr(stats.rfind('\n', stats.size() - 2) + 1);
  CHECK(!contains(last, "\"inverted_elements\":0"));

  ScratchDir strict_dir("hostile");
  const Result strict = run_scene(strict_dir, args + " --strict");
  MESSAGE(strict.err);
  CHECK(strict.code == 70);
  CHECK(contains(strict.err, "stopped by --strict"));

  // The scene asks for the same with its "strict" key; the frame that showed
  // the inversion is on disk, the next one is not.
  std::string scene = BASE;
  scene.insert(scene.rfind('}'), R"(, "strict": true)");
  ScratchDir key_dir("hostile");
  const Result by_key = run_scene(key_dir, args, scene);
  MESSAGE(by_key.err);
  CHECK(by_key.code == 70);
  CHECK(contains(by_key.err, "inverted tetrahedra (det F <= 0)"));
  const std::string stopped_stats = fsicut::test::read_file(key_dir / "out" / "stats.jsonl");
  const std::string stopped_last = stopped_stats.substr(stopped_stats.rfind('\n', stopped_stats.size() - 2) + 1);
  CHECK(!contains(stopped_last, "\"inverted_elements\":0"));
  CHECK(!fs::exists(key_dir / "out" / "block.0010.obj"));
  // "strict": false is the default: the run goes on with warnings.
  scene = BASE;
  scene.insert(scene.rfind('}'), R"(, "strict": false)");
  ScratchDir off_dir("hostile");
  CHECK(run_scene(off_dir, args, scene).code == 0);
  check_refused("--set /strict=1", "/strict", "expected");
}

TEST_CASE("a box mesh too thin to represent exits 65 naming the file and the mesh (fuzz finding)") {
  check_refused("--set /solids/0/mesh/max=[1e-320,0.5,0.5] --set /solids/0/mesh/min=[0,0.25,0.25]", "/solids/0/mesh",
                "non-positive rest volume");
}

TEST_CASE("a stiff light solid the SPD solve cannot represent is blamed on its stiffness - not on its mesh") {
  // The issue's cube: E = 1e11 Pa, density 800 kg/m^3, a regular box mesh. The
  // solid block of (33) squares its stiffness-to-mass ratio past 1/eps; the
  // message used to guess at "a nearly flat tetrahedron".
  ScratchDir dir("hostile");
  const Result r = run_scene(dir, "--set /solids/0/youngs_modulus=1e11 --set /solids/0/density=800");
  MESSAGE("exit " << r.code << ": " << r.err);
  CHECK(r.code == 70);
  CHECK(contains(r.err, "too stiff for its mass at this time step"));
  CHECK(contains(r.err, "solid \"block\""));
  CHECK(contains(r.err, "youngs_modulus 1e+11 Pa, density 800 kg/m^3"));
  CHECK(contains(r.err, "so the mesh is not the cause"));
  CHECK(!contains(r.err, "nearly flat"));
  // The same material at a smaller time step runs.
  ScratchDir small_dt("hostile");
  const Result ok = run_scene(small_dt, "--frames 1 --set /time/cfl=0.01 --set /time/max_substeps=200 "
                                        "--set /solids/0/youngs_modulus=1e11 --set /solids/0/density=800");
  MESSAGE("exit " << ok.code << ": " << ok.err);
  CHECK(ok.code == 0);
}

TEST_CASE("a solid block that fails because of a nearly flat tetrahedron names the tet's quality") {
  // A box 1e-4 m thick in one cell: its tets have shape quality 2e-4.
  ScratchDir dir("hostile");
  const Result r = run_scene(dir, "--set /solids/0/youngs_modulus=1e7 --set /solids/0/mesh/max=[0.75,0.2501,0.5] "
                                  "--set /solids/0/mesh/cells=[1,1,1]");
  MESSAGE("exit " << r.code << ": " << r.err);
  CHECK(r.code == 70);
  CHECK(contains(r.err, "solid \"block\""));
  CHECK(contains(r.err, "that tet is nearly flat"));
  CHECK(!contains(r.err, "the mesh is not the cause"));
}

TEST_CASE("material constants past any real material exit 65 (fuzz finding: E = 1e308 crashed the solver)") {
  check_refused("--set /solids/0/youngs_modulus=1e308", "/solids/0/youngs_modulus", "at most 1e+14 Pa");
  check_refused("--set /solids/0/density=1e300", "/solids/0/density", "at most 1e+06 kg/m^3");
  check_refused("--set /fluid/density=1e300", "/fluid/density", "at most");
  check_refused("--set /solids/0/damping='{\"mass\": 1e308}'", "/solids/0/damping/mass", "at most");
  check_refused("--set /solids/0/damping='{\"stiffness\": 1e308}'", "/solids/0/damping/stiffness", "at most");
}

TEST_CASE("a partitioned tolerance past a cell per substep exits 65 (1e9 called a blow-up converged)") {
  check_refused("--set /coupling/scheme=partitioned --set /coupling/partitioned/tolerance=1e9",
                "/coupling/partitioned/tolerance", "must be > 0 and at most 1 cell per substep, got 1e+09");
  ScratchDir dir("hostile");
  CHECK(run_scene(dir, "--validate --set /coupling/scheme=xpm --set /coupling/partitioned/tolerance=1").code == 0);
}

TEST_CASE("a diverging partitioned iteration exits 70 saying so even with allow_unconverged - no nan and no 0.000000") {
  // A solid of density 1 in water: plain iteration's error grows by about the
  // liquid-to-solid mass ratio every pass (xpm converges on it). This used to
  // exit 0 after warnings with an 80-digit residual and "relative residual
  // -nan", the solid inverted.
  std::string scene = BASE;
  scene.replace(scene.find("\"youngs_modulus\": 2e4"), 21, "\"youngs_modulus\": 1e6, \"density\": 1");
  ScratchDir dir("hostile");
  const Result r = run_scene(dir, "--set /coupling/scheme=partitioned --set /coupling/allow_unconverged=true", scene,
                             /*quiet=*/false);
  MESSAGE("exit " << r.code << ": " << r.err);
  CHECK(r.code == 70);
  CHECK(contains(r.err, "the partitioned iteration diverged: interface residual "));
  CHECK(contains(r.err, "/coupling/allow_unconverged does not cover a diverged iteration"));
  CHECK(!contains(r.err, "nan"));
  CHECK(!contains(r.err, "000000"));
}

TEST_CASE("absurd results stop the run with exit 70 after writing that frame - naming what and the frame") {
  // These exited 0 after a warning: gravity 1e4 m/s^2 crushed the solid inside
  // out and lost 94 % of the liquid; weak coupling flung a density-1 solid at
  // 10 times the speed the scene's energy explains.
  ScratchDir dir("hostile");
  const Result crushed = run_scene(dir, "--frames 4 --set '/gravity=[0,-1e4,0]'");
  MESSAGE("exit " << crushed.code << ": " << crushed.err);
  CHECK(crushed.code == 70);
  CHECK(contains(crushed.err, "absurd result at frame 1: solid \"block\" has volume -"));
  CHECK(contains(crushed.err, "turned inside out; "));
  CHECK(contains(crushed.err, "; stopped after writing frame 1"));
  CHECK(contains(crushed.err, "\"on_absurd\": \"warn\""));
  CHECK(fs::exists(dir / "out" / "block.0001.obj"));
  CHECK(fs::exists(dir / "out" / "liquid.0001.vdb"));
  CHECK(!fs::exists(dir / "out" / "block.0002.obj"));
  CHECK(fsicut::test::read_file(dir / "out" / "stats.jsonl").find("\"frame\":1") != std::string::npos);

  const Result flung = run_scene(dir, "--frames 4 --set /coupling/scheme=weak --set /solids/0/density=1");
  MESSAGE("exit " << flung.code << ": " << flung.err);
  CHECK(flung.code == 70);
  CHECK(contains(flung.err, "absurd result at frame 1: solid \"block\" has kinetic energy "));
  CHECK(contains(flung.err, "the fastest speed the scene's gravity, domain, initial velocities and compression explain"));

  const Result lost = run_scene(dir, "--frames 1 --set '/gravity=[0,-1e4,0]' --set /coupling/scheme=xpm");
  MESSAGE("exit " << lost.code << ": " << lost.err);
  CHECK(lost.code == 70);
  CHECK(contains(lost.err, "absurd result at frame 1: the liquid volume is "));
  CHECK(contains(lost.err, "from frame 0's 0.2344 m^3 (bound 50 %)"));
}

TEST_CASE("on_absurd warn keeps a study going with one warning per kind - other values exit 65") {
  ScratchDir dir("hostile");
  const Result r = run_scene(dir, "--frames 3 --set '/gravity=[0,-1e4,0]' --set /on_absurd=warn", BASE,
                             /*quiet=*/false);
  MESSAGE("exit " << r.code << ": " << r.err);
  CHECK(r.code == 0);
  const std::size_t first = r.err.find("turned inside out (on_absurd: warn, the run goes on)");
  CHECK(first != std::string::npos);
  CHECK(r.err.find("turned inside out", first + 1) == std::string::npos);
  CHECK(fs::exists(dir / "out" / "block.0003.obj"));
  check_refused("--validate --set /on_absurd=ignore", "/on_absurd", "unknown on_absurd \"ignore\"; expected one of: stop warn");
}

TEST_CASE("a reduced body with hundreds of modes exits 65 with the bound and its reason (2181 took 23 s to validate)") {
  std::string scene = BASE;
  scene.replace(scene.find("\"cells\": [8, 4, 4]"), 18, "\"cells\": [8, 8, 8]");
  scene.replace(scene.find("\"youngs_modulus\": 2e4"), 21, "\"youngs_modulus\": 2e4, \"model\": \"reduced\"");
  check_refused("--validate --set /solids/0/modes=2181", "/solids/0/modes",
                "must be at most 200, got 2181: a reduced body's solve is dense in its modes", scene);
  CHECK(fsicut::scene::parse_scene(scene, "t.json", ".", {fsicut::scene::parse_override("/solids/0/modes=200")})
            .solids[0].modes == 200);
}

TEST_CASE("running out of memory past the estimate is a clear error - not an internal one") {
  // The estimate lets the scene through (--max-memory is generous) but the
  // address space is limited to 1 GB (ulimit -v, in kB): a 400^3 grid needs
  // about 10 GB.
  ScratchDir dir("hostile");
  std::ofstream(dir / "scene.json") << BASE;
  const std::string cmd = "ulimit -v 1000000; " + quoted(fsicut::test::fsicut_exe().string()) + " " +
                          quoted((dir / "scene.json").string()) + " -q -j 1 -o " + quoted((dir / "out2").string()) +
                          " --validate --max-memory 100G --set /grid/resolution=[400,400,400] --set /grid/cell_size=0.0025" +
                          " --set '/fluid/regions=[{\"type\": \"box\", \"min\": [0, 0, 0], \"max\": [0.1, 0.1, 0.1]}]'" +
                          " --set '/solids=[]' 2>" + quoted((dir / "oom.txt").string());
  const int status = std::system(cmd.c_str());
  const std::string err = fsicut::test::read_file(dir / "oom.txt");
  MESSAGE(err);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 70);
  CHECK(contains(err, "fsicut: error: out of memory"));
  CHECK(!contains(err, "internal error"));
}

TEST_CASE("the memory limit of fsicut's control group is the default limit (cgroup v1, as root)") {
  // A memory cgroup of 64 MiB below the mount point; fsicut runs inside it.
  const fs::path group = "/sys/fs/cgroup/memory/fsicut-test-" + std::to_string(::getpid());
  std::error_code ec;
  if (!fs::create_directory(group, ec)) {
    MESSAGE("skipping: cannot create a cgroup v1 memory group here (needs root and cgroup v1)");
    return;
  }
  std::ofstream(group / "memory.limit_in_bytes") << "67108864";
  ScratchDir dir("hostile");
  std::ofstream(dir / "scene.json") << BASE;
  const auto run_in_group = [&](const std::string& args) {
    const std::string cmd = "echo $$ > " + quoted((group / "cgroup.procs").string()) + " && exec " +
                            quoted(fsicut::test::fsicut_exe().string()) + " " + quoted((dir / "scene.json").string()) +
                            " -j 1 -o " + quoted((dir / "out").string()) + " " + args + " >" +
                            quoted((dir / "stdout.txt").string()) + " 2>" + quoted((dir / "stderr.txt").string());
    const int status = std::system(cmd.c_str());
    return Result{WIFEXITED(status) ? WEXITSTATUS(status) : -1, fsicut::test::read_file(dir / "stdout.txt"),
                  fsicut::test::read_file(dir / "stderr.txt")};
  };
  const Result ok = run_in_group("--validate");
  const Result refused = run_in_group("--validate --set /grid/resolution=[64,64,64]");
  fs::remove(group, ec);
  MESSAGE(ok.out << refused.err);
  CHECK(ok.code == 0);
  CHECK(contains(ok.out, "(limit 67 MB, the memory available (machine or control group))"));
  CHECK(refused.code == 65);
  CHECK(contains(refused.err, "/grid/resolution"));
  CHECK(contains(refused.err, "(67 MB)"));
}

}  // TEST_SUITE
