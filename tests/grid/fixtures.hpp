#pragma once
// Grids shared by the tests of the liquid (levelset, fluid).
#include "lib/grid/mac_grid.hpp"

namespace fsicut::test {

// The unit cube [0, 1]^3 in n^3 cells.
inline grid::MacGrid unit_cube(int n) {
  grid::MacGrid g;
  g.resolution = {n, n, n};
  g.dx = 1.0 / n;
  return g;
}

}  // namespace fsicut::test
