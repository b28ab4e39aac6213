#include "lib/fluid/particles.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <Eigen/Core>

#include "lib/core/parallel.hpp"
#include "lib/fluid/velocity.hpp"
#include "lib/levelset/liquid_sdf.hpp"

namespace fsicut::fluid {
namespace {

// Pushed-out particles land this fraction of a cell outside the solid surface, so
// round-off in the trilinear SDF does not leave them just inside.
constexpr Real PUSH_OUT_MARGIN_CELLS = 1e-3;
// Newton-like iterations of the push-out (one is exact for a planar SDF).
constexpr int PUSH_OUT_ITERATIONS = 3;


// The lattice colour match (seed_particles): Gauss-Newton rounds, conjugate-gradient
// iterations per round and the relative residual that ends a round, Levenberg-
// Marquardt damping (relative to the mean of diag J J^T), and the longest step of a
// particle per round [cells].
struct MatchEffort {
  int rounds, iterations;
  Real tolerance;
};
constexpr MatchEffort MATCH{2, 20, 1e-2};
// Beside solids thinner than a cell (`exact` cells given), where the jittered
// particles meet the exact ones: still water 10 cells deep beside a wall moved
// at 0.69 mm/s with MATCH and 0.34 with this (without a wall: 0.24 and 0.012
// mm/s). Only there: run for every scene it would add 11 s to the seeding of
// the paper's dam break at 100^3.
constexpr MatchEffort PRECISE_MATCH{4, 60, 1e-4};
constexpr Real MATCH_DAMPING = 1e-2;
constexpr Real MATCH_MAX_STEP = 0.125;


// One particle's kernel per axis at the 3 cells around its own (offset d + 1):
// values w and slopes s [1/cell].
struct Stencil {
  std::array<std::array<Real, 3>, 3> w, s;
  Real weight(int di, int dj, int dk) const { return w[0][di] * w[1][dj] * w[2][dk]; }
  Vec3 gradient(int di, int dj, int dk) const {
    return {s[0][di] * w[1][dj] * w[2][dk], w[0][di] * s[1][dj] * w[2][dk], w[0][di] * w[1][dj] * s[2][dk]};
  }
};
// `t`: the particle relative to its cell's centre [cells].
Stencil stencil(const Vec3& t) {
  Stencil k;
  for (int a = 0; a < 3; ++a)
    for (int d = -1; d <= 1; ++d) {
      k.w[a][d + 1] = levelset::colour_kernel(t[a] - d);
      k.s[a][d + 1] = levelset::colour_kernel_slope(t[a] - d);
    }
  return k;
}

// The seeded particles of a lattice by slot = cell * per_cell + sub-cell, and the
// band of cells where their kernel sum is matched. Operators on vectors over the
// rows; scatters run over z-slabs of cells in three passes (k mod 3) so no two
// threads write the same row and the sums do not depend on the thread count.
struct Band {
  const grid::MacGrid& grid;
  const grid::Array3<char>& shape;  // cell indexing
  int per_cell;
  std::vector<Vec3>& x;             // positions [m]
  std::vector<Index> movers;        // slots that may move, ascending
  std::vector<char> frozen;         // per mover
  std::vector<Index> slab_start;    // movers of cell layer k: [slab_start[k], slab_start[k + 1])
  std::vector<Index> rows;          // cells whose kernel sum is matched, ascending
  std::vector<Index> row_of;        // cell -> row, -1 if none
  Eigen::VectorXd fixed;            // the kernel sum at the rows of the particles that never move
  std::vector<Stencil> stencils;    // per mover, at its current position

  // The un-jittered position of particle `slot` [m].
  Vec3 lattice_centre(Index slot) const {
    return sub_cell_centre(grid, shape.coord(slot / per_cell), static_cast<int>(slot % per_cell), per_cell);
  }
  Vec3 local(Index slot) const {
    const Vec3i c = shape.coord(slot / per_cell);
    return (x[slot] - grid.cell_center(c.x(), c.y(), c.z())) / grid.dx;
  }
  void update_stencils() {
    stencils.resize(movers.size());
    parallel_for(0, static_cast<Index>(movers.size()), [&](Index m) { stencils[m] = stencil(local(movers[m])); });
  }
  // Calls f(row, di + 1, dj + 1, dk + 1) for the rows around mover m.
  template <class F>
  void rows_around(Index m, F&& f) const {
    const Vec3i c = shape.coord(movers[m] / per_cell);
    for (int dk = -1; dk <= 1; ++dk)
      for (int dj = -1; dj <= 1; ++dj)
        for (int di = -1; di <= 1; ++di)
          if (shape.inside(c.x() + di, c.y() + dj, c.z() + dk))
            f(row_of[shape.index(c.x() + di, c.y() + dj, c.z() + dk)], di + 1, dj + 1, dk + 1);
  }
  // out[row] += the terms value(m, di, dj, dk) of every mover around it.
  template <class F>
  void scatter(Eigen::VectorXd& out, F&& value) const {
    const Index layers = static_cast<Index>(slab_start.size()) - 1;
    for (Index pass = 0; pass < 3; ++pass)
      parallel_for(0, (layers - pass + 2) / 3, [&](Index s) {
        const Index k = pass + 3 * s;
        for (Index m = slab_start[k]; m < slab_start[k + 1]; ++m)
          rows_around(m, [&](Index r, int i, int j, int l) { out[r] += value(m, i, j, l); });
      });
  }
  // The kernel sums at the rows.
  Eigen::VectorXd colour() const {
    Eigen::VectorXd sum = fixed;
    scatter(sum, [&](Index m, int i, int j, int k) { return stencils[m].weight(i, j, k); });
    return sum;
  }
  // J J^T p + damping p, J the Jacobian of colour() in the movers' positions [cells].
  Eigen::VectorXd apply(const Eigen::VectorXd& p, Real damping, std::vector<Vec3>& step) const {
    spread(p, step);
    Eigen::VectorXd out = damping * p;
    scatter(out, [&](Index m, int i, int j, int k) { return stencils[m].gradient(i, j, k).dot(step[m]); });
    return out;
  }
  // J^T lambda: each mover's displacement [cells].
  void spread(const Eigen::VectorXd& lambda, std::vector<Vec3>& step) const {
    step.resize(movers.size());
    parallel_for(0, static_cast<Index>(movers.size()), [&](Index m) {
      Vec3 sum = Vec3::Zero();
      if (!frozen[m])
        rows_around(m, [&](Index r, int i, int j, int k) { sum += lambda[r] * stencils[m].gradient(i, j, k); });
      step[m] = sum;
    });
  }
  // diag J J^T.
  Eigen::VectorXd diagonal() const {
    Eigen::VectorXd out = Eigen::VectorXd::Zero(static_cast<Index>(rows.size()));
    scatter(out, [&](Index m, int i, int j, int k) {
      return frozen[m] ? 0 : stencils[m].gradient(i, j, k).squaredNorm();
    });
    return out;
  }
};

// The band: the particles of the seeded cells within one cell of the boundary
// layer (the cells next to both a seeded and an unseeded cell, outside the grid
// counting as unseeded), i.e. at most two cells from an unseeded one, move; the
// rows are the cells their kernels reach. Why only there: the
// pressure projection reads the liquid phi's value only at the surface (in the
// bulk only its sign, and rho = 1 +- 3 % there is far from 1/2), and the band is
// O(surface), not O(volume).
Band make_band(const grid::MacGrid& grid, const grid::Array3<char>& shape, int per_cell,
               const std::vector<char>& keep, const grid::Array3<char>& exact, std::vector<Vec3>& x) {
  Band b{grid, shape, per_cell, x, {}, {}, {}, {}, {}, {}, {}};
  const Index cells = shape.count();
  const Vec3i size = shape.size();
  grid::Array3<char> seeded(size, 0), unseeded(size, 0);
  for (Index cell = 0; cell < cells; ++cell) {
    for (int p = 0; p < per_cell; ++p) seeded[cell] |= keep[cell * per_cell + p];
    unseeded[cell] = !seeded[cell];
  }
  grid::Array3<char> near_seeded = seeded, near_unseeded = unseeded;
  grid::dilate(near_seeded, 1);
  grid::dilate(near_unseeded, 1);
  grid::Array3<char> moving(size, 0);
  for (Index cell = 0; cell < cells; ++cell) {
    const Vec3i c = shape.coord(cell);
    const bool edge = (c.array() == 0).any() || (c.array() == size.array() - 1).any();  // next to outside
    moving[cell] = near_seeded[cell] && (near_unseeded[cell] || edge);
  }
  grid::dilate(moving, 1);
  const bool any_exact = exact.count() > 0;
  for (Index cell = 0; cell < cells; ++cell) moving[cell] = moving[cell] && seeded[cell] && !(any_exact && exact[cell]);
  const Index layer = static_cast<Index>(shape.size().x()) * shape.size().y();
  b.slab_start.assign(shape.size().z() + 1, 0);
  for (Index cell = 0; cell < cells; ++cell)
    if (moving[cell])
      for (int p = 0; p < per_cell; ++p)
        if (keep[cell * per_cell + p]) {
          b.movers.push_back(cell * per_cell + p);
          ++b.slab_start[cell / layer + 1];
        }
  std::partial_sum(b.slab_start.begin(), b.slab_start.end(), b.slab_start.begin());
  b.frozen.assign(b.movers.size(), 0);
  grid::Array3<char> row = moving;
  grid::dilate(row, 1);
  b.row_of.assign(cells, -1);
  for (Index cell = 0; cell < cells; ++cell)
    if (row[cell]) {
      b.row_of[cell] = static_cast<Index>(b.rows.size());
      b.rows.push_back(cell);
    }
  // The particles that never move, summed at the rows (gathered from the 27 cells
  // around each row).
  b.fixed.resize(static_cast<Index>(b.rows.size()));
  parallel_for(0, b.fixed.size(), [&](Index r) {
    const Vec3i c = shape.coord(b.rows[r]);
    Real sum = 0;
    for (int dk = -1; dk <= 1; ++dk)
      for (int dj = -1; dj <= 1; ++dj)
        for (int di = -1; di <= 1; ++di) {
          if (!shape.inside(c.x() - di, c.y() - dj, c.z() - dk)) continue;
          const Index cell = shape.index(c.x() - di, c.y() - dj, c.z() - dk);
          if (moving[cell]) continue;
          for (int p = 0; p < per_cell; ++p)
            if (keep[cell * per_cell + p]) sum += stencil(b.local(cell * per_cell + p)).weight(di + 1, dj + 1, dk + 1);
        }
    b.fixed[r] = sum;
  });
  b.update_stencils();
  return b;
}

// Moves the band's particles by the smallest displacements (least squares) that
// make the kernel sum at the band's cells what it would be with them at their
// lattice centres (the particles outside the band count as they
// are, and only the band's particles reach the cells at the region's boundary):
// Gauss-Newton on the underdetermined system
// J dx = target - sum, each step by Levenberg-Marquardt-damped, Jacobi-
// preconditioned CG on J J^T (the damping keeps a residual that no nearby particle
// can reach, e.g. behind frozen ones, from asking for long steps). A particle
// whose step would leave its cell or the region stays put and is frozen.
void match_lattice_colour(Band& b, const Region& region, const MatchEffort& effort) {
  if (b.movers.empty()) return;
  std::vector<Vec3> jittered(b.movers.size());
  for (std::size_t m = 0; m < b.movers.size(); ++m) {
    jittered[m] = b.x[b.movers[m]];
    b.x[b.movers[m]] = b.lattice_centre(b.movers[m]);
  }
  b.update_stencils();
  const Eigen::VectorXd target = b.colour();
  for (std::size_t m = 0; m < b.movers.size(); ++m) b.x[b.movers[m]] = jittered[m];
  b.update_stencils();
  const Index n = target.size();
  std::vector<Vec3> step;
  for (int round = 0; round < effort.rounds; ++round) {
    const Eigen::VectorXd residual = target - b.colour();
    const Eigen::VectorXd diagonal = b.diagonal();
    const Real damping = MATCH_DAMPING * diagonal.mean();
    const Eigen::VectorXd inverse = (diagonal.array() + damping).inverse().matrix();
    Eigen::VectorXd lambda = Eigen::VectorXd::Zero(n), r = residual;
    Eigen::VectorXd z = inverse.cwiseProduct(r), p = z;
    Real rz = r.dot(z);
    const Real stop = effort.tolerance * residual.norm();
    for (int it = 0; it < effort.iterations && r.norm() > stop; ++it) {
      const Eigen::VectorXd q = b.apply(p, damping, step);
      const Real pq = p.dot(q);
      if (!(pq > 0)) break;
      const Real alpha = rz / pq;
      lambda += alpha * p;
      r -= alpha * q;
      z = inverse.cwiseProduct(r);
      const Real rz_next = r.dot(z);
      p = z + (rz_next / rz) * p;
      rz = rz_next;
    }
    b.spread(lambda, step);
    parallel_for(0, static_cast<Index>(b.movers.size()), [&](Index m) {
      if (b.frozen[m]) return;
      const Index slot = b.movers[m];
      const Real length = step[m].norm();
      const Vec3 y = b.x[slot] + b.grid.dx * std::min(Real(1), MATCH_MAX_STEP / length) * step[m];
      const Vec3i cell = b.grid.cell_of(y);
      if (b.shape.index(cell.x(), cell.y(), cell.z()) != slot / b.per_cell || !region(y)) {
        b.frozen[m] = 1;
        return;
      }
      b.x[slot] = y;
    });
    b.update_stencils();
  }
}

}  // namespace

std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

Real uniform(std::uint64_t key) { return (mix(key) >> 11) * (1.0 / 9007199254740992.0); }

Vec3 sub_cell_centre(const grid::MacGrid& grid, const Vec3i& cell, int p, int per_cell) {
  const int m = static_cast<int>(std::lround(std::cbrt(static_cast<double>(per_cell))));
  const Vec3 sub(p % m, (p / m) % m, p / (m * m));
  return grid.node_position(cell.x(), cell.y(), cell.z()) + grid.dx * (sub + Vec3::Constant(0.5)) / m;
}

Points seed_particles(const grid::MacGrid& grid, const Region& region, int per_cell, unsigned seed,
                      const grid::Array3<char>& exact) {
  const Index cells = grid.cell_count();
  const int m = static_cast<int>(std::lround(std::cbrt(static_cast<double>(per_cell))));
  const bool lattice = m * m * m == per_cell;
  std::vector<Vec3> candidates(static_cast<std::size_t>(cells) * per_cell);
  std::vector<char> keep(candidates.size(), 0);
  const grid::Array3<char> shape(grid.cell_shape());
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
      // that takes it out of the region. Near the region's boundary the jittered
      // particles are then nudged so that their liquid fraction is the lattice's
      // (match_lattice_colour).
      const Vec3 centre = sub_cell_centre(grid, c, p, per_cell);
      if (!region(centre)) continue;
      const Real jitter = exact.count() > 0 && exact[cell] ? 0 : SEED_JITTER;
      const Vec3 x = centre + grid.dx * jitter * (r - Vec3::Constant(0.5)) / m;
      keep[slot] = 1;
      candidates[slot] = region(x) ? x : centre;
    }
  });
  if (lattice) {
    Band band = make_band(grid, shape, per_cell, keep, exact, candidates);
    match_lattice_colour(band, region, exact.count() > 0 ? PRECISE_MATCH : MATCH);
  }
  Index n = 0;
  for (char k : keep) n += k;
  Points out(3, n);
  Index col = 0;
  for (std::size_t s = 0; s < candidates.size(); ++s)
    if (keep[s]) out.col(col++) = candidates[s];
  return out;
}

void advect_particles(const grid::MacGrid& grid, const grid::MacVelocity& u, Real dt,
                      Points& particles, const std::vector<std::uint32_t>& reach, const SplitFlow* split) {
  const Vec3 lo = grid.origin, hi = grid.max();
  parallel_for(0, particles.cols(), [&](Index p) {
    const Vec3 x = particles.col(p);
    const std::uint32_t bits = reach.empty() ? levelset::REACH_ALL : reach[static_cast<std::size_t>(p)];
    const Vec3i cell = grid.cell_of(x);
    Vec3 y;
    if (split && bits != levelset::REACH_ALL) {
      SidesOf sides(*split, x);
      const Vec3 mid = x + 0.5 * dt * velocity_beside_walls(grid, u, x, cell, bits, *split, sides);
      y = x + dt * velocity_beside_walls(grid, u, mid, cell, bits, *split, sides);
    } else {
      const Vec3 mid = x + 0.5 * dt * velocity_within_reach(grid, u, x, cell, bits);
      y = x + dt * velocity_within_reach(grid, u, mid, cell, bits);
    }
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
