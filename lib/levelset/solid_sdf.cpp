#include "lib/levelset/solid_sdf.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "lib/core/parallel.hpp"

namespace fsicut::levelset {

Real no_solid_distance(const grid::MacGrid& grid) {
  // Farther than any point of the grid from any other: never mistaken for a surface.
  constexpr Real FAR_FACTOR = 10;
  return FAR_FACTOR * grid.dx * grid.resolution.cast<Real>().norm();
}

StaticSolid box_solid(const Vec3& min, const Vec3& max, bool inside_out) {
  const Vec3 center = 0.5 * (min + max);
  const Vec3 half = 0.5 * (max - min);
  const Real sign = inside_out ? -1 : 1;
  return [center, half, sign](const Vec3& x) {
    const Vec3 q = (x - center).cwiseAbs() - half;
    const Real outside = q.cwiseMax(0.0).norm();
    const Real inside = std::min(q.maxCoeff(), Real(0));
    return sign * (outside + inside);
  };
}

StaticSolid sphere_solid(const Vec3& center, Real radius, bool inside_out) {
  const Real sign = inside_out ? -1 : 1;
  return [center, radius, sign](const Vec3& x) { return sign * ((x - center).norm() - radius); };
}

StaticSolid plane_solid(const Vec3& point, const Vec3& normal) {
  const Vec3 n = normal.normalized();
  return [point, n](const Vec3& x) { return n.dot(x - point); };
}

StaticSolid union_solid(std::vector<StaticSolid> parts) {
  parts.erase(std::remove_if(parts.begin(), parts.end(), [](const StaticSolid& s) { return !s; }),
              parts.end());
  if (parts.empty()) return {};
  if (parts.size() == 1) return parts.front();
  return [parts](const Vec3& x) {
    Real d = std::numeric_limits<Real>::infinity();
    for (const auto& p : parts) d = std::min(d, p(x));
    return d;
  };
}

grid::Array3<Real> sample_solid_at_nodes(const grid::MacGrid& grid, const StaticSolid& solid) {
  grid::Array3<Real> phi(grid.node_shape(), no_solid_distance(grid));
  if (!solid) return phi;
  parallel_for(0, phi.count(), [&](Index n) {
    const Vec3i c = phi.coord(n);
    phi[n] = solid(grid.node_position(c.x(), c.y(), c.z()));
  });
  return phi;
}

void resolve_surface_ties(const grid::MacGrid& grid, grid::Array3<Real>& phi) {
  const Real tie = SURFACE_TIE_CELLS * grid.dx;
  std::vector<Real>& d = phi.data();
  parallel_for(0, static_cast<Index>(d.size()), [&](Index i) { d[i] -= tie; });
}

void extend_through_domain_walls(grid::Array3<Real>& phi) {
  const Vec3i size = phi.size();
  for (int a = 0; a < 3; ++a) {
    if (size[a] < 3) continue;
    const int b = (a + 1) % 3, c = (a + 2) % 3;
    for (int j = 0; j < size[b]; ++j)
      for (int k = 0; k < size[c]; ++k) {
        Vec3i lo = Vec3i::Zero(), hi = Vec3i::Zero();
        lo[b] = hi[b] = j;
        lo[c] = hi[c] = k;
        hi[a] = size[a] - 1;
        Vec3i lo_in = lo, hi_in = hi;
        lo_in[a] += 1;
        hi_in[a] -= 1;
        phi(lo) = phi(lo_in);
        phi(hi) = phi(hi_in);
      }
  }
}

Vec3 solid_normal(const StaticSolid& solid, const Vec3& x, Real h) {
  Vec3 g;
  for (int a = 0; a < 3; ++a) {
    const Vec3 e = h * Vec3::Unit(a);
    g[a] = solid(x + e) - solid(x - e);
  }
  const Real norm = g.norm();
  return norm > 0 ? Vec3(g / norm) : Vec3::Zero();
}

Real cell_open_fraction(const grid::Array3<Real>& phi, int i, int j, int k) {
  Real corner[8];
  bool any_solid = false;
  for (int b = 0; b < 8; ++b) {
    corner[b] = phi(i + (b & 1), j + ((b >> 1) & 1), k + (b >> 2));
    any_solid = any_solid || corner[b] < 0;
  }
  if (!any_solid) return 1;
  // Along the axis the field changes most; the interpolant is linear on every
  // line along an axis, so each line's open length is exact.
  Real change[3] = {0, 0, 0};
  for (int b = 0; b < 8; ++b)
    for (int a = 0; a < 3; ++a) change[a] += ((b >> a) & 1 ? corner[b] : -corner[b]);
  int axis = 0;
  for (int a = 1; a < 3; ++a)
    if (std::abs(change[a]) > std::abs(change[axis])) axis = a;
  const int u = axis == 0 ? 1 : 0, v = axis == 2 ? 1 : 2;
  constexpr int N = OPEN_FRACTION_POINTS;
  Real open = 0;
  for (int p = 0; p < N * N; ++p) {
    const Real s = (p % N + 0.5) / N, t = (p / N + 0.5) / N;
    Real end[2] = {0, 0};  // the line's values on the cell's low and high face along `axis`
    for (int b = 0; b < 8; ++b)
      end[(b >> axis) & 1] += corner[b] * ((b >> u) & 1 ? s : 1 - s) * ((b >> v) & 1 ? t : 1 - t);
    if (end[0] > 0 && end[1] > 0) open += 1;
    else if (end[0] > 0 || end[1] > 0) open += (end[0] > 0 ? end[0] : end[1]) / std::abs(end[0] - end[1]);
  }
  return open / (N * N);
}

}  // namespace fsicut::levelset
