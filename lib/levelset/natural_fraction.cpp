#include "lib/levelset/natural_fraction.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>

#include "lib/core/parallel.hpp"

namespace fsicut::levelset {

Real colour_kernel_cdf(Real t) {
  if (t <= -1.5) return 0;
  if (t >= 1.5) return 1;
  if (t < -0.5) return (t + 1.5) * (t + 1.5) * (t + 1.5) / 6;
  if (t > 0.5) return 1 - (1.5 - t) * (1.5 - t) * (1.5 - t) / 6;
  return 0.5 + 0.75 * t - t * t * t / 3;
}

Real colour_kernel_cdf_inverse(Real y) {
  y = std::clamp<Real>(y, 0, 1);
  constexpr Real TAIL = 1.0 / 6;  // K(-1/2)
  if (y <= TAIL) return std::cbrt(6 * y) - 1.5;
  if (y >= 1 - TAIL) return 1.5 - std::cbrt(6 * (1 - y));
  // The middle piece 1/2 + 3/4 t - t^3 / 3 has slope 3/4 - t^2 >= 1/2 on
  // [-1/2, 1/2]: Newton from the linear guess converges in a few steps.
  Real t = (y - 0.5) / 0.75;
  for (int n = 0; n < 6; ++n) t -= (0.5 + 0.75 * t - t * t * t / 3 - y) / (0.75 - t * t);
  return std::clamp<Real>(t, -0.5, 0.5);
}

namespace {

// Sub-cells per cell and axis, their centres at (s + 1/2) / SUB - 1/2 cells.
constexpr int SUB = 4;
constexpr int SUB3 = SUB * SUB * SUB;
constexpr Real sub_offset(int s) { return (s + 0.5) / SUB - 0.5; }
// The surface cells whose rho the outline is fitted to, and the fit's rounds.
constexpr Real FIT_MIN = 0.02;
constexpr int FIT_ITERATIONS = 2;

// W(x_c - s) / SUB^3 for the sub-cell s (bit pattern sx + SUB (sy + SUB sz))
// of the neighbour at offset o (reach_bit order).
using Weights = std::array<std::array<Real, SUB3>, 27>;
Weights sub_weights() {
  Weights w{};
  for (int o = 0; o < 27; ++o) {
    const int d[3] = {o % 3 - 1, (o / 3) % 3 - 1, o / 9 - 1};
    for (int s = 0; s < SUB3; ++s) {
      const int e[3] = {s % SUB, (s / SUB) % SUB, s / (SUB * SUB)};
      Real value = 1.0 / SUB3;
      for (int a = 0; a < 3; ++a) value *= colour_kernel(d[a] + sub_offset(e[a]));
      w[static_cast<std::size_t>(o)][static_cast<std::size_t>(s)] = value;
    }
  }
  return w;
}

enum Fill : char { EMPTY = 0, FULL = 1, MIXED = 2 };

// The fill of a cell's sub-cells from psi at the 27 centres around it (the
// grid's edge extends psi constantly).
std::array<float, SUB3> sub_fill(const grid::Array3<Real>& psi, const Vec3i& c) {
  const Vec3i size = psi.size();
  auto at = [&](int i, int j, int k) {
    return psi(std::clamp(i, 0, size.x() - 1), std::clamp(j, 0, size.y() - 1), std::clamp(k, 0, size.z() - 1));
  };
  std::array<float, SUB3> fill{};
  for (int s = 0; s < SUB3; ++s) {
    const Real u[3] = {sub_offset(s % SUB), sub_offset((s / SUB) % SUB), sub_offset(s / (SUB * SUB))};
    int lo[3];
    Real f[3];
    for (int a = 0; a < 3; ++a) {
      lo[a] = u[a] < 0 ? -1 : 0;
      f[a] = u[a] - lo[a];
    }
    Real value = 0;
    for (int v = 0; v < 8; ++v) {
      Real weight = 1;
      int n[3];
      for (int a = 0; a < 3; ++a) {
        const int b = (v >> a) & 1;
        weight *= b ? f[a] : 1 - f[a];
        n[a] = lo[a] + b;
      }
      value += weight * at(c.x() + n[0], c.y() + n[1], c.z() + n[2]);
    }
    fill[static_cast<std::size_t>(s)] = static_cast<float>(std::clamp<Real>(0.5 + SUB * value, 0, 1));
  }
  return fill;
}

}  // namespace

namespace {

// Step 3 for `cells` from psi; -1 where not estimable.
std::vector<Real> estimate(const grid::MacGrid& grid, const grid::Array3<Real>& psi,
                           const grid::Array3<Real>& solid_phi, const NeighbourReach& reach,
                           const std::vector<Index>& cells) {
  static const Weights weights = sub_weights();
  std::array<Real, 27> whole{};
  for (int o = 0; o < 27; ++o)
    for (Real w : weights[static_cast<std::size_t>(o)]) whole[static_cast<std::size_t>(o)] += w;

  const Vec3i size = psi.size();
  std::vector<Real> out(cells.size(), -1);

  // Which cells the estimates read: the blocks around the estimable cells.
  const Real far = 1.5 * grid.dx;
  std::vector<char> estimable(cells.size(), 0);
  parallel_for(0, static_cast<Index>(cells.size()), [&](Index r) {
    const Index cell = cells[static_cast<std::size_t>(r)];
    if (reach.cells.count() > 0 && reach.cells[cell] != REACH_ALL) return;
    if (reach.partial.count(cell)) return;
    const Vec3i c = psi.coord(cell);
    for (int dk = -1; dk <= 1; ++dk)
      for (int dj = -1; dj <= 1; ++dj)
        for (int di = -1; di <= 1; ++di) {
          const int i = c.x() + di, j = c.y() + dj, k = c.z() + dk;
          if (psi.inside(i, j, k) && solid_phi_at_cell(solid_phi, i, j, k) <= far) return;
        }
    estimable[static_cast<std::size_t>(r)] = 1;
  });
  grid::Array3<char> kind(size, EMPTY);
  grid::Array3<int> slot(size, -1);
  std::vector<Index> read;
  for (std::size_t r = 0; r < cells.size(); ++r) {
    if (!estimable[r]) continue;
    const Vec3i c = psi.coord(cells[r]);
    for (int dk = -1; dk <= 1; ++dk)
      for (int dj = -1; dj <= 1; ++dj)
        for (int di = -1; di <= 1; ++di) {
          const int i = c.x() + di, j = c.y() + dj, k = c.z() + dk;
          if (!psi.inside(i, j, k) || slot(i, j, k) != -1) continue;
          slot(i, j, k) = 0;
          read.push_back(psi.index(i, j, k));
        }
  }
  // Full or empty when psi is beyond half a sub-cell at all 27 centres around.
  parallel_for(0, static_cast<Index>(read.size()), [&](Index r) {
    const Index cell = read[static_cast<std::size_t>(r)];
    const Vec3i c = psi.coord(cell);
    Real lo = psi[cell], hi = psi[cell];
    for (int dk = -1; dk <= 1; ++dk)
      for (int dj = -1; dj <= 1; ++dj)
        for (int di = -1; di <= 1; ++di) {
          const Real v = psi(std::clamp(c.x() + di, 0, size.x() - 1), std::clamp(c.y() + dj, 0, size.y() - 1),
                             std::clamp(c.z() + dk, 0, size.z() - 1));
          lo = std::min(lo, v);
          hi = std::max(hi, v);
        }
    constexpr Real EDGE = 0.5 / SUB;
    kind[cell] = lo >= EDGE ? FULL : hi <= -EDGE ? EMPTY : MIXED;
  });
  std::vector<std::array<float, SUB3>> fills;
  for (Index cell : read)
    if (kind[cell] == MIXED) {
      slot[cell] = static_cast<int>(fills.size());
      fills.emplace_back();
    }
  parallel_for(0, static_cast<Index>(read.size()), [&](Index r) {
    const Index cell = read[static_cast<std::size_t>(r)];
    if (kind[cell] == MIXED) fills[static_cast<std::size_t>(slot[cell])] = sub_fill(psi, psi.coord(cell));
  });

  parallel_for(0, static_cast<Index>(cells.size()), [&](Index r) {
    if (!estimable[static_cast<std::size_t>(r)]) return;
    const Vec3i c = psi.coord(cells[static_cast<std::size_t>(r)]);
    Real liquid = 0, space = 0;
    for (int dk = -1; dk <= 1; ++dk)
      for (int dj = -1; dj <= 1; ++dj)
        for (int di = -1; di <= 1; ++di) {
          const int i = c.x() + di, j = c.y() + dj, k = c.z() + dk;
          if (!psi.inside(i, j, k)) continue;
          const auto o = static_cast<std::size_t>(reach_bit(di, dj, dk));
          space += whole[o];
          const char f = kind(i, j, k);
          if (f == FULL) liquid += whole[o];
          if (f != MIXED) continue;
          const auto& fill = fills[static_cast<std::size_t>(slot(i, j, k))];
          for (int s = 0; s < SUB3; ++s) liquid += weights[o][static_cast<std::size_t>(s)] * fill[static_cast<std::size_t>(s)];
        }
    out[static_cast<std::size_t>(r)] = liquid / space;
  });
  return out;
}

}  // namespace

std::vector<Real> natural_fraction(const grid::MacGrid& grid, const grid::Array3<Real>& rho,
                                   const grid::Array3<Real>& solid_phi, const NeighbourReach& reach,
                                   const std::vector<Index>& cells) {
  grid::Array3<Real> psi(rho.size(), 0);
  parallel_for(0, psi.count(), [&](Index n) { psi[n] = colour_kernel_cdf_inverse(rho[n]); });
  grid::Array3<char> near(rho.size(), 0);
  for (Index c : cells) near[c] = 1;
  grid::dilate(near, 2);
  std::vector<Index> surface;
  for (Index c = 0; c < rho.count(); ++c) {
    if (!near[c]) continue;
    const Vec3i at = rho.coord(c);
    bool across = false;
    for (int a = 0; a < 3; ++a)
      for (int side = -1; side <= 1; side += 2) {
        Vec3i n = at;
        n[a] += side;
        if (rho.inside(n.x(), n.y(), n.z()) && (rho(n) >= 0.5) != (rho[c] >= 0.5)) across = true;
      }
    if (across) surface.push_back(c);
  }
  for (int n = 0; n < FIT_ITERATIONS; ++n) {
    const std::vector<Real> fit = estimate(grid, psi, solid_phi, reach, surface);
    parallel_for(0, static_cast<Index>(surface.size()), [&](Index r) {
      const Real f = fit[static_cast<std::size_t>(r)];
      const Index c = surface[static_cast<std::size_t>(r)];
      if (f > 0) psi[c] += colour_kernel_cdf_inverse(rho[c]) - colour_kernel_cdf_inverse(f);
    });
  }
  return estimate(grid, psi, solid_phi, reach, cells);
}

}  // namespace fsicut::levelset
