// The liquid's loads on solids and obstacles (lib/sim/cutcell/loads.hpp) as fsicut
// reports them in stats.jsonl: per solid fluid_force / fluid_torque (J^T p over
// all nodes, pinned ones included) and the list `obstacles`, each the mean over
// a frame's substeps, taken from sim::frame_record after sim::advance_frame.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include <nlohmann/json.hpp>

#include "lib/cutcell/active_cells.hpp"
#include "lib/sim/advance.hpp"
#include "lib/sim/cutcell/coupling_matrix.hpp"
#include "lib/sim/cutcell/simulator.hpp"
#include "lib/sim/stats.hpp"
#include "tests/sim/cutcell/coupled_support.hpp"

namespace fsicut {
namespace {

using json = nlohmann::json;
constexpr Real RHO = 1000, G = 9.81;

Vec3 vec(const json& j) { return Vec3(j[0].get<Real>(), j[1].get<Real>(), j[2].get<Real>()); }

// Runs `frames` frames as fsicut does and returns the last frame's stats record.
json run_frames(sim::CutCellSimulator& state, int frames) {
  json record;
  for (int f = 0; f < frames; ++f) {
    sim::FrameStats tally;
    StageTimes times;
    REQUIRE(sim::advance_frame(state, tally, times));
    tally.frame = state.frame;
    tally.time = state.time;
    record = sim::frame_record(state, tally);
  }
  return record;
}

}  // namespace

TEST_SUITE("sim") {
  TEST_CASE("loads: a submerged neutrally buoyant body feels the weight of the water it displaces (Archimedes)") {
    // A 0.3 x 0.2 x 0.25 m box, not aligned with the cells, 0.1 m under the
    // surface of a 1 m tank filled to 0.75 m, as dense as water: it stays put
    // and the pressure around it is hydrostatic.
    sim::CutCellSimulator state = test::coupled_state(R"({
      "grid": { "resolution": [16, 16, 16], "cell_size": 0.0625 },
      "fluid": { "regions": [ { "type": "box", "min": [0, 0, 0], "max": [1, 0.75, 1] } ] },
      "solids": [ { "name": "body", "mesh": { "type": "box", "min": [0.33, 0.41, 0.37], "max": [0.63, 0.61, 0.62],
                    "cells": [3, 2, 3] }, "density": 1000, "youngs_modulus": 1e6 } ] })");
    const Real volume = 0.3 * 0.2 * 0.25, buoyancy = RHO * G * volume;
    const json record = run_frames(state, 2);
    const Vec3 force = vec(record["solids"][0]["fluid_force"]), torque = vec(record["solids"][0]["fluid_torque"]);
    MESSAGE("fluid_force (" << force.transpose() << ") N, rho g V = " << buoyancy << " N ("
                            << 100 * (force.y() / buoyancy - 1) << " %), fluid_torque (" << torque.transpose()
                            << ") N m");
    CHECK(std::abs(force.y() / buoyancy - 1) < 0.01);
    CHECK(Vec3(force.x(), 0, force.z()).norm() < 0.01 * buoyancy);
    // About the centre of mass a uniform body under hydrostatic pressure feels no torque.
    CHECK(torque.norm() < 0.01 * buoyancy * 0.3);
  }

  TEST_CASE("loads: a column of water on a pinned floor plate loads it with its weight") {
    // The plate fills the tank's floor, its top inside a row of cells, pinned
    // along its bottom: its supports carry the water, so the load lives on
    // pinned and free nodes alike. The water stands 0.47 m deep on it.
    sim::CutCellSimulator state = test::coupled_state(R"({
      "grid": { "resolution": [10, 10, 10], "cell_size": 0.1 },
      "fluid": { "regions": [ { "type": "box", "min": [0, 0.13, 0], "max": [1, 0.6, 1] } ] },
      "solids": [ { "name": "plate", "mesh": { "type": "box", "min": [0, 0, 0], "max": [1, 0.13, 1], "cells": [6, 1, 6] },
                    "density": 2000, "youngs_modulus": 1e9,
                    "pinned": [ { "type": "box", "min": [-1, -1, -1], "max": [2, 0.001, 2] } ] } ] })");
    const json record = run_frames(state, 2);
    const Vec3 force = vec(record["solids"][0]["fluid_force"]);
    const Real weight = RHO * G * 0.47 * 1 * 1;
    MESSAGE("fluid_force (" << force.transpose() << ") N, weight of the 0.47 m column " << weight << " N ("
                            << 100 * (-force.y() / weight - 1) << " %)");
    CHECK(std::abs(-force.y() / weight - 1) < 0.01);
    CHECK(Vec3(force.x(), 0, force.z()).norm() < 0.01 * weight);
  }

  TEST_CASE("loads: a wall thinner than a cell with water on its far side feels the hydrostatic push") {
    // A wall 0.1 cells thick inside the cells x = 0.4 .. 0.5 m, water 0.5 m
    // deep on its +x side only: in those split cells the water is the second
    // region (numbered after the dry sliver that touches the -x face), and the
    // wall's wetted face lies in them. Expected: rho g h^2 / 2 per metre of
    // width, pushing towards -x. Before the loads read the split cells' second
    // regions, that whole face read 0 Pa.
    sim::CutCellSimulator state = test::coupled_state(R"({
      "grid": { "resolution": [10, 10, 2], "cell_size": 0.1 },
      "fluid": { "regions": [ { "type": "box", "min": [0.45, 0, 0], "max": [1, 0.5, 0.2] } ] },
      "obstacles": [ { "type": "box", "min": [0.44, -0.1, -0.1], "max": [0.45, 1.1, 0.3] } ] })");
    const json record = run_frames(state, 2);
    REQUIRE(!state.liquid->split.empty());
    const Real expected = -RHO * G * 0.5 * 0.5 / 2 * 0.2;
    const Vec3 force = vec(record["obstacles"][0]["fluid_force"]);
    MESSAGE("fluid_force (" << force.transpose() << ") N, rho g h^2 w / 2 = " << -expected << " N ("
                            << 100 * (force.x() / expected - 1) << " %)");
    CHECK(std::abs(force.x() / expected - 1) < 0.01);
  }

  TEST_CASE("loads: static obstacles in still water feel only the hydrostatic force") {
    // A box and a sphere obstacle under water: buoyancy rho g V up, nothing
    // sideways, no torque about their centres; still so after a few frames.
    sim::CutCellSimulator state = test::coupled_state(R"({
      "grid": { "resolution": [16, 16, 16], "cell_size": 0.0625 },
      "fluid": { "regions": [ { "type": "box", "min": [0, 0, 0], "max": [1, 0.8, 1] } ] },
      "obstacles": [ { "type": "box", "min": [0.13, 0.17, 0.21], "max": [0.41, 0.46, 0.52] },
                     { "type": "sphere", "center": [0.7, 0.4, 0.6], "radius": 0.17 } ] })");
    const Real box = RHO * G * 0.28 * 0.29 * 0.31, ball = RHO * G * 4.0 / 3 * M_PI * std::pow(0.17, 3);
    const json record = run_frames(state, 3);
    REQUIRE(record["obstacles"].size() == 2);
    const Real expected[2] = {box, ball};
    for (int o = 0; o < 2; ++o) {
      const Vec3 force = vec(record["obstacles"][o]["fluid_force"]), torque = vec(record["obstacles"][o]["fluid_torque"]);
      MESSAGE("obstacle " << o << ": fluid_force (" << force.transpose() << ") N, rho g V = " << expected[o] << " N ("
                          << 100 * (force.y() / expected[o] - 1) << " %), fluid_torque (" << torque.transpose() << ")");
      CHECK(record["obstacles"][o]["index"] == o);
      CHECK(std::abs(force.y() / expected[o] - 1) < 0.01);
      CHECK(Vec3(force.x(), 0, force.z()).norm() < 0.01 * expected[o]);
      CHECK(torque.norm() < 0.01 * expected[o] * 0.3);
    }
  }

  TEST_CASE("loads: an obstacle's load reads the active cells near it only - the same bits as from the whole grid") {
    // A dam break onto a post and over a sphere: patches in the flow's front,
    // under it and half wet. The loads decide which cells are active only near
    // the obstacles' patches (OBSTACLE_STENCIL_CELLS); the pressure stencils must
    // not reach past them.
    sim::CutCellSimulator state = test::coupled_state(R"({
      "grid": { "resolution": [16, 16, 16], "cell_size": 0.0625 },
      "time": { "cfl": 0.5 },
      "fluid": { "regions": [ { "type": "box", "min": [0, 0, 0], "max": [0.4, 0.7, 1] } ] },
      "obstacles": [ { "type": "box", "min": [0.45, 0, 0.3], "max": [0.57, 0.4, 0.47] },
                     { "type": "sphere", "center": [0.75, 0.12, 0.6], "radius": 0.11 } ] })");
    int compared = 0;
    sim::AdvanceHooks hooks;
    hooks.after_substep = [&](const sim::Simulator& simulator, const sim::StepReport& report) {
      const auto& s = static_cast<const sim::CutCellSimulator&>(simulator);
      const fluid::Liquid& l = *s.liquid;
      const cutcell::ActiveCells active = cutcell::find_active_cells(l.grid, l.liquid_phi, l.fractions);
      for (std::size_t o = 0; o < s.obstacle_surfaces.size(); ++o) {
        const sim::ObstacleSurface& surface = s.obstacle_surfaces[o];
        sim::Load whole;
        for (const cutcell::SurfacePatch& q : surface.patches) {
          const mesh::Triangle& t = surface.surface.triangles[static_cast<std::size_t>(q.triangle)];
          const Vec3 centroid = q.barycentric[0] * surface.surface.vertices.col(t[0]) +
                                q.barycentric[1] * surface.surface.vertices.col(t[1]) +
                                q.barycentric[2] * surface.surface.vertices.col(t[2]);
          const sim::PressureStencil stencil = sim::patch_pressure_stencil(s, active, q.cell, centroid, q.normal);
          Real p = 0;
          for (int n = 0; n < stencil.size; ++n)
            p += stencil.weight[n] * l.pressure[active.cells[static_cast<std::size_t>(stencil.row[n])]];
          whole.force += p * q.area * q.normal;
          whole.torque += (centroid - surface.centre).cross(p * q.area * q.normal);
        }
        CHECK(report.loads.obstacles[o].force == whole.force);
        CHECK(report.loads.obstacles[o].torque == whole.torque);
        compared += whole.force.norm() > 0;
      }
    };
    sim::advance_frames_to(state, 0.25, hooks);
    MESSAGE(compared << " non-zero loads compared");
    CHECK(compared > 20);
  }
}

}  // namespace fsicut
