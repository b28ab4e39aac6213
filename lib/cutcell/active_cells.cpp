#include "lib/cutcell/active_cells.hpp"

#include "lib/core/parallel.hpp"

namespace fsicut::cutcell {

ActiveCells find_active_cells(const grid::MacGrid& grid, const grid::Array3<Real>& liquid_phi,
                              const FaceFractions& fractions) {
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
  for (Index n = 0; n < grid.cell_count(); ++n)
    if (flag[n]) {
      a.row[n] = static_cast<int>(a.cells.size());
      a.cells.push_back(n);
    }
  return a;
}

}  // namespace fsicut::cutcell
