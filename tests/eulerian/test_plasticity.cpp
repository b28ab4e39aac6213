// Plastic flow of the Eulerian solids (lib/eulerian/plasticity.hpp): the
// return to the yield surface at one point, the material grid's write-back,
// the elastic response untouched below the yield, a ball squashed past its
// yield strain keeping its flattening, and a ball splatted on a wall whose
// F_p stops when it does.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <random>

#include <Eigen/Eigenvalues>
#include <Eigen/LU>

#include "lib/eulerian/elasticity.hpp"
#include "lib/eulerian/plasticity.hpp"
#include "lib/eulerian/void_step.hpp"
#include "tests/eulerian/fixtures.hpp"

using namespace fsicut;
using namespace fsicut::eulerian;

namespace {

bool same_bits(const Vector& a, const Vector& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), sizeof(Real) * static_cast<std::size_t>(a.size())) == 0;
}

// A volume-preserving stretch by 1.4 along a tilted axis, rotated: its
// deviatoric Hencky strain is sqrt(2/3) ln 1.4^1.5 = 0.41.
Mat3 sheared() {
  const Mat3 R = test::rotation(0.4, Vec3(1, 2, 3));
  const Mat3 Q = test::rotation(0.7, Vec3(-1, 1, 0.5));
  const Vec3 s(1.4, 1 / std::sqrt(1.4), 1 / std::sqrt(1.4));
  return R * Q * s.asDiagonal() * Q.transpose();
}

Real elastic_strain(const Mat3& F, const Mat3& Fp) { return deviatoric_strain(signed_svd(F * Fp.inverse()).s); }

}  // namespace

TEST_CASE("eulerian plasticity: flow = 1 returns the elastic strain exactly to the yield surface, det F_p = 1") {
  const Mat3 F = sheared();
  CHECK(deviatoric_strain(signed_svd(F).s) == doctest::Approx(std::sqrt(2.0 / 3.0) * 1.5 * std::log(1.4)));
  PlasticSettings settings{0.1, 1.0};
  // From F_p = I, then again from a F_p that already flowed along another axis.
  const Mat3 R = test::rotation(0.3, Vec3::UnitX());
  const Mat3 earlier = R * Vec3(1.1, 1 / 1.1, 1).asDiagonal() * R.transpose();
  for (const Mat3& start : {Mat3(Mat3::Identity()), earlier}) {
    Mat3 Fp = start;
    const Real before = elastic_strain(F, Fp);
    REQUIRE(before > settings.yield);
    Fp = plastic_flow(F * Fp.inverse(), settings) * Fp;
    CHECK(Fp.determinant() == doctest::Approx(1).epsilon(1e-12));
    CHECK(elastic_strain(F, Fp) == doctest::Approx(settings.yield).epsilon(1e-10));
    CHECK((Fp - Mat3::Identity()).norm() > 0.1);
  }
  // flow 1/2: half the excess stays.
  settings.flow = 0.5;
  const Real before = deviatoric_strain(signed_svd(F).s);
  const Mat3 half = plastic_flow(F, settings);
  CHECK(half.determinant() == doctest::Approx(1).epsilon(1e-12));
  CHECK(elastic_strain(F, half) == doctest::Approx(settings.yield + 0.5 * (before - settings.yield)).epsilon(1e-10));
  // Below the yield strain, and for an inverted point: exactly no flow.
  settings.yield = before * 1.001;
  CHECK(plastic_flow(F, settings) == Mat3::Identity());
  settings.yield = 0;
  CHECK(plastic_flow(Vec3(1, 1, -1).asDiagonal(), settings) == Mat3::Identity());
}

TEST_CASE("eulerian plasticity: a uniform deformation past the yield moves F_p on the material grid to the yield "
          "surface") {
  const grid::MacGrid g = test::cube_grid(6, 0.1);
  const MaterialShape shape = test::everywhere(g);
  const Mat3 F = sheared();
  const Vec3 c(0.3, 0.3, 0.3);
  // x_bar = c + F^-1 (x - c): u = x - x_bar, F everywhere.
  const NodeField u = test::sample_field(g, [&](const Vec3& x) { return Vec3(x - c - F.inverse() * (x - c)); });
  PlasticStrain plastic = make_plastic_strain(shape, {0.1, 1.0});
  CHECK(max_plastic_strain(plastic, shape) == 0);
  update_plastic_strain(plastic, g, u, test::all_valid(g), shape);
  CHECK(max_plastic_strain(plastic, shape) > 0.1);
  // Every sample the solid's Gauss points read holds the same F_p.
  const Mat3 Fp = plastic_deformation(plastic, c);
  CHECK(Fp.determinant() == doctest::Approx(1).epsilon(1e-12));
  CHECK(elastic_strain(F, Fp) == doctest::Approx(0.1).epsilon(1e-9));
  CHECK((plastic_deformation(plastic, c + Vec3(0.05, -0.07, 0.02)) - Fp).norm() < 1e-12);
  // The forces see F_e: the energy density is Psi(F F_p^-1) at every point.
  const Lame lame = lame_from_young(1e5, 0.3);
  const ElasticState state = evaluate_elasticity(g, u, test::all_valid(g), shape, lame, nullptr, &plastic);
  const ElasticState mapped = evaluate_elasticity(g, u, test::all_valid(g), shape, lame);
  REQUIRE(state.points.size() == mapped.points.size());
  CHECK(elastic_energy(state) == doctest::Approx(elastic_energy(mapped) * energy_density(lame, F * Fp.inverse()) /
                                                 energy_density(lame, F))
                                     .epsilon(1e-9));
  CHECK(elastic_energy(state) < 0.2 * elastic_energy(mapped));
}

TEST_CASE("eulerian plasticity: below the yield strain F_p stays I and the solid steps bit for bit as an elastic one") {
  const grid::MacGrid g = test::cube_grid(16, 1.0 / 16);
  const Vec3 c(0.5, 0.5, 0.5);
  const Vec3 squash(1 / std::sqrt(0.7), 0.7, 1 / std::sqrt(0.7));
  const auto make = [&] {
    EulerianSolid s = make_solid(g, test::ball(g, c, 0.25), lame_from_young(1e5, 0.3), 1000,
                                 [&](const Vec3& x) { return Vec3(c + (x - c).cwiseQuotient(squash)); });
    s.damping = {0.0, 0.002};
    return s;
  };
  EulerianSolid elastic = make(), plastic = make();
  plastic.plastic = make_plastic_strain(plastic.shape, {1.0, 1.0});  // the squash is |e| = 0.44
  // Forces and stiffness of F_p = I are the elastic ones, bit for bit.
  const ElasticState a = evaluate_elasticity(elastic), b = evaluate_elasticity(plastic);
  std::mt19937 rng(5);
  const NodeField w = test::random_field(g, rng);
  CHECK(same_bits(elastic_forces(g, a), elastic_forces(g, b)));
  CHECK(same_bits(stiffness_product(g, a, w), stiffness_product(g, b, w)));
  CHECK(elastic_energy(a) == elastic_energy(b));
  VoidStepSettings settings;
  for (int step = 0; step < 3; ++step) {
    step_in_void(elastic, 1.0 / 48, settings);
    step_in_void(plastic, 1.0 / 48, settings);
  }
  CHECK(same_bits(elastic.u, plastic.u));
  CHECK(same_bits(elastic.v, plastic.v));
  CHECK(max_plastic_strain(*plastic.plastic, plastic.shape) == 0);
}

namespace {

// The solid's extent along y over its extent along x and z: the square root of
// the ratio of the second moments of its Gauss points about their centre
// (1 for a ball).
Real aspect_ratio(const EulerianSolid& s) {
  const ElasticState state = evaluate_elasticity(s);
  Vec3 sum = Vec3::Zero();
  Real weight = 0;
  for (const QuadraturePoint& p : state.points) {
    sum += p.fraction * (s.grid.origin + s.grid.dx * (p.cell.cast<Real>() + gauss_point(p.gauss)));
    weight += p.fraction;
  }
  const Vec3 centre = sum / weight;
  Vec3 moment = Vec3::Zero();
  for (const QuadraturePoint& p : state.points) {
    const Vec3 x = s.grid.origin + s.grid.dx * (p.cell.cast<Real>() + gauss_point(p.gauss)) - centre;
    moment += p.fraction * x.cwiseProduct(x);
  }
  return std::sqrt(2 * moment.y() / (moment.x() + moment.z()));
}

}  // namespace

TEST_CASE("eulerian plasticity: a sphere squashed 30 % in void past its yield strain stays flat and keeps its volume") {
  // The fixture of the elastic test in test_void_step.cpp (which settles back
  // to the sphere): 24^3 cells of 1/24 m, a ball of radius 6 cells squashed to
  // 0.7 along y and stretched 1/sqrt(0.7) along x and z; here with F_p and a
  // yield strain of 0.05, a ninth of the squash's 0.44.
  const grid::MacGrid g = test::cube_grid(24, 1.0 / 24);
  const Vec3 c(0.5, 0.5, 0.5);
  const Vec3 squash(1 / std::sqrt(0.7), 0.7, 1 / std::sqrt(0.7));
  EulerianSolid solid = make_solid(g, test::ball(g, c, 0.25), lame_from_young(1e5, 0.3), 1000,
                                   [&](const Vec3& x) { return Vec3(c + (x - c).cwiseQuotient(squash)); });
  solid.damping = {0.0, 0.002};
  solid.plastic = make_plastic_strain(solid.shape, {0.05, 1.0});
  const Real volume0 = volume(solid);
  const Real aspect0 = aspect_ratio(solid);
  VoidStepSettings settings;
  Real aspect12 = 0;
  for (int step = 0; step < 24; ++step) {
    const VoidStepReport r = step_in_void(solid, 1.0 / 48, settings);
    CHECK(r.inverted == 0);
    if (step == 11) aspect12 = aspect_ratio(solid);
  }
  const Real aspect = aspect_ratio(solid);
  const Real volume1 = volume(solid);
  MESSAGE("aspect ratio " << aspect << " (start " << aspect0 << ", after 12 steps " << aspect12 << "), volume "
                          << volume1 / volume0 << " of the start, max |F_p - I| " << max_plastic_strain(*solid.plastic, solid.shape));
  CHECK(aspect0 == doctest::Approx(std::pow(0.7, 1.5)).epsilon(0.05));
  // Measured: 0.929 after 12 and after 24 steps (0.901 with F_p on the
  // material nodes); the elastic ball (no F_p) is back at 1.000 after 12 steps. Most of the squash springs back in the
  // first steps, before F_p has taken it: the start is an elastic state.
  CHECK(aspect < 0.95);
  CHECK(std::abs(aspect - aspect12) < 0.005);
  CHECK(std::abs(volume1 / volume0 - 1) < 0.01);
  CHECK(max_plastic_strain(*solid.plastic, solid.shape) > 0.05);
}

TEST_CASE("eulerian plasticity: a plastic ball thrown into a wall splats and its F_p stays put once it rests") {
  // 24^3 cells of 1/24 m, a ball of radius 6 cells 2.4 cells from the +x
  // wall (no-slip), thrown at it at 0.5 m/s, yield 0.05, no gravity, one
  // step per frame of 1/24 s (as fsicut steps it at CFL 1). It lands at
  // frame 4 and is still by frame 12; from then on nothing strains it
  // further, so F_p has nothing to flow from.
  const grid::MacGrid g = test::cube_grid(24, 1.0 / 24);
  EulerianSolid solid = make_solid(g, test::ball(g, Vec3(0.65, 0.5, 0.5), 0.25), lame_from_young(1e5, 0.3), 1000,
                                   [](const Vec3& x) { return x; });
  solid.damping = {0.0, 0.002};
  solid.plastic = make_plastic_strain(solid.shape, {0.05, 1.0});
  for (Index n = 0; n < node_count(g); ++n)
    if (solid.valid[n]) solid.v.segment<3>(3 * n) = Vec3(0.5, 0, 0);
  const Real thrown = kinetic_energy(solid);
  VoidStepSettings settings;
  Real at_rest = 0, furthest = 0, fastest = 0;
  for (int frame = 1; frame <= 24; ++frame) {
    CHECK(step_in_void(solid, 1.0 / 24, settings).inverted == 0);
    const Real strain = max_plastic_strain(*solid.plastic, solid.shape);
    if (frame == 12) at_rest = strain;
    if (frame < 12) continue;
    furthest = std::max(furthest, std::abs(strain - at_rest));
    fastest = std::max(fastest, kinetic_energy(solid) / thrown);
  }
  MESSAGE("max |F_p - I| " << at_rest << " at frame 12, moved by up to " << furthest
                           << " over frames 12-24; kinetic energy at most " << fastest << " of the throw's");
  // It splatted (the yield is 0.05) and rests: under 0.1 % of its kinetic
  // energy, 3 % of its speed.
  CHECK(at_rest > 0.2);
  CHECK(fastest < 1e-3);
  // At rest F_p moves by under 1 % of what the landing gave it.
  CHECK(furthest < 0.01 * at_rest);
}
