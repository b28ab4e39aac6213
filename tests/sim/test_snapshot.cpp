// The driver's part of a checkpoint (lib/sim/snapshot.hpp): the clock, the
// mid-frame flag, the stats and probes texts and a partial frame's FrameStats
// (every field) survive to_snapshot, the checkpoint's bytes and
// restore_snapshot, for either simulator; write_checkpoint and
// resume_checkpoint keep the newest and restore it. The simulators' own
// state: tests/sim/cutcell/test_snapshot.cpp and tests/sim/eulerian/.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <memory>
#include <string>

#include "lib/checkpoint/format.hpp"
#include "lib/scene/load.hpp"
#include "lib/sim/build.hpp"
#include "lib/sim/cutcell/simulator.hpp"
#include "lib/sim/snapshot.hpp"
#include "tests/support.hpp"

namespace fs = std::filesystem;
using namespace fsicut;
using test::ScratchDir;

namespace {

const char* SOLID_SCENE = R"({
  "grid": { "resolution": [8, 8, 8], "cell_size": 0.125 },
  "time": { "frames": 4 },
  "solids": [ { "name": "block", "mesh": { "type": "box", "min": [0.25, 0.25, 0.25], "max": [0.75, 0.5, 0.5],
                "cells": [2, 1, 1] }, "youngs_modulus": 2e4, "velocity": [0.5, 1, 0] } ] })";
const char* EULERIAN_SCENE = R"({
  "grid": { "resolution": [8, 10, 8], "cell_size": 0.1 },
  "time": { "frames": 4 },
  "coupling": { "scheme": "eulerian" },
  "solids": [ { "name": "ball", "representation": "eulerian", "density": 1000, "youngs_modulus": 5e4,
                "mesh": { "type": "sphere", "center": [0.4, 0.5, 0.4], "radius": 0.2, "subdivisions": 1 } } ] })";

std::unique_ptr<sim::Simulator> build(const char* json, const fs::path& out = ".") {
  scene::Scene s = scene::parse_scene(json, "test.json", out.string());
  s.output.directory = out.string();
  return sim::build_simulator(s);
}

// A partial frame with every FrameStats field set to a value of its own.
sim::RunProgress full_progress() {
  sim::RunProgress p;
  p.stats = "{\"frame\":0}\n{\"frame\":1}\n";
  p.probes = "time,wall\n0.01,12.5\n";
  p.mid_frame = true;
  sim::FrameStats& f = p.partial;
  f.frame = 2;
  f.time = 0.0456789012345678;
  f.substeps = 3;
  f.particle_substeps = 8;
  f.cfl_exceeded = 1;
  f.solves = 5;
  f.solver.converged = true;
  f.solver.met_tolerance = false;
  f.solver.iterations = 17;
  f.solver.relative_residual = 3.5e-11;
  f.solver.round_off_floor = 1.25e-13;
  f.solver.unknowns = 1234;
  f.solver.failure = "a failure's message, with \"quotes\"\nand a newline";
  f.partitioned = coupling::PartitionedReport{true, 7, 2.5e-4, 0.5, 0.125, 0.0625};
  f.seconds = {{"advection", 0.25}, {"projection", 1.5}, {"output", 1e-300}};
  f.loads.seconds = 0.015;
  f.loads.solids = {{Vec3(0.1, -0.2, 0.3), Vec3(4, 5, -6)}};
  f.loads.obstacles = {{Vec3(1, 2, 3), Vec3(-4, 5, 0.25)}, {Vec3(-1, 0, 1e-17), Vec3(7, 8, 9)}};
  f.probe_rows = "0.04,980.25\n0.045,990.5\n";
  return p;
}

bool same_loads(const std::vector<sim::Load>& a, const std::vector<sim::Load>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].force != b[i].force || a[i].torque != b[i].torque) return false;
  return true;
}

void check_same(const sim::FrameStats& a, const sim::FrameStats& b) {
  CHECK(a.frame == b.frame);
  CHECK(a.time == b.time);
  CHECK(a.substeps == b.substeps);
  CHECK(a.particle_substeps == b.particle_substeps);
  CHECK(a.cfl_exceeded == b.cfl_exceeded);
  CHECK(a.solves == b.solves);
  CHECK(a.solver.converged == b.solver.converged);
  CHECK(a.solver.met_tolerance == b.solver.met_tolerance);
  CHECK(a.solver.iterations == b.solver.iterations);
  CHECK(a.solver.relative_residual == b.solver.relative_residual);
  CHECK(a.solver.round_off_floor == b.solver.round_off_floor);
  CHECK(a.solver.unknowns == b.solver.unknowns);
  CHECK(a.solver.failure == b.solver.failure);
  REQUIRE(a.partitioned.has_value() == b.partitioned.has_value());
  if (a.partitioned) {
    CHECK(a.partitioned->converged == b.partitioned->converged);
    CHECK(a.partitioned->iterations == b.partitioned->iterations);
    CHECK(a.partitioned->interface_residual == b.partitioned->interface_residual);
    CHECK(a.partitioned->fluid_seconds == b.partitioned->fluid_seconds);
    CHECK(a.partitioned->solid_seconds == b.partitioned->solid_seconds);
    CHECK(a.partitioned->interface_seconds == b.partitioned->interface_seconds);
  }
  CHECK(a.seconds == b.seconds);
  CHECK(a.loads.seconds == b.loads.seconds);
  CHECK(same_loads(a.loads.solids, b.loads.solids));
  CHECK(same_loads(a.loads.obstacles, b.loads.obstacles));
  CHECK(a.probe_rows == b.probe_rows);
}

// Through the checkpoint's bytes and back into `to`.
void round_trip(const sim::Simulator& from, const sim::RunProgress& progress, sim::Simulator& to,
                sim::RunProgress& restored) {
  const std::string bytes = checkpoint::encode(sim::to_snapshot(from, progress));
  sim::restore_snapshot(checkpoint::decode(bytes, "mem.bin"), "mem.bin", to, restored);
}

}  // namespace

TEST_CASE("snapshot (driver): the clock - mid-frame flag - texts and every FrameStats field survive the bytes") {
  for (const char* json : {SOLID_SCENE, EULERIAN_SCENE}) {
    CAPTURE(json);
    const std::unique_ptr<sim::Simulator> a = build(json);
    a->time = 0.0789012345678901;
    a->frame = 2;
    const sim::RunProgress progress = full_progress();
    const std::unique_ptr<sim::Simulator> b = build(json);
    REQUIRE(b->time == 0);
    sim::RunProgress restored;
    round_trip(*a, progress, *b, restored);
    CHECK(b->time == a->time);
    CHECK(b->frame == 2);
    CHECK(restored.mid_frame);
    CHECK(restored.stats == progress.stats);
    CHECK(restored.probes == progress.probes);
    check_same(restored.partial, progress.partial);
  }
}

TEST_CASE("snapshot (driver): a frame's end - no partitioned report - empty texts - survive as such") {
  const std::unique_ptr<sim::Simulator> a = build(SOLID_SCENE);
  a->time = 0.1;
  a->frame = 3;
  sim::RunProgress progress;  // at a frame's end: nothing partial
  const std::unique_ptr<sim::Simulator> b = build(SOLID_SCENE);
  // What a previous restore left is replaced.
  sim::RunProgress restored = full_progress();
  round_trip(*a, progress, *b, restored);
  CHECK(b->time == 0.1);
  CHECK(b->frame == 3);
  CHECK_FALSE(restored.mid_frame);
  CHECK(restored.stats.empty());
  CHECK(restored.probes.empty());
  CHECK_FALSE(restored.partial.partitioned);
  check_same(restored.partial, sim::FrameStats{});
}

TEST_CASE("snapshot (driver): particle sub-steps equal to the substeps are not stored and come back equal") {
  const std::unique_ptr<sim::Simulator> a = build(SOLID_SCENE);
  sim::RunProgress progress;
  progress.mid_frame = true;
  progress.partial.substeps = 4;
  progress.partial.particle_substeps = 4;
  CHECK_FALSE(sim::to_snapshot(*a, progress).has(checkpoint::SECTION_PARTICLE_STEPS));
  progress.partial.particle_substeps = 9;
  CHECK(sim::to_snapshot(*a, progress).has(checkpoint::SECTION_PARTICLE_STEPS));
  const std::unique_ptr<sim::Simulator> b = build(SOLID_SCENE);
  sim::RunProgress restored;
  progress.partial.particle_substeps = 4;
  round_trip(*a, progress, *b, restored);
  CHECK(restored.partial.particle_substeps == 4);
}

TEST_CASE("snapshot (driver): the simulator's state comes with the clock") {
  const std::unique_ptr<sim::Simulator> a = build(SOLID_SCENE);
  auto& moved = dynamic_cast<sim::CutCellSimulator&>(*a);
  moved.solids[0].x.row(1).array() += 0.01;
  moved.solids[0].v.row(0).setConstant(-0.25);
  const std::unique_ptr<sim::Simulator> b = build(SOLID_SCENE);
  sim::RunProgress restored;
  round_trip(*a, {}, *b, restored);
  const auto& back = dynamic_cast<const sim::CutCellSimulator&>(*b);
  CHECK(back.solids[0].x == moved.solids[0].x);
  CHECK(back.solids[0].v == moved.solids[0].v);
}

TEST_CASE("snapshot (driver): write_checkpoint keeps the newest - resume_checkpoint restores the newest") {
  ScratchDir dir("snapshot-driver");
  const std::unique_ptr<sim::Simulator> a = build(SOLID_SCENE, dir.path());
  {
    // No checkpoint yet: nothing restored, the simulator untouched.
    const std::unique_ptr<sim::Simulator> fresh = build(SOLID_SCENE, dir.path());
    sim::RunProgress p;
    CHECK_FALSE(sim::resume_checkpoint(dir.path(), *fresh, p, false));
    CHECK(fresh->time == 0);
    CHECK(fresh->frame == 0);
  }
  sim::RunProgress progress = full_progress();
  for (int f = 1; f <= 3; ++f) {
    a->frame = f;
    a->time = f / 30.0;
    progress.stats += "{\"frame\":" + std::to_string(f) + "}\n";
    const fs::path written = sim::write_checkpoint(dir.path(), *a, progress, /*keep=*/2);
    CHECK(written.filename() == "checkpoint.000" + std::to_string(f) + ".bin");
    CHECK(fs::exists(written));
  }
  CHECK_FALSE(fs::exists(dir / "checkpoint.0001.bin"));
  CHECK(fs::exists(dir / "checkpoint.0002.bin"));
  CHECK(fs::exists(dir / "checkpoint.0003.bin"));

  const std::unique_ptr<sim::Simulator> b = build(SOLID_SCENE, dir.path());
  sim::RunProgress restored;
  const auto resumed = sim::resume_checkpoint(dir.path(), *b, restored, false);
  REQUIRE(resumed);
  CHECK(resumed->file.filename() == "checkpoint.0003.bin");
  CHECK(b->frame == 3);
  CHECK(b->time == 3 / 30.0);
  CHECK(restored.stats == progress.stats);
  CHECK(restored.mid_frame);
  check_same(restored.partial, progress.partial);
}
