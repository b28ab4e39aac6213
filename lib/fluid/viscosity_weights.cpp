#include "lib/fluid/viscosity_weights.hpp"

#include <algorithm>
#include <limits>

#include "lib/core/parallel.hpp"

namespace fsicut::fluid {
namespace {

// Distance [m] from x into the box's closed walls (negative outside them);
// infinity when every side is open.
Real distance_into_walls(const grid::MacGrid& grid, const std::array<bool, 6>& open_sides, const Vec3& x) {
  Real d = std::numeric_limits<Real>::infinity();
  const Vec3 hi = grid.max();
  for (int a = 0; a < 3; ++a) {
    if (!open_sides[2 * a]) d = std::min(d, x[a] - grid.origin[a]);
    if (!open_sides[2 * a + 1]) d = std::min(d, hi[a] - x[a]);
  }
  return d;
}

// One pass of the (1, 1) / 2 filter along `axis`: out[q] = (in[q] + in[q + 1]) / 2,
// one sample fewer along it.
void filter_along(const grid::Array3<Real>& in, grid::Array3<Real>& out, int axis) {
  out.resize(in.size() - Vec3i::Unit(axis));
  parallel_for(0, out.count(), [&](Index idx) {
    const Vec3i q = out.coord(idx);
    out[idx] = 0.5 * (in(q) + in(q + Vec3i::Unit(axis)));
  });
}

}  // namespace

Vec3i edge_shape(const grid::MacGrid& grid, int axis) { return grid.resolution + Vec3i::Ones() - Vec3i::Unit(axis); }

LiquidFractions liquid_fractions(const grid::MacGrid& grid, const grid::Array3<Real>& liquid_phi,
                                 const grid::Array3<Real>& solid_phi, const std::array<bool, 6>& open_sides) {
  const Real h = grid.dx / 2;
  grid::Array3<Real> indicator(2 * grid.resolution + 2 * Vec3i::Ones(), 0);
  parallel_for(0, indicator.count(), [&](Index idx) {
    const Vec3i m = indicator.coord(idx) - Vec3i::Ones();
    const Vec3 x = grid.origin + h * (m.cast<Real>() + Vec3::Constant(0.5));
    const Real phi_liquid = grid::interpolate(grid, liquid_phi, grid::Sampling::cell, x);
    Real phi_open = distance_into_walls(grid, open_sides, x);
    if (solid_phi.count() > 0) phi_open = std::min(phi_open, grid::interpolate(grid, solid_phi, grid::Sampling::node, x));
    const Real liquid = std::clamp(0.5 - phi_liquid / h, 0.0, 1.0);
    const Real open = std::clamp(0.5 + phi_open / h, 0.0, 1.0);
    indicator[idx] = liquid * open;
  });
  LiquidFractions out;
  grid::Array3<Real> once, twice;
  filter_along(indicator, once, 0);
  filter_along(once, twice, 1);
  filter_along(twice, out.fine, 2);
  return out;
}

}  // namespace fsicut::fluid
