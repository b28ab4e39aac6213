#include "lib/fluid/velocity.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "lib/core/parallel.hpp"
#include "lib/fluid/particles.hpp"
#include "lib/levelset/liquid_sdf.hpp"

namespace fsicut::fluid {

namespace {
// The invalid neighbours (one face step along any axis) of `faces`, indices
// into u's face grid, each once, in increasing order.
std::vector<Index> invalid_neighbours(const grid::Array3<Real>& u, const grid::Array3<char>& valid,
                                      const std::vector<Index>& faces) {
  std::vector<Index> out;
  for (Index idx : faces) {
    const Vec3i f = u.coord(idx);
    for (int b = 0; b < 3; ++b)
      for (int side : {-1, 1}) {
        Vec3i g = f;
        g[b] += side;
        if (!u.inside(g.x(), g.y(), g.z())) continue;
        const Index gi = u.index(g.x(), g.y(), g.z());
        if (!valid[gi]) out.push_back(gi);
      }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// The invalid faces with a valid neighbour, in increasing order. Rows of x in
// parallel, neighbours by stride. Why not a loop over indices with coord():
// its two integer divisions per face made this whole-grid scan most of the
// extrapolation stage (measured, paper dam break 100^3). Why rows skipped and
// lists per row: a row none of whose faces nor those of its four neighbouring
// rows is valid has no such face, and in a sparsely filled tank that is most
// rows (the per-face test of six neighbours and a serial collection over the
// whole grid were 3 % of a substep's instructions at 0.5 % fill).
std::vector<Index> next_to_valid(const grid::Array3<Real>& u, const grid::Array3<char>& valid) {
  const Vec3i n = u.size();
  const Index sy = n.x(), sz = static_cast<Index>(n.x()) * n.y();
  const Index rows = static_cast<Index>(n.y()) * n.z();
  std::vector<char> any_valid(static_cast<std::size_t>(rows));
  parallel_for(0, rows, [&](Index row) {
    const char* first = &valid[row * n.x()];
    any_valid[static_cast<std::size_t>(row)] = std::any_of(first, first + n.x(), [](char v) { return v != 0; });
  });
  const auto valid_row = [&](int j, int k) {
    return j >= 0 && j < n.y() && k >= 0 && k < n.z() && any_valid[static_cast<std::size_t>(j + n.y() * k)];
  };
  std::vector<std::vector<Index>> marked(static_cast<std::size_t>(rows));
  parallel_for(0, rows, [&](Index row) {
    const int j = static_cast<int>(row % n.y()), k = static_cast<int>(row / n.y());
    if (!valid_row(j, k) && !valid_row(j - 1, k) && !valid_row(j + 1, k) && !valid_row(j, k - 1) &&
        !valid_row(j, k + 1))
      return;
    const Index start = row * n.x();
    for (int i = 0; i < n.x(); ++i) {
      const Index idx = start + i;
      if (valid[idx]) continue;
      if ((i > 0 && valid[idx - 1]) || (i + 1 < n.x() && valid[idx + 1]) || (j > 0 && valid[idx - sy]) ||
          (j + 1 < n.y() && valid[idx + sy]) || (k > 0 && valid[idx - sz]) || (k + 1 < n.z() && valid[idx + sz]))
        marked[static_cast<std::size_t>(row)].push_back(idx);
    }
  });
  std::vector<Index> out;
  for (const std::vector<Index>& r : marked) out.insert(out.end(), r.begin(), r.end());
  return out;
}

void copy_into(const grid::MacVelocity& from, grid::MacVelocity& to) {
  for (int a = 0; a < 3; ++a) {
    if (to[a].size() != from[a].size()) to[a].resize(from[a].size());
    std::copy(from[a].data().begin(), from[a].data().end(), to[a].data().begin());
  }
}
}  // namespace

void advect_velocity(const grid::MacGrid& grid, Real dt, const FaceFlags& valid,
                     grid::MacVelocity& u, grid::MacVelocity& scratch,
                     const grid::Array3<std::uint32_t>& reach) {
  copy_into(u, scratch);
  const grid::MacVelocity& old = scratch;
  const Vec3i cells = grid.cell_shape();
  for (int a = 0; a < 3; ++a) {
    const grid::Sampling s = grid::face_sampling(a);
    parallel_for(0, u[a].count(), [&](Index idx) {
      if (!valid[a][idx]) {
        u[a][idx] = 0;
        return;
      }
      const Vec3i f = u[a].coord(idx);
      const Vec3 x = grid.position(s, f.x(), f.y(), f.z());
      // The face's own side of a thin solid: that of its cell f (the cell before
      // it when f is past the grid's end).
      Vec3i cell = f;
      if (cell[a] == cells[a]) cell[a] -= 1;
      const std::uint32_t bits = reach.count() > 0 ? reach(cell) : levelset::REACH_ALL;
      if (bits == levelset::REACH_ALL) {
        const Vec3 mid = x - 0.5 * dt * grid::interpolate_velocity(grid, old, x);
        const Vec3 back = x - dt * grid::interpolate_velocity(grid, old, mid);
        u[a][idx] = grid::interpolate(grid, old[a], s, back);
        return;
      }
      const Vec3 mid = x - 0.5 * dt * velocity_within_reach(grid, old, x, cell, bits);
      const Vec3 back = x - dt * velocity_within_reach(grid, old, mid, cell, bits);
      u[a][idx] = velocity_within_reach(grid, old, back, cell, bits)[a];
    });
  }
}

bool reaches(const Vec3i& cells, const Vec3i& cell, std::uint32_t reach, const Vec3i& c) {
  if (c.minCoeff() < 0 || (c.array() >= cells.array()).any()) return false;
  const Vec3i o = c - cell;
  if (o.cwiseAbs().maxCoeff() > 1) return true;
  return ((reach >> levelset::reach_bit(o.x(), o.y(), o.z())) & 1) != 0;
}

Vec3 velocity_within_reach(const grid::MacGrid& grid, const grid::MacVelocity& u, const Vec3& x,
                           const Vec3i& cell, std::uint32_t reach) {
  if (reach == levelset::REACH_ALL) return grid::interpolate_velocity(grid, u, x);
  const Vec3i cells = grid.cell_shape();
  const auto reached = [&](const Vec3i& c) { return reaches(cells, cell, reach, c); };
  Vec3 v;
  for (int a = 0; a < 3; ++a)
    v[a] = grid::interpolate_where(grid, u[a], grid::face_sampling(a), x, [&](const Vec3i& f) {
      return reached(f) || reached(Vec3i(f - Vec3i::Unit(a)));
    });
  return v;
}

void apply_gravity(grid::MacVelocity& u, const Vec3& gravity, Real dt) {
  for (int a = 0; a < 3; ++a) {
    const Real du = dt * gravity[a];
    if (du == 0) continue;
    auto& d = u[a].data();
    parallel_for(0, static_cast<Index>(d.size()), [&](Index i) { d[i] += du; });
  }
}

void extrapolate_velocity(grid::MacVelocity& u, FaceFlags& valid, int layers,
                          const grid::Array3<std::uint32_t>& reach) {
  // Whether the face f of axis a may take the value of its neighbour one step
  // along `side` of axis b: both of f's cells reach their neighbours that way.
  const auto joined = [&reach](int a, const Vec3i& f, int b, int side) {
    if (reach.count() == 0) return true;
    const int bit = levelset::reach_bit(b, side);
    Vec3i left = f;
    left[a] -= 1;
    for (const Vec3i& c : {left, f})
      if (reach.inside(c.x(), c.y(), c.z()) && !(reach(c) >> bit & 1)) return false;
    return true;
  };
  for (int a = 0; a < 3; ++a) {
    auto& ua = u[a];
    grid::Array3<char> old = valid[a];
    auto& now = valid[a];
    // The band: a layer can only reach the invalid faces next to the faces the
    // layer before it made valid (next to the valid ones, first); the others
    // see the same valid neighbours as before, none. Sweeping those candidates
    // instead of the whole grid gives the same values.
    std::vector<Index> candidates = next_to_valid(ua, old);
    for (int layer = 0; layer < layers && !candidates.empty(); ++layer) {
      parallel_for(0, static_cast<Index>(candidates.size()), [&](Index k) {
        const Index idx = candidates[static_cast<std::size_t>(k)];
        if (old[idx]) return;
        const Vec3i f = ua.coord(idx);
        Real sum = 0;
        int count = 0;
        for (int b = 0; b < 3; ++b)
          for (int side : {-1, 1}) {
            Vec3i g = f;
            g[b] += side;
            if (!ua.inside(g.x(), g.y(), g.z()) || !joined(a, f, b, side)) continue;
            const Index gi = ua.index(g.x(), g.y(), g.z());
            if (old[gi]) {
              sum += ua[gi];
              ++count;
            }
          }
        if (count > 0) {
          ua[idx] = sum / count;
          now[idx] = 1;
        }
      });
      std::vector<Index> reached;
      for (Index idx : candidates)
        if (now[idx] && !old[idx]) reached.push_back(idx);
      for (Index idx : reached) old[idx] = 1;
      candidates = invalid_neighbours(ua, old, reached);
    }
    parallel_for(0, ua.count(), [&](Index idx) {
      if (!now[idx]) ua[idx] = 0;
    });
  }
}

void release_nearly_closed(const FaceFractions& fractions, FaceFlags& valid) {
  for (int a = 0; a < 3; ++a)
    parallel_for(0, valid[a].count(), [&](Index idx) {
      const Real f = fractions[a][idx];
      if (f > 0 && f < NEARLY_CLOSED_FRACTION) valid[a][idx] = 0;
    });
}

void constrain_velocity(const grid::MacGrid& grid, const grid::Array3<Real>& solid_phi,
                        const FaceFractions& fractions, const FaceFlags& valid,
                        grid::MacVelocity& u, grid::MacVelocity& scratch,
                        const SolidVelocity& solid_velocity, const grid::Array3<std::uint32_t>& reach) {
  // Two passes over rows of x: the new values of the faces next to solids go
  // to `scratch` (NaN: unchanged) while every read sees the old u, then they
  // and the walls' zeros are written. Why not a copy of u and one pass: the
  // copy and an index division per face made this a whole-grid stage though
  // it changes only the faces next to solids.
  const auto next_to_solid = [&](int a, Index idx) {
    return fractions[a][idx] < NEARLY_CLOSED_FRACTION && valid[a][idx];
  };
  const auto for_each_inner_face = [&](int a, const auto& body) {
    const Vec3i n = u[a].size();
    parallel_for(0, static_cast<Index>(n.y()) * n.z(), [&](Index row) {
      const Vec3i f0(0, static_cast<int>(row % n.y()), static_cast<int>(row / n.y()));
      if (a > 0 && (f0[a] == 0 || f0[a] == n[a] - 1)) return;  // a domain wall
      const int first = a == 0 ? 1 : 0, last = a == 0 ? n.x() - 2 : n.x() - 1;
      for (int i = first; i <= last; ++i) body(Vec3i(i, f0.y(), f0.z()), row * n.x() + i);
    });
  };
  for (int a = 0; a < 3; ++a) {
    if (scratch[a].size() != u[a].size()) scratch[a].resize(u[a].size());
    const grid::Sampling s = grid::face_sampling(a);
    for_each_inner_face(a, [&](const Vec3i& f, Index idx) {
      if (!next_to_solid(a, idx)) return;
      Real& out = scratch[a][idx];
      out = std::numeric_limits<Real>::quiet_NaN();
      const Vec3 x = grid.position(s, f.x(), f.y(), f.z());
      if (reach.count() > 0) {
        Vec3i left = f;
        left[a] -= 1;
        if (!((reach(left) >> levelset::reach_bit(a, 1)) & 1)) {
          out = solid_velocity ? solid_velocity(x)[a] : 0;
          return;
        }
      }
      const Vec3 g = node_field_gradient(grid, solid_phi, x);
      const Real g2 = g.squaredNorm();
      if (!(g2 > 0)) return;
      Vec3 v = grid::interpolate_velocity(grid, u, x);
      const Vec3 relative = solid_velocity ? Vec3(v - solid_velocity(x)) : v;
      v -= (relative.dot(g) / g2) * g;
      out = v[a];
    });
  }
  for (int a = 0; a < 3; ++a) {
    for_each_inner_face(a, [&](const Vec3i&, Index idx) {
      if (next_to_solid(a, idx) && !std::isnan(scratch[a][idx])) u[a][idx] = scratch[a][idx];
    });
    // The domain walls: u = 0.
    const Vec3i n = u[a].size();
    for (const int wall : {0, n[a] - 1})
      parallel_for(0, static_cast<Index>(n[(a + 1) % 3]) * n[(a + 2) % 3], [&](Index k) {
        Vec3i f;
        f[a] = wall;
        f[(a + 1) % 3] = static_cast<int>(k % n[(a + 1) % 3]);
        f[(a + 2) % 3] = static_cast<int>(k / n[(a + 1) % 3]);
        u[a](f) = 0;
      });
  }
}

}  // namespace fsicut::fluid
