#include "lib/mesh/check.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <sstream>
#include <tuple>
#include <unordered_map>

#include "lib/core/error.hpp"

namespace fsicut::mesh {
namespace {

// A face whose doubled area is below this fraction of the squared bounding-box
// diagonal is degenerate: its normal is round-off, and TetGen cannot recover
// it as a facet. Relative, so the check does not depend on the mesh's units.
constexpr Real ZERO_AREA_RELATIVE = 1e-12;
// Likewise, an enclosed volume below this fraction of the cubed diagonal is
// zero up to round-off (a flat or self-cancelling surface).
constexpr Real ZERO_VOLUME_RELATIVE = 1e-12;

[[noreturn]] void fail(const std::string& name, const std::string& what) {
  throw MeshError(name + ": " + what);
}

// One use of an undirected edge by a face, remembering the direction.
struct EdgeUse {
  Index face;
  int from, to;  // as traversed by the face (counter-clockwise order)
};

std::uint64_t edge_key(int a, int b) {
  const auto lo = static_cast<std::uint64_t>(std::min(a, b));
  const auto hi = static_cast<std::uint64_t>(std::max(a, b));
  return (hi << 32) | lo;
}

std::string edge_text(int a, int b) {
  std::ostringstream s;
  s << "(" << std::min(a, b) + 1 << ", " << std::max(a, b) + 1 << ")";
  return s.str();
}

Vec3 bbox_centre(const Points& p) {
  if (p.cols() == 0) return Vec3::Zero();
  return 0.5 * (p.rowwise().minCoeff() + p.rowwise().maxCoeff());
}

Real bbox_diagonal(const SurfaceMesh& mesh) {
  if (mesh.vertices.cols() == 0) return 0;
  return (mesh.vertices.rowwise().maxCoeff() - mesh.vertices.rowwise().minCoeff()).norm();
}

void check_faces(const SurfaceMesh& mesh, const std::string& name) {
  const Index n = mesh.vertices.cols();
  for (Index j = 0; j < n; ++j)
    if (!mesh.vertices.col(j).allFinite()) {
      std::ostringstream s;
      s << "vertex " << j + 1 << " has a non-finite coordinate";
      fail(name, s.str());
    }
  const Real diagonal = bbox_diagonal(mesh);
  for (std::size_t f = 0; f < mesh.triangles.size(); ++f) {
    const Triangle& t = mesh.triangles[f];
    std::ostringstream s;
    for (int k = 0; k < 3; ++k)
      if (t[k] < 0 || t[k] >= n) {
        s << "face " << f + 1 << " refers to vertex " << t[k] + 1 << ", but the mesh has " << n
          << " vertices";
        fail(name, s.str());
      }
    if (t[0] == t[1] || t[1] == t[2] || t[0] == t[2]) {
      s << "face " << f + 1 << " repeats a vertex: (" << t[0] + 1 << ", " << t[1] + 1 << ", "
        << t[2] + 1 << ")";
      fail(name, s.str());
    }
    const Vec3 a = mesh.vertices.col(t[0]), b = mesh.vertices.col(t[1]), c = mesh.vertices.col(t[2]);
    if ((b - a).cross(c - a).norm() <= ZERO_AREA_RELATIVE * diagonal * diagonal) {
      s << "face " << f + 1 << " has zero area (vertices " << t[0] + 1 << ", " << t[1] + 1 << ", "
        << t[2] + 1 << " are collinear or coincide)";
      fail(name, s.str());
    }
  }
}

// Distinct vertices at the same position make edges that should be shared
// look open, and TetGen merges them silently; ask the user to weld them.
void check_duplicate_vertices(const SurfaceMesh& mesh, const std::string& name) {
  std::vector<char> used(mesh.vertices.cols(), 0);
  for (const Triangle& t : mesh.triangles)
    for (int k = 0; k < 3; ++k) used[t[k]] = 1;
  std::vector<int> order;
  for (int j = 0; j < static_cast<int>(used.size()); ++j)
    if (used[j]) order.push_back(j);
  const auto less = [&](int i, int j) {
    const auto p = mesh.vertices.col(i), q = mesh.vertices.col(j);
    return std::make_tuple(p[0], p[1], p[2], i) < std::make_tuple(q[0], q[1], q[2], j);
  };
  std::sort(order.begin(), order.end(), less);
  for (std::size_t k = 1; k < order.size(); ++k)
    if (mesh.vertices.col(order[k]) == mesh.vertices.col(order[k - 1])) {
      std::ostringstream s;
      s << "vertices " << order[k - 1] + 1 << " and " << order[k] + 1
        << " are at the same position; weld duplicate vertices";
      fail(name, s.str());
    }
}

std::unordered_map<std::uint64_t, std::vector<EdgeUse>> edge_uses(const SurfaceMesh& mesh) {
  std::unordered_map<std::uint64_t, std::vector<EdgeUse>> uses;
  uses.reserve(mesh.triangles.size() * 3 / 2);
  for (std::size_t f = 0; f < mesh.triangles.size(); ++f) {
    const Triangle& t = mesh.triangles[f];
    for (int k = 0; k < 3; ++k)
      uses[edge_key(t[k], t[(k + 1) % 3])].push_back({static_cast<Index>(f), t[k], t[(k + 1) % 3]});
  }
  return uses;
}

// Faces listed in face order so that the first problem reported is stable.
void check_edges(const SurfaceMesh& mesh, const std::string& name,
                 const std::unordered_map<std::uint64_t, std::vector<EdgeUse>>& uses) {
  for (const Triangle& t : mesh.triangles)
    for (int k = 0; k < 3; ++k) {
      const auto& u = uses.at(edge_key(t[k], t[(k + 1) % 3]));
      if (u.size() > 2) {
        std::ostringstream s;
        s << "mesh is not manifold: edge " << edge_text(t[k], t[(k + 1) % 3]) << " belongs to "
          << u.size() << " faces (";
        for (std::size_t i = 0; i < u.size(); ++i) s << (i ? ", " : "") << u[i].face + 1;
        s << "); an edge may join only two faces";
        fail(name, s.str());
      }
    }
  for (const Triangle& t : mesh.triangles)
    for (int k = 0; k < 3; ++k) {
      const auto& u = uses.at(edge_key(t[k], t[(k + 1) % 3]));
      if (u.size() == 1) {
        std::ostringstream s;
        s << "mesh is not closed: edge " << edge_text(t[k], t[(k + 1) % 3]) << " belongs to face "
          << u[0].face + 1 << " only";
        fail(name, s.str());
      }
    }
}

// Every edge now has two faces. Propagate orientation over each connected
// component (breadth first) to find the faces that disagree with the majority
// of their component: those are the ones to flip.
void check_orientation(const SurfaceMesh& mesh, const std::string& name,
                       const std::unordered_map<std::uint64_t, std::vector<EdgeUse>>& uses) {
  const Index nf = static_cast<Index>(mesh.triangles.size());
  bool consistent = true;
  for (const auto& [key, u] : uses)
    if (u[0].from == u[1].from) consistent = false;
  if (consistent) return;

  std::vector<int> flip(nf, -1);  // relative to the component's seed face
  std::vector<Index> component(nf, -1);
  std::vector<std::array<Index, 2>> counts;  // per component: #faces with flip 0 / 1
  bool orientable = true;
  for (Index seed = 0; seed < nf; ++seed) {
    if (flip[seed] >= 0) continue;
    const Index c = static_cast<Index>(counts.size());
    counts.push_back({0, 0});
    std::vector<Index> queue{seed};
    flip[seed] = 0;
    component[seed] = c;
    for (std::size_t q = 0; q < queue.size(); ++q) {
      const Index f = queue[q];
      ++counts[c][flip[f]];
      const Triangle& t = mesh.triangles[f];
      for (int k = 0; k < 3; ++k) {
        const auto& u = uses.at(edge_key(t[k], t[(k + 1) % 3]));
        const EdgeUse& mine = u[0].face == f ? u[0] : u[1];
        const EdgeUse& other = u[0].face == f ? u[1] : u[0];
        // Same direction: the neighbour must be flipped relative to f.
        const int want = flip[f] ^ (mine.from == other.from ? 1 : 0);
        if (flip[other.face] < 0) {
          flip[other.face] = want;
          component[other.face] = c;
          queue.push_back(other.face);
        } else if (flip[other.face] != want) {
          orientable = false;
        }
      }
    }
  }
  for (const Triangle& t : mesh.triangles)
    for (int k = 0; k < 3; ++k) {
      const auto& u = uses.at(edge_key(t[k], t[(k + 1) % 3]));
      if (u[0].from != u[1].from) continue;
      std::ostringstream s;
      s << "mesh is inconsistently oriented: faces " << std::min(u[0].face, u[1].face) + 1 << " and "
        << std::max(u[0].face, u[1].face) + 1 << " both traverse edge " << edge_text(u[0].from, u[0].to)
        << " from " << u[0].from + 1 << " to " << u[0].to + 1;
      if (orientable) {
        const Index c = component[u[0].face];
        const int minority = counts[c][1] <= counts[c][0] ? 1 : 0;
        const Index wrong = flip[u[0].face] == minority ? u[0].face : u[1].face;
        const Index n_wrong = counts[c][minority];
        s << "; flip face " << wrong + 1;
        if (n_wrong > 1) s << " (and the other " << n_wrong - 1 << " faces oriented like it)";
      } else {
        s << "; the surface is not orientable";
      }
      fail(name, s.str());
    }
}

// With every edge shared by two consistently oriented faces, the link of a
// vertex (the opposite edges of its faces) is a union of cycles; a manifold
// vertex has exactly one.
void check_vertex_fans(const SurfaceMesh& mesh, const std::string& name) {
  struct LinkEdge {
    int vertex, from, to;
  };
  std::vector<LinkEdge> link;
  link.reserve(mesh.triangles.size() * 3);
  for (const Triangle& t : mesh.triangles)
    for (int k = 0; k < 3; ++k) link.push_back({t[k], t[(k + 1) % 3], t[(k + 2) % 3]});
  std::sort(link.begin(), link.end(), [](const LinkEdge& a, const LinkEdge& b) {
    return std::tie(a.vertex, a.from) < std::tie(b.vertex, b.from);
  });
  for (std::size_t begin = 0; begin < link.size();) {
    std::size_t end = begin;
    while (end < link.size() && link[end].vertex == link[begin].vertex) ++end;
    // Next vertex around the fan, or -1 if none (impossible once the edge
    // checks passed; the walk is bounded all the same).
    const auto next = [&](int from) {
      const auto it = std::lower_bound(link.begin() + begin, link.begin() + end, from,
                                       [](const LinkEdge& e, int v) { return e.from < v; });
      return it != link.begin() + end && it->from == from ? it->to : -1;
    };
    std::size_t walked = 1;
    for (int v = next(link[begin].from); v != link[begin].from && v >= 0 && walked <= end - begin; v = next(v))
      ++walked;
    if (walked != end - begin) {
      std::ostringstream s;
      s << "mesh has a non-manifold vertex: the faces around vertex " << link[begin].vertex + 1
        << " do not form a single fan (the surface pinches there)";
      fail(name, s.str());
    }
    begin = end;
  }
}

}  // namespace

void check_closed_surface(const SurfaceMesh& mesh, const std::string& name) {
  if (mesh.triangles.empty()) fail(name, "mesh is empty: no faces");
  check_faces(mesh, name);
  check_duplicate_vertices(mesh, name);
  const auto uses = edge_uses(mesh);
  check_edges(mesh, name, uses);
  check_orientation(mesh, name, uses);
  check_vertex_fans(mesh, name);
  const Real diagonal = bbox_diagonal(mesh);
  const Real v = enclosed_volume(mesh);
  if (std::abs(v) <= ZERO_VOLUME_RELATIVE * diagonal * diagonal * diagonal)
    fail(name, "mesh encloses no volume");
  if (v < 0) {
    std::ostringstream s;
    s << "faces point inward (enclosed volume " << v << " m^3); flip them";
    fail(name, s.str());
  }
}

Real enclosed_volume(const SurfaceMesh& mesh) {
  // Measuring from the bounding-box centre instead of the origin keeps the
  // terms small when the mesh sits far from the origin (less cancellation).
  const Vec3 o = bbox_centre(mesh.vertices);
  Real sum = 0;
  for (const Triangle& t : mesh.triangles) {
    const Vec3 a = mesh.vertices.col(t[0]) - o, b = mesh.vertices.col(t[1]) - o,
               c = mesh.vertices.col(t[2]) - o;
    sum += a.dot(b.cross(c));
  }
  return sum / 6;
}

Real tet_volume(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& d) {
  return (b - a).dot((c - a).cross(d - a)) / 6;
}

Real tet_quality(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& d) {
  const Real l2 = ((b - a).squaredNorm() + (c - a).squaredNorm() + (d - a).squaredNorm() + (c - b).squaredNorm() +
                   (d - b).squaredNorm() + (d - c).squaredNorm()) / 6;
  if (!(l2 > 0)) return 0;
  return 6 * std::sqrt(Real(2)) * std::abs(tet_volume(a, b, c, d)) / (l2 * std::sqrt(l2));
}

WorstTet worst_tet(const TetMesh& mesh) {
  WorstTet w;
  for (Index e = 0; e < static_cast<Index>(mesh.tets.size()); ++e) {
    const Tet& t = mesh.tets[e];
    const Real q = tet_quality(mesh.rest.col(t[0]), mesh.rest.col(t[1]), mesh.rest.col(t[2]), mesh.rest.col(t[3]));
    if (w.tet < 0 || q < w.quality) w = {e, q};
  }
  return w;
}

Real volume(const TetMesh& mesh) {
  Real sum = 0;
  for (const Tet& t : mesh.tets)
    sum += tet_volume(mesh.rest.col(t[0]), mesh.rest.col(t[1]), mesh.rest.col(t[2]), mesh.rest.col(t[3]));
  return sum;
}

}  // namespace fsicut::mesh
