#include <doctest/doctest.h>

#include <map>
#include <utility>

#include "lib/mesh/box.hpp"

using namespace fsicut;
using namespace fsicut::mesh;

namespace {
Real signed_volume6(const Points& x, const Tet& t) {
  const Vec3 a = x.col(t[0]);
  return (x.col(t[1]) - a).dot((x.col(t[2]) - a).cross(x.col(t[3]) - a));
}
}  // namespace

TEST_CASE("box_mesh: the paper's dam-break beam has 725 nodes and 2688 tets") {
  const TetMesh m = box_mesh(Vec3(0, 0, 0), Vec3(0.1, 0.7, 0.1), Vec3i(4, 28, 4));
  CHECK(m.rest.cols() == 725);
  CHECK(m.tets.size() == 2688);
  // Surface of a 4 x 28 x 4 box: two triangles per boundary quad.
  CHECK(m.boundary.size() == 2u * 2 * (4 * 28 + 28 * 4 + 4 * 4));
}

TEST_CASE("box_mesh: tets are positive and fill the box exactly - the boundary is closed and outward") {
  const Vec3 lo(-0.3, 0.1, 0.2), hi(0.5, 0.4, 0.9);
  const TetMesh m = box_mesh(lo, hi, Vec3i(3, 2, 5));
  Real total = 0;
  for (const Tet& t : m.tets) {
    const Real v6 = signed_volume6(m.rest, t);
    CHECK(v6 > 0);
    total += v6 / 6;
  }
  const Real box_volume = (hi - lo).prod();
  CHECK(total == doctest::Approx(box_volume).epsilon(1e-12));

  // Divergence theorem over the boundary gives the same volume only if it is
  // closed and every triangle faces outward.
  Real enclosed = 0;
  std::map<std::pair<int, int>, int> directed_edges;
  for (const Triangle& f : m.boundary) {
    enclosed += m.rest.col(f[0]).dot(m.rest.col(f[1]).cross(m.rest.col(f[2]))) / 6;
    for (int e = 0; e < 3; ++e) ++directed_edges[{f[e], f[(e + 1) % 3]}];
  }
  CHECK(enclosed == doctest::Approx(box_volume).epsilon(1e-12));
  for (const auto& [edge, n] : directed_edges) {
    CHECK(n == 1);
    CHECK(directed_edges.count({edge.second, edge.first}) == 1);
  }
}
