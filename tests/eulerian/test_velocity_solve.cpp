#include <doctest/doctest.h>

#include "lib/eulerian/elasticity.hpp"
#include "lib/eulerian/velocity_solve.hpp"
#include "tests/eulerian/fixtures.hpp"

using namespace fsicut;
using namespace fsicut::eulerian;

namespace {

// A compressed ball's system over its unknowns.
struct System {
  grid::MacGrid g = test::cube_grid(8, 0.125);
  Unknowns unknowns;
  Vector mass, force;
  linsolve::SparseMatrix K;
  System() {
    const Vec3 c(0.5, 0.5, 0.5);
    const MaterialShape shape = test::ball(g, c, 0.3);
    const NodeField u = test::sample_field(g, [&](const Vec3& x) { return Vec3(x - Vec3(1.1, 0.8, 1.0).cwiseInverse().cwiseProduct(x - c) - c); });
    const ElasticState s = evaluate_elasticity(g, u, test::all_valid(g), shape, lame_from_young(1e5, 0.3));
    const std::vector<Real> node_mass = lumped_masses(g, s, 1000);
    unknowns = make_unknowns(g, node_mass);
    mass = gather_mass(unknowns, node_mass);
    force = gather(unknowns, elastic_forces(g, s));
    K = assemble_stiffness(g, s, unknowns);
  }
};

}  // namespace

TEST_CASE("eulerian velocity solve: Eq. 8 is solved to its tolerance, and G is M + dt C + dt^2 K") {
  const System sys;
  REQUIRE(sys.unknowns.size() > 100);
  const Damping damping{0.5, 0.01};
  const Real dt = 1.0 / 24;
  const Vector v0 = Vector::Constant(sys.mass.size(), 0.1);
  Vector v = v0;
  VelocitySettings settings;
  const linsolve::Report r = solve_velocity(sys.mass, sys.K, damping, dt, sys.force, v, settings);
  CHECK(r.converged);
  CHECK(r.iterations > 0);
  const linsolve::SparseMatrix G = system_matrix(sys.mass, sys.K, damping, dt);
  const Vector rhs = sys.mass.cwiseProduct(v0) + dt * sys.force;
  CHECK((G * v - rhs).norm() <= 1e-3 * rhs.norm());
  // G applied: (1 + dt tau_m) M w + (dt tau_k + dt^2) K w.
  const Vector w = Vector::LinSpaced(sys.mass.size(), -1, 1);
  const Vector expected = (1 + dt * 0.5) * sys.mass.cwiseProduct(w) + (dt * 0.01 + dt * dt) * (sys.K * w);
  CHECK((G * w - expected).norm() < 1e-12 * expected.norm());
}

TEST_CASE("eulerian velocity solve: the explicit option is forward Euler") {
  const System sys;
  const Damping damping{0.5, 0.01};
  const Real dt = 1e-3;
  const Vector v0 = Vector::LinSpaced(sys.mass.size(), -0.2, 0.3);
  Vector v = v0;
  VelocitySettings settings;
  settings.integration = Integration::explicit_euler;
  const linsolve::Report r = solve_velocity(sys.mass, sys.K, damping, dt, sys.force, v, settings);
  CHECK(r.iterations == 0);
  const Vector C_v = 0.5 * sys.mass.cwiseProduct(v0) + 0.01 * (sys.K * v0);
  const Vector expected = v0 + dt * (sys.force - C_v).cwiseQuotient(sys.mass);
  CHECK((v - expected).norm() < 1e-12 * expected.norm());
}

TEST_CASE("eulerian velocity solve: the newmark option solves (M + dt/2 C + dt^2/4 K) v = M v^n + dt f - (dt/2 C + dt^2/4 K) v^n") {
  const System sys;
  const Damping damping{0.5, 0.01};
  const Real dt = 1.0 / 24;
  const Vector v0 = Vector::LinSpaced(sys.mass.size(), -0.2, 0.3);
  // G applied: (1 + dt/2 tau_m) M w + (dt/2 tau_k + dt^2/4) K w.
  const linsolve::SparseMatrix G = system_matrix(sys.mass, sys.K, damping, dt, Integration::newmark);
  const Vector w = Vector::LinSpaced(sys.mass.size(), -1, 1);
  const Vector Gw = (1 + dt / 2 * 0.5) * sys.mass.cwiseProduct(w) + (dt / 2 * 0.01 + dt * dt / 4) * (sys.K * w);
  CHECK((G * w - Gw).norm() < 1e-12 * Gw.norm());
  // The right-hand side, with C v^n and K v^n spelled out.
  const Vector C_v = 0.5 * sys.mass.cwiseProduct(v0) + 0.01 * (sys.K * v0);
  const Vector rhs = sys.mass.cwiseProduct(v0) + dt * sys.force - dt / 2 * C_v - dt * dt / 4 * (sys.K * v0);
  CHECK((right_hand_side(sys.mass, G, dt, sys.force, v0, Integration::newmark) - rhs).norm() < 1e-12 * rhs.norm());
  // Eq. 8's is unchanged: M v^n + dt f.
  const Vector eq8 = sys.mass.cwiseProduct(v0) + dt * sys.force;
  CHECK((right_hand_side(sys.mass, G, dt, sys.force, v0, Integration::semi_implicit) - eq8).norm() == 0);
  // And the solve meets its tolerance on that system.
  Vector v = v0;
  VelocitySettings settings;
  settings.integration = Integration::newmark;
  const linsolve::Report r = solve_velocity(sys.mass, sys.K, damping, dt, sys.force, v, settings);
  CHECK(r.converged);
  CHECK(r.iterations > 0);
  CHECK((G * v - rhs).norm() <= 1e-3 * rhs.norm());
}

TEST_CASE("eulerian velocity solve: on a linear spring the newmark step keeps the energy that backward Euler loses") {
  // One unknown node (3 dofs) on a spring K = k I, no damping: with f = -k u
  // at each step, the newmark step is the trapezoidal rule, which keeps
  // 1/2 m v^2 + 1/2 k u^2 to round-off; backward Euler multiplies it by
  // 1 / (1 + (omega dt)^2) per step.
  const Real m = 2, k = 50, dt = 0.1;  // omega dt = 0.5
  const Vector mass = Vector::Constant(3, m);
  linsolve::SparseMatrix K(3, 3);
  for (int i = 0; i < 3; ++i) K.insert(i, i) = k;
  VelocitySettings settings;
  settings.tolerance = 1e-12;
  const auto energy = [&](const Vector& u, const Vector& v) { return 0.5 * m * v.squaredNorm() + 0.5 * k * u.squaredNorm(); };
  for (Integration integration : {Integration::newmark, Integration::semi_implicit}) {
    settings.integration = integration;
    Vector u = Vector::Constant(3, 0.1), v = Vector::Zero(3);
    const Real e0 = energy(u, v);
    for (int n = 0; n < 40; ++n) {
      const Vector v_start = v;
      const Vector force = -k * u;
      solve_velocity(mass, K, Damping{}, dt, force, v, settings);
      u += integration == Integration::newmark ? Vector(dt / 2 * (v_start + v)) : Vector(dt * v);
    }
    const Real kept = energy(u, v) / e0;
    MESSAGE("energy kept after 40 steps at omega dt = 0.5: " << kept);
    if (integration == Integration::newmark)
      CHECK(kept == doctest::Approx(1).epsilon(1e-9));
    else
      CHECK(kept == doctest::Approx(std::pow(1 / (1 + 0.25), 40)).epsilon(1e-6));
  }
}
