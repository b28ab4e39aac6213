// The eulerian scheme driven by sim::advance_to (lib/sim/eulerian/simulator.hpp):
// a scene becomes a world, substeps follow the scene's CFL rule, and a frame
// records and outputs what the world holds.
#include <doctest/doctest.h>

#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>

#include "lib/eulerian/measure.hpp"
#include "lib/scene/load.hpp"
#include "lib/sim/absurd.hpp"
#include "lib/sim/advance.hpp"
#include "lib/sim/build.hpp"
#include "lib/sim/cost.hpp"
#include "lib/sim/eulerian/simulator.hpp"
#include "lib/sim/frame_output.hpp"
#include "lib/sim/from_scene.hpp"
#include "lib/sim/stats.hpp"

using namespace fsicut;

namespace {

constexpr Real G = 9.81;

// A ball of radius 0.2 m (4 cells) at the centre of a 20 x 24 x 20 box of
// 0.05 m cells, 1200 kg/m^3 (1000 times the smoke's 1.2), 24 fps. `extra`
// adds keys to the root; `coupling` is the coupling object.
sim::EulerianSimulator ball_in_smoke(const std::string& extra = "",
                            const std::string& coupling = R"({ "scheme": "eulerian" })") {
  return sim::EulerianSimulator(scene::parse_scene(R"({
    "grid": { "resolution": [20, 24, 20], "cell_size": 0.05 },
    "time": { "fps": 24, "frames": 3 },
    "fluid": { "kind": "smoke", "density": 1.2,
               "smoke": { "sources": [ { "min": [0.1, 0, 0.1], "max": [0.9, 0.1, 0.9] } ] } },
    "solids": [ { "name": "ball", "representation": "eulerian", "density": 1200, "youngs_modulus": 5e4,
                  "mesh": { "type": "sphere", "center": [0.5, 0.7, 0.5], "radius": 0.2, "subdivisions": 2 } } ],
    "coupling": )" + coupling + extra + "}",
                                             "ball.json", "."));
}

Vec3 mean(const Points& x) { return x.rowwise().mean(); }

bool has_kind(const std::vector<sim::Absurdity>& found, const std::string& kind, const std::string& text) {
  for (const sim::Absurdity& a : found)
    if (a.kind == kind && a.message.find(text) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("eulerian run: a scene with the scheme builds the Eulerian simulator and its world") {
  const sim::EulerianSimulator s = ball_in_smoke();
  const std::unique_ptr<sim::Simulator> built = sim::build_simulator(s.scene);
  CHECK(dynamic_cast<const sim::EulerianSimulator*>(built.get()) != nullptr);
  CHECK_FALSE(s.has_liquid());
  const eulerian::World& w = s.world;
  CHECK(w.grid.resolution == Vec3i(20, 24, 20));
  REQUIRE(w.solids.size() == 1);
  REQUIRE(w.smoke);
  CHECK(w.smoke->fluid_density == 1.2);
  // The source's cells (16 x 2 x 16 cell centres in the box) hold smoke at t = 0.
  CHECK(eulerian::smoke_amount(w.grid, w.smoke->density) == doctest::Approx(16 * 2 * 16 * std::pow(0.05, 3)).scale(0));
  const eulerian::SolidMeasure m = eulerian::measure_solid(w.solids[0]);
  const Real sphere = 4.0 / 3 * M_PI * std::pow(0.2, 3);
  MESSAGE("ball volume on the grid " << m.report.volume << " m^3, sphere " << sphere << " m^3, mass " << m.mass
                                     << " kg");
  CHECK(m.report.volume == doctest::Approx(sphere).epsilon(0.04).scale(0));
  CHECK(m.mass == doctest::Approx(1200 * m.report.volume).epsilon(1e-9));
  CHECK((m.centroid - Vec3(0.5, 0.7, 0.5)).norm() < 1e-3);
  // The output surface is the icosphere (level 2: 162 vertices, 320 triangles).
  CHECK(s.surfaces[0].vertices.cols() == 162);
  CHECK(s.surfaces[0].triangles.size() == 320);
  CHECK(s.settings.projection.tolerance == 0.02);
  CHECK(s.settings.velocity.tolerance == 1e-3);
  CHECK(s.settings.gravity == Vec3(0, -G, 0));
}

TEST_CASE("eulerian run: a heavy ball falls through smoke at about g, keeping its volume, its surface with it") {
  sim::EulerianSimulator s = ball_in_smoke();
  const Real v0 = eulerian::measure_solid(s.world.solids[0]).report.volume;
  const Vec3 c0 = mean(s.surfaces[0].vertices);
  const Points x0 = s.surfaces[0].vertices;
  const int substeps = sim::advance_frames_to(s, 3.0 / 24);
  CHECK(s.frame == 3);
  CHECK(s.time == doctest::Approx(0.125));
  const eulerian::World& w = s.world;
  const eulerian::SolidMeasure m = eulerian::measure_solid(w.solids[0]);
  const Real t = s.time, fall = 0.5 * G * t * t;
  const Vec3 c1 = mean(s.surfaces[0].vertices);
  MESSAGE(substeps << " substeps; centre fell " << 0.7 - m.centroid.y() << " m (free fall " << fall
                   << " m), surface " << c0.y() - c1.y() << " m; speed " << -m.mean_velocity.y() << " m/s (g t "
                   << G * t << "); volume " << m.report.volume / v0 - 1 << " of its start, drift " << m.report.drift);
  // A 1000:1 ball in air falls nearly freely: g (rho_s - rho_f) / (rho_s + rho_f / 2).
  CHECK(-m.mean_velocity.y() == doctest::Approx(G * t).epsilon(0.02).scale(0));
  // Line 19 moves u by dt v^{n+1} (semi-implicit Euler): n steps of dt fall
  // g dt^2 n (n + 1) / 2, more than free fall by g t dt / 2, dt <= 1/24 s.
  CHECK(0.7 - m.centroid.y() > 0.98 * fall);
  CHECK(0.7 - m.centroid.y() < 1.02 * (fall + G * t / 48));
  CHECK(std::abs(m.mean_velocity.x()) < 0.01);
  CHECK(std::abs(m.report.volume / v0 - 1) < 0.01);
  CHECK(std::abs(m.report.drift) < 0.01);
  // The surface is carried with the solid: its centre moved as the solid's,
  // within a tenth of a cell, and it kept its shape (same edge lengths to 2 %).
  CHECK(std::abs((c0.y() - c1.y()) - (0.7 - m.centroid.y())) < 0.005);
  const Points& x1 = s.surfaces[0].vertices;
  const auto& tri = s.surfaces[0].triangles[0];
  const Real e0 = (x0.col(tri[0]) - x0.col(tri[1])).norm(), e1 = (x1.col(tri[0]) - x1.col(tri[1])).norm();
  CHECK(e1 == doctest::Approx(e0).epsilon(0.02).scale(0));
  // The air carries the ball's weight as pressure: the multiplier p (minus
  // the physical pressure impulse) grows upward in the still air beside it.
  const Real low = w.pressure[eulerian::cell_index(w.grid, Vec3i(2, 4, 2))];
  const Real high = w.pressure[eulerian::cell_index(w.grid, Vec3i(2, 20, 2))];
  MESSAGE("multiplier at y = 0.225 m " << low << ", at y = 1.025 m " << high << " Pa s");
  CHECK(high > low);
}

TEST_CASE("eulerian run: a frame's stats and files hold the solid, the smoke and the solves") {
  sim::EulerianSimulator s = ball_in_smoke();
  sim::FrameStats tally;
  StageTimes times;
  sim::advance_frame(s, tally, times);
  tally.frame = s.frame;  // as the frame loop does (sim/run.cpp)
  tally.time = s.time;
  const nlohmann::json j = sim::frame_record(s, tally);
  CHECK(j["frame"] == 1);
  CHECK(j["solver"]["solves"] == 3 * tally.substeps);
  CHECK(j["solver"]["tolerance"] == 0.02);
  CHECK(j["solver"]["converged"] == true);
  REQUIRE(j["solids"].size() == 1);
  const nlohmann::json& b = j["solids"][0];
  CHECK(b["name"] == "ball");
  CHECK(b["representation"] == "eulerian");
  for (const char* key : {"centroid", "volume", "mean_velocity", "kinetic_energy", "elastic_energy", "max_strain",
                          "inverted_points", "drift"})
    CHECK_MESSAGE(b.contains(key), key);
  CHECK(b["inverted_points"] == 0);
  CHECK(b["kinetic_energy"].get<Real>() > 0);
  const nlohmann::json& e = j["eulerian"];
  CHECK(e["substeps"] == tally.substeps);
  CHECK(e["velocity_iterations"].get<int>() > 0);
  CHECK(e["pressure_iterations"].get<int>() > 0);
  CHECK(e["divergence"].get<Real>() <= 0.02 + 1e-12);
  CHECK(e["smoke_amount"].get<Real>() > 0);
  CHECK(j["max_fluid_speed"].get<Real>() > 0);
  CHECK(tally.seconds.empty());  // the stage times are in `times`
  CHECK(times.seconds().count(sim::STAGE_EULERIAN) == 1);
  CHECK(times.seconds().count(sim::STAGE_SURFACES) == 1);
  const sim::FrameOutput out = s.capture_frame();
  const std::vector<std::string> names = sim::file_names(out);
  CHECK(names == std::vector<std::string>{"ball.0001.obj", "smoke.0001.vdb"});
  CHECK(s.frame_file_names(1) == names);
}

TEST_CASE("eulerian run: a solid alone in void takes the scene's initial velocity and keeps it without gravity") {
  sim::EulerianSimulator s = sim::EulerianSimulator(scene::parse_scene(R"({
    "grid": { "resolution": [24, 16, 16], "cell_size": 0.05 }, "gravity": [0, 0, 0],
    "time": { "fps": 24 },
    "solids": [ { "name": "b", "representation": "eulerian", "velocity": [0.5, 0, 0],
                  "mesh": { "type": "sphere", "center": [0.4, 0.4, 0.4], "radius": 0.15 } } ],
    "coupling": { "scheme": "eulerian" } })",
                                                        "void.json", "."));
  CHECK_FALSE(s.world.smoke);
  sim::advance_frames_to(s, 4.0 / 24);
  const eulerian::SolidMeasure m = eulerian::measure_solid(s.world.solids[0]);
  MESSAGE("after 4 frames: centre x " << m.centroid.x() << " m (expected " << 0.4 + 0.5 * s.time << "), speed "
                                      << m.mean_velocity.x() << " m/s");
  CHECK(m.mean_velocity.x() == doctest::Approx(0.5).epsilon(0.01).scale(0));
  CHECK(m.centroid.x() == doctest::Approx(0.4 + 0.5 * s.time).epsilon(0.002).scale(0));
  CHECK(mean(s.surfaces[0].vertices).x() == doctest::Approx(m.centroid.x()).epsilon(0.002).scale(0));
}

TEST_CASE("eulerian run: the minres solver falls as the primal-dual one") {
  // coupling/eulerian/solver "minres": lines 9-11 as one saddle-point solve.
  // For this soft ball (dt^2 K well under M) both solves are the same
  // physics: the same fall and volume to 1 %.
  sim::EulerianSimulator pcr = ball_in_smoke();
  sim::EulerianSimulator kkt = ball_in_smoke("", R"({ "scheme": "eulerian", "eulerian": { "solver": "minres" } })");
  sim::advance_frames_to(pcr, 2.0 / 24);
  sim::advance_frames_to(kkt, 2.0 / 24);
  const eulerian::SolidMeasure a = eulerian::measure_solid(pcr.world.solids[0]);
  const eulerian::SolidMeasure b = eulerian::measure_solid(kkt.world.solids[0]);
  MESSAGE("speed " << -a.mean_velocity.y() << " (pcr) and " << -b.mean_velocity.y() << " m/s (minres)");
  CHECK(-a.mean_velocity.y() > 0.5);
  CHECK(b.mean_velocity.y() == doctest::Approx(a.mean_velocity.y()).epsilon(0.01));
  CHECK(b.centroid.y() == doctest::Approx(a.centroid.y()).epsilon(0.01));
  CHECK(std::abs(b.report.volume / a.report.volume - 1) < 0.01);
}

TEST_CASE("eulerian run: absurd results of an Eulerian solid and the smoke are found, a sane frame has none") {
  sim::EulerianSimulator s = ball_in_smoke();
  CHECK(s.absurdities({}).empty());
  const Real bound = sim::velocity_bound(s.scene);
  eulerian::World& w = s.world;
  // Past the velocity bound: the ball's kinetic energy, then the smoke.
  sim::EulerianSimulator fast = s;
  eulerian::EulerianSolid& ball = fast.world.solids[0];
  for (Index n = 0; n < eulerian::node_count(w.grid); ++n)
    if (ball.valid[n]) ball.v.segment<3>(3 * n) = Vec3(0, 1.5 * bound, 0);
  fast.world.smoke->velocity[1] = 2 * bound;
  const std::vector<sim::Absurdity> found = fast.absurdities({});
  CHECK(has_kind(found, "solid kinetic energy", "solid \"ball\" has kinetic energy"));
  CHECK(has_kind(found, "fluid speed", "the smoke moves at"));
  // A reference map gone: no material on the grid.
  sim::EulerianSimulator gone = s;
  gone.world.solids[0].u.setConstant(10);
  CHECK(has_kind(gone.absurdities({}), "solid volume", "no material left on the grid"));
  sim::EulerianSimulator nan = s;
  nan.world.solids[0].v[0] = std::nan("");
  CHECK(has_kind(nan.absurdities({}), "not finite", "solid \"ball\" has a displacement or velocity"));
}

TEST_CASE("eulerian run: the substep estimate counts the grid at the eulerian cost per cell") {
  const sim::EulerianSimulator s = ball_in_smoke();
  const sim::SubstepCost cost = s.estimate_substep();
  REQUIRE(cost.terms.size() == 1);
  CHECK(cost.terms[0].count == "9600 cells");
  CHECK(cost.seconds == doctest::Approx(sim::EULERIAN_CELL_SECONDS * 9600).epsilon(1e-12));
}

TEST_CASE("eulerian run: contact_cfl sets the substep's CFL number while two solids are within 2 cells") {
  // Two balls of radius 0.15 m (3 cells) on 0.05 m cells in void, their
  // surfaces `gap` cells apart, time/cfl 1.8 and contact_cfl 0.6 (the paper's).
  const auto two_balls = [](Real gap, const std::string& eulerian) {
    const Real x = 0.5 + 0.15 + gap * 0.05;
    return sim::EulerianSimulator(scene::parse_scene(R"({
      "grid": { "resolution": [32, 16, 16], "cell_size": 0.05 },
      "time": { "fps": 24, "frames": 1, "cfl": 1.8 }, "gravity": [0, 0, 0],
      "solids": [ { "name": "a", "representation": "eulerian", "velocity": [1, 0, 0],
                    "mesh": { "type": "sphere", "center": [0.35, 0.4, 0.4], "radius": 0.15 } },
                  { "name": "b", "representation": "eulerian",
                    "mesh": { "type": "sphere", "center": [)" + std::to_string(x) + R"(, 0.4, 0.4], "radius": 0.15 } } ],
      "coupling": { "scheme": "eulerian")" + eulerian + " } }",
                                               "balls.json", "."));
  };
  const std::string paper = R"(, "eulerian": { "contact_cfl": 0.6 })";
  CHECK(two_balls(1, paper).cfl_number() == 0.6);
  CHECK(two_balls(4, paper).cfl_number() == 1.8);
  CHECK(two_balls(1, "").cfl_number() == 1.8);
  // The substep follows: the fastest speed is 1 m/s, so dt = cfl dx / (1 m/s + the gravity term, 0 here).
  CHECK(sim::cfl_limit(two_balls(1, paper)) == doctest::Approx(0.6 * 0.05 / 1));
  CHECK(sim::cfl_limit(two_balls(4, paper)) == doctest::Approx(1.8 * 0.05 / 1));
}
