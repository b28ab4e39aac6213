#include "lib/mesh/primitives.hpp"

#include <Eigen/Geometry>

#include <cmath>
#include <map>
#include <sstream>
#include <utility>

#include "lib/core/error.hpp"
#include "lib/mesh/tetgen.hpp"

namespace fsicut::mesh {
namespace {

constexpr Real PI = 3.14159265358979323846;

void check_radius(Real radius, const char* what) {
  if (!(radius > 0) || !std::isfinite(radius)) {
    std::ostringstream s;
    s << what << ": radius must be positive and finite, got " << radius;
    throw MeshError(s.str());
  }
}

}  // namespace

SurfaceMesh icosphere(const Vec3& center, Real radius, int subdivisions) {
  check_radius(radius, "icosphere");
  if (subdivisions < 0 || subdivisions > MAX_SUBDIVISIONS) {
    std::ostringstream s;
    s << "icosphere: subdivisions must be in [0, " << MAX_SUBDIVISIONS << "], got " << subdivisions;
    throw MeshError(s.str());
  }
  // Unit icosahedron: the 12 cyclic permutations of (0, +-1, +-phi).
  const Real phi = (1 + std::sqrt(Real(5))) / 2;
  std::vector<Vec3> v = {{-1, phi, 0}, {1, phi, 0},  {-1, -phi, 0}, {1, -phi, 0},
                         {0, -1, phi}, {0, 1, phi},  {0, -1, -phi}, {0, 1, -phi},
                         {phi, 0, -1}, {phi, 0, 1},  {-phi, 0, -1}, {-phi, 0, 1}};
  for (Vec3& p : v) p.normalize();
  std::vector<Triangle> tris = {{0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11},
                                {1, 5, 9},  {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8},
                                {3, 9, 4},  {3, 4, 2},  {3, 2, 6},   {3, 6, 8},  {3, 8, 9},
                                {4, 9, 5},  {2, 4, 11}, {6, 2, 10},  {8, 6, 7},  {9, 8, 1}};
  for (int level = 0; level < subdivisions; ++level) {
    std::map<std::pair<int, int>, int> midpoint;
    const auto mid = [&](int a, int b) {
      const auto key = std::minmax(a, b);
      auto it = midpoint.find(key);
      if (it != midpoint.end()) return it->second;
      v.push_back((v[a] + v[b]).normalized());
      const int id = static_cast<int>(v.size()) - 1;
      midpoint.emplace(key, id);
      return id;
    };
    std::vector<Triangle> finer;
    finer.reserve(4 * tris.size());
    for (const Triangle& t : tris) {
      const int ab = mid(t[0], t[1]), bc = mid(t[1], t[2]), ca = mid(t[2], t[0]);
      finer.emplace_back(t[0], ab, ca);
      finer.emplace_back(t[1], bc, ab);
      finer.emplace_back(t[2], ca, bc);
      finer.emplace_back(ab, bc, ca);
    }
    tris = std::move(finer);
  }
  SurfaceMesh mesh;
  mesh.vertices.resize(3, static_cast<Index>(v.size()));
  for (std::size_t i = 0; i < v.size(); ++i) mesh.vertices.col(i) = center + radius * v[i];
  mesh.triangles = std::move(tris);
  return mesh;
}

TetMesh sphere_mesh(const Vec3& center, Real radius, int subdivisions, const TetgenOptions& options) {
  return tetrahedralize(icosphere(center, radius, subdivisions), options, "sphere");
}

TetMesh shell_mesh(const Vec3& center, Real outer_radius, Real inner_radius, int subdivisions,
                   const TetgenOptions& options) {
  check_radius(outer_radius, "shell outer surface");
  check_radius(inner_radius, "shell inner surface");
  if (inner_radius >= outer_radius) {
    std::ostringstream s;
    s << "shell: inner radius " << inner_radius << " must be smaller than outer radius " << outer_radius;
    throw MeshError(s.str());
  }
  SurfaceMesh outer = icosphere(center, outer_radius, subdivisions);
  const SurfaceMesh inner = icosphere(center, inner_radius, subdivisions);
  const Index offset = outer.vertices.cols();
  SurfaceMesh both;
  both.vertices.resize(3, offset + inner.vertices.cols());
  both.vertices << outer.vertices, inner.vertices;
  both.triangles = std::move(outer.triangles);
  for (const Triangle& t : inner.triangles)  // reversed: the cavity is outside the solid
    both.triangles.emplace_back(t[0] + offset, t[2] + offset, t[1] + offset);
  return tetrahedralize(both, options, "shell", {center});
}

Eigen::Matrix3d rotation_matrix(const Transform& transform) {
  const Vec3 r = transform.rotate * (PI / 180);
  return (Eigen::AngleAxisd(r.z(), Vec3::UnitZ()) * Eigen::AngleAxisd(r.y(), Vec3::UnitY()) *
          Eigen::AngleAxisd(r.x(), Vec3::UnitX()))
      .toRotationMatrix();
}

void apply_transform(TetMesh& mesh, const Transform& transform) {
  if (!(transform.scale > 0) || !std::isfinite(transform.scale)) {
    std::ostringstream s;
    s << "transform: scale must be positive and finite, got " << transform.scale;
    throw MeshError(s.str());
  }
  if (!transform.translate.allFinite() || !transform.rotate.allFinite())
    throw MeshError("transform: translate and rotate must be finite");
  const Eigen::Matrix3d r = rotation_matrix(transform);
  mesh.rest = (transform.scale * r * mesh.rest).colwise() + transform.translate;
}

}  // namespace fsicut::mesh
