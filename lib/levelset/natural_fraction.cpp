#include "lib/levelset/natural_fraction.hpp"

#include <algorithm>
#include <array>
#include <cmath>

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
  if (y <= 0) return -1.5;
  if (y >= 1) return 1.5;
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

// The trilinear weights of the centres at offsets -1, 0, 1 along an axis for
// each sub-cell centre.
using AxisWeights = std::array<std::array<Real, 3>, SUB>;
AxisWeights axis_weights() {
  AxisWeights w{};
  for (int s = 0; s < SUB; ++s) {
    const Real u = sub_offset(s);
    auto& row = w[static_cast<std::size_t>(s)];
    if (u < 0) {
      row[0] = -u;
      row[1] = 1 + u;
    } else {
      row[1] = 1 - u;
      row[2] = u;
    }
  }
  return w;
}

// The fill of a cell's sub-cells from psi at the 27 centres around it (the
// grid's edge extends psi constantly): trilinear, one axis at a time.
std::array<float, SUB3> sub_fill(const grid::Array3<Real>& psi, const Vec3i& c) {
  static const AxisWeights w = axis_weights();
  const Vec3i size = psi.size();
  Real p[3][3][3];  // [dk][dj][di]
  for (int dk = 0; dk < 3; ++dk)
    for (int dj = 0; dj < 3; ++dj)
      for (int di = 0; di < 3; ++di)
        p[dk][dj][di] = psi(std::clamp(c.x() + di - 1, 0, size.x() - 1), std::clamp(c.y() + dj - 1, 0, size.y() - 1),
                            std::clamp(c.z() + dk - 1, 0, size.z() - 1));
  Real x[3][3][SUB];  // [dk][dj][sx]
  for (int dk = 0; dk < 3; ++dk)
    for (int dj = 0; dj < 3; ++dj)
      for (int s = 0; s < SUB; ++s) {
        const auto& ws = w[static_cast<std::size_t>(s)];
        x[dk][dj][s] = ws[0] * p[dk][dj][0] + ws[1] * p[dk][dj][1] + ws[2] * p[dk][dj][2];
      }
  Real y[3][SUB][SUB];  // [dk][sy][sx]
  for (int dk = 0; dk < 3; ++dk)
    for (int t = 0; t < SUB; ++t) {
      const auto& wt = w[static_cast<std::size_t>(t)];
      for (int s = 0; s < SUB; ++s) y[dk][t][s] = wt[0] * x[dk][0][s] + wt[1] * x[dk][1][s] + wt[2] * x[dk][2][s];
    }
  std::array<float, SUB3> fill{};
  for (int r = 0; r < SUB; ++r) {
    const auto& wr = w[static_cast<std::size_t>(r)];
    for (int t = 0; t < SUB; ++t)
      for (int s = 0; s < SUB; ++s) {
        const Real value = wr[0] * y[0][t][s] + wr[1] * y[1][t][s] + wr[2] * y[2][t][s];
        fill[static_cast<std::size_t>(s + SUB * (t + SUB * r))] =
            static_cast<float>(std::clamp<Real>(0.5 + SUB * value, 0, 1));
      }
  }
  return fill;
}

}  // namespace

namespace {

// Per-cell scratch of estimate(), left as it found it: kind EMPTY, slot -1.
struct Workspace {
  grid::Array3<char> solid;  // a solid within 1.5 cells of the centre
  grid::Array3<char> kind;
  grid::Array3<int> slot;
};

// The total weight of each neighbour at offset o: its sub-cells' weights summed.
std::array<Real, 27> whole_weights(const Weights& weights) {
  std::array<Real, 27> whole{};
  for (int o = 0; o < 27; ++o)
    for (Real w : weights[static_cast<std::size_t>(o)]) whole[static_cast<std::size_t>(o)] += w;
  return whole;
}

// Which of `cells` step 3 estimates (1, else 0): those the reach covers
// whole, none partly reached, with no solid among the 27 cells around them.
std::vector<char> estimable_cells(const grid::Array3<Real>& psi, const NeighbourReach& reach,
                                  const std::vector<Index>& cells, const grid::Array3<char>& solid) {
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
          if (psi.inside(i, j, k) && solid(i, j, k)) return;
        }
    estimable[static_cast<std::size_t>(r)] = 1;
  });
  return estimable;
}

// Which cells the estimates read: the blocks around the estimable cells, each
// listed once (its slot set from -1 to 0).
std::vector<Index> cells_read(const grid::Array3<Real>& psi, const std::vector<Index>& cells,
                              const std::vector<char>& estimable, grid::Array3<int>& slot) {
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
  return read;
}

// The kind of each cell read: full or empty when psi is beyond half a
// sub-cell at all 27 centres around it, mixed otherwise.
void classify_read(const grid::Array3<Real>& psi, const std::vector<Index>& read, grid::Array3<char>& kind) {
  const Vec3i size = psi.size();
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
}

using SubFill = std::array<float, SUB3>;

// The sub-cell fills of the mixed cells read, each at its slot.
std::vector<SubFill> mixed_fills(const grid::Array3<Real>& psi, const std::vector<Index>& read,
                                 const grid::Array3<char>& kind, grid::Array3<int>& slot) {
  std::vector<SubFill> fills;
  for (Index cell : read)
    if (kind[cell] == MIXED) {
      slot[cell] = static_cast<int>(fills.size());
      fills.emplace_back();
    }
  parallel_for(0, static_cast<Index>(read.size()), [&](Index r) {
    const Index cell = read[static_cast<std::size_t>(r)];
    if (kind[cell] == MIXED) fills[static_cast<std::size_t>(slot[cell])] = sub_fill(psi, psi.coord(cell));
  });
  return fills;
}

// The liquid's share of the kernel's weight in the grid around the cell c.
Real block_fraction(const grid::Array3<Real>& psi, const Vec3i& c, const Weights& weights,
                    const std::array<Real, 27>& whole, const Workspace& work, const std::vector<SubFill>& fills) {
  Real liquid = 0, space = 0;
  for (int dk = -1; dk <= 1; ++dk)
    for (int dj = -1; dj <= 1; ++dj)
      for (int di = -1; di <= 1; ++di) {
        const int i = c.x() + di, j = c.y() + dj, k = c.z() + dk;
        if (!psi.inside(i, j, k)) continue;
        const auto o = static_cast<std::size_t>(reach_bit(di, dj, dk));
        space += whole[o];
        const char f = work.kind(i, j, k);
        if (f == FULL) liquid += whole[o];
        if (f != MIXED) continue;
        const auto& fill = fills[static_cast<std::size_t>(work.slot(i, j, k))];
        for (int s = 0; s < SUB3; ++s)
          liquid += weights[o][static_cast<std::size_t>(s)] * fill[static_cast<std::size_t>(s)];
      }
  return liquid / space;
}

// Step 3 for `cells` from psi; -1 where not estimable.
std::vector<Real> estimate(const grid::Array3<Real>& psi, const NeighbourReach& reach, const std::vector<Index>& cells,
                           Workspace& work) {
  static const Weights weights = sub_weights();
  static const std::array<Real, 27> whole = whole_weights(weights);
  const std::vector<char> estimable = estimable_cells(psi, reach, cells, work.solid);
  const std::vector<Index> read = cells_read(psi, cells, estimable, work.slot);
  classify_read(psi, read, work.kind);
  const std::vector<SubFill> fills = mixed_fills(psi, read, work.kind, work.slot);
  std::vector<Real> out(cells.size(), -1);
  parallel_for(0, static_cast<Index>(cells.size()), [&](Index r) {
    if (!estimable[static_cast<std::size_t>(r)]) return;
    out[static_cast<std::size_t>(r)] =
        block_fraction(psi, psi.coord(cells[static_cast<std::size_t>(r)]), weights, whole, work, fills);
  });
  // Leave the workspace as found.
  parallel_for(0, static_cast<Index>(read.size()), [&](Index r) {
    const Index cell = read[static_cast<std::size_t>(r)];
    work.kind[cell] = EMPTY;
    work.slot[cell] = -1;
  });
  return out;
}

}  // namespace

NaturalFraction natural_fraction(const grid::MacGrid& grid, const grid::Array3<Real>& rho,
                                 const grid::Array3<Real>& solid_phi, const NeighbourReach& reach,
                                 const std::vector<Index>& cells) {
  // near: where the fit's cells lie (2 cells); read: what any estimate reads
  // (2 more: the fit's blocks and their sub-cells' centres).
  grid::Array3<char> near(rho.size(), 0);
  for (Index c : cells) near[c] = 1;
  grid::dilate(near, 2);
  grid::Array3<char> read = near;
  grid::dilate(read, 2);
  Workspace work{grid::Array3<char>(rho.size(), 0), grid::Array3<char>(rho.size(), EMPTY),
                 grid::Array3<int>(rho.size(), -1)};
  const Real far = 1.5 * grid.dx;
  grid::Array3<Real> psi(rho.size(), 0);
  parallel_for(0, rho.count(), [&](Index n) {
    if (!read[n]) return;
    const Vec3i c = rho.coord(n);
    work.solid[n] = solid_phi_at_cell(solid_phi, c.x(), c.y(), c.z()) <= far;
    psi[n] = colour_kernel_cdf_inverse(rho[n]);
  });
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
    const std::vector<Real> fit = estimate(psi, reach, surface, work);
    parallel_for(0, static_cast<Index>(surface.size()), [&](Index r) {
      const Real f = fit[static_cast<std::size_t>(r)];
      const Index c = surface[static_cast<std::size_t>(r)];
      if (f > 0) psi[c] += colour_kernel_cdf_inverse(rho[c]) - colour_kernel_cdf_inverse(f);
    });
  }
  NaturalFraction out{estimate(psi, reach, cells, work), std::vector<char>(cells.size(), 0)};
  grid::Array3<char>& fitted = work.kind;
  for (Index c : surface) fitted[c] = 1;
  for (std::size_t r = 0; r < cells.size(); ++r) out.beside[r] = fitted[cells[r]];
  for (Index c : surface) fitted[c] = EMPTY;
  return out;
}

}  // namespace fsicut::levelset
