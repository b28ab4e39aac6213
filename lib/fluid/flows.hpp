#pragma once
// Liquid that comes and goes: sources that fill a region with liquid moving
// at their velocity, drains that empty one, and open sides of the domain
// through which liquid leaves. The cut-cell simulator calls these once per
// substep, after the particles moved (sim/cutcell/flows.hpp says when and
// keeps the books).
//
// Sources. fill_region() adds liquid where the region lacks it, on the
// seeding lattice: a cell is split into per_cell = m^3 sub-cells as at
// seeding (fluid/particles.hpp), of edge h = dx / m, and the sub-cells whose
// centre is in the region and outside every solid are its targets.
//   - A source with a velocity continues the stream: along each line of
//     sub-cells on the velocity's main axis, new particles go one edge h apart
//     against the stream from the line's most upstream particle, as far as
//     the region holds them (a line without a particle is filled from its
//     most upstream target centre down the stream, jittered across it). The
//     liquid inside a source moves with its velocity (sim/cutcell/flows.hpp),
//     so the lines advance as lattices and the inflow is the region's
//     cross-section times the velocity. Why not top each cell up: a particle
//     put in an emptied sub-cell stays in the region less than the crossing of
//     it, so what leaves per second (the count over the time in the region)
//     grew (scenes/faucet.json's 4 cm deep stream: 25 % too much topping up
//     cells, 13.6 % topping up the region's count at sub-cell centres, 6 % at
//     their upstream faces; continuing the lines, within 1 %).
//   - Without a velocity the region is topped up to the seeded count: it
//     lacks the sum of its targets less the particles in it, and that many
//     empty target sub-cells get a particle (centre plus the seeding jitter),
//     those of the cells that lack most first, then in cell order.
// So liquid already there is not doubled, and a source under water adds
// nothing. set_face_velocity() gives the faces inside the region the source's
// velocity before the projection (in proportion to the part of each face it
// covers), which then makes the field around it divergence free. Where a source crosses a domain
// wall, the wall's faces inside it carry the inflow (WallInflow): their
// flux enters the projection's right-hand side as a solid wall's motion
// would, so liquid flows in through the wall.
//
// Open sides. On an open side the grid's outermost layer of cells is the
// outside: its cells are air (liquid SDF at least dx/2, so the ghost-fluid
// free surface p = 0 lies between them and the liquid, at most half a cell
// from the layer's inner face), and particles that enter it are removed. The
// wall of the grid's box behind the layer then never touches liquid. Why a
// layer and not the box's face itself: every stage (projection, extrapolation,
// the particles' clamp) treats the box's faces as walls, and one layer of air
// keeps them all as they are; the price is one cell of the domain per open
// side.
//
// Determinism: the particles added depend on the liquid, the region and
// `key` only (a hash per cell and sub-cell), never on the thread count;
// removal keeps the order of the particles that stay.
//
// Units: SI. Sides are numbered -x, +x, -y, +y, -z, +z (2 axis + 1 for +).
#include <array>
#include <vector>

#include "lib/fluid/liquid.hpp"
#include "lib/fluid/particles.hpp"

namespace fsicut::fluid {

// An axis-aligned box [m] that bounds a region: the work of a source or drain
// stays within the cells it overlaps.
struct Bounds {
  Vec3 min{0, 0, 0}, max{0, 0, 0};
};

// Whether x [m] lies in the outermost cell layer of an open side, or beyond it.
bool beyond_open_sides(const grid::MacGrid& grid, const OpenSides& open, const Vec3& x);

// Makes the open layers' cells air: liquid_phi = max(liquid_phi, dx / 2) there.
void open_layers_to_air(const grid::MacGrid& grid, const OpenSides& open, grid::Array3<Real>& liquid_phi);

// Removes the particles for which gone(x) is true, keeping the others in
// their order. Returns, per particle before, its index after (-1: removed).
std::vector<Index> remove_particles(Points& particles, const Region& gone);

// Tops `region` (within `bounds`) up to the seeded density, as the header
// says; sub-cells in a solid (liquid.solid_phi < 0) are not targets. per_cell
// not a cube: a cell whose centre is in the region has per_cell targets,
// placed uniformly in the cell where the region holds them. `key` varies the jitter
// (a different one every substep); `velocity` [m/s] the source's (its
// direction places the new particles). Returns how many particles were
// appended (at the end of liquid.particles).
Index fill_region(Liquid& liquid, const Region& region, const Bounds& bounds, int per_cell, std::uint64_t key,
                  const Vec3& velocity = Vec3::Zero());

// Gives the faces `region` covers (within `bounds`) the velocity [m/s]: a
// face's velocity u becomes u + share (velocity - u), share the part of the
// face the region holds, measured at the m x m sub-cell centres on it
// (per_cell = m^3, as the particles fill: a box that cuts cells in half pours
// through half their faces, so the inflow is the shape's cross-section times
// its velocity, not the covered faces'). The domain walls' faces among them
// are recorded in liquid.wall_inflow with share * velocity instead (their
// stored velocity stays the wall's 0).
void set_face_velocity(Liquid& liquid, const Region& region, const Bounds& bounds, const Vec3& velocity,
                       int per_cell);

}  // namespace fsicut::fluid
