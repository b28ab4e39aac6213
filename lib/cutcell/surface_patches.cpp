#include "lib/cutcell/surface_patches.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <sstream>
#include <utility>

#include "lib/core/error.hpp"
#include "lib/core/parallel.hpp"

namespace fsicut::cutcell {
namespace {

// Triangles per parallel work item: enough to amortize the scratch polygons and
// the patch list of an item, few enough to balance a mesh of a few thousand.
constexpr Index BLOCK_TRIANGLES = 64;

// A polygon vertex: world position [m] and barycentric coordinates in the
// triangle being clipped. Both are linear along an edge, so a cut interpolates
// them with the same parameter.
struct ClipVertex {
  Vec3 x;
  Vec3 bary;
};
using Polygon = std::vector<ClipVertex>;

// Sutherland-Hodgman against one axis plane, keeping both sides. With
// d = sign * (x[axis] - plane), `inside` gets the part with d >= 0 and
// `outside` (unless null) the part with d < 0. A vertex with d == 0 is inside,
// so a polygon lying in the plane goes entirely inside and nothing is counted
// twice. Cut points get x[axis] = plane exactly.
void clip(const Polygon& poly, int axis, Real plane, Real sign, Polygon& inside, Polygon* outside) {
  inside.clear();
  if (outside) outside->clear();
  const std::size_t n = poly.size();
  for (std::size_t k = 0, previous = n - 1; k < n; previous = k++) {
    const ClipVertex& a = poly[previous];
    const ClipVertex& b = poly[k];
    const Real da = sign * (a.x[axis] - plane);
    const Real db = sign * (b.x[axis] - plane);
    if (da >= 0) {
      inside.push_back(a);
    } else if (outside) {
      outside->push_back(a);
    }
    if ((da >= 0) != (db >= 0)) {
      // Signs differ and one of them is strict, so da - db != 0 and t is in [0, 1].
      const Real t = da / (da - db);
      ClipVertex cut{a.x + t * (b.x - a.x), a.bary + t * (b.bary - a.bary)};
      cut.x[axis] = plane;
      inside.push_back(cut);
      if (outside) outside->push_back(cut);
    }
  }
}

// Clips the triangles of one work item, with its own scratch polygons.
class TriangleClipper {
 public:
  explicit TriangleClipper(const grid::MacGrid& grid)
      : grid_(grid), min_area_(MIN_PATCH_AREA_FRACTION * grid.dx * grid.dx) {}

  void clip_triangle(Index triangle, const Vec3& a, const Vec3& b, const Vec3& c,
                     std::vector<SurfacePatch>& out) {
    const Vec3 cross = (b - a).cross(c - a);
    const Real norm = cross.norm();
    if (!(norm > 0)) return;  // zero area: no normal, no patches
    const Vec3 lo = a.cwiseMin(b).cwiseMin(c);
    const Vec3 hi = a.cwiseMax(b).cwiseMax(c);
    for (int axis = 0; axis < 3; ++axis)
      if (hi[axis] < plane(axis, 0) || lo[axis] > plane(axis, grid_.resolution[axis])) return;

    triangle_ = triangle;
    outward_ = cross / norm;
    Polygon* poly = &input_;
    poly->assign({{a, Vec3(1, 0, 0)}, {b, Vec3(0, 1, 0)}, {c, Vec3(0, 0, 1)}});
    // The grid box is closed: keep x >= origin and x <= max, on the axes where
    // the triangle leaves it.
    for (int axis = 0; axis < 3; ++axis) {
      const Real low = plane(axis, 0), high = plane(axis, grid_.resolution[axis]);
      if (lo[axis] < low) {
        clip(*poly, axis, low, 1, *other(poly), nullptr);
        poly = other(poly);
      }
      if (hi[axis] > high) {
        clip(*poly, axis, high, -1, *other(poly), nullptr);
        poly = other(poly);
      }
    }
    if (poly->size() < 3) return;
    split(0, *poly, Vec3i::Zero(), out);
  }

 private:
  // World coordinate [m] of the cell plane with index i on `axis`: the same
  // expression everywhere, so a point is on one side of it consistently.
  Real plane(int axis, int i) const { return grid_.origin[axis] + grid_.dx * i; }

  Polygon* other(Polygon* p) { return p == &input_ ? &boxed_ : &input_; }

  // The cell index along `axis` holding coordinate x under the half-open rule
  // of clip() (x on plane i is in cell i), clamped to the grid. The floor
  // guesses, the comparisons settle it exactly as clip() would.
  int slab_of(int axis, Real x) const {
    const int n = grid_.resolution[axis];
    int i = static_cast<int>(
        std::clamp(std::floor((x - grid_.origin[axis]) / grid_.dx), Real(0), Real(n - 1)));
    while (i > 0 && x < plane(axis, i)) --i;
    while (i < n - 1 && x >= plane(axis, i + 1)) ++i;
    return i;
  }

  // Splits `poly` (inside the grid box, already assigned cell[0 .. axis-1]) into
  // the cells along `axis`, then recurses to the next axis; after z, emits.
  void split(int axis, const Polygon& poly, Vec3i cell, std::vector<SurfacePatch>& out) {
    if (axis == 3) {
      emit(poly, cell, out);
      return;
    }
    Real lo = poly[0].x[axis], hi = lo;
    for (const ClipVertex& v : poly) {
      lo = std::min(lo, v.x[axis]);
      hi = std::max(hi, v.x[axis]);
    }
    const int first = slab_of(axis, lo), last = slab_of(axis, hi);
    if (first == last) {
      cell[axis] = first;
      split(axis + 1, poly, cell, out);
      return;
    }
    Polygon& rest = rest_[axis];
    Polygon& above = above_[axis];
    Polygon& below = below_[axis];
    rest = poly;
    for (int i = first + 1; i <= last; ++i) {
      clip(rest, axis, plane(axis, i), 1, above, &below);
      std::swap(rest, above);
      if (below.size() >= 3) {
        cell[axis] = i - 1;
        split(axis + 1, below, cell, out);
      }
    }
    if (rest.size() >= 3) {
      cell[axis] = last;
      split(axis + 1, rest, cell, out);
    }
  }

  // Area and centroid by a fan from vertex 0. The polygon is convex, so every
  // fan triangle has a non-negative area; round-off may make a degenerate one
  // slightly negative, and clamping its weight to zero keeps the centroid a
  // convex combination of the vertices (inside the cell, barycentrics >= 0).
  void emit(const Polygon& poly, const Vec3i& cell, std::vector<SurfacePatch>& out) const {
    const Vec3& p0 = poly[0].x;
    Real twice_area = 0, weight = 0;
    Vec3 bary(0, 0, 0);
    for (std::size_t k = 1; k + 1 < poly.size(); ++k) {
      const Real w = (poly[k].x - p0).cross(poly[k + 1].x - p0).dot(outward_);
      twice_area += w;
      if (w > 0) {
        weight += w;
        bary += w * (poly[0].bary + poly[k].bary + poly[k + 1].bary);
      }
    }
    const Real area = 0.5 * twice_area;
    if (!(area >= min_area_)) return;
    SurfacePatch patch;
    patch.cell = cell.x() + static_cast<Index>(grid_.resolution.x()) *
                                (cell.y() + static_cast<Index>(grid_.resolution.y()) * cell.z());
    patch.triangle = triangle_;
    patch.area = area;
    patch.normal = -outward_;
    patch.barycentric = bary / (3 * weight);
    out.push_back(patch);
  }

  const grid::MacGrid& grid_;
  const Real min_area_;
  Index triangle_ = -1;
  Vec3 outward_{0, 0, 0};
  Polygon input_, boxed_;
  std::array<Polygon, 3> rest_, above_, below_;
};

void check_input(const Points& vertices, const std::vector<mesh::Triangle>& triangles) {
  const Index n = vertices.cols();
  for (std::size_t t = 0; t < triangles.size(); ++t) {
    for (int k = 0; k < 3; ++k) {
      const Index v = triangles[t][k];
      if (v < 0 || v >= n) {
        std::ostringstream s;
        s << "clip_surface: triangle " << t << " uses vertex " << v << ", but there are " << n
          << " vertices";
        throw MeshError(s.str());
      }
      if (!vertices.col(v).allFinite()) {
        std::ostringstream s;
        s << "clip_surface: vertex " << v << " of triangle " << t << " is not finite";
        throw SimulationError(s.str());
      }
    }
  }
}

}  // namespace

void clip_surface(const grid::MacGrid& grid, const Points& vertices,
                  const std::vector<mesh::Triangle>& triangles, std::vector<SurfacePatch>& out) {
  out.clear();
  check_input(vertices, triangles);
  if (grid.cell_count() <= 0 || triangles.empty()) return;

  const Index count = static_cast<Index>(triangles.size());
  const Index blocks = (count + BLOCK_TRIANGLES - 1) / BLOCK_TRIANGLES;
  std::vector<std::vector<SurfacePatch>> found(static_cast<std::size_t>(blocks));
  parallel_for(0, blocks, [&](Index block) {
    TriangleClipper clipper(grid);
    const Index end = std::min(count, (block + 1) * BLOCK_TRIANGLES);
    for (Index t = block * BLOCK_TRIANGLES; t < end; ++t) {
      const mesh::Triangle& tri = triangles[static_cast<std::size_t>(t)];
      clipper.clip_triangle(t, vertices.col(tri[0]), vertices.col(tri[1]), vertices.col(tri[2]),
                            found[static_cast<std::size_t>(block)]);
    }
  });

  // Sort small keys instead of the patches themselves, then gather. (cell,
  // triangle) is unique, so the order does not depend on how the work was split.
  struct Key {
    Index cell, triangle, slot;  // slot: position in found[triangle / BLOCK_TRIANGLES]
  };
  std::size_t total = 0;
  for (const auto& block : found) total += block.size();
  std::vector<Key> keys;
  keys.reserve(total);
  for (const auto& block : found)
    for (std::size_t n = 0; n < block.size(); ++n)
      keys.push_back({block[n].cell, block[n].triangle, static_cast<Index>(n)});
  std::sort(keys.begin(), keys.end(), [](const Key& p, const Key& q) {
    return p.cell != q.cell ? p.cell < q.cell : p.triangle < q.triangle;
  });
  out.reserve(keys.size());
  for (const Key& k : keys)
    out.push_back(found[static_cast<std::size_t>(k.triangle / BLOCK_TRIANGLES)][static_cast<std::size_t>(k.slot)]);
}

std::vector<SurfacePatch> clip_surface(const grid::MacGrid& grid, const Points& vertices,
                                       const std::vector<mesh::Triangle>& triangles) {
  std::vector<SurfacePatch> out;
  clip_surface(grid, vertices, triangles, out);
  return out;
}

}  // namespace fsicut::cutcell
