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
#include <string>
#include <vector>

#include "lib/core/types.hpp"
#include "lib/scene/scene.hpp"

namespace fsicut::mesh {

using Triangle = Eigen::Vector3i;
using Tet = Eigen::Vector4i;

struct SurfaceMesh {
  Points vertices;                  // 3 x #vertices [m]
  std::vector<Triangle> triangles;  // #triangles, vertex indices
};

struct TetMesh {
  Points rest;                     // 3 x #nodes, rest positions [m]
  std::vector<Tet> tets;           // #tets, node indices, positive orientation
  std::vector<Triangle> boundary;  // #boundary triangles, node indices, outward
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
