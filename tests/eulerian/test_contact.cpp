#include <doctest/doctest.h>

#include <cmath>

#include "lib/eulerian/contact.hpp"

using namespace fsicut;
using namespace fsicut::eulerian;

namespace {

// A ball of radius r [m] filled with a lattice of spacing s [m], every
// particle of mass 1000 s^3 [kg] moving at v [m/s].
Particles cloud(const Vec3& center, Real r, Real s, const Vec3& v) {
  Particles p;
  const int n = static_cast<int>(std::ceil(r / s));
  for (int k = -n; k <= n; ++k)
    for (int j = -n; j <= n; ++j)
      for (int i = -n; i <= n; ++i) {
        const Vec3 offset = s * Vec3(i + 0.5, j + 0.5, k + 0.5);
        if (offset.norm() >= r) continue;
        p.position.push_back(center + offset);
        p.velocity.push_back(v);
        p.mass.push_back(1000 * s * s * s);
      }
  return p;
}

Vec3 mean_velocity(const Particles& p) {
  Real m = 0;
  for (Real mi : p.mass) m += mi;
  return momentum(p) / m;
}

Vec3 centre(const Particles& p) {
  Vec3 c = Vec3::Zero();
  Real m = 0;
  for (Index i = 0; i < p.size(); ++i) c += p.mass[i] * p.position[i], m += p.mass[i];
  return c / m;
}

Real momentum_scale(const Particles& a, const Particles& b) {
  Real s = 0;
  for (const Particles* p : {&a, &b})
    for (Index i = 0; i < p->size(); ++i) s += p->mass[i] * p->velocity[i].norm();
  return s;
}

struct HeadOn {
  Particles a, b;
  Vec3 momentum_error = Vec3::Zero();
  Index impulses = 0;
};

// Two balls of radius 0.15 m, 0.5 m apart, closing at 1.5 m/s along x (a
// sliding 0.2 m/s along y against b), dt = 0.01 s, for 60 steps (0.9 m of
// approach: without contact they pass through each other).
HeadOn head_on(const ContactSettings& settings) {
  HeadOn out{cloud(Vec3(0, 0, 0), 0.15, 0.025, Vec3(1.0, 0.2, 0)), cloud(Vec3(0.5, 0.02, 0), 0.15, 0.025, Vec3(-0.5, 0, 0))};
  const Vec3 before = momentum(out.a) + momentum(out.b);
  const Real dt = 0.01;
  for (int step = 0; step < 60; ++step) {
    out.impulses += resolve_contacts({&out.a, &out.b}, dt, settings).impulses;
    advect_particles(out.a, dt);
    advect_particles(out.b, dt);
  }
  out.momentum_error = momentum(out.a) + momentum(out.b) - before;
  return out;
}

// Particle i of mass 1 at the origin moving (1, 0.3, 0); j of mass 2 at
// (0.04, 0, 0) at rest; h = 0.05 m (overlap 0.01 m), k = 1e4 N/m, dt = 0.01 s.
// Eq. 14: v_N = -1, r = min(1, (2/3)(0.1 + 1)) = 0.7333 N s, dv_N = 1.1 m/s.
struct Pair {
  Particles a, b;
};
Pair resolve_pair(Real friction) {
  Pair p;
  p.a.position = {Vec3::Zero()};
  p.a.velocity = {Vec3(1, 0.3, 0)};
  p.a.mass = {1};
  p.b.position = {Vec3(0.04, 0, 0)};
  p.b.velocity = {Vec3::Zero()};
  p.b.mass = {2};
  ContactSettings s;
  s.stiffness = 1e4;
  s.friction = friction;
  s.distance = 0.05;
  const ContactReport r = resolve_contacts({&p.a, &p.b}, 0.01, s);
  REQUIRE(r.impulses == 1);
  CHECK(r.max_overlap == doctest::Approx(0.01));
  return p;
}

Vec3 relative(const Pair& p) { return p.a.velocity[0] - p.b.velocity[0]; }

}  // namespace

TEST_CASE("eulerian contact: two balls driven together separate with contact on and pass through with it off") {
  ContactSettings on;
  on.stiffness = 1e4;  // the paper's Table 1 (Ball, Party)
  on.friction = 0;
  on.distance = 0.05;
  const HeadOn with = head_on(on);
  const Real closing = mean_velocity(with.a).x() - mean_velocity(with.b).x();
  MESSAGE("contact on: relative x velocity " << closing << " m/s (was 1.5 closing), centres "
                                             << centre(with.b).x() - centre(with.a).x() << " m apart");
  CHECK(with.impulses > 0);
  CHECK(closing <= 1e-12);  // reversed or stopped
  CHECK(centre(with.a).x() < centre(with.b).x());
  CHECK(with.momentum_error.norm() < 1e-13 * momentum_scale(with.a, with.b));

  ContactSettings off = on;
  off.stiffness = 0;
  const HeadOn without = head_on(off);
  CHECK(without.impulses == 0);
  CHECK(mean_velocity(without.a).x() == doctest::Approx(1.0).epsilon(1e-14));
  CHECK(centre(without.a).x() > centre(without.b).x());
}

TEST_CASE("eulerian contact: friction slows the sliding of two balls and keeps its direction") {
  ContactSettings s;
  s.stiffness = 1e4;
  s.distance = 0.05;
  s.friction = 0;
  const HeadOn slip = head_on(s);
  s.friction = 0.5;
  const HeadOn grip = head_on(s);
  const Real slide_slip = mean_velocity(slip.a).y() - mean_velocity(slip.b).y();
  const Real slide_grip = mean_velocity(grip.a).y() - mean_velocity(grip.b).y();
  MESSAGE("relative y velocity (0.2 m/s before contact): friction 0 " << slide_slip << ", friction 0.5 " << slide_grip);
  CHECK(slide_grip < slide_slip);
  CHECK(slide_grip >= 0);
  CHECK(grip.momentum_error.norm() < 1e-13 * momentum_scale(grip.a, grip.b));
}

TEST_CASE("eulerian contact: one pair gets Eq. 14's impulse and Eq. 15's friction up to the stick limit") {
  const Pair free = resolve_pair(0);
  // Normal: relative velocity -1 -> 0.1 d / dt = 0.1 m/s (the cap of Eq. 14).
  CHECK(-relative(free).x() == doctest::Approx(0.1).epsilon(1e-12));
  CHECK(relative(free).y() == doctest::Approx(0.3).epsilon(1e-14));  // friction 0: tangential unchanged
  const Vec3 total = free.a.velocity[0] * 1 + free.b.velocity[0] * 2;
  CHECK((total - Vec3(1, 0.3, 0)).norm() < 1e-15);

  // mu dv_N = 0.11 < 0.3: the sliding slows to 0.19 m/s.
  CHECK(relative(resolve_pair(0.1)).y() == doctest::Approx(0.19).epsilon(1e-12));
  // mu dv_N = 0.55 > 0.3: it stops (stick) and does not reverse.
  const Pair stick = resolve_pair(0.5);
  CHECK(std::abs(relative(stick).y()) < 1e-15);
  CHECK(-relative(stick).x() == doctest::Approx(0.1).epsilon(1e-12));
  const Vec3 stick_total = stick.a.velocity[0] * 1 + stick.b.velocity[0] * 2;
  CHECK((stick_total - Vec3(1, 0.3, 0)).norm() < 1e-15);
}
