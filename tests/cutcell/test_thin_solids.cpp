#include <doctest/doctest.h>

#include <vector>

#include "lib/cutcell/thin_solids.hpp"
#include "lib/levelset/liquid_sdf.hpp"
#include "lib/levelset/mesh_sdf.hpp"
#include "lib/levelset/solid_sdf.hpp"
#include "lib/mesh/box.hpp"
#include "tests/cutcell/fixtures.hpp"

using namespace fsicut;
using namespace fsicut::cutcell;

namespace {

// A grid of 8^3 cells of 0.1 m and one box solid in it (test::BoxInGrid).
struct Setup : test::BoxInGrid {
  using BoxInGrid::BoxInGrid;
  bool apart(const Vec3i& a, const Vec3i& b) const { return separated(grid, phi, surfaces, a, b); }
};

}  // namespace

TEST_CASE("thin solids: separated() sees walls the node field misses, not ordinary cut cells") {
  // A plate 0.02 m thick between the centres of cells x = 3 and 4 (0.35, 0.45)
  // and between the node planes x = 0.3 and 0.4: crossed twice, every node
  // outside it.
  const Setup between(Vec3(0.37, 0, 0), Vec3(0.39, 0.8, 0.8), Vec3i(1, 4, 4));
  CHECK(between.apart(Vec3i(3, 2, 5), Vec3i(4, 2, 5)));
  CHECK(between.apart(Vec3i(4, 2, 5), Vec3i(3, 2, 5)));  // symmetric
  CHECK(between.apart(Vec3i(3, 2, 5), Vec3i(4, 3, 4)));  // diagonal neighbours too
  CHECK_FALSE(between.apart(Vec3i(4, 2, 5), Vec3i(5, 2, 5)));
  CHECK_FALSE(between.apart(Vec3i(3, 2, 5), Vec3i(3, 3, 5)));

  // A plate 0.03 m thick around the centre of cell x = 4 (0.45): crossed once on
  // each side, all 8 nodes of cell 4 outside it: cell 4 is cut off both ways.
  const Setup around(Vec3(0.435, 0, 0), Vec3(0.465, 0.8, 0.8), Vec3i(1, 4, 4));
  CHECK(around.apart(Vec3i(3, 2, 5), Vec3i(4, 2, 5)));
  CHECK(around.apart(Vec3i(4, 2, 5), Vec3i(5, 2, 5)));
  CHECK_FALSE(around.apart(Vec3i(4, 2, 5), Vec3i(4, 3, 5)));

  // A plate 0.06 m thick whose upstream face lies on the node plane x = 0.4 at
  // its edges and bulges 0.001 m past it inside (the gate of
  // scenes/gate_dam_break.json pushed by water, its clamped edges on the
  // plane): the plane's nodes at the edges are inside, the others a hair
  // outside, and cell 4's centre (0.45) is inside the plate. The node field
  // counts cell (4, 0, 3) open and its face with cell 3 partly open; the liquid
  // on the two sides must still be kept apart.
  Setup bulged(Vec3(0.4, 0, 0), Vec3(0.46, 0.8, 0.8), Vec3i(1, 4, 4));
  Points x = bulged.surfaces[0].vertices();
  for (Index v = 0; v < x.cols(); ++v) {
    const bool edge = x(1, v) < 1e-9 || x(1, v) > 0.8 - 1e-9 || x(2, v) < 1e-9 || x(2, v) > 0.8 - 1e-9;
    if (x(0, v) < 0.4 + 1e-9 && !edge) x(0, v) += 0.001;
  }
  bulged.surfaces[0].set_vertices(x);
  bulged.phi = levelset::sample_mesh_sdf_at_nodes(bulged.grid, bulged.surfaces[0], 5 * bulged.grid.dx);
  levelset::resolve_surface_ties(bulged.grid, bulged.phi);
  REQUIRE(bulged.phi(4, 0, 3) < 0);
  REQUIRE(bulged.phi(4, 1, 3) > 0);
  REQUIRE(levelset::solid_phi_at_cell(bulged.phi, 4, 0, 3) > 0);
  CHECK(bulged.apart(Vec3i(3, 0, 3), Vec3i(4, 0, 3)));
  CHECK(bulged.apart(Vec3i(4, 0, 3), Vec3i(5, 0, 3)));
  CHECK(bulged.apart(Vec3i(3, 4, 3), Vec3i(4, 4, 3)));
  CHECK_FALSE(bulged.apart(Vec3i(4, 0, 3), Vec3i(4, 1, 3)));
  CHECK_FALSE(bulged.apart(Vec3i(2, 0, 3), Vec3i(3, 0, 3)));

  // A thick box whose face x = 0.43 passes between the centres: the node field
  // has it (cell 4's nodes at x = 0.5 are inside), an ordinary cut cell.
  const Setup thick(Vec3(0.43, 0, 0), Vec3(0.7, 0.8, 0.8), Vec3i(3, 4, 4));
  CHECK_FALSE(thick.apart(Vec3i(3, 2, 5), Vec3i(4, 2, 5)));
  CHECK_FALSE(thick.apart(Vec3i(4, 2, 5), Vec3i(5, 2, 5)));
}

TEST_CASE("thin solids: close_thin_solid_faces closes the faces across a thin plate, neighbour_reach the rest") {
  Setup s(Vec3(0.37, 0, 0), Vec3(0.39, 0.8, 0.8), Vec3i(1, 4, 4));
  FaceFractions fractions;
  compute_face_fractions(s.grid, s.phi, fractions);
  // The node field does not see the plate: every interior x-face is open.
  for (Index f = 0; f < fractions[0].count(); ++f) {
    const Vec3i x = fractions[0].coord(f);
    if (x.x() > 0 && x.x() < 8) REQUIRE(fractions[0][f] == 1);
  }
  grid::Array3<char> cells;
  const Index closed = close_thin_solid_faces(s.grid, s.phi, s.surfaces, fractions, cells);
  CHECK(closed == 64);  // the 8 x 8 x-faces at x = 0.4
  for (int a = 0; a < 3; ++a)
    for (Index f = 0; f < fractions[a].count(); ++f) {
      const Vec3i x = fractions[a].coord(f);
      if (x[a] == 0 || x[a] == 8) continue;
      CHECK(fractions[a][f] == ((a == 0 && x.x() == 4) ? 0 : 1));
    }
  for (Index c = 0; c < cells.count(); ++c) CHECK(cells[c] == (cells.coord(c).x() == 3 || cells.coord(c).x() == 4));

  // Two particles in cell (3, 4, 4) [0.3, 0.4]: one left of the plate, one
  // between the plate and the node plane x = 0.4 (the far side of its own cell's
  // centre), and one far away.
  Points particles(3, 3);
  particles.col(0) = Vec3(0.33, 0.45, 0.45);
  particles.col(1) = Vec3(0.395, 0.45, 0.45);
  particles.col(2) = Vec3(0.75, 0.45, 0.45);
  const levelset::NeighbourReach reach = neighbour_reach(s.grid, s.phi, s.surfaces, cells, particles);
  REQUIRE(reach.cells.count() == s.grid.cell_count());
  // Cell (3, 4, 4) reaches its 9 neighbours at x = 4 not at all, the other 18.
  std::uint32_t left = levelset::REACH_ALL, right = levelset::REACH_ALL;
  for (int o = 0; o < 27; ++o) {
    if (o % 3 == 2) left &= ~(1u << o);
    if (o % 3 != 2) right &= ~(1u << o);
  }
  CHECK(reach.cells(3, 4, 4) == left);
  CHECK(reach.cells(1, 4, 4) == levelset::REACH_ALL);
  CHECK(reach.cells(6, 4, 4) == levelset::REACH_ALL);
  REQUIRE(reach.particles.size() == 3);
  CHECK(reach.particles[0] == left);
  CHECK(reach.particles[1] == right);  // only the cells at x = 4, across the node plane
  CHECK(reach.particles[2] == levelset::REACH_ALL);

  // Nothing thin: no reach array at all.
  Setup block(Vec3(0.3, 0, 0), Vec3(0.6, 0.8, 0.8), Vec3i(3, 4, 4));
  compute_face_fractions(block.grid, block.phi, fractions);
  CHECK(close_thin_solid_faces(block.grid, block.phi, block.surfaces, fractions, cells) == 0);
  const levelset::NeighbourReach none = neighbour_reach(block.grid, block.phi, block.surfaces, cells, particles);
  CHECK(none.cells.count() == 0);
  CHECK(none.particles.empty());
}
