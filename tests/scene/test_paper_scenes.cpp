// The scenes of scenes/paper/ against Table 1 of Zarifi & Batty 2017: grid
// sizes and solid node/tet counts.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>

#include "lib/scene/load.hpp"
#include "lib/sim/solid_mesh.hpp"
#include "tests/support.hpp"

using namespace fsicut;

namespace {

struct Row {
  int grid;
  int nodes;
  int tets;
  bool exact;  // structured box meshes match exactly; TetGen meshes only come close
};

// Table 1; counts per solid (the Buoyancy balls are three copies of one mesh).
const std::map<std::string, Row> TABLE1 = {
    {"dam_break", {100, 725, 2688, true}},        {"buoyancy", {100, 481, 2000, false}},
    {"compressibility", {100, 343, 1296, true}},  {"thin_solid_1", {100, 882, 2400, true}},
    {"thin_solid_2", {64, 2450, 6936, true}},     {"fluid_in_sphere", {100, 992, 2948, false}},
    {"light_dino", {100, 1424, 5920, false}},     {"stability", {35, 189, 480, true}},
};

// How far a TetGen mesh may be from the paper's counts (relative).
constexpr double TETGEN_SLACK = 0.2;

}  // namespace

TEST_SUITE("scene") {
  TEST_CASE("the paper's scenes have Table 1's grids and solid resolutions") {
    const auto dir = test::source_dir() / "scenes" / "paper";
    int seen = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (entry.path().extension() != ".json") continue;
      const std::string key = entry.path().stem().string();
      CAPTURE(key);
      const auto row = TABLE1.find(key);
      REQUIRE_MESSAGE(row != TABLE1.end(), "not a Table 1 scene");
      ++seen;
      const scene::Scene s = scene::load_scene(entry.path().string());
      CHECK(s.grid.resolution == Vec3i(row->second.grid, row->second.grid, row->second.grid));
      // Every scene spans the unit cube, so grid sizes compare one to one.
      CHECK(std::abs(s.grid.cell_size * s.grid.resolution[0] - 1) < 1e-9);
      REQUIRE(!s.solids.empty());
      for (const auto& solid : s.solids) {
        const mesh::TetMesh m = sim::build_solid_mesh(solid.mesh, s.file);
        const auto nodes = static_cast<int>(m.rest.cols()), tets = static_cast<int>(m.tets.size());
        MESSAGE(key << " / " << solid.name << ": " << nodes << " nodes, " << tets << " tets (Table 1: "
                    << row->second.nodes << ", " << row->second.tets << ")");
        if (row->second.exact) {
          CHECK(nodes == row->second.nodes);
          CHECK(tets == row->second.tets);
        } else {
          CHECK(std::abs(nodes - row->second.nodes) <= TETGEN_SLACK * row->second.nodes);
          CHECK(std::abs(tets - row->second.tets) <= TETGEN_SLACK * row->second.tets);
        }
      }
    }
    CHECK(seen == static_cast<int>(TABLE1.size()));
  }
}
