#pragma once
// A box solid in a small grid, shared by the tests of lib/cutcell.
#include <vector>

#include "lib/levelset/mesh_sdf.hpp"
#include "lib/levelset/solid_sdf.hpp"
#include "lib/mesh/box.hpp"

namespace fsicut::test {

// An 8^3 grid of 0.1 m cells and one box solid in it, from lo to hi in
// `cells` tetrahedral cells: its surface and node SDF (ties resolved, as the
// simulator samples it).
struct BoxInGrid {
  grid::MacGrid grid;
  std::vector<levelset::MeshDistance> surfaces;
  grid::Array3<Real> phi;
  BoxInGrid(const Vec3& lo, const Vec3& hi, const Vec3i& cells) {
    grid.resolution = {8, 8, 8};
    grid.dx = 0.1;
    const mesh::TetMesh m = mesh::box_mesh(lo, hi, cells);
    surfaces.emplace_back(m.rest, m.boundary);
    phi = levelset::sample_mesh_sdf_at_nodes(grid, surfaces[0], 5 * grid.dx);
    levelset::resolve_surface_ties(grid, phi);
  }
};

}  // namespace fsicut::test
