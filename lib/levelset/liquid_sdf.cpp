#include "lib/levelset/liquid_sdf.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "lib/core/parallel.hpp"

namespace fsicut::levelset {
namespace {

// Particles farther than this many cells (Chebyshev) from a cell are never
// visited: the SDF is exact up to (SEARCH - 1/2) dx from a cell centre.
constexpr int LIQUID_SEARCH_CELLS = 2;
// Layers of cells inside the solid that get their liquid SDF by extrapolation:
// enough to cross the cells a sloped wall cuts (a cell whose centre is inside the
// solid can have open faces only to other such cells, up to about two deep).
constexpr int SOLID_EXTENSION_LAYERS = 3;


}  // namespace

Real particle_radius(const grid::MacGrid& grid) { return PARTICLE_RADIUS_CELLS * grid.dx; }

namespace {

// Particles bucketed by cell: the particles of cell c are order[start[c] .. start[c+1]).
struct Buckets {
  std::vector<Index> start, order;
};

Buckets bucket_particles(const grid::MacGrid& grid, const Points& particles) {
  const Index cells = grid.cell_count();
  const Index np = particles.cols();
  const grid::Array3<char> shape(grid.cell_size());
  std::vector<Index> cell_of(np);
  parallel_for(0, np, [&](Index p) {
    const Vec3i c = grid.cell_of(particles.col(p));
    cell_of[p] = shape.index(c.x(), c.y(), c.z());
  });
  // Counting sort: serial, O(n), stable, so the result is thread-independent.
  Buckets b;
  b.start.assign(cells + 1, 0);
  for (Index p = 0; p < np; ++p) ++b.start[cell_of[p] + 1];
  std::partial_sum(b.start.begin(), b.start.end(), b.start.begin());
  b.order.resize(np);
  std::vector<Index> fill(b.start.begin(), b.start.end() - 1);
  for (Index p = 0; p < np; ++p) b.order[fill[cell_of[p]]++] = p;
  return b;
}

}  // namespace

void liquid_sdf_from_particles(const grid::MacGrid& grid, const Points& particles, Real radius,
                               grid::Array3<Real>& phi) {
  phi.resize(grid.cell_size());
  const Buckets buckets = bucket_particles(grid, particles);
  const auto& start = buckets.start;
  const auto& order = buckets.order;
  const Real dx = grid.dx;
  const Real far = (LIQUID_SEARCH_CELLS + 0.5) * dx;
  // Cells with a particle within LIQUID_SEARCH_CELLS (Chebyshev): occupancy dilated
  // axis by axis. The others are far from the liquid and skip the search.
  grid::Array3<char> near(grid.cell_size(), 0);
  for (Index c = 0; c < grid.cell_count(); ++c) near[c] = start[c + 1] > start[c];
  for (int a = 0; a < 3; ++a) {
    const grid::Array3<char> before = near;
    parallel_for(0, near.count(), [&](Index idx) {
      if (before[idx]) return;
      const Vec3i c = near.coord(idx);
      for (int d = -LIQUID_SEARCH_CELLS; d <= LIQUID_SEARCH_CELLS; ++d) {
        Vec3i n = c;
        n[a] += d;
        if (near.inside(n.x(), n.y(), n.z()) && before(n)) {
          near[idx] = 1;
          return;
        }
      }
    });
  }
  parallel_for(0, grid.cell_count(), [&](Index idx) {
    if (!near[idx]) {
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

namespace {

// The quadratic B-spline, support |t| < 3/2 (t in cells); its integer translates
// sum to 1.
Real bspline2(Real t) {
  t = std::abs(t);
  if (t < 0.5) return 0.75 - t * t;
  if (t < 1.5) return 0.5 * (1.5 - t) * (1.5 - t);
  return 0;
}

// Open-space quadrature points per cell and axis (2: the default seeding's
// sub-cell centres, so a seeded region normalises exactly) and their kernel
// weights seen from a cell centre: neighbour offset n in {-1, 0, 1}, point s in
// {0, 1} at t = n + (s + 1/2) / 2 - 1/2, entry 2 (n + 1) + s. Each weight is
// divided by 2 (the points per axis), so the six sum to 1.
constexpr int QUADRATURE = 2;
std::array<Real, 6> quadrature_weights() {
  std::array<Real, 6> w{};
  for (int n = -1; n <= 1; ++n)
    for (int s = 0; s < QUADRATURE; ++s)
      w[2 * (n + 1) + s] = bspline2(n + (s + 0.5) / QUADRATURE - 0.5) / QUADRATURE;
  return w;
}

// Cells whose centre is farther than this from every solid [cells] have all eight
// quadrature points open (a point is within sqrt(3)/4 dx of its cell's centre; the
// margin covers SDFs that are distances only near the surface).
constexpr Real FAR_FROM_SOLID_CELLS = 1.5;

// Whether a cell of the 3 x 3 x 3 block around c is liquid bulk (rho >= 1/2).
bool near_bulk(const grid::Array3<Real>& rho, const Vec3i& c) {
  for (int dk = -1; dk <= 1; ++dk)
    for (int dj = -1; dj <= 1; ++dj)
      for (int di = -1; di <= 1; ++di) {
        const int i = c.x() + di, j = c.y() + dj, k = c.z() + dk;
        if (rho.inside(i, j, k) && rho(i, j, k) >= 0.5) return true;
      }
  return false;
}

}  // namespace

void liquid_fraction_from_particles(const grid::MacGrid& grid, const Points& particles,
                                    Real particle_volume, const grid::Array3<Real>& solid_phi,
                                    grid::Array3<Real>& rho) {
  rho.resize(grid.cell_size());
  const Buckets buckets = bucket_particles(grid, particles);
  const auto& start = buckets.start;
  const auto& order = buckets.order;
  const Real dx = grid.dx;
  const Real inv_dx = 1 / dx;
  const Real scale = particle_volume / (dx * dx * dx);

  // Which of each cell's 2 x 2 x 2 quadrature points are open: bit s_x + 2 s_y + 4 s_z.
  grid::Array3<unsigned char> open(grid.cell_size(), 0xFF);
  parallel_for(0, open.count(), [&](Index idx) {
    const Vec3i c = open.coord(idx);
    if (solid_phi_at_cell(solid_phi, c.x(), c.y(), c.z()) > FAR_FROM_SOLID_CELLS * dx) return;
    const Vec3 corner = grid.node_position(c.x(), c.y(), c.z());
    unsigned char bits = 0;
    for (int b = 0; b < 8; ++b) {
      const Vec3 local((b & 1) + 0.5, ((b >> 1) & 1) + 0.5, ((b >> 2) & 1) + 0.5);
      const Vec3 x = corner + (dx / QUADRATURE) * local;
      if (grid::interpolate(grid, solid_phi, grid::Sampling::node, x) > 0) bits |= 1u << b;
    }
    open[idx] = bits;
  });

  const std::array<Real, 6> w = quadrature_weights();
  parallel_for(0, rho.count(), [&](Index idx) {
    const Vec3i c = rho.coord(idx);
    Real mass = 0, space = 0;
    for (int dk = -1; dk <= 1; ++dk)
      for (int dj = -1; dj <= 1; ++dj)
        for (int di = -1; di <= 1; ++di) {
          const int i = c.x() + di, j = c.y() + dj, k = c.z() + dk;
          if (!rho.inside(i, j, k)) continue;
          const Index cell = rho.index(i, j, k);
          const unsigned bits = open[cell];
          for (int b = 0; b < 8; ++b)
            if (bits & (1u << b))
              space += w[2 * (di + 1) + (b & 1)] * w[2 * (dj + 1) + ((b >> 1) & 1)] *
                       w[2 * (dk + 1) + ((b >> 2) & 1)];
          if (start[cell] == start[cell + 1]) continue;
          const Vec3 x = grid.cell_center(c.x(), c.y(), c.z());
          for (Index s = start[cell]; s < start[cell + 1]; ++s) {
            const Vec3 d = (particles.col(order[s]) - x) * inv_dx;
            mass += bspline2(d.x()) * bspline2(d.y()) * bspline2(d.z());
          }
        }
    rho[idx] = space >= COLOUR_MIN_OPEN ? scale * mass / space : 0;
  });
}

void liquid_phi_from_particles(const grid::MacGrid& grid, const Points& particles,
                               Real particle_volume, Real radius,
                               const grid::Array3<Real>& solid_phi, grid::Array3<Real>& phi) {
  grid::Array3<Real> rho;
  liquid_fraction_from_particles(grid, particles, particle_volume, solid_phi, rho);
  liquid_sdf_from_particles(grid, particles, radius, phi);
  const Real slope = grid.dx / COLOUR_KERNEL_CENTRE;
  parallel_for(0, phi.count(), [&](Index idx) {
    const Real colour = (0.5 - rho[idx]) * slope;
    phi[idx] = near_bulk(rho, phi.coord(idx)) ? colour : std::min(colour, phi[idx]);
  });
}

Real liquid_volume_from_particles(const grid::MacGrid& grid, const Points& particles,
                                  Real particle_volume, const grid::Array3<Real>& solid_phi) {
  grid::Array3<Real> rho;
  liquid_fraction_from_particles(grid, particles, particle_volume, solid_phi, rho);
  const Buckets buckets = bucket_particles(grid, particles);
  const Real cell_volume = grid.dx * grid.dx * grid.dx;
  auto open_cell = [&](const Vec3i& c) {
    return rho.inside(c.x(), c.y(), c.z()) && solid_phi_at_cell(solid_phi, c.x(), c.y(), c.z()) >= 0;
  };
  Real cells = 0;  // serial: the summation order, hence the result, is thread-independent
  Index drops = 0;
  for (Index n = 0; n < rho.count(); ++n) {
    const Vec3i c = rho.coord(n);
    if (!open_cell(c)) continue;
    if (!near_bulk(rho, c)) {
      drops += buckets.start[n + 1] - buckets.start[n];
      continue;
    }
    bool interior = rho[n] >= 0.5;
    for (int a = 0; a < 3 && interior; ++a)
      for (int side : {-1, 1}) {
        Vec3i nb = c;
        nb[a] += side;
        if (open_cell(nb) && rho(nb) < 0.5) interior = false;
      }
    const Real phi_cells = (0.5 - rho[n]) / COLOUR_KERNEL_CENTRE;
    cells += interior ? 1.0 : std::clamp(0.5 - phi_cells, 0.0, 1.0);
  }
  return cells * cell_volume + drops * particle_volume;
}

Real solid_phi_at_cell(const grid::Array3<Real>& s, int i, int j, int k) {
  return 0.125 * (s(i, j, k) + s(i + 1, j, k) + s(i, j + 1, k) + s(i + 1, j + 1, k) +
                  s(i, j, k + 1) + s(i + 1, j, k + 1) + s(i, j + 1, k + 1) + s(i + 1, j + 1, k + 1));
}

void extend_liquid_into_solid(const grid::MacGrid& grid, const grid::Array3<Real>& solid_phi,
                              const std::array<grid::Array3<Real>, 3>& fractions,
                              grid::Array3<Real>& phi) {
  const Real half = 0.5 * grid.dx;
  const Vec3i size = phi.size();
  grid::Array3<char> in_solid(size, 0);
  parallel_for(0, phi.count(), [&](Index idx) {
    const Vec3i c = phi.coord(idx);
    in_solid[idx] = solid_phi_at_cell(solid_phi, c.x(), c.y(), c.z()) < 0;
  });
  // The neighbour of c on `side` of `axis` if it exists and the face between is open.
  auto open_neighbour = [&](const Vec3i& c, int axis, int side, Vec3i& nb) {
    nb = c;
    nb[axis] += side;
    if (!phi.inside(nb.x(), nb.y(), nb.z())) return false;
    Vec3i face = c;
    if (side > 0) face[axis] += 1;
    return fractions[axis](face) > 0;
  };

  // 1. Cells inside the solid, in layers: each layer extrapolates from the cells
  // known so far (outside the solid, or set by an earlier layer).
  grid::Array3<char> known(size, 0);
  for (Index idx = 0; idx < phi.count(); ++idx) known[idx] = !in_solid[idx];
  grid::Array3<Real> original = phi;
  for (int layer = 0; layer < SOLID_EXTENSION_LAYERS; ++layer) {
    const grid::Array3<char> known_before = known;
    parallel_for(0, phi.count(), [&](Index idx) {
      if (known_before[idx]) return;
      const Vec3i c = phi.coord(idx);
      Real sum = 0;
      int count = 0;
      for (int a = 0; a < 3; ++a)
        for (int side : {-1, 1}) {
          Vec3i n;
          if (!open_neighbour(c, a, side, n) || !known_before(n)) continue;
          sum += original(n);
          ++count;
        }
      if (count > 0) {
        phi[idx] = sum / count;
        known[idx] = 1;
      }
    });
    original = phi;
  }
  parallel_for(0, phi.count(), [&](Index idx) {
    if (!known[idx] && phi[idx] < half) phi[idx] = std::min(phi[idx], -half);
  });

  // 2. One-cell holes.
  original = phi;
  parallel_for(0, phi.count(), [&](Index idx) {
    if (original[idx] < 0) return;
    const Vec3i c = phi.coord(idx);
    Real sum = 0;
    int count = 0;
    for (int a = 0; a < 3; ++a)
      for (int side : {-1, 1}) {
        Vec3i n;
        if (!open_neighbour(c, a, side, n)) continue;
        if (!(original(n) < 0)) return;
        sum += original(n);
        ++count;
      }
    if (count > 0) phi[idx] = sum / count;
  });
}

}  // namespace fsicut::levelset
