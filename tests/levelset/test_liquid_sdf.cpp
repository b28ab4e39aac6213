#include <doctest/doctest.h>

#include <cmath>

#include "lib/fluid/particles.hpp"
#include "lib/levelset/liquid_sdf.hpp"
#include "lib/levelset/solid_sdf.hpp"
#include "tests/grid/fixtures.hpp"

using namespace fsicut;

namespace {

// The height [m] where phi crosses zero in column (i, k), linear between the
// centres of the first air cell and the liquid cell below it.
Real surface_height(const grid::MacGrid& g, const grid::Array3<Real>& phi, int i, int k) {
  for (int j = 1; j < g.resolution.y(); ++j)
    if (phi(i, j, k) >= 0 && phi(i, j - 1, k) < 0) {
      const Real t = phi(i, j - 1, k) / (phi(i, j - 1, k) - phi(i, j, k));
      return g.cell_center(i, j - 1, k).y() + t * g.dx;
    }
  return -1;
}

}  // namespace

TEST_CASE("liquid phi: a seeded flat surface is found where it was seeded") {
  const auto g = test::unit_cube(32);
  // At a cell centre, half way between faces, and on a boundary of the seeding's
  // sub-cells (otherwise the jitter decides which particles of the cut sub-cells
  // are seeded, and the seeded surface itself is rough).
  const Real level = 0.5 + 0.5 * g.dx;
  const Points p = fluid::seed_particles(g, [&](const Vec3& x) { return x.y() < level; }, 8, 11);
  const auto solid = levelset::sample_solid_at_nodes(g, {});
  const Real volume = g.dx * g.dx * g.dx / 8;

  grid::Array3<Real> colour, balls;
  levelset::liquid_phi_from_particles(g, p, volume, levelset::particle_radius(g), solid, colour);
  levelset::liquid_sdf_from_particles(g, p, levelset::particle_radius(g), balls);

  // Columns two cells away from the domain walls (the walls are tested below).
  auto stats = [&](const grid::Array3<Real>& phi, Real& mean, Real& spread) {
    Real sum = 0, sum2 = 0;
    int n = 0;
    for (int k = 2; k < g.resolution.z() - 2; ++k)
      for (int i = 2; i < g.resolution.x() - 2; ++i) {
        const Real e = (surface_height(g, phi, i, k) - level) / g.dx;
        sum += e;
        sum2 += e * e;
        ++n;
      }
    mean = sum / n;
    spread = std::sqrt(std::max(Real(0), sum2 / n - mean * mean));
  };
  Real mean_c, spread_c, mean_b, spread_b;
  stats(colour, mean_c, spread_c);
  stats(balls, mean_b, spread_b);
  MESSAGE("surface height error [dx]: liquid fraction " << mean_c << " +- " << spread_c
                                                        << ", union of balls " << mean_b << " +- "
                                                        << spread_b);
  // The half level of the smoothed fraction is unbiased for a seeded half-space;
  // what remains is the sampling noise of 8 particles per cell.
  CHECK(std::abs(mean_c) < 0.02);
  CHECK(spread_c < 0.05);
  CHECK(spread_c < spread_b);

  // Inside and outside, away from the surface: rho = 1 and 0, phi = -+2/3 dx.
  const Real cap = 0.5 * g.dx / levelset::COLOUR_KERNEL_CENTRE;
  CHECK(colour(16, 8, 16) == doctest::Approx(-cap).epsilon(0.05));
  CHECK(colour(16, 24, 16) == doctest::Approx(cap));
}

TEST_CASE("liquid fraction: normalised by the open space next to walls") {
  // A spherical container (cut cells everywhere on its wall) filled below its
  // centre: every cell whose centre lies in the seeded liquid, at least 1.5 cells
  // below the surface, has rho = 1 however much of its kernel the wall cuts away.
  const auto g = test::unit_cube(32);
  const Vec3 centre(0.5, 0.5, 0.5);
  const Real radius = 0.4;
  const auto container = levelset::sphere_solid(centre, radius, true);
  const Real level = 0.5;
  const Points p = fluid::seed_particles(
      g, [&](const Vec3& x) { return x.y() < level && container(x) > 0; }, 8, 5);
  const auto solid = levelset::sample_solid_at_nodes(g, container);
  grid::Array3<Real> rho;
  levelset::liquid_fraction_from_particles(g, p, g.dx * g.dx * g.dx / 8, solid, rho);

  Real lo = 2, hi = 0, wall_sum = 0;
  int wall_cells = 0;
  for (Index n = 0; n < rho.count(); ++n) {
    const Vec3i c = rho.coord(n);
    const Vec3 x = g.cell_center(c.x(), c.y(), c.z());
    if (x.y() > level - 1.5 * g.dx || container(x) <= 0) continue;
    lo = std::min(lo, rho[n]);
    hi = std::max(hi, rho[n]);
    if (container(x) < 1.5 * g.dx) {
      wall_sum += rho[n];
      ++wall_cells;
    }
  }
  const Real wall_mean = wall_sum / wall_cells;
  MESSAGE("rho in the liquid: " << lo << " .. " << hi << "; mean over the " << wall_cells
                                << " cells within 1.5 cells of the wall " << wall_mean);
  // Single cells vary by about one particle's weight over the open part of their
  // kernel (a wall sub-cell is seeded or not by its jitter); none comes near 1/2,
  // and the wall cells are unbiased on average (unnormalised they would be 0.5..0.8).
  CHECK(lo > 0.75);
  CHECK(hi < 1.25);
  CHECK(wall_mean == doctest::Approx(1).epsilon(0.02));
}

TEST_CASE("liquid phi: drops thinner than the kernel stay liquid") {
  const auto g = test::unit_cube(16);
  Points one(3, 1);
  one.col(0) = g.cell_center(4, 12, 4);
  const auto solid = levelset::sample_solid_at_nodes(g, {});
  grid::Array3<Real> rho, phi;
  const Real volume = g.dx * g.dx * g.dx / 8;
  levelset::liquid_fraction_from_particles(g, one, volume, solid, rho);
  // One particle carries 1/8 of a cell; its smoothed fraction peaks at W(0)^3 / 8.
  CHECK(rho(4, 12, 4) == doctest::Approx(std::pow(levelset::COLOUR_KERNEL_CENTRE, 3) / 8));
  levelset::liquid_phi_from_particles(g, one, volume, levelset::particle_radius(g), solid, phi);
  CHECK(phi(4, 12, 4) == doctest::Approx(-levelset::particle_radius(g)));
  CHECK(phi(4, 14, 4) > 0);
}

TEST_CASE("liquid volume: the bulk by its surface, drops by their particles") {
  const auto g = test::unit_cube(32);
  const auto solid = levelset::sample_solid_at_nodes(g, {});
  const Real volume = g.dx * g.dx * g.dx / 8;
  // A block whose faces lie on sub-cell boundaries, two of them off the cell faces.
  const Vec3 lo(0.25, 0, 0.25), hi(0.75 + 0.5 * g.dx, 0.5 + 0.5 * g.dx, 0.75);
  const Points block = fluid::seed_particles(
      g, [&](const Vec3& x) { return (x.array() > lo.array()).all() && (x.array() < hi.array()).all(); },
      8, 3);
  const Real exact = (hi - lo).prod();
  const Real bulk = levelset::liquid_volume_from_particles(g, block, volume, solid);
  MESSAGE("block volume " << bulk << " vs " << exact << " (" << 100 * (bulk / exact - 1) << " %)");
  CHECK(bulk == doctest::Approx(exact).epsilon(0.01));

  // Five drops far from the block and each other add their particles' volume.
  Points all(3, block.cols() + 5);
  all.leftCols(block.cols()) = block;
  for (int d = 0; d < 5; ++d) all.col(block.cols() + d) = g.cell_center(3 + 5 * d, 28, 3);
  const Real with_drops = levelset::liquid_volume_from_particles(g, all, volume, solid);
  CHECK(with_drops - bulk == doctest::Approx(5 * volume));
}

TEST_CASE("liquid volume: a free sheet one cell thick and a layer on the floor count their particles") {
  // Two particle layers filling one row of cells (a sheet dx thick), and one
  // layer half a cell deep on the floor beside a block: each particle stands
  // for dx^3 / 8. Before the particles' shares the sheet read 0.83 of its
  // volume (phi's half level crosses it 0.17 dx inside each face).
  const auto g = test::unit_cube(32);
  const auto solid = levelset::sample_solid_at_nodes(g, {});
  const Real dx = g.dx, volume = dx * dx * dx / 8;
  std::vector<Vec3> sheet;
  for (Real x = 0.25 + dx / 4; x < 0.75; x += dx / 2)
    for (Real z = 0.25 + dx / 4; z < 0.75; z += dx / 2)
      for (Real y : {0.5 + dx / 4, 0.5 + 3 * dx / 4}) sheet.emplace_back(x, y, z);
  Points p(3, static_cast<Index>(sheet.size()));
  for (std::size_t n = 0; n < sheet.size(); ++n) p.col(static_cast<Index>(n)) = sheet[n];
  const Real exact = 0.5 * 0.5 * dx;
  const Real measured = levelset::liquid_volume_from_particles(g, p, volume, solid);
  MESSAGE("sheet one cell thick: " << measured << " vs " << exact << " (" << 100 * (measured / exact - 1) << " %)");
  CHECK(measured == doctest::Approx(exact).epsilon(1e-6));

  // A block 8 cells high on the floor, and a layer of one particle (a quarter
  // cell above the floor) running 12 cells from it: the layer's cells next to
  // the block are in its bulk's reach.
  const Vec3 lo(0.25, 0, 0.25), hi(0.5, 0.25, 0.75);
  Points block = fluid::seed_particles(
      g, [&](const Vec3& x) { return (x.array() > lo.array()).all() && (x.array() < hi.array()).all(); }, 8, 3);
  std::vector<Vec3> layer;
  for (Real x = 0.5 + dx / 4; x < 0.5 + 12 * dx; x += dx / 2)
    for (Real z = 0.25 + dx / 4; z < 0.75; z += dx / 2) layer.emplace_back(x, dx / 4, z);
  Points all(3, block.cols() + static_cast<Index>(layer.size()));
  all.leftCols(block.cols()) = block;
  for (std::size_t n = 0; n < layer.size(); ++n) all.col(block.cols() + static_cast<Index>(n)) = layer[n];
  const Real expected = (hi - lo).prod() + 12 * dx * 0.5 * dx / 2;
  const Real both = levelset::liquid_volume_from_particles(g, all, volume, solid);
  MESSAGE("block and floor layer: " << both << " vs " << expected << " (" << 100 * (both / expected - 1) << " %)");
  CHECK(both == doctest::Approx(expected).epsilon(0.005));
}

#include "lib/core/parallel.hpp"

TEST_CASE("liquid phi: equals the direct sums over all particles, for any thread count") {
  // A block with a rough top, a loose spray above it and particles on the domain
  // boundary, with no solid: rho and phi recomputed here from their definitions,
  // every particle against every cell.
  const auto g = test::unit_cube(14);
  const Real dx = g.dx;
  Points p = fluid::seed_particles(
      g, [](const Vec3& x) { return x.y() < 0.35 + 0.1 * std::sin(9 * x.x()) * std::cos(7 * x.z()); }, 8, 11);
  const Index bulk_count = p.cols();
  p.conservativeResize(3, bulk_count + 60);
  unsigned state = 12345;
  auto uniform = [&] { return (state = state * 1664525u + 1013904223u) / 4294967296.0; };
  for (Index q = bulk_count; q < p.cols(); ++q) p.col(q) = Vec3(uniform(), 0.55 + 0.45 * uniform(), uniform());
  p.col(bulk_count) = Vec3(0, 1, 0.5);  // on the boundary
  const auto solid = levelset::sample_solid_at_nodes(g, {});
  const Real volume = dx * dx * dx / 8, radius = levelset::particle_radius(g);

  auto kernel_1d = [](Real t) {
    t = std::abs(t);
    return t < 0.5 ? 0.75 - t * t : t < 1.5 ? 0.5 * (1.5 - t) * (1.5 - t) : 0.0;
  };
  // The kernel over the grid's quadrature points (2 per cell and axis) along one axis.
  auto space_1d = [&](int at, int n) {
    Real s = 0;
    for (int d = -1; d <= 1; ++d)
      if (at + d >= 0 && at + d < n)
        for (Real t : {d - 0.25, d + 0.25}) s += kernel_1d(t) / 2;
    return s;
  };
  const Vec3i size = g.cell_shape();
  grid::Array3<Real> rho_ref(size), balls_ref(size);
  for (Index n = 0; n < rho_ref.count(); ++n) {
    const Vec3i c = rho_ref.coord(n);
    const Vec3 x = g.cell_center(c.x(), c.y(), c.z());
    Real mass = 0, nearest = 2.5 * dx;
    for (Index q = 0; q < p.cols(); ++q) {
      const Vec3 d = (p.col(q) - x) / dx;
      mass += kernel_1d(d.x()) * kernel_1d(d.y()) * kernel_1d(d.z());
      nearest = std::min(nearest, (p.col(q) - x).norm());
    }
    const Real space = space_1d(c.x(), size.x()) * space_1d(c.y(), size.y()) * space_1d(c.z(), size.z());
    rho_ref[n] = volume / (dx * dx * dx) * mass / space;
    balls_ref[n] = nearest - radius;
  }
  grid::Array3<Real> phi_ref(size);
  int drop_cells = 0;
  for (Index n = 0; n < phi_ref.count(); ++n) {
    const Vec3i c = phi_ref.coord(n);
    bool bulk = false;
    for (int dk = -1; dk <= 1; ++dk)
      for (int dj = -1; dj <= 1; ++dj)
        for (int di = -1; di <= 1; ++di)
          if (rho_ref.inside(c.x() + di, c.y() + dj, c.z() + dk) && rho_ref(c.x() + di, c.y() + dj, c.z() + dk) >= 0.5)
            bulk = true;
    const Real colour = (0.5 - rho_ref[n]) * dx / levelset::COLOUR_KERNEL_CENTRE;
    phi_ref[n] = bulk ? colour : std::min(colour, balls_ref[n]);
    drop_cells += !bulk && balls_ref[n] < 0;
  }
  CHECK(drop_cells > 20);  // the spray is in the test

  grid::Array3<Real> rho[2], phi[2];
  for (int threads : {1, 2}) {
    set_threads(threads);
    levelset::liquid_fraction_from_particles(g, p, volume, solid, rho[threads - 1]);
    levelset::liquid_phi_from_particles(g, p, volume, radius, solid, phi[threads - 1]);
  }
  set_threads(0);
  Real rho_error = 0, phi_error = 0;
  for (Index n = 0; n < phi_ref.count(); ++n) {
    rho_error = std::max(rho_error, std::abs(rho[0][n] - rho_ref[n]));
    phi_error = std::max(phi_error, std::abs(phi[0][n] - phi_ref[n]) / dx);
  }
  MESSAGE("max |rho - direct| " << rho_error << ", max |phi - direct| " << phi_error << " dx, " << drop_cells
                                << " drop cells");
  CHECK(rho_error < 1e-12);
  CHECK(phi_error < 1e-12);
  CHECK(rho[0].data() == rho[1].data());
  CHECK(phi[0].data() == phi[1].data());
}
