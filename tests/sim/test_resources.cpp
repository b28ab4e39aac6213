#include <doctest/doctest.h>

#include <string>

#include "lib/core/error.hpp"
#include "lib/scene/load.hpp"
#include "lib/sim/resources.hpp"
#include "tests/support.hpp"

using namespace fsicut;
using test::require_error;

namespace {

// A 10 x 20 x 30 grid of 0.1 m cells, a box of liquid filling a quarter of it
// and a 2 x 3 x 4-cell box solid.
scene::Scene small_scene() {
  return scene::parse_scene(R"({
    "grid": { "resolution": [10, 20, 30], "origin": [0, 0, 0], "cell_size": 0.1 },
    "fluid": { "regions": [ { "type": "box", "min": [0, 0, 0], "max": [1, 1, 1.5] } ] },
    "solids": [ { "name": "block", "density": 500, "youngs_modulus": 1e5, "poisson_ratio": 0.3,
                  "mesh": { "type": "box", "min": [0.2, 1.2, 0.2], "max": [0.4, 1.5, 0.6], "cells": [2, 3, 4] } } ]
  })",
                            "test.json", ".");
}

}  // namespace

TEST_CASE("estimate_resources: one term per scene key that drives memory") {
  const sim::ResourceEstimate e = sim::estimate_resources(small_scene());
  REQUIRE(e.terms.size() == 4);
  CHECK(e.terms[0].what == "grid");
  CHECK(e.terms[0].count == 6000);
  CHECK(e.terms[0].bytes == 6000 * sim::BYTES_PER_CELL);
  CHECK(e.terms[1].pointer == "/fluid/particles_per_cell");
  CHECK(e.terms[1].count == doctest::Approx(1500.0 * 8));  // a quarter of the cells, 8 per cell
  CHECK(e.terms[2].what == "liquid VDB");
  CHECK(e.terms[2].pointer == "/grid/cell_size");
  CHECK(e.terms[2].count == doctest::Approx(1500.0 * 8));  // half-cell voxels by default
  CHECK(e.terms[3].what == "solid block");
  CHECK(e.terms[3].pointer == "/solids/0/mesh/cells");
  CHECK(e.terms[3].count == 24 * 6);
  double total = 0;
  for (const sim::ResourceTerm& t : e.terms) total += t.bytes;
  CHECK(e.total_bytes == total);
}

TEST_CASE("check_resources names the largest term's key past the limit") {
  const scene::Scene s = small_scene();
  const sim::ResourceEstimate e = sim::estimate_resources(s);
  CHECK_NOTHROW(sim::check_resources(s, e, e.total_bytes, "--max-memory"));
  require_error<SceneError>([&] { sim::check_resources(s, e, 1e6, "--max-memory"); },
                            {"test.json: /fluid/particles_per_cell: the scene would need about ",
                             "particles (1.2e+04 particles), more than --max-memory (1.0 MB)"});
  CHECK(sim::available_memory() > 0);
}

TEST_CASE("format_bytes uses decimal units - describe lists every term") {
  CHECK(sim::format_bytes(999) == "999 B");
  CHECK(sim::format_bytes(1500) == "1.5 kB");
  CHECK(sim::format_bytes(820e6) == "820 MB");
  CHECK(sim::format_bytes(2.5e9) == "2.5 GB");
  const std::string text = sim::describe(sim::estimate_resources(small_scene()), 8e9, "this machine's memory");
  CHECK(text.find("memory estimate: ") == 0);
  CHECK(text.find("(limit 8.0 GB, this machine's memory)") != std::string::npos);
  CHECK(text.find("/solids/0/mesh/cells") != std::string::npos);
}
