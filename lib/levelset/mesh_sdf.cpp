#include "lib/levelset/mesh_sdf.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <utility>

#include "lib/core/error.hpp"
#include "lib/core/parallel.hpp"

namespace fsicut::levelset {
namespace {

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
  bvh_.build(vertices_, triangles_);
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
  bvh_.build(vertices_, triangles_);
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
  const mesh::TriangleBvh::Closest nearest = bvh_.closest(x, max_distance, hint);
  if (nearest.triangle < 0) return hit;
  const mesh::TriangleClosest& best = nearest.point;
  hit.found = true;
  hit.triangle = nearest.triangle;
  hit.feature = best.feature;
  hit.point = best.point;
  const Vec3 n = pseudonormal(hit.triangle, best.feature, best.which);
  const Real len = n.norm();
  hit.normal = len > 0 ? Vec3(n / len) : Vec3::Zero();
  const Real d = std::sqrt(nearest.distance2);
  hit.distance = (x - best.point).dot(n) < 0 ? -d : d;
  return hit;
}

Real MeshDistance::signed_distance(const Vec3& x) const { return closest(x).distance; }

Real MeshDistance::unsigned_distance(const Vec3& x) const { return std::abs(closest(x).distance); }

SegmentHits MeshDistance::segment_hits(const Vec3& a, const Vec3& b) const { return bvh_.segment_hits(a, b); }

bool MeshDistance::inside(const Vec3& x) const {
  if ((x.array() < bounds_min().array()).any() || (x.array() > bounds_max().array()).any()) return false;
  // Fixed, not axis-aligned directions, so grid-aligned meshes are not hit
  // along their edges.
  static const std::array<Vec3, 3> DIRECTIONS = {Vec3(1, 2, 3).normalized(), Vec3(-3, 1, 2).normalized(),
                                                 Vec3(2, -3, 1).normalized()};
  for (const Vec3& d : DIRECTIONS) {
    const mesh::TriangleBvh::Parity p = bvh_.ray_parity(x, d);
    if (p != mesh::TriangleBvh::Parity::unknown) return p == mesh::TriangleBvh::Parity::odd;
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

grid::Array3<Real> sample_mesh_sdf_at_nodes(const grid::MacGrid& grid, const MeshDistance& mesh, Real band) {
  grid::Array3<Real> phi;
  sample_mesh_sdf_at_nodes(grid, mesh, band, phi);
  return phi;
}

namespace {

// The nodes lo..hi (inclusive) of the mesh's bounding box grown by `search`
// [m]; all others are outside and far. False when no node is in it.
bool nodes_near_bounds(const grid::MacGrid& grid, const MeshDistance& mesh, Real search, Vec3i& lo, Vec3i& hi) {
  const Vec3i size = grid.node_shape();
  for (int a = 0; a < 3; ++a) {
    const Real l = (mesh.bounds_min()[a] - search - grid.origin[a]) / grid.dx;
    const Real h = (mesh.bounds_max()[a] + search - grid.origin[a]) / grid.dx;
    // Clamped on both sides before the cast: a solid flung far outside the
    // grid (1e12 m/s) gives indices past 2^31, and casting those is undefined.
    lo[a] = static_cast<int>(std::min<Real>(size[a], std::max<Real>(0, std::floor(l))));
    hi[a] = static_cast<int>(std::max<Real>(-1, std::min<Real>(size[a] - 1, std::ceil(h))));
    if (lo[a] > hi[a]) return false;
  }
  return true;
}

// The exact distances (clamped to the band) of the nodes lo..hi within
// `search` of the surface; the others are marked NaN until their set gets a
// sign. Work goes by tiles of TILE^3 nodes: one query at the tile centre,
// reaching `search` plus the tile's half-diagonal, finds nothing iff no node
// of the tile is within `search` of the surface, so tiles away from the
// surface cost one query.
void resolve_near_nodes(const grid::MacGrid& grid, const MeshDistance& mesh, Real band, Real search,
                        const Vec3i& lo, const Vec3i& hi, grid::Array3<Real>& phi) {
  constexpr int TILE = 4;
  const Vec3i box = hi - lo + Vec3i::Ones();
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
}

// Gives each 6-connected set of NaN nodes within lo..hi the value -band or
// +band by one inside() test (serial).
void sign_far_sets(const grid::MacGrid& grid, const MeshDistance& mesh, Real band, const Vec3i& lo,
                   const Vec3i& hi, grid::Array3<Real>& phi) {
  const Vec3i box = hi - lo + Vec3i::Ones();
  const Index count = static_cast<Index>(box.x()) * box.y() * box.z();
  const auto node_of = [&](Index n) {
    const int i = static_cast<int>(n % box.x());
    const Index r = n / box.x();
    return Vec3i(lo.x() + i, lo.y() + static_cast<int>(r % box.y()), lo.z() + static_cast<int>(r / box.y()));
  };
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

}  // namespace

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
  const Vec3i size = grid.node_shape();
  if (phi.size() != size) phi.resize(size, band);
  else phi.fill(band);
  Vec3i lo, hi;
  if (!nodes_near_bounds(grid, mesh, search, lo, hi)) return;
  resolve_near_nodes(grid, mesh, band, search, lo, hi, phi);
  sign_far_sets(grid, mesh, band, lo, hi, phi);
}

}  // namespace fsicut::levelset
