#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "lib/eulerian/elasticity.hpp"
#include "lib/eulerian/projection.hpp"
#include "tests/eulerian/fixtures.hpp"

using namespace fsicut;
using namespace fsicut::eulerian;

namespace {

// The nodal gradient of a cell-centred field p (zero outside the grid), written
// independently of J: d p / dx_a at a node is the mean of the four differences
// across it along a [Pa/m per unit p].
NodeField nodal_gradient(const grid::MacGrid& g, const Vector& p) {
  auto at = [&](Vec3i c) {
    for (int a = 0; a < 3; ++a)
      if (c[a] < 0 || c[a] >= g.resolution[a]) return Real(0);
    return p[cell_index(g, c)];
  };
  NodeField out = zero_field(g);
  for (Index n = 0; n < node_count(g); ++n) {
    const Vec3i node = node_coord(g, n);
    for (int a = 0; a < 3; ++a) {
      const int b = (a + 1) % 3, c = (a + 2) % 3;
      Real sum = 0;
      for (int db = -1; db <= 0; ++db)
        for (int dc = -1; dc <= 0; ++dc) {
          Vec3i high = node, low = node;
          high[b] += db;
          high[c] += dc;
          low = high;
          low[a] -= 1;
          sum += at(high) - at(low);
        }
      out[3 * n + a] = sum / (4 * g.dx);
    }
  }
  return out;
}

}  // namespace

TEST_CASE("eulerian projection: J = -grad^T (adjoint of the nodal gradient times the node volume)") {
  const grid::MacGrid g = test::cube_grid(5, 0.2);
  std::mt19937 rng(5);
  std::uniform_real_distribution<Real> d(-1, 1);
  Vector p(g.cell_count());
  for (Index i = 0; i < p.size(); ++i) p[i] = d(rng);
  const NodeField v = test::random_field(g, rng);
  const NodeField JTp = divergence_transpose(g, p);
  const Real volume = g.dx * g.dx * g.dx;
  CHECK((JTp + volume * nodal_gradient(g, p)).norm() < 1e-12 * JTp.norm());
  // <J v, p> = <v, J^T p>
  CHECK(divergence(g, v).dot(p) == doctest::Approx(v.dot(JTp)).epsilon(1e-12));
}

TEST_CASE("eulerian projection: J of a linear velocity field is its divergence times the cell volume") {
  const grid::MacGrid g = test::cube_grid(4, 0.3);
  const Mat3 A = (Mat3() << 0.5, 1.0, -2.0, 0.3, -1.7, 0.2, 4.0, 0.1, 0.6).finished();
  const NodeField v = test::sample_field(g, [&](const Vec3& x) { return Vec3(A * x + Vec3(1, 2, 3)); });
  const Vector div = divergence(g, v);
  const Real expected = A.trace() * g.dx * g.dx * g.dx;
  CHECK((div.array() - expected).abs().maxCoeff() < 1e-13);
  // The assembled rows (all cells, all nodes as unknowns) are the same operator.
  Unknowns all;
  for (Index n = 0; n < node_count(g); ++n) {
    all.of_node.push_back(n);
    all.nodes.push_back(n);
  }
  std::vector<Vec3i> cells;
  for (Index c = 0; c < g.cell_count(); ++c) cells.push_back(Vec3i(static_cast<int>(c % 4), static_cast<int>((c / 4) % 4), static_cast<int>(c / 16)));
  const linsolve::SparseMatrix J = divergence_matrix(g, cells, all);
  CHECK((J * gather(all, v) - div).norm() < 1e-13);
}

TEST_CASE("eulerian projection: Eqs. 12-13 remove the divergence to the pressure tolerance without adding energy") {
  const grid::MacGrid g = test::cube_grid(8, 0.125);
  const MaterialShape shape = test::ball(g, Vec3(0.5, 0.5, 0.5), 0.3);
  const ElasticState s = evaluate_elasticity(g, zero_field(g), test::all_valid(g), shape, lame_from_young(1e5, 0.3));
  const std::vector<Real> node_mass = lumped_masses(g, s, 1000);
  const Unknowns unknowns = make_unknowns(g, node_mass);
  const Vector mass = gather_mass(unknowns, node_mass);
  const linsolve::SparseMatrix J = divergence_matrix(g, s.cells, unknowns);
  std::mt19937 rng(9);
  const Vector v_star = gather(unknowns, test::random_field(g, rng));
  const Vector b = Vector::Zero(J.rows());
  for (const Real tolerance : {0.02, 1e-10}) {
    ProjectionSettings settings;
    settings.tolerance = tolerance;
    Vector p, v = v_star;
    const linsolve::Report r = solve_pressure(J, mass, b, v_star, p, settings);
    CHECK(r.converged);
    correct_velocity(J, mass, linsolve::SparseMatrix(), p, v, settings);
    INFO("tolerance " << tolerance << ": |J v| / |J v*| = " << (J * v).norm() / (J * v_star).norm());
    CHECK((J * v).norm() <= tolerance * (J * v_star).norm() * (1 + 1e-9));
    // The correction is M-orthogonal to divergence-free fields: kinetic energy only drops.
    CHECK(v.dot(mass.cwiseProduct(v)) < v_star.dot(mass.cwiseProduct(v_star)));
  }
}

TEST_CASE("eulerian projection: the volume drift rate undoes a uniform compression in one step") {
  // x = 0.8^(1/3) x_bar in every direction: det F = 0.8 at every point, full cells.
  const grid::MacGrid g = test::cube_grid(3, 0.2);
  const Real scale = std::cbrt(0.8);
  const NodeField u = test::sample_field(g, [&](const Vec3& x) { return Vec3(x - x / scale); });
  const ElasticState s = evaluate_elasticity(g, u, test::all_valid(g), test::everywhere(g), lame_from_young(1e5, 0.3));
  REQUIRE(s.cells.size() == 27);
  const Real dt = 0.01;
  const Vector b = volume_drift_rates(g, s, dt, 0.5);
  // 0.5 / dt * dx^3 * (-ln 0.8) per cell: expand.
  const Real expected = 0.5 / dt * 0.008 * -std::log(0.8);
  CHECK((b.array() - expected).abs().maxCoeff() < 1e-12 * expected);
  CHECK(volume_drift_rates(g, s, dt, 0).norm() == 0);
}

TEST_CASE("eulerian projection: the correction through G (Eq. 13 as printed) is the mass correction when G = M") {
  const grid::MacGrid g = test::cube_grid(6, 1.0 / 6);
  const ElasticState s = evaluate_elasticity(g, zero_field(g), test::all_valid(g), test::ball(g, Vec3(0.5, 0.5, 0.5), 0.3),
                                             lame_from_young(1e5, 0.3));
  const std::vector<Real> node_mass = lumped_masses(g, s, 1000);
  const Unknowns unknowns = make_unknowns(g, node_mass);
  const Vector mass = gather_mass(unknowns, node_mass);
  const linsolve::SparseMatrix J = divergence_matrix(g, s.cells, unknowns);
  linsolve::SparseMatrix G(mass.size(), mass.size());
  for (Index i = 0; i < mass.size(); ++i) G.insert(i, i) = mass[i];
  std::mt19937 rng(2);
  const Vector v_star = gather(unknowns, test::random_field(g, rng));
  ProjectionSettings settings;
  Vector p;
  solve_pressure(J, mass, Vector::Zero(J.rows()), v_star, p, settings);
  Vector by_mass = v_star, by_system = v_star;
  correct_velocity(J, mass, G, p, by_mass, settings);
  settings.correction = Correction::system;
  const linsolve::Report r = correct_velocity(J, mass, G, p, by_system, settings);
  CHECK(r.converged);
  CHECK((by_mass - by_system).norm() < 1e-10 * by_mass.norm());
  // Walls are not unknowns: no node on the domain boundary carries a velocity.
  for (Index node : unknowns.nodes) {
    const Vec3i c = node_coord(g, node);
    CHECK((c.array() > 0).all());
    CHECK((c.array() < 6).all());
  }
}

TEST_CASE("eulerian projection: the stencil-assembled J M^-1 J^T equals the sparse product entry by entry") {
  // A ball touching two walls (their nodes are not unknowns), masses varying
  // per node, the rows in a shuffled order.
  std::mt19937 rng(4);
  const test::ShuffledBall ball = test::shuffled_ball(rng);
  const grid::MacGrid& g = ball.grid;
  const std::vector<Vec3i>& cells = ball.cells;
  const Unknowns& unknowns = ball.unknowns;
  const Vector& mass = ball.mass;
  const linsolve::SparseMatrix J = divergence_matrix(g, cells, unknowns);
  const Eigen::MatrixXd product = Eigen::MatrixXd(J) * mass.cwiseInverse().asDiagonal() * Eigen::MatrixXd(J).transpose();
  const linsolve::SparseMatrix A = pressure_matrix(g, cells, unknowns, mass);
  REQUIRE(A.rows() == static_cast<Index>(cells.size()));
  CHECK((Eigen::MatrixXd(A) - product).cwiseAbs().maxCoeff() <= 1e-12 * product.cwiseAbs().maxCoeff());
  CHECK(A.nonZeros() <= 27 * A.rows());
}
