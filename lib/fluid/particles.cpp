#include "lib/fluid/particles.hpp"

#include <algorithm>
#include <cmath>

#include "lib/core/parallel.hpp"

namespace fsicut::fluid {
namespace {

// Jitter of a seeded particle as a fraction of its sub-cell edge (total range).
// Why not 1 (uniform in the sub-cell): two neighbouring particles could then sit a
// full cell apart and leave holes in the union-of-balls liquid SDF.
constexpr Real SEED_JITTER = 0.5;
// Pushed-out particles land this fraction of a cell outside the solid surface, so
// round-off in the trilinear SDF does not leave them just inside.
constexpr Real PUSH_OUT_MARGIN_CELLS = 1e-3;
// Newton-like iterations of the push-out (one is exact for a planar SDF).
constexpr int PUSH_OUT_ITERATIONS = 3;

// splitmix64: a small, well-mixed hash used as a counter-based random generator.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
// Uniform in [0, 1) from a key.
Real uniform(std::uint64_t key) { return (mix(key) >> 11) * (1.0 / 9007199254740992.0); }

}  // namespace

Points seed_particles(const grid::MacGrid& grid, const Region& region, int per_cell, unsigned seed) {
  const Index cells = grid.cell_count();
  const int m = static_cast<int>(std::lround(std::cbrt(static_cast<double>(per_cell))));
  const bool lattice = m * m * m == per_cell;
  std::vector<Vec3> candidates(static_cast<std::size_t>(cells) * per_cell);
  std::vector<char> keep(candidates.size(), 0);
  const grid::Array3<char> shape(grid.cell_size());
  parallel_for(0, cells, [&](Index cell) {
    const Vec3i c = shape.coord(cell);
    const Vec3 corner = grid.node_position(c.x(), c.y(), c.z());
    for (int p = 0; p < per_cell; ++p) {
      const std::uint64_t key = (static_cast<std::uint64_t>(seed) << 40) ^
                                (static_cast<std::uint64_t>(cell) * per_cell + p) * 3;
      Vec3 r(uniform(key), uniform(key + 1), uniform(key + 2));
      const std::size_t slot = static_cast<std::size_t>(cell) * per_cell + p;
      if (!lattice) {
        candidates[slot] = corner + grid.dx * r;
        keep[slot] = region(candidates[slot]) ? 1 : 0;
        continue;
      }
      // A sub-cell is filled when its centre is in the region. With 8 per cell these
      // are the points where the liquid fraction measures open space
      // (levelset/liquid_sdf.hpp), so next to a wall the particles and the
      // normaliser count the same sub-cells; deciding by the jittered position
      // instead left contact-line cells a particle short or over, and still water
      // started with currents at the wall. The particle keeps its jitter unless
      // that takes it out of the region.
      const Vec3 sub(p % m, (p / m) % m, p / (m * m));
      const Vec3 centre = corner + grid.dx * (sub + Vec3::Constant(0.5)) / m;
      if (!region(centre)) continue;
      const Vec3 x = centre + grid.dx * SEED_JITTER * (r - Vec3::Constant(0.5)) / m;
      keep[slot] = 1;
      candidates[slot] = region(x) ? x : centre;
    }
  });
  Index n = 0;
  for (char k : keep) n += k;
  Points out(3, n);
  Index col = 0;
  for (std::size_t s = 0; s < candidates.size(); ++s)
    if (keep[s]) out.col(col++) = candidates[s];
  return out;
}

void advect_particles(const grid::MacGrid& grid, const grid::MacVelocity& u, Real dt,
                      Points& particles) {
  const Vec3 lo = grid.origin, hi = grid.max();
  parallel_for(0, particles.cols(), [&](Index p) {
    const Vec3 x = particles.col(p);
    const Vec3 mid = x + 0.5 * dt * grid::interpolate_velocity(grid, u, x);
    Vec3 y = x + dt * grid::interpolate_velocity(grid, u, mid);
    particles.col(p) = y.cwiseMax(lo).cwiseMin(hi);
  });
}

Vec3 node_field_gradient(const grid::MacGrid& grid, const grid::Array3<Real>& phi, const Vec3& x) {
  const Real h = 0.5 * grid.dx;
  Vec3 g;
  for (int a = 0; a < 3; ++a) {
    const Vec3 e = h * Vec3::Unit(a);
    g[a] = (grid::interpolate(grid, phi, grid::Sampling::node, x + e) -
            grid::interpolate(grid, phi, grid::Sampling::node, x - e)) /
           (2 * h);
  }
  return g;
}

Index push_particles_out(const grid::MacGrid& grid, const grid::Array3<Real>& solid_phi,
                         Points& particles) {
  const Real margin = PUSH_OUT_MARGIN_CELLS * grid.dx;
  const Vec3 lo = grid.origin, hi = grid.max();
  std::vector<char> moved(particles.cols(), 0);
  parallel_for(0, particles.cols(), [&](Index p) {
    Vec3 x = particles.col(p);
    for (int it = 0; it < PUSH_OUT_ITERATIONS; ++it) {
      const Real phi = grid::interpolate(grid, solid_phi, grid::Sampling::node, x);
      if (phi >= 0) break;
      const Vec3 g = node_field_gradient(grid, solid_phi, x);
      const Real g2 = g.squaredNorm();
      if (!(g2 > 0)) break;
      x -= (phi - margin) * g / g2;
      moved[p] = 1;
    }
    particles.col(p) = x.cwiseMax(lo).cwiseMin(hi);
  });
  Index count = 0;
  for (char c : moved) count += c;
  return count;
}

}  // namespace fsicut::fluid
