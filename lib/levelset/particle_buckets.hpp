#pragma once
// Particles bucketed by grid cell, for the stages that visit the particles
// near each cell (levelset/liquid_sdf.hpp).
#include <vector>

#include "lib/core/types.hpp"
#include "lib/grid/mac_grid.hpp"

namespace fsicut::levelset {

// The particles of cell c (linear cell index, grid::Array3 order) are
// order[start[c] .. start[c + 1]), in ascending particle order.
// near: the cells within `near_cells` (Chebyshev) of a cell holding a
// particle, the band outside which the liquid stages have nothing to do.
struct ParticleBuckets {
  std::vector<Index> start, order;  // #cells + 1, #particles
  grid::Array3<char> near;          // grid.cell_shape()
};

// Buckets `particles` (3 x #particles [m], each inside the grid) by the cell
// that holds it (grid::MacGrid::cell_of). A stable counting sort in parallel:
// the buckets are those of the serial sort for any thread count.
ParticleBuckets bucket_particles(const grid::MacGrid& grid, const Points& particles, int near_cells);

}  // namespace fsicut::levelset
