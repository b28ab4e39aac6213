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
