// The scene's probes (lib/sim/cutcell/probes.hpp) and probes.csv as fsicut writes it
// (sim::run): a pressure probe in still water reads rho g depth, a point probe
// follows its solid, a stopped and resumed run continues the file without
// gaps or duplicates; a wave gauge in a sloshing tank follows linear theory
// ("validation").
#include <doctest/doctest.h>

#include <cmath>
#include <csignal>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "lib/fluid/liquid.hpp"
#include "lib/scene/load.hpp"
#include "lib/sim/advance.hpp"
#include "lib/sim/cutcell/probes.hpp"
#include "lib/sim/run.hpp"
#include "lib/sim/snapshot.hpp"
#include "tests/sim/cutcell/liquid_support.hpp"
#include "tests/support.hpp"

namespace fs = std::filesystem;
using namespace fsicut;

namespace {

sim::CutCellSimulator build(const std::string& text, const fs::path& out) {
  scene::Scene s = scene::parse_scene(text, "test.json", out.string());
  s.output.directory = out.string();
  return sim::CutCellSimulator(s);
}

// probes.csv as a header and rows of numbers.
struct Csv {
  std::vector<std::string> header;
  std::vector<std::vector<Real>> rows;
};
Csv read_csv(const fs::path& file) {
  Csv csv;
  std::istringstream in(test::read_file(file));
  std::string line, cell;
  std::getline(in, line);
  std::istringstream h(line);
  while (std::getline(h, cell, ',')) csv.header.push_back(cell);
  while (std::getline(in, line)) {
    std::istringstream r(line);
    csv.rows.emplace_back();
    while (std::getline(r, cell, ',')) csv.rows.back().push_back(std::stod(cell));
  }
  return csv;
}

int total_substeps(const fs::path& stats) {
  std::istringstream in(test::read_file(stats));
  int sum = 0;
  for (std::string line; std::getline(in, line);) {
    const std::size_t at = line.find("\"substeps\":");
    if (at != std::string::npos) sum += std::stoi(line.substr(at + 11));
  }
  return sum;
}

// A dam break with a post inside the collapsing column (16^3 cells, 4 frames
// of several substeps each, so that a stop lands inside a frame).
const char* DAM_SCENE = R"({
  "grid": { "resolution": [16, 16, 16], "cell_size": 0.0625 },
  "time": { "frames": 4, "cfl": 0.2 },
  "fluid": { "regions": [ { "type": "box", "min": [0, 0, 0], "max": [0.375, 0.75, 1] } ] },
  "obstacles": [ { "type": "box", "min": [0.15, 0, 0.4], "max": [0.25, 0.3, 0.6] } ],
  "probes": [ { "name": "wall", "type": "pressure", "position": [0.97, 0.05, 0.5] },
              { "name": "gauge", "type": "gauge", "position": [0.2, 0.5] } ] })";

}  // namespace

TEST_SUITE("sim") {
  TEST_CASE("probes: a pressure probe in still water reads rho g depth - probes.csv has one row per substep") {
    test::ScratchDir dir("probes");
    sim::CutCellSimulator state = build(R"({
      "grid": { "resolution": [16, 16, 16], "cell_size": 0.0625 },
      "time": { "frames": 3 },
      "fluid": { "regions": [ { "type": "box", "min": [0, 0, 0], "max": [1, 0.625, 1] } ] },
      "probes": [ { "name": "deep", "type": "pressure", "position": [0.41, 0.07, 0.53] },
                  { "name": "mid", "type": "pressure", "position": [0.5, 0.33, 0.5] },
                  { "name": "air", "type": "pressure", "position": [0.5, 0.8, 0.5] },
                  { "name": "level", "type": "gauge", "position": [[0.3, 0.1, 0.7], [0.3, 0.9, 0.7]] } ] })",
                                dir.path());
    sim::run(state);
    const Csv csv = read_csv(dir / "probes.csv");
    CHECK(csv.header == std::vector<std::string>{"time", "deep", "mid", "air", "level"});
    REQUIRE(static_cast<int>(csv.rows.size()) == total_substeps(dir / "stats.jsonl"));
    const std::vector<Real>& last = csv.rows.back();
    CHECK(last[0] == doctest::Approx(0.1));
    // The water's top lies on a cell plane, where the liquid's initial surface is exact.
    const Real surface = 0.625, rho_g = 1000 * 9.81;
    MESSAGE("deep " << last[1] << " Pa vs rho g depth " << rho_g * (surface - 0.07) << " Pa, mid " << last[2]
                    << " Pa vs " << rho_g * (surface - 0.33) << " Pa, air " << last[3] << " Pa, gauge " << last[4]
                    << " m vs " << surface << " m");
    CHECK(std::abs(last[1] / (rho_g * (surface - 0.07)) - 1) < 0.01);
    CHECK(std::abs(last[2] / (rho_g * (surface - 0.33)) - 1) < 0.01);
    CHECK(last[3] == 0);
    CHECK(std::abs(last[4] - surface) < 0.01 * surface);
  }

  TEST_CASE("probes: a gauge reads a flat surface wherever it lies in its cell") {
    // Particles on the seeding lattice (2 x 2 x 2 per cell, no jitter) up to a
    // height h that moves through a cell in tenths: the smoothed liquid
    // fraction is exactly that of a flat surface at h. The zero crossing of
    // the liquid SDF interpolated linearly between cell centres is up to 0.05
    // cell off there, an error that changes with h's place in its cell.
    grid::MacGrid g;
    g.resolution = {8, 16, 8};
    g.dx = 0.0625;
    scene::Probe gauge;
    gauge.type = scene::Probe::Type::gauge;
    gauge.position = Vec3(0.27, 0, 0.31);
    gauge.top = g.max().y();
    Real worst = 0;
    for (int tenth = 0; tenth < 10; ++tenth) {
      const Real h = (8 + 0.1 * tenth) * g.dx;
      fluid::Liquid l = fluid::make_liquid(g, 1000, Vec3(0, -9.81, 0), {});
      const int layers = 16, columns = 2 * g.resolution.x();
      l.particles.resize(3, columns * columns * layers);
      Index p = 0;
      for (int j = 0; j < layers; ++j)
        for (int k = 0; k < columns; ++k)
          for (int i = 0; i < columns; ++i)
            l.particles.col(p++) = Vec3((i + 0.5) * g.dx / 2, h - (j + 0.5) * g.dx / 2, (k + 0.5) * g.dx / 2);
      l.particle_volume = std::pow(g.dx, 3) / 8;
      fluid::initialize(l);
      const sim::CutCellSimulator state = test::liquid_state(std::move(l), 1, 0.01);
      const Real error = (sim::gauge_height(state, gauge) - h) / g.dx;
      MESSAGE("surface " << 8 + 0.1 * tenth << " cells: the gauge is " << error << " cell off");
      worst = std::max(worst, std::abs(error));
    }
    CHECK(worst < 1e-6);
  }

  TEST_CASE("probes: a point probe follows its solid's material point in free fall") {
    // Stage 1 moves the nodes with the velocity before the substep's gravity:
    // after n substeps of dt the drop is g dt^2 n (n - 1) / 2, short of g t^2 / 2
    // by 1 / n; a small CFL number gives about 60 substeps.
    test::ScratchDir dir("probes");
    sim::CutCellSimulator state = build(R"({
      "grid": { "resolution": [8, 8, 8], "cell_size": 0.125 },
      "time": { "frames": 4, "fps": 30, "cfl": 0.02 },
      "solids": [ { "name": "block", "mesh": { "type": "box", "min": [0.25, 0.5, 0.25], "max": [0.75, 0.75, 0.5],
                    "cells": [4, 2, 2] }, "youngs_modulus": 2e4 } ],
      "probes": [ { "name": "tip", "type": "point", "solid": "block", "position": [0.7, 0.6, 0.3] } ] })",
                                dir.path());
    sim::run(state);
    const Csv csv = read_csv(dir / "probes.csv");
    CHECK(csv.header ==
          std::vector<std::string>{"time", "tip.dx", "tip.dy", "tip.dz", "tip.vx", "tip.vy", "tip.vz"});
    const std::vector<Real>& last = csv.rows.back();
    const Real t = last[0], g = 9.81;
    MESSAGE("t " << t << " s: dy " << last[2] << " m vs -g t^2 / 2 = " << -0.5 * g * t * t << " m, vy " << last[5]
                 << " m/s vs -g t = " << -g * t);
    CHECK(last[5] == doctest::Approx(-g * t).epsilon(1e-6));
    CHECK(std::abs(last[2] / (-0.5 * g * t * t) - 1) < 0.05);
    CHECK(std::abs(last[1]) < 1e-9);
    CHECK(std::abs(last[4]) < 1e-9);
  }

  TEST_CASE("probes: a point probe outside its solid is refused naming the probe") {
    const std::string text = R"({
      "grid": { "resolution": [8, 8, 8], "cell_size": 0.125 },
      "solids": [ { "name": "block", "mesh": { "type": "box", "min": [0.25, 0.5, 0.25], "max": [0.75, 0.75, 0.5] } } ],
      "probes": [ { "name": "tip", "type": "point", "solid": "block", "position": [0.8, 0.6, 0.3] } ] })";
    test::require_error<SceneError>([&] { sim::CutCellSimulator(scene::parse_scene(text, "test.json", ".")); },
                                    {"test.json: /probes/0/position: lies outside solid \"block\""});
  }

  TEST_CASE("probes: a stopped and resumed run continues probes.csv and the loads without gaps or duplicates") {
    test::ScratchDir dir("probes");
    const fs::path ref = dir / "ref", cut = dir / "cut";
    sim::CutCellSimulator r = build(DAM_SCENE, ref);
    sim::run(r);

    sim::CutCellSimulator s = build(DAM_SCENE, cut);
    volatile std::sig_atomic_t stop = 0;
    sim::RunControl control;
    control.stop = &stop;
    try {
      sim::run(s, [&](const sim::FrameReport& f) { if (f.frame == 1) stop = SIGTERM; }, control);
      FAIL("not interrupted");
    } catch (const Error& e) {
      CHECK(e.code() == ExitCode::temp_fail);
    }
    sim::CutCellSimulator t = build(DAM_SCENE, cut);
    sim::RunProgress p;
    REQUIRE(sim::resume_checkpoint(cut, t, p, false));
    MESSAGE("stopped at t = " << t.time << " s, " << std::string(p.mid_frame ? "inside" : "at the end of") << " frame "
                              << t.frame + (p.mid_frame ? 1 : 0));
    // Where the stop lands depends on when frame 1's files are done; inside a
    // frame the partial rows and load sums come from the checkpoint
    // (tests/sim/test_snapshot.cpp checks their round trip).
    sim::RunControl resumed;
    resumed.resumed = &p;
    sim::run(t, {}, resumed);

    const Csv a = read_csv(ref / "probes.csv"), b = read_csv(cut / "probes.csv");
    CHECK(static_cast<int>(a.rows.size()) == total_substeps(ref / "stats.jsonl"));
    for (std::size_t i = 1; i < b.rows.size(); ++i) REQUIRE(b.rows[i][0] > b.rows[i - 1][0]);
    CHECK(test::read_file(cut / "probes.csv") == test::read_file(ref / "probes.csv"));
    // The obstacle's load is a mean over each frame's substeps, also across the stop.
    std::istringstream ra(test::read_file(ref / "stats.jsonl")), rb(test::read_file(cut / "stats.jsonl"));
    std::string la, lb, last;
    int frames = 0;
    while (std::getline(ra, la) && std::getline(rb, lb)) {
      const auto loads = [](const std::string& line) {
        const std::size_t from = line.find("\"obstacles\"");
        return line.substr(from, line.find(",\"seconds\"") - from);
      };
      CHECK(loads(la) == loads(lb));
      last = loads(la);
      ++frames;
    }
    CHECK(frames == 5);
    MESSAGE("last frame: " << last);
    CHECK(last.find("\"fluid_force\":[0.0,0.0,0.0]") == std::string::npos);
  }
}

TEST_SUITE("sim") {
  TEST_CASE("probes: a stop inside a frame resumes probes.csv without gaps or duplicates - substep finished or abandoned") {
    // A block in a streaming pool, so every substep solves the coupled system
    // and a frame takes several substeps; the stop
    // comes during the first solve after frame 1's first substep, so inside
    // frame 2. Finished: the run completes the substep and checkpoints after
    // it. Abandoned (every substep abandonable): the solve is cancelled and the
    // checkpoint holds the substep's start, the frame's rows so far with it
    // (the checkpoint fsicut writes on a signal in a long substep, exit 75).
    const char* scene = R"({
      "grid": { "resolution": [8, 8, 8], "cell_size": 0.125 },
      "time": { "frames": 2, "cfl": 0.2 },
      "fluid": { "regions": [ { "type": "box", "min": [0, 0, 0], "max": [1, 0.5, 1], "velocity": [1, 0, 0] } ] },
      "solids": [ { "name": "block", "mesh": { "type": "box", "min": [0.25, 0.375, 0.25], "max": [0.75, 0.625, 0.75],
                    "cells": [2, 1, 2] }, "density": 500, "youngs_modulus": 1e5 } ],
      "probes": [ { "name": "floor", "type": "pressure", "position": [0.1, 0.05, 0.1] },
                  { "name": "gauge", "type": "gauge", "position": [0.1, 0.1] },
                  { "name": "corner", "type": "point", "solid": "block", "position": [0.3, 0.4, 0.3] } ] })";
    test::ScratchDir dir("probes");
    const fs::path ref = dir / "ref";
    sim::CutCellSimulator r = build(scene, ref);
    sim::run(r);
    const Csv a = read_csv(ref / "probes.csv");
    REQUIRE(static_cast<int>(a.rows.size()) == total_substeps(ref / "stats.jsonl"));
    for (const bool abandon : {false, true}) {
      CAPTURE(abandon);
      const fs::path cut = dir / (abandon ? "abandoned" : "finished");
      sim::CutCellSimulator s = build(scene, cut);
      volatile std::sig_atomic_t stop = 0;
      sim::RunControl control;
      control.stop = &stop;
      if (abandon) control.abandonable_seconds = 0;
      Real started = -1;
      control.observe = [&](const coupling::CoupledSystem&) {
        if (stop || s.frame < 1 || !(s.time > sim::frame_end(s, s.frame))) return;
        stop = SIGTERM;
        started = s.time;
      };
      test::require_error<Error>([&] { sim::run(s, {}, control); }, {"interrupted by SIGTERM"});
      sim::CutCellSimulator t = build(scene, cut);
      sim::RunProgress p;
      REQUIRE(sim::resume_checkpoint(cut, t, p, false));
      CHECK(p.mid_frame);
      CHECK(t.frame == 1);
      CHECK((abandon ? t.time == started : t.time > started));
      MESSAGE(a.rows.size() << " substeps; stopped in the solve of the substep from t = " << started << " s; the checkpoint holds t = " << t.time
                                                              << " s, " << p.partial.substeps << " substeps of frame 2");
      sim::RunControl resumed;
      resumed.resumed = &p;
      sim::run(t, {}, resumed);
      const Csv b = read_csv(cut / "probes.csv");
      CHECK(b.rows.size() == a.rows.size());
      for (std::size_t i = 1; i < b.rows.size(); ++i) CHECK(b.rows[i][0] > b.rows[i - 1][0]);
      CHECK(test::read_file(cut / "probes.csv") == test::read_file(ref / "probes.csv"));
    }
  }
}

TEST_SUITE("validation") {
  TEST_CASE("probes: a wave gauge in a sloshing tank follows the linear solution's amplitude and period") {
    // The first mode of a 1 m tank filled to h = 0.5 m, surface h + a cos(k x)
    // at rest: linear theory gives eta(x, t) = a cos(k x) cos(w t), w^2 = g k
    // tanh(k h), k = pi / L. The gauge at x = 0.1 m reads it.
    const Real L = 1, h = 0.5, amp = 0.02, grav = 9.81, xg = 0.1;
    const int n = 64;
    grid::MacGrid g;
    g.resolution = {n, 45, 2};
    g.dx = L / n;
    fluid::Liquid built = fluid::make_liquid(g, 1000, Vec3(0, -grav, 0), {});
    // Seeding the region y < h + a cos(k x) directly puts particles in the
    // half-cell sub-cells whose centre is inside: the particles' surface is the
    // cosine rounded to half a cell (0.0156 m instead of 0.0190 m at the gauge,
    // -18 %), and the staircase's higher modes stay in the gauge's signal. So
    // the tank is seeded flat to h and every particle mapped by
    // (x, y) -> (X, y eta(X) / h), X + a / (h k) sin(k X) = x, eta = h + a cos(k X):
    // the map's Jacobian is 1, so the particles keep the seeding density and
    // carry the cosine surface exactly.
    fluid::add_liquid(built, [&](const Vec3& x) { return x.y() < h; }, Vec3::Zero(), 8, 1);
    const Real k = M_PI / L;
    for (Index p = 0; p < built.particles.cols(); ++p) {
      const Real x = built.particles(0, p);
      Real X = x;
      for (int it = 0; it < 20; ++it)
        X -= (X + amp / (h * k) * std::sin(k * X) - x) / (1 + amp / h * std::cos(k * X));
      built.particles(0, p) = X;
      built.particles(1, p) *= (h + amp * std::cos(k * X)) / h;
    }
    fluid::initialize(built);
    sim::CutCellSimulator state = test::liquid_state(std::move(built), 1.0, 0.01);
    scene::Probe gauge;
    gauge.name = "gauge";
    gauge.type = scene::Probe::Type::gauge;
    gauge.position = Vec3(xg, 0, g.dx);
    gauge.top = g.max().y();
    state.probes = sim::probe_sites({gauge}, state.solids, "test.json");
    const Real w = std::sqrt(grav * k * std::tanh(k * h)), period = 2 * M_PI / w;
    std::vector<std::pair<Real, Real>> eta{{0, sim::gauge_height(state, gauge) - h}};
    test::simulate(state, 1.3 * period, [&](Real t, const linsolve::Report& r) {
      CHECK(r.converged);
      eta.emplace_back(t, sim::gauge_height(state, gauge) - h);
    });
    // The trough near T / 2 and the crest near T, each the vertex of a parabola through the extreme sample and its neighbours.
    const auto extremum = [&](Real from, Real to, int sign) {
      std::size_t best = 0;
      for (std::size_t i = 1; i + 1 < eta.size(); ++i)
        if (eta[i].first >= from && eta[i].first <= to && (best == 0 || sign * eta[i].second > sign * eta[best].second))
          best = i;
      const Real t0 = eta[best - 1].first, t1 = eta[best].first, t2 = eta[best + 1].first;
      const Real a = eta[best - 1].second, b = eta[best].second, c = eta[best + 1].second;
      const Real d1 = (b - a) / (t1 - t0), d2 = (c - b) / (t2 - t1), curv = (d2 - d1) / (0.5 * (t2 - t0));
      const Real tv = curv != 0 ? 0.5 * (t0 + t1) - d1 / curv : t1;
      return std::pair<Real, Real>(tv, b + d1 * (tv - 0.5 * (t0 + t1)) + 0.5 * curv * (tv - t1) * (tv - t0));
    };
    const auto trough = extremum(0.25 * period, 0.75 * period, -1), crest = extremum(0.75 * period, 1.25 * period, 1);
    const Real measured_period = 0.5 * (2 * trough.first + crest.first);
    const Real expected_amp = amp * std::cos(k * xg), measured_amp = 0.5 * (crest.second - trough.second);
    MESSAGE((eta.size() - 1) << " substeps; gauge at t = 0: " << eta[0].second << " m vs " << expected_amp
                           << " m; trough " << trough.second << " m at " << trough.first << " s, crest " << crest.second
                           << " m at " << crest.first << " s");
    MESSAGE("period " << measured_period << " s vs " << period << " s (" << 100 * (measured_period / period - 1)
                      << " %), amplitude " << measured_amp << " m vs " << expected_amp << " m ("
                      << 100 * (measured_amp / expected_amp - 1) << " %)");
    CHECK(std::abs(eta[0].second / expected_amp - 1) < 0.05);
    CHECK(std::abs(measured_period / period - 1) < 0.05);
    CHECK(std::abs(measured_amp / expected_amp - 1) < 0.05);
  }
}
