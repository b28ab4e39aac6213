#include "lib/eulerian/contact.hpp"

#include <algorithm>
#include <cmath>

namespace fsicut::eulerian {

namespace {

// psi(x) = phi(x - u(x)) of `solid`, or false where a corner of x's cell is
// outside its band.
bool distance_at(const EulerianSolid& solid, const Vec3& x, Real& psi) {
  Vec3 xi;
  const Vec3i cell = locate(solid.grid, x, xi);
  for (int q = 0; q < CORNERS; ++q)
    if (!solid.valid[static_cast<std::size_t>(corner_node(solid.grid, cell, q))]) return false;
  psi = material_distance(solid.shape, x - interpolate(solid.grid, solid.u, x));
  return true;
}

// The unit gradient of psi at x by central differences of a quarter cell;
// false where a sample is outside the band or the gradient vanishes.
bool normal_at(const EulerianSolid& solid, const Vec3& x, Vec3& n) {
  const Real e = 0.25 * solid.grid.dx;
  for (int a = 0; a < 3; ++a) {
    Real plus = 0, minus = 0;
    if (!distance_at(solid, x + e * Vec3::Unit(a), plus) || !distance_at(solid, x - e * Vec3::Unit(a), minus))
      return false;
    n[a] = (plus - minus) / (2 * e);
  }
  const Real length = n.norm();
  if (!(length > 0)) return false;
  n /= length;
  return true;
}

}  // namespace

Vec3 contact_velocity_change(const Vec3& relative, const Vec3& normal, Real overlap, Real mass, Real dt,
                             const ContactSettings& settings) {
  const Real v_n = relative.dot(normal);
  const Real r = std::min(dt * settings.stiffness * overlap, mass * (0.1 * overlap / dt - v_n));
  if (!(r > 0)) return Vec3::Zero();
  const Real dv_n = r / mass;
  Vec3 change = dv_n * normal;
  const Vec3 v_t = relative - v_n * normal;
  const Real slide = v_t.norm();
  if (slide > 0 && settings.friction > 0) change += (std::max(1 - settings.friction * dv_n / slide, Real(0)) - 1) * v_t;
  return change;
}

void push_away(Particles& particles, const EulerianSolid& own, const EulerianSolid& other,
               const NodeField& other_velocity, Real dt, const ContactSettings& settings, ContactReport& report) {
  if (settings.stiffness <= 0 || settings.distance <= 0) return;
  for (Index p = 0; p < particles.size(); ++p) {
    const Vec3& x = particles.position[p];
    Real psi = 0, own_distance = 0;
    if (!distance_at(other, x, psi) || !distance_at(own, x, own_distance)) continue;
    if (own_distance < -settings.distance) continue;
    const Real d = std::min(settings.distance - psi - std::min(own_distance, Real(0)), settings.distance);
    if (!(d > 0)) continue;
    Vec3 n;
    if (!normal_at(other, x, n)) continue;
    ++report.contacts;
    report.max_overlap = std::max(report.max_overlap, d);
    const Vec3 relative = particles.velocity[p] - interpolate(other.grid, other_velocity, x);
    const Vec3 change = contact_velocity_change(relative, n, d, particles.mass[p], dt, settings);
    if (change.isZero(0)) continue;
    particles.velocity[p] += change;
    ++report.impulses;
  }
}

}  // namespace fsicut::eulerian
