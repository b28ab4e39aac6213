#pragma once
// The smoothed liquid fraction that particles at their seeding density would
// give, for the liquid region the measured fraction outlines: the reference
// against which the cells just under a free surface tell "spread apart" from
// "near the air".
//
// Why: rho (liquid_sdf.hpp) is 1 deep in liquid as seeded, but within the
// colour kernel's reach of the air (1.5 cells) it falls below 1 by nature, so
// a cell there reading 0.96 may be as dense as seeded or 4 % short. In a
// plunging wave the particles one and two cells under the surface spread 4 %
// apart, which the liquid volume counts as liquid (+0.9 % in the shipped dam
// break); a correction needs to know what those cells should read.
//
// Method, per cell c asked for:
//   1. A signed distance to the surface in cells, psi = K^-1(rho), K the
//      colour kernel's 1D integral (colour_kernel_cdf): for particles filling a
//      half-space whose boundary is parallel to a grid plane, rho at distance
//      d inside is K(d), so psi is exact there; tilted, it is the distance
//      scaled by a factor near 1 on both sides of the surface, so its zero
//      (rho = 1/2, the liquid's surface) stays where it is. Why not phi's ramp
//      (1/2 - rho) / W1(0): linear in rho, its zero between two cell centres is
//      off by up to 0.04 cells, which moves the reference of a cell 0.7 cells
//      deep by 1.3 %.
//   2. The liquid's fill of each of 4 x 4 x 4 sub-cells of the 27 cells around
//      c: psi trilinear between cell centres at the sub-cell centre, the fill
//      clamp(1/2 + 4 psi, 0, 1) (a ramp one sub-cell wide).
//   3. rho_ref(c) = sum W(x_c - s) fill(s) / sum W(x_c - s) over the sub-cells s
//      in the grid: the colour kernel over the outlined region, normalised as
//      rho is over the open space.
//   Before step 3 for the cells asked for, the outline is fitted to the cells
//   beside the surface (a face neighbour on the other side of rho = 1/2): two
//   rounds of psi += K^-1(rho) - K^-1(rho_ref) there (the second moves the
//   test's band means by up to 0.15 % and costs a fifth of the whole). Why: K^-1 reads a curved
//   surface's rho as a flat one's; without the fit a ball 9.6 cells in radius
//   reads 2-3 % above its reference within a cell of its surface.
// Measured (tests/levelset/test_natural_fraction.cpp): for seeded half-spaces,
// level and tilted, and a seeded ball, the mean of rho - rho_ref over the cells
// at the same depth is within 0.6 % at every depth (the seeding's own step
// from the continuum one cell under a level surface), and particles spread 4 %
// apart under a surface read 3.7 % below their reference.
//
// The cells beside the surface (the fit's cells) are flagged: their rho_ref is
// their own rho up to the fit's residual (2 % at a wedge such as a surge's
// nose on a floor), so it says how far to move their particles once a
// correction runs but cannot say whether one should. Cells are not estimated
// (rho_ref = -1) where a solid is within 1.5 cells of the 3 x 3 x 3 block's
// centres or a thin solid cuts the block (reach not REACH_ALL): the open space
// there is not what this counts.
#include <vector>

#include "lib/core/types.hpp"
#include "lib/grid/mac_grid.hpp"
#include "lib/levelset/liquid_sdf.hpp"

namespace fsicut::levelset {

// The colour kernel's integral from -infinity to t [cells]: 0 below -3/2, 1
// above 3/2, 1/2 at 0; the smoothed fraction at depth t in a seeded half-space.
Real colour_kernel_cdf(Real t);
// Its inverse on [0, 1] (values outside are clamped): t in [-3/2, 3/2].
Real colour_kernel_cdf_inverse(Real y);

struct NaturalFraction {
  std::vector<Real> ref;     // per cell asked for; -1: not estimated
  std::vector<char> beside;  // per cell asked for; 1: beside the surface (a fit cell)
};

// rho_ref (steps 1-3) for the cells `cells` (flat indices) from the smoothed
// fraction `rho` at every cell centre (values outside [0, 1] are clamped), the
// node solid SDF `solid_phi` [m] and the thin solids' `reach`. Parallel over
// `cells`, deterministic.
NaturalFraction natural_fraction(const grid::MacGrid& grid, const grid::Array3<Real>& rho,
                                 const grid::Array3<Real>& solid_phi, const NeighbourReach& reach,
                                 const std::vector<Index>& cells);

}  // namespace fsicut::levelset
