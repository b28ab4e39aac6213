// The output folder (lib/sim/output_folder.hpp): manifest.tsv written and read
// back, a damaged line losing only its entry; what a fresh run deletes and
// keeps; a resumed run refusing frames up to its checkpoint that differ from
// the manifest; the temporaries of dead writers removed, a live writer's kept.
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "lib/core/error.hpp"
#include "lib/core/parallel.hpp"
#include "lib/io/atomic.hpp"
#include "lib/scene/load.hpp"
#include "lib/sim/cutcell/simulator.hpp"
#include "lib/sim/frame_output.hpp"
#include "lib/sim/output_folder.hpp"
#include "tests/support.hpp"

namespace fs = std::filesystem;
using namespace fsicut;
using test::ScratchDir;

namespace {

// Water and a solid named "cube": frames write liquid.NNNN.vdb and cube.NNNN.obj.
sim::CutCellSimulator water_and_cube() {
  return sim::CutCellSimulator(scene::parse_scene(R"({
    "grid": { "resolution": [8, 8, 8], "cell_size": 0.125 },
    "fluid": { "regions": [ { "type": "box", "min": [0, 0, 0], "max": [0.5, 0.25, 0.5] } ] },
    "solids": [ { "name": "cube", "mesh": { "type": "box", "min": [0.25, 0.5, 0.25], "max": [0.5, 0.75, 0.5],
                  "cells": [1, 1, 1] }, "density": 500, "youngs_modulus": 1e5 } ] })",
                                                  "test.json", "."));
}

void write(const fs::path& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

// Writes frames 0..last of `s` (its state as it is) into `dir` as the frame
// loop does, and returns their manifest.
sim::Manifest write_frames(sim::CutCellSimulator& s, const fs::path& dir, int last) {
  sim::Manifest manifest;
  for (int f = 0; f <= last; ++f) {
    s.frame = f;
    for (const auto& [name, digest] : sim::write_frame(s.capture_frame(), dir)) manifest[name] = digest;
  }
  sim::write_manifest(dir, manifest);
  return manifest;
}

// A pid that no longer exists: a child that exited and was reaped.
pid_t dead_pid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  REQUIRE(child > 0);
  int status = 0;
  ::waitpid(child, &status, 0);
  return child;
}

}  // namespace

TEST_CASE("output folder: the manifest reads back what was written - sorted - one line per file") {
  ScratchDir dir("output-folder");
  CHECK(sim::read_manifest(dir.path()).empty());  // none yet
  const sim::Manifest m = {{"liquid.0001.vdb", {123456, 0x0123456789abcdefULL}},
                           {"cube.0001.obj", {0, 0}},
                           {"cube.12345.obj", {~0ULL >> 1, ~0ULL}}};
  sim::write_manifest(dir.path(), m);
  CHECK(sim::read_manifest(dir.path()) == m);
  CHECK(test::read_file(dir / sim::MANIFEST_FILE) ==
        "cube.0001.obj\t0\t0000000000000000\n"
        "cube.12345.obj\t9223372036854775807\tffffffffffffffff\n"
        "liquid.0001.vdb\t123456\t0123456789abcdef\n");
  sim::write_manifest(dir.path(), {});
  CHECK(sim::read_manifest(dir.path()).empty());
}

TEST_CASE("output folder: a damaged manifest line drops only its entry") {
  ScratchDir dir("output-folder");
  write(dir / sim::MANIFEST_FILE,
        "a.0000.obj\t10\t00000000000000aa\n"
        "b.0000.obj\tten\t00000000000000bb\n"  // size not a number
        "c.0000.obj\t12\n"                     // no checksum
        "\n"
        "d.0000.obj\t13\tzz\n"                 // checksum not hex
        "e.0000.obj\t14\t00000000000000ee\n"
        "f.0000.obj\t15\t00000000000000f");    // truncated last line: still a number
  const sim::Manifest m = sim::read_manifest(dir.path());
  CHECK(m.size() == 3);
  CHECK(m.at("a.0000.obj") == io::FileDigest{10, 0xaa});
  CHECK(m.at("e.0000.obj") == io::FileDigest{14, 0xee});
  CHECK(m.at("f.0000.obj") == io::FileDigest{15, 0xf});
  for (const char* gone : {"b.0000.obj", "c.0000.obj", "d.0000.obj"}) CHECK_MESSAGE(m.count(gone) == 0, gone);
}

TEST_CASE("output folder: a fresh run deletes earlier frames of this scene and listed frame files - keeps the rest") {
  ScratchDir dir("output-folder");
  const sim::CutCellSimulator s = water_and_cube();
  REQUIRE(s.frame_file_names(0) == std::vector<std::string>{"liquid.0000.vdb", "cube.0000.obj"});
  const std::vector<std::string> deleted = {"liquid.0000.vdb", "liquid.0123.vdb", "liquid.12345.vdb",
                                            "cube.0005.obj",   "cube.12345.obj",  "old.0003.obj",
                                            "smoke.0002.vdb", sim::MANIFEST_FILE, sim::PROBES_FILE};
  const std::vector<std::string> kept = {
      "notes.txt",       "liquid.txt",     "liquid.0001.txt", "liquid.001.vdb", "liquid.00a1.vdb",
      "cube.0005.vdb",   "other.0003.obj", "stats.jsonl",     "cube.obj",       "my.liquid.0001.vdb"};
  for (const std::string& name : deleted) write(dir / name, "x");
  for (const std::string& name : kept) write(dir / name, "x");
  // A folder with a frame's name is not a file to delete.
  fs::create_directory(dir / "liquid.0009.vdb");
  // The earlier run's manifest lists another solid's frames, and names that
  // are not frame files, which are not deleted.
  write(dir / sim::MANIFEST_FILE,
        "old.0003.obj\t1\t0000000000000001\n"
        "smoke.0002.vdb\t1\t0000000000000001\n"
        "notes.txt\t1\t0000000000000001\n"
        "stats.jsonl\t1\t0000000000000001\n");
  sim::prepare_folder(s, dir.path(), sim::read_manifest(dir.path()), /*resumed=*/false);
  for (const std::string& name : deleted) CHECK_MESSAGE(!fs::exists(dir / name), name << " not deleted");
  for (const std::string& name : kept) CHECK_MESSAGE(fs::exists(dir / name), name << " deleted");
  CHECK(fs::is_directory(dir / "liquid.0009.vdb"));
  CHECK(test::read_file(dir / "notes.txt") == "x");
  // run.json is written for the run about to start.
  CHECK(test::read_file(dir / "run.json") == sim::run_record(s.scene, threads()));
}

TEST_CASE("output folder: a resumed run refuses a frame up to the checkpoint that differs - exit 65 naming it") {
  ScratchDir dir("output-folder");
  sim::CutCellSimulator s = water_and_cube();
  const sim::Manifest manifest = write_frames(s, dir.path(), 3);
  s.frame = 2;  // the checkpoint's frame
  for (int f = 0; f <= 3; ++f) {
    s.frame = f;
    CHECK(sim::frame_verified(s.capture_frame(), dir.path(), manifest));
  }
  s.frame = 2;
  sim::prepare_folder(s, dir.path(), sim::read_manifest(dir.path()), /*resumed=*/true);
  CHECK(fs::exists(dir / "run.json"));

  SUBCASE("a changed byte") {
    std::string bytes = test::read_file(dir / "cube.0001.obj");
    bytes[bytes.size() / 2] ^= 1;
    write(dir / "cube.0001.obj", bytes);
  }
  SUBCASE("a missing file") { fs::remove(dir / "cube.0001.obj"); }
  SUBCASE("a truncated file") {
    const std::string bytes = test::read_file(dir / "cube.0001.obj");
    write(dir / "cube.0001.obj", bytes.substr(0, bytes.size() - 1));
  }
  s.frame = 1;
  CHECK_FALSE(sim::frame_verified(s.capture_frame(), dir.path(), manifest));
  s.frame = 2;
  try {
    sim::prepare_folder(s, dir.path(), manifest, /*resumed=*/true);
    FAIL("no exception");
  } catch (const Error& e) {
    const std::string what = e.what();
    MESSAGE(what);
    CHECK(e.code() == ExitCode::data);
    CHECK(static_cast<int>(e.code()) == 65);
    CHECK(what.find("cube.0001.obj") != std::string::npos);
    CHECK(what.find("frame 2") != std::string::npos);
    CHECK(what.find("liquid.0001.vdb") == std::string::npos);  // only what differs
  }
  // A resume from frame 0 does not look at frame 1.
  s.frame = 0;
  CHECK_NOTHROW(sim::prepare_folder(s, dir.path(), manifest, /*resumed=*/true));
}

TEST_CASE("output folder: a resumed run keeps frames past the checkpoint and ones the manifest does not list") {
  ScratchDir dir("output-folder");
  sim::CutCellSimulator s = water_and_cube();
  sim::Manifest manifest = write_frames(s, dir.path(), 2);
  // Past the checkpoint: it will be written again.
  write(dir / "cube.0002.obj", "changed");
  // Unlisted (an older fsicut wrote it): kept unverified.
  manifest.erase("liquid.0001.vdb");
  write(dir / "liquid.0001.vdb", "unknown");
  s.frame = 1;
  CHECK_NOTHROW(sim::prepare_folder(s, dir.path(), manifest, /*resumed=*/true));
  CHECK(test::read_file(dir / "cube.0002.obj") == "changed");
  CHECK(test::read_file(dir / "liquid.0001.vdb") == "unknown");
  CHECK_FALSE(sim::frame_verified(s.capture_frame(), dir.path(), manifest));  // not listed: not verified
}

TEST_CASE("output folder: remove_stale_temporaries removes a dead writer's temporary - keeps a live one's") {
  ScratchDir dir("output-folder");
  const pid_t dead = dead_pid();
  // A live writer other than this process: a child kept waiting until the end.
  const pid_t live = ::fork();
  if (live == 0) {
    ::pause();
    ::_exit(0);
  }
  REQUIRE(live > 0);
  const std::string stale = ".liquid.0001.vdb.tmp-" + std::to_string(dead) + "-1";
  const std::string stale_manifest = ".manifest.tsv.tmp-" + std::to_string(dead) + "-27";
  const std::vector<std::string> kept = {
      ".liquid.0002.vdb.tmp-" + std::to_string(live) + "-1",       // a live writer's
      ".liquid.0003.vdb.tmp-" + std::to_string(::getpid()) + "-4",  // ours
      "liquid.0001.vdb.tmp-" + std::to_string(dead) + "-1",        // not hidden: not our name
      ".x.tmp-abc-1",                                               // not a pid
      ".x.tmp-" + std::to_string(dead),                             // no counter
      ".x.tmp-1234567890-1",                                        // longer than a pid
      "liquid.0001.vdb"};
  write(dir / stale, "partial");
  write(dir / stale_manifest, "partial");
  for (const std::string& name : kept) write(dir / name, "x");
  sim::remove_stale_temporaries(dir.path());
  ::kill(live, SIGKILL);
  int status = 0;
  ::waitpid(live, &status, 0);
  CHECK_FALSE(fs::exists(dir / stale));
  CHECK_FALSE(fs::exists(dir / stale_manifest));
  for (const std::string& name : kept) CHECK_MESSAGE(fs::exists(dir / name), name << " removed");
  // The live writer gone, its temporary is stale too.
  sim::remove_stale_temporaries(dir.path());
  CHECK_FALSE(fs::exists(dir / kept[0]));
  CHECK(fs::exists(dir / kept[1]));
}
