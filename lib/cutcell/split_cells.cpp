#include "lib/cutcell/split_cells.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <utility>

#include "lib/core/parallel.hpp"

namespace fsicut::cutcell {
namespace {

constexpr int S = SPLIT_SAMPLES;
constexpr int INTERIOR = S * S * S;
constexpr int FACE = S * S;
// Points per axis in a face sample's square where a surface passes through
// it (open_shares): the open area of a split face in steps of 1/(S REFINE)
// of its width.
constexpr int REFINE = 4;
// A face sample's square is clear of surfaces when none lies within this
// many sample spacings of its centre (half its diagonal, and a margin).
constexpr Real SQUARE_CLEARANCE = 0.75;
// The same for an interior sample's cube (half its diagonal is 0.866).
constexpr Real CUBE_CLEARANCE = 0.9;

// The two axes of a face of axis a, ascending.
int first_other(int a) { return a == 0 ? 1 : 0; }
int second_other(int a) { return a == 2 ? 1 : 2; }

int interior_index(int i, int j, int k) { return i + S * (j + S * k); }

// The face samples of cell face q (axis q / 2, low side for even q) at (u, v)
// along the face's two axes.
int face_index(int q, int u, int v) { return INTERIOR + q * FACE + u + S * v; }

// What sampling one cell found.
struct Sampled {
  int regions = 0;
  bool buried = false;  // the cell's centre lies inside a solid
  std::vector<signed char> label;  // INTERIOR + 6 FACE samples: region, or -1
};

struct UnionFind {
  std::vector<int> parent;
  explicit UnionFind(int n) : parent(static_cast<std::size_t>(n)) { std::iota(parent.begin(), parent.end(), 0); }
  int find(int x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  }
  void join(int a, int b) {
    a = find(a);
    b = find(b);
    if (a != b) parent[std::max(a, b)] = std::min(a, b);
  }
};

bool blocked(const std::vector<const levelset::MeshDistance*>& near, const Vec3& a, const Vec3& b) {
  for (const levelset::MeshDistance* m : near)
    if (m->segment_hits(a, b).count > 0) return true;
  return false;
}

// The triangles of the surfaces `near` that segments inside one box can
// meet (MeshDistance::near): the many segment tests of one cell, each
// against those alone (the same answers, in a fraction of the time).
struct BoxTriangles {
  std::vector<const levelset::MeshDistance*> surfaces;
  std::vector<levelset::MeshDistance::Near> triangles;
  BoxTriangles(const std::vector<const levelset::MeshDistance*>& near, const Vec3& lo, const Vec3& hi)
      : surfaces(near) {
    for (const levelset::MeshDistance* m : near) triangles.push_back(m->near(lo, hi));
  }
  // blocked() for a and b inside the box.
  bool blocked(const Vec3& a, const Vec3& b) const {
    for (std::size_t k = 0; k < surfaces.size(); ++k)
      if (surfaces[k]->segment_hits(a, b, triangles[k]).count > 0) return true;
    return false;
  }
};

// The surfaces whose bounding boxes meet the box [lo, hi].
std::vector<const levelset::MeshDistance*> surfaces_near(const std::vector<levelset::MeshDistance>& surfaces,
                                                         const Vec3& lo, const Vec3& hi) {
  std::vector<const levelset::MeshDistance*> near;
  for (const levelset::MeshDistance& s : surfaces)
    if ((s.bounds_min().array() <= hi.array()).all() && (s.bounds_max().array() >= lo.array()).all())
      near.push_back(&s);
  return near;
}

Vec3 sample_position(const grid::MacGrid& grid, const Vec3i& cell, int n) {
  const Vec3 corner = grid.node_position(cell.x(), cell.y(), cell.z());
  const Real h = grid.dx / S;
  if (n < INTERIOR) return corner + h * (Vec3(n % S, (n / S) % S, n / FACE).array() + 0.5).matrix();
  const int q = (n - INTERIOR) / FACE, m = (n - INTERIOR) % FACE, a = q / 2;
  Vec3 x = corner;
  x[a] += (q % 2) * grid.dx;
  x[first_other(a)] += h * (m % S + 0.5);
  x[second_other(a)] += h * (m / S + 0.5);
  return x;
}

Sampled sample_cell(const grid::MacGrid& grid, const std::vector<levelset::MeshDistance>& surfaces,
                    const Vec3i& cell) {
  Sampled out;
  out.label.assign(INTERIOR + 6 * FACE, -1);
  const Vec3 lo = grid.node_position(cell.x(), cell.y(), cell.z());
  const Vec3 hi = lo + Vec3::Constant(grid.dx);
  const std::vector<const levelset::MeshDistance*> near = surfaces_near(surfaces, lo, hi);
  const Vec3 centre = lo + Vec3::Constant(grid.dx / 2);
  out.buried = std::any_of(near.begin(), near.end(), [&](const auto* m) { return m->inside(centre); });
  std::vector<Vec3> x(INTERIOR + 6 * FACE);
  for (int n = 0; n < static_cast<int>(x.size()); ++n) x[n] = sample_position(grid, cell, n);
  UnionFind sets(static_cast<int>(x.size()));
  const BoxTriangles box(near, lo, hi);  // every sample lies in the cell's closed box
  const auto link = [&](int a, int b) {
    if (!box.blocked(x[a], x[b])) sets.join(a, b);
  };
  for (int k = 0; k < S; ++k)
    for (int j = 0; j < S; ++j)
      for (int i = 0; i < S; ++i) {
        const int n = interior_index(i, j, k);
        if (i + 1 < S) link(n, interior_index(i + 1, j, k));
        if (j + 1 < S) link(n, interior_index(i, j + 1, k));
        if (k + 1 < S) link(n, interior_index(i, j, k + 1));
      }
  for (int q = 0; q < 6; ++q) {
    const int a = q / 2, edge = q % 2 ? S - 1 : 0;
    for (int v = 0; v < S; ++v)
      for (int u = 0; u < S; ++u) {
        Vec3i at;
        at[a] = edge;
        at[first_other(a)] = u;
        at[second_other(a)] = v;
        link(face_index(q, u, v), interior_index(at.x(), at.y(), at.z()));
      }
  }
  // A group is a region when its first interior sample lies outside every
  // solid and one of its samples is on a face; numbered by first face sample.
  std::vector<int> region(x.size(), -2);  // per root: -2 unknown, -1 not a region
  for (int n = INTERIOR; n < static_cast<int>(x.size()); ++n) {
    const int root = sets.find(n);
    if (region[root] == -2) {
      const bool solid = root >= INTERIOR || std::any_of(near.begin(), near.end(), [&](const auto* m) {
                           return m->inside(x[root]);
                         });
      region[root] = solid ? -1 : out.regions++;
    }
    out.label[n] = static_cast<signed char>(region[root]);
  }
  for (int n = 0; n < INTERIOR; ++n) {
    const int r = region[sets.find(n)];
    out.label[n] = static_cast<signed char>(r >= 0 ? r : -1);
  }
  return out;
}

// The open area of the +a face of cell `low` per pair of regions it joins, as
// shares of the face, from REFINE^2 points in the square of each face sample:
// a point counts for the pair of the nearest face sample (of the 3 x 3 around
// its own, both sides in a region) that a segment joins it to without meeting
// a surface; points inside a wall join none. A sample farther than its
// square's half-diagonal from every surface counts whole. `pair` holds each
// face sample's (low, high) regions (-1: none).
std::map<std::pair<int, int>, Real> open_shares(const grid::MacGrid& grid,
                                                const std::vector<levelset::MeshDistance>& surfaces, int a,
                                                const Vec3i& low, const std::array<std::pair<int, int>, FACE>& pair) {
  const Real h = grid.dx / S;
  const int e1 = first_other(a), e2 = second_other(a);
  Vec3 corner = grid.node_position(low.x(), low.y(), low.z());
  corner[a] += grid.dx;
  const Vec3 lo = corner - Vec3::Constant(h), hi = corner + Vec3::Constant(grid.dx + h);
  const std::vector<const levelset::MeshDistance*> near = surfaces_near(surfaces, lo, hi);
  const BoxTriangles box(near, lo, hi);  // the face's points lie in it
  const auto at = [&](Real u, Real v) {
    Vec3 x = corner;
    x[e1] += u * h;
    x[e2] += v * h;
    return x;
  };
  const auto joined = [&](int m) { return pair[m].first >= 0 && pair[m].second >= 0; };
  std::map<std::pair<int, int>, Real> share;
  const Real whole = Real(1) / FACE, point = whole / (REFINE * REFINE);
  for (int m = 0; m < FACE; ++m) {
    const int mu = m % S, mv = m / S;
    const Vec3 xm = at(mu + 0.5, mv + 0.5);
    const bool clear = std::none_of(near.begin(), near.end(), [&](const auto* d) {
      return d->closest(xm, SQUARE_CLEARANCE * h).found;
    });
    if (clear) {
      if (joined(m)) share[pair[m]] += whole;
      continue;
    }
    for (int fv = 0; fv < REFINE; ++fv)
      for (int fu = 0; fu < REFINE; ++fu) {
        const Real u = mu + (fu + 0.5) / REFINE, v = mv + (fv + 0.5) / REFINE;
        const Vec3 y = at(u, v);
        std::array<std::pair<Real, int>, 9> order;
        int n = 0;
        for (int dv = -1; dv <= 1; ++dv)
          for (int du = -1; du <= 1; ++du) {
            const int cu = mu + du, cv = mv + dv;
            if (cu < 0 || cv < 0 || cu >= S || cv >= S || !joined(cu + S * cv)) continue;
            order[n++] = {(u - cu - 0.5) * (u - cu - 0.5) + (v - cv - 0.5) * (v - cv - 0.5), cu + S * cv};
          }
        std::sort(order.begin(), order.begin() + n);
        for (int k = 0; k < n; ++k) {
          const int c = order[k].second;
          if (box.blocked(y, at(c % S + 0.5, c / S + 0.5))) continue;
          share[pair[c]] += point;
          break;
        }
      }
  }
  return share;
}

}  // namespace

int SplitCells::count(Index cell) const {
  const auto it = regions.find(cell);
  return it == regions.end() ? 1 : it->second;
}

const std::vector<FacePiece>* SplitCells::pieces(int axis, Index face) const {
  const auto it = faces[axis].find(face);
  return it == faces[axis].end() ? nullptr : &it->second;
}

SplitCells split_cells(const grid::MacGrid& grid, const grid::Array3<Real>& solid_phi,
                       const std::vector<levelset::MeshDistance>& surfaces, const grid::Array3<char>& cells,
                       FaceFractions& fractions) {
  SplitCells split;
  std::vector<Index> examined;
  for (Index n = 0; n < cells.count(); ++n)
    if (cells[n]) examined.push_back(n);
  if (examined.empty()) return split;
  std::vector<Sampled> sampled(examined.size());
  parallel_for(0, static_cast<Index>(examined.size()),
               [&](Index e) { sampled[e] = sample_cell(grid, surfaces, cells.coord(examined[e])); });
  std::unordered_map<Index, const Sampled*> of;
  for (std::size_t e = 0; e < examined.size(); ++e) {
    of[examined[e]] = &sampled[e];
    split.regions[examined[e]] = sampled[e].regions;
    if (sampled[e].buried) split.buried.insert(examined[e]);
    const auto first = sampled[e].label.begin(), last = first + INTERIOR;
    if (sampled[e].regions >= 2)
      split.samples[examined[e]].assign(first, last);
    else if (sampled[e].regions == 1 && std::find(first, last, -1) != last)
      split.partial[examined[e]].assign(first, last);
  }
  // Every face of an examined cell, once, as (axis, face index).
  std::vector<std::pair<int, Index>> faces;
  for (Index n : examined) {
    const Vec3i c = cells.coord(n);
    for (int q = 0; q < 6; ++q) {
      const int a = q / 2;
      Vec3i f = c;
      f[a] += q % 2;
      if (f[a] == 0 || f[a] == grid.resolution[a]) continue;
      faces.emplace_back(a, fractions[a].index(f.x(), f.y(), f.z()));
    }
  }
  std::sort(faces.begin(), faces.end());
  faces.erase(std::unique(faces.begin(), faces.end()), faces.end());
  for (const auto& [a, idx] : faces) {
    const Vec3i f = fractions[a].coord(idx);
    Vec3i low = f;
    low[a] -= 1;
    const Index low_cell = cells.index(low.x(), low.y(), low.z()), high_cell = cells.index(f.x(), f.y(), f.z());
    const auto lo_it = of.find(low_cell), hi_it = of.find(high_cell);
    const Sampled* lo_s = lo_it == of.end() ? nullptr : lo_it->second;
    const Sampled* hi_s = hi_it == of.end() ? nullptr : hi_it->second;
    std::array<std::pair<int, int>, FACE> pair;
    std::map<std::pair<int, int>, int> pairs;
    int open = 0;
    for (int m = 0; m < FACE; ++m) {
      const int l = lo_s ? lo_s->label[face_index(2 * a + 1, m % S, m / S)] : 0;
      const int h = hi_s ? hi_s->label[face_index(2 * a, m % S, m / S)] : 0;
      pair[m] = {l, h};
      if (l < 0 || h < 0) continue;
      ++pairs[{l, h}];
      ++open;
    }
    const bool divided = (lo_s && lo_s->regions >= 2) || (hi_s && hi_s->regions >= 2);
    if (divided && open > 0) {
      const std::map<std::pair<int, int>, Real> shares = open_shares(grid, surfaces, a, low, pair);
      Real total = 0;
      std::vector<FacePiece>& pieces = split.faces[a][idx];
      for (const auto& [regions, share] : shares) {
        pieces.push_back({regions.first, regions.second, share});
        total += share;
      }
      fractions[a][idx] = total;
      if (!(total > 0)) split.faces[a].erase(idx);
      continue;
    }
    const Real fraction = open > 0 ? open_face_fraction(grid, solid_phi, a, f) : 0;
    fractions[a][idx] = fraction;
    if (!(fraction > 0)) continue;
    std::vector<FacePiece>& pieces = split.faces[a][idx];
    for (const auto& [regions, count] : pairs)
      pieces.push_back({regions.first, regions.second, fraction * count / open});
  }
  return split;
}

std::unordered_map<Index, std::vector<Real>> region_volumes(const SplitCells& split, const grid::MacGrid& grid,
                                                            const std::vector<levelset::MeshDistance>& surfaces,
                                                            const std::vector<Index>& cells) {
  std::vector<std::vector<Real>> volume(cells.size());
  const Real h = grid.dx / S, whole = Real(1) / INTERIOR, point = whole / (REFINE * REFINE * REFINE);
  parallel_for(0, static_cast<Index>(cells.size()), [&](Index e) {
    const Index cell = cells[static_cast<std::size_t>(e)];
    const auto in_split = split.samples.find(cell), in_partial = split.partial.find(cell);
    if (in_split == split.samples.end() && in_partial == split.partial.end()) return;
    const std::vector<signed char>& label = in_split != split.samples.end() ? in_split->second : in_partial->second;
    const Vec3i& n = grid.resolution;
    const Vec3i c(static_cast<int>(cell % n.x()), static_cast<int>(cell / n.x() % n.y()),
                  static_cast<int>(cell / n.x() / n.y()));
    const Vec3 lo = grid.node_position(c.x(), c.y(), c.z());
    const std::vector<const levelset::MeshDistance*> near =
        surfaces_near(surfaces, lo - Vec3::Constant(h), lo + Vec3::Constant(grid.dx + h));
    std::vector<Real>& v = volume[static_cast<std::size_t>(e)];
    v.assign(static_cast<std::size_t>(split.count(cell)), 0);
    for (int s = 0; s < INTERIOR; ++s) {
      const Vec3 xs = sample_position(grid, c, s);
      levelset::MeshHit hit;
      for (const levelset::MeshDistance* m : near) {
        const levelset::MeshHit h2 = m->closest(xs, CUBE_CLEARANCE * h);
        if (h2.found && (!hit.found || std::abs(h2.distance) < std::abs(hit.distance))) hit = h2;
      }
      if (!hit.found) {
        if (label[s] >= 0) v[label[s]] += whole;
        continue;
      }
      // The nearest surface's tangent plane, and the wall's depth behind it
      // along its normal: points in front are on its side, points deeper than
      // the wall beyond it, the rest in the wall.
      const Vec3 p = hit.point, normal = hit.normal;
      Real depth = std::numeric_limits<Real>::infinity();
      const Vec3 from = p - 1e-3 * h * normal, to = p - 3 * h * normal;
      for (const levelset::MeshDistance* m : near) {
        const levelset::SegmentHits behind = m->segment_hits(from, to);
        if (behind.count > 0) depth = std::min(depth, 1e-3 * h + behind.first * (3 - 1e-3) * h);
      }
      const auto side = [&](const Vec3& y) {
        const Real ahead = (y - p).dot(normal);
        return ahead > 0 ? 1 : ahead < -depth ? -1 : 0;
      };
      const Vec3i at(s % S, (s / S) % S, s / FACE);
      // The region on each side: the nearest sample of the 3 x 3 x 3 around
      // in a region on that side (the cube's own first).
      int region[3] = {-1, -1, -1};
      Real best[3] = {std::numeric_limits<Real>::infinity(), std::numeric_limits<Real>::infinity(),
                      std::numeric_limits<Real>::infinity()};
      for (int m = 0; m < 27; ++m) {
        const Vec3i o(m % 3 - 1, (m / 3) % 3 - 1, m / 9 - 1), q = at + o;
        if ((q.array() < 0).any() || (q.array() >= S).any()) continue;
        const int t = interior_index(q.x(), q.y(), q.z());
        const int k = side(sample_position(grid, c, t)) + 1;
        const Real d2 = o.squaredNorm();
        if (label[t] >= 0 && k != 1 && d2 < best[k]) {
          best[k] = d2;
          region[k] = label[t];
        }
      }
      for (int f = 0; f < REFINE * REFINE * REFINE; ++f) {
        const Vec3 offset = (Vec3(f % REFINE, (f / REFINE) % REFINE, f / (REFINE * REFINE)).array() + 0.5) / REFINE - 0.5;
        const int r = region[side(xs + h * offset) + 1];
        if (r >= 0) v[r] += point;
      }
    }
  });
  std::unordered_map<Index, std::vector<Real>> out;
  for (std::size_t e = 0; e < cells.size(); ++e)
    if (!volume[e].empty()) out[cells[e]] = std::move(volume[e]);
  return out;
}

namespace {

// The label of the nearest of the cell's interior samples (`label`, -1: none)
// joined to x by a segment that meets no surface; -1 when none is.
int nearest_seen(const std::vector<signed char>& label, const grid::MacGrid& grid,
                 const std::vector<levelset::MeshDistance>& surfaces, Index cell, const Vec3& x) {
  const Vec3i& n = grid.resolution;
  const Vec3i c(static_cast<int>(cell % n.x()), static_cast<int>(cell / n.x() % n.y()),
                static_cast<int>(cell / n.x() / n.y()));
  const Vec3 lo = grid.node_position(c.x(), c.y(), c.z());
  const std::vector<const levelset::MeshDistance*> near =
      surfaces_near(surfaces, lo - Vec3::Constant(grid.dx), lo + Vec3::Constant(2 * grid.dx));
  std::vector<std::pair<Real, int>> order;
  for (int s = 0; s < INTERIOR; ++s)
    if (label[s] >= 0) order.emplace_back((sample_position(grid, c, s) - x).squaredNorm(), s);
  if (order.empty()) return -1;
  // The nearest sample is almost always in sight: try it before sorting the rest.
  std::iter_swap(order.begin(), std::min_element(order.begin(), order.end()));
  if (!blocked(near, x, sample_position(grid, c, order.front().second))) return label[order.front().second];
  std::sort(order.begin() + 1, order.end());
  for (auto it = order.begin() + 1; it != order.end(); ++it)
    if (!blocked(near, x, sample_position(grid, c, it->second))) return label[it->second];
  return -1;
}

}  // namespace

int region_of(const SplitCells& split, const grid::MacGrid& grid,
              const std::vector<levelset::MeshDistance>& surfaces, Index cell, const Vec3& x) {
  const auto it = split.samples.find(cell);
  return it == split.samples.end() ? 0 : nearest_seen(it->second, grid, surfaces, cell, x);
}

int region_in_sight(const SplitCells& split, const grid::MacGrid& grid,
                    const std::vector<levelset::MeshDistance>& surfaces, Index cell, const Vec3& x) {
  const auto it = split.partial.find(cell);
  return it == split.partial.end() ? region_of(split, grid, surfaces, cell, x)
                                   : nearest_seen(it->second, grid, surfaces, cell, x);
}

}  // namespace fsicut::cutcell
