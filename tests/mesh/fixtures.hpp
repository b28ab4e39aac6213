#pragma once
// Measurements shared by the tests of lib/mesh.
#include <algorithm>
#include <limits>

#include "lib/mesh/check.hpp"
#include "lib/mesh/mesh.hpp"

namespace fsicut::test {

// The smallest signed volume of the mesh's tets at rest [m^3].
inline Real min_tet_volume(const mesh::TetMesh& m) {
  Real v = std::numeric_limits<Real>::infinity();
  for (const mesh::Tet& t : m.tets)
    v = std::min(v, mesh::tet_volume(m.rest.col(t[0]), m.rest.col(t[1]), m.rest.col(t[2]), m.rest.col(t[3])));
  return v;
}

}  // namespace fsicut::test
