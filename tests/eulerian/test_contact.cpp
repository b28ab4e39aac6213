#include <doctest/doctest.h>

#include <cmath>

#include "lib/eulerian/contact.hpp"
#include "tests/eulerian/fixtures.hpp"

using namespace fsicut;
using namespace fsicut::eulerian;

namespace {

// A ball of radius 4 cells at rest, undeformed, on 16^3 cells of 1/16 m.
EulerianSolid ball(const Vec3& center) {
  const grid::MacGrid g = test::cube_grid(16, 1.0 / 16);
  return make_solid(g, test::ball(g, center, 0.25), lame_from_young(1e5, 0.3), 1000, [](const Vec3& x) { return x; });
}

ContactSettings paper_contact(Real friction) {
  ContactSettings s;
  s.stiffness = 1e4;  // the paper's Table 1 (Ball, Party)
  s.friction = friction;
  s.distance = 1.0 / 16;
  return s;
}

}  // namespace

TEST_CASE("eulerian contact: Eq. 14's capped impulse and Eq. 15's friction up to the stick limit") {
  // Mass 1 kg moving (-1, 0.3, 0) relative to the other solid, normal +x,
  // overlap 0.01 m, k = 1e4 N/m, dt = 0.01 s: r = min(1, 0.1 + 1) = 1 N s,
  // so the normal velocity changes by 1 m/s (the spring, under the cap).
  const Vec3 rel(-1, 0.3, 0), n(1, 0, 0);
  ContactSettings s = paper_contact(0);
  const Vec3 free = contact_velocity_change(rel, n, 0.01, 1, 0.01, s);
  CHECK(free.x() == doctest::Approx(1).epsilon(1e-14));
  CHECK(free.y() == 0);
  // A mass of 0.5 kg: the cap 0.5 (0.1 + 1) = 0.55 N s < 1, dv_N = 1.1: the
  // particle leaves at 0.1 d / dt = 0.1 m/s.
  CHECK((rel + contact_velocity_change(rel, n, 0.01, 0.5, 0.01, s)).x() == doctest::Approx(0.1).epsilon(1e-12));
  // mu dv_N = 0.1 < 0.3: the sliding slows to 0.2 m/s.
  s.friction = 0.1;
  CHECK((rel + contact_velocity_change(rel, n, 0.01, 1, 0.01, s)).y() == doctest::Approx(0.2).epsilon(1e-12));
  // mu dv_N = 0.5 > 0.3: it stops (stick) and does not reverse.
  s.friction = 0.5;
  const Vec3 stick = rel + contact_velocity_change(rel, n, 0.01, 1, 0.01, s);
  CHECK(std::abs(stick.y()) < 1e-15);
  CHECK(stick.x() == doctest::Approx(0).epsilon(1e-12));
  // Leaving faster than the cap already: no impulse.
  CHECK(contact_velocity_change(Vec3(0.5, 0.3, 0), n, 0.01, 1, 0.01, s).isZero(0));
}

TEST_CASE("eulerian contact: a particle near a ball is pushed along the ball's normal by the overlap of the surfaces") {
  // Solid `other` centred at (0.5, 0.5, 0.5), radius 0.25 m; `own` a ball
  // whose surface passes 0.02 m below the particle. The particle sits at
  // 0.3 m from other's centre along (1, 1, 0)/sqrt 2: psi = 0.05 m, depth
  // 0.02 m, so the surfaces are 0.03 m apart and d = h - 0.03 = 0.0325 m.
  const Vec3 c(0.5, 0.5, 0.5), dir = Vec3(1, 1, 0).normalized();
  const EulerianSolid other = ball(c);
  const Vec3 x = c + 0.3 * dir;
  const EulerianSolid own = ball(x + 0.27 * dir);
  Particles p;
  p.position = {x};
  p.velocity = {-dir};  // approaching at 1 m/s
  p.mass = {0.01};
  ContactReport report;
  push_away(p, own, other, other.v, 0.01, paper_contact(0), report);
  REQUIRE(report.contacts == 1);
  CHECK(report.impulses == 1);
  // The sampled distances are trilinear on 1/16 m cells: a few mm off.
  CHECK(report.max_overlap == doctest::Approx(0.0325).epsilon(0.1));
  const Vec3 v = p.velocity[0];
  // Capped: the particle leaves at 0.1 d / dt along the normal, which is
  // radial to within the finite differences.
  CHECK(v.dot(dir) == doctest::Approx(0.1 * report.max_overlap / 0.01).epsilon(1e-9));
  CHECK((v - v.dot(dir) * dir).norm() < 0.02 * v.norm());

  // Contact off, or a particle 2 cells away: nothing.
  Particles far = p;
  far.position = {c + 0.4 * dir};
  far.velocity = {-dir};
  ContactReport none;
  push_away(far, ball(c + 0.67 * dir), other, other.v, 0.01, paper_contact(0), none);
  CHECK(none.contacts == 0);
  CHECK(far.velocity[0] == -dir);
}

TEST_CASE("eulerian contact: particles deeper than h in their solid are not pushed and an overlap counts at most h") {
  // Two balls of radius 0.25 m whose materials overlap by 0.1 m (1.6 cells),
  // as solids sharing one velocity field may. A particle inside both, 0.03 m
  // below its own surface and 0.07 m inside the other: measured from its own
  // surface the overlap is h + 0.1 m, but it counts h: it leaves at 0.1 h / dt
  // relative to the other. Before the cap such particles, and every particle
  // of the overlap down to 3 cells deep, were thrown apart at 0.1 (h + overlap)
  // / dt every step the overlap lasted: five toys in contact (the paper's
  // Party) gained energy until they blew up.
  const Vec3 c(0.5, 0.5, 0.5), dir(1, 0, 0);
  const EulerianSolid other = ball(c);
  const EulerianSolid own = ball(c + 0.4 * dir);
  const Real h = 1.0 / 16;
  Particles p;
  p.position = {c + 0.18 * dir, c + 0.28 * dir};  // 0.03 m and 0.13 m (2 cells) deep in own
  p.velocity = {Vec3::Zero(), Vec3::Zero()};
  p.mass = {0.01, 0.01};
  ContactReport report;
  push_away(p, own, other, other.v, 0.01, paper_contact(0), report);
  CHECK(report.contacts == 1);
  CHECK(report.max_overlap == doctest::Approx(h).epsilon(1e-12));
  CHECK(p.velocity[0].dot(dir) == doctest::Approx(0.1 * h / 0.01).epsilon(1e-9));
  CHECK(p.velocity[1].isZero(0));
}
