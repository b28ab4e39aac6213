#include "lib/fluid/flows.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>

#include "lib/core/parallel.hpp"

namespace fsicut::fluid {
namespace {

// The cells [lo, hi] (inclusive) that `bounds` overlaps, clipped to the grid;
// empty when lo > hi on some axis.
struct CellBox {
  Vec3i lo, hi;
  bool empty() const { return (lo.array() > hi.array()).any(); }
  Vec3i span() const { return hi - lo + Vec3i::Ones(); }
  Index count() const { return empty() ? 0 : static_cast<Index>(span().x()) * span().y() * span().z(); }
  Vec3i cell(Index n) const {
    const Vec3i s = span();
    return lo + Vec3i(static_cast<int>(n % s.x()), static_cast<int>((n / s.x()) % s.y()),
                      static_cast<int>(n / (static_cast<Index>(s.x()) * s.y())));
  }
  Index slot(const Vec3i& c) const {
    const Vec3i s = span(), d = c - lo;
    return d.x() + static_cast<Index>(s.x()) * (d.y() + static_cast<Index>(s.y()) * d.z());
  }
  bool holds(const Vec3i& c) const { return (c.array() >= lo.array()).all() && (c.array() <= hi.array()).all(); }
};

CellBox cells_of(const grid::MacGrid& grid, const Bounds& b) {
  CellBox box;
  for (int a = 0; a < 3; ++a) {
    const Real lo = (b.min[a] - grid.origin[a]) / grid.dx, hi = (b.max[a] - grid.origin[a]) / grid.dx;
    box.lo[a] = static_cast<int>(std::max<Real>(0, std::floor(lo)));
    box.hi[a] = static_cast<int>(std::min<Real>(grid.resolution[a] - 1, std::ceil(hi) - 1));
  }
  return box;
}

// What fill_region knows of a cell's particles: how many lie in the region,
// and which sub-cells hold one (bit p, for up to 64 sub-cells).
struct Occupancy {
  std::vector<std::atomic<int>> count;
  std::vector<std::atomic<std::uint64_t>> taken;
};

void count_particles(const grid::MacGrid& grid, const Points& particles, const CellBox& box, const Region& region,
                     int per_cell, Occupancy& o) {
  const int m = static_cast<int>(std::lround(std::cbrt(static_cast<double>(per_cell))));
  const bool bits = m * m * m == per_cell && per_cell <= 64;
  parallel_for(0, particles.cols(), [&](Index p) {
    const Vec3 x = particles.col(p);
    const Vec3i c = grid.cell_of(x);
    if (!box.holds(c)) return;
    const Index s = box.slot(c);
    if (region(x)) o.count[static_cast<std::size_t>(s)].fetch_add(1, std::memory_order_relaxed);
    if (!bits) return;
    const Vec3 t = (x - grid.node_position(c.x(), c.y(), c.z())) / grid.dx * m;
    const Vec3i sub = t.array().floor().cast<int>().max(0).min(m - 1);
    const int q = sub.x() + m * (sub.y() + m * sub.z());
    o.taken[static_cast<std::size_t>(s)].fetch_or(std::uint64_t{1} << q, std::memory_order_relaxed);
  });
}

// A cell's candidates for new particles: up to per_cell positions written to
// out[slot * per_cell ...] (keep[...] = 1), its target count (the sub-cells
// the region holds outside solids) returned.
struct Fill {
  const Liquid& liquid;
  const Region& region;
  int per_cell;
  std::uint64_t key;

  // In the region, inside the grid's box (a source may cross its walls) and
  // outside every solid.
  bool open(const Vec3& x) const {
    const grid::MacGrid& g = liquid.grid;
    if ((x.array() < g.origin.array()).any() || (x.array() > g.max().array()).any()) return false;
    return region(x) && (liquid.solid_phi.count() == 0 ||
                         grid::interpolate(liquid.grid, liquid.solid_phi, grid::Sampling::node, x) > 0);
  }
  std::uint64_t hash(Index cell, int p) const {
    return mix(key ^ (static_cast<std::uint64_t>(cell) * static_cast<std::uint64_t>(per_cell) + p) * 3);
  }
  Index linear(const Vec3i& c) const {
    const grid::MacGrid& g = liquid.grid;
    return c.x() + static_cast<Index>(g.resolution.x()) * (c.y() + static_cast<Index>(g.resolution.y()) * c.z());
  }

  // The empty target sub-cells, each at its centre plus the seeding jitter.
  int lattice(const Vec3i& c, std::uint64_t taken, Vec3* out, char* keep) const {
    const grid::MacGrid& g = liquid.grid;
    const int m = static_cast<int>(std::lround(std::cbrt(static_cast<double>(per_cell))));
    int targets = 0;
    for (int p = 0; p < per_cell; ++p) {
      const Vec3 centre = sub_cell_centre(g, c, p, per_cell);
      if (!open(centre)) continue;
      ++targets;
      if ((taken >> p) & 1) continue;
      const std::uint64_t h = hash(linear(c), p);
      const Vec3 r(uniform(h), uniform(h + 1), uniform(h + 2));
      const Vec3 x = centre + g.dx * SEED_JITTER * (r - Vec3::Constant(0.5)) / m;
      out[p] = open(x) ? x : centre;
      keep[p] = 1;
    }
    return targets;
  }

  // per_cell points uniform in the cell where the region holds them, when
  // the cell's centre is in it.
  int uniform_cell(const Vec3i& c, Vec3* out, char* keep) const {
    const grid::MacGrid& g = liquid.grid;
    if (!open(g.cell_center(c.x(), c.y(), c.z()))) return 0;
    const Vec3 corner = g.node_position(c.x(), c.y(), c.z());
    int placed = 0;
    for (int p = 0; p < 4 * per_cell && placed < per_cell; ++p) {
      const std::uint64_t h = hash(linear(c), p);
      const Vec3 x = corner + g.dx * Vec3(uniform(h), uniform(h + 1), uniform(h + 2));
      if (!open(x)) continue;
      out[placed] = x;
      keep[placed++] = 1;
    }
    return per_cell;
  }
};

// An atomic max (C++17 has no fetch_max): order-independent, so the result
// does not depend on the thread count.
void store_max(std::atomic<std::uint64_t>& a, std::uint64_t v) {
  std::uint64_t now = a.load(std::memory_order_relaxed);
  while (now < v && !a.compare_exchange_weak(now, v, std::memory_order_relaxed)) {
  }
}

// An order-preserving key of a coordinate (larger value, larger key; never 0).
std::uint64_t order_key(Real value) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  return (bits >> 63) ? ~bits : bits | (std::uint64_t{1} << 63);
}

// The sources with a velocity on the lattice (fill_region, see the header):
// each line of sub-cells along the velocity's main axis continues from its
// most upstream particle at one sub-cell edge apart, against the stream, as
// far as the region holds the points; a line without a particle is filled
// from its most upstream open sub-cell centre down the stream.
struct Stream {
  const Liquid& liquid;
  const Fill& fill;
  CellBox box;
  int m;
  int axis, sign;  // main axis of the velocity and its sign
  Vec3i size;      // sub-cells of the box per axis
  Real h;          // sub-cell edge [m]

  Vec3 corner() const { return liquid.grid.node_position(box.lo.x(), box.lo.y(), box.lo.z()); }
  Index slot(const Vec3i& q) const { return q.x() + static_cast<Index>(size.x()) * (q.y() + static_cast<Index>(size.y()) * q.z()); }
  // The sub-cell of x, or (-1, ...) outside the box.
  Vec3i sub_of(const Vec3& x) const {
    const Vec3i q = ((x - corner()) / h).array().floor().cast<int>();
    return (q.array() >= 0).all() && (q.array() < size.array()).all() ? q : Vec3i(-1, 0, 0);
  }
  // Per sub-cell, the index + 1 of its most upstream particle (0: empty).
  std::vector<Index> fronts() const {
    const Points& x = liquid.particles;
    const std::size_t n = static_cast<std::size_t>(size.x()) * size.y() * size.z();
    std::vector<std::atomic<std::uint64_t>> front(n), winner(n);
    const auto upstream = [&](Index p) { return order_key(-sign * x(axis, p)); };
    parallel_for(0, x.cols(), [&](Index p) {
      const Vec3i q = sub_of(x.col(p));
      if (q.x() >= 0) store_max(front[static_cast<std::size_t>(slot(q))], upstream(p));
    });
    parallel_for(0, x.cols(), [&](Index p) {
      const Vec3i q = sub_of(x.col(p));
      if (q.x() < 0) return;
      const std::size_t s = static_cast<std::size_t>(slot(q));
      if (front[s].load(std::memory_order_relaxed) == upstream(p))
        store_max(winner[s], static_cast<std::uint64_t>(p) + 1);
    });
    std::vector<Index> out(n);
    for (std::size_t s = 0; s < n; ++s) out[s] = static_cast<Index>(winner[s].load());
    return out;
  }
  // The new particles of the line at (b, c) across the axis.
  void line(int b, int c, const std::vector<Index>& front, std::vector<Vec3>& out) const {
    const int along = size[axis];
    Vec3i q;
    q[(axis + 1) % 3] = b;
    q[(axis + 2) % 3] = c;
    const Vec3 step = -sign * h * Vec3::Unit(axis);  // one sub-cell against the stream
    for (int k = 0; k < along; ++k) {
      q[axis] = sign > 0 ? k : along - 1 - k;  // from the upstream end
      const Index f = front[static_cast<std::size_t>(slot(q))];
      if (f > 0) {
        for (Vec3 x = liquid.particles.col(f - 1) + step; fill.open(x); x += step) out.push_back(x);
        return;
      }
    }
    for (int k = 0; k < along; ++k) {
      q[axis] = sign > 0 ? k : along - 1 - k;
      const Vec3 centre = corner() + h * (q.cast<Real>() + Vec3::Constant(0.5));
      if (!fill.open(centre)) continue;
      const std::uint64_t key = fill.hash(slot(q), 0);
      Vec3 r = Vec3(uniform(key), uniform(key + 1), uniform(key + 2)) - Vec3::Constant(0.5);
      r[axis] = 0;
      const Vec3 start = centre + liquid.grid.dx * SEED_JITTER * r / m;
      for (Vec3 x = fill.open(start) ? start : centre; fill.open(x); x -= step) out.push_back(x);
      return;
    }
  }
};

}  // namespace

bool beyond_open_sides(const grid::MacGrid& grid, const OpenSides& open, const Vec3& x) {
  const Vec3 lo = grid.origin, hi = grid.max();
  for (int a = 0; a < 3; ++a) {
    if (open[2 * a] && x[a] < lo[a] + grid.dx) return true;
    if (open[2 * a + 1] && x[a] > hi[a] - grid.dx) return true;
  }
  return false;
}

void open_layers_to_air(const grid::MacGrid& grid, const OpenSides& open, grid::Array3<Real>& liquid_phi) {
  const Real air = 0.5 * grid.dx;
  for (int side = 0; side < 6; ++side) {
    if (!open[side]) continue;
    const int a = side / 2;
    const int layer = side % 2 ? grid.resolution[a] - 1 : 0;
    const int b = (a + 1) % 3, c = (a + 2) % 3;
    parallel_for(0, static_cast<Index>(grid.resolution[b]) * grid.resolution[c], [&](Index n) {
      Vec3i cell;
      cell[a] = layer;
      cell[b] = static_cast<int>(n % grid.resolution[b]);
      cell[c] = static_cast<int>(n / grid.resolution[b]);
      Real& phi = liquid_phi(cell);
      phi = std::max(phi, air);
    });
  }
}

std::vector<Index> remove_particles(Points& particles, const Region& gone) {
  const Index n = particles.cols();
  std::vector<char> drop(static_cast<std::size_t>(n), 0);
  parallel_for(0, n, [&](Index p) { drop[static_cast<std::size_t>(p)] = gone(particles.col(p)) ? 1 : 0; });
  std::vector<Index> moved(static_cast<std::size_t>(n), -1);
  Index kept = 0;
  for (Index p = 0; p < n; ++p) {
    if (drop[static_cast<std::size_t>(p)]) continue;
    if (kept != p) particles.col(kept) = particles.col(p);
    moved[static_cast<std::size_t>(p)] = kept++;
  }
  if (kept != n) particles.conservativeResize(3, kept);
  return moved;
}

namespace {

// fill_region for a source with a velocity (Stream).
Index fill_stream(Liquid& liquid, const Fill& fill, const CellBox& box, int m, const Vec3& velocity) {
  int axis = 0;
  velocity.cwiseAbs().maxCoeff(&axis);
  const Stream stream{liquid, fill, box, m, axis, velocity[axis] > 0 ? 1 : -1, box.span() * m, liquid.grid.dx / m};
  const std::vector<Index> front = stream.fronts();
  const int b = (axis + 1) % 3, c = (axis + 2) % 3;
  const Index lines = static_cast<Index>(stream.size[b]) * stream.size[c];
  std::vector<std::vector<Vec3>> out(static_cast<std::size_t>(lines));
  parallel_for(0, lines, [&](Index n) {
    stream.line(static_cast<int>(n % stream.size[b]), static_cast<int>(n / stream.size[b]), front,
                out[static_cast<std::size_t>(n)]);
  });
  Index added = 0;
  for (const auto& o : out) added += static_cast<Index>(o.size());
  const Index before = liquid.particles.cols();
  liquid.particles.conservativeResize(3, before + added);
  Index col = before;
  for (const auto& o : out)
    for (const Vec3& x : o) liquid.particles.col(col++) = x;
  return added;
}

}  // namespace

Index fill_region(Liquid& liquid, const Region& region, const Bounds& bounds, int per_cell, std::uint64_t key,
                  const Vec3& velocity) {
  const grid::MacGrid& g = liquid.grid;
  const CellBox box = cells_of(g, bounds);
  const Index cells = box.count();
  if (cells == 0 || per_cell < 1) return 0;
  const int m = static_cast<int>(std::lround(std::cbrt(static_cast<double>(per_cell))));
  const bool lattice = m * m * m == per_cell && per_cell <= 64;
  const Fill fill{liquid, region, per_cell, key};
  if (lattice && velocity.norm() > 0) return fill_stream(liquid, fill, box, m, velocity);
  Occupancy o{std::vector<std::atomic<int>>(static_cast<std::size_t>(cells)),
              std::vector<std::atomic<std::uint64_t>>(static_cast<std::size_t>(cells))};
  count_particles(g, liquid.particles, box, region, per_cell, o);
  std::vector<Vec3> out(static_cast<std::size_t>(cells) * per_cell);
  std::vector<char> keep(out.size(), 0);
  std::vector<int> deficit(static_cast<std::size_t>(cells), 0);
  parallel_for(0, cells, [&](Index s) {
    const std::size_t at = static_cast<std::size_t>(s) * per_cell;
    const int targets = lattice ? fill.lattice(box.cell(s), o.taken[static_cast<std::size_t>(s)].load(), &out[at],
                                               &keep[at])
                                : fill.uniform_cell(box.cell(s), &out[at], &keep[at]);
    deficit[static_cast<std::size_t>(s)] = targets - o.count[static_cast<std::size_t>(s)].load();
  });
  // What the region lacks as a whole: particles that crossed between its
  // cells moved nothing out of it.
  Index missing = 0;
  for (const int d : deficit) missing += d;
  if (missing <= 0) return 0;
  // The candidates of the cells that lack most first.
  std::vector<std::size_t> candidates;
  for (std::size_t i = 0; i < out.size(); ++i)
    if (keep[i] && deficit[i / static_cast<std::size_t>(per_cell)] > 0) candidates.push_back(i);
  const auto lack = [&](std::size_t i) { return deficit[i / static_cast<std::size_t>(per_cell)]; };
  std::stable_sort(candidates.begin(), candidates.end(), [&](std::size_t a, std::size_t b) { return lack(a) > lack(b); });
  if (static_cast<Index>(candidates.size()) > missing) candidates.resize(static_cast<std::size_t>(missing));
  std::sort(candidates.begin(), candidates.end());
  const Index before = liquid.particles.cols(), added = static_cast<Index>(candidates.size());
  liquid.particles.conservativeResize(3, before + added);
  for (Index k = 0; k < added; ++k) liquid.particles.col(before + k) = out[candidates[static_cast<std::size_t>(k)]];
  return added;
}

void set_face_velocity(Liquid& liquid, const Region& region, const Bounds& bounds, const Vec3& velocity,
                       int per_cell) {
  const grid::MacGrid& g = liquid.grid;
  const CellBox cells = cells_of(g, bounds);
  if (cells.empty()) return;
  const int m = std::max(1, static_cast<int>(std::lround(std::cbrt(static_cast<double>(per_cell)))));
  for (int a = 0; a < 3; ++a) {
    // The faces of the box's cells along a: one more layer on the high side.
    CellBox faces = cells;
    faces.hi[a] += 1;
    faces.hi[a] = std::min(faces.hi[a], g.resolution[a]);
    const grid::Sampling s = grid::face_sampling(a);
    const int b = (a + 1) % 3, c = (a + 2) % 3;
    std::vector<Real> wall(static_cast<std::size_t>(faces.count()), 0);
    parallel_for(0, faces.count(), [&](Index n) {
      const Vec3i f = faces.cell(n);
      const Vec3 centre = g.position(s, f.x(), f.y(), f.z());
      // The share of the face the region holds, at the m x m sub-cells' centres.
      int inside = 0;
      for (int q = 0; q < m * m; ++q) {
        Vec3 x = centre;
        x[b] += g.dx * ((q % m + 0.5) / m - 0.5);
        x[c] += g.dx * ((q / m + 0.5) / m - 0.5);
        inside += region(x) ? 1 : 0;
      }
      if (inside == 0) return;
      const Real share = static_cast<Real>(inside) / (m * m);
      if (f[a] == 0 || f[a] == g.resolution[a]) {
        wall[static_cast<std::size_t>(n)] = share;
        return;
      }
      Real& u = liquid.velocity[a](f);
      u += share * (velocity[a] - u);
    });
    if (velocity[a] == 0) continue;
    for (Index n = 0; n < faces.count(); ++n)
      if (const Real share = wall[static_cast<std::size_t>(n)]; share > 0)
        liquid.wall_inflow.push_back({a, faces.cell(n), share * velocity[a]});
  }
}

}  // namespace fsicut::fluid
