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
// Unknowns are numbered in the order of the linear cell index (x fastest), so
// matrix rows of neighbouring cells are sorted like the cells.
#include <vector>

#include "lib/cutcell/face_fractions.hpp"
#include "lib/grid/mac_grid.hpp"

namespace fsicut::cutcell {

struct ActiveCells {
  grid::Array3<int> row;      // size grid.cell_shape(): unknown index of the cell, or -1
  std::vector<Index> cells;   // #unknowns: linear cell index of each unknown
  int count() const { return static_cast<int>(cells.size()); }
};

// `liquid_phi`: cell centres [m], negative in liquid. Deterministic.
ActiveCells find_active_cells(const grid::MacGrid& grid, const grid::Array3<Real>& liquid_phi,
                              const FaceFractions& fractions);

// Open fraction of the face on side `side` (-1 low, +1 high) of cell c along `axis`.
inline Real cell_face_fraction(const FaceFractions& f, int axis, int side, const Vec3i& c) {
  Vec3i face = c;
  if (side > 0) face[axis] += 1;
  return f[axis](face);
}

}  // namespace fsicut::cutcell
