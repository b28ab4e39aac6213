#pragma once
// Fixtures shared by the tests of lib/solid: bodies on structured box meshes and
// rigid-body measurements.
#include <Eigen/Geometry>

#include <functional>

#include "lib/mesh/box.hpp"
#include "lib/solid/body.hpp"
#include "lib/solid/corotation.hpp"
#include "lib/solid/integrate.hpp"

namespace fsicut::test {

inline solid::BodySpec solid_desc(Real density, Real E, Real nu) {
  solid::BodySpec d;
  d.name = "test";
  d.density = density;
  d.youngs_modulus = E;
  d.poisson_ratio = nu;
  return d;
}

inline solid::Body box_body(const solid::BodySpec& d, const Vec3& lo, const Vec3& hi, const Vec3i& cells) {
  return solid::make_body(d, mesh::box_mesh(lo, hi, cells));
}

// Pins the nodes in the closed box lo..hi.
inline std::function<bool(const Vec3&)> pin_box(const Vec3& lo, const Vec3& hi) {
  return [lo, hi](const Vec3& p) { return (p.array() >= lo.array()).all() && (p.array() <= hi.array()).all(); };
}

// Total linear momentum sum m v [kg m/s].
inline Vec3 linear_momentum(const solid::Body& b) { return b.v * b.mass; }

// Angular momentum about the origin, sum m x cross v [kg m^2/s].
inline Vec3 angular_momentum(const solid::Body& b, const Vec3& about = Vec3::Zero()) {
  Vec3 L = Vec3::Zero();
  for (Index i = 0; i < b.num_nodes(); ++i) L += b.mass[i] * (b.x.col(i) - about).cross(Vec3(b.v.col(i)));
  return L;
}

// Angular velocity of the best rigid fit: I^-1 L about the centre of mass [rad/s].
inline Vec3 angular_velocity(const solid::Body& b) {
  const Vec3 c = b.x * b.mass / b.total_mass();
  Eigen::Matrix3d I = Eigen::Matrix3d::Zero();
  for (Index i = 0; i < b.num_nodes(); ++i) {
    const Vec3 r = b.x.col(i) - c;
    I += b.mass[i] * (r.squaredNorm() * Eigen::Matrix3d::Identity() - r * r.transpose());
  }
  return I.ldlt().solve(angular_momentum(b, c));
}

// One step of a solid on its own, in CutCellSimulator::step's order: positions (stage 1),
// gravity by forward Euler (stage 3), the backward Euler velocity step (stage 5).
inline linsolve::Report step(solid::Body& b, Real dt, const Vec3& gravity, const linsolve::PcgSettings& pcg = {}) {
  solid::update_positions(b, dt);
  solid::apply_gravity(b, gravity, dt);
  return solid::advance_velocities(b, dt, Vec3::Zero(), pcg);
}

}  // namespace fsicut::test
