#pragma once
// Validation and volumes of meshes.
#include <string>

#include "lib/mesh/mesh.hpp"

namespace fsicut::mesh {

// Throws MeshError unless `mesh` is a closed, manifold, consistently oriented
// triangle surface with its normals pointing out of a positive volume, i.e.
// something TetGen can fill. `name` (usually the OBJ path) starts every
// message. Elements are numbered from 1 as in the OBJ file: vertex j is
// mesh.vertices.col(j - 1), face i is mesh.triangles[i - 1]. Checks, in order:
//  - the mesh has triangles; vertex coordinates are finite
//  - every face has three distinct, in-range vertex indices
//  - no face has (numerically) zero area
//  - no two vertices used by faces share a position ("weld duplicate vertices")
//  - every edge belongs to exactly two faces ("not closed" / "not manifold")
//  - the two faces of an edge traverse it in opposite directions
//    ("inconsistently oriented")
//  - the faces around every vertex form a single disc ("non-manifold vertex")
//  - the enclosed volume is positive ("faces point inward; flip them")
// Self-intersections are not detected here; TetGen reports them.
// Example: "meshes/x.obj: mesh is not closed: edge (12, 13) belongs to face 7 only".
void check_closed_surface(const SurfaceMesh& mesh, const std::string& name);

// Signed volume enclosed by a closed triangle surface [m^3], by the divergence
// theorem: sum over triangles of a . (b x c) / 6. Positive when the triangles
// are counter-clockwise seen from outside; meaningless for an open surface.
Real enclosed_volume(const SurfaceMesh& mesh);

// Sum of the signed volumes of the tets [m^3]; positive for positively
// oriented tets (mesh.hpp).
Real volume(const TetMesh& mesh);

// Signed volume of one tet (a, b, c, d) [m^3]: (b - a) . ((c - a) x (d - a)) / 6.
Real tet_volume(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& d);

// Shape quality of one tet: 6 sqrt(2) |V| / l_rms^3, with l_rms the root mean
// square of its six edge lengths. 1 for the regular tet, 0 for a flat one
// (slivers included, which radius-edge ratios miss). Why it matters: a tet's
// stiffness grows like 1 / quality^2, and the SPD coupled matrix (33) squares
// the solid block's condition number, so one near-flat tet is enough to make
// its factorization fail.
Real tet_quality(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& d);

// The tet of lowest tet_quality: its index and quality (-1 and 1 for no tets).
struct WorstTet {
  Index tet = -1;
  Real quality = 1;
};
WorstTet worst_tet(const TetMesh& mesh);

}  // namespace fsicut::mesh
