#pragma once
// The liquid level set at cell centres, built from the marker particles.
//
// Sign convention: NEGATIVE inside the liquid, positive in air [m].
//
// Two fields, combined by liquid_phi_from_particles (what the simulator uses):
//
// * The smoothed liquid fraction ("colour function"): each particle spreads its
//   volume V with the tensor quadratic B-spline kernel W (support 3 cells), and the
//   sum is divided by the same kernel integrated over the open (non-solid) space:
//     rho(c) = sum_p V W(x_c - x_p) / integral_open W(x_c - x) dx,
//     phi(c) = (1/2 - rho(c)) dx / W1(0),     W1(0) = 3/4,
//   so that rho = 1 in liquid however close a wall is, and phi has unit slope across
//   a flat surface. The surface is the half level of rho: for particles filling a
//   half-space it lies exactly on the boundary of the filled region (W is even), so
//   the free surface of a seeded body is where it was seeded (seeding matches the
//   jittered particles' rho there to the lattice's, fluid/particles.hpp), and once
//   particles move its noise is that of a convolution, not the jitter of the
//   outermost particle. Far from particles phi = dx / (2 W1(0)) = 2/3 dx.
//   Why: the ghost-fluid pressure projection reads the surface position between
//   cells to 1 % of a cell; the union of balls below puts it 0.03..0.3 dx above the
//   outer particle layer, set by that particle's jitter, and the difference between
//   neighbouring columns drives currents in still water (hydrostatic rest at 48^3:
//   max |u| 14 % of sqrt(gR) with balls, about 2 % with this field).
// * The union of balls of radius r (dx / 2): phi(x) = min_p |x - p| - r. It keeps
//   what the convolution loses: a lone particle or a sheet thinner than about a
//   cell has rho < 1/2 and would vanish from the pressure solve. It is used where
//   no cell of the 3 x 3 x 3 block around has rho >= 1/2 (splashes and drops).
#include <array>
#include <cstdint>
#include <functional>
#include <utility>
#include <unordered_map>
#include <vector>

#include "lib/core/types.hpp"
#include "lib/grid/mac_grid.hpp"

namespace fsicut::levelset {

// Which of the 3 x 3 x 3 cells around a cell its liquid reaches: bit
// (di + 1) + 3 (dj + 1) + 9 (dk + 1) for the cell at offset (di, dj, dk). A solid
// thinner than a cell, which the node SDF does not show, cuts cells off
// (cutcell/thin_solids.hpp): the open space across it is not in a cell's
// normalisation (`cells`), and a particle's kernel does not spread across it
// (`particles`, the same bits around the particle's own cell, from the
// particle's position: a particle between a node plane and a wall just past it
// lies in the cell on the wall's far side), so still water beside a thin wall
// has rho = 1 up to the wall as beside a thick one. Empty arrays: every cell is
// reached (`particles` empty: each particle reaches what its cell reaches).
// A wall inside a neighbour (or inside the cell itself) hides part of it from
// the cell's centre, whether or not it cuts the neighbour off: `partial` lists,
// for the cells near thin solids that have a bit cleared or a hidden point, per
// offset bit (13: the cell itself), the neighbour's 2 x 2 x 2 quadrature points
// (bit s_x + 2 s_y + 4 s_z, at 1/4 and 3/4 of the cell per axis) that the
// cell's centre reaches; the normalisation of a listed cell counts only those.
// The particles' bits hide the same parts, so the particle sum and its
// normaliser agree (exactly for particles at the quadrature points, which is
// how fluid::seed_particles seeds beside thin solids). Why: counting a
// neighbour's open space the wall hides, with its particles hidden, left the
// cells beside a wall off-centre in a cell 0.2 % short of liquid at the free
// surface, enough to drive still water at 2.6-15 mm/s.
struct NeighbourReach {
  grid::Array3<std::uint32_t> cells;     // per cell
  std::vector<std::uint32_t> particles;  // per particle, in the particles' order
  std::unordered_map<Index, std::array<unsigned char, 27>> partial;
  grid::Array3<char> tested;  // cells whose particles get bits of their own (cutcell/thin_solids.hpp); may be empty
};
constexpr std::uint32_t REACH_ALL = (1u << 27) - 1;
// The bit of the neighbour at offset (di, dj, dk), each in -1..1.
constexpr int reach_bit(int di, int dj, int dk) { return (di + 1) + 3 * (dj + 1) + 9 * (dk + 1); }
// The bit of the face neighbour one step along `side` (-1 or 1) of axis a.
constexpr int reach_bit(int axis, int side) {
  return reach_bit(axis == 0 ? side : 0, axis == 1 ? side : 0, axis == 2 ? side : 0);
}

// The particle ball radius [m] for the grid: a fixed multiple of dx, tuned for the
// default 8 particles per cell (2 x 2 x 2 jittered sub-cells).
Real particle_radius(const grid::MacGrid& grid);

// Ball radius in cells. With 8 particles per cell the mean spacing is dx/2; a ball
// must bridge the gaps of the jittered lattice (no holes inside the liquid) while
// adding as little as possible to the liquid outline (the union of balls pads the
// particle cloud by about r minus the depth of the outermost layer). The liquid
// VDB uses the same radius (io::liquid_particle_radius), so renderers see the
// liquid the simulator saw.
inline constexpr Real PARTICLE_RADIUS_CELLS = 0.5;

// The union-of-balls phi at cell centres from `particles` (3 x n [m]) with ball
// radius `radius` [m]: exact wherever the nearest particle is within 2.5 dx of the
// centre (particles are searched 2 cells around), capped at 2.5 dx - r beyond.
// `phi` is resized to grid.cell_shape(). Parallel over cells, deterministic.
void liquid_sdf_from_particles(const grid::MacGrid& grid, const Points& particles, Real radius,
                               grid::Array3<Real>& phi);

// The colour kernel per axis: the quadratic B-spline of t in cells, support
// |t| < 3/2; its integer translates sum to 1. W(x) = prod_a colour_kernel(x_a / dx).
inline Real colour_kernel(Real t) {
  t = t < 0 ? -t : t;
  if (t < 0.5) return 0.75 - t * t;
  if (t < 1.5) return 0.5 * (1.5 - t) * (1.5 - t);
  return 0;
}
// Its derivative d colour_kernel / dt [1/cell].
inline Real colour_kernel_slope(Real t) {
  const Real a = t < 0 ? -t : t;
  if (a < 0.5) return -2 * t;
  if (a < 1.5) return t < 0 ? 1.5 - a : a - 1.5;
  return 0;
}

// The kernel's 1D value at 0, the slope of rho across a flat surface in 1/dx.
inline constexpr Real COLOUR_KERNEL_CENTRE = 0.75;

// The smoothed liquid fraction rho at cell centres (see above): `particle_volume`
// is the volume one particle stands for [m^3]; `solid_phi` the node solid SDF [m]
// (< 0 in solids), whose sign at 2 x 2 x 2 points per cell gives the open space of
// the normalisation; a cell whose normaliser is below COLOUR_MIN_OPEN (almost all
// solid around it) gets rho = 0. Parallel over cells, deterministic.
void liquid_fraction_from_particles(const grid::MacGrid& grid, const Points& particles,
                                    Real particle_volume, const grid::Array3<Real>& solid_phi,
                                    grid::Array3<Real>& rho, const NeighbourReach& reach = {});
inline constexpr Real COLOUR_MIN_OPEN = 0.05;

// The simulator's liquid phi: the smoothed liquid fraction's phi, and the union of
// balls of radius `radius` where no neighbouring cell (3 x 3 x 3) has rho >= 1/2
// (the balls are searched only there: in the bulk they would be discarded).
void liquid_phi_from_particles(const grid::MacGrid& grid, const Points& particles,
                               Real particle_volume, Real radius,
                               const grid::Array3<Real>& solid_phi, grid::Array3<Real>& phi,
                               const NeighbourReach& reach = {});

// The liquid volume [m^3]: the space the liquid fills, over the cells with open
// space (cell_open_fraction of the node `solid_phi`, f > 0; "open" below). A cell
// counts f dx^3 when it and its open face neighbours have rho >= 1/2 (the bulk the
// pressure solve sees as liquid, where the seeding's +-6 % noise in rho is not
// volume), and otherwise dx^3 min(s, f), s the particles' shares in it: each
// particle spreads its volume over the open cells its kernel reaches with the
// weights W f normalised to sum to 1 for that particle, so the s of all cells
// sum to the particles' volume exactly, at walls too, and a cell a solid fills
// in part gets its open part's share (with W alone the cap f lost what the
// kernel put there: the torus splash read -1.5 % at 1 s). Why shares and not phi's ramp:
// phi's half level thins a sheet one cell thick to 0.83 cells and drops one
// thinner than 0.7 cells, and rho (normalised per cell, so that the bulk reads 1
// at a wall) counts a layer 0.3 cells deep on the floor at 0.76 of its volume:
// the torus splash, whose water ends as such a layer, read -22 % (phi) or -37 %
// (rho) at 1 s, and -0.2 % with shares. Packed particles count less (they fill
// fewer bulk cells, and a cell holds at most f dx^3), which is what
// `particle_volume` beside it shows; particles spread apart in the bulk count
// more (the solve sees the space between them as liquid). Why f and not the
// cell's centre: counting a cell whole when its centre is open and not at all
// otherwise is right on average beside a thick solid, but a wall thinner than a
// cell on a node plane counted as water (still water beside a wall 0.9 cells
// thick read +5.3 %), and a moving wall's face changed the reading each time it
// crossed a cell centre.
//
// `apart` (optional): cells the caller counts itself, region by region
// (fluid/volume.hpp: the cells a thin wall splits or covers in part). In the
// shares each such cell stands for its regions: a particle's kernel weight
// there goes to the region on the particle's side (apart->region, whatever the
// reach bits say: the region is the side test) times that region's volume, and
// the particles inside spread over the cells and regions around like any other.
// So no share is lost or doubled where a particle beside a split cell would
// reach into it (renormalised into the particle's own cell, such shares went
// over its cap f: the soft half-cell wall read -0.63 % at its first impact,
// -0.11 % with the regions' shares). A cell's bulk test asks
// apart->bulk_across about a neighbour among them, and apart->volume adds
// theirs.
// Per cell counted apart (linear index), the particles' shares per region [cells].
using RegionShares = std::unordered_map<Index, std::vector<Real>>;
struct CountedApart {
  grid::Array3<char> cells;  // cell shape; 1: counted apart
  // What the callbacks below read: the cells' rho
  // (liquid_fraction_from_particles) and the regions' shares.
  struct Densities {
    const grid::Array3<Real>& rho;
    const RegionShares& shares;
  };
  // The region of the cell counted apart `cell` that a particle at x [m]
  // spreads its share into (its own, or the one on its side), and that
  // region's volume [cells]; volume 0: none.
  std::function<std::pair<int, Real>(Index cell, const Vec3& x)> region;
  // Whether the liquid across the face of `cell` on `side` (-1, 1) of `axis`,
  // in the cell counted apart there, is bulk.
  std::function<bool(const Densities& d, const Vec3i& cell, int axis, int side)> bulk_across;
  // The volume of the cells counted apart [cells].
  std::function<Real(const Densities& d)> volume;
};
Real liquid_volume_from_particles(const grid::MacGrid& grid, const Points& particles,
                                  Real particle_volume, const grid::Array3<Real>& solid_phi,
                                  const NeighbourReach& reach = {}, const CountedApart* apart = nullptr);

// Extends the liquid SDF into the solid and closes one-cell holes, so that
// the active cells are the paper's (Zarifi & Batty 2017, Sec. 7). `fractions`
// are the open face fractions; "neighbour" below means a
// face neighbour through a face with open fraction > 0.
//
// 1. A cell whose centre lies inside the solid (mean of its 8 node values of
//    `solid_phi` < 0) has no particles near its centre, so the particle SDF there
//    says "air" even when the cell holds liquid. Its phi becomes the mean phi of its
//    neighbours outside the solid; cells with no such neighbour take the mean over
//    the solid cells set before them (up to SOLID_EXTENSION_LAYERS layers). The mean
//    is exact for a flat surface when the neighbours are symmetric, and a cell
//    surrounded by liquid always stays liquid (a linear extrapolation would not:
//    phi is capped at about -dx/2 inside the liquid, not a distance). A solid cell reached by
//    no layer keeps Batty's rule: liquid (phi = -dx/2) when phi < dx/2.
// 2. An air cell (phi >= 0) all of whose neighbours (at least one) are liquid is a
//    hole of the union of balls, not a resolvable bubble; it gets the mean phi of
//    its neighbours (negative).
// Why: left as air, such cells put a p = 0 free surface inside the liquid or on the
// wall, and the ghost-fluid gradient across it (often a sliver of a face) drives
// spurious jets.
void extend_liquid_into_solid(const grid::MacGrid& grid, const grid::Array3<Real>& solid_phi,
                              const std::array<grid::Array3<Real>, 3>& fractions,
                              grid::Array3<Real>& phi);

// The solid SDF at a cell centre: the mean of the cell's 8 node samples [m].
Real solid_phi_at_cell(const grid::Array3<Real>& solid_phi, int i, int j, int k);

}  // namespace fsicut::levelset
