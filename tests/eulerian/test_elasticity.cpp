#include <doctest/doctest.h>

#include <Eigen/Eigenvalues>
#include <random>

#include "lib/eulerian/elasticity.hpp"
#include "tests/eulerian/fixtures.hpp"

using namespace fsicut;
using namespace fsicut::eulerian;

namespace {

const Lame LAME = lame_from_young(1e5, 0.3);

// A ball of radius 0.3 m in a 1 m box of 8^3 cells, deformed smoothly
// (displacements up to ~0.3 cells), as a general test state.
struct Ball {
  grid::MacGrid grid = test::cube_grid(8, 0.125);
  MaterialShape shape = test::ball(grid, Vec3(0.5, 0.5, 0.5), 0.3);
  NodeField u;
  explicit Ball(Real amplitude) {
    u = test::sample_field(grid, [&](const Vec3& x) {
      return Vec3(amplitude * Vec3(std::sin(3 * x.y() + 1), std::cos(2 * x.z() - x.x()), std::sin(x.x() + 2 * x.y())));
    });
  }
  ElasticState state(const NodeField* moved = nullptr) const {
    return evaluate_elasticity(grid, u, test::all_valid(grid), shape, LAME, moved);
  }
};

// Every node as an unknown, walls included (the tests want all of K).
Unknowns all_nodes(const grid::MacGrid& g) {
  Unknowns u;
  for (Index n = 0; n < node_count(g); ++n) {
    u.of_node.push_back(n);
    u.nodes.push_back(n);
  }
  return u;
}

}  // namespace

TEST_CASE("eulerian elasticity: a rigidly rotated ball has zero energy and zero forces") {
  const grid::MacGrid g = test::cube_grid(8, 0.125);
  const Vec3 c(0.5, 0.5, 0.5);
  const MaterialShape shape = test::ball(g, c, 0.3);
  const Mat3 R = test::rotation(1.1, Vec3(2, -1, 1));
  const NodeField u = test::sample_field(g, [&](const Vec3& x) { return Vec3(x - (R.transpose() * (x - c) + c)); });
  const ElasticState s = evaluate_elasticity(g, u, test::all_valid(g), shape, LAME);
  REQUIRE(s.points.size() > 500);
  for (const QuadraturePoint& p : s.points) CHECK((p.model.first_piola()).norm() < 1e-8 * LAME.mu);
  CHECK(std::abs(elastic_energy(s)) < 1e-18 * LAME.mu);
  CHECK(elastic_forces(g, s).cwiseAbs().maxCoeff() < 1e-9 * LAME.mu * g.dx * g.dx);
  CHECK(s.inverted == 0);
  // The rotated ball keeps its volume: 4/3 pi 0.3^3 = 0.1131 m^3 within 2 % (grid fractions).
  CHECK(solid_volume(g, s) == doctest::Approx(4.0 / 3.0 * 3.14159265 * 0.027).epsilon(0.02));
}

TEST_CASE("eulerian elasticity: forces equal -dE/dx by central differences") {
  const Ball ball(0.04);
  const ElasticState s = ball.state();
  REQUIRE(elastic_energy(s) > 0);
  const NodeField f = elastic_forces(ball.grid, s);
  std::mt19937 rng(7);
  // Along random directions d: f . d = -dE/dh of E(moved = h d).
  for (int trial = 0; trial < 3; ++trial) {
    const NodeField d = test::random_field(ball.grid, rng, ball.grid.dx);
    const Real h = 1e-5;
    const NodeField plus = h * d, minus = -h * d;
    const Real slope = (elastic_energy(ball.state(&plus)) - elastic_energy(ball.state(&minus))) / (2 * h);
    INFO("f.d = " << f.dot(d) << ", -dE/dh = " << -slope);
    CHECK(std::abs(f.dot(d) + slope) < 1e-7 * std::abs(slope));
  }
  // And dof by dof at the node of the largest force.
  Index worst;
  f.cwiseAbs().maxCoeff(&worst);
  NodeField e = zero_field(ball.grid);
  e[worst] = 1e-7;
  const NodeField minus = -e;
  const Real derivative = (elastic_energy(ball.state(&e)) - elastic_energy(ball.state(&minus))) / (2e-7);
  CHECK(std::abs(f[worst] + derivative) < 1e-6 * std::abs(f[worst]));
}

TEST_CASE("eulerian elasticity: the stiffness product is -df/dx where no clamp applies, and the assembled K equals it") {
  // A uniformly stretched ball: x = 1.2 (x_bar - c) + c, every s_i = 1.2.
  const grid::MacGrid g = test::cube_grid(6, 1.0 / 6);
  const Vec3 c(0.5, 0.5, 0.5);
  const MaterialShape shape = test::ball(g, c, 0.25);
  const NodeField u = test::sample_field(g, [&](const Vec3& x) { return Vec3(x - ((x - c) / 1.2 + c)); });
  const ElasticState s = evaluate_elasticity(g, u, test::all_valid(g), shape, LAME);
  for (const QuadraturePoint& p : s.points) REQUIRE_FALSE(p.model.clamped());
  std::mt19937 rng(3);
  const NodeField w = test::random_field(g, rng, g.dx);
  const Real h = 1e-6;
  const NodeField plus = h * w, minus = -h * w;
  const NodeField numeric = -(elastic_forces(g, evaluate_elasticity(g, u, test::all_valid(g), shape, LAME, &plus)) -
                              elastic_forces(g, evaluate_elasticity(g, u, test::all_valid(g), shape, LAME, &minus))) /
                            (2 * h);
  const NodeField Kw = stiffness_product(g, s, w);
  CHECK((numeric - Kw).norm() < 1e-6 * Kw.norm());
  const Unknowns all = all_nodes(g);
  const linsolve::SparseMatrix K = assemble_stiffness(g, s, all);
  CHECK((K * gather(all, w) - gather(all, Kw)).norm() < 1e-12 * Kw.norm());
}

TEST_CASE("eulerian elasticity: K is symmetric positive semi-definite, with the clamp active") {
  // Compressed by 30 % along y and sheared: rotational eigenvalues are clamped.
  const Ball ball(0.0);
  const Vec3 c(0.5, 0.5, 0.5);
  const Mat3 A = (Mat3() << 1.0, 0.2, 0, 0, 0.7, 0, 0, 0.1, 1.1).finished();
  const NodeField u = test::sample_field(ball.grid, [&](const Vec3& x) { return Vec3(x - (A.inverse() * (x - c) + c)); });
  const ElasticState s = evaluate_elasticity(ball.grid, u, test::all_valid(ball.grid), ball.shape, LAME);
  Index clamped = 0;
  for (const QuadraturePoint& p : s.points) clamped += p.model.clamped();
  CHECK(clamped == static_cast<Index>(s.points.size()));
  std::mt19937 rng(11);
  for (int trial = 0; trial < 5; ++trial) {
    const NodeField a = test::random_field(ball.grid, rng), b = test::random_field(ball.grid, rng);
    const NodeField Ka = stiffness_product(ball.grid, s, a), Kb = stiffness_product(ball.grid, s, b);
    CHECK(std::abs(a.dot(Kb) - b.dot(Ka)) < 1e-12 * a.norm() * Kb.norm());
    CHECK(a.dot(Ka) >= 0);
  }
  // The assembled K of a small fully solid block: eigenvalues >= -1e-12 of the
  // largest, and at a rigidly rotated rest state exactly six zero modes
  // (3 translations, 3 infinitesimal rotations).
  const grid::MacGrid g = test::cube_grid(2, 0.5);
  const MaterialShape block = test::everywhere(g);
  for (const bool compressed : {true, false}) {
    const Mat3 map = compressed ? A : test::rotation(0.5, Vec3(1, 2, 0));
    const NodeField v = test::sample_field(g, [&](const Vec3& x) { return Vec3(x - map.inverse() * x); });
    const ElasticState t = evaluate_elasticity(g, v, test::all_valid(g), block, LAME);
    const Eigen::MatrixXd K(assemble_stiffness(g, t, all_nodes(g)));
    CHECK((K - K.transpose()).norm() < 1e-12 * K.norm());
    const Eigen::VectorXd lambda = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(K).eigenvalues();
    CHECK(lambda.minCoeff() >= -1e-12 * lambda.maxCoeff());
    if (!compressed) {
      int zero = 0;
      for (Index i = 0; i < lambda.size(); ++i) zero += lambda[i] < 1e-9 * lambda.maxCoeff();
      CHECK(zero == 6);
    }
  }
}

TEST_CASE("eulerian elasticity: lumped masses add up to density times the material volume") {
  const grid::MacGrid g = test::cube_grid(3, 0.2);
  const MaterialShape block = test::everywhere(g);
  // Squashed 0.8 along x (x = 0.8 x_bar): the grid holds 1/0.8 of its volume in material.
  const NodeField u = test::sample_field(g, [](const Vec3& x) { return Vec3(x.x() - x.x() / 0.8, 0, 0); });
  const ElasticState s = evaluate_elasticity(g, u, test::all_valid(g), block, LAME);
  Real total = 0;
  for (Real m : lumped_masses(g, s, 1000)) total += m;
  CHECK(total == doctest::Approx(1000 * 0.6 * 0.6 * 0.6 / 0.8).epsilon(1e-12));
  CHECK(solid_volume(g, s) == doctest::Approx(0.6 * 0.6 * 0.6).epsilon(1e-12));
}
