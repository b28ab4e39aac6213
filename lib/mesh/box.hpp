#pragma once
// Structured box meshes and boundary extraction.
#include <vector>

#include "lib/mesh/mesh.hpp"

namespace fsicut::mesh {

// A box [min, max] cut into cells[0] x cells[1] x cells[2] hexahedra, each split
// into 6 tetrahedra around its main diagonal (Kuhn/Freudenthal split), so
// neighbouring cells share conforming faces. Nodes are numbered x fastest:
// node (i, j, k) = i + (nx+1) * (j + (ny+1) * k). cells [4,28,4] gives
// 5*29*5 = 725 nodes and 6*4*28*4 = 2688 tets (the paper's dam-break beam).
TetMesh box_mesh(const Vec3& min, const Vec3& max, const Vec3i& cells);

// The triangles that belong to exactly one tet, oriented outward (counter-
// clockwise seen from outside), in a deterministic order (by owning tet, then
// face). Input tets must be positively oriented (see mesh.hpp).
std::vector<Triangle> extract_boundary(const std::vector<Tet>& tets);

}  // namespace fsicut::mesh
