#pragma once
// Second-order (10-node) tetrahedral meshes and the shape functions of their
// curved boundary faces.
//
// Node order of a quadratic element (the order TetGen's -o2 output and most
// FEM texts use up to a permutation of the edges; ours is fixed here):
//   0..3   corners a, b, c, d (positively oriented, as TetMesh::tets)
//   4..9   mid-edge nodes of (a b), (b c), (a c), (a d), (b d), (c d)
// A boundary face (a, b, c), counter-clockwise from outside, becomes
// Triangle6 (a, b, c, m_ab, m_bc, m_ca) and four flat sub-triangles, all
// counter-clockwise from outside:
//   s = 0: (a, m_ab, m_ca)   s = 1: (m_ab, b, m_bc)
//   s = 2: (m_ca, m_bc, c)   s = 3: (m_ab, m_bc, m_ca)
// The sub-triangles are what the cut cells clip and the OBJ output draws; the
// liquid's pressure reaches the six nodes through the quadratic shape
// functions of the parent face (surface_weights).
#include <array>

#include "lib/mesh/mesh.hpp"

namespace fsicut::mesh {

// Local corner pairs of the mid-edge nodes 4..9 of a Tet10.
inline constexpr std::array<std::array<int, 2>, 6> TET10_EDGES = {{{0, 1}, {1, 2}, {0, 2}, {0, 3}, {1, 3}, {2, 3}}};

// The 8 positively oriented linear tets a quadratic element's nodes split
// into (the 4 corner tets and the inner octahedron cut along m_ac - m_bd):
// the piecewise-flat solid its boundary sub-triangles enclose, for volumes
// and inversion checks.
inline constexpr std::array<std::array<int, 4>, 8> TET10_SUBTETS = {
    {{0, 4, 6, 7}, {4, 1, 5, 8}, {6, 5, 2, 9}, {7, 8, 9, 3}, {6, 8, 4, 5}, {6, 8, 5, 9}, {6, 8, 9, 7}, {6, 8, 7, 4}}};

// Calls f(a, b, c, d) with the node indices of every linear tet of the mesh:
// its tets, or for a quadratic mesh the 8 sub-tets of each element.
template <class F>
void for_each_linear_tet(const TetMesh& mesh, F&& f) {
  if (!mesh.is_quadratic()) {
    for (const Tet& t : mesh.tets) f(t[0], t[1], t[2], t[3]);
    return;
  }
  for (const Tet10& q : mesh.quadratic)
    for (const auto& s : TET10_SUBTETS) f(q[s[0]], q[s[1]], q[s[2]], q[s[3]]);
}

// Adds a node at the midpoint of every tet edge (shared by the tets around the
// edge, numbered after the existing nodes in order of first appearance over
// tets and TET10_EDGES), fills `quadratic` and `boundary_faces`, and replaces
// `boundary` by the sub-triangles, four per face in order. Straight-sided:
// the mid-edge nodes sit at the midpoints, as in TetGen's -o2 output. A mesh
// that is already quadratic is returned unchanged.
TetMesh make_quadratic(TetMesh mesh);

// The nodes and weights that carry a point of a boundary triangle: for a
// linear mesh its three nodes with the point's barycentric coordinates; for a
// quadratic one the six nodes of the parent face with their quadratic shape
// functions (corner L (2 L - 1), mid-edge 4 L_i L_j) at the point's
// coordinates in the parent, L = sum_j w_j P_j over the sub-triangle's corners
// P_j. Weights sum to 1 and reproduce any linear field exactly.
struct SurfaceWeights {
  int count = 0;
  std::array<int, 6> node{};
  std::array<Real, 6> weight{};
};
SurfaceWeights surface_weights(const TetMesh& mesh, int triangle, const Vec3& barycentric);

}  // namespace fsicut::mesh
