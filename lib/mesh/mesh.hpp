#pragma once
// Surface and tetrahedral meshes, and how solids get them.
//
// Sign conventions (libigl style):
//  - SurfaceMesh triangles are counter-clockwise seen from outside, so the
//    normal (b - a) x (c - a) points out of the enclosed volume.
//  - TetMesh tets (a, b, c, d) are positively oriented:
//    (b - a) . ((c - a) x (d - a)) > 0, i.e. six times the signed volume.
//  - TetMesh::boundary holds the outward surface triangles as node indices
//    into TetMesh::rest, counter-clockwise seen from outside; every boundary
//    node is a tet node, so deformed surfaces are read from node positions.
//  - Quadratic meshes (TetMesh::quadratic non-empty, see quadratic.hpp) add
//    one node per edge: Tet10 (a, b, c, d, m_ab, m_bc, m_ac, m_ad, m_bd, m_cd),
//    `tets` keeps the corners (a, b, c, d) of each, and `boundary` holds four
//    flat sub-triangles per curved face, so everything that reads positions
//    and triangles (distance fields, clipping, OBJ output) sees the refined
//    surface unchanged.
#include <string>
#include <vector>

#include "lib/core/types.hpp"

namespace fsicut::mesh {

using Triangle = Eigen::Vector3i;
using Tet = Eigen::Vector4i;
using Tet10 = Eigen::Matrix<int, 10, 1>;
using Triangle6 = Eigen::Matrix<int, 6, 1>;  // (a, b, c, m_ab, m_bc, m_ca)

struct SurfaceMesh {
  Points vertices;                  // 3 x #vertices [m]
  std::vector<Triangle> triangles;  // #triangles, vertex indices
};

struct TetMesh {
  Points rest;                     // 3 x #nodes, rest positions [m]
  std::vector<Tet> tets;           // #tets, node indices, positive orientation
  std::vector<Triangle> boundary;  // #boundary triangles, node indices, outward
  // Quadratic meshes only (empty otherwise): the 10-node elements (#tets,
  // corners equal to tets[t]) and the curved boundary faces (#boundary / 4);
  // boundary[4 f + s] is sub-triangle s of face f (quadratic.hpp).
  std::vector<Tet10> quadratic;
  std::vector<Triangle6> boundary_faces;

  bool is_quadratic() const { return !quadratic.empty(); }
};

// How long TetGen may run before it is stopped and the mesh refused [s]. The
// paper's largest mesh takes well under a second; some inputs make TetGen's
// refinement run for hours (or for ever), which on a farm is a stuck node.
inline constexpr double TETGEN_TIME_LIMIT_SECONDS = 600;

struct TetgenOptions {
  Real max_tet_volume = 0;  // [m^3]; 0 = unconstrained
  Real quality = 2.0;       // radius-edge ratio bound; 0 = no quality refinement
  double time_limit_seconds = TETGEN_TIME_LIMIT_SECONDS;  // wall time [s]
};

}  // namespace fsicut::mesh
