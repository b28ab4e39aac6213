#include "lib/cutcell/thin_solids.hpp"

#include <atomic>

#include "lib/core/parallel.hpp"

namespace fsicut::cutcell {
namespace {

// All 8 nodes of cell c outside every solid.
bool nodes_outside(const grid::Array3<Real>& solid_phi, const Vec3i& c) {
  for (int n = 0; n < 8; ++n)
    if (!(solid_phi(c.x() + (n & 1), c.y() + ((n >> 1) & 1), c.z() + ((n >> 2) & 1)) > 0)) return false;
  return true;
}

}  // namespace

bool separated(const grid::MacGrid& grid, const grid::Array3<Real>& solid_phi,
               const std::vector<levelset::MeshDistance>& surfaces, const Vec3i& a, const Vec3i& b) {
  const Vec3 xa = grid.cell_center(a.x(), a.y(), a.z()), xb = grid.cell_center(b.x(), b.y(), b.z());
  int crossings = 0;
  Vec3 normal = Vec3::Zero();  // outward normal of the triangle of a single crossing (unnormalized)
  for (const levelset::MeshDistance& s : surfaces) {
    const levelset::SegmentHits h = s.segment_hits(xa, xb);
    if (h.count == 0) continue;
    crossings += h.count;
    if (crossings >= 2) return true;
    const mesh::Triangle& t = s.triangles()[static_cast<std::size_t>(h.triangle)];
    const Points& v = s.vertices();
    normal = (v.col(t[1]) - v.col(t[0])).cross(v.col(t[2]) - v.col(t[0]));
  }
  if (crossings == 0) return false;
  // Entering the solid (against its outward normal) puts b on the solid side.
  const Vec3i& solid_side = normal.dot(xb - xa) < 0 ? b : a;
  return nodes_outside(solid_phi, solid_side);
}

Index close_thin_solid_faces(const grid::MacGrid& grid, const grid::Array3<Real>& solid_phi,
                             const std::vector<levelset::MeshDistance>& surfaces, FaceFractions& fractions) {
  if (surfaces.empty()) return 0;
  std::atomic<Index> closed{0};
  for (int a = 0; a < 3; ++a) {
    auto& f = fractions[a];
    const int b = (a + 1) % 3, c = (a + 2) % 3;
    const Vec3i eb = Vec3i::Unit(b), ec = Vec3i::Unit(c);
    const int n_a = grid.resolution[a];
    parallel_for(0, f.count(), [&](Index idx) {
      if (!(f[idx] > 0)) return;
      const Vec3i x = f.coord(idx);
      if (x[a] == 0 || x[a] == n_a) return;
      const Real nearest = std::min({solid_phi(x), solid_phi(Vec3i(x + eb)), solid_phi(Vec3i(x + eb + ec)),
                                     solid_phi(Vec3i(x + ec))});
      if (nearest > grid.dx) return;
      Vec3i left = x;
      left[a] -= 1;
      if (!separated(grid, solid_phi, surfaces, left, x)) return;
      f[idx] = 0;
      closed.fetch_add(1, std::memory_order_relaxed);
    });
  }
  return closed.load();
}

}  // namespace fsicut::cutcell
