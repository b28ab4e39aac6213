#include "lib/mesh/bvh.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

namespace fsicut::mesh {
namespace {

constexpr Real INF = std::numeric_limits<Real>::infinity();

// Traversal stack of a query. A median split halves the triangle count per
// level, so the tree is at most ceil(log2 #triangles) + 1 deep, and the stack
// (at most one pending sibling per level, plus the popped node's two children)
// holds fewer than 64 entries for any mesh with fewer than 2^62 triangles.
constexpr int STACK_SIZE = 64;

}  // namespace

void TriangleBvh::build(const Points& vertices, const std::vector<Triangle>& triangles) {
  const int nt = static_cast<int>(triangles.size());
  std::vector<Vec3> centroids(static_cast<std::size_t>(nt));
  for (int t = 0; t < nt; ++t) {
    const Triangle& tri = triangles[static_cast<std::size_t>(t)];
    centroids[static_cast<std::size_t>(t)] =
        (vertices.col(tri[0]) + vertices.col(tri[1]) + vertices.col(tri[2])) / 3;
  }
  order_.resize(static_cast<std::size_t>(nt));
  for (int t = 0; t < nt; ++t) order_[static_cast<std::size_t>(t)] = t;
  nodes_.clear();
  nodes_.reserve(static_cast<std::size_t>(2 * nt));
  leaf_of_.resize(static_cast<std::size_t>(nt));
  build_node(0, nt, vertices, triangles, centroids);
  corners_.resize(3 * static_cast<std::size_t>(nt));
  slot_of_.resize(static_cast<std::size_t>(nt));
  for (int s = 0; s < nt; ++s) slot_of_[static_cast<std::size_t>(order_[static_cast<std::size_t>(s)])] = s;
  for (int s = 0; s < nt; ++s)
    for (int k = 0; k < 3; ++k)
      corners_[3 * static_cast<std::size_t>(s) + k] = vertices.col(triangles[static_cast<std::size_t>(order_[s])][k]);
  planes_.resize(static_cast<std::size_t>(nt));
  plane_norms_.resize(static_cast<std::size_t>(nt));
  for (std::size_t s = 0; s < static_cast<std::size_t>(nt); ++s) {
    const Vec3* c = &corners_[3 * s];
    planes_[s] = (c[1] - c[0]).cross(c[2] - c[0]);
    plane_norms_[s] = planes_[s].norm();
  }
  lo_ = nodes_.front().lo;
  hi_ = nodes_.front().hi;
}

int TriangleBvh::build_node(int begin, int end, const Points& vertices, const std::vector<Triangle>& triangles,
                            const std::vector<Vec3>& centroids) {
  const int index = static_cast<int>(nodes_.size());
  nodes_.emplace_back();
  Vec3 lo = Vec3::Constant(INF), hi = Vec3::Constant(-INF);
  Vec3 clo = lo, chi = hi;
  for (int s = begin; s < end; ++s) {
    const int t = order_[static_cast<std::size_t>(s)];
    for (int k = 0; k < 3; ++k) {
      const Vec3 v = vertices.col(triangles[static_cast<std::size_t>(t)][k]);
      lo = lo.cwiseMin(v);
      hi = hi.cwiseMax(v);
    }
    clo = clo.cwiseMin(centroids[static_cast<std::size_t>(t)]);
    chi = chi.cwiseMax(centroids[static_cast<std::size_t>(t)]);
  }
  nodes_[static_cast<std::size_t>(index)].lo = lo;
  nodes_[static_cast<std::size_t>(index)].hi = hi;
  int axis = 0;
  const Vec3 extent = chi - clo;
  extent.maxCoeff(&axis);
  // Identical centroids cannot be split by position: keep them in one leaf.
  if (end - begin <= LEAF_TRIANGLES || !(extent[axis] > 0)) {
    nodes_[static_cast<std::size_t>(index)].first = begin;
    nodes_[static_cast<std::size_t>(index)].count = end - begin;
    for (int s = begin; s < end; ++s) leaf_of_[static_cast<std::size_t>(s)] = index;
    return index;
  }
  const int mid = begin + (end - begin) / 2;
  std::nth_element(order_.begin() + begin, order_.begin() + mid, order_.begin() + end, [&](int a, int b) {
    return centroids[static_cast<std::size_t>(a)][axis] < centroids[static_cast<std::size_t>(b)][axis];
  });
  build_node(begin, mid, vertices, triangles, centroids);
  const int second = build_node(mid, end, vertices, triangles, centroids);
  nodes_[static_cast<std::size_t>(index)].first = second;
  nodes_[static_cast<std::size_t>(index)].count = 0;
  return index;
}

TriangleBvh::Closest TriangleBvh::closest(const Vec3& x, Real max_distance, Index hint) const {
  Real best2 = max_distance * max_distance;
  int best_slot = -1;
  TriangleClosest best{Vec3::Zero(), TriangleFeature::face, 0};

  // A nearby triangle tried first gives a tight bound before the descent.
  if (hint >= 0 && hint < num_triangles()) {
    const int slot = slot_of_[static_cast<std::size_t>(hint)];
    const std::size_t c = 3 * static_cast<std::size_t>(slot);
    const TriangleClosest q = closest_on_triangle(x, corners_[c], corners_[c + 1], corners_[c + 2]);
    const Real d2 = (x - q.point).squaredNorm();
    if (d2 <= best2) {
      best2 = d2;
      best = q;
      best_slot = slot;
    }
  }

  struct Entry {
    int node;
    Real d2;
  };
  std::array<Entry, STACK_SIZE> stack;
  int top = 0;
  const Real root2 = box_distance2(x, nodes_[0].lo, nodes_[0].hi);
  if (root2 > best2) return {};
  stack[top++] = {0, root2};
  while (top > 0) {
    const Entry e = stack[--top];
    if (e.d2 > best2) continue;
    const Node& node = nodes_[static_cast<std::size_t>(e.node)];
    if (node.count > 0) {
      for (int s = node.first; s < node.first + node.count; ++s) {
        const std::size_t c = 3 * static_cast<std::size_t>(s);
        const TriangleClosest q = closest_on_triangle(x, corners_[c], corners_[c + 1], corners_[c + 2]);
        const Real d2 = (x - q.point).squaredNorm();
        if (d2 < best2 || (best_slot < 0 && d2 <= best2)) {
          best2 = d2;
          best_slot = s;
          best = q;
        }
      }
      continue;
    }
    const int a = e.node + 1, b = node.first;
    Real da = box_distance2(x, nodes_[static_cast<std::size_t>(a)].lo, nodes_[static_cast<std::size_t>(a)].hi);
    Real db = box_distance2(x, nodes_[static_cast<std::size_t>(b)].lo, nodes_[static_cast<std::size_t>(b)].hi);
    // Push the farther child first so the nearer one is searched first and
    // tightens best2 before the farther one is reconsidered.
    Entry near{a, da}, far{b, db};
    if (db < da) std::swap(near, far);
    if (far.d2 <= best2) stack[top++] = far;
    if (near.d2 <= best2) stack[top++] = near;
  }
  if (best_slot < 0) return {};
  return {order_[static_cast<std::size_t>(best_slot)], best2, best};
}

TriangleBvh::Parity TriangleBvh::ray_parity(const Vec3& x, const Vec3& direction) const {
  // Crossings closer than this to an edge (in barycentric units) or to x (in
  // units of the mesh size) are too close to call: the caller tries another ray.
  constexpr Real BARYCENTRIC_MARGIN = 1e-9;
  constexpr Real ORIGIN_MARGIN = 1e-12;
  const Real t_margin = ORIGIN_MARGIN * (hi_ - lo_).norm();
  const Vec3 inv = direction.cwiseInverse();
  bool odd = false;
  std::array<int, STACK_SIZE> stack;
  int top = 0;
  stack[top++] = 0;
  while (top > 0) {
    const Node& node = nodes_[static_cast<std::size_t>(stack[--top])];
    // Slab test of the ray x + t d, t >= 0, against the box.
    const Vec3 t0 = (node.lo - x).cwiseProduct(inv), t1 = (node.hi - x).cwiseProduct(inv);
    const Real enter = std::max(t0.cwiseMin(t1).maxCoeff(), Real(0));
    const Real leave = t0.cwiseMax(t1).minCoeff();
    if (!(enter <= leave)) continue;
    if (node.count == 0) {
      stack[top++] = node.first;
      stack[top++] = static_cast<int>(&node - nodes_.data()) + 1;
      continue;
    }
    for (int s = node.first; s < node.first + node.count; ++s) {
      const std::size_t c = 3 * static_cast<std::size_t>(s);
      const Vec3 e1 = corners_[c + 1] - corners_[c], e2 = corners_[c + 2] - corners_[c];
      const Vec3 p = direction.cross(e2);
      const Real det = e1.dot(p);
      // A ray (nearly) parallel to the triangle's plane cannot be judged.
      if (std::abs(det) <= BARYCENTRIC_MARGIN * e1.norm() * e2.norm()) {
        if (std::abs(det) == 0 && (x - corners_[c]).dot(e1.cross(e2)) != 0) continue;
        return Parity::unknown;
      }
      const Vec3 r = x - corners_[c];
      const Vec3 q = r.cross(e1);
      const Real u = r.dot(p) / det, v = direction.dot(q) / det;
      const Real margin = std::min({u, v, 1 - u - v});
      if (margin < -BARYCENTRIC_MARGIN) continue;
      const Real t = e2.dot(q) / det;
      if (t < -t_margin) continue;
      if (margin <= BARYCENTRIC_MARGIN || t <= t_margin) return Parity::unknown;
      odd = !odd;
    }
  }
  return odd ? Parity::odd : Parity::even;
}

namespace {

// Meetings this close outside an edge (barycentric units) count: a segment
// through a shared edge must not slip between its two triangles.
constexpr Real EDGE_SLACK = 1e-12;
// Meetings closer than this along the segment (in units of its length) are
// the same point.
constexpr Real SAME_POINT = 1e-9;

// Slab test of a + t d, t in [0, 1], against the box lo..hi (inv = 1 / d);
// an axis along which the segment does not move only asks whether a is
// within the slab.
bool segment_meets_box(const Vec3& a, const Vec3& d, const Vec3& inv, const Vec3& lo, const Vec3& hi) {
  const Vec3 t0 = (lo - a).cwiseProduct(inv), t1 = (hi - a).cwiseProduct(inv);
  Real enter = 0, leave = 1;
  bool miss = false;
  for (int k = 0; k < 3; ++k) {
    if (d[k] == 0) {
      miss = miss || a[k] < lo[k] || a[k] > hi[k];
      continue;
    }
    enter = std::max(enter, std::min(t0[k], t1[k]));
    leave = std::min(leave, std::max(t0[k], t1[k]));
  }
  return !miss && enter <= leave;
}

// What one segment test gathers: the hits and the distinct parameters found
// so far (more are counted, not kept).
struct Meetings {
  SegmentHits hits;
  std::array<Real, 32> met;
  int kept = 0;
};

// Whether a + t d meets the triangle with corners c (slot s, triangle id
// `triangle`), added to m when it does at a new point.
void meet_triangle(const Vec3& a, const Vec3& d, const Vec3* c, Index triangle, Meetings& m) {
  const Vec3 e1 = c[1] - c[0], e2 = c[2] - c[0];
  const Vec3 p = d.cross(e2);
  const Real det = e1.dot(p);
  if (det == 0) return;  // parallel to the plane
  const Vec3 r = a - c[0];
  const Vec3 q = r.cross(e1);
  const Real u = r.dot(p) / det, v = d.dot(q) / det;
  if (std::min({u, v, 1 - u - v}) < -EDGE_SLACK) return;
  const Real t = e2.dot(q) / det;
  if (t < 0 || t > 1) return;
  // Triangles met at the same point (a shared edge or vertex) are one crossing.
  bool seen = false;
  for (int k = 0; k < m.kept; ++k) seen = seen || std::abs(m.met[static_cast<std::size_t>(k)] - t) <= SAME_POINT;
  if (seen) return;
  if (m.kept < static_cast<int>(m.met.size())) m.met[static_cast<std::size_t>(m.kept++)] = t;
  ++m.hits.count;
  if (t < m.hits.first) {
    m.hits.first = t;
    m.hits.triangle = triangle;
  }
  if (t > m.hits.last) {
    m.hits.last = t;
    m.hits.last_triangle = triangle;
  }
}

}  // namespace

SegmentHits TriangleBvh::segment_hits(const Vec3& a, const Vec3& b) const {
  Meetings m;
  const Vec3 d = b - a;
  const Vec3 inv = d.cwiseInverse();
  std::array<int, STACK_SIZE> stack;
  int top = 0;
  stack[top++] = 0;
  while (top > 0) {
    const Node& node = nodes_[static_cast<std::size_t>(stack[--top])];
    if (!segment_meets_box(a, d, inv, node.lo, node.hi)) continue;
    if (node.count == 0) {
      stack[top++] = node.first;
      stack[top++] = static_cast<int>(&node - nodes_.data()) + 1;
      continue;
    }
    for (int s = node.first; s < node.first + node.count; ++s)
      meet_triangle(a, d, &corners_[3 * static_cast<std::size_t>(s)], order_[static_cast<std::size_t>(s)], m);
  }
  if (m.hits.count > 0) m.hits.point = a + m.hits.first * d;
  return m.hits;
}

TriangleBvh::Near TriangleBvh::near(const Vec3& lo, const Vec3& hi) const {
  Near out;
  out.margin = 1e-6 * (hi - lo).maxCoeff();
  const Vec3 from = lo.array() - out.margin, to = hi.array() + out.margin;
  const Vec3 centre = (lo + hi) / 2, half = (hi - lo) / 2;
  const auto meets = [&](const Vec3& a, const Vec3& b) {
    return (a.array() <= to.array()).all() && (b.array() >= from.array()).all();
  };
  std::array<int, STACK_SIZE> stack;
  int top = 0;
  stack[top++] = 0;
  while (top > 0) {
    const Node& node = nodes_[static_cast<std::size_t>(stack[--top])];
    if (!meets(node.lo, node.hi)) continue;
    if (node.count == 0) {
      stack[top++] = node.first;
      stack[top++] = static_cast<int>(&node - nodes_.data()) + 1;
      continue;
    }
    for (int s = node.first; s < node.first + node.count; ++s) {
      const std::size_t k = static_cast<std::size_t>(s);
      const Vec3* c = &corners_[3 * k];
      if (!meets(c[0].cwiseMin(c[1]).cwiseMin(c[2]), c[0].cwiseMax(c[1]).cwiseMax(c[2]))) continue;
      // The whole box on one side of the plane, by twice the margin: so are
      // both ends of every segment in it, and segment_hits would skip it.
      const Real h = planes_[k].dot(centre - c[0]), spread = planes_[k].cwiseAbs().dot(half);
      if (std::abs(h) > spread + 2 * out.margin * plane_norms_[k]) continue;
      out.slots.push_back(s);
    }
  }
  return out;
}

SegmentHits TriangleBvh::segment_hits(const Vec3& a, const Vec3& b, const Near& near) const {
  Meetings m;
  const Vec3 d = b - a;
  Vec3 inv;  // 1 / d, worked out at the first leaf tested: most segments meet no plane
  bool inverted = false;
  // A leaf's box holds its ancestors' boxes, so when the slab test passes it
  // it passes theirs (the test is monotone in the box): the descent reaches
  // exactly the leaves whose own test passes.
  int leaf = -1;
  bool open = false;
  for (const int s : near.slots) {
    const std::size_t k = static_cast<std::size_t>(s);
    const Vec3* c = &corners_[3 * k];
    // Both ends on one side of the plane, farther than the margin: the
    // meeting with the plane is off the segment (t outside [0, 1]).
    const Real ha = planes_[k].dot(a - c[0]), hb = planes_[k].dot(b - c[0]), m_n = near.margin * plane_norms_[k];
    if ((ha > m_n && hb > m_n) || (ha < -m_n && hb < -m_n)) continue;
    if (leaf_of_[k] != leaf) {
      if (!inverted) inv = d.cwiseInverse(), inverted = true;
      leaf = leaf_of_[k];
      const Node& node = nodes_[static_cast<std::size_t>(leaf)];
      open = segment_meets_box(a, d, inv, node.lo, node.hi);
    }
    if (open) meet_triangle(a, d, c, order_[k], m);
  }
  if (m.hits.count > 0) m.hits.point = a + m.hits.first * d;
  return m.hits;
}

}  // namespace fsicut::mesh
