#pragma once
// Which cells Eq. 12 constrains in a world step, and the part of b that
// Eq. 12 cannot meet in a closed box (world.hpp says why; world.cpp uses
// both).
//
// Units: b [m^3/s].
#include <vector>

#include "lib/eulerian/unknowns.hpp"

namespace fsicut::eulerian {

// Cell (i, j, k) of the linear cell index c (q1.hpp cell_index).
Vec3i cell_coord(const grid::MacGrid& grid, Index c);

// The cells of Eq. 12 in increasing index: in a closed smoke box
// (`closed_box`) every cell with an unknown corner (a cell whose corners are
// all walls or prescribed would have an empty row of J); in void the union
// of `solid_cells`, each solid's cells.
std::vector<Vec3i> constrained_cells(const grid::MacGrid& grid, const Unknowns& unknowns, bool closed_box,
                                     const std::vector<const std::vector<Vec3i>*>& solid_cells);

// Removes from b (one entry per cell of `cells`) its orthogonal projection
// onto the kernel of J^T over the cells of a closed box (world.hpp): the
// constant and, for every layer of cells across each axis, the layer's
// checkerboard in the other two.
void remove_kernel_components(const grid::MacGrid& grid, const std::vector<Vec3i>& cells, Vector& b);

}  // namespace fsicut::eulerian
