#include <doctest/doctest.h>

#include <cmath>

#include "lib/core/parallel.hpp"
#include "lib/fluid/liquid.hpp"
#include "lib/levelset/liquid_sdf.hpp"
#include "tests/grid/fixtures.hpp"

using namespace fsicut;
using namespace fsicut::fluid;

namespace {
// The cells' reach (levelset::NeighbourReach) with a thin solid between the
// cell columns x = 3 and x = 4: neither column reaches across it.
grid::Array3<std::uint32_t> reach_cut_between_columns_3_and_4(const grid::MacGrid& g) {
  grid::Array3<std::uint32_t> reach(g.cell_shape(), levelset::REACH_ALL);
  for (int j = 0; j < g.resolution.y(); ++j)
    for (int k = 0; k < g.resolution.z(); ++k)
      for (int o = 0; o < 27; ++o) {
        if (o % 3 == 2) reach(3, j, k) &= ~(1u << o);
        if (o % 3 == 0) reach(4, j, k) &= ~(1u << o);
      }
  return reach;
}
}  // namespace

TEST_CASE("particles: seeding is deterministic and fills the region at the requested density") {
  const auto g = test::unit_cube(16);
  const Region box = [](const Vec3& x) { return x.y() < 0.5; };
  const Points a = seed_particles(g, box, 8, 7);
  const Points b = seed_particles(g, box, 8, 7);
  const Points c = seed_particles(g, box, 8, 8);
  CHECK(a.cols() == 16 * 16 * 8 * 8);
  CHECK((a - b).norm() == 0);
  CHECK((a - c).norm() > 0);
  for (Index p = 0; p < a.cols(); ++p) REQUIRE(a(1, p) < 0.5);
}

TEST_CASE("particles: lattice seeding gives a flat surface the un-jittered lattice's liquid phi, still jittered") {
  const int n = 24;
  const auto g = test::unit_cube(n);
  const grid::Array3<Real> open(g.node_shape(), 1.0);
  const Real volume = std::pow(g.dx, 3) / 8;
  // The lattice's phi one cell below and above a surface on a face (in dx): with
  // sub-cell layers 1/4, 3/4, 5/4 cells below the surface and W the quadratic B-spline
  // per axis, rho = (1/2) sum W = 0.84375 and 0.15625, phi = (1/2 - rho) / (3/4).
  const Real below = (0.5 - 0.84375) / 0.75, above = (0.5 - 0.15625) / 0.75;
  // Surfaces at a face (y = 0.5, between layers 11 and 12) and inside layer 12
  // (y = 0.53: the lattice fills its lower sub-cells); the two layers the surface
  // lies between.
  for (const auto& [level, top] : {std::pair<Real, int>{0.5, 12}, {0.53, 13}}) {
    CAPTURE(level);
    const Points x = seed_particles(g, [&](const Vec3& p) { return p.y() < level; }, 8, 5);
    grid::Array3<Real> phi;
    levelset::liquid_phi_from_particles(g, x, volume, levelset::particle_radius(g), open, phi);
    for (const int j : {top - 1, top}) {
      Real lo = 1e9, hi = -1e9;
      for (int k = 0; k < n; ++k)
        for (int i = 0; i < n; ++i) {
          lo = std::min(lo, phi(i, j, k) / g.dx);
          hi = std::max(hi, phi(i, j, k) / g.dx);
        }
      MESSAGE("surface y = " << level << ", layer " << j << ": phi / dx in [" << lo << ", " << hi << "]");
      // The jitter alone spreads these over about 0.2 dx (sd 0.03 dx).
      CHECK(hi - lo < 0.01);
      if (level == 0.5) CHECK(std::abs(0.5 * (lo + hi) - (j < top ? below : above)) < 0.005);
    }
    // Still jittered: the mean distance from the sub-cell centre per axis is dx/16
    // for the jitter of +-dx/8; the match moves particles by about 0.02 dx.
    Real offset = 0;
    for (Index p = 0; p < x.cols(); ++p) {
      REQUIRE(x(1, p) < level);
      for (int a = 0; a < 3; ++a) {
        const Real sub = x(a, p) / (0.5 * g.dx);
        offset += std::abs(sub - std::floor(sub) - 0.5) * 0.5;
      }
    }
    offset /= 3.0 * static_cast<Real>(x.cols());
    MESSAGE("mean distance from the sub-cell centre " << offset << " dx per axis (jitter alone: 1/16)");
    CHECK(offset > 0.05);
  }
  // The same particles for any thread count.
  const Region ball = [](const Vec3& p) { return (p - Vec3(0.5, 0.4, 0.5)).norm() < 0.3; };
  set_threads(1);
  const Points one = seed_particles(g, ball, 8, 2);
  set_threads(2);
  const Points two = seed_particles(g, ball, 8, 2);
  set_threads(0);
  CHECK((one - two).norm() == 0);
}

TEST_CASE("liquid SDF: union of balls from particles") {
  const auto g = test::unit_cube(8);
  Points one(3, 1);
  one.col(0) = Vec3(0.5, 0.5, 0.5);
  grid::Array3<Real> phi;
  const Real r = levelset::particle_radius(g);
  levelset::liquid_sdf_from_particles(g, one, r, phi);
  const Vec3 c = g.cell_center(3, 3, 3);
  CHECK(phi(3, 3, 3) == doctest::Approx((c - Vec3(0.5, 0.5, 0.5)).norm() - r));
  CHECK(phi(0, 0, 0) > g.dx);  // far: capped, positive

  // A seeded box: the liquid volume matches the region volume (the liquid phi puts
  // the free surfaces where they were seeded, levelset/liquid_sdf.hpp).
  const auto g2 = test::unit_cube(32);
  Liquid l = make_liquid(g2, 1000, Vec3(0, -9.81, 0), {});
  add_liquid(l, [](const Vec3& x) { return x.x() > 0.2 && x.x() < 0.7 && x.y() < 0.4; }, Vec3::Zero(), 8, 1);
  initialize(l);
  const Real exact = 0.5 * 0.4 * 1.0;
  MESSAGE("box volume " << liquid_volume(l) << " vs " << exact << " ("
                        << 100 * (liquid_volume(l) / exact - 1) << " %)");
  CHECK(liquid_volume(l) == doctest::Approx(exact).epsilon(0.01));
}

#include "lib/cutcell/face_fractions.hpp"
#include "lib/fluid/velocity.hpp"

namespace {

// An n x n x 3 grid cut by a plane wall through (0, height, 0) sloped by `angle`
// [rad] in x-y: the solid below, its fractions, the wall's normal (into the liquid).
struct SlopedWall {
  grid::MacGrid g;
  Vec3 normal;
  grid::Array3<Real> solid_phi;
  cutcell::FaceFractions f;
  SlopedWall(int n, Real angle, Real height) : normal(std::sin(angle), std::cos(angle), 0) {
    g.resolution = {n, n, 3};
    g.dx = 1.0 / n;
    solid_phi = levelset::sample_solid_at_nodes(g, levelset::plane_solid(Vec3(0, height, 0), normal));
    cutcell::compute_face_fractions(g, solid_phi, f);
  }
};

}  // namespace

TEST_CASE("velocity: constraint removes the normal component at a sloped wall, extrapolation fills gaps") {
  const SlopedWall wall(12, M_PI / 6, 0.5);
  const auto& [g, normal, solid_phi, f] = wall;
  const Vec3 v(1.0, -0.4, 0.0);
  grid::MacVelocity u = grid::make_velocity(g);
  FaceFlags valid;
  for (int a = 0; a < 3; ++a) {
    u[a].fill(v[a]);
    valid[a].resize(g.face_shape(a), 1);
  }
  grid::MacVelocity scratch;
  constrain_velocity(g, solid_phi, f, valid, u, scratch);
  const Vec3 tangential = v - v.dot(normal) * normal;
  // An interior closed face deep below the plane: its own component of v with u.n removed.
  const Vec3i face(3, 1, 1);
  REQUIRE(f[0](face) == 0);
  CHECK(u[0](face) == doctest::Approx(tangential.x()));
  CHECK(u[0](0, 5, 1) == 0);  // domain wall

  // Extrapolation: one valid face spreads its value, unreached faces become 0.
  grid::MacVelocity w = grid::make_velocity(g);
  FaceFlags only;
  for (int a = 0; a < 3; ++a) only[a].resize(g.face_shape(a), 0);
  w[0](5, 5, 1) = 2.0;
  only[0](5, 5, 1) = 1;
  w[0](0, 0, 0) = 7.0;
  extrapolate_velocity(w, only, 2);
  CHECK(w[0](6, 5, 1) == doctest::Approx(2.0));
  CHECK(w[0](7, 5, 1) == doctest::Approx(2.0));
  CHECK(only[0](8, 5, 1) == 0);
  CHECK(w[0](0, 0, 0) == 0);
}

TEST_CASE("velocity: extrapolation does not cross a thin solid between two cell columns") {
  // Liquid in the cells x < 4 moving up at 1 m/s; a thin solid between the cell
  // columns x = 3 and x = 4 (levelset::NeighbourReach: neither reaches the other
  // side). Its y-velocity must not spread into x >= 4, as it does without it.
  grid::MacGrid g;
  g.resolution = {8, 8, 2};
  g.dx = 0.1;
  const grid::Array3<std::uint32_t> reach = reach_cut_between_columns_3_and_4(g);
  for (const bool thin : {false, true}) {
    grid::MacVelocity u = grid::make_velocity(g);
    FaceFlags valid;
    for (int a = 0; a < 3; ++a) valid[a].resize(g.face_shape(a), 0);
    for (Index idx = 0; idx < u[1].count(); ++idx)
      if (u[1].coord(idx).x() < 4) {
        u[1][idx] = 1;
        valid[1][idx] = 1;
      }
    extrapolate_velocity(u, valid, 3, thin ? reach : grid::Array3<std::uint32_t>());
    Real across = 0;
    for (Index idx = 0; idx < u[1].count(); ++idx)
      if (u[1].coord(idx).x() >= 4) across = std::max(across, std::abs(u[1][idx]));
    CHECK(across == (thin ? 0.0 : 1.0));
    CHECK(u[1](0, 3, 1) == 1);
  }
}

TEST_CASE("velocity: advection does not fetch velocities from beyond a thin solid") {
  // Liquid moving right at 1 m/s on both sides of a thin solid between the cell
  // columns x = 3 and 4 (neither reaches the other side), rising at 2 m/s left
  // of it and not at all right of it. Over half a cell's step, the faces right of
  // the solid backtrace into it: they must keep the right side's still vertical
  // velocity, not fetch the left side's (1 m/s without the reach).
  grid::MacGrid g;
  g.resolution = {8, 4, 2};
  g.dx = 0.1;
  const grid::Array3<std::uint32_t> reach = reach_cut_between_columns_3_and_4(g);
  for (const bool thin : {false, true}) {
    grid::MacVelocity u = grid::make_velocity(g), scratch;
    FaceFlags valid;
    for (int a = 0; a < 3; ++a) valid[a].resize(g.face_shape(a), 1);
    u[0].fill(1);
    for (Index idx = 0; idx < u[1].count(); ++idx)
      if (u[1].coord(idx).x() < 4) u[1][idx] = 2;
    advect_velocity(g, 0.05, valid, u, scratch, thin ? reach : grid::Array3<std::uint32_t>());
    Real beyond = 0;
    for (Index idx = 0; idx < u[1].count(); ++idx)
      if (u[1].coord(idx).x() >= 4) beyond = std::max(beyond, std::abs(u[1][idx]));
    CHECK(beyond == doctest::Approx(thin ? 0.0 : 1.0));
    CHECK(u[1](2, 1, 1) == doctest::Approx(2.0));  // the left side's own values are carried along
  }
}

TEST_CASE("velocity: a face closed by a thin solid takes the solid's velocity across it") {
  // Liquid streaming right at 2 m/s at a thin solid between the cell columns
  // x = 3 and 4, which moves at 0.5 m/s. The node SDF does not see it (constant
  // here: no gradient), so only the cells' reach tells the constraint that the
  // faces at x = 4 are closed by it: they must take its 0.5 m/s.
  grid::MacGrid g;
  g.resolution = {8, 4, 2};
  g.dx = 0.1;
  const grid::Array3<std::uint32_t> reach = reach_cut_between_columns_3_and_4(g);
  grid::Array3<Real> solid_phi(g.node_shape(), 1.0);
  FaceFractions fractions;
  FaceFlags valid;
  for (int a = 0; a < 3; ++a) {
    fractions[a].resize(g.face_shape(a), 1.0);
    valid[a].resize(g.face_shape(a), 1);
  }
  for (int j = 0; j < 4; ++j)
    for (int k = 0; k < 2; ++k) fractions[0](4, j, k) = 0;
  const SolidVelocity wall = [](const Vec3&) { return Vec3(0.5, 0, 0); };
  for (const bool thin : {false, true}) {
    grid::MacVelocity u = grid::make_velocity(g, 2.0), scratch;
    constrain_velocity(g, solid_phi, fractions, valid, u, scratch, wall,
                       thin ? reach : grid::Array3<std::uint32_t>());
    CHECK(u[0](4, 1, 1) == doctest::Approx(thin ? 0.5 : 2.0));
    CHECK(u[0](3, 1, 1) == doctest::Approx(2.0));  // open faces keep their value
    CHECK(u[1](4, 1, 1) == doctest::Approx(2.0));
  }
}

TEST_CASE("velocity: a point beside a thin solid reads only the velocities on its side") {
  // Cells x <= 3 hold liquid at u = 1 m/s, cells x >= 4 at 5 m/s, and a thin
  // solid runs through cell 4 near its left face (the faces at x = 4 carry 3
  // m/s). A point in cell 4 left of the solid reaches only the cells at x = 3
  // (as a particle in the sliver between a wall and a node plane) and must move
  // with the left side: the faces at x = 4 touch a reached cell, those at x = 5
  // do not.
  grid::MacGrid g;
  g.resolution = {8, 4, 4};
  g.dx = 0.1;
  grid::MacVelocity u = grid::make_velocity(g);
  for (Index idx = 0; idx < u[0].count(); ++idx) {
    const int i = u[0].coord(idx).x();
    u[0][idx] = i < 4 ? 1.0 : i == 4 ? 3.0 : 5.0;
  }
  for (int a : {1, 2})
    for (Index idx = 0; idx < u[a].count(); ++idx) u[a][idx] = u[a].coord(idx).x() < 4 ? -1.0 : -5.0;
  std::uint32_t left = levelset::REACH_ALL;  // from cell 4: only the cells at x = 3
  for (int o = 0; o < 27; ++o)
    if (o % 3 != 0) left &= ~(1u << o);
  const Vec3 x(0.41, 0.22, 0.17);
  const Vec3 plain = grid::interpolate_velocity(g, u, x);
  const Vec3 v = velocity_within_reach(g, u, x, Vec3i(4, 2, 1), left);
  CHECK(plain.x() > 3.0);  // the far side's 5 m/s mixed in
  CHECK(v.x() == doctest::Approx(3.0));
  CHECK(v.y() == doctest::Approx(-1.0));
  CHECK(v.z() == doctest::Approx(-1.0));
  CHECK((velocity_within_reach(g, u, x, Vec3i(4, 2, 1), levelset::REACH_ALL) - plain).norm() == 0);
}

TEST_CASE("velocity: a nearly closed face takes the constrained neighbouring flow, not its own pressure jump") {
  // A sloped wall cuts faces at every open fraction; after a projection, the
  // faces open less than NEARLY_CLOSED_FRACTION carry a wild value (what a large
  // pressure jump across a sliver gives). Released, extrapolated and constrained,
  // they get the uniform flow of the open faces with u.n = 0, like closed faces.
  const SlopedWall wall(16, M_PI / 7, 0.43);
  const auto& [g, normal, solid_phi, f] = wall;
  const Vec3 tangential = Vec3(1.0, 0.0, 0.0) - normal.x() * normal;  // along the wall
  grid::MacVelocity u = grid::make_velocity(g);
  FaceFlags valid;
  int slivers = 0, open = 0;
  for (int a = 0; a < 3; ++a) {
    valid[a].resize(g.face_shape(a), 0);
    for (Index idx = 0; idx < u[a].count(); ++idx) {
      const Real fraction = f[a][idx];
      if (!(fraction > 0)) continue;
      valid[a][idx] = 1;
      const bool sliver = fraction < NEARLY_CLOSED_FRACTION;
      u[a][idx] = sliver ? 40.0 : tangential[a];
      slivers += sliver && a < 2;
      open += !sliver;
    }
  }
  REQUIRE(slivers >= 4);
  release_nearly_closed(f, valid);
  extrapolate_velocity(u, valid, 3);
  grid::MacVelocity scratch;
  constrain_velocity(g, solid_phi, f, valid, u, scratch);
  Real worst = 0, worst_open = 0;
  for (int a = 0; a < 3; ++a)
    for (Index idx = 0; idx < u[a].count(); ++idx) {
      const Vec3i c = u[a].coord(idx);
      if (c[a] == 0 || c[a] == g.resolution[a] || !(f[a][idx] > 0)) continue;
      const Real error = std::abs(u[a][idx] - tangential[a]);
      if (f[a][idx] < NEARLY_CLOSED_FRACTION)
        worst = std::max(worst, error);
      else
        worst_open = std::max(worst_open, error);
    }
  MESSAGE(slivers << " nearly closed faces: largest departure from the wall flow " << worst << " m/s ("
                  << open << " open faces: " << worst_open << ")");
  CHECK(worst < 0.05);
  CHECK(worst_open == 0);
}
