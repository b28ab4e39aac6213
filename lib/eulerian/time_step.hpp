#pragma once
// Line 1's CFL number as Teng, Levin & Kim 2016 choose it for their Party
// (section 5.2): "We use a CFL number of 0.6 when two solids are less than 2
// grid cells apart and 1.8 otherwise." Small steps while solids touch, where
// contact (Eqs. 14-15) and the shared velocity field act over a cell or two;
// large ones while they fly apart. A world with one solid is always "apart".
#include "lib/eulerian/world.hpp"

namespace fsicut::eulerian {

// The paper's numbers (section 5.2).
inline constexpr Real PAPER_NEAR_CFL = 0.6;
inline constexpr Real PAPER_FAR_CFL = 1.8;
inline constexpr Real NEAR_CELLS = 2;  // "less than 2 grid cells apart"

// True when two solids of `world` come within `distance` [m] of each other.
// Measured at the nodes both solids' bands hold (void_step.hpp: 3 rings past
// the surface, so a gap up to about 3 cells is seen) as the sum of the two
// material distances phi_a(x - u_a(x)) + phi_b(x - u_b(x)): at least the gap
// (triangle inequality, for small strain: the distances are material
// space's), and equal to it on the segment joining the nearest points, up to
// a node's distance from that segment. Overlapping solids count as within.
bool solids_within(const World& world, Real distance);

// `near` while two solids are within NEAR_CELLS cells (solids_within),
// `far` otherwise.
Real contact_cfl(const World& world, Real near, Real far);

}  // namespace fsicut::eulerian
