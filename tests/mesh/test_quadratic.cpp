#include <doctest/doctest.h>

#include <set>
#include <utility>

#include "lib/mesh/box.hpp"
#include "lib/mesh/quadratic.hpp"

using namespace fsicut;
using namespace fsicut::mesh;

namespace {

Vec3 area_vector(const Points& x, const Triangle& t) {
  return (x.col(t[1]) - x.col(t[0])).cross(x.col(t[2]) - x.col(t[0])) / 2;
}

}  // namespace

TEST_CASE("make_quadratic: one node per edge at its midpoint, shared by the tets around it") {
  const TetMesh linear = box_mesh(Vec3(-0.2, 0.1, 0.3), Vec3(0.4, 0.5, 0.6), Vec3i(3, 2, 2));
  std::set<std::pair<int, int>> edges;
  for (const Tet& t : linear.tets)
    for (const auto& e : TET10_EDGES) edges.insert(std::minmax(t[e[0]], t[e[1]]));

  const TetMesh q = make_quadratic(linear);
  REQUIRE(q.is_quadratic());
  CHECK(q.rest.cols() == linear.rest.cols() + static_cast<Index>(edges.size()));
  CHECK(q.rest.leftCols(linear.rest.cols()) == linear.rest);
  REQUIRE(q.quadratic.size() == linear.tets.size());
  for (std::size_t t = 0; t < q.quadratic.size(); ++t) {
    for (int a = 0; a < 4; ++a) CHECK(q.quadratic[t][a] == linear.tets[t][a]);
    CHECK(q.tets[t] == linear.tets[t]);
    for (int e = 0; e < 6; ++e) {
      const Vec3 mid = (q.rest.col(q.tets[t][TET10_EDGES[e][0]]) + q.rest.col(q.tets[t][TET10_EDGES[e][1]])) / 2;
      CHECK((q.rest.col(q.quadratic[t][4 + e]) - mid).norm() == 0);
    }
  }
  // Idempotent: a quadratic mesh is returned as it is.
  const TetMesh again = make_quadratic(q);
  CHECK(again.rest.cols() == q.rest.cols());
  CHECK(again.boundary.size() == q.boundary.size());
}

TEST_CASE("make_quadratic: the 8 sub-tets fill each element and the sub-triangles close the same surface outward") {
  const Vec3 lo(0, 0, 0), hi(0.3, 0.2, 0.5);
  const TetMesh linear = box_mesh(lo, hi, Vec3i(2, 1, 3));
  const TetMesh q = make_quadratic(linear);
  Real volume = 0;
  int non_positive = 0;
  for_each_linear_tet(q, [&](int i, int j, int k, int l) {
    const Vec3 a = q.rest.col(i);
    const Real v = (q.rest.col(j) - a).dot((q.rest.col(k) - a).cross(q.rest.col(l) - a)) / 6;
    non_positive += !(v > 0);
    volume += v;
  });
  CHECK(non_positive == 0);
  CHECK(volume == doctest::Approx((hi - lo).prod()).epsilon(1e-12));

  REQUIRE(q.boundary.size() == 4 * linear.boundary.size());
  REQUIRE(q.boundary_faces.size() == linear.boundary.size());
  Real enclosed = 0;
  for (std::size_t f = 0; f < linear.boundary.size(); ++f) {
    // The four sub-triangles face the way their parent does and split its area in four equal parts.
    const Vec3 parent = area_vector(linear.rest, linear.boundary[f]);
    for (int s = 0; s < 4; ++s) CHECK((area_vector(q.rest, q.boundary[4 * f + s]) - parent / 4).norm() < 1e-15);
    for (int c = 0; c < 3; ++c) CHECK(q.boundary_faces[f][c] == linear.boundary[f][c]);
  }
  for (const Triangle& t : q.boundary) enclosed += q.rest.col(t[0]).dot(area_vector(q.rest, t)) / 3;
  CHECK(enclosed == doctest::Approx((hi - lo).prod()).epsilon(1e-12));
}

TEST_CASE("surface_weights: the parent face's quadratic shape functions, summing to 1, exact for linear fields") {
  const TetMesh q = make_quadratic(box_mesh(Vec3(0, 0, 0), Vec3(1, 0.5, 0.7), Vec3i(1, 1, 1)));
  const Vec3 points[] = {Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0, 0, 1), Vec3(0.2, 0.3, 0.5),
                         Vec3(1.0 / 3, 1.0 / 3, 1.0 / 3)};
  for (int tri = 0; tri < static_cast<int>(q.boundary.size()); ++tri) {
    const Triangle& t = q.boundary[static_cast<std::size_t>(tri)];
    for (const Vec3& w : points) {
      const SurfaceWeights s = surface_weights(q, tri, w);
      REQUIRE(s.count == 6);
      Real sum = 0;
      Vec3 x = Vec3::Zero();
      for (int j = 0; j < s.count; ++j) {
        sum += s.weight[j];
        x += s.weight[j] * q.rest.col(s.node[j]);
      }
      CHECK(sum == doctest::Approx(1).epsilon(1e-14));
      // Positions are a linear field on a straight-sided face: reproduced exactly.
      const Vec3 expected = w[0] * q.rest.col(t[0]) + w[1] * q.rest.col(t[1]) + w[2] * q.rest.col(t[2]);
      CHECK((x - expected).norm() < 1e-14);
    }
    // At a node of the sub-triangle the weight is 1 on that node and 0 elsewhere.
    for (int c = 0; c < 3; ++c) {
      Vec3 w = Vec3::Zero();
      w[c] = 1;
      const SurfaceWeights s = surface_weights(q, tri, w);
      for (int j = 0; j < s.count; ++j) CHECK(s.weight[j] == doctest::Approx(s.node[j] == t[c] ? 1.0 : 0.0));
    }
  }
  // A linear mesh: the triangle's three nodes with the barycentric weights.
  const TetMesh linear = box_mesh(Vec3(0, 0, 0), Vec3(1, 1, 1), Vec3i(1, 1, 1));
  const SurfaceWeights s = surface_weights(linear, 2, Vec3(0.2, 0.3, 0.5));
  REQUIRE(s.count == 3);
  for (int j = 0; j < 3; ++j) {
    CHECK(s.node[j] == linear.boundary[2][j]);
    CHECK(s.weight[j] == Vec3(0.2, 0.3, 0.5)[j]);
  }
}
