#include "lib/levelset/mesh_sdf.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <utility>

#include "lib/core/error.hpp"
#include "lib/core/parallel.hpp"
#include "lib/mesh/box.hpp"
#include "lib/mesh/check.hpp"
#include "lib/mesh/obj.hpp"

namespace fsicut::levelset {
namespace {

constexpr Real INF = std::numeric_limits<Real>::infinity();

// Traversal stack of a query. A median split halves the triangle count per
// level, so the tree is at most ceil(log2 #triangles) + 1 deep, and the stack
// (at most one pending sibling per level, plus the popped node's two children)
// holds fewer than 64 entries for any mesh with fewer than 2^62 triangles.
constexpr int STACK_SIZE = 64;

// The closest point of triangle (a, b, c) to p: Ericson, Real-Time Collision
// Detection, 5.1.5, by the triangle's Voronoi regions. `feature` and `which`
// name the region: vertex 0/1/2, edge 0 = (a,b), 1 = (b,c), 2 = (c,a), or face.
struct TriangleClosest {
  Vec3 point;
  MeshFeature feature;
  int which;
};

TriangleClosest closest_on_segment(const Vec3& p, const Vec3& a, const Vec3& b, int edge) {
  const Vec3 ab = b - a;
  const Real len2 = ab.squaredNorm();
  const Real t = len2 > 0 ? std::clamp((p - a).dot(ab) / len2, Real(0), Real(1)) : Real(0);
  if (t <= 0) return {a, MeshFeature::vertex, edge};
  if (t >= 1) return {b, MeshFeature::vertex, (edge + 1) % 3};
  return {a + t * ab, MeshFeature::edge, edge};
}

TriangleClosest closest_on_triangle(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c) {
  const Vec3 ab = b - a, ac = c - a, ap = p - a;
  const Real d1 = ab.dot(ap), d2 = ac.dot(ap);
  if (d1 <= 0 && d2 <= 0) return {a, MeshFeature::vertex, 0};
  const Vec3 bp = p - b;
  const Real d3 = ab.dot(bp), d4 = ac.dot(bp);
  if (d3 >= 0 && d4 <= d3) return {b, MeshFeature::vertex, 1};
  const Real vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) return {a + d1 / (d1 - d3) * ab, MeshFeature::edge, 0};
  const Vec3 cp = p - c;
  const Real d5 = ab.dot(cp), d6 = ac.dot(cp);
  if (d6 >= 0 && d5 <= d6) return {c, MeshFeature::vertex, 2};
  const Real vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) return {a + d2 / (d2 - d6) * ac, MeshFeature::edge, 2};
  const Real va = d3 * d6 - d5 * d4;
  if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0)
    return {b + (d4 - d3) / ((d4 - d3) + (d5 - d6)) * (c - b), MeshFeature::edge, 1};
  const Real sum = va + vb + vc;  // = |ab x ac|^2
  // A (numerically) degenerate triangle has no interior: fall back to the
  // nearest of its edges instead of dividing by a vanishing area.
  if (!(sum > 0)) {
    TriangleClosest best = closest_on_segment(p, a, b, 0);
    for (const TriangleClosest& e : {closest_on_segment(p, b, c, 1), closest_on_segment(p, c, a, 2)})
      if ((p - e.point).squaredNorm() < (p - best.point).squaredNorm()) best = e;
    return best;
  }
  return {a + (vb / sum) * ab + (vc / sum) * ac, MeshFeature::face, 0};
}

Real box_distance2(const Vec3& p, const Vec3& lo, const Vec3& hi) {
  const Vec3 d = (lo - p).cwiseMax(p - hi).cwiseMax(0.0);
  return d.squaredNorm();
}

std::string vertex_text(Index v) {
  std::ostringstream s;
  s << "vertex " << v + 1;
  return s.str();
}

}  // namespace

MeshDistance::MeshDistance(Points vertices, std::vector<mesh::Triangle> triangles)
    : vertices_(std::move(vertices)), triangles_(std::move(triangles)) {
  if (triangles_.empty()) throw MeshError("mesh distance: the surface has no triangles");
  const Index n = vertices_.cols();
  for (std::size_t t = 0; t < triangles_.size(); ++t)
    for (int k = 0; k < 3; ++k)
      if (triangles_[t][k] < 0 || triangles_[t][k] >= n) {
        std::ostringstream s;
        s << "mesh distance: triangle " << t + 1 << " uses vertex " << triangles_[t][k] + 1 << " of " << n;
        throw MeshError(s.str());
      }
  check_vertices(vertices_);
  build_adjacency();
  update_normals();
  build_tree();
}

MeshDistance::MeshDistance(const mesh::SurfaceMesh& mesh) : MeshDistance(mesh.vertices, mesh.triangles) {}

void MeshDistance::check_vertices(const Points& vertices) const {
  for (Index v = 0; v < vertices.cols(); ++v)
    if (!vertices.col(v).allFinite())
      throw MeshError("mesh distance: " + vertex_text(v) + " has a non-finite coordinate");
}

void MeshDistance::set_vertices(const Points& vertices) {
  if (vertices.cols() != vertices_.cols()) {
    std::ostringstream s;
    s << "mesh distance: " << vertices.cols() << " vertices given, the surface has " << vertices_.cols();
    throw MeshError(s.str());
  }
  check_vertices(vertices);
  vertices_ = vertices;
  update_normals();
  build_tree();
}

void MeshDistance::build_adjacency() {
  // Sort the half-edges by their undirected key; equal keys are one edge.
  std::vector<std::pair<std::uint64_t, int>> half(3 * triangles_.size());
  for (std::size_t t = 0; t < triangles_.size(); ++t)
    for (int e = 0; e < 3; ++e) {
      const auto a = static_cast<std::uint64_t>(triangles_[t][e]);
      const auto b = static_cast<std::uint64_t>(triangles_[t][(e + 1) % 3]);
      half[3 * t + e] = {(std::min(a, b) << 32) | std::max(a, b), static_cast<int>(3 * t + e)};
    }
  std::sort(half.begin(), half.end());
  triangle_edges_.assign(triangles_.size(), Eigen::Vector3i::Constant(-1));
  edge_triangles_.clear();
  for (std::size_t i = 0; i < half.size(); ++i) {
    if (i == 0 || half[i].first != half[i - 1].first) edge_triangles_.emplace_back();
    const int t = half[i].second / 3, e = half[i].second % 3;
    triangle_edges_[t][e] = static_cast<int>(edge_triangles_.size() - 1);
    edge_triangles_.back().push_back(t);
  }
}

void MeshDistance::update_normals() {
  const std::size_t nt = triangles_.size();
  face_normals_.assign(nt, Vec3::Zero());
  vertex_normals_.assign(static_cast<std::size_t>(vertices_.cols()), Vec3::Zero());
  for (std::size_t t = 0; t < nt; ++t) {
    const mesh::Triangle& tri = triangles_[t];
    const Vec3 n = (vertices_.col(tri[1]) - vertices_.col(tri[0])).cross(vertices_.col(tri[2]) - vertices_.col(tri[0]));
    const Real len = n.norm();
    if (!(len > 0)) continue;  // degenerate: no direction to contribute
    face_normals_[t] = n / len;
    for (int k = 0; k < 3; ++k) {
      const Vec3 u = vertices_.col(tri[(k + 1) % 3]) - vertices_.col(tri[k]);
      const Vec3 w = vertices_.col(tri[(k + 2) % 3]) - vertices_.col(tri[k]);
      const Real angle = std::atan2(u.cross(w).norm(), u.dot(w));
      vertex_normals_[static_cast<std::size_t>(tri[k])] += angle * face_normals_[t];
    }
  }
  // Both faces of an edge see it under the angle pi: the pseudonormal is the
  // plain sum of their normals.
  edge_normals_.assign(edge_triangles_.size(), Vec3::Zero());
  for (std::size_t e = 0; e < edge_triangles_.size(); ++e)
    for (int t : edge_triangles_[e]) edge_normals_[e] += face_normals_[static_cast<std::size_t>(t)];
}

void MeshDistance::build_tree() {
  const int nt = static_cast<int>(triangles_.size());
  std::vector<Vec3> centroids(static_cast<std::size_t>(nt));
  for (int t = 0; t < nt; ++t) {
    const mesh::Triangle& tri = triangles_[static_cast<std::size_t>(t)];
    centroids[static_cast<std::size_t>(t)] =
        (vertices_.col(tri[0]) + vertices_.col(tri[1]) + vertices_.col(tri[2])) / 3;
  }
  order_.resize(static_cast<std::size_t>(nt));
  for (int t = 0; t < nt; ++t) order_[static_cast<std::size_t>(t)] = t;
  nodes_.clear();
  nodes_.reserve(static_cast<std::size_t>(2 * nt));
  build_node(0, nt, centroids);
  corners_.resize(3 * static_cast<std::size_t>(nt));
  slot_of_.resize(static_cast<std::size_t>(nt));
  for (int s = 0; s < nt; ++s) slot_of_[static_cast<std::size_t>(order_[static_cast<std::size_t>(s)])] = s;
  for (int s = 0; s < nt; ++s)
    for (int k = 0; k < 3; ++k)
      corners_[3 * static_cast<std::size_t>(s) + k] = vertices_.col(triangles_[static_cast<std::size_t>(order_[s])][k]);
  lo_ = nodes_.front().lo;
  hi_ = nodes_.front().hi;
}

int MeshDistance::build_node(int begin, int end, const std::vector<Vec3>& centroids) {
  const int index = static_cast<int>(nodes_.size());
  nodes_.emplace_back();
  Vec3 lo = Vec3::Constant(INF), hi = Vec3::Constant(-INF);
  Vec3 clo = lo, chi = hi;
  for (int s = begin; s < end; ++s) {
    const int t = order_[static_cast<std::size_t>(s)];
    for (int k = 0; k < 3; ++k) {
      const Vec3 v = vertices_.col(triangles_[static_cast<std::size_t>(t)][k]);
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
    return index;
  }
  const int mid = begin + (end - begin) / 2;
  std::nth_element(order_.begin() + begin, order_.begin() + mid, order_.begin() + end, [&](int a, int b) {
    return centroids[static_cast<std::size_t>(a)][axis] < centroids[static_cast<std::size_t>(b)][axis];
  });
  build_node(begin, mid, centroids);
  const int second = build_node(mid, end, centroids);
  nodes_[static_cast<std::size_t>(index)].first = second;
  nodes_[static_cast<std::size_t>(index)].count = 0;
  return index;
}

Vec3 MeshDistance::pseudonormal(Index triangle, MeshFeature feature, int which) const {
  const auto t = static_cast<std::size_t>(triangle);
  switch (feature) {
    case MeshFeature::face: return face_normals_[t];
    case MeshFeature::edge: return edge_normals_[static_cast<std::size_t>(triangle_edges_[t][which])];
    case MeshFeature::vertex: return vertex_normals_[static_cast<std::size_t>(triangles_[t][which])];
  }
  return Vec3::Zero();
}

MeshHit MeshDistance::closest(const Vec3& x, Real max_distance, Index hint) const {
  MeshHit hit;
  Real best2 = max_distance * max_distance;
  int best_slot = -1;
  TriangleClosest best{Vec3::Zero(), MeshFeature::face, 0};

  // A nearby triangle tried first gives a tight bound before the descent.
  if (hint >= 0 && hint < static_cast<Index>(triangles_.size())) {
    const mesh::Triangle& t = triangles_[static_cast<std::size_t>(hint)];
    const TriangleClosest q = closest_on_triangle(x, vertices_.col(t[0]), vertices_.col(t[1]), vertices_.col(t[2]));
    const Real d2 = (x - q.point).squaredNorm();
    if (d2 <= best2) {
      best2 = d2;
      best = q;
      best_slot = slot_of_[static_cast<std::size_t>(hint)];
    }
  }

  struct Entry {
    int node;
    Real d2;
  };
  std::array<Entry, STACK_SIZE> stack;
  int top = 0;
  const Real root2 = box_distance2(x, nodes_[0].lo, nodes_[0].hi);
  if (root2 > best2) return hit;
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
  if (best_slot < 0) return hit;

  hit.found = true;
  hit.triangle = order_[static_cast<std::size_t>(best_slot)];
  hit.feature = best.feature;
  hit.point = best.point;
  const Vec3 n = pseudonormal(hit.triangle, best.feature, best.which);
  const Real len = n.norm();
  hit.normal = len > 0 ? Vec3(n / len) : Vec3::Zero();
  const Real d = std::sqrt(best2);
  hit.distance = (x - best.point).dot(n) < 0 ? -d : d;
  return hit;
}

Real MeshDistance::signed_distance(const Vec3& x) const { return closest(x).distance; }

Real MeshDistance::unsigned_distance(const Vec3& x) const { return std::abs(closest(x).distance); }

MeshDistance::Parity MeshDistance::ray_parity(const Vec3& x, const Vec3& direction) const {
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

SegmentHits MeshDistance::segment_hits(const Vec3& a, const Vec3& b) const {
  // Meetings this close outside an edge (barycentric units) count: a segment
  // through a shared edge must not slip between its two triangles.
  constexpr Real EDGE_SLACK = 1e-12;
  // Meetings closer than this along the segment (in units of its length) are
  // the same point.
  constexpr Real SAME_POINT = 1e-9;
  SegmentHits hits;
  std::array<Real, 32> met;  // the distinct parameters found so far (more are counted, not kept)
  int kept = 0;
  const Vec3 d = b - a;
  const Vec3 inv = d.cwiseInverse();
  std::array<int, STACK_SIZE> stack;
  int top = 0;
  stack[top++] = 0;
  while (top > 0) {
    const Node& node = nodes_[static_cast<std::size_t>(stack[--top])];
    // Slab test of a + t d, t in [0, 1], against the box; an axis along which
    // the segment does not move only asks whether a is within the slab.
    const Vec3 t0 = (node.lo - a).cwiseProduct(inv), t1 = (node.hi - a).cwiseProduct(inv);
    Real enter = 0, leave = 1;
    bool miss = false;
    for (int k = 0; k < 3; ++k) {
      if (d[k] == 0) {
        miss = miss || a[k] < node.lo[k] || a[k] > node.hi[k];
        continue;
      }
      enter = std::max(enter, std::min(t0[k], t1[k]));
      leave = std::min(leave, std::max(t0[k], t1[k]));
    }
    if (miss || !(enter <= leave)) continue;
    if (node.count == 0) {
      stack[top++] = node.first;
      stack[top++] = static_cast<int>(&node - nodes_.data()) + 1;
      continue;
    }
    for (int s = node.first; s < node.first + node.count; ++s) {
      const std::size_t c = 3 * static_cast<std::size_t>(s);
      const Vec3 e1 = corners_[c + 1] - corners_[c], e2 = corners_[c + 2] - corners_[c];
      const Vec3 p = d.cross(e2);
      const Real det = e1.dot(p);
      if (det == 0) continue;  // parallel to the plane
      const Vec3 r = a - corners_[c];
      const Vec3 q = r.cross(e1);
      const Real u = r.dot(p) / det, v = d.dot(q) / det;
      if (std::min({u, v, 1 - u - v}) < -EDGE_SLACK) continue;
      const Real t = e2.dot(q) / det;
      if (t < 0 || t > 1) continue;
      // Triangles met at the same point (a shared edge or vertex) are one crossing.
      bool seen = false;
      for (int k = 0; k < kept; ++k) seen = seen || std::abs(met[static_cast<std::size_t>(k)] - t) <= SAME_POINT;
      if (seen) continue;
      if (kept < static_cast<int>(met.size())) met[static_cast<std::size_t>(kept++)] = t;
      ++hits.count;
      if (t < hits.first) {
        hits.first = t;
        hits.triangle = order_[static_cast<std::size_t>(s)];
      }
      if (t > hits.last) {
        hits.last = t;
        hits.last_triangle = order_[static_cast<std::size_t>(s)];
      }
    }
  }
  if (hits.count > 0) hits.point = a + hits.first * d;
  return hits;
}

bool MeshDistance::inside(const Vec3& x) const {
  if ((x.array() < lo_.array()).any() || (x.array() > hi_.array()).any()) return false;
  // Fixed, not axis-aligned directions, so grid-aligned meshes are not hit
  // along their edges.
  static const std::array<Vec3, 3> DIRECTIONS = {Vec3(1, 2, 3).normalized(), Vec3(-3, 1, 2).normalized(),
                                                 Vec3(2, -3, 1).normalized()};
  for (const Vec3& d : DIRECTIONS) {
    const Parity p = ray_parity(x, d);
    if (p != Parity::unknown) return p == Parity::odd;
  }
  // Every ray grazed an edge or x is on the surface: the pseudonormal decides.
  return signed_distance(x) < 0;
}

StaticSolid mesh_solid(const mesh::SurfaceMesh& mesh, bool inside_out, Real band) {
  if (!(band > 0)) {
    std::ostringstream s;
    s << "mesh solid: the band must be positive, got " << band;
    throw MeshError(s.str());
  }
  auto distance = std::make_shared<const MeshDistance>(mesh);
  const Real sign = inside_out ? -1 : 1;
  return [distance, sign, band](const Vec3& x) {
    const MeshHit hit = distance->closest(x, band);
    if (hit.found) return sign * std::clamp(hit.distance, -band, band);
    return sign * (distance->inside(x) ? -band : band);
  };
}

std::function<bool(const Vec3&)> mesh_region(const mesh::SurfaceMesh& mesh) {
  auto distance = std::make_shared<const MeshDistance>(mesh);
  return [distance](const Vec3& x) { return distance->inside(x); };
}

namespace {

// Reads and validates the OBJ of a scene shape; errors name the scene pointer.
template <class Make>
auto from_obj(const scene::Shape& shape, const std::string& scene_file, Make make) {
  const std::string context = " (used by " + scene_file + ": " + shape.pointer + ")";
  try {
    const mesh::SurfaceMesh surface = mesh::read_obj(shape.path);
    mesh::check_closed_surface(surface, shape.path);
    return make(surface);
  } catch (const MeshError& e) {
    throw MeshError(e.what() + context);
  } catch (const MissingInputError& e) {
    throw MissingInputError(e.what() + context);
  }
}

}  // namespace

std::vector<StaticSolid> obj_obstacle_solids(const std::vector<scene::Shape>& obstacles,
                                             const std::string& scene_file, Real band) {
  std::vector<StaticSolid> solids;
  for (const scene::Shape& s : obstacles)
    if (s.type == scene::Shape::Type::obj)
      solids.push_back(
          from_obj(s, scene_file, [&](const mesh::SurfaceMesh& m) { return mesh_solid(m, s.inside_out, band); }));
  return solids;
}

std::vector<MeshDistance> obstacle_surfaces(const std::vector<scene::Shape>& obstacles,
                                            const std::string& scene_file) {
  std::vector<MeshDistance> out;
  for (const scene::Shape& s : obstacles) {
    if (s.inside_out) continue;
    if (s.type == scene::Shape::Type::box) {
      const mesh::TetMesh box = mesh::box_mesh(s.min, s.max, Vec3i::Ones());
      out.emplace_back(box.rest, box.boundary);
    } else if (s.type == scene::Shape::Type::obj) {
      out.push_back(from_obj(s, scene_file, [](const mesh::SurfaceMesh& m) { return MeshDistance(m); }));
    }
  }
  return out;
}

std::vector<std::function<bool(const Vec3&)>> obj_region_tests(const std::vector<scene::Shape>& regions,
                                                               const std::string& scene_file) {
  std::vector<std::function<bool(const Vec3&)>> tests;
  for (const scene::Shape& r : regions)
    if (r.type == scene::Shape::Type::obj)
      tests.push_back(from_obj(r, scene_file, [](const mesh::SurfaceMesh& m) { return mesh_region(m); }));
  return tests;
}

grid::Array3<Real> sample_mesh_sdf_at_nodes(const grid::MacGrid& grid, const MeshDistance& mesh, Real band) {
  grid::Array3<Real> phi;
  sample_mesh_sdf_at_nodes(grid, mesh, band, phi);
  return phi;
}

void sample_mesh_sdf_at_nodes(const grid::MacGrid& grid, const MeshDistance& mesh, Real band,
                              grid::Array3<Real>& phi) {
  if (!(band > 0) || !std::isfinite(band)) {
    std::ostringstream s;
    s << "mesh SDF: the narrow band must be positive and finite, got " << band;
    throw SimulationError(s.str());
  }
  // The far-node labelling needs every node within dx of the surface resolved
  // (see the header); the margin keeps a node at exactly dx from being lost to
  // round-off in the squared distances.
  constexpr Real SEARCH_MARGIN = 1.01;
  const Real search = std::max(band, grid.dx) * SEARCH_MARGIN;
  const Vec3i size = grid.node_size();
  if (phi.size() != size) phi.resize(size, band);
  else phi.fill(band);

  // Nodes of the bounding box grown by `search`; all others are outside and far.
  Vec3i lo, hi;
  for (int a = 0; a < 3; ++a) {
    const Real l = (mesh.bounds_min()[a] - search - grid.origin[a]) / grid.dx;
    const Real h = (mesh.bounds_max()[a] + search - grid.origin[a]) / grid.dx;
    // Clamped on both sides before the cast: a solid flung far outside the
    // grid (1e12 m/s) gives indices past 2^31, and casting those is undefined.
    lo[a] = static_cast<int>(std::min<Real>(size[a], std::max<Real>(0, std::floor(l))));
    hi[a] = static_cast<int>(std::max<Real>(-1, std::min<Real>(size[a] - 1, std::ceil(h))));
    if (lo[a] > hi[a]) return;
  }
  const Vec3i box = hi - lo + Vec3i::Ones();
  const Index count = static_cast<Index>(box.x()) * box.y() * box.z();
  const auto node_of = [&](Index n) {
    const int i = static_cast<int>(n % box.x());
    const Index r = n / box.x();
    return Vec3i(lo.x() + i, lo.y() + static_cast<int>(r % box.y()), lo.z() + static_cast<int>(r / box.y()));
  };

  // Far nodes are marked NaN until their set gets a sign. Work goes by tiles of
  // TILE^3 nodes: one query at the tile centre, reaching `search` plus the
  // tile's half-diagonal, finds nothing iff no node of the tile is within
  // `search` of the surface, so tiles away from the surface cost one query.
  constexpr int TILE = 4;
  const Vec3i tiles = (box + Vec3i::Constant(TILE - 1)) / TILE;
  const Real unresolved = std::numeric_limits<Real>::quiet_NaN();
  parallel_for(0, static_cast<Index>(tiles.x()) * tiles.y() * tiles.z(), [&](Index t) {
    const Vec3i tile(static_cast<int>(t % tiles.x()), static_cast<int>((t / tiles.x()) % tiles.y()),
                     static_cast<int>(t / (static_cast<Index>(tiles.x()) * tiles.y())));
    const Vec3i first = lo + TILE * tile;
    const Vec3i last = (first + Vec3i::Constant(TILE - 1)).cwiseMin(hi);
    const Vec3 a = grid.node_position(first.x(), first.y(), first.z());
    const Vec3 b = grid.node_position(last.x(), last.y(), last.z());
    const MeshHit centre = mesh.closest(0.5 * (a + b), search + 0.5 * (b - a).norm());
    // Neighbouring nodes usually share their nearest triangle: pass it on as the hint.
    Index hint = centre.triangle;
    for (int k = first.z(); k <= last.z(); ++k)
      for (int j = first.y(); j <= last.y(); ++j)
        for (int i = first.x(); i <= last.x(); ++i) {
          if (!centre.found) {
            phi(i, j, k) = unresolved;
            continue;
          }
          const MeshHit h = mesh.closest(grid.node_position(i, j, k), search, hint);
          if (h.found) hint = h.triangle;
          phi(i, j, k) = !h.found ? unresolved : std::clamp(h.distance, -band, band);
        }
  });

  std::vector<Vec3i> pending;
  for (Index n = 0; n < count; ++n) {
    const Vec3i start = node_of(n);
    if (!std::isnan(phi(start))) continue;
    const Real value = mesh.inside(grid.node_position(start.x(), start.y(), start.z())) ? -band : band;
    phi(start) = value;
    pending.push_back(start);
    while (!pending.empty()) {
      const Vec3i c = pending.back();
      pending.pop_back();
      for (int a = 0; a < 3; ++a)
        for (int step : {-1, 1}) {
          Vec3i d = c;
          d[a] += step;
          if (d[a] < lo[a] || d[a] > hi[a] || !std::isnan(phi(d))) continue;
          phi(d) = value;
          pending.push_back(d);
        }
    }
  }
}

}  // namespace fsicut::levelset
