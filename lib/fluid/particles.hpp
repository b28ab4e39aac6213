#pragma once
// Marker particles: seeding, RK2 advection, and keeping them out of solids.
// Positions are world coordinates [m], one particle per column (3 x n).
#include <cstdint>
#include <functional>
#include <vector>

#include "lib/core/types.hpp"
#include "lib/fluid/pieces.hpp"
#include "lib/grid/mac_grid.hpp"

namespace fsicut::fluid {

// Point membership test of a region (true inside), world coordinates [m].
using Region = std::function<bool(const Vec3&)>;

// Jitter of a seeded particle as a fraction of its sub-cell edge (total range).
// Why not 1 (uniform in the sub-cell): two neighbouring particles could then sit a
// full cell apart and leave holes in the union-of-balls liquid SDF.
constexpr Real SEED_JITTER = 0.5;

// splitmix64: a small, well-mixed hash used as a counter-based random
// generator (seeding is then independent of the thread count).
std::uint64_t mix(std::uint64_t x);
// Uniform in [0, 1) from a key.
Real uniform(std::uint64_t key);

// The centre of sub-cell p of `cell` when it is split into per_cell = m^3 sub-cells,
// p = s_x + m (s_y + m s_z) [m].
Vec3 sub_cell_centre(const grid::MacGrid& grid, const Vec3i& cell, int p, int per_cell);

// Seeds `per_cell` particles in every cell, inside `region`.
// per_cell = m^3 (8 = 2^3, the default) places one particle in each of the m^3
// sub-cells whose centre is in the region, at the sub-cell centre plus a jitter of
// up to +-SEED_JITTER/2 of the sub-cell edge per axis (none when the jittered
// point would leave the region); other counts are uniform in the cell and keep the
// particles inside the region. The jitter comes
// from a hash of (seed, cell, particle), so the result is independent of the
// thread count and of the order of regions. Returns 3 x #kept [m], ordered by cell.
//
// Lattice seeding then removes the jitter's noise from the liquid surface: the
// particles near the region's boundary (in cells at most two cells from an
// unseeded cell or the grid's edge: free surface and walls) move by the
// least-squares smallest displacements (median 0.02 dx, at most dx/8 per round,
// never out of their cell or the region) that make the smoothed liquid fraction
// (levelset/liquid_sdf.hpp) at the cells there equal the un-jittered lattice's.
// Why: the jitter alone leaves phi at the top cells of a flat surface with an sd
// of 0.03 dx (up to 0.1 dx off), and the ghost-fluid projection turns those steps
// between columns into grid-scale gravity waves that never die out (still water
// in a sphere: 2 % of sqrt(g R) after 1 s; with the match 0.02 %). The nudges are
// a fifth of the jitter, so the particles remain an irregular cloud.
// Cost: 4 M particles filling half a 100^3 box, 2 threads: 4.0 s (0.5 s without).
//
// `exact` (optional, grid.cell_shape(), lattice seeding only): cells whose
// particles sit at their sub-cell centres, without jitter, and are not nudged.
// Beside a solid thinner than a cell the liquid fraction leaves out what the
// solid hides from a cell's centre (levelset::NeighbourReach): its normaliser
// by the sub-cell centres it hides, its particle sum by the particles it hides.
// The two agree only for particles at those centres; a jittered particle counts
// where its centre does not, and the match above works on sums that do not
// hide anything. Measured, still water 10 cells deep beside walls 0.1 to 0.9
// cells thick at three offsets off the face planes: 2.5 to 5.8 mm/s within 2 s
// with jitter there; every particle exact, under 1e-10 m/s; these cells exact
// and the match to 1e-4 where they meet the jittered ones, 0.34 mm/s.
Points seed_particles(const grid::MacGrid& grid, const Region& region, int per_cell, unsigned seed,
                      const grid::Array3<char>& exact = {});

// Second-order Runge-Kutta (midpoint) step of every particle through the
// trilinearly interpolated MAC velocity `u` [m/s] over dt [s]; positions are then
// clamped into the grid box (the domain walls). `reach` (optional, one per
// particle, levelset::NeighbourReach bits around the particle's cell): the
// velocity comes from the faces the particle reaches (velocity_within_reach in
// velocity.hpp), at the midpoint too. Parallel over particles.
// `split` (optional): beside split cells a particle with reach bits reads the
// pieces of its side of the wall (velocity_beside_walls in pieces.hpp), the
// regions looked up once at its start.
void advect_particles(const grid::MacGrid& grid, const grid::MacVelocity& u, Real dt,
                      Points& particles, const std::vector<std::uint32_t>& reach = {},
                      const SplitFlow* split = nullptr);

// Moves every particle with solid_phi(x) < 0 (trilinear in the node solid SDF
// [m]) back to the solid surface along the SDF gradient. Returns how many moved.
Index push_particles_out(const grid::MacGrid& grid, const grid::Array3<Real>& solid_phi,
                         Points& particles);

// Gradient of the node field `phi` at x by central differences of its trilinear
// interpolant (step dx/2), not normalized.
Vec3 node_field_gradient(const grid::MacGrid& grid, const grid::Array3<Real>& phi, const Vec3& x);

}  // namespace fsicut::fluid
