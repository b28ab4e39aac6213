#include "lib/cutcell/active_cells.hpp"

#include <algorithm>

#include "lib/core/parallel.hpp"

namespace fsicut::cutcell {

namespace {

// Which regions of examined cell c have an open piece of a face, and each
// region's liquid SDF: the cell's own when it has one region and its centre is
// not buried in a solid; else the mean over the pieces' whole neighbours (one
// region, centre not buried),
// weighted by the pieces' fractions, of the value extrapolated linearly to c
// from that neighbour and the next cell beyond it (the neighbour's value alone
// when there is none); the cell's own value when no piece has such a neighbour.
void classify_regions(const SplitCells& split, const FaceFractions& fractions, const grid::Array3<Real>& liquid_phi,
                      const Vec3i& c, std::vector<char>& open, std::vector<Real>& phi) {
  const int count = split.count(liquid_phi.index(c.x(), c.y(), c.z()));
  open.assign(static_cast<std::size_t>(count), 0);
  std::vector<Real> sum(static_cast<std::size_t>(count), 0), weight(static_cast<std::size_t>(count), 0);
  for (int axis = 0; axis < 3; ++axis)
    for (int side : {-1, 1}) {
      Vec3i face = c, nb = c;
      if (side > 0) face[axis] += 1;
      nb[axis] += side;
      const Index idx = fractions[axis].index(face.x(), face.y(), face.z());
      if (!(fractions[axis][idx] > 0)) continue;
      const std::vector<FacePiece>* pieces = split.pieces(axis, idx);
      if (!pieces) continue;
      const auto whole = [&](const Vec3i& x) {
        const Index n = liquid_phi.index(x.x(), x.y(), x.z());
        return split.count(n) == 1 && split.buried.count(n) == 0;
      };
      const Real estimate = liquid_phi(nb);
      for (const FacePiece& p : *pieces) {
        if (!(p.fraction > 0)) continue;
        const std::size_t r = static_cast<std::size_t>(side > 0 ? p.low : p.high);
        open[r] = 1;
        if (!whole(nb)) continue;
        sum[r] += p.fraction * estimate;
        weight[r] += p.fraction;
      }
    }
  phi.resize(open.size());
  const bool own = count == 1 && split.buried.count(liquid_phi.index(c.x(), c.y(), c.z())) == 0;
  for (std::size_t r = 0; r < open.size(); ++r) phi[r] = weight[r] > 0 && !own ? sum[r] / weight[r] : liquid_phi(c);
}

}  // namespace

ActiveCells find_active_cells(const grid::MacGrid& grid, const grid::Array3<Real>& liquid_phi,
                              const FaceFractions& fractions, const SplitCells& split) {
  ActiveCells a;
  a.row.resize(grid.cell_shape(), -1);
  std::vector<char> flag(grid.cell_count(), 0);
  parallel_for(0, grid.cell_count(), [&](Index n) {
    if (!(liquid_phi[n] < 0)) return;
    const Vec3i c = liquid_phi.coord(n);
    for (int axis = 0; axis < 3; ++axis)
      for (int side : {-1, 1})
        if (cell_face_fraction(fractions, axis, side, c) > 0) {
          flag[n] = 1;
          return;
        }
  });
  // A split cell is active when one of its regions is: open and in liquid.
  std::vector<Index> cells;
  std::unordered_map<Index, std::vector<char>> liquid;
  for (const auto& [n, count] : split.regions) {
    std::vector<char> open;
    std::vector<Real>& phi = a.region_phi[n];
    classify_regions(split, fractions, liquid_phi, liquid_phi.coord(n), open, phi);
    std::vector<char>& in = liquid[n];
    in.resize(open.size());
    for (std::size_t r = 0; r < open.size(); ++r) in[r] = open[r] && phi[r] < 0;
    flag[n] = std::any_of(in.begin(), in.end(), [](char x) { return x != 0; });
    if (flag[n]) cells.push_back(n);
  }
  for (Index n = 0; n < grid.cell_count(); ++n)
    if (flag[n]) {
      a.row[n] = static_cast<int>(a.cells.size());
      a.cells.push_back(n);
    }
  a.whole = a.count();
  std::sort(cells.begin(), cells.end());
  for (const Index n : cells) {
    const std::vector<char>& in = liquid[n];
    std::vector<int>& unknown = a.regions[n];
    unknown.assign(in.size(), -1);
    bool first = true;
    for (std::size_t r = 0; r < in.size(); ++r) {
      if (!in[r]) continue;
      unknown[r] = first ? a.row[n] : a.count();
      if (!first) a.cells.push_back(n);
      first = false;
    }
  }
  return a;
}

}  // namespace fsicut::cutcell
