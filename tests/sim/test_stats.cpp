// A frame's stats.jsonl line and run.json (lib/sim/stats.hpp): the keys of
// docs/outputs.md ("stats.jsonl keys") for a liquid scene, a solid scene and an
// Eulerian scene, present even when empty; the record taken at the frame's end
// makes the same line once the seconds are known; the liquid volume of the
// first line; run.json's keys.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lib/scene/load.hpp"
#include "lib/sim/build.hpp"
#include "lib/sim/cutcell/simulator.hpp"
#include "lib/sim/eulerian/simulator.hpp"
#include "lib/sim/stats.hpp"

using namespace fsicut;
using json = nlohmann::json;

namespace {

scene::Scene parse(const std::string& text) { return scene::parse_scene(text, "test.json", "."); }

// Water 0.5 m deep in an 8^3 grid of 0.125 m cells, one box obstacle in it.
const char* LIQUID_SCENE = R"({
  "grid": { "resolution": [8, 8, 8], "cell_size": 0.125 },
  "fluid": { "regions": [ { "type": "box", "min": [0, 0, 0], "max": [1, 0.5, 1] } ] },
  "obstacles": [ { "type": "box", "min": [0.375, 0, 0.375], "max": [0.625, 0.75, 0.625] } ] })";
// A free block of 0.5 x 0.25 x 0.25 m moving at (0.5, 1, 0) m/s, no liquid.
const char* SOLID_SCENE = R"({
  "grid": { "resolution": [8, 8, 8], "cell_size": 0.125 },
  "solids": [ { "name": "block", "mesh": { "type": "box", "min": [0.25, 0.25, 0.25], "max": [0.75, 0.5, 0.5],
                "cells": [2, 1, 1] }, "density": 500, "youngs_modulus": 1e5, "velocity": [0.5, 1, 0] },
              { "name": "toy", "model": "reduced", "modes": 2, "mesh": { "type": "box", "min": [0.25, 0.625, 0.25],
                "max": [0.5, 0.875, 0.5], "cells": [1, 1, 1] }, "density": 500, "youngs_modulus": 1e5 } ] })";
// An Eulerian ball alone in void.
const char* EULERIAN_SCENE = R"({
  "grid": { "resolution": [8, 10, 8], "cell_size": 0.1 },
  "coupling": { "scheme": "eulerian" },
  "solids": [ { "name": "ball", "representation": "eulerian", "density": 1000, "youngs_modulus": 5e4,
                "mesh": { "type": "sphere", "center": [0.4, 0.5, 0.4], "radius": 0.2, "subdivisions": 1 } } ] })";

// The driver's keys every scene's line has (docs/outputs.md "stats.jsonl keys").
const std::vector<std::string> TOP_KEYS = {"frame",        "time",        "substeps",        "particle_substeps",
                                           "cfl_exceeded",  "liquid_volume", "liquid_added", "liquid_removed", "particle_volume",
                                           "deep_density", "packed_cells",
                                           "max_fluid_speed", "solver",   "solids",          "obstacles",
                                           "seconds"};
const std::vector<std::string> SOLVER_KEYS = {"iterations", "relative_residual", "converged", "met_tolerance",
                                              "round_off_floor", "tolerance", "solves"};
const std::vector<std::string> PARTITIONED_KEYS = {"coupling_iterations", "interface_residual", "interface_converged",
                                                   "fluid_seconds", "solid_seconds", "interface_seconds"};
const std::vector<std::string> SOLID_KEYS = {"name",        "centroid",         "volume",           "mean_velocity",
                                             "kinetic_energy", "elastic_energy", "linear_momentum", "angular_momentum",
                                             "max_strain",  "inverted_elements", "fluid_force",     "fluid_torque"};

void check_keys(const json& j, const std::vector<std::string>& keys) {
  for (const std::string& k : keys) CHECK_MESSAGE(j.contains(k), "missing key " << k << " in " << j.dump());
}

bool is_vec3(const json& j) { return j.is_array() && j.size() == 3 && j[0].is_number(); }
Vec3 vec3(const json& j) { return Vec3(j[0].get<Real>(), j[1].get<Real>(), j[2].get<Real>()); }

sim::FrameStats some_stats() {
  sim::FrameStats st;
  st.frame = 3;
  st.time = 0.1;
  st.substeps = 4;
  st.particle_substeps = 9;
  st.cfl_exceeded = 1;
  st.solves = 4;
  st.solver.converged = true;
  st.solver.met_tolerance = true;
  st.solver.iterations = 17;
  st.solver.relative_residual = 2.5e-7;
  st.solver.round_off_floor = 1e-12;
  st.seconds = {{"projection", 0.5}, {"output", 0.125}};
  return st;
}

}  // namespace

TEST_CASE("stats: a liquid scene's line has every contract key - its volume - no solids - its obstacle's loads") {
  const sim::CutCellSimulator s(parse(LIQUID_SCENE));
  const sim::FrameStats st = some_stats();
  const json j = json::parse(sim::stats_line(s, st));
  check_keys(j, TOP_KEYS);
  check_keys(j["solver"], SOLVER_KEYS);
  CHECK(j["frame"] == 3);
  CHECK(j["time"] == 0.1);
  CHECK(j["substeps"] == 4);
  CHECK(j["particle_substeps"] == 9);
  CHECK(j["cfl_exceeded"] == 1);
  CHECK(j["liquid_volume"].get<Real>() == *s.liquid_volume());
  // 1 x 0.5 x 1 m of water less the obstacle's 0.25 x 0.5 x 0.25 m in it.
  MESSAGE("liquid_volume " << j["liquid_volume"] << " m^3");
  CHECK(j["liquid_volume"].get<Real>() == doctest::Approx(0.5 - 0.25 * 0.5 * 0.25).epsilon(0.05));
  CHECK(j["particle_volume"].get<Real>() > 0);
  CHECK(j["deep_density"].get<Real>() > 0);
  CHECK(j["max_fluid_speed"] == 0.0);
  CHECK(j["solver"]["iterations"] == 17);
  CHECK(j["solver"]["relative_residual"] == 2.5e-7);
  CHECK(j["solver"]["round_off_floor"] == 1e-12);
  CHECK(j["solver"]["tolerance"] == s.scene.coupling.tolerance);
  CHECK(j["solver"]["solves"] == 4);
  CHECK_FALSE(j["solver"].contains("failure"));
  for (const std::string& k : PARTITIONED_KEYS) CHECK_FALSE(j["solver"].contains(k));
  CHECK(j["solids"] == json::array());
  REQUIRE(j["obstacles"].size() == 1);
  check_keys(j["obstacles"][0], {"index", "fluid_force", "fluid_torque"});
  CHECK(j["obstacles"][0]["index"] == 0);
  // No substep in the tally yet: zero loads.
  CHECK(j["obstacles"][0]["fluid_force"] == json::array({0.0, 0.0, 0.0}));
  CHECK(j["seconds"] == json({{"projection", 0.5}, {"output", 0.125}}));
}

TEST_CASE("stats: loads are the means over the frame's substeps") {
  const sim::CutCellSimulator s(parse(LIQUID_SCENE));
  sim::FrameStats st = some_stats();
  sim::FluidLoads a, b;
  a.obstacles = {{Vec3(2, 0, 0), Vec3(0, 0, 4)}};
  b.obstacles = {{Vec3(8, -4, 0), Vec3(0, 0, 1)}};
  st.loads.add(a, 0.25);
  st.loads.add(b, 0.75);
  const json j = json::parse(sim::stats_line(s, st));
  // (0.25 * 2 + 0.75 * 8) / 1 = 6.5; (0.25 * 0 + 0.75 * -4) = -3; torque 0.25 * 4 + 0.75 * 1 = 1.75.
  CHECK(j["obstacles"][0]["fluid_force"] == json::array({6.5, -3.0, 0.0}));
  CHECK(j["obstacles"][0]["fluid_torque"] == json::array({0.0, 0.0, 1.75}));
}

TEST_CASE("stats: a solid scene's line has every contract key - liquid keys 0 - a reduced body's modes") {
  const sim::CutCellSimulator s(parse(SOLID_SCENE));
  sim::FrameStats st = some_stats();
  const json j = json::parse(sim::stats_line(s, st));
  check_keys(j, TOP_KEYS);
  check_keys(j["solver"], SOLVER_KEYS);
  for (const char* k : {"liquid_volume", "particle_volume", "deep_density", "packed_cells", "max_fluid_speed"})
    CHECK_MESSAGE(j[k] == 0.0, k);
  CHECK(j["obstacles"] == json::array());
  REQUIRE(j["solids"].size() == 2);
  const json& block = j["solids"][0];
  check_keys(block, SOLID_KEYS);
  CHECK(block["name"] == "block");
  for (const char* k : {"centroid", "mean_velocity", "linear_momentum", "angular_momentum", "fluid_force",
                        "fluid_torque"})
    CHECK_MESSAGE(is_vec3(block[k]), k);
  CHECK(block["volume"].get<Real>() == doctest::Approx(0.5 * 0.25 * 0.25).epsilon(1e-12));
  CHECK(vec3(block["centroid"]).isApprox(Vec3(0.5, 0.375, 0.375), 1e-12));
  CHECK(vec3(block["mean_velocity"]).isApprox(Vec3(0.5, 1, 0), 1e-12));
  // 1/2 m |v|^2 with m = 500 kg/m^3 x 0.03125 m^3.
  CHECK(block["kinetic_energy"].get<Real>() == doctest::Approx(0.5 * 15.625 * 1.25).epsilon(1e-9));
  CHECK(vec3(block["linear_momentum"]).isApprox(15.625 * Vec3(0.5, 1, 0), 1e-9));
  CHECK(block["elastic_energy"].get<Real>() == doctest::Approx(0).scale(1));
  CHECK(block["inverted_elements"] == 0);
  CHECK_FALSE(block.contains("modes"));
  const json& toy = j["solids"][1];
  check_keys(toy, SOLID_KEYS);
  CHECK(toy["name"] == "toy");
  CHECK(toy["modes"] == 2);
  CHECK(toy["modal_energy"].get<Real>() == doctest::Approx(0).scale(1));
}

TEST_CASE("stats: an Eulerian scene's line has every contract key - liquid 0 - its solids and eulerian record") {
  const std::unique_ptr<sim::Simulator> s = sim::build_simulator(parse(EULERIAN_SCENE));
  REQUIRE(dynamic_cast<const sim::EulerianSimulator*>(s.get()) != nullptr);
  sim::FrameStats st = some_stats();
  st.frame = 0;
  const json j = json::parse(sim::stats_line(*s, st));
  check_keys(j, TOP_KEYS);
  check_keys(j["solver"], SOLVER_KEYS);
  for (const char* k : {"liquid_volume", "particle_volume", "deep_density", "packed_cells", "max_fluid_speed"})
    CHECK_MESSAGE(j[k] == 0.0, k);
  CHECK(j["obstacles"] == json::array());
  CHECK(j["solver"]["tolerance"] == s->scene.coupling.eulerian.pressure_tolerance);
  REQUIRE(j["solids"].size() == 1);
  const json& ball = j["solids"][0];
  check_keys(ball, {"name", "representation", "centroid", "volume", "mean_velocity", "kinetic_energy",
                    "elastic_energy", "max_strain", "inverted_points", "drift"});
  CHECK(ball["name"] == "ball");
  CHECK(ball["representation"] == "eulerian");
  MESSAGE("Eulerian ball volume " << ball["volume"] << " m^3");
  CHECK(ball["volume"].get<Real>() == doctest::Approx(4.0 / 3 * M_PI * 0.008).epsilon(0.15));
  CHECK(ball["kinetic_energy"] == 0.0);
  REQUIRE(j.contains("eulerian"));
  check_keys(j["eulerian"], {"substeps", "velocity_iterations", "pressure_iterations", "correction_iterations",
                             "divergence", "unknowns", "constraints", "contacts", "smallest_dt", "seconds",
                             "smoke_amount"});
  check_keys(j["eulerian"]["seconds"], {"assemble", "velocity_solves", "pressure_solve", "collision", "advection"});
  CHECK(j["eulerian"]["substeps"] == 0);
  CHECK(j["eulerian"]["smoke_amount"] == 0.0);
}

TEST_CASE("stats: the record taken at the frame's end makes the same line once the seconds are known") {
  const sim::CutCellSimulator liquid(parse(LIQUID_SCENE));
  const sim::CutCellSimulator solid(parse(SOLID_SCENE));
  const std::unique_ptr<sim::Simulator> eulerian = sim::build_simulator(parse(EULERIAN_SCENE));
  sim::FrameStats st = some_stats();
  st.partitioned = coupling::PartitionedReport{true, 5, 1e-5, 0.25, 0.5, 0.125};
  const sim::Simulator* simulators[] = {&liquid, &solid, eulerian.get()};
  for (const sim::Simulator* s : simulators) {
    const json record = sim::frame_record(*s, st);
    CHECK_FALSE(record.contains("seconds"));
    const std::string line = sim::stats_line(*s, st);
    CHECK(sim::stats_line(record, st.seconds) == line);
    CHECK(line.find('\n') == std::string::npos);
    // The seconds are the caller's: other seconds change that key only.
    json other = json::parse(sim::stats_line(record, {{"projection", 9.0}}));
    CHECK(other["seconds"] == json({{"projection", 9.0}}));
    other["seconds"] = json::parse(line)["seconds"];
    CHECK(other == json::parse(line));
  }
}

TEST_CASE("stats: solver converged and met_tolerance hold with no solves - partitioned keys - failure") {
  const sim::CutCellSimulator s(parse(SOLID_SCENE));
  sim::FrameStats none;  // frame 0: no solve ran, the default report says not converged
  json j = sim::frame_record(s, none);
  CHECK(j["solver"]["converged"] == true);
  CHECK(j["solver"]["met_tolerance"] == true);
  CHECK(j["solver"]["solves"] == 0);

  sim::FrameStats failed = some_stats();
  failed.solver.converged = false;
  failed.solver.met_tolerance = false;
  failed.solver.failure = "factorization failed";
  failed.partitioned = coupling::PartitionedReport{false, 50, 0.75, 1.5, 2.5, 0.25};
  j = sim::frame_record(s, failed);
  CHECK(j["solver"]["converged"] == false);
  CHECK(j["solver"]["met_tolerance"] == false);
  CHECK(j["solver"]["failure"] == "factorization failed");
  check_keys(j["solver"], PARTITIONED_KEYS);
  CHECK(j["solver"]["coupling_iterations"] == 50);
  CHECK(j["solver"]["interface_residual"] == 0.75);
  CHECK(j["solver"]["interface_converged"] == false);
  CHECK(j["solver"]["fluid_seconds"] == 1.5);
  CHECK(j["solver"]["solid_seconds"] == 2.5);
  CHECK(j["solver"]["interface_seconds"] == 0.25);
}

TEST_CASE("stats: first_liquid_volume reads the first line only") {
  const std::string lines = R"({"frame":0,"liquid_volume":0.5})"
                            "\n"
                            R"({"frame":1,"liquid_volume":0.25})"
                            "\n";
  CHECK(sim::first_liquid_volume(lines) == Real(0.5));
  CHECK(sim::first_liquid_volume(R"({"frame":0,"liquid_volume":2})") == Real(2));
  CHECK_FALSE(sim::first_liquid_volume(""));
  CHECK_FALSE(sim::first_liquid_volume("\n" + lines));
  CHECK_FALSE(sim::first_liquid_volume(R"({"frame":0,"liquid_vol)" "\n" R"({"frame":1,"liquid_volume":0.25})"));
  CHECK_FALSE(sim::first_liquid_volume(R"({"frame":0})" "\n" R"({"frame":1,"liquid_volume":0.25})"));
  // A liquid scene's own line reads back as its volume.
  const sim::CutCellSimulator s(parse(LIQUID_SCENE));
  CHECK(sim::first_liquid_volume(sim::stats_line(s, sim::FrameStats{}) + "\n") == *s.liquid_volume());
}

TEST_CASE("stats: run_record holds the versions - the threads - the wait policy - the resolved scene") {
  const scene::Scene scene = parse(SOLID_SCENE);
  const std::string text = sim::run_record(scene, 3);
  REQUIRE(!text.empty());
  CHECK(text.back() == '\n');
  const json j = json::parse(text);
  for (const char* k : {"fsicut_version", "libraries", "threads", "omp_wait_policy", "scene_file", "scene"})
    CHECK_MESSAGE(j.contains(k), k);
  CHECK(j["fsicut_version"].is_string());
  CHECK_FALSE(j["fsicut_version"].get<std::string>().empty());
  CHECK(j["threads"] == 3);
  const char* policy = std::getenv("OMP_WAIT_POLICY");
  CHECK(j["omp_wait_policy"] == (policy ? policy : ""));
  CHECK(j["scene_file"] == "test.json");
  CHECK(j["scene"] == json::parse(scene::to_json(scene)));
  // The resolved scene: defaults filled in.
  CHECK(j["scene"]["time"]["fps"] == 30.0);
  CHECK(j["scene"]["solids"][1]["modes"] == 2);
}
