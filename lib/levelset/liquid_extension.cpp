// The liquid SDF's extension into the solid (extend_liquid_into_solid and
// solid_phi_at_cell, declared in liquid_sdf.hpp); the particle stages are in
// liquid_sdf.cpp.
#include "lib/levelset/liquid_sdf.hpp"

#include <algorithm>
#include <vector>

#include "lib/core/parallel.hpp"

namespace fsicut::levelset {
namespace {

// Layers of cells inside the solid that get their liquid SDF by extrapolation:
// enough to cross the cells a sloped wall cuts (a cell whose centre is inside the
// solid can have open faces only to other such cells, up to about two deep).
constexpr int SOLID_EXTENSION_LAYERS = 3;

}  // namespace

Real solid_phi_at_cell(const grid::Array3<Real>& s, int i, int j, int k) {
  return 0.125 * (s(i, j, k) + s(i + 1, j, k) + s(i, j + 1, k) + s(i + 1, j + 1, k) +
                  s(i, j, k + 1) + s(i + 1, j, k + 1) + s(i, j + 1, k + 1) + s(i + 1, j + 1, k + 1));
}

namespace {

using Fractions = std::array<grid::Array3<Real>, 3>;

// The neighbour nb of cell c on `side` of `axis` if it exists and the face
// between is open.
bool open_neighbour(const grid::Array3<Real>& phi, const Fractions& fractions, const Vec3i& c, int axis, int side,
                    Vec3i& nb) {
  nb = c;
  nb[axis] += side;
  if (!phi.inside(nb.x(), nb.y(), nb.z())) return false;
  Vec3i face = c;
  if (side > 0) face[axis] += 1;
  return fractions[axis](face) > 0;
}

// The cells (of an array of size `size`) whose centre value of solid_phi is
// negative, row by row. A cell's centre value is the mean of its 8 nodes: a row
// of cells whose 4 rows of nodes have no negative node has no cell inside (most
// rows).
std::vector<Index> cells_in_solid(const grid::Array3<Real>& solid_phi, const Vec3i& size) {
  const Index rows = static_cast<Index>(size.y()) * size.z();
  const Vec3i nodes = solid_phi.size();
  std::vector<char> solid_node_row(static_cast<std::size_t>(nodes.y()) * nodes.z());
  parallel_for(0, static_cast<Index>(solid_node_row.size()), [&](Index row) {
    const Real* first = &solid_phi[row * nodes.x()];
    solid_node_row[static_cast<std::size_t>(row)] = std::any_of(first, first + nodes.x(), [](Real v) { return v < 0; });
  });
  std::vector<std::vector<Index>> solid_rows(static_cast<std::size_t>(rows));
  parallel_for(0, rows, [&](Index row) {
    const int j = static_cast<int>(row % size.y()), k = static_cast<int>(row / size.y());
    const auto solid_row = [&](int b, int c) { return solid_node_row[static_cast<std::size_t>(b + nodes.y() * c)]; };
    if (!solid_row(j, k) && !solid_row(j + 1, k) && !solid_row(j, k + 1) && !solid_row(j + 1, k + 1)) return;
    const Index row_start = static_cast<Index>(size.x()) * row;
    for (int i = 0; i < size.x(); ++i)
      if (solid_phi_at_cell(solid_phi, i, j, k) < 0) solid_rows[static_cast<std::size_t>(row)].push_back(row_start + i);
  });
  std::vector<Index> unknown;
  for (const std::vector<Index>& r : solid_rows) unknown.insert(unknown.end(), r.begin(), r.end());
  return unknown;
}

// Step 1: the cells `unknown` (inside the solid) in layers, each extrapolating
// from the cells known so far (outside the solid, or set by an earlier layer);
// those no layer reaches and within half a cell of the liquid go to -half.
void extend_into_solid_cells(const Fractions& fractions, const std::vector<Index>& unknown, Real half,
                             grid::Array3<Real>& phi) {
  grid::Array3<char> known(phi.size(), 1);
  for (Index idx : unknown) known[idx] = 0;
  std::vector<Real> value(unknown.size());
  std::vector<char> found(unknown.size());
  for (int layer = 0; layer < SOLID_EXTENSION_LAYERS; ++layer) {
    parallel_for(0, static_cast<Index>(unknown.size()), [&](Index u) {
      const Index idx = unknown[static_cast<std::size_t>(u)];
      found[static_cast<std::size_t>(u)] = 0;
      if (known[idx]) return;
      const Vec3i c = phi.coord(idx);
      Real sum = 0;
      int count = 0;
      for (int a = 0; a < 3; ++a)
        for (int side : {-1, 1}) {
          Vec3i n;
          if (!open_neighbour(phi, fractions, c, a, side, n) || !known(n)) continue;
          sum += phi(n);
          ++count;
        }
      if (count > 0) {
        value[static_cast<std::size_t>(u)] = sum / count;
        found[static_cast<std::size_t>(u)] = 1;
      }
    });
    for (std::size_t u = 0; u < unknown.size(); ++u)
      if (found[u]) {
        phi[unknown[u]] = value[u];
        known[unknown[u]] = 1;
      }
  }
  for (Index idx : unknown)
    if (!known[idx] && phi[idx] < half) phi[idx] = std::min(phi[idx], -half);
}

// Step 2: one-cell holes, cells not in the liquid whose open neighbours all
// are, get their mean. A row none of whose cells nor those of its four
// neighbouring rows is in the liquid holds none: most rows are away from the
// liquid.
void fill_one_cell_holes(const Fractions& fractions, grid::Array3<Real>& phi) {
  const Vec3i size = phi.size();
  const Index rows = static_cast<Index>(size.y()) * size.z();
  std::vector<char> wet(static_cast<std::size_t>(rows));
  parallel_for(0, rows, [&](Index row) {
    const Real* first = &phi[row * size.x()];
    wet[static_cast<std::size_t>(row)] = std::any_of(first, first + size.x(), [](Real v) { return v < 0; });
  });
  const auto wet_row = [&](int j, int k) {
    return j >= 0 && j < size.y() && k >= 0 && k < size.z() && wet[static_cast<std::size_t>(j + size.y() * k)];
  };
  std::vector<std::vector<std::pair<Index, Real>>> holes(static_cast<std::size_t>(rows));
  parallel_for(0, rows, [&](Index row) {
    const int j = static_cast<int>(row % size.y()), k = static_cast<int>(row / size.y());
    if (!wet_row(j, k) && !wet_row(j - 1, k) && !wet_row(j + 1, k) && !wet_row(j, k - 1) && !wet_row(j, k + 1)) return;
    for (int i = 0; i < size.x(); ++i) {
      const Index idx = phi.index(i, j, k);
      if (phi[idx] < 0) continue;
      const Vec3i c(i, j, k);
      Real sum = 0;
      int count = 0;
      bool hole = true;
      for (int a = 0; a < 3 && hole; ++a)
        for (int side : {-1, 1}) {
          Vec3i n;
          if (!open_neighbour(phi, fractions, c, a, side, n)) continue;
          if (!(phi(n) < 0)) {
            hole = false;
            break;
          }
          sum += phi(n);
          ++count;
        }
      if (hole && count > 0) holes[static_cast<std::size_t>(row)].emplace_back(idx, sum / count);
    }
  });
  for (const auto& r : holes)
    for (const auto& [idx, v] : r) phi[idx] = v;
}

}  // namespace

// Why lists and rows instead of passes over every cell with copies of phi: the
// solid's cells and the holes are few, and whole-grid passes (an index division
// per cell, four copies of phi) would make this a grid-sized stage. Each pass
// reads only values from before it.
void extend_liquid_into_solid(const grid::MacGrid& grid, const grid::Array3<Real>& solid_phi,
                              const std::array<grid::Array3<Real>, 3>& fractions,
                              grid::Array3<Real>& phi) {
  extend_into_solid_cells(fractions, cells_in_solid(solid_phi, phi.size()), 0.5 * grid.dx, phi);
  fill_one_cell_holes(fractions, phi);
}

}  // namespace fsicut::levelset
