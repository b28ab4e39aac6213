#include "lib/mesh/box.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <stdexcept>

namespace fsicut::mesh {

TetMesh box_mesh(const Vec3& min, const Vec3& max, const Vec3i& cells) {
  if ((cells.array() < 1).any()) throw std::invalid_argument("box_mesh: cells must be >= 1");
  if ((max.array() <= min.array()).any()) throw std::invalid_argument("box_mesh: max must exceed min");
  const int nx = cells[0], ny = cells[1], nz = cells[2];
  const auto node = [&](int i, int j, int k) { return i + (nx + 1) * (j + (ny + 1) * k); };

  TetMesh m;
  m.rest.resize(3, static_cast<Index>(nx + 1) * (ny + 1) * (nz + 1));
  const Vec3 h = (max - min).cwiseQuotient(cells.cast<Real>());
  for (int k = 0; k <= nz; ++k)
    for (int j = 0; j <= ny; ++j)
      for (int i = 0; i <= nx; ++i)
        m.rest.col(node(i, j, k)) = min + Vec3(i * h[0], j * h[1], k * h[2]);

  // The six paths from corner 000 to corner 111 along the axes, one per
  // permutation of (x, y, z); each path's four corners form one tet.
  static constexpr std::array<std::array<int, 3>, 6> AXIS_ORDER = {
      {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}};
  m.tets.reserve(static_cast<size_t>(6) * nx * ny * nz);
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i)
        for (const auto& order : AXIS_ORDER) {
          Vec3i c(i, j, k);
          Tet t;
          t[0] = node(c[0], c[1], c[2]);
          for (int s = 0; s < 3; ++s) {
            c[order[s]] += 1;
            t[s + 1] = node(c[0], c[1], c[2]);
          }
          // Odd permutations give negatively oriented tets: swap to fix.
          const Vec3 a = m.rest.col(t[0]);
          const Real det = (m.rest.col(t[1]) - a).dot((m.rest.col(t[2]) - a).cross(m.rest.col(t[3]) - a));
          if (det < 0) std::swap(t[2], t[3]);
          m.tets.push_back(t);
        }
  m.boundary = extract_boundary(m.tets);
  return m;
}

std::vector<Triangle> extract_boundary(const std::vector<Tet>& tets) {
  // Faces of a positively oriented tet (a,b,c,d), each counter-clockwise seen
  // from outside the tet.
  static constexpr int FACES[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};
  std::map<std::array<int, 3>, int> count;
  for (const Tet& t : tets)
    for (const auto& f : FACES) {
      std::array<int, 3> key = {t[f[0]], t[f[1]], t[f[2]]};
      std::sort(key.begin(), key.end());
      ++count[key];
    }
  std::vector<Triangle> boundary;
  for (const Tet& t : tets)
    for (const auto& f : FACES) {
      std::array<int, 3> key = {t[f[0]], t[f[1]], t[f[2]]};
      std::sort(key.begin(), key.end());
      if (count[key] == 1) boundary.emplace_back(t[f[0]], t[f[1]], t[f[2]]);
    }
  return boundary;
}

}  // namespace fsicut::mesh
