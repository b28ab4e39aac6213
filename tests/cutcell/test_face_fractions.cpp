#include <doctest/doctest.h>

#include <cmath>

#include "lib/cutcell/active_cells.hpp"
#include "lib/cutcell/face_fractions.hpp"
#include "lib/levelset/solid_sdf.hpp"

using namespace fsicut;
using namespace fsicut::cutcell;

TEST_CASE("face fractions: the marching-squares area is exact for straight interfaces") {
  CHECK(fraction_inside(-1, -1, -1, -1) == 1);
  CHECK(fraction_inside(1, 2, 3, 4) == 0);
  // Vertical line x = 0.3 with the solid on the left: phi = x - 0.3.
  CHECK(fraction_inside(-0.3, 0.7, 0.7, -0.3) == doctest::Approx(0.3));
  // Corner triangle: phi = x + y - 0.5, inside area 0.125.
  CHECK(fraction_inside(-0.5, 0.5, 1.5, 0.5) == doctest::Approx(0.125));
  // Three corners inside: phi = 1.5 - x - y (inside where x + y > 1.5), complement of 0.125
  CHECK(fraction_inside(1.5, 0.5, -0.5, 0.5) == doctest::Approx(0.125));
  CHECK(fraction_inside(-1.5, -0.5, 0.5, -0.5) == doctest::Approx(0.875));
  // A 30-degree plane through a unit square: compare with the exact clipped area.
  const Real t = M_PI / 6;
  const Vec3 n(-std::sin(t), std::cos(t), 0);  // normal out of the solid
  auto phi = [&](Real x, Real y) { return n.x() * (x - 0.1) + n.y() * (y - 0.3); };
  // Inside (phi < 0): y < 0.3 + tan(t) (x - 0.1); area over x in [0,1] clipped to [0,1].
  Real exact = 0;
  const int steps = 200000;
  for (int s = 0; s < steps; ++s) {
    const Real x = (s + 0.5) / steps;
    exact += std::clamp(0.3 + std::tan(t) * (x - 0.1), 0.0, 1.0) / steps;
  }
  CHECK(fraction_inside(phi(0, 0), phi(1, 0), phi(1, 1), phi(0, 1)) == doctest::Approx(exact).epsilon(1e-6));
}

TEST_CASE("face fractions: domain walls closed, clamping, and active cells") {
  grid::MacGrid g;
  g.resolution = {8, 8, 8};
  g.dx = 1.0 / 8;
  // Solid below the plane y = 0.3 + 0.001 (a sliver of the faces at j = 2 stays open).
  const auto solid = levelset::plane_solid(Vec3(0, 0.3, 0), Vec3(0, 1, 0));
  const auto phi = levelset::sample_solid_at_nodes(g, solid);
  FaceFractions f;
  compute_face_fractions(g, phi, f);
  CHECK(f[0](0, 5, 3) == 0);
  CHECK(f[0](8, 5, 3) == 0);
  CHECK(f[0](3, 5, 3) == 1);
  CHECK(f[0](3, 0, 3) == 0);
  // x-face in row j = 2 spans y in [0.25, 0.375]: open part (0.375 - 0.3) / 0.125 = 0.6
  CHECK(f[0](3, 2, 3) == doctest::Approx(0.6));
  CHECK(f[1](3, 3, 3) == 1);
  CHECK(f[1](3, 2, 3) == 0);

  grid::Array3<Real> liquid(g.cell_shape(), -1.0);
  const ActiveCells active = find_active_cells(g, liquid, f);
  // Rows j = 0, 1 are fully solid (all faces closed) and stay inactive.
  CHECK(active.row(3, 1, 3) == -1);
  CHECK(active.row(3, 2, 3) >= 0);
  CHECK(active.count() == 8 * 8 * 6);
}

TEST_CASE("face fractions: faces on a solid's surface are closed - a box on grid planes flush with the walls") {
  // A wall flush with the floor (y = 0) and the front and back walls (z = 0,
  // z = 0.2), its faces x = 0.75 and x = 0.9 on node planes. Before ties were
  // resolved, round-off of the box SDF on those planes (+-3e-17) and its exact
  // zeros on the floor decided: faces along the floor inside the wall were half
  // open, and still water drained through it.
  grid::MacGrid g;
  g.resolution = {32, 24, 4};
  g.dx = 0.05;
  grid::Array3<Real> phi = levelset::sample_solid_at_nodes(g, levelset::box_solid(Vec3(0.75, 0, 0), Vec3(0.9, 1.0, 0.2)));
  levelset::resolve_surface_ties(g, phi);
  FaceFractions fractions;
  compute_face_fractions(g, phi, fractions);
  int checked = 0;
  for (int a = 0; a < 3; ++a)
    for (Index f = 0; f < fractions[a].count(); ++f) {
      const Vec3i x = fractions[a].coord(f);
      if (x[a] == 0 || x[a] == g.resolution[a]) continue;
      const Vec3 centre = g.position(grid::face_sampling(a), x.x(), x.y(), x.z());
      const bool in_wall_x = centre.x() >= 0.75 - 1e-12 && centre.x() <= 0.9 + 1e-12;
      const bool below_top = centre.y() <= 1.0 + 1e-12;
      if (in_wall_x && below_top) {
        // In the wall or on its surface: closed.
        CHECK_MESSAGE(fractions[a][f] == 0, "axis " << a << " face " << x.transpose());
        ++checked;
      } else if (centre.x() < 0.7 || centre.x() > 0.95 || centre.y() > 1.05) {
        CHECK(fractions[a][f] == 1);  // a cell or more away: open
      }
    }
  CHECK(checked > 0);
}
