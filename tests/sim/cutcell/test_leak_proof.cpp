// Leak-proof solids (issue 17): still water stays still beside a deformable
// solid exactly as beside an obstacle of its shape, and no liquid passes
// through a solid. Long-running: doctest suite "validation".
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <tuple>
#include <utility>

#include "lib/sim/cutcell/couple.hpp"
#include "lib/solid/body.hpp"
#include "tests/sim/cutcell/liquid_support.hpp"
#include "tests/sim/cutcell/coupled_support.hpp"
#include "tests/support.hpp"

namespace fsicut {
namespace {

// Particles with x > `plane` [m].
Index count_beyond(const fluid::Liquid& l, Real plane) {
  Index n = 0;
  for (Index p = 0; p < l.particles.cols(); ++p) n += l.particles(0, p) > plane;
  return n;
}

// A slab tank 4 cells thick, 1.6 m x 1.2 m, water 0.6 m deep left of a wall
// 3 cells thick at x = 0.75 .. 0.9 m, flush with the floor and the front and
// back walls; `wall` is the solids or obstacles entry.
std::string slab_tank(const std::string& wall) {
  return R"({ "grid": { "resolution": [32, 24, 4], "origin": [0, 0, 0], "cell_size": 0.05 },
    "fluid": { "regions": [ { "type": "box", "min": [0, 0, 0], "max": [0.75, 0.6, 0.2] } ] }, )" +
         wall + "}";
}

constexpr Real STILL_SPEED = 1e-3;  // [m/s], the issue's bound for "at rest"
constexpr Real RHO = 1000, G = 9.81;

// The largest x [m] of a body's nodes.
Real right_edge(const solid::Body& b) { return b.x.row(0).maxCoeff(); }

// The issue's bound on the liquid volume beside a moving thin wall: at every
// frame of the run, as stats.jsonl reports it.
constexpr Real VOLUME_BOUND = 0.005;

// Whether the substep just taken ended a frame of the scene (30 fps in all the
// scenes here): where fsicut measures the volume for stats.jsonl.
bool at_frame(const sim::CutCellSimulator& s, Real fps = 30) {
  return std::abs(s.time * fps - std::round(s.time * fps)) < 1e-9;
}

// The slab tank with a pinned wall half a cell thick (x = 0.76 .. 0.785 m, inside
// the cells 0.75 .. 0.8: every grid node is outside it), flush with the floor
// and the front and back walls and pinned along `pinned` (JSON boxes).
std::string thin_wall(const std::string& pinned, const std::string& modulus, const std::string& element = "linear") {
  return slab_tank(R"("solids": [ { "name": "wall",
      "mesh": { "type": "box", "min": [0.76, 0, 0], "max": [0.785, 1.0, 0.2], "cells": [1, 20, 4] },
      "element": ")" + element + R"(", "density": 1000, "youngs_modulus": )" + modulus +
                   R"(, "poisson_ratio": 0.3, "damping": { "mass": 1.0 },
      "pinned": [ )" + pinned + "] } ]");
}

}  // namespace

TEST_CASE("leak-proof: particles whose path crosses a thin wall in one substep end on the side they came from") {
  // The wall of thin_wall() (x = 0.76 .. 0.785 m): no grid node is inside it.
  SUBCASE("a static wall, the liquid thrown at it at 3 m/s for 0.05 s (3 cells)") {
    sim::CutCellSimulator s = test::coupled_state(thin_wall(R"({ "type": "box", "min": [0.7, -0.1, -0.1], "max": [1.0, 1.1, 0.3] })", "1e6"));
    for (int a = 0; a < 3; ++a) s.liquid->velocity[a].fill(a == 0 ? 3.0 : 0.0);
    StageTimes times;
    s.step(0.05, times);
    const Real front = s.liquid->particles.row(0).maxCoeff();
    MESSAGE("foremost particle at x = " << front << " m; the wall's face at 0.76 m");
    CHECK(front < 0.76);
    CHECK(front > 0.76 - 0.01 * 0.05);  // stopped at the face, not short of it
  }
  SUBCASE("still liquid, the free wall moving into it at 2 m/s for 0.02 s (0.8 cells)") {
    std::string json = thin_wall(R"({ "type": "box", "min": [5, 5, 5], "max": [6, 6, 6] })", "1e6");
    json.replace(json.find(R"("pinned")"), 0, R"("velocity": [-2, 0, 0], )");
    json.replace(json.find(R"("grid")"), 0, R"("gravity": [0, 0, 0], )");
    sim::CutCellSimulator s = test::coupled_state(json);
    const Real before = s.solids[0].x.row(0).minCoeff();
    StageTimes times;
    s.step(0.02, times);
    const Real face = s.solids[0].x.row(0).minCoeff();
    Index behind = 0;
    for (Index p = 0; p < s.liquid->particles.cols(); ++p) behind += s.liquid->particles(0, p) > face;
    MESSAGE("the wall's face moved " << before << " -> " << face << " m; particles behind it: " << behind);
    CHECK(face < before - 0.03);
    CHECK(behind == 0);
  }
}

TEST_SUITE("validation") {
  TEST_CASE("leak-proof: a pinned deformable wall in a slab tank holds still water exactly as an obstacle does") {
    sim::CutCellSimulator obstacle = test::coupled_state(slab_tank(
        R"("obstacles": [ { "type": "box", "min": [0.75, 0, 0], "max": [0.9, 1.0, 0.2] } ])"));
    sim::CutCellSimulator solid = test::coupled_state(slab_tank(R"("solids": [ { "name": "wall",
        "mesh": { "type": "box", "min": [0.75, 0, 0], "max": [0.9, 1.0, 0.2], "cells": [3, 20, 4] },
        "density": 1000, "youngs_modulus": 1e6, "poisson_ratio": 0.3,
        "pinned": [ { "type": "box", "min": [0.7, -0.1, -0.1], "max": [1.0, 1.1, 0.3] } ] } ])"));
    for (sim::CutCellSimulator* s : {&obstacle, &solid}) {
      const bool deformable = s == &solid;
      const Real v0 = *s->liquid_volume();
      Real worst = 0;
      Index crossed = 0;
      test::advance(*s, 1.5, [&](const sim::CutCellSimulator& st) {
        worst = std::max(worst, test::max_liquid_face_speed(*st.liquid));
        crossed = std::max(crossed, count_beyond(*st.liquid, 0.75));
      });
      const Real drift = *s->liquid_volume() / v0 - 1;
      MESSAGE(std::string(deformable ? "deformable wall" : "obstacle") << ": largest liquid speed over 1.5 s " << worst
                                                             << " m/s, particles past x = 0.75 m " << crossed
                                                             << ", volume drift " << 100 * drift << " %");
      // Before ties on the wall's planes were resolved: 2.9 m/s (obstacle 2.6 m/s),
      // 586 particles through the wall, volume -7.5 % (obstacle -5.9 %).
      CHECK(worst < STILL_SPEED);
      CHECK(crossed == 0);
      CHECK(std::abs(drift) < 1e-3);
    }
    // The same liquid, particle for particle: a solid at rest is an obstacle to it.
    REQUIRE(solid.liquid->particles.cols() == obstacle.liquid->particles.cols());
    const Real apart = (solid.liquid->particles - obstacle.liquid->particles).cwiseAbs().maxCoeff();
    MESSAGE("largest particle distance between the two runs: " << apart << " m");
    CHECK(apart < 1e-9);
  }

  // The wall 3 cells thick again, off the node planes (x = 0.765 .. 0.915 m,
  // 0.3 cells past them), flush with the floor and the front and back walls,
  // water on both sides. Before the domain walls were continued through (the
  // solid's faces in the tank's walls put its surface up to a cell off in the
  // cells along them; a thin-wall look one cell on left the domain and met
  // those faces) and before the liquid beside a deformable solid was seeded as
  // beside an obstacle (by sub-cell centres), the water here reached 0.45 m/s
  // beside the obstacle and 0.30 m/s beside the deformable wall (now 0.3 mm/s).
  TEST_CASE("leak-proof: a wall off the node planes, flush with the tank, water on both sides: still as an obstacle and as a pinned solid") {
    const std::string tank = R"({ "grid": { "resolution": [32, 24, 4], "origin": [0, 0, 0], "cell_size": 0.05 },
      "fluid": { "regions": [ { "type": "box", "min": [0, 0, 0], "max": [1.6, 0.6, 0.2] } ] }, )";
    sim::CutCellSimulator obstacle = test::coupled_state(
        tank + R"("obstacles": [ { "type": "box", "min": [0.765, 0, 0], "max": [0.915, 1.0, 0.2] } ] })");
    sim::CutCellSimulator solid = test::coupled_state(tank + R"("solids": [ { "name": "wall",
        "mesh": { "type": "box", "min": [0.765, 0, 0], "max": [0.915, 1.0, 0.2], "cells": [3, 20, 4] },
        "density": 1000, "youngs_modulus": 1e6, "poisson_ratio": 0.3,
        "pinned": [ { "type": "box", "min": [0.7, -0.1, -0.1], "max": [1.0, 1.1, 0.3] } ] } ] })");
    REQUIRE(solid.liquid->particles.cols() == obstacle.liquid->particles.cols());
    CHECK((solid.liquid->particles - obstacle.liquid->particles).cwiseAbs().maxCoeff() == 0);
    for (sim::CutCellSimulator* s : {&obstacle, &solid}) {
      const Real v0 = *s->liquid_volume();
      Real worst = 0;
      test::advance(*s, 1.0, [&](const sim::CutCellSimulator& st) {
        worst = std::max(worst, test::max_liquid_face_speed(*st.liquid));
      });
      const Real drift = *s->liquid_volume() / v0 - 1;
      MESSAGE(std::string(s == &solid ? "pinned solid" : "obstacle") << ": largest liquid speed over 1 s " << worst
                                                          << " m/s, volume drift " << 100 * drift << " %");
      CHECK(worst < STILL_SPEED);
      CHECK(std::abs(drift) < 1e-3);
    }
  }

  // Pinned whole; then pinned along its top and bottom edges only, stiff, so
  // that it bulges under the water and moves; then soft, so that it swings by
  // more than a cell.
  void check_thin_wall(const std::string& element, const std::string& bulging_modulus,
                       const std::string& swinging_modulus) {
    const std::string whole = R"({ "type": "box", "min": [0.7, -0.1, -0.1], "max": [1.0, 1.1, 0.3] })";
    const std::string edges = R"({ "type": "box", "min": [0.7, -0.1, -0.1], "max": [1.0, 0.001, 0.3] },
                                 { "type": "box", "min": [0.7, 0.999, -0.1], "max": [1.0, 1.1, 0.3] })";
    enum Wall { pinned, bulging, swinging };
    for (const Wall wall : {pinned, bulging, swinging}) {
      const char* name = wall == pinned ? "pinned" : wall == bulging ? "bulging" : "swinging";
      sim::CutCellSimulator s = test::coupled_state(
          thin_wall(wall == pinned ? whole : edges,
                    wall == pinned ? "1e6" : wall == bulging ? bulging_modulus : swinging_modulus, element));
      const Real v0 = *s.liquid_volume();
      Index crossed = 0;
      Real worst = 0, moved = 0, drift = 0, drift_at = 0;
      const Real rest_edge = right_edge(s.solids[0]);
      test::advance(s, 2.0, [&](const sim::CutCellSimulator& st) {
        crossed = std::max(crossed, count_beyond(*st.liquid, right_edge(st.solids[0]) + 1e-6));
        worst = std::max(worst, test::max_liquid_face_speed(*st.liquid));
        moved = std::max(moved, right_edge(st.solids[0]) - rest_edge);
        if (!at_frame(st)) return;
        const Real d = *st.liquid_volume() / v0 - 1;
        if (std::abs(d) > std::abs(drift)) std::tie(drift, drift_at) = std::make_pair(d, st.time);
      });
      MESSAGE(std::string(name) << " wall: particles past it " << crossed << ", largest liquid speed " << worst
                   << " m/s, wall moved " << moved << " m, largest volume change " << 100 * drift << " % at "
                   << drift_at << " s");
      CHECK(crossed == 0);
      // Still water beside the pinned wall stays still, as beside a thick one
      // (before the neighbour reach of the liquid fraction: 0.12 m/s).
      if (wall == pinned) CHECK(worst < STILL_SPEED);
      if (wall == bulging) CHECK(moved > 0.1 * 0.025);  // a tenth of its thickness at least
      if (wall == swinging) CHECK(moved > 0.05);        // more than a cell
      // Before faces closed by the wall took its velocity, the liquid beside it
      // ran into it and packed: -10 % in 1 s; before the measure counted the
      // split cells' regions and their shares, the swinging wall read -2.5 %.
      CHECK(std::abs(drift) <= VOLUME_BOUND);
    }
  }

  TEST_CASE("leak-proof: a wall half a cell thick holds the water on its side for 2 s - pinned / bulging / swinging") {
    check_thin_wall("linear", "1e8", "5e6");
  }

  // One 10-node element through the wall: its boundary is 4 flat sub-triangles
  // per face, each clipped like a linear surface (mesh/quadratic.hpp). One
  // constant-strain tet through a plate locks: at the same moduli the quadratic
  // wall bends 5 times as far (1e8 Pa: 0.020 m against 0.004 m; 5e6 Pa: 0.091
  // m against 0.066 m). The bulging wall is the issue's "quadratic wall one
  // element thick" (it lost 6.6 % of the liquid in 2 s before the split
  // cells); the swinging one at 1e7 Pa moves about as far as the linear wall
  // at 5e6 Pa.
  TEST_CASE("leak-proof: quadratic elements: a wall half a cell thick holds the water for 2 s - pinned / bulging / swinging") {
    check_thin_wall("quadratic", "1e8", "1e7");
  }

  TEST_CASE("leak-proof: a static obstacle box half a cell thick holds still water for 2 s") {
    // The wall of thin_wall() as an `obstacles` box: its analytic distance is
    // positive at every grid node, so only its triangles show it (before they
    // did: the whole column ran through it at 4 m/s).
    sim::CutCellSimulator s = test::coupled_state(
        slab_tank(R"("obstacles": [ { "type": "box", "min": [0.76, -0.1, -0.1], "max": [0.785, 1.0, 0.3] } ])"));
    REQUIRE(s.solids.empty());
    const Real v0 = *s.liquid_volume();
    Index crossed = 0;
    Real worst = 0;
    test::advance(s, 2.0, [&](const sim::CutCellSimulator& st) {
      crossed = std::max(crossed, count_beyond(*st.liquid, 0.76));
      worst = std::max(worst, test::max_liquid_face_speed(*st.liquid));
    });
    const Real drift = *s.liquid_volume() / v0 - 1;
    MESSAGE("obstacle wall: particles past it " << crossed << ", largest liquid speed " << worst
                                               << " m/s, volume drift " << 100 * drift << " %");
    CHECK(crossed == 0);
    CHECK(worst < STILL_SPEED);
    CHECK(std::abs(drift) < 1e-3);
  }

  // scenes/gate_dam_break.json for its 2 s, its gate changed by `overrides`:
  // no particle passes through it, it bends, stays on the floor, and the
  // liquid keeps its volume to `bound` at every frame.
  void check_gate(const std::vector<scene::Override>& overrides, Real bound) {
    sim::CutCellSimulator s =
        sim::CutCellSimulator(scene::load_scene((test::source_dir() / "scenes/gate_dam_break.json").string(), overrides));
    // The gate is clamped along its top and side edges, its bottom edge free on
    // the floor; it bends only to the right, so a particle that gets right of
    // its rightmost node has passed it: through the panel (a leak) when it is
    // higher than the bottom edge's highest node then, else under the edge,
    // which the wave lifts off the floor (up to 5 mm with quadratic elements:
    // water flows through that real gap).
    const mesh::TetMesh& rest = s.solids[0].mesh;
    const Real rest_edge = right_edge(s.solids[0]);
    const Real v0 = *s.liquid_volume();
    std::vector<char> beyond(static_cast<std::size_t>(s.liquid->particles.cols()), 0);
    Index through = 0, under = 0;
    Real moved = 0, lowest = 1, lifted = 0, drift = 0, drift_at = 0;
    test::advance(s, 2.0, [&](const sim::CutCellSimulator& st) {
      const solid::Body& gate = st.solids[0];
      const Real edge = right_edge(gate);
      Real bottom = 0;  // the bottom edge's highest node [m]
      for (Index n = 0; n < rest.rest.cols(); ++n)
        if (rest.rest(1, n) == 0) bottom = std::max(bottom, gate.x(1, n));
      const Points& x = st.liquid->particles;
      for (Index p = 0; p < x.cols(); ++p)
        if (!beyond[static_cast<std::size_t>(p)] && x(0, p) > edge + 1e-6) {
          beyond[static_cast<std::size_t>(p)] = 1;
          ++(x(1, p) > bottom ? through : under);
        }
      moved = std::max(moved, edge - rest_edge);
      lowest = std::min(lowest, gate.x.row(1).minCoeff());
      lifted = std::max(lifted, bottom);
      if (!at_frame(st)) return;
      const Real d = *st.liquid_volume() / v0 - 1;
      if (std::abs(d) > std::abs(drift)) std::tie(drift, drift_at) = std::make_pair(d, st.time);
    });
    MESSAGE("particles through the gate " << through << ", under its edge " << under << " of "
                                          << s.liquid->particles.cols() << "; its edge moved up to " << moved
                                          << " m and lifted up to " << lifted << " m; its lowest node at " << lowest
                                          << " m; largest volume change " << 100 * drift << " % at " << drift_at
                                          << " s");
    CHECK(through == 0);
    CHECK(moved > 0.5 * 0.0125);  // it bends by more than half its thickness
    CHECK(lowest > -1e-9);  // and stays on the floor
    CHECK(std::abs(drift) <= bound);
  }

  // Before the measure counted the split cells' regions by their particles'
  // shares: -1.15 % (linear) and -0.64 % (quadratic) at 0.4 s, where the
  // gate's edge lifts off the floor.
  TEST_CASE("leak-proof: scenes/gate_dam_break.json: no water passes the thin gate in 2 s and none is lost") {
    check_gate({}, VOLUME_BOUND);
  }

  // Ten-node tetrahedra: the panel one element thick bends 2-5 times as far.
  TEST_CASE("leak-proof: scenes/gate_dam_break.json with quadratic elements: no water passes the gate in 2 s and none is lost") {
    check_gate({{"/solids/0/element", "\"quadratic\""}}, VOLUME_BOUND);
  }

  // The gate's upstream face on the node plane x = 0.9 m at rest: its edges stay
  // on the plane (pinned) while the panel bulges a hair off it, so the cells
  // holding it have some nodes inside and their centres in the panel. Before the
  // wall rule covered such cells, water ran through the panel into the sliver
  // between it and the plane: -58 % volume in 1.5 s. The volume is held to
  // the few % of a leak test, not to the issue's 0.5 %, which names the
  // scene's own panel: here it reads up to +0.64 % (at 0.7 s).
  TEST_CASE("leak-proof: the gate scene with its panel on a node plane: no water passes and none is lost") {
    check_gate({{"/solids/0/mesh/min", "[0.9, 0, 0]"}, {"/solids/0/mesh/max", "[0.9125, 0.8, 0.1]"}}, 0.05);
  }

  TEST_CASE("leak-proof: a pinned membrane 0.3 cells thick between water 0.5 m and 0.3 m deep keeps them apart and carries their difference") {
    // The membrane spans the tank's height and depth inside the cells
    // x = 0.40 .. 0.45 m, off every node plane, so the cells it crosses split
    // into a region on each side. Hydrostatics: each side pushes with
    // rho g h^2 w / 2, the net load is rho g (h1^2 - h2^2) w / 2 towards +x.
    // The seeding fills whole sub-cells (half a cell wide): the left water ends
    // at x = 0.40, a fifth of a cell short of the membrane, and settles into
    // that gap, so its speed is reported, not bounded.
    sim::CutCellSimulator s = test::coupled_state(R"({
      "grid": { "resolution": [16, 16, 2], "origin": [0, 0, 0], "cell_size": 0.05 },
      "fluid": { "regions": [ { "type": "box", "min": [0, 0, 0], "max": [0.41, 0.5, 0.1] },
                              { "type": "box", "min": [0.425, 0, 0], "max": [0.8, 0.3, 0.1] } ] },
      "solids": [ { "name": "membrane",
        "mesh": { "type": "box", "min": [0.41, 0, 0], "max": [0.425, 0.8, 0.1], "cells": [1, 16, 2] },
        "density": 1000, "youngs_modulus": 1e6, "poisson_ratio": 0.3,
        "pinned": [ { "type": "box", "min": [0.3, -0.1, -0.1], "max": [0.5, 0.9, 0.2] } ] } ] })");
    REQUIRE(!s.liquid->split.empty());
    const Real h1 = 0.5, h2 = 0.3, w = 0.1, dx = 0.05, membrane = 0.4175;
    // A side's level: twice the mean height of its particles (a column at rest
    // has its mean at half its height), and its particle count.
    const auto side = [&](const fluid::Liquid& l, bool left_side) {
      Real sum = 0;
      Index n = 0;
      for (Index p = 0; p < l.particles.cols(); ++p)
        if ((l.particles(0, p) < membrane) == left_side) {
          sum += l.particles(1, p);
          ++n;
        }
      return std::make_pair(2 * sum / n, n);
    };
    const Index left0 = side(*s.liquid, true).second;
    Index crossed = 0;
    Real worst = 0;
    std::vector<Real> load;
    sim::AdvanceHooks hooks;
    hooks.after_substep = [&](const sim::Simulator& simulator, const sim::StepReport& r) {
      const auto& st = static_cast<const sim::CutCellSimulator&>(simulator);
      crossed = std::max(crossed, std::abs(side(*st.liquid, true).second - left0));
      worst = std::max(worst, test::max_liquid_face_speed(*st.liquid));
      load.push_back(r.loads.solids.at(0).force.x());
    };
    sim::advance_frames_to(s, 1.0, hooks);
    const Real expected = RHO * G * (h1 * h1 - h2 * h2) * w / 2;
    const Real level1 = side(*s.liquid, true).first, level2 = side(*s.liquid, false).first;
    MESSAGE("particles crossing " << crossed << "; largest liquid speed " << worst << " m/s; levels after 1 s "
                                  << level1 << " / " << level2 << " m; membrane load x " << load.front()
                                  << " N first, " << load.back() << " N last, rho g (h1^2 - h2^2) w / 2 = "
                                  << expected << " N");
    CHECK(crossed == 0);
    CHECK(std::abs(level1 - h1) < 0.1 * dx);
    CHECK(std::abs(level2 - h2) < 0.1 * dx);
    CHECK(std::abs(load.back() / expected - 1) < 0.01);
  }

  TEST_CASE("leak-proof: a plate flush on the floor under a water column keeps it at rest and carries its weight") {
    // The plate is the tank's floor, 2 cells thick and pinned along its bottom;
    // 0.4 m of water on it fills the tank's width.
    sim::CutCellSimulator s = test::coupled_state(R"({
      "grid": { "resolution": [16, 16, 4], "origin": [0, 0, 0], "cell_size": 0.05 },
      "fluid": { "regions": [ { "type": "box", "min": [0, 0.1, 0], "max": [0.8, 0.5, 0.2] } ] },
      "solids": [ { "name": "plate",
        "mesh": { "type": "box", "min": [0, 0, 0], "max": [0.8, 0.1, 0.2], "cells": [16, 2, 4] },
        "density": 1000, "youngs_modulus": 1e8, "poisson_ratio": 0.3,
        "damping": { "mass": 5.0 },
        "pinned": [ { "type": "box", "min": [-0.1, -0.1, -0.1], "max": [0.9, 0.001, 0.3] } ] } ] })");
    Real worst = 0;
    Index sunk = 0;
    test::advance(s, 1.0, [&](const sim::CutCellSimulator& st) {
      worst = std::max(worst, test::max_liquid_face_speed(*st.liquid));
      for (Index p = 0; p < st.liquid->particles.cols(); ++p) sunk += st.liquid->particles(1, p) < 0.1 - 1e-9;
    });
    const sim::CoupledAssembly a = sim::assemble_coupled(s, 1.0 / 120);
    linsolve::Vector p(a.fluid.active.count());
    for (int r = 0; r < a.fluid.active.count(); ++r) p[r] = s.liquid->pressure[a.fluid.active.cells[r]];
    const linsolve::Vector force = a.system.coupling.transpose() * p;  // J^T p, nodal [N]
    Vec3 total = Vec3::Zero();
    for (Index d = 0; d < force.size(); ++d) total[d % 3] += force[d];
    const Real weight = 1000 * 9.81 * 0.8 * 0.4 * 0.2;
    MESSAGE("largest liquid speed " << worst << " m/s; particles below the plate's top " << sunk
                                    << "; pressure force on the plate " << total.transpose() << " N, water weight "
                                    << weight << " N");
    CHECK(worst < STILL_SPEED);
    CHECK(sunk == 0);
    CHECK(-total.y() == doctest::Approx(weight).epsilon(0.02));
    CHECK(std::abs(total.x()) < 1e-3 * weight);
    CHECK(std::abs(total.z()) < 1e-3 * weight);
  }

  // Still water 10 cells deep on both sides of a wall 0.1 to 0.9 cells thick
  // spanning the tank (cells of 25 mm), its middle on a cell centre, a quarter
  // cell off it, 0.3 cell off it and on a face plane, as an obstacle box and as
  // a pinned deformable solid: the issue's bounds are 1 mm/s over 2 s and each
  // side's level kept to 0.1 cell. Before the liquid fraction hid the parts of
  // cells a thin wall hides and the cells beside it were seeded without jitter,
  // 8 of the 16 walls moved the water at 2.6 to 15 mm/s.
  TEST_CASE("leak-proof: still water beside walls 0.1 to 0.9 cells thick at four offsets stays still as obstacle and as pinned solid") {
    const Real dx = 0.025, level = 0.25;
    Real worst_speed = 0, worst_level = 0;
    for (const Real centre : {0.2125, 0.20625, 0.21, 0.2})
      for (const Real cells : {0.1, 0.3, 0.6, 0.9})
        for (const bool pinned : {false, true}) {
          const Real lo = centre - cells * dx / 2, hi = centre + cells * dx / 2;
          const std::string box = "\"min\": [" + std::to_string(lo) + ", 0, 0], \"max\": [" + std::to_string(hi) + ", 0.4, 0.1]";
          const std::string wall =
              pinned ? R"("solids": [ { "name": "wall", "mesh": { "type": "box", )" + box +
                           R"(, "cells": [1, 16, 4] }, "density": 1000, "youngs_modulus": 1e6, "poisson_ratio": 0.3,
                           "pinned": [ { "type": "box", "min": [-1, -1, -1], "max": [2, 2, 2] } ] } ])"
                     : R"("obstacles": [ { "type": "box", )" + box + " } ]";
          sim::CutCellSimulator s = test::coupled_state(R"({ "grid": { "resolution": [16, 16, 4], "origin": [0, 0, 0], "cell_size": 0.025 },
            "time": { "fps": 30 },
            "fluid": { "regions": [ { "type": "box", "min": [0, 0, 0], "max": [0.4, 0.25, 0.1] } ] }, )" + wall + "}");
          Real speed = 0, off = 0;
          test::advance(s, 2.0, [&](const sim::CutCellSimulator& st) {
            speed = std::max(speed, test::max_liquid_face_speed(*st.liquid));
            for (const int column : {3, 12}) off = std::max(off, std::abs(test::surface_height(*st.liquid, column, 1) - level));
          });
          CAPTURE(centre);
          CAPTURE(cells);
          CAPTURE(pinned);
          CHECK(speed < STILL_SPEED);
          CHECK(off < 0.1 * dx);
          worst_speed = std::max(worst_speed, speed);
          worst_level = std::max(worst_level, off);
        }
    MESSAGE("32 walls: largest liquid speed over 2 s " << worst_speed << " m/s, level off by at most " << worst_level
                                                      << " m");
  }
}

}  // namespace fsicut
