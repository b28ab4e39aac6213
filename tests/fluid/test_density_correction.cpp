#include <doctest/doctest.h>

#include <cmath>

#include "lib/fluid/density_correction.hpp"
#include "lib/fluid/liquid.hpp"
#include "lib/levelset/liquid_sdf.hpp"

using namespace fsicut;
using namespace fsicut::fluid;

namespace {

// A 16^3 box of 1 m with water up to y = `level`, no gravity.
Liquid pool(Real level, int n = 16) {
  grid::MacGrid g;
  g.resolution = {n, n, n};
  g.dx = 1.0 / n;
  Liquid l = make_liquid(g, 1000, Vec3::Zero(), {});
  add_liquid(l, [&](const Vec3& x) { return x.y() < level; }, Vec3::Zero(), 8, 3);
  initialize(l);
  return l;
}

// The largest smoothed liquid fraction of any cell.
Real max_fraction(const Liquid& l) {
  grid::Array3<Real> rho;
  levelset::liquid_fraction_from_particles(l.grid, l.particles, l.particle_volume, l.solid_phi, rho);
  Real m = 0;
  for (Real r : rho.data()) m = std::max(m, r);
  return m;
}

}  // namespace

TEST_CASE("density correction: water as dense as seeded keeps its particles exactly still") {
  Liquid l = pool(0.55);
  // The seeding's own noise: rho cell by cell, and its 3 x 3 x 3 means, in the
  // cells 2 or more cells from the surface and the walls.
  grid::Array3<Real> rho;
  levelset::liquid_fraction_from_particles(l.grid, l.particles, l.particle_volume, l.solid_phi, rho);
  Real lo = 2, hi = 0, mean_lo = 2, mean_hi = 0;
  for (int k = 2; k < 14; ++k)
    for (int j = 2; j < 6; ++j)
      for (int i = 2; i < 14; ++i) {
        lo = std::min(lo, rho(i, j, k));
        hi = std::max(hi, rho(i, j, k));
        Real sum = 0;
        for (int c = 0; c < 27; ++c) sum += rho(i + c % 3 - 1, j + (c / 3) % 3 - 1, k + c / 9 - 1);
        mean_lo = std::min(mean_lo, sum / 27);
        mean_hi = std::max(mean_hi, sum / 27);
      }
  MESSAGE("seeded rho in the bulk: " << lo << " .. " << hi << " by cell, " << mean_lo << " .. " << mean_hi
                                     << " as 3 x 3 x 3 means");
  const Points before = l.particles;
  const DensityCorrectionReport r = correct_density(l);
  CHECK(r.over_dense == 0);
  CHECK(r.under_dense == 0);
  CHECK(r.moved == 0);
  CHECK(r.solve.iterations == 0);
  CHECK((l.particles - before).cwiseAbs().maxCoeff() == 0);
}

TEST_CASE("density correction: packed particles spread out again, the flow is not touched") {
  Liquid l = pool(0.55);
  for (int a = 0; a < 3; ++a) l.velocity[a].fill(0.1 * (a + 1));
  const grid::MacVelocity flow = l.velocity;
  const Real seeded_volume = liquid_volume(l);
  // The top 0.25 m of the water squeezed into 0.2 m, under a lid of the pool's
  // width less 2 cells at each wall: rho 1.25 there, the liquid 7 % smaller.
  for (Index p = 0; p < l.particles.cols(); ++p) {
    const Vec3 x = l.particles.col(p);
    if (x.y() > 0.3 && x.x() > 0.125 && x.x() < 0.875 && x.z() > 0.125 && x.z() < 0.875)
      l.particles(1, p) = 0.3 + 0.8 * (x.y() - 0.3);
  }
  update_distance_fields(l);
  const Real packed_volume = liquid_volume(l), packed_rho = max_fraction(l);
  DensityCorrectionReport first;
  for (int round = 0; round < 20; ++round) {
    const DensityCorrectionReport r = correct_density(l);
    if (round == 0) first = r;
    CHECK(r.max_shift <= DENSITY_MAX_SHIFT_CELLS * l.grid.dx * (1 + 1e-12));
    push_particles_out(l.grid, l.solid_phi, l.particles);
    update_distance_fields(l);
  }
  const Real volume = liquid_volume(l), rho = max_fraction(l);
  MESSAGE("volume: seeded " << seeded_volume << ", packed " << packed_volume << ", corrected " << volume
                            << "; max rho packed " << packed_rho << ", corrected " << rho << "; first round: "
                            << first.over_dense << " over-dense cells, " << first.moved << " particles moved, "
                            << first.solve.iterations << " iterations");
  CHECK(first.over_dense > 0);
  CHECK(packed_volume < 0.96 * seeded_volume);
  // Near the surface only packing seen by the block means is corrected (rho is
  // below 1 there by nature): some of it stays.
  CHECK(std::abs(volume / seeded_volume - 1) < 0.015);
  for (int a = 0; a < 3; ++a) CHECK(l.velocity[a].data() == flow[a].data());
  const Vec3 lo = l.grid.origin, hi = l.grid.max();
  for (Index p = 0; p < l.particles.cols(); ++p) {
    REQUIRE((l.particles.col(p).array() >= lo.array()).all());
    REQUIRE((l.particles.col(p).array() <= hi.array()).all());
  }
}

TEST_CASE("density correction: a thinned region deep in the liquid fills up from around it") {
  Liquid l = pool(0.8);
  // Every fourth particle taken out of a 4 x 4 x 4 cell block in the middle of the water.
  const auto in_block = [](const Vec3& x) { return (x.array() > 0.25).all() && (x.array() < 0.5).all(); };
  Index kept = 0, seen = 0;
  for (Index p = 0; p < l.particles.cols(); ++p) {
    const Vec3 x = l.particles.col(p);
    if (in_block(x) && seen++ % 4 == 0) continue;
    l.particles.col(kept++) = x;
  }
  l.particles.conservativeResize(3, kept);
  update_distance_fields(l);
  const auto centre_count = [&] {
    Index n = 0;
    for (Index p = 0; p < l.particles.cols(); ++p) n += in_block(l.particles.col(p));
    return n;
  };
  const Index thinned = centre_count();
  DensityCorrectionReport first;
  for (int round = 0; round < 10; ++round) {
    const DensityCorrectionReport r = correct_density(l);
    if (round == 0) first = r;
    update_distance_fields(l);
  }
  MESSAGE(first.under_dense << " under-dense cells; particles in the block: seeded 512, thinned " << thinned
                            << ", after 10 rounds " << centre_count());
  CHECK(first.under_dense > 0);
  // The deficit spreads over the water around until no block mean is more
  // than DENSITY_TRIGGER below 1.
  CHECK(centre_count() > thinned + 16);
  CHECK(correct_density(l).under_dense == 0);
}

TEST_CASE("density correction: it runs once per DENSITY_INTERVAL of simulated time, picked by the time alone") {
  // 31 substeps of a third of the interval from t = 0 pass 10 multiples of it:
  // one substep corrects at each, the others do not.
  const Real dt = DENSITY_INTERVAL / 3;
  int due = 0;
  Real t = 0;
  for (int n = 0; n < 31; ++n, t += dt) due += density_correction_due(t, dt);
  CHECK(due == 10);
  // Longer substeps correct every time, even across no multiple by round-off.
  CHECK(density_correction_due(0.3 * DENSITY_INTERVAL, DENSITY_INTERVAL));
  CHECK(density_correction_due(0.1, 2 * DENSITY_INTERVAL));
  // A substep that stops short of the next multiple does not; one that passes it does.
  CHECK_FALSE(density_correction_due(5.1 * DENSITY_INTERVAL, 0.8 * DENSITY_INTERVAL));
  CHECK(density_correction_due(5.1 * DENSITY_INTERVAL, 0.95 * DENSITY_INTERVAL));
}
