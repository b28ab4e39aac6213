#pragma once
// How much liquid the marker particles stand for, and how closely they are
// packed: the figures that tell a loss of liquid volume (levelset's measure,
// fluid::liquid_volume) from particles packing closer than they were seeded.
//
// particle_volume is what the particles would fill at the seeding density; the
// liquid volume falls below it where they pack (the half level of their
// smoothed fraction then encloses less) and where a sheet or spray is thinner
// than the measure resolves. deep_density says which: the particles per deep
// cell against the seeding count, 1 as seeded, 1.03 packed 3 % closer.
#include "lib/core/types.hpp"
#include "lib/fluid/liquid.hpp"

namespace fsicut::fluid {

// A cell "holds too many" above this multiple of the seeding count.
inline constexpr Real PACKED_COUNT_FACTOR = 1.5;

struct Packing {
  Real particle_volume = 0;  // #particles x liquid.particle_volume [m^3]
  // Mean particle count of the deep cells (a cell and its 26 neighbours, all in
  // the grid, each holding at least half the seeding count: the deep cells of
  // levelset/particle_interior.hpp) over the seeding count; 0 with no deep cell.
  Real deep_density = 0;
  // Of the cells holding a particle, the fraction holding more than
  // PACKED_COUNT_FACTOR x the seeding count; 0 with no particles.
  Real packed_cells = 0;
};

// The seeding count is dx^3 / liquid.particle_volume. Deterministic (serial
// counts), O(#particles + #cells).
Packing packing(const Liquid& liquid);

}  // namespace fsicut::fluid
