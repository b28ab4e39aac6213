#include "lib/levelset/liquid_sdf.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "lib/core/parallel.hpp"
#include "lib/levelset/particle_buckets.hpp"
#include "lib/levelset/solid_sdf.hpp"

namespace fsicut::levelset {
namespace {

// Particles farther than this many cells (Chebyshev) from a cell are never
// visited: the SDF is exact up to (SEARCH - 1/2) dx from a cell centre. Also the
// band of the buckets' `near` cells, outside which every stage here has nothing
// to do (the kernel's support is 1 cell, its normalisation reads 1 more, the
// union of balls searches 2).
constexpr int LIQUID_SEARCH_CELLS = 2;

}  // namespace

Real particle_radius(const grid::MacGrid& grid) { return PARTICLE_RADIUS_CELLS * grid.dx; }

namespace {

// The union of balls at the cells where `wanted` is set (all cells when null);
// the others get the far value.
void union_of_balls(const grid::MacGrid& grid, const Points& particles, const ParticleBuckets& buckets,
                    Real radius, const grid::Array3<char>* wanted, grid::Array3<Real>& phi) {
  phi.resize(grid.cell_shape());
  const auto& start = buckets.start;
  const auto& order = buckets.order;
  const Real dx = grid.dx;
  const Real far = (LIQUID_SEARCH_CELLS + 0.5) * dx;
  // Cells outside the band are far from the liquid and skip the search.
  const grid::Array3<char>& near = buckets.near;
  parallel_for(0, grid.cell_count(), [&](Index idx) {
    if (!near[idx] || (wanted && !(*wanted)[idx])) {
      phi[idx] = far - radius;
      return;
    }
    const Vec3i c = phi.coord(idx);
    const Vec3 x = grid.cell_center(c.x(), c.y(), c.z());
    Real best2 = far * far;
    // Visit shells of growing Chebyshev radius m; every particle in shell m is at
    // least (m - 1/2) dx away, so stop once the best distance beats that.
    for (int m = 0; m <= LIQUID_SEARCH_CELLS; ++m) {
      const Real shell_min = std::max(Real(0), (m - 0.5) * dx);
      if (best2 <= shell_min * shell_min) break;
      for (int dk = -m; dk <= m; ++dk)
        for (int dj = -m; dj <= m; ++dj)
          for (int di = -m; di <= m; ++di) {
            if (std::max({std::abs(di), std::abs(dj), std::abs(dk)}) != m) continue;
            const int i = c.x() + di, j = c.y() + dj, k = c.z() + dk;
            if (!phi.inside(i, j, k)) continue;
            const Index cell = phi.index(i, j, k);
            for (Index s = start[cell]; s < start[cell + 1]; ++s)
              best2 = std::min(best2, (particles.col(order[s]) - x).squaredNorm());
          }
    }
    phi[idx] = std::min(std::sqrt(best2), far) - radius;
  });
}

// Open-space quadrature points per cell and axis (2: the default seeding's
// sub-cell centres, so a seeded region normalises exactly).
constexpr int QUADRATURE = 2;
static_assert(QUADRATURE == 2, "the open bits and their 1/4, 3/4 weights assume 2 points per axis");

// The kernel integrated over the open quadrature points of a neighbour cell, seen
// from a cell centre: entry [o][bits] for the neighbour at offset (di, dj, dk) in
// {-1, 0, 1}^3, o = (di + 1) + 3 (dj + 1) + 9 (dk + 1), whose open points are
// `bits` (bit s_x + 2 s_y + 4 s_z). Point s of neighbour n sits at
// t = n + (s + 1/2) / 2 - 1/2 cells; each 1D weight is divided by 2 (the points
// per axis), so the entries for bits = 0xFF over the 27 offsets sum to 1.
using SpaceTable = std::array<std::array<Real, 256>, 27>;
SpaceTable space_table() {
  std::array<Real, 6> w{};  // entry 2 (n + 1) + s
  for (int n = -1; n <= 1; ++n)
    for (int s = 0; s < QUADRATURE; ++s)
      w[2 * (n + 1) + s] = colour_kernel(n + (s + 0.5) / QUADRATURE - 0.5) / QUADRATURE;
  SpaceTable table{};
  for (int o = 0; o < 27; ++o) {
    const int di = o % 3, dj = (o / 3) % 3, dk = o / 9;
    for (unsigned bits = 0; bits < 256; ++bits)
      for (int b = 0; b < 8; ++b)
        if (bits & (1u << b))
          table[o][bits] += w[2 * di + (b & 1)] * w[2 * dj + ((b >> 1) & 1)] * w[2 * dk + ((b >> 2) & 1)];
  }
  return table;
}

// Cells whose centre is farther than this from every solid [cells] have all eight
// quadrature points open (a point is within sqrt(3)/4 dx of its cell's centre; the
// margin covers SDFs that are distances only near the surface).
constexpr Real FAR_FROM_SOLID_CELLS = 1.5;

std::uint32_t reached(const NeighbourReach& reach, Index cell) {
  return reach.cells.count() > 0 ? reach.cells[cell] : REACH_ALL;
}

// Calls f(cell index, W) for the cells of the 3 x 3 x 3 block around cell
// (i, j, k) that hold particle x in the grid and that the particle reaches
// (`to`: reach bits), W its colour kernel weight there.
template <typename F>
void for_each_kernel_cell(const grid::MacGrid& grid, const Vec3& x, int i, int j, int k, std::uint32_t to, F&& f) {
  const Vec3i size = grid.cell_shape();
  const Vec3 t = (x - grid.cell_center(i, j, k)) * (1 / grid.dx);
  std::array<Real, 3> wx, wy, wz;
  for (int d = -1; d <= 1; ++d) {
    wx[d + 1] = colour_kernel(t.x() - d);
    wy[d + 1] = colour_kernel(t.y() - d);
    wz[d + 1] = colour_kernel(t.z() - d);
  }
  for (int dk = -1; dk <= 1; ++dk) {
    if (k + dk < 0 || k + dk >= size.z()) continue;
    for (int dj = -1; dj <= 1; ++dj) {
      if (j + dj < 0 || j + dj >= size.y()) continue;
      const Real wyz = wy[dj + 1] * wz[dk + 1];
      for (int di = -1; di <= 1; ++di)
        if (i + di >= 0 && i + di < size.x() && (to >> reach_bit(di, dj, dk) & 1))
          f(i + di + static_cast<Index>(size.x()) * (j + dj + static_cast<Index>(size.y()) * (k + dk)), wx[di + 1] * wyz);
    }
  }
}

// The reach bits of the particle at position q of the buckets, in `cell`.
std::uint32_t particle_reach(const NeighbourReach& reach, const ParticleBuckets& buckets, Index cell, Index q) {
  return reach.particles.empty() ? reached(reach, cell) : reach.particles[static_cast<std::size_t>(buckets.order[q])];
}

// The particles' kernel sum, scattered from each particle to the 3 x 3 x 3 cells
// around its own (the kernel's support), each particle's weights times
// scale[particle] when `scale` is given. Slabs of cells along z in three passes
// (k mod 3): a slab writes only to its own and the two adjacent slabs, so the
// slabs of one pass never write to the same cell, and every cell receives its
// terms in the same order for any thread count.
grid::Array3<Real> kernel_mass(const grid::MacGrid& grid, const Points& particles, const ParticleBuckets& buckets,
                               const NeighbourReach& reach, const std::vector<Real>* scale = nullptr) {
  const Vec3i size = grid.cell_shape();
  grid::Array3<Real> mass(size, 0);
  for (int pass = 0; pass < 3; ++pass) {
    const Index slabs = (size.z() - pass + 2) / 3;
    parallel_for(0, slabs, [&](Index s) {
      const int k = pass + 3 * static_cast<int>(s);
      for (int j = 0; j < size.y(); ++j)
        for (int i = 0; i < size.x(); ++i) {
          const Index cell = mass.index(i, j, k);
          for (Index q = buckets.start[cell]; q < buckets.start[cell + 1]; ++q) {
            const Index p = buckets.order[q];
            const Real factor = scale ? (*scale)[static_cast<std::size_t>(p)] : 1;
            if (factor == 0) continue;
            for_each_kernel_cell(grid, particles.col(p), i, j, k, particle_reach(reach, buckets, cell, q),
                                 [&](Index c, Real w) { mass[c] += factor * w; });
          }
        }
    });
  }
  return mass;
}

// Each particle's share of its volume per cell, summed per cell [cells of
// liquid]: the particle's kernel weights over the cells it reaches, each times
// the cell's `space` (its open fraction; 0: not counted), divided by their
// sum, so every particle with such a cell adds exactly particle_volume / dx^3
// over the grid (a partition of unity per particle, at walls too, where the
// kernel sum of the cells is short), and a cell a solid fills in part gets
// the share of its open part. A cell counted apart (`apart`, optional) takes
// the place of one cell per region: the region on the particle's side
// (apart->region) with its volume as the space, its shares in `regions`.
grid::Array3<Real> particle_shares(const grid::MacGrid& grid, const Points& particles, const ParticleBuckets& buckets,
                                   const NeighbourReach& reach, const grid::Array3<Real>& space,
                                   Real particle_volume, const CountedApart* apart, RegionShares& regions) {
  const Real cells = particle_volume / (grid.dx * grid.dx * grid.dx);
  // Per particle beside a cell counted apart, its kernel's terms there: the
  // region on its side and W V_r, for every such cell its kernel touches
  // (whatever the reach bits say: apart->region is the side test). Found once:
  // apart->region is a geometric query.
  struct Term {
    Index cell;
    int region;
    Real weight;
  };
  std::vector<std::vector<Term>> terms;
  grid::Array3<char> beside;  // the cells within 1 of one counted apart
  if (apart) {
    terms.resize(static_cast<std::size_t>(particles.cols()));
    beside = apart->cells;
    grid::dilate(beside, 1);
    parallel_for(0, beside.count(), [&](Index cell) {
      if (!beside[cell]) return;
      const Vec3i c = beside.coord(cell);
      std::uint32_t to = 0;
      for (int dk = -1; dk <= 1; ++dk)
        for (int dj = -1; dj <= 1; ++dj)
          for (int di = -1; di <= 1; ++di)
            if (space.inside(c.x() + di, c.y() + dj, c.z() + dk) && apart->cells(c.x() + di, c.y() + dj, c.z() + dk))
              to |= 1u << reach_bit(di, dj, dk);
      for (Index q = buckets.start[cell]; q < buckets.start[cell + 1]; ++q) {
        const Index p = buckets.order[q];
        const Vec3 x = particles.col(p);
        for_each_kernel_cell(grid, x, c.x(), c.y(), c.z(), to, [&](Index n, Real w) {
          const auto [r, volume] = apart->region(n, x);
          if (volume > 0) terms[static_cast<std::size_t>(p)].push_back({n, r, w * volume});
        });
      }
    });
  }
  std::vector<Real> scale(static_cast<std::size_t>(particles.cols()), 0);
  parallel_for(0, space.count(), [&](Index cell) {
    const Vec3i c = space.coord(cell);
    for (Index q = buckets.start[cell]; q < buckets.start[cell + 1]; ++q) {
      const Index p = buckets.order[q];
      Real sum = 0;  // the cells counted apart have space 0 here
      for_each_kernel_cell(grid, particles.col(p), c.x(), c.y(), c.z(), particle_reach(reach, buckets, cell, q),
                           [&](Index n, Real w) { sum += w * space[n]; });
      if (apart)
        for (const Term& t : terms[static_cast<std::size_t>(p)]) sum += t.weight;
      scale[static_cast<std::size_t>(p)] = sum > 0 ? cells / sum : 0;
    }
  });
  grid::Array3<Real> shares = kernel_mass(grid, particles, buckets, reach, &scale);
  parallel_for(0, shares.count(), [&](Index n) { shares[n] *= space[n]; });
  regions.clear();
  if (!apart) return shares;
  for (Index cell = 0; cell < beside.count(); ++cell) {  // serial: the sums' order is fixed
    if (!beside[cell]) continue;
    for (Index q = buckets.start[cell]; q < buckets.start[cell + 1]; ++q) {
      const Index p = buckets.order[q];
      for (const Term& t : terms[static_cast<std::size_t>(p)]) {
        std::vector<Real>& mine = regions[t.cell];
        if (static_cast<int>(mine.size()) <= t.region) mine.resize(static_cast<std::size_t>(t.region) + 1, 0);
        mine[static_cast<std::size_t>(t.region)] += scale[static_cast<std::size_t>(p)] * t.weight;
      }
    }
  }
  return shares;
}

// Which of each cell's 2 x 2 x 2 quadrature points are open: bit s_x + 2 s_y + 4 s_z.
// Read only around cells with mass (within 1 of a particle's cell): in the band.
grid::Array3<unsigned char> open_points(const grid::MacGrid& grid, const ParticleBuckets& buckets,
                                        const grid::Array3<Real>& solid_phi) {
  grid::Array3<unsigned char> open(grid.cell_shape(), 0xFF);
  parallel_for(0, open.count(), [&](Index idx) {
    if (!buckets.near[idx]) return;
    const Vec3i c = open.coord(idx);
    if (solid_phi_at_cell(solid_phi, c.x(), c.y(), c.z()) > FAR_FROM_SOLID_CELLS * grid.dx) return;
    // Trilinear interpolation of the cell's corner values at the points, which sit
    // at 1/4 and 3/4 of the cell per axis.
    Real corner[8];
    for (int b = 0; b < 8; ++b) corner[b] = solid_phi(c.x() + (b & 1), c.y() + ((b >> 1) & 1), c.z() + ((b >> 2) & 1));
    unsigned char bits = 0;
    for (int b = 0; b < 8; ++b) {
      Real value = 0;
      for (int v = 0; v < 8; ++v) {
        Real weight = 1;
        for (int a = 0; a < 3; ++a) weight *= ((b >> a) & 1) == ((v >> a) & 1) ? 0.75 : 0.25;
        value += weight * corner[v];
      }
      if (value > 0) bits |= 1u << b;
    }
    open[idx] = bits;
  });
  return open;
}

void fraction(const grid::MacGrid& grid, const Points& particles, const ParticleBuckets& buckets,
              Real particle_volume, const grid::Array3<Real>& solid_phi, const NeighbourReach& reach,
              grid::Array3<Real>& rho) {
  const Vec3i size = grid.cell_shape();
  const Real dx = grid.dx;
  const grid::Array3<Real> mass = kernel_mass(grid, particles, buckets, reach);
  const grid::Array3<unsigned char> open = open_points(grid, buckets, solid_phi);
  static const SpaceTable table = space_table();
  const Real scale = particle_volume / (dx * dx * dx);
  rho.resize(size);
  parallel_for(0, rho.count(), [&](Index idx) {
    if (mass[idx] == 0) {  // rho = 0 whatever the open space
      rho[idx] = 0;
      return;
    }
    const Vec3i c = rho.coord(idx);
    const std::uint32_t to = reached(reach, idx);
    const auto part = reach.partial.empty() ? reach.partial.end() : reach.partial.find(idx);
    Real space = 0;
    for (int dk = -1; dk <= 1; ++dk)
      for (int dj = -1; dj <= 1; ++dj)
        for (int di = -1; di <= 1; ++di) {
          const int i = c.x() + di, j = c.y() + dj, k = c.z() + dk;
          const int o = reach_bit(di, dj, dk);
          if (!rho.inside(i, j, k)) continue;
          const unsigned char seen = part != reach.partial.end() ? part->second[static_cast<std::size_t>(o)] : 0xFF;
          if (to >> o & 1 || part != reach.partial.end()) space += table[o][open(i, j, k) & seen];
        }
    rho[idx] = space >= COLOUR_MIN_OPEN ? scale * mass[idx] / space : 0;
  });
}

// Cells with a cell of liquid bulk (rho >= 1/2) in the 3 x 3 x 3 block around.
grid::Array3<char> near_bulk(const grid::Array3<Real>& rho) {
  grid::Array3<char> bulk(rho.size());
  parallel_for(0, rho.count(), [&](Index idx) { bulk[idx] = rho[idx] >= 0.5; });
  grid::dilate(bulk, 1);
  return bulk;
}

}  // namespace

void liquid_sdf_from_particles(const grid::MacGrid& grid, const Points& particles, Real radius,
                               grid::Array3<Real>& phi) {
  union_of_balls(grid, particles, bucket_particles(grid, particles, LIQUID_SEARCH_CELLS), radius, nullptr, phi);
}

void liquid_fraction_from_particles(const grid::MacGrid& grid, const Points& particles,
                                    Real particle_volume, const grid::Array3<Real>& solid_phi,
                                    grid::Array3<Real>& rho, const NeighbourReach& reach) {
  fraction(grid, particles, bucket_particles(grid, particles, LIQUID_SEARCH_CELLS), particle_volume, solid_phi, reach,
           rho);
}

void liquid_phi_from_particles(const grid::MacGrid& grid, const Points& particles,
                               Real particle_volume, Real radius,
                               const grid::Array3<Real>& solid_phi, grid::Array3<Real>& phi,
                               const NeighbourReach& reach) {
  const ParticleBuckets buckets = bucket_particles(grid, particles, LIQUID_SEARCH_CELLS);
  grid::Array3<Real> rho;
  fraction(grid, particles, buckets, particle_volume, solid_phi, reach, rho);
  const grid::Array3<char> bulk = near_bulk(rho);
  grid::Array3<char> drops(bulk.size());
  parallel_for(0, bulk.count(), [&](Index idx) { drops[idx] = !bulk[idx]; });
  union_of_balls(grid, particles, buckets, radius, &drops, phi);
  const Real slope = grid.dx / COLOUR_KERNEL_CENTRE;
  parallel_for(0, phi.count(), [&](Index idx) {
    const Real colour = (0.5 - rho[idx]) * slope;
    phi[idx] = bulk[idx] ? colour : std::min(colour, phi[idx]);
  });
}

Real liquid_volume_from_particles(const grid::MacGrid& grid, const Points& particles,
                                  Real particle_volume, const grid::Array3<Real>& solid_phi,
                                  const NeighbourReach& reach, const CountedApart* apart) {
  const ParticleBuckets buckets = bucket_particles(grid, particles, LIQUID_SEARCH_CELLS);
  grid::Array3<Real> rho;
  fraction(grid, particles, buckets, particle_volume, solid_phi, reach, rho);
  const grid::Array3<char>* set_apart = apart ? &apart->cells : nullptr;
  grid::Array3<Real> space(rho.size());  // open fraction; 0 for the cells counted apart
  parallel_for(0, space.count(), [&](Index idx) {
    const Vec3i c = space.coord(idx);
    space[idx] = set_apart && (*set_apart)[idx] ? 0 : cell_open_fraction(solid_phi, c.x(), c.y(), c.z());
  });
  RegionShares regions;
  const grid::Array3<Real> shares = particle_shares(grid, particles, buckets, reach, space, particle_volume, apart, regions);
  auto open_cell = [&](const Vec3i& c) { return space.inside(c.x(), c.y(), c.z()) && space(c) > 0; };
  Real cells = 0;  // serial: the summation order, hence the result, is thread-independent
  for (Index n = 0; n < rho.count(); ++n) {
    if (!(space[n] > 0)) continue;
    const Vec3i c = rho.coord(n);
    bool interior = rho[n] >= 0.5;
    for (int a = 0; a < 3 && interior; ++a)
      for (int side : {-1, 1}) {
        Vec3i nb = c;
        nb[a] += side;
        if (open_cell(nb) && rho(nb) < 0.5) interior = false;
        if (set_apart && space.inside(nb.x(), nb.y(), nb.z()) && (*set_apart)(nb) && !apart->bulk_across({rho, regions}, c, a, side))
          interior = false;
      }
    cells += interior ? space[n] : std::min(shares[n], space[n]);
  }
  if (apart) cells += apart->volume({rho, regions});
  return cells * grid.dx * grid.dx * grid.dx;
}

}  // namespace fsicut::levelset
