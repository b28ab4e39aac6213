// The viscosity stage's pieces (fluid/viscosity_weights.hpp, fluid/viscosity.hpp):
// the liquid fractions of a flat surface and of the walls, the system's
// symmetry, and rigid motions passing the viscous step untouched. The
// viscous flows themselves (a film down an incline, a spinning blob) are
// tests/sim/cutcell/test_viscosity_validation.cpp, on the stepping path.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "lib/fluid/viscosity.hpp"
#include "lib/fluid/viscosity_weights.hpp"
#include "lib/levelset/solid_sdf.hpp"

using namespace fsicut;
using namespace fsicut::fluid;

namespace {

grid::MacGrid box_grid(const Vec3i& n, Real dx) {
  grid::MacGrid g;
  g.resolution = n;
  g.dx = dx;
  return g;
}

grid::Array3<Real> cell_field(const grid::MacGrid& g, const std::function<Real(const Vec3&)>& f) {
  grid::Array3<Real> a(g.cell_shape());
  for (Index n = 0; n < a.count(); ++n) {
    const Vec3i c = a.coord(n);
    a[n] = f(g.cell_center(c.x(), c.y(), c.z()));
  }
  return a;
}

FaceFractions all_open(const grid::MacGrid& g) {
  FaceFractions f;
  for (int a = 0; a < 3; ++a) f[a].resize(g.face_shape(a), 1);
  return f;
}

// The exact share of [lo, lo + dx] below s.
Real below(Real s, Real lo, Real dx) { return std::clamp((s - lo) / dx, 0.0, 1.0); }

}  // namespace

TEST_CASE("viscosity: the liquid fractions of a flat surface and of the domain walls are exact") {
  const grid::MacGrid g = box_grid({4, 8, 4}, 0.1);
  const Real s = 0.43;  // surface height [m], liquid below
  const grid::Array3<Real> phi = cell_field(g, [&](const Vec3& x) { return x.y() - s; });
  const LiquidFractions f = liquid_fractions(g, phi, {}, {});
  Real worst = 0;
  for (int j = 0; j < 8; ++j) {
    // Cells and y-faces' and x-edges' cubes are centred on cell centres in y
    // (cells) or nodes (y-faces, x- and z-edges); the walls cut the outermost
    // cubes of those centred on the walls in half.
    // (the liquid fills the floor's cubes whole, so only the wall halves them).
    const Real on_floor = j == 0 ? 0.5 : 1.0;
    const Real cell_layer = below(s, j * g.dx, g.dx), node_layer = below(s, (j - 0.5) * g.dx, g.dx);
    worst = std::max(worst, std::abs(f.cell({1, j, 2}) - cell_layer));
    worst = std::max(worst, std::abs(f.face(1, {1, j, 2}) - on_floor * node_layer));
    worst = std::max(worst, std::abs(f.face(0, {0, j, 2}) - 0.5 * cell_layer));        // on the x = 0 wall
    worst = std::max(worst, std::abs(f.edge(2, {2, j, 1}) - on_floor * node_layer));
    worst = std::max(worst, std::abs(f.edge(1, {0, j, 0}) - 0.25 * cell_layer));       // in the x = z = 0 corner
  }
  MESSAGE("worst fraction error " << worst);
  CHECK(worst < 1e-12);
}

TEST_CASE("viscosity: the system is symmetric, and a rigid motion passes it untouched") {
  const grid::MacGrid g = box_grid({12, 12, 12}, 0.1);
  const Vec3 centre(0.61, 0.58, 0.6);
  const grid::Array3<Real> phi = cell_field(g, [&](const Vec3& x) { return (x - centre).norm() - 0.33; });
  const LiquidFractions f = liquid_fractions(g, phi, {}, {});
  // u = v0 + omega x (x - centre), sampled on the faces: zero discrete strain.
  const Vec3 v0(0.3, -0.2, 0.1), omega(0.5, -1.0, 2.0);
  grid::MacVelocity u = grid::make_velocity(g);
  for (int a = 0; a < 3; ++a)
    for (Index n = 0; n < u[a].count(); ++n) {
      const Vec3i i = u[a].coord(n);
      u[a][n] = (v0 + omega.cross(g.face_center(a, i.x(), i.y(), i.z()) - centre))[a];
    }
  const grid::MacVelocity before = u;
  const ViscositySystem sys = assemble_viscosity(g, f, all_open(g), {}, 1e3, 1000, 0.01, {}, u);
  REQUIRE(!sys.faces.empty());
  const linsolve::SparseMatrix t = sys.matrix.transpose();
  CHECK((sys.matrix - t).norm() <= 1e-14 * sys.matrix.norm());
  linsolve::PcgSettings settings;
  settings.tolerance = 1e-12;
  const linsolve::Report r = solve_viscosity(sys, settings, u);
  CHECK(r.converged);
  Real change = 0;
  for (int a = 0; a < 3; ++a)
    for (Index n = 0; n < u[a].count(); ++n) change = std::max(change, std::abs(u[a][n] - before[a][n]));
  MESSAGE(sys.faces.size() << " unknowns, " << r.iterations << " iterations; largest change " << change << " m/s");
  CHECK(change < 1e-9);
}
