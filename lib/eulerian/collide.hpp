#pragma once
// Lines 12-18 of Teng, Levin & Kim 2016 Algorithm 1 in the world step: each
// solid's velocity copy ^lv^{n+1} from the shared v^{n+1}, through its FLIP
// particles and the contacts between them (particles.hpp, contact.hpp).
//
// The particles are instantiated every step, as the paper's: a lattice of
// 2 x 2 x 2 per cell (no jitter) over the solid's material at u^n, each with
// the solid's new velocity interpolated. Each solid's particles are pushed
// away from every other solid (contact.hpp, h = dx; a pair of solids takes
// the geometric means sqrt(k_a k_b) and sqrt(mu_a mu_b), ours: equal values
// give that value, a solid with k = 0 touches nobody). The mass-weighted
// splat of the particles' velocity changes (rasterize) is added to the
// solid's copy on the nodes that received particle mass. Only the change
// goes back to the grid, not the particles' velocities: a grid -> particles
// -> grid round trip (PIC) smooths the field, and a solid that touches
// nobody must step exactly as without particles.
//
// Why it separates solids at all in one velocity field: the shared v^{n+1}
// of the next step averages the copies where two solids share nodes, and
// those equal and opposite changes cancel there; but lines 19-20 move each
// solid's u with its own copy within the step, and the nodes only one
// solid holds keep their change. Without contact the copies agree where the
// solids meet and the solids stick (the paper: "without this response, the
// circles stick").
//
// Units: velocities [m/s], dt [s].
#include <vector>

#include "lib/eulerian/contact.hpp"

namespace fsicut::eulerian {

// One solid's velocity copy on the nodes where it has mass: values holds 3
// entries per node, in the order of `nodes`.
struct SolidVelocity {
  std::vector<Index> nodes;
  Vector values;
};

// Adds each solid's rasterized contact change to `copies` (one per solid, in
// the order of `solids`). Does nothing unless two or more solids have
// contact_stiffness > 0.
ContactReport collide(const std::vector<EulerianSolid>& solids, Real dt, std::vector<SolidVelocity>& copies);

}  // namespace fsicut::eulerian
