#include <doctest/doctest.h>

#include <Eigen/Cholesky>
#include <cmath>
#include <memory>
#include <vector>

#include "lib/linsolve/block_diagonal_cholesky.hpp"
#include "tests/solid/fixtures.hpp"

using namespace fsicut;
using namespace fsicut::solid;

namespace {

constexpr Real PI = 3.14159265358979323846;
const Vec3 NO_GRAVITY(0, 0, 0);
const Vec3 GRAVITY(0, -9.81, 0);

// Solver settings for the conservation tests: tighter than the default so the
// measured drift is the integrator's, not the solver's.
linsolve::PcgSettings tight_pcg() {
  linsolve::PcgSettings s;
  s.tolerance = 1e-13;
  return s;
}

}  // namespace

TEST_CASE("backward Euler system (6): shapes and symmetry and definiteness and the right-hand side") {
  BodySpec d = test::solid_desc(1000, 1e5, 0.3);
  d.tau_m = 0.7;
  d.tau_k = 0.02;
  d.velocity = Vec3(0.1, 0.2, -0.3);
  d.pinned = test::pin_box(Vec3(-1, -1, -1), Vec3(0, 1, 1));
  d.initial_scale = 0.9;
  Body b = test::box_body(d, Vec3(0, 0, 0), Vec3(0.4, 0.1, 0.1), Vec3i(4, 1, 1));
  const Real dt = 0.01;
  const BackwardEulerSystem s = backward_euler_system(b, dt, GRAVITY);
  const int nf = b.dofs.num_free_dofs();
  REQUIRE(nf == 3 * (b.num_nodes() - 4));
  REQUIRE(s.A.rows() == nf);
  REQUIRE(s.b.size() == nf);

  const Eigen::MatrixXd A(s.A), K(s.K), D(s.D);
  const Eigen::MatrixXd M = s.mass.asDiagonal();
  const Real scale = A.cwiseAbs().maxCoeff();
  CHECK((A - A.transpose()).cwiseAbs().maxCoeff() <= 1e-14 * scale);
  CHECK((A - (M / dt + D + dt * K)).cwiseAbs().maxCoeff() <= 1e-13 * scale);
  CHECK((D - (b.tau_m * M + b.tau_k * K)).cwiseAbs().maxCoeff() <= 1e-13 * D.cwiseAbs().maxCoeff());
  CHECK(Eigen::LLT<Eigen::MatrixXd>(A).info() == Eigen::Success);

  const Vector f_all = elastic_forces(b);
  Real rhs_err = 0;
  for (int k = 0; k < nf; ++k) {
    const int i = b.dofs.node_dof(k) / 3, c = k % 3;
    const Real expect = b.mass[i] * b.v(c, i) / dt + f_all[b.dofs.node_dof(k)] + b.mass[i] * GRAVITY[c];
    rhs_err = std::max(rhs_err, std::abs(s.b[k] - expect));
  }
  CHECK(rhs_err <= 1e-12 * s.b.cwiseAbs().maxCoeff());
}

TEST_CASE("a body at rest without forces stays at rest") {
  Body b = test::box_body(test::solid_desc(1000, 1e5, 0.3), Vec3(0, 0, 0), Vec3(0.2, 0.2, 0.2), Vec3i(2, 2, 2));
  for (int n = 0; n < 5; ++n) CHECK(test::step(b, 0.01, NO_GRAVITY).converged);
  CHECK(b.v.isZero());
  CHECK(b.x == b.mesh.rest);
}

TEST_CASE("pinned nodes never move") {
  BodySpec d = test::solid_desc(1000, 1e5, 0.3);
  d.pinned = test::pin_box(Vec3(-1, -1, -1), Vec3(0.0, 1, 1));
  d.velocity = Vec3(0, 1, 0);
  Body b = test::box_body(d, Vec3(0, 0, 0), Vec3(0.5, 0.1, 0.1), Vec3i(5, 1, 1));
  for (int n = 0; n < 50; ++n) {
    REQUIRE(test::step(b, 0.005, GRAVITY).converged);
    collide_walls(b, Vec3(-1, -0.05, -1), Vec3(1, 1, 1));
  }
  Real moved = 0, free_moved = 0;
  for (Index i = 0; i < b.num_nodes(); ++i) {
    const Real dist = (b.x.col(i) - b.mesh.rest.col(i)).norm();
    if (b.pinned[i]) {
      moved = std::max(moved, dist);
      CHECK(b.v.col(i).isZero());
    } else {
      free_moved = std::max(free_moved, dist);
    }
  }
  MESSAGE("pinned nodes moved " << moved << " m, free nodes up to " << free_moved << " m");
  CHECK(moved == 0);
  CHECK(free_moved > 1e-3);
}

TEST_CASE("wall contact keeps nodes inside the box and removes outward velocity") {
  BodySpec d = test::solid_desc(1000, 1e5, 0.3);
  d.velocity = Vec3(3, -2, 0);
  d.tau_m = 2;
  Body b = test::box_body(d, Vec3(0.1, 0.1, 0.1), Vec3(0.3, 0.3, 0.3), Vec3i(2, 2, 2));
  const Vec3 lo(0, 0, 0), hi(0.5, 1, 0.4);
  const Real dt = 0.005;
  Index contacts = 0;
  Real worst_outside = 0;
  for (int n = 0; n < 300; ++n) {
    REQUIRE(test::step(b, dt, GRAVITY).converged);
    contacts += collide_walls(b, lo, hi);
    for (Index i = 0; i < b.num_nodes(); ++i) {
      worst_outside = std::max(worst_outside, (lo - Vec3(b.x.col(i))).maxCoeff());
      worst_outside = std::max(worst_outside, (Vec3(b.x.col(i)) - hi).maxCoeff());
    }
  }
  const BodyStats s = stats(b);
  MESSAGE("wall corrections " << contacts << ", max distance outside " << worst_outside << " m, final centroid "
                              << s.centroid.transpose() << ", speed " << s.mean_velocity.norm() << " m/s");
  CHECK(contacts > 0);
  CHECK(worst_outside <= 0);
  // It ends resting on the floor y = 0, against the x = 0.5 wall it was thrown at.
  CHECK(b.x.row(1).minCoeff() == doctest::Approx(0).epsilon(1e-12));
  CHECK(s.centroid.y() == doctest::Approx(0.1).epsilon(0.05));
}

TEST_CASE("collide_walls: projection onto the box with the outward normal velocity removed and the rest kept") {
  BodySpec d = test::solid_desc(1000, 1e5, 0.3);
  d.pinned = test::pin_box(Vec3(-1, -1, -1), Vec3(1e-9, 1e-9, 1e-9));  // node 0 at the origin
  Body b = test::box_body(d, Vec3(0, 0, 0), Vec3(1, 1, 1), Vec3i(1, 1, 1));
  REQUIRE(b.pinned[0]);
  b.x.col(0) = Vec3(-0.5, 0, 0);  // a pinned node is never touched, even outside
  b.x.col(1) = Vec3(1.2, 0.5, -0.1);
  b.v.col(1) = Vec3(2, 3, -4);  // out through x = hi and z = lo, tangential along y
  b.x.col(2) = Vec3(0.5, -0.3, 0.5);
  b.v.col(2) = Vec3(1, 5, 0);  // outside y = lo but already moving inward
  const Index hits = collide_walls(b, Vec3(0, 0, 0), Vec3(1, 1, 1));
  CHECK(hits == 2);
  CHECK(b.x.col(0) == Vec3(-0.5, 0, 0));
  CHECK(b.x.col(1) == Vec3(1, 0.5, 0));
  CHECK(b.v.col(1) == Vec3(0, 3, 0));
  CHECK(b.x.col(2) == Vec3(0.5, 0, 0.5));
  CHECK(b.v.col(2) == Vec3(1, 5, 0));
}

TEST_CASE("a spinning body with only stiffness damping keeps its angular velocity (corotated damping)") {
  BodySpec d = test::solid_desc(1000, 1e5, 0.3);
  d.tau_k = 0.01;  // tau_k [s]
  Body b = test::box_body(d, Vec3(-0.1, -0.1, -0.1), Vec3(0.1, 0.1, 0.1), Vec3i(3, 3, 3));
  const Vec3 omega0 = 2 * PI * Vec3(0, 0, 1);  // one turn per second
  for (Index i = 0; i < b.num_nodes(); ++i) b.v.col(i) = omega0.cross(Vec3(b.x.col(i)));
  const Vec3 L0 = test::angular_momentum(b);
  const Real dt = 1.0 / 200;
  for (int n = 0; n < 200; ++n) REQUIRE(test::step(b, dt, NO_GRAVITY).converged);
  const Vec3 omega = test::angular_velocity(b);
  const Real kept = omega.dot(omega0) / omega0.squaredNorm();
  const Real L_kept = test::angular_momentum(b).dot(L0) / L0.squaredNorm();
  // Most of the small loss of omega is physical: the spinning body stretches
  // (centrifugal strain ~ rho omega^2 r^2 / E ~ 0.4 %), its inertia grows, and
  // the angular momentum, which damping would drain, stays.
  MESSAGE("angular velocity after 1 s: " << omega.transpose() << " rad/s, kept " << 100 * kept
                                         << " %; angular momentum kept " << 100 * L_kept << " %");
  CHECK(kept > 0.99);
  CHECK(L_kept > 0.999);
}

TEST_CASE("free flight without damping conserves linear and angular momentum") {
  BodySpec d = test::solid_desc(1000, 1e5, 0.3);
  d.initial_scale = 0.9;  // starts compressed: it vibrates while it flies and spins
  Body b = test::box_body(d, Vec3(0.0, 0.0, 0.0), Vec3(0.3, 0.2, 0.1), Vec3i(3, 2, 2));
  const Vec3 omega(1, 2, 5), vel(0.5, -0.2, 1.0);
  for (Index i = 0; i < b.num_nodes(); ++i) b.v.col(i) = vel + omega.cross(Vec3(b.x.col(i) - Vec3(0.15, 0.1, 0.05)));
  const Vec3 p0 = test::linear_momentum(b), L0 = test::angular_momentum(b);
  const Real dt = 1.0 / 200;
  Real p_drift = 0, L_drift = 0;
  for (int n = 0; n < 200; ++n) {
    REQUIRE(test::step(b, dt, NO_GRAVITY, tight_pcg()).converged);
    p_drift = std::max(p_drift, (test::linear_momentum(b) - p0).norm() / p0.norm());
    L_drift = std::max(L_drift, (test::angular_momentum(b) - L0).norm() / L0.norm());
  }
  MESSAGE("over 1 s: max relative drift of linear momentum " << p_drift << ", of angular momentum " << L_drift);
  CHECK(p_drift < 1e-10);
  CHECK(L_drift < 0.01);
}

TEST_CASE("a cube started at one eighth of its volume recovers its rest volume") {
  BodySpec d = test::solid_desc(1000, 1e5, 0.3);
  d.initial_scale = 0.5;
  d.tau_m = 20;
  d.tau_k = 1e-3;
  Body b = test::box_body(d, Vec3(0, 0, 0), Vec3(0.2, 0.2, 0.2), Vec3i(3, 3, 3));
  const Real rest = 0.008;
  const Real v0 = stats(b).volume;
  const Real dt = 1e-3;
  for (int n = 0; n < 1000; ++n) REQUIRE(test::step(b, dt, NO_GRAVITY).converged);
  const BodyStats s = stats(b);
  MESSAGE("volume: start " << v0 / rest << " x rest, after 1 s " << s.volume / rest << " x rest; kinetic "
                           << s.kinetic_energy << " J, elastic " << s.elastic_energy << " J");
  CHECK(v0 / rest == doctest::Approx(0.125).epsilon(1e-12));
  CHECK(std::abs(s.volume / rest - 1) < 0.01);
}

namespace {

// The cantilever as a body: 1 x 0.1 x 0.1 m, 20 cells long and
// `layers` across, clamped at x = 0, density 1000 kg/m^3, mass damping 30 1/s.
Body quadratic_cantilever(int layers, Real E) {
  BodySpec d = test::solid_desc(1000, E, 0.3);
  d.element = ElementOrder::quadratic;
  d.tau_m = 30;
  d.pinned = test::pin_box(Vec3(-1, -1, -1), Vec3(1e-9, 1, 1));
  return test::box_body(d, Vec3(0, 0, -0.05), Vec3(1, 0.1, 0.05), Vec3i(20, layers, layers));
}

}  // namespace

TEST_CASE("the velocity step: Cholesky with its analysis kept - the PCG fallback converges on quadratic elements") {
  const Real dt = 1.0 / 30;
  for (int layers : {1, 2})
    for (Real E : {1e8, 1e11}) {
      INFO(layers << " layers, E " << E << " Pa");
      Body direct = quadratic_cantilever(layers, E);
      Body fallback = direct;
      for (int n = 0; n < 2; ++n) {
        const linsolve::Report d = test::step(direct, dt, GRAVITY);
        const std::shared_ptr<detail::VelocitySolver> set_up = direct.velocity_solver.solver;
        solid::update_positions(fallback, dt);
        solid::apply_gravity(fallback, GRAVITY, dt);
        // No factorization allowed: the PCG a body too large to factor gets.
        const linsolve::Report p = solid::advance_velocities(fallback, dt, NO_GRAVITY, {}, 0);
        INFO("substep " << n << ": Cholesky " << d.iterations << " iterations, residual " << d.relative_residual
                        << "; PCG " << p.iterations << " iterations, residual " << p.relative_residual << " (floor "
                        << p.round_off_floor << ")");
        CHECK(solves_directly(direct));
        CHECK_FALSE(solves_directly(fallback));
        CHECK(d.converged);
        CHECK(d.iterations <= 1 + linsolve::MAX_REFINEMENTS);
        CHECK(d.relative_residual <= std::max(1e-10, linsolve::ROUND_OFF_MARGIN * d.round_off_floor));
        CHECK(p.converged);
        CHECK(p.iterations < 2000);
        // Both solve the same system: the velocities agree to the tolerance's order.
        CHECK((fallback.v - direct.v).norm() <= 1e-6 * direct.v.norm());
        // The symbolic analysis is made once per body and kept.
        test::step(direct, dt, GRAVITY);
        CHECK(direct.velocity_solver.solver == set_up);
        fallback.x = direct.x;
        fallback.v = direct.v;
        solid::update_rotations(fallback);
      }
    }
}

TEST_CASE("the velocity step: a copy of a body sets up its own solve and steps bit for bit like the original") {
  Body original = quadratic_cantilever(2, 1e8);
  const Real dt = 1.0 / 30;
  for (int n = 0; n < 2; ++n) test::step(original, dt, GRAVITY);
  Body copy = original;  // as a resumed run's bodies: the state, no set-up
  CHECK(copy.velocity_solver.solver == nullptr);
  for (int n = 0; n < 3; ++n) {
    test::step(original, dt, GRAVITY);
    test::step(copy, dt, GRAVITY);
  }
  CHECK(copy.velocity_solver.solver != original.velocity_solver.solver);
  CHECK(copy.x == original.x);
  CHECK(copy.v == original.v);
  // New pinned nodes change the unknowns: the set-up is made again.
  const std::shared_ptr<detail::VelocitySolver> before = original.velocity_solver.solver;
  std::vector<char> pinned = original.pinned;
  pinned.back() = 1;
  set_pinned(original, pinned);
  CHECK(test::step(original, dt, GRAVITY).converged);
  CHECK(original.velocity_solver.solver != before);
}

TEST_SUITE("validation") {
  // Clamped box beam along x under gravity -y, L x h x h = 1 x 0.1 x 0.1 m, the
  // x = 0 face clamped: settled with critical mass damping, then released
  // without gravity or damping and timed over its zero crossings. nu = 0 makes
  // the 3-D beam a uniaxial-stress beam like the theory (no anticlastic
  // constraint at the clamp). E = 1e8 Pa keeps the tip deflection at 1.5 % of L.
  // References: Euler-Bernoulli q L^4 / (8 E I) plus Timoshenko's shear
  // deflection q L^2 / (2 kappa G A) (kappa = 5/6; +0.8 % at L/h = 10), and the
  // first bending frequency (1.8751^2 / 2 pi) sqrt(E I / (rho A L^4)) (shear and
  // rotary inertia lower it by about 0.5 % here).
  struct Cantilever {
    Real deflection_ratio = 0;  // static tip deflection / (bending + shear reference)
    Real frequency_ratio = 0;   // first bending frequency / Euler-Bernoulli's
  };

  Cantilever cantilever(ElementOrder element, const Vec3i& cells) {
    const Real L = 1, h = 0.1, E = 1e8, rho = 1000, g = 9.81;
    BodySpec d = test::solid_desc(rho, E, 0.0);
    d.element = element;
    d.pinned = test::pin_box(Vec3(-1, -1, -1), Vec3(0, 1, 1));
    Body b = test::box_body(d, Vec3(0, 0, 0), Vec3(L, h, h), cells);
    Index tip = -1;  // the mid-line node of the free end
    for (Index i = 0; i < b.num_nodes(); ++i)
      if ((b.mesh.rest.col(i) - Vec3(L, h / 2, h / 2)).norm() < 1e-9) tip = i;
    REQUIRE(tip >= 0);

    const Real A = h * h, I = h * h * h * h / 12, q = rho * A * g;
    const Real G = E / 2, kappa = 5.0 / 6;  // nu = 0
    const Real deflection_ref = q * L * L * L * L / (8 * E * I) + q * L * L / (2 * kappa * G * A);
    const Real omega_ref = 1.8751 * 1.8751 * std::sqrt(E * I / (rho * A * L * L * L * L));
    const Real freq_ref = omega_ref / (2 * PI);

    // The slender beam's bending modes make (6) ill-conditioned; a relative
    // residual of 1e-9 is far below the discretization error here.
    linsolve::PcgSettings pcg;
    pcg.tolerance = 1e-9;
    long iterations = 0;
    const auto advance = [&](Real dt, const Vec3& gravity) {
      const linsolve::Report r = test::step(b, dt, gravity, pcg);
      iterations += r.iterations;
      return r.converged;
    };

    // Phase 1: damped to rest under gravity (mass damping critical for the first mode).
    b.tau_m = 2 * omega_ref;
    const Real dt_static = 0.02;
    const int static_steps = 32;
    for (int n = 0; n < static_steps; ++n) REQUIRE(advance(dt_static, Vec3(0, -g, 0)));
    const Real deflection = b.mesh.rest(1, tip) - b.x(1, tip);
    const Real tip_speed = b.v.col(tip).norm();
    MESSAGE(b.num_nodes() << " nodes: tip deflection " << deflection
                          << " m vs q L^4 / (8 E I) + q L^2 / (2 kappa G A) = " << deflection_ref << " m (ratio "
                          << deflection / deflection_ref << "), residual tip speed " << tip_speed << " m/s after "
                          << static_steps << " steps of " << dt_static << " s, " << iterations << " PCG iterations");
    CHECK(tip_speed < 1e-3 * deflection * omega_ref);

    // Phase 2: release without gravity or damping; the beam swings about its rest
    // shape, mostly in its first mode.
    b.tau_m = 0;
    const int steps_per_period = 60;
    const Real dt = 1 / (steps_per_period * freq_ref);
    std::vector<Real> crossings;
    Real prev = b.x(1, tip) - b.mesh.rest(1, tip);
    iterations = 0;
    for (int n = 1; n <= 5 * steps_per_period / 2; ++n) {
      REQUIRE(advance(dt, NO_GRAVITY));
      const Real y = b.x(1, tip) - b.mesh.rest(1, tip);
      if ((prev < 0) != (y < 0)) crossings.push_back((n - 1 + prev / (prev - y)) * dt);
      prev = y;
    }
    REQUIRE(crossings.size() >= 5);
    const Real period = 2 * (crossings.back() - crossings.front()) / static_cast<Real>(crossings.size() - 1);
    const Real freq = 1 / period;
    MESSAGE("first bending frequency " << freq << " Hz vs (1.8751^2 / 2 pi) sqrt(E I / (rho A L^4)) = " << freq_ref
                                       << " Hz (ratio " << freq / freq_ref << "), from " << crossings.size()
                                       << " zero crossings, " << iterations << " PCG iterations");
    return {deflection / deflection_ref, freq / freq_ref};
  }

  // Linear tets lock in bending, so the thickness and length need many cells:
  // statically 40 x 4 x 4 cells reach 83 % of q L^4 / (8 E I), 60 x 6 x 6 92 %,
  // 60 x 8 x 2 (1647 nodes, 8 cells through h) 94 % (0.937 of the reference
  // with shear); the width needs few.
  TEST_CASE("cantilever under gravity: static tip deflection and first bending frequency") {
    const Cantilever c = cantilever(ElementOrder::linear, Vec3i(60, 8, 2));
    CHECK(std::abs(c.deflection_ratio - 1) < 0.10);
    CHECK(std::abs(c.frequency_ratio - 1) < 0.05);
  }

  // Quadratic tets (linear strain) bend without locking: two cells through the
  // thickness (20 x 2 x 2 cubes, 1025 nodes) meet the references within 3 %.
  TEST_CASE("cantilever of quadratic tets two layers thick: tip deflection and first frequency within 3 percent") {
    const Cantilever c = cantilever(ElementOrder::quadratic, Vec3i(20, 2, 2));
    CHECK(std::abs(c.deflection_ratio - 1) < 0.03);
    CHECK(std::abs(c.frequency_ratio - 1) < 0.03);
  }

}  // TEST_SUITE("validation")
