#include "lib/mesh/quadratic.hpp"

#include <map>
#include <utility>

namespace fsicut::mesh {
namespace {

// Parent-face coordinates (L_a, L_b, L_c) of the corners of each sub-triangle.
const std::array<std::array<Vec3, 3>, 4>& sub_triangle_corners() {
  static const std::array<std::array<Vec3, 3>, 4> corners = [] {
    const Vec3 a(1, 0, 0), b(0, 1, 0), c(0, 0, 1);
    const Vec3 ab = (a + b) / 2, bc = (b + c) / 2, ca = (c + a) / 2;
    return std::array<std::array<Vec3, 3>, 4>{{{a, ab, ca}, {ab, b, bc}, {ca, bc, c}, {ab, bc, ca}}};
  }();
  return corners;
}

}  // namespace

TetMesh make_quadratic(TetMesh mesh) {
  if (mesh.is_quadratic()) return mesh;
  std::map<std::pair<int, int>, int> mid;
  std::vector<Vec3> added;
  const Index n = mesh.rest.cols();
  const auto midpoint = [&](int i, int j) {
    const std::pair<int, int> key(std::min(i, j), std::max(i, j));
    const auto [it, inserted] = mid.try_emplace(key, static_cast<int>(n + static_cast<Index>(added.size())));
    if (inserted) added.push_back((mesh.rest.col(i) + mesh.rest.col(j)) / 2);
    return it->second;
  };
  mesh.quadratic.resize(mesh.tets.size());
  for (std::size_t t = 0; t < mesh.tets.size(); ++t) {
    const Tet& c = mesh.tets[t];
    Tet10& q = mesh.quadratic[t];
    for (int a = 0; a < 4; ++a) q[a] = c[a];
    for (int e = 0; e < 6; ++e) q[4 + e] = midpoint(c[TET10_EDGES[e][0]], c[TET10_EDGES[e][1]]);
  }
  Points rest(3, n + static_cast<Index>(added.size()));
  rest.leftCols(n) = mesh.rest;
  for (std::size_t i = 0; i < added.size(); ++i) rest.col(n + static_cast<Index>(i)) = added[i];
  mesh.rest = std::move(rest);

  std::vector<Triangle> sub;
  sub.reserve(4 * mesh.boundary.size());
  mesh.boundary_faces.reserve(mesh.boundary.size());
  for (const Triangle& f : mesh.boundary) {
    const int a = f[0], b = f[1], c = f[2];
    const int ab = mid.at({std::min(a, b), std::max(a, b)});
    const int bc = mid.at({std::min(b, c), std::max(b, c)});
    const int ca = mid.at({std::min(c, a), std::max(c, a)});
    Triangle6 face;
    face << a, b, c, ab, bc, ca;
    mesh.boundary_faces.push_back(face);
    sub.emplace_back(a, ab, ca);
    sub.emplace_back(ab, b, bc);
    sub.emplace_back(ca, bc, c);
    sub.emplace_back(ab, bc, ca);
  }
  mesh.boundary = std::move(sub);
  return mesh;
}

SurfaceWeights surface_weights(const TetMesh& mesh, int triangle, const Vec3& barycentric) {
  SurfaceWeights w;
  if (!mesh.is_quadratic()) {
    w.count = 3;
    for (int j = 0; j < 3; ++j) {
      w.node[j] = mesh.boundary[static_cast<std::size_t>(triangle)][j];
      w.weight[j] = barycentric[j];
    }
    return w;
  }
  const auto& P = sub_triangle_corners()[static_cast<std::size_t>(triangle % 4)];
  const Vec3 L = barycentric[0] * P[0] + barycentric[1] * P[1] + barycentric[2] * P[2];
  const Triangle6& f = mesh.boundary_faces[static_cast<std::size_t>(triangle / 4)];
  w.count = 6;
  for (int i = 0; i < 6; ++i) w.node[i] = f[i];
  for (int i = 0; i < 3; ++i) w.weight[i] = L[i] * (2 * L[i] - 1);
  w.weight[3] = 4 * L[0] * L[1];
  w.weight[4] = 4 * L[1] * L[2];
  w.weight[5] = 4 * L[2] * L[0];
  return w;
}

}  // namespace fsicut::mesh
