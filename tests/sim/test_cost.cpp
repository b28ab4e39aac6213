// The seconds-per-substep model (lib/sim/cost.hpp): the grid's term, the sum,
// --validate's lines and the slow-substep warnings; and each simulator's
// estimate_substep (the cut-cell one: dofs^1.5 per full solid, (modes + 6)^3
// per reduced one; the Eulerian one: its grid alone), built as fsicut builds
// them (sim::build_simulator).
#include <doctest/doctest.h>

#include <cmath>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "lib/scene/load.hpp"
#include "lib/sim/build.hpp"
#include "lib/sim/cost.hpp"
#include "lib/sim/cutcell/simulator.hpp"
#include "lib/sim/eulerian/simulator.hpp"

using namespace fsicut;

namespace {

scene::Scene parse(const std::string& json) { return scene::parse_scene(json, "test.json", "."); }

scene::Scene with_resolution(int nx, int ny, int nz) {
  std::ostringstream s;
  s << R"({ "grid": { "resolution": [)" << nx << ", " << ny << ", " << nz << R"(], "cell_size": 0.1 } })";
  return parse(s.str());
}

// A solid-only scene on an 8^3 grid: one box of `cells`, `extra` keys added to the solid.
std::string box_scene(const std::string& cells, const std::string& extra = "") {
  return R"({ "grid": { "resolution": [8, 8, 8], "cell_size": 0.125 },
    "solids": [ { "name": "box", "mesh": { "type": "box", "min": [0.25, 0.25, 0.25], "max": [0.75, 0.5, 0.5],
                  "cells": )" +
         cells + R"( }, "density": 500, "youngs_modulus": 1e5)" + extra + " } ] }";
}

sim::SubstepCost estimate(const std::string& json) { return sim::build_simulator(parse(json))->estimate_substep(); }

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("cost: grid_cost is per_cell times the cells - keyed to /grid/resolution") {
  const sim::SubstepCostTerm t = sim::grid_cost(with_resolution(3, 4, 5), 0.5);
  CHECK(t.what == "grid");
  CHECK(t.pointer == "/grid/resolution");
  CHECK(t.count == "60 cells");
  CHECK(t.seconds == 30.0);
  const sim::SubstepCostTerm big = sim::grid_cost(with_resolution(512, 512, 512), sim::CELL_SECONDS);
  CHECK(big.count == "134217728 cells");
  CHECK(big.seconds == doctest::Approx(sim::CELL_SECONDS * 134217728.0).epsilon(1e-15));
}

TEST_CASE("cost: total keeps the terms in order and sums them - describe has a line per term") {
  const sim::SubstepCost cost = sim::total({{"grid", "/grid/resolution", "512 cells", 0.25},
                                            {"solid \"a\"", "/solids/0/mesh", "81 dofs (linear)", 2.5},
                                            {"solid \"b\"", "/solids/1/modes", "10 reduced unknowns", 0.004}});
  REQUIRE(cost.terms.size() == 3);
  CHECK(cost.terms[1].what == "solid \"a\"");
  CHECK(cost.seconds == doctest::Approx(2.754).epsilon(1e-15));
  CHECK(sim::total({}).seconds == 0);

  const std::vector<std::string> lines = lines_of(sim::describe(cost));
  REQUIRE(lines.size() == 4);
  CHECK(lines[0] == "time estimate: about 2.75 s per substep (2 idle cores)");
  for (std::size_t i = 0; i < cost.terms.size(); ++i) {
    CAPTURE(i);
    CHECK(contains(lines[i + 1], cost.terms[i].what));
    CHECK(contains(lines[i + 1], cost.terms[i].count));
    CHECK(contains(lines[i + 1], cost.terms[i].pointer));
  }
  CHECK(contains(lines[1], "0.25 s"));
  CHECK(contains(lines[2], "2.5 s"));
  CHECK(contains(lines[3], "0.004 s"));  // below 0.01 s: two significant digits
}

TEST_CASE("cost: slow_substep_warnings only above SLOW_SUBSTEP_SECONDS - naming the key and the remedy") {
  const double slow = sim::SLOW_SUBSTEP_SECONDS;
  CHECK(sim::slow_substep_warnings(sim::total({{"grid", "/grid/resolution", "1 cells", slow}})).empty());
  CHECK(sim::slow_substep_warnings(sim::total({{"grid", "/grid/resolution", "1 cells", slow * (1 - 1e-9)},
                                               {"solid \"s\"", "/solids/0/mesh", "9 dofs (linear)", slow}}))
            .empty());
  // Terms add up past the bound, but no term alone is: nothing to name.
  CHECK(sim::slow_substep_warnings(sim::total({{"grid", "/grid/resolution", "1 cells", 20},
                                               {"solid \"s\"", "/solids/0/mesh", "9 dofs (linear)", 20}}))
            .empty());

  const std::vector<std::string> w =
      sim::slow_substep_warnings(sim::total({{"grid", "/grid/resolution", "68921000 cells", slow * (1 + 1e-9)},
                                             {"solid \"fine\"", "/solids/1/mesh", "52044 dofs (quadratic)", 50},
                                             {"solid \"ok\"", "/solids/2/mesh", "81 dofs (linear)", 1}}));
  REQUIRE(w.size() == 2);
  CHECK(w[0].rfind("/grid/resolution: grid (68921000 cells)", 0) == 0);
  CHECK(contains(w[0], "more than 30 s"));
  CHECK(contains(w[0], "use a coarser /grid/resolution"));
  CHECK(w[1].rfind("/solids/1/mesh: solid \"fine\" (52044 dofs (quadratic)) is estimated at about 50 s", 0) == 0);
  CHECK(contains(w[1], "a coarser mesh"));
  CHECK(contains(w[1], "linear elements"));
  CHECK(contains(w[1], "\"model\": \"reduced\""));
}

TEST_CASE("cost: a grid just below and just above the slow bound at CELL_SECONDS") {
  // 400^3 cells at 4.5e-7 s: 28.8 s; 410^3: 31.0 s.
  CHECK(sim::slow_substep_warnings(sim::total({sim::grid_cost(with_resolution(400, 400, 400), sim::CELL_SECONDS)}))
            .empty());
  const std::vector<std::string> w =
      sim::slow_substep_warnings(sim::total({sim::grid_cost(with_resolution(410, 410, 410), sim::CELL_SECONDS)}));
  REQUIRE(w.size() == 1);
  CHECK(contains(w[0], "68921000 cells"));
}

TEST_CASE("cost: the cut-cell simulator's full solid costs LINEAR_DOF_SECONDS x free dofs^1.5") {
  // Linear boxes of 2 x 2 x 2 and 4 x 2 x 2 cells: 27 and 45 nodes, 81 and 135 dofs.
  const sim::SubstepCost small = estimate(box_scene("[2, 2, 2]"));
  const sim::SubstepCost large = estimate(box_scene("[4, 2, 2]"));
  for (const sim::SubstepCost* c : {&small, &large}) {
    REQUIRE(c->terms.size() == 2);
    CHECK(c->terms[0].what == "grid");
    CHECK(c->terms[0].seconds == doctest::Approx(sim::CELL_SECONDS * 512).epsilon(1e-15));
    CHECK(c->terms[1].what == "solid \"box\"");
    CHECK(c->terms[1].pointer == "/solids/0/mesh");
    CHECK(c->seconds == doctest::Approx(c->terms[0].seconds + c->terms[1].seconds).epsilon(1e-15));
  }
  CHECK(small.terms[1].count == "81 dofs (linear)");
  CHECK(large.terms[1].count == "135 dofs (linear)");
  CHECK(small.terms[1].seconds == doctest::Approx(sim::LINEAR_DOF_SECONDS * std::pow(81.0, 1.5)).epsilon(1e-12));
  CHECK(large.terms[1].seconds / small.terms[1].seconds == doctest::Approx(std::pow(135.0 / 81.0, 1.5)).epsilon(1e-12));

  // Pinned nodes are no unknowns: the face x = 0.25 (9 nodes) pinned leaves 108 dofs.
  const sim::SubstepCost pinned = estimate(box_scene(
      "[4, 2, 2]", R"(, "pinned": [ { "type": "box", "min": [0.2, 0.2, 0.2], "max": [0.26, 0.6, 0.6] } ])"));
  REQUIRE(pinned.terms.size() == 2);
  CHECK(pinned.terms[1].count == "108 dofs (linear)");
  CHECK(pinned.terms[1].seconds / small.terms[1].seconds == doctest::Approx(std::pow(108.0 / 81.0, 1.5)).epsilon(1e-12));
}

TEST_CASE("cost: a quadratic solid costs QUADRATIC_DOF_SECONDS x free dofs^1.5") {
  const scene::Scene scene = parse(box_scene("[2, 1, 1]", R"(, "element": "quadratic")"));
  const sim::CutCellSimulator s(scene);
  REQUIRE(s.solids.size() == 1);
  REQUIRE(s.solids[0].quadratic());
  // Every node of the quadratic mesh is free: the lattice of 5 x 3 x 3 corner
  // and edge nodes holds at least the 3 x 2 x 2 corners.
  const double dofs = 3.0 * s.solids[0].num_nodes();
  CHECK(dofs > 3 * 12);
  const sim::SubstepCost cost = s.estimate_substep();
  REQUIRE(cost.terms.size() == 2);
  CHECK(cost.terms[1].count == std::to_string(static_cast<long long>(dofs)) + " dofs (quadratic)");
  CHECK(cost.terms[1].seconds == doctest::Approx(sim::QUADRATIC_DOF_SECONDS * std::pow(dofs, 1.5)).epsilon(1e-12));
}

TEST_CASE("cost: a reduced solid costs MODE_SECONDS x (modes + 6)^3 whatever its mesh") {
  for (int modes : {0, 4, 9}) {
    CAPTURE(modes);
    for (const char* cells : {"[2, 2, 2]", "[4, 2, 2]"}) {
      CAPTURE(cells);
      const sim::SubstepCost cost =
          estimate(box_scene(cells, R"(, "model": "reduced", "modes": )" + std::to_string(modes)));
      REQUIRE(cost.terms.size() == 2);
      const double n = modes + 6;
      CHECK(cost.terms[1].pointer == "/solids/0/modes");
      CHECK(cost.terms[1].count == std::to_string(modes + 6) + " reduced unknowns");
      CHECK(cost.terms[1].seconds == doctest::Approx(sim::MODE_SECONDS * n * n * n).epsilon(1e-12));
    }
  }
}

TEST_CASE("cost: the Eulerian simulator's estimate is EULERIAN_CELL_SECONDS x cells - its grid alone") {
  const scene::Scene scene = parse(R"({ "grid": { "resolution": [8, 10, 8], "cell_size": 0.1 },
    "coupling": { "scheme": "eulerian" },
    "solids": [ { "name": "ball", "representation": "eulerian", "density": 1000, "youngs_modulus": 5e4,
                  "mesh": { "type": "sphere", "center": [0.4, 0.5, 0.4], "radius": 0.2, "subdivisions": 1 } } ] })");
  const std::unique_ptr<sim::Simulator> s = sim::build_simulator(scene);
  REQUIRE(dynamic_cast<const sim::EulerianSimulator*>(s.get()) != nullptr);
  const sim::SubstepCost cost = s->estimate_substep();
  REQUIRE(cost.terms.size() == 1);
  CHECK(cost.terms[0].what == "grid");
  CHECK(cost.terms[0].count == "640 cells");
  CHECK(cost.terms[0].seconds == doctest::Approx(sim::EULERIAN_CELL_SECONDS * 640).epsilon(1e-15));
  CHECK(cost.seconds == cost.terms[0].seconds);
}
