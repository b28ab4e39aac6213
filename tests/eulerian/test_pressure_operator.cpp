#include <doctest/doctest.h>

#include <algorithm>
#include <random>

#include "lib/eulerian/elasticity.hpp"
#include "lib/eulerian/pressure_operator.hpp"
#include "lib/eulerian/projection.hpp"
#include "tests/eulerian/fixtures.hpp"

using namespace fsicut;
using namespace fsicut::eulerian;

TEST_CASE("eulerian pressure operator: the stencil applies J M^-1 J^T and J and J^T as the assembled matrices") {
  // A ball touching two walls (their nodes are not unknowns), masses varying
  // per node, the rows in a shuffled order; random p and v.
  std::mt19937 rng(7);
  const test::ShuffledBall ball = test::shuffled_ball(rng);
  const grid::MacGrid& g = ball.grid;
  const std::vector<Vec3i>& cells = ball.cells;
  const Unknowns& unknowns = ball.unknowns;
  const Vector& mass = ball.mass;
  std::uniform_real_distribution<Real> value(-1, 1);
  const linsolve::SparseMatrix J = divergence_matrix(g, cells, unknowns);
  const linsolve::SparseMatrix A = pressure_matrix(g, cells, unknowns, mass);
  const PressureOperator op(g, cells, unknowns, mass);
  REQUIRE(op.rows() == A.rows());
  Vector p(op.rows()), v(unknowns.dofs());
  for (Index i = 0; i < p.size(); ++i) p[i] = value(rng);
  for (Index i = 0; i < v.size(); ++i) v[i] = value(rng);
  for (int repeat = 0; repeat < 2; ++repeat) {  // the work space is left clean
    Vector y;
    op.apply(p, y);
    const Vector expected = A * p;
    CHECK((y - expected).cwiseAbs().maxCoeff() <= 1e-12 * expected.cwiseAbs().maxCoeff());
  }
  CHECK((op.diagonal() - Vector(A.diagonal())).cwiseAbs().maxCoeff() <= 1e-12 * A.diagonal().cwiseAbs().maxCoeff());
  const Vector jv = J * v, jtp = J.transpose() * p;
  CHECK((op.divergence(v) - jv).cwiseAbs().maxCoeff() <= 1e-12 * jv.cwiseAbs().maxCoeff());
  CHECK((op.transpose(p) - jtp).cwiseAbs().maxCoeff() <= 1e-12 * jtp.cwiseAbs().maxCoeff());
}
