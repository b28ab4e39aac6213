// Sources, drains and open sides (lib/fluid/flows.hpp): filling to the
// seeded density and never past it, determinism and thread independence,
// removal that keeps order, the open layers, and the wall inflow's flux in
// the projection.
#include <doctest/doctest.h>

#include <cmath>

#include "lib/core/parallel.hpp"
#include "lib/fluid/flows.hpp"
#include "lib/fluid/liquid.hpp"
#include "lib/fluid/pressure_projection.hpp"
#include "tests/grid/fixtures.hpp"

using namespace fsicut;
using namespace fsicut::fluid;

namespace {

// A 16^3 unit cube with no liquid and no obstacle.
Liquid empty_cube() { return make_liquid(test::unit_cube(16), 1000, Vec3(0, -9.81, 0), {}); }

// A box region and its bounds.
struct BoxZone {
  Vec3 lo, hi;
  Region inside() const {
    return [lo = lo, hi = hi](const Vec3& x) { return (x.array() >= lo.array()).all() && (x.array() <= hi.array()).all(); };
  }
  Bounds bounds() const { return {lo, hi}; }
};

// Particles per cell of the cells the box covers whole (cell count of the box).
std::vector<int> counts_in(const Liquid& l, const Vec3i& lo, const Vec3i& hi) {
  std::vector<int> counts;
  for (int k = lo.z(); k < hi.z(); ++k)
    for (int j = lo.y(); j < hi.y(); ++j)
      for (int i = lo.x(); i < hi.x(); ++i) {
        int n = 0;
        for (Index p = 0; p < l.particles.cols(); ++p)
          if (l.grid.cell_of(l.particles.col(p)) == Vec3i(i, j, k)) ++n;
        counts.push_back(n);
      }
  return counts;
}

}  // namespace

TEST_CASE("flows: a source fills its cells to the seeded density, and filling again adds nothing") {
  Liquid l = empty_cube();
  // Cells 4..7 on every axis (dx = 1/16): 64 cells.
  const BoxZone zone{Vec3::Constant(0.25), Vec3::Constant(0.5)};
  const Index added = fill_region(l, zone.inside(), zone.bounds(), 8, 42);
  CHECK(added == 64 * 8);
  CHECK(l.particles.cols() == 64 * 8);
  for (const int n : counts_in(l, Vec3i::Constant(4), Vec3i::Constant(8))) CHECK(n == 8);
  for (Index p = 0; p < l.particles.cols(); ++p) REQUIRE(zone.inside()(l.particles.col(p)));
  CHECK(fill_region(l, zone.inside(), zone.bounds(), 8, 43) == 0);
  CHECK(l.particles.cols() == 64 * 8);
}

TEST_CASE("flows: a source refills only what left, one particle per empty sub-cell") {
  Liquid l = empty_cube();
  const BoxZone zone{Vec3::Constant(0.25), Vec3::Constant(0.5)};
  fill_region(l, zone.inside(), zone.bounds(), 8, 1);
  // Move the particles of the lowest x layer of cells out of the source.
  Index moved = 0;
  for (Index p = 0; p < l.particles.cols(); ++p)
    if (l.particles(0, p) < 0.25 + 1.0 / 16) {
      l.particles(0, p) -= 0.2;
      ++moved;
    }
  CHECK(moved == 16 * 8);
  CHECK(fill_region(l, zone.inside(), zone.bounds(), 8, 2) == moved);
  for (const int n : counts_in(l, Vec3i::Constant(4), Vec3i::Constant(8))) CHECK(n == 8);
}

TEST_CASE("flows: filling is deterministic, keyed, and independent of the thread count") {
  const BoxZone zone{Vec3(0.1, 0.3, 0.2), Vec3(0.6, 0.55, 0.45)};
  const int before = threads();
  set_threads(1);
  Liquid one = empty_cube();
  fill_region(one, zone.inside(), zone.bounds(), 8, 5);
  set_threads(2);
  Liquid two = empty_cube();
  fill_region(two, zone.inside(), zone.bounds(), 8, 5);
  Liquid other = empty_cube();
  fill_region(other, zone.inside(), zone.bounds(), 8, 6);
  set_threads(before);
  REQUIRE(one.particles.cols() == two.particles.cols());
  CHECK((one.particles - two.particles).norm() == 0);
  REQUIRE(one.particles.cols() == other.particles.cols());
  CHECK((one.particles - other.particles).norm() > 0);
}

TEST_CASE("flows: a source leaves the inside of obstacles empty") {
  Liquid l = make_liquid(test::unit_cube(16), 1000, Vec3(0, -9.81, 0),
                         [](const Vec3& x) { return x.y() - 0.375; });  // solid below y = 0.375
  const BoxZone zone{Vec3(0.25, 0.25, 0.25), Vec3(0.5, 0.5, 0.5)};
  fill_region(l, zone.inside(), zone.bounds(), 8, 3);
  CHECK(l.particles.cols() == 2 * 16 * 8);  // the 2 cell layers above the solid only
  for (Index p = 0; p < l.particles.cols(); ++p) REQUIRE(l.particles(1, p) > 0.375);
}

TEST_CASE("flows: per_cell not a cube fills each cell whose centre is inside to per_cell") {
  Liquid l = empty_cube();
  const BoxZone zone{Vec3::Constant(0.25), Vec3::Constant(0.5)};
  CHECK(fill_region(l, zone.inside(), zone.bounds(), 6, 9) == 64 * 6);
  CHECK(fill_region(l, zone.inside(), zone.bounds(), 6, 10) == 0);
}

TEST_CASE("flows: removing particles keeps the others in order and maps old indices to new") {
  Points p(3, 5);
  p << 0, 1, 2, 3, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0;
  const std::vector<Index> moved = remove_particles(p, [](const Vec3& x) { return x.x() == 1 || x.x() == 3; });
  CHECK(p.cols() == 3);
  CHECK(p(0, 0) == 0);
  CHECK(p(0, 1) == 2);
  CHECK(p(0, 2) == 4);
  CHECK(moved == std::vector<Index>{0, -1, 1, -1, 2});
}

TEST_CASE("flows: an open side's outer cell layer is outside, and its cells are air") {
  const grid::MacGrid g = test::unit_cube(16);
  const OpenSides open{false, true, false, false, false, false};  // +x
  const Real dx = g.dx;
  CHECK(beyond_open_sides(g, open, Vec3(1 - 0.5 * dx, 0.5, 0.5)));
  CHECK(beyond_open_sides(g, open, Vec3(1.2, 0.5, 0.5)));
  CHECK_FALSE(beyond_open_sides(g, open, Vec3(1 - 1.5 * dx, 0.5, 0.5)));
  CHECK_FALSE(beyond_open_sides(g, open, Vec3(0.5 * dx, 0.5, 0.5)));  // -x stays a wall
  grid::Array3<Real> phi(g.cell_shape(), -0.5 * dx);
  open_layers_to_air(g, open, phi);
  CHECK(phi(15, 3, 4) == 0.5 * dx);
  CHECK(phi(14, 3, 4) == -0.5 * dx);
  CHECK(phi(0, 3, 4) == -0.5 * dx);
  phi(15, 1, 1) = 3 * dx;  // far air stays as it is
  open_layers_to_air(g, open, phi);
  CHECK(phi(15, 1, 1) == 3 * dx);
}

TEST_CASE("flows: a source's faces take its velocity, and the walls inside it carry the inflow into the projection") {
  Liquid l = empty_cube();
  // A source through the -x wall: x in [-0.1, 0.25].
  const BoxZone zone{Vec3(-0.1, 0.25, 0.25), Vec3(0.25, 0.5, 0.5)};
  set_face_velocity(l, zone.inside(), zone.bounds(), Vec3(2, 0, 0), 8);
  CHECK(l.velocity[0](2, 5, 5) == 2);
  CHECK(l.velocity[0](0, 5, 5) == 0);  // the wall's stored velocity stays 0
  CHECK(l.velocity[0](6, 5, 5) == 0);  // outside the source
  // One inflow per wall face of the source: 4 x 4 faces at x = 0 (centres at
  // y, z = (j + 1/2) / 16 in [0.25, 0.5] for j = 4..7).
  CHECK(l.wall_inflow.size() == 16);
  for (const WallInflow& w : l.wall_inflow) {
    CHECK(w.axis == 0);
    CHECK(w.face.x() == 0);
    CHECK(w.velocity == 2);
  }
  // The cell inside the wall gains u / dx of right-hand side, as an open face would give.
  grid::Array3<Real> phi(l.grid.cell_shape(), -0.5 * l.grid.dx);
  cutcell::FaceFractions open;
  cutcell::compute_face_fractions(l.grid, grid::Array3<Real>(l.grid.node_shape(), 1.0), open);
  grid::MacVelocity zero = grid::make_velocity(l.grid);
  PressureSystem sys = assemble_pressure(l.grid, phi, open, zero, 1e-3, 1000);
  const linsolve::Vector before = sys.rhs;
  add_wall_inflow(sys, l.grid, l.wall_inflow);
  const int row = sys.active.row(0, 5, 5);
  REQUIRE(row >= 0);
  CHECK(sys.rhs[row] - before[row] == doctest::Approx(2 / l.grid.dx));
  CHECK(sys.rhs[sys.active.row(1, 5, 5)] == before[sys.active.row(1, 5, 5)]);
}

TEST_CASE("flows: a source that cuts cells in half gives their faces half its velocity, so it pours its cross-section") {
  Liquid l = empty_cube();
  const Real dx = l.grid.dx;
  // z in [0.25 + dx/2, 0.5 - dx/2]: the first and last cell columns half inside.
  const BoxZone zone{Vec3(0.25, 0.25, 0.25 + 0.5 * dx), Vec3(0.5, 0.5, 0.5 - 0.5 * dx)};
  set_face_velocity(l, zone.inside(), zone.bounds(), Vec3(0, -1, 0), 8);
  CHECK(l.velocity[1](5, 5, 4) == -0.5);
  CHECK(l.velocity[1](5, 5, 5) == -1);
  CHECK(l.velocity[1](5, 5, 7) == -0.5);
  CHECK(l.velocity[1](5, 5, 8) == 0);
  // The flux through the source's bottom plane: its cross-section times 1 m/s.
  Real flux = 0;
  for (int i = 0; i < 16; ++i)
    for (int k = 0; k < 16; ++k) flux -= l.velocity[1](i, 4, k) * dx * dx;
  CHECK(flux == doctest::Approx(0.25 * (0.25 - dx)));
}
