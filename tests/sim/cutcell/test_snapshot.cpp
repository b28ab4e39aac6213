// Checkpoints of a simulation (lib/sim/snapshot.hpp, the cut-cell simulator's
// save/restore): a round trip through a snapshot and its bytes restores every
// stored member bit for bit and the next steps are identical, sections are
// written only when used, damaged files are skipped and deleted, malformed
// sections are refused naming them, scene changes are named, a checkpoint of
// another scene does not fit, a stopped run resumes.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "lib/checkpoint/files.hpp"
#include "lib/checkpoint/format.hpp"
#include "lib/core/cancel.hpp"
#include "lib/core/hash.hpp"
#include "lib/core/timer.hpp"
#include "lib/scene/load.hpp"
#include "lib/sim/advance.hpp"
#include "lib/sim/run.hpp"
#include "lib/sim/snapshot.hpp"
#include "lib/sim/cutcell/simulator.hpp"
#include "tests/support.hpp"

namespace fs = std::filesystem;
using namespace fsicut;
using test::ScratchDir;

namespace {

// A small dam break (16^3 cells) and a small soft block, each a few substeps in.
const char* LIQUID_SCENE = R"({
  "grid": { "resolution": [16, 16, 16], "cell_size": 0.0625 },
  "time": { "frames": 4 },
  "fluid": { "regions": [ { "type": "box", "min": [0, 0, 0], "max": [0.375, 0.75, 1] } ] } })";
const char* SOLID_SCENE = R"({
  "grid": { "resolution": [8, 8, 8], "cell_size": 0.125 },
  "time": { "frames": 4 },
  "solids": [ { "name": "block", "mesh": { "type": "box", "min": [0.25, 0.25, 0.25], "max": [0.75, 0.5, 0.5],
                "cells": [4, 2, 2] }, "youngs_modulus": 2e4, "velocity": [0.5, 1, 0] } ] })";

sim::CutCellSimulator build(const char* text, const fs::path& out) {
  scene::Scene s = scene::parse_scene(text, "test.json", out.string());
  s.output.directory = out.string();
  return sim::CutCellSimulator(s);
}

// Runs `duration` [s] further through the substep driver `fsicut` uses.
void advance(sim::CutCellSimulator& state, Real duration) { sim::advance_frames_to(state, state.time + duration); }

template <class T>
bool same_bits(const grid::Array3<T>& a, const grid::Array3<T>& b) {
  return a.size() == b.size() && std::equal(a.data().begin(), a.data().end(), b.data().begin(), [](T x, T y) {
           return std::memcmp(&x, &y, sizeof x) == 0;
         });
}

bool same_bits(const Points& a, const Points& b) {
  return a.cols() == b.cols() && std::memcmp(a.data(), b.data(), sizeof(Real) * a.size()) == 0;
}

sim::RunProgress some_progress() {
  sim::RunProgress p;
  p.stats = "{\"frame\":0}\n{\"frame\":1}\n";
  p.mid_frame = true;
  p.partial.frame = 1;
  p.partial.time = 0.1;
  p.partial.substeps = 3;
  p.partial.particle_substeps = 3;  // one particle step per substep, as without time/particle_cfl
  p.partial.cfl_exceeded = 1;
  p.partial.solves = 3;
  p.partial.solver = {true, false, 17, 3.5e-11, 1e-13, 1234, "no failure"};
  p.partial.seconds = {{"advection", 0.25}, {"projection", 1.5}};
  p.partial.partitioned = coupling::PartitionedReport{true, 7, 2.5e-4, 0.5, 0.125, 0.0625};
  p.probes = "time,wall\n0.01,12.5\n";
  p.partial.probe_rows = "0.04,980.25\n0.045,990.5\n";
  p.partial.loads.seconds = 0.015;
  p.partial.loads.obstacles = {{Vec3(1, 2, 3), Vec3(-4, 5, 0.25)}};
  p.partial.loads.solids = {{Vec3(0.5, 0, 1e-300), Vec3(0, -0.125, 8)}, {Vec3(7, 7, 7), Vec3(-1, -2, -3)}};
  return p;
}

// The 4-byte tags of a checkpoint's sections in order.
std::string tags(const std::string& bytes) {
  std::string result;
  std::size_t at = 32;
  while (at < bytes.size()) {
    result += bytes.substr(at, 4) + " ";
    std::uint64_t size;
    std::memcpy(&size, bytes.data() + at + 8, 8);
    at += 16 + size;
  }
  return result;
}

// Rewrites the header's hash after `bytes` were changed on purpose.
void rehash(std::string& bytes) {
  const std::uint64_t hash = fnv1a(bytes.data() + 32, bytes.size() - 32);
  std::memcpy(&bytes[24], &hash, 8);
}

}  // namespace

TEST_SUITE("checkpoint") {

// The bytes of the checkpoint of `state`, and back into a state.
std::string encode(const sim::CutCellSimulator& state, const sim::RunProgress& progress) {
  return checkpoint::encode(sim::to_snapshot(state, progress));
}
void restore(const std::string& bytes, sim::CutCellSimulator& state, sim::RunProgress& progress) {
  sim::restore_snapshot(checkpoint::decode(bytes, "mem"), "mem", state, progress);
}

TEST_CASE("a liquid state survives the round trip bit for bit and the next step is identical") {
  ScratchDir dir("checkpoint");
  sim::CutCellSimulator a = build(LIQUID_SCENE, dir.path());
  advance(a, 0.03);
  const std::string bytes = encode(a, some_progress());

  sim::CutCellSimulator b = build(LIQUID_SCENE, dir.path());
  sim::RunProgress p;
  restore(bytes, b, p);
  CHECK(b.time == a.time);
  CHECK(b.frame == a.frame);
  const fluid::Liquid &la = *a.liquid, &lb = *b.liquid;
  CHECK(same_bits(la.particles, lb.particles));
  for (int d = 0; d < 3; ++d) {
    CHECK(same_bits(la.velocity[d], lb.velocity[d]));
    CHECK(same_bits(la.fractions[d], lb.fractions[d]));
    CHECK(same_bits(la.valid[d], lb.valid[d]));
  }
  CHECK(same_bits(la.pressure, lb.pressure));
  CHECK(same_bits(la.liquid_phi, lb.liquid_phi));
  CHECK(same_bits(la.static_phi, lb.static_phi));
  CHECK(same_bits(la.solid_phi, lb.solid_phi));
  // The clock and the frame's statistics so far, member for member (CLCK, MEAS).
  const checkpoint::Info info = checkpoint::inspect(bytes, "mem");
  CHECK(info.time == a.time);
  CHECK(info.frame == a.frame);
  CHECK(info.mid_frame);
  CHECK(p.stats == some_progress().stats);
  CHECK(p.mid_frame);
  CHECK(p.partial.frame == 1);
  CHECK(p.partial.time == 0.1);
  CHECK(p.partial.substeps == 3);
  CHECK(p.partial.cfl_exceeded == 1);
  CHECK(p.partial.solves == 3);
  CHECK(p.partial.solver.iterations == 17);
  CHECK(p.partial.solver.converged);
  CHECK_FALSE(p.partial.solver.met_tolerance);
  CHECK(p.partial.solver.relative_residual == 3.5e-11);
  CHECK(p.partial.solver.round_off_floor == 1e-13);
  CHECK(p.partial.solver.unknowns == 1234);
  CHECK(p.partial.solver.failure == "no failure");
  CHECK(p.partial.seconds == some_progress().partial.seconds);
  REQUIRE(p.partial.partitioned);
  CHECK(p.partial.partitioned->converged);
  CHECK(p.partial.partitioned->iterations == 7);
  CHECK(p.partial.partitioned->interface_residual == 2.5e-4);
  CHECK(p.partial.partitioned->fluid_seconds == 0.5);
  CHECK(p.partial.partitioned->solid_seconds == 0.125);
  CHECK(p.partial.partitioned->interface_seconds == 0.0625);
  CHECK(p.probes == some_progress().probes);
  CHECK(p.partial.probe_rows == some_progress().partial.probe_rows);
  CHECK(p.partial.loads.seconds == 0.015);
  REQUIRE(p.partial.loads.obstacles.size() == 1);
  CHECK(p.partial.loads.obstacles[0].force == Vec3(1, 2, 3));
  CHECK(p.partial.loads.obstacles[0].torque == Vec3(-4, 5, 0.25));
  REQUIRE(p.partial.loads.solids.size() == 2);
  CHECK(p.partial.loads.solids[0].force == Vec3(0.5, 0, 1e-300));
  CHECK(p.partial.loads.solids[0].torque == Vec3(0, -0.125, 8));
  CHECK(p.partial.loads.solids[1].force == Vec3(7, 7, 7));
  CHECK(p.partial.loads.solids[1].torque == Vec3(-1, -2, -3));
  // Liquid alone: no REDU, SURF or PIEC; MEAS for the probes and loads.
  CHECK(tags(bytes) == "META CLCK STAT SOLD LIQD MEAS ");
  // Encoding the restored state gives the same bytes.
  CHECK(encode(b, p) == bytes);

  advance(a, 0.02);
  advance(b, 0.02);
  CHECK(same_bits(la.particles, lb.particles));
  for (int d = 0; d < 3; ++d) CHECK(same_bits(la.velocity[d], lb.velocity[d]));
  CHECK(same_bits(la.pressure, lb.pressure));
}

TEST_CASE("a solid state survives the round trip - rotations are recomputed and the next step is identical") {
  ScratchDir dir("checkpoint");
  // Linear elements, then quadratic ones (their mid-edge nodes are state like the corners).
  for (const std::string element : {"linear", "quadratic"}) {
    CAPTURE(element);
    std::string text = SOLID_SCENE;
    text.insert(text.find("\"youngs_modulus\""), "\"element\": \"" + element + "\", ");
    sim::CutCellSimulator a = build(text.c_str(), dir.path());
    advance(a, 0.04);
    const std::string bytes = encode(a, {});
    sim::CutCellSimulator b = build(text.c_str(), dir.path());
    CHECK(b.solids[0].quadratic() == (element == "quadratic"));
    sim::RunProgress p;
    restore(bytes, b, p);
    // Solids alone, at a frame's end: no REDU, SURF, MEAS or PIEC, no partial frame.
    CHECK(tags(bytes) == "META CLCK STAT SOLD LIQD ");
    CHECK_FALSE(p.mid_frame);
    CHECK_FALSE(p.partial.partitioned);
    CHECK(p.partial.seconds.empty());
    CHECK(encode(b, p) == bytes);
    REQUIRE(b.solids.size() == 1);
    CHECK(same_bits(a.solids[0].x, b.solids[0].x));
    CHECK(same_bits(a.solids[0].v, b.solids[0].v));
    for (Index t = 0; t < a.solids[0].num_tets(); ++t) CHECK(a.solids[0].R[t] == b.solids[0].R[t]);
    advance(a, 0.03);
    advance(b, 0.03);
    CHECK(same_bits(a.solids[0].x, b.solids[0].x));
    CHECK(same_bits(a.solids[0].v, b.solids[0].v));
  }
}

TEST_CASE("a body in water survives the round trip bit for bit - full or reduced - and the next steps are identical") {
  ScratchDir dir("checkpoint");
  // A spinning, deforming block falling into water: for a reduced one R, T, q
  // and their rates all move. The next substep's particle paths read the
  // surfaces of the last stage 4, which the checkpoint keeps (SURF).
  for (const std::string model : {R"("model": "full")", R"("model": "reduced", "modes": 5)"}) {
    CAPTURE(model);
    const std::string text = std::string(R"({
      "grid": { "resolution": [10, 10, 10], "cell_size": 0.1 },
      "fluid": { "regions": [ { "type": "box", "min": [0, 0, 0], "max": [1, 0.4, 1] } ] },
      "solids": [ { "name": "block", "mesh": { "type": "box", "min": [0.3, 0.5, 0.4], "max": [0.7, 0.7, 0.6],
                    "cells": [4, 2, 2] }, "youngs_modulus": 2e4, "density": 600, "velocity": [0.5, -1, 0], )") +
                             model + " } ] }";
    sim::CutCellSimulator a = build(text.c_str(), dir.path());
    advance(a, 0.1);
    const std::string bytes = encode(a, {});
    sim::CutCellSimulator b = build(text.c_str(), dir.path());
    sim::RunProgress p;
    restore(bytes, b, p);
    REQUIRE(b.reduced.size() == 1);
    REQUIRE(a.reduced[0].has_value() == b.reduced[0].has_value());
    if (a.reduced[0]) {
      const solid::ReducedState &ra = a.reduced[0]->state, &rb = b.reduced[0]->state;
      CHECK(ra.q.norm() > 0);
      CHECK(ra.omega.norm() > 0);
      CHECK(std::memcmp(ra.R.data(), rb.R.data(), sizeof(Real) * 9) == 0);
      CHECK(ra.T == rb.T);
      CHECK(ra.v == rb.v);
      CHECK(ra.omega == rb.omega);
      CHECK(ra.q == rb.q);
      CHECK(ra.qdot == rb.qdot);
    }
    CHECK(same_bits(a.solids[0].x, b.solids[0].x));
    CHECK(encode(b, p) == bytes);
    CHECK(tags(bytes) == (a.reduced[0] ? "META CLCK STAT SOLD LIQD REDU SURF " : "META CLCK STAT SOLD LIQD SURF "));
    advance(a, 0.05);
    advance(b, 0.05);
    CHECK(same_bits(a.solids[0].x, b.solids[0].x));
    CHECK(same_bits(a.solids[0].v, b.solids[0].v));
    CHECK(same_bits(a.liquid->particles, b.liquid->particles));
  }
}

TEST_CASE("water beside a moving thin wall survives the round trip bit for bit - its pieces' velocities too") {
  ScratchDir dir("checkpoint");
  // A wall half a cell thick inside the cells x = 8 (0.40 .. 0.45 m), pinned
  // at its ends, water flush against it: the cells it crosses split, and the
  // next substep's particles read the velocities of the pieces on their side
  // (fluid/pieces.hpp), which the checkpoint keeps (PIEC).
  const char* text = R"({
    "grid": { "resolution": [16, 12, 2], "cell_size": 0.05 },
    "fluid": { "regions": [ { "type": "box", "min": [0, 0, 0], "max": [0.4, 0.45, 0.1] } ] },
    "solids": [ { "name": "wall", "mesh": { "type": "box", "min": [0.41, 0, 0], "max": [0.435, 0.6, 0.1], "cells": [1, 12, 2] },
                  "youngs_modulus": 5e5, "density": 1000,
                  "pinned": [ { "type": "box", "min": [0.3, -0.1, -0.1], "max": [0.5, 0.001, 0.2] },
                              { "type": "box", "min": [0.3, 0.599, -0.1], "max": [0.5, 0.7, 0.2] } ] } ] })";
  sim::CutCellSimulator a = build(text, dir.path());
  advance(a, 0.1);
  REQUIRE(!a.liquid->split.empty());
  REQUIRE(!a.liquid->pieces.empty());
  const std::string bytes = encode(a, {});
  sim::CutCellSimulator b = build(text, dir.path());
  sim::RunProgress p;
  restore(bytes, b, p);
  for (int axis = 0; axis < 3; ++axis) CHECK(b.liquid->pieces.faces[axis] == a.liquid->pieces.faces[axis]);
  CHECK(encode(b, p) == bytes);
  CHECK(tags(bytes) == "META CLCK STAT SOLD LIQD SURF PIEC ");
  advance(a, 0.05);
  advance(b, 0.05);
  CHECK(same_bits(a.solids[0].x, b.solids[0].x));
  CHECK(same_bits(a.liquid->particles, b.liquid->particles));
}

TEST_CASE("water beside a moving thin wall at time/cfl 3 in particle steps of one cell: the round trip and the next steps are bit for bit") {
  // The particle steps keep nothing between substeps
  // (sim/cutcell/particle_steps.hpp): a checkpoint at 0.4 s, once the wall
  // moves and the water with it, resumes as the run goes on.
  ScratchDir dir("checkpoint");
  const char* text = R"({
    "grid": { "resolution": [16, 12, 2], "cell_size": 0.05 },
    "time": { "cfl": 3, "particle_cfl": 1 },
    "fluid": { "regions": [ { "type": "box", "min": [0, 0, 0], "max": [0.4, 0.45, 0.1] } ] },
    "solids": [ { "name": "wall", "mesh": { "type": "box", "min": [0.41, 0, 0], "max": [0.435, 0.6, 0.1], "cells": [1, 12, 2] },
                  "youngs_modulus": 5e5, "density": 1000,
                  "pinned": [ { "type": "box", "min": [0.3, -0.1, -0.1], "max": [0.5, 0.001, 0.2] },
                              { "type": "box", "min": [0.3, 0.599, -0.1], "max": [0.5, 0.7, 0.2] } ] } ] })";
  sim::CutCellSimulator a = build(text, dir.path());
  int steps = 0, substeps = 0;
  sim::AdvanceHooks hooks;
  hooks.after_substep = [&](const sim::Simulator&, const sim::StepReport& r) {
    steps += r.particle_steps;
    ++substeps;
  };
  sim::advance_frames_to(a, 0.4, hooks);
  MESSAGE(substeps << " substeps, " << steps << " particle steps to 0.4 s");
  CHECK(steps > substeps);
  const std::string bytes = encode(a, {});
  sim::CutCellSimulator b = build(text, dir.path());
  sim::RunProgress p;
  restore(bytes, b, p);
  CHECK(encode(b, p) == bytes);
  advance(a, 0.05);
  advance(b, 0.05);
  CHECK(same_bits(a.solids[0].x, b.solids[0].x));
  CHECK(same_bits(a.liquid->particles, b.liquid->particles));
}

// Members are listed in lib/sim/cutcell/snapshot.cpp and lib/sim/snapshot.cpp
// as stored or derived (the runtime types' members in lib/checkpoint's
// codecs, whose tests check those sizes). A new member changes the struct's
// size: decide whether it is state, write it in save and read it in restore
// (and the checkpoint format), then the sizes here. Sizes are those of x86-64
// with libstdc++, where CI runs.
TEST_CASE("the checkpointed structs have the members snapshot.cpp lists") {
#if defined(__x86_64__) && defined(__GLIBCXX__)
  CHECK_MESSAGE(sizeof(sim::CutCellSimulator) == 2808, "sim::CutCellSimulator changed: update lib/sim/cutcell/snapshot.cpp");
  CHECK_MESSAGE(sizeof(sim::FrameStats) == 288, "sim::FrameStats changed: update lib/sim/snapshot.cpp");
  CHECK_MESSAGE(sizeof(sim::RunProgress) == 480, "sim::RunProgress changed: update lib/sim/snapshot.cpp");
  CHECK_MESSAGE(sizeof(sim::LoadTally) == 56, "sim::LoadTally changed: update lib/sim/snapshot.cpp");
#else
  MESSAGE("struct sizes are only recorded for x86-64 with libstdc++");
#endif
}

TEST_CASE("resume skips a damaged newest checkpoint: restores the previous one and deletes the damaged one") {
  ScratchDir dir("checkpoint");
  sim::CutCellSimulator a = build(SOLID_SCENE, dir.path());
  advance(a, 0.02);
  a.frame = 1;
  sim::write_checkpoint(dir.path(), a, {}, 3);
  const Points x1 = a.solids[0].x;
  advance(a, 0.02);
  a.frame = 2;
  const fs::path newest = sim::write_checkpoint(dir.path(), a, {}, 3);
  fs::resize_file(newest, fs::file_size(newest) - 100);

  sim::CutCellSimulator b = build(SOLID_SCENE, dir.path());
  sim::RunProgress p;
  const auto r = sim::resume_checkpoint(dir.path(), b, p, false);
  REQUIRE(r);
  CHECK(r->file == checkpoint::file_name(dir.path(), 1));
  CHECK(b.frame == 1);
  CHECK(same_bits(b.solids[0].x, x1));
  CHECK_FALSE(fs::exists(newest));
}

TEST_CASE("no checkpoint: resume says so and leaves the state alone") {
  ScratchDir dir("checkpoint");
  sim::CutCellSimulator b = build(SOLID_SCENE, dir.path());
  const Points x0 = b.solids[0].x;
  sim::RunProgress p;
  CHECK_FALSE(sim::resume_checkpoint(dir.path(), b, p, false));
  CHECK(same_bits(b.solids[0].x, x0));
}

TEST_CASE("a changed scene is refused naming the keys unless forced - frames and folder may change") {
  ScratchDir dir("checkpoint");
  sim::CutCellSimulator a = build(SOLID_SCENE, dir.path());
  a.frame = 2;
  sim::write_checkpoint(dir.path(), a, {}, 2);

  sim::CutCellSimulator same = build(SOLID_SCENE, dir.path());
  same.scene.time.frames = 40;
  same.scene.output.checkpoint_every = 3;
  sim::RunProgress p;
  CHECK(sim::resume_checkpoint(dir.path(), same, p, false));

  sim::CutCellSimulator changed = build(SOLID_SCENE, dir.path());
  changed.scene.gravity = Vec3(0, -5, 0);
  changed.scene.solids[0].density = 800;
  const std::string what = test::require_error<Error>(
      [&] { sim::resume_checkpoint(dir.path(), changed, p, false); },
      {"the scene changed since", "/gravity: [0.0,-9.81,0.0] -> [0.0,-5.0,0.0]", "/solids/0/density: 1000.0 -> 800.0",
       "--force"});
  try {
    sim::resume_checkpoint(dir.path(), changed, p, false);
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::data);
  }
  CHECK(sim::resume_checkpoint(dir.path(), changed, p, true));
  CHECK(changed.frame == 2);
}

TEST_CASE("a checkpoint from another grid or other solids does not fit even forced") {
  ScratchDir dir("checkpoint");
  sim::CutCellSimulator a = build(SOLID_SCENE, dir.path());
  sim::write_checkpoint(dir.path(), a, {}, 2);
  sim::CutCellSimulator liquid = build(LIQUID_SCENE, dir.path());
  sim::RunProgress p;
  test::require_error<Error>([&] { sim::resume_checkpoint(dir.path(), liquid, p, true); }, {"does not fit this scene"});
}

TEST_CASE("a snapshot that does not fit the scene's grid or solids is refused naming what and where") {
  ScratchDir dir("checkpoint");
  sim::CutCellSimulator liquid = build(LIQUID_SCENE, dir.path());
  const checkpoint::Snapshot s = sim::to_snapshot(liquid, {});
  std::string coarse = LIQUID_SCENE;
  coarse.replace(coarse.find("[16, 16, 16], \"cell_size\": 0.0625"), 33, "[12, 12, 12], \"cell_size\": 0.1");
  sim::CutCellSimulator other = build(coarse.c_str(), dir.path());
  sim::RunProgress p;
  const std::string grid = test::require_error<Error>([&] { sim::restore_snapshot(s, "f", other, p); }, {});
  CHECK(grid == "f (section LIQD): does not fit this scene: face velocities is 17 x 16 x 16, the scene's grid "
                "needs 13 x 12 x 12");
  sim::CutCellSimulator solid = build(SOLID_SCENE, dir.path());
  const std::string solids = test::require_error<Error>([&] { sim::restore_snapshot(s, "f", solid, p); }, {});
  CHECK(solids == "f (section SOLD): does not fit this scene: 0 solids in the checkpoint, 1 in the scene");
  sim::CutCellSimulator odd = build(SOLID_SCENE, dir.path());
  odd.solids[0].v.conservativeResize(3, 2);
  const checkpoint::Snapshot block = sim::to_snapshot(odd, {});
  const std::string nodes = test::require_error<Error>([&] { sim::restore_snapshot(block, "f", solid, p); }, {});
  CHECK(nodes == "f (section SOLD): does not fit this scene: solid \"block\" velocities has 2 nodes in the "
                 "checkpoint, " + std::to_string(solid.solids[0].num_nodes()) + " in the scene");
}

TEST_CASE("a missing or malformed section is refused naming the file and the section") {
  ScratchDir dir("checkpoint");
  sim::CutCellSimulator liquid = build(LIQUID_SCENE, dir.path());
  const std::string bytes = encode(liquid, some_progress());
  sim::RunProgress p;
  // STAT renamed: the file is intact, the section missing.
  std::string renamed = bytes;
  renamed.replace(renamed.find("STAT"), 4, "XXXX");
  rehash(renamed);
  sim::CutCellSimulator b = build(LIQUID_SCENE, dir.path());
  test::require_error<checkpoint::CorruptError>([&] { restore(renamed, b, p); }, {"mem: section STAT is missing"});
  // The first face-velocity array says u8 instead of f64.
  std::string retyped = bytes;
  const std::size_t kind_at =
      retyped.find("LIQD") + 16 + 1 + 8 + 8 + 8 + 3 * sizeof(Real) * liquid.liquid->particles.cols();
  REQUIRE(retyped[kind_at] == 1);
  retyped[kind_at] = 2;
  rehash(retyped);
  test::require_error<checkpoint::CorruptError>([&] { restore(retyped, b, p); },
                                                {"mem (section LIQD): face velocities: unexpected element type"});
  // MEAS's obstacle load sums cut short, the section one byte shorter.
  std::string cut = bytes;
  const std::size_t meas = cut.find("MEAS");
  std::uint64_t size;
  std::memcpy(&size, cut.data() + meas + 8, 8);
  cut.erase(meas + 16 + size - 1, 1);
  --size;
  std::memcpy(&cut[meas + 8], &size, 8);
  const std::uint64_t payload = cut.size() - 32;
  std::memcpy(&cut[16], &payload, 8);
  rehash(cut);
  test::require_error<checkpoint::CorruptError>(
      [&] { restore(cut, b, p); }, {"mem (section MEAS): obstacle loads: more values than the data holds"});
  // A byte more in CLCK than its codec reads.
  std::string padded = bytes;
  const std::size_t clock = padded.find("CLCK");
  std::memcpy(&size, padded.data() + clock + 8, 8);
  padded.insert(clock + 16 + size, 1, '\0');
  ++size;
  std::memcpy(&padded[clock + 8], &size, 8);
  const std::uint64_t more = padded.size() - 32;
  std::memcpy(&padded[16], &more, 8);
  rehash(padded);
  test::require_error<checkpoint::CorruptError>([&] { restore(padded, b, p); },
                                                {"mem (section CLCK): 1 bytes after the end of its content"});
  // None of it touched the progress; the intact bytes still restore.
  CHECK(p.stats.empty());
  restore(bytes, b, p);
  CHECK(p.stats == some_progress().stats);
}

TEST_CASE("a stopped run checkpoints and throws temp_fail - its resume writes the same frames") {
  // The flag is raised once frame 1 is on disk: the run stops at its next
  // check, before or inside frame 2. (Stops inside a frame: tests/app/test_resume.)
  ScratchDir dir("checkpoint");
  const fs::path ref = dir / "ref", cut = dir / "cut";
  sim::CutCellSimulator r = build(LIQUID_SCENE, ref);
  sim::run(r);

  sim::CutCellSimulator s = build(LIQUID_SCENE, cut);
  volatile std::sig_atomic_t stop = 0;
  sim::RunControl control;
  control.stop = &stop;
  try {
    sim::run(s, [&](const sim::FrameReport& f) { if (f.frame == 1) stop = SIGTERM; }, control);
    FAIL("not interrupted");
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::temp_fail);
    CHECK(std::string(e.what()).find("SIGTERM") != std::string::npos);
  }
  sim::CutCellSimulator t = build(LIQUID_SCENE, cut);
  sim::RunProgress p;
  REQUIRE(sim::resume_checkpoint(cut, t, p, false));
  // Frame 1 is reported once written, while frame 2 steps: the stop comes
  // inside frame 2 or at its end.
  CHECK((t.frame == 1 || t.frame == 2));
  sim::RunControl resumed;
  resumed.resumed = &p;
  sim::run(t, {}, resumed);
  for (int f = 0; f <= 4; ++f) {
    const std::string name = "liquid.000" + std::to_string(f) + ".vdb";
    CHECK_MESSAGE(test::read_file(ref / name) == test::read_file(cut / name), name);
  }
}

TEST_CASE("a stop inside a solve abandons the substep - the checkpoint holds its start and the resume writes the same frames") {
  // A block in a pool: every substep solves the coupled system. The stop comes
  // while the third substep's system is being solved; the run leaves at the
  // solver's next iteration with a checkpoint of that substep's start (it used
  // to finish the substep, which on a large quadratic solid took 50 s).
  const char* scene = R"({
    "grid": { "resolution": [8, 8, 8], "cell_size": 0.125 },
    "time": { "frames": 3 },
    "fluid": { "regions": [ { "type": "box", "min": [0, 0, 0], "max": [1, 0.5, 1] } ] },
    "solids": [ { "name": "block", "mesh": { "type": "box", "min": [0.25, 0.375, 0.25], "max": [0.75, 0.625, 0.75],
                  "cells": [4, 2, 4] }, "density": 500, "youngs_modulus": 1e5 } ] })";
  ScratchDir dir("checkpoint");
  const fs::path ref = dir / "ref", cut = dir / "cut";
  sim::CutCellSimulator r = build(scene, ref);
  sim::run(r);

  sim::CutCellSimulator s = build(scene, cut);
  volatile std::sig_atomic_t stop = 0;
  sim::RunControl control;
  control.stop = &stop;
  control.abandonable_seconds = 0;
  int systems = 0, frame = -1;
  Real started = -1;
  control.observe = [&](const coupling::CoupledSystem&) {
    if (++systems != 3) return;
    stop = SIGTERM;
    started = s.time;
    frame = s.frame;
  };
  const std::string message = test::require_error<Error>([&] { sim::run(s, {}, control); }, {"interrupted by SIGTERM"});
  CHECK(systems == 3);
  sim::CutCellSimulator t = build(scene, cut);
  sim::RunProgress p;
  REQUIRE(sim::resume_checkpoint(cut, t, p, false));
  CHECK(t.time == started);
  CHECK(t.frame == frame);
  CHECK(p.mid_frame == (started > sim::frame_end(t, frame)));
  sim::RunControl resumed;
  resumed.resumed = &p;
  sim::run(t, {}, resumed);
  for (int f = 0; f <= 3; ++f) {
    for (const std::string name : {"liquid.000" + std::to_string(f) + ".vdb", "block.000" + std::to_string(f) + ".obj"})
      CHECK_MESSAGE(test::read_file(ref / name) == test::read_file(cut / name), name);
  }
}

TEST_CASE("a stop inside a substep expected to be short - finished within the grace period, else abandoned to the frame's start") {
  // The same block in a pool, every substep but the run's first expected
  // short (abandonable_seconds huge: the estimate says so, as an estimate
  // that is 10x off would). The stop comes while the third substep's system
  // is being solved. With a grace period longer than the substep, the
  // substep is finished and the checkpoint holds its end; with none, the
  // solver leaves at its next iteration and the checkpoint holds the start of
  // the frame (such a substep used to hold the stop until it ended, however
  // long that took). Either way the resumed run writes the same frames.
  const char* scene = R"({
    "grid": { "resolution": [8, 8, 8], "cell_size": 0.125 },
    "time": { "frames": 4 },
    "fluid": { "regions": [ { "type": "box", "min": [0, 0, 0], "max": [1, 0.5, 1] } ] },
    "solids": [ { "name": "block", "mesh": { "type": "box", "min": [0.25, 0.375, 0.25], "max": [0.75, 0.625, 0.75],
                  "cells": [4, 2, 4] }, "density": 500, "youngs_modulus": 1e5 } ] })";
  ScratchDir dir("checkpoint");
  const fs::path ref = dir / "ref";
  sim::CutCellSimulator r = build(scene, ref);
  sim::run(r);

  for (const double grace : {0.0, 600.0}) {
    CAPTURE(grace);
    const fs::path cut = dir / ("cut-" + std::to_string(static_cast<int>(grace)));
    sim::CutCellSimulator s = build(scene, cut);
    volatile std::sig_atomic_t stop = 0;
    sim::RunControl control;
    control.stop = &stop;
    control.abandonable_seconds = 1e9;
    control.stop_grace_seconds = grace;
    int systems = 0, frame = -1;
    Real started = -1;
    control.observe = [&](const coupling::CoupledSystem&) {
      if (++systems != 3) return;
      stop = SIGTERM;
      started = s.time;
      frame = s.frame;
    };
    test::require_error<Error>([&] { sim::run(s, {}, control); }, {"interrupted by SIGTERM"});
    CHECK(systems == 3);
    sim::CutCellSimulator t = build(scene, cut);
    sim::RunProgress p;
    REQUIRE(sim::resume_checkpoint(cut, t, p, false));
    if (grace > 0) {
      CHECK(t.time > started);
    } else {
      CHECK(t.frame == frame);
      CHECK(t.time == sim::frame_end(t, frame));
      CHECK_FALSE(p.mid_frame);
    }
    sim::RunControl resumed;
    resumed.resumed = &p;
    sim::run(t, {}, resumed);
    for (int f = 0; f <= 4; ++f) {
      for (const std::string name :
           {"liquid.000" + std::to_string(f) + ".vdb", "block.000" + std::to_string(f) + ".obj"})
        CHECK_MESSAGE(test::read_file(ref / name) == test::read_file(cut / name), name);
    }
  }
}

TEST_CASE("a stop while a frame is being written gives that frame up - the resumed run writes it first, the same bytes") {
  // The same block in a pool. Frame 2's writer waits, once it has begun, for
  // the request to give it up (a frame whose VDB takes seconds to build); the
  // stop comes as it begins. The run does not wait for frame 2's files: its
  // checkpoint is the state at frame 2's end, marked pending. The resumed run
  // writes frame 2 from it and goes on: every frame and every stats line as
  // the uninterrupted run's.
  const char* scene = R"({
    "grid": { "resolution": [8, 8, 8], "cell_size": 0.125 },
    "time": { "frames": 4 },
    "fluid": { "regions": [ { "type": "box", "min": [0, 0, 0], "max": [1, 0.5, 1] } ] },
    "solids": [ { "name": "block", "mesh": { "type": "box", "min": [0.25, 0.375, 0.25], "max": [0.75, 0.625, 0.75],
                  "cells": [4, 2, 4] }, "density": 500, "youngs_modulus": 1e5 } ] })";
  ScratchDir dir("checkpoint");
  const fs::path ref = dir / "ref", cut = dir / "cut";
  sim::CutCellSimulator r = build(scene, ref);
  sim::run(r);

  sim::CutCellSimulator s = build(scene, cut);
  volatile std::sig_atomic_t stop = 0;
  sim::RunControl control;
  control.stop = &stop;
  bool given_up = false;
  control.writing = [&](int frame, const AbandonRequest& abandon) {
    if (frame != 2) return;
    stop = SIGTERM;
    const auto start = std::chrono::steady_clock::now();
    while (!abandon.requested() && std::chrono::steady_clock::now() - start < std::chrono::seconds(60))
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    given_up = abandon.requested();
  };
  test::require_error<Error>([&] { sim::run(s, {}, control); }, {"interrupted by SIGTERM", "(frame 2 done)"});
  CHECK(given_up);
  CHECK_FALSE(fs::exists(cut / "liquid.0002.vdb"));
  sim::CutCellSimulator t = build(scene, cut);
  sim::RunProgress p;
  REQUIRE(sim::resume_checkpoint(cut, t, p, false));
  CHECK(t.frame == 2);
  CHECK(t.time == sim::frame_end(t, 2));
  REQUIRE(p.pending);
  CHECK_FALSE(p.mid_frame);
  sim::RunControl resumed;
  resumed.resumed = &p;
  sim::run(t, {}, resumed);
  for (int f = 0; f <= 4; ++f) {
    for (const std::string name : {"liquid.000" + std::to_string(f) + ".vdb", "block.000" + std::to_string(f) + ".obj"})
      CHECK_MESSAGE(test::read_file(ref / name) == test::read_file(cut / name), name);
  }
  const auto frames_of = [](const fs::path& stats) {
    std::vector<int> frames;
    std::ifstream in(stats);
    for (std::string line; std::getline(in, line);) frames.push_back(nlohmann::json::parse(line).at("frame").get<int>());
    return frames;
  };
  CHECK(frames_of(cut / "stats.jsonl") == frames_of(ref / "stats.jsonl"));
  CHECK(frames_of(cut / "stats.jsonl") == std::vector<int>{0, 1, 2, 3, 4});
}

// Not a timing assertion: prints the numbers the README quotes.
TEST_CASE("the default scene's checkpoint: size and write time") {
  ScratchDir dir("checkpoint");
  scene::Scene s = scene::load_scene((test::source_dir() / "scenes/dam_break.json").string());
  s.output.directory = dir.path().string();
  sim::CutCellSimulator state = sim::CutCellSimulator(s);
  sim::RunProgress p;
  p.stats = std::string(30 * 400, 'x');  // about 30 frames of stats lines
  const auto start = std::chrono::steady_clock::now();
  const fs::path file = sim::write_checkpoint(dir.path(), state, p, 2);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  MESSAGE("scenes/dam_break.json (" << s.grid.resolution.transpose() << ", " << state.liquid->particles.cols()
                                    << " particles): checkpoint " << fs::file_size(file) << " bytes, written in "
                                    << seconds << " s");
  sim::CutCellSimulator back = sim::CutCellSimulator(s);
  sim::RunProgress q;
  sim::restore_snapshot(checkpoint::decode(checkpoint::read_bytes(file), file.string()), file.string(), back, q);
  CHECK(same_bits(back.liquid->particles, state.liquid->particles));
}

}  // TEST_SUITE
