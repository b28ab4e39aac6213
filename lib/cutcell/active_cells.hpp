#pragma once
// Active cells (paper Sec. 7): the cells that get a pressure unknown.
//
// A cell is active when its centre is inside the liquid (liquid SDF < 0; the
// liquid SDF has already been extended into the solid, so this also covers
// "centre inside the solid next to liquid") and at least one of its six faces is
// open (fraction > 0), i.e. it contains some fluid connected to the rest of the
// flow. A liquid cell with all faces closed has no flux to balance and would give
// an empty matrix row; it is left out.
//
// A cell a thin solid splits (split_cells.hpp) has one unknown per region in
// liquid with an open piece of a face; the cell is active when one of them is.
// A region's liquid SDF comes from the whole cells its pieces join (its own
// centre may lie in the wall, where the particles' SDF says nothing).
//
// Unknowns are numbered in the order of the linear cell index (x fastest), so
// matrix rows of neighbouring cells are sorted like the cells; a split cell's
// further regions come after all of them, in cell order. Without split cells
// the numbering is exactly the cells'.
#include <unordered_map>
#include <vector>

#include "lib/cutcell/face_fractions.hpp"
#include "lib/cutcell/split_cells.hpp"
#include "lib/grid/mac_grid.hpp"

namespace fsicut::cutcell {

struct ActiveCells {
  grid::Array3<int> row;      // size grid.cell_shape(): unknown of the cell (its first active region), or -1
  std::vector<Index> cells;   // #unknowns: linear cell index of each unknown (repeated for a split cell)
  int whole = 0;              // unknowns [0, whole) are the rows; [whole, #unknowns) further regions
  // Active split cells: the unknown of each region, -1 where it is inactive.
  std::unordered_map<Index, std::vector<int>> regions;
  // Every examined cell (SplitCells::regions): the liquid SDF [m] of each region (see find_active_cells).
  std::unordered_map<Index, std::vector<Real>> region_phi;
  int count() const { return static_cast<int>(cells.size()); }
  // The liquid SDF [m] of region `region` of cell `cell`: its own, or the cell's.
  Real phi(const grid::Array3<Real>& liquid_phi, Index cell, int region) const {
    const auto it = region_phi.find(cell);
    return it == region_phi.end() ? liquid_phi[cell] : it->second[static_cast<std::size_t>(region)];
  }
  // The unknown of region `region` of cell `cell` (linear index), or -1.
  int unknown(Index cell, int region) const {
    if (regions.empty()) return region == 0 ? row[cell] : -1;
    const auto it = regions.find(cell);
    if (it == regions.end()) return region == 0 ? row[cell] : -1;
    return region < static_cast<int>(it->second.size()) ? it->second[static_cast<std::size_t>(region)] : -1;
  }
};

// `liquid_phi`: cell centres [m], negative in liquid. Deterministic.
ActiveCells find_active_cells(const grid::MacGrid& grid, const grid::Array3<Real>& liquid_phi,
                              const FaceFractions& fractions, const SplitCells& split = SplitCells{});

// Open fraction of the face on side `side` (-1 low, +1 high) of cell c along `axis`.
inline Real cell_face_fraction(const FaceFractions& f, int axis, int side, const Vec3i& c) {
  Vec3i face = c;
  if (side > 0) face[axis] += 1;
  return f[axis](face);
}

}  // namespace fsicut::cutcell
