#pragma once
// Analytic solid shapes: icospheres, balls, hollow balls, and rigid placement.
#include "lib/mesh/mesh.hpp"

namespace fsicut::mesh {

// Largest icosphere level accepted: 20 * 4^8 = 1.3 million triangles is
// already far beyond what a solid in this simulator can afford.
constexpr int MAX_SUBDIVISIONS = 8;

// A sphere surface [m]: the regular icosahedron, each triangle split into 4
// `subdivisions` times (new vertices pushed onto the sphere).
// 20 * 4^n triangles, 10 * 4^n + 2 vertices, all exactly at distance `radius`
// from `center` (up to round-off); counter-clockwise seen from outside.
// Throws MeshError for radius <= 0 or subdivisions outside [0, MAX_SUBDIVISIONS].
SurfaceMesh icosphere(const Vec3& center, Real radius, int subdivisions);

// A ball: icosphere(center, radius, subdivisions) filled by TetGen. Its volume
// is that of the inscribed polyhedron, slightly less than 4/3 pi r^3.
TetMesh sphere_mesh(const Vec3& center, Real radius, int subdivisions, const TetgenOptions& options);

// A hollow ball between two concentric icospheres of the same level: the outer
// surface facing out, the inner one reversed (facing the cavity), the cavity
// left empty. Throws MeshError unless 0 < inner_radius < outer_radius.
TetMesh shell_mesh(const Vec3& center, Real outer_radius, Real inner_radius, int subdivisions,
                   const TetgenOptions& options);

// A rigid placement with uniform scale: x' = translate + R * (scale * x).
struct Transform {
  Vec3 translate{0, 0, 0};  // [m]
  Vec3 rotate{0, 0, 0};     // Euler angles about x, then y, then z [degrees]
  Real scale = 1;           // uniform, > 0
};

// The rotation R = Rz * Ry * Rx of `transform.rotate` (degrees about x, then y,
// then z).
Eigen::Matrix3d rotation_matrix(const Transform& transform);

// Places a mesh: x' = translate + R * (scale * x) for every rest position.
// Topology, and the orientation of tets and boundary, are unchanged (R is a
// rotation and scale > 0). Throws MeshError for scale <= 0 (it would turn tets
// inside out) or a non-finite transform.
void apply_transform(TetMesh& mesh, const Transform& transform);

}  // namespace fsicut::mesh
