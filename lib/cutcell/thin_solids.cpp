#include "lib/cutcell/thin_solids.hpp"

#include <algorithm>
#include <array>
#include <limits>

#include "lib/core/parallel.hpp"

namespace fsicut::cutcell {
namespace {

// x reflected in the domain's walls it lies beyond: the solids read as
// continued through the walls (levelset::extend_through_domain_walls), so a
// look one cell further on from a boundary cell sees the solid's face there,
// not a face of it lying in the wall.
Vec3 mirrored_into_domain(const grid::MacGrid& grid, Vec3 x) {
  const Vec3 lo = grid.origin, hi = grid.max();
  for (int a = 0; a < 3; ++a) {
    if (x[a] < lo[a]) x[a] = 2 * lo[a] - x[a];
    if (x[a] > hi[a]) x[a] = 2 * hi[a] - x[a];
  }
  return x;
}

// Whether the segment from xa (in cell a) to the centre of cell b crosses the
// surfaces in a way the node field does not account for (see the header).
// `near`, when given: each surface's triangles near a box holding xa and the
// centre of b (near_block).
bool hidden_crossing(const grid::MacGrid& grid, const grid::Array3<Real>& solid_phi,
                     const std::vector<levelset::MeshDistance>& surfaces, const Vec3& xa, const Vec3i& a,
                     const Vec3i& b, const std::vector<levelset::MeshDistance::Near>* near = nullptr) {
  const Vec3 xb = grid.cell_center(b.x(), b.y(), b.z());
  int crossings = 0;
  Vec3 first = Vec3::Zero(), last = Vec3::Zero();  // unit outward normals at the first and last crossing
  Real t_first = std::numeric_limits<Real>::infinity(), t_last = -std::numeric_limits<Real>::infinity();
  for (std::size_t k = 0; k < surfaces.size(); ++k) {
    const levelset::MeshDistance& s = surfaces[k];
    const levelset::SegmentHits h = near ? s.segment_hits(xa, xb, (*near)[k]) : s.segment_hits(xa, xb);
    if (h.count == 0) continue;
    crossings += h.count;
    if (h.first < t_first) {
      t_first = h.first;
      first = s.face_normal(h.triangle);
    }
    if (h.last > t_last) {
      t_last = h.last;
      last = s.face_normal(h.last_triangle);
    }
  }
  if (crossings == 0) return false;
  if (crossings >= 2) return first.dot(last) < WALL_NORMALS;
  // One crossing: entering the solid (against its outward normal) puts b on
  // the solid side. Hidden when the node field counts that cell open and, one
  // cell further on, the segment leaves the solid through a face facing the
  // first (a wall around the centre, not the tip of a corner).
  const bool entering = first.dot(xb - xa) < 0;
  const Vec3i& inside = entering ? b : a;
  if (levelset::solid_phi_at_cell(solid_phi, inside.x(), inside.y(), inside.z()) < 0) return false;
  const Vec3 from = entering ? xb : xa;
  const Vec3 beyond = mirrored_into_domain(grid, from + (entering ? Vec3(xb - xa) : Vec3(xa - xb)));
  for (const levelset::MeshDistance& s : surfaces) {
    const levelset::SegmentHits h = s.segment_hits(from, beyond);
    if (h.count > 0 && s.face_normal(h.triangle).dot(first) < WALL_NORMALS) return true;
  }
  return false;
}

// Cell c's neighbour at offset bit o (levelset::NeighbourReach's layout).
Vec3i neighbour(const Vec3i& c, int o) { return Vec3i(c + Vec3i(o % 3 - 1, (o / 3) % 3 - 1, o / 9 - 1)); }

// The box of the 3 x 3 x 3 cells around cell c [m]: where the segments of
// c's neighbour tests (from its centre or a particle in it to its
// neighbours' centres and quadrature points) lie.
void block(const grid::MacGrid& grid, const Vec3i& c, Vec3& lo, Vec3& hi) {
  lo = grid.node_position(c.x(), c.y(), c.z()) - Vec3::Constant(grid.dx);
  hi = lo + Vec3::Constant(3 * grid.dx);
}

// Whether no triangle is listed: then no segment of the block meets one.
bool none_near(const std::vector<levelset::MeshDistance::Near>& near) {
  return std::all_of(near.begin(), near.end(), [](const levelset::MeshDistance::Near& n) { return n.slots.empty(); });
}

// Each surface's triangles near the block of cell c (MeshDistance::near).
std::vector<levelset::MeshDistance::Near> near_block(const grid::MacGrid& grid,
                                                     const std::vector<levelset::MeshDistance>& surfaces,
                                                     const Vec3i& c) {
  Vec3 lo, hi;
  block(grid, c, lo, hi);
  std::vector<levelset::MeshDistance::Near> near;
  near.reserve(surfaces.size());
  for (const levelset::MeshDistance& s : surfaces) near.push_back(s.near(lo, hi));
  return near;
}

// Quadrature point b (0 .. 7) of cell n: the centres of its 2 x 2 x 2 octants.
Vec3 quadrature_point(const grid::MacGrid& grid, const Vec3i& n, int b) {
  return grid.node_position(n.x(), n.y(), n.z()) +
         grid.dx * Vec3(0.25 + 0.5 * (b & 1), 0.25 + 0.5 * (b >> 1 & 1), 0.25 + 0.5 * (b >> 2 & 1));
}

}  // namespace

bool separated(const grid::MacGrid& grid, const grid::Array3<Real>& solid_phi,
               const std::vector<levelset::MeshDistance>& surfaces, const Vec3i& a, const Vec3i& b) {
  return hidden_crossing(grid, solid_phi, surfaces, grid.cell_center(a.x(), a.y(), a.z()), a, b);
}

Index close_thin_solid_faces(const grid::MacGrid& grid, const grid::Array3<Real>& solid_phi,
                             const std::vector<levelset::MeshDistance>& surfaces, FaceFractions& fractions,
                             grid::Array3<char>& cells) {
  cells.resize(grid.cell_shape(), 0);
  if (surfaces.empty()) return 0;
  Index closed = 0;
  // The smallest node value of each row of nodes along x: a row of faces whose
  // corner rows all stay farther than dx from the solids has nothing to test,
  // and most rows are far from every solid.
  const Vec3i nodes = solid_phi.size();
  std::vector<Real> row_min(static_cast<std::size_t>(nodes.y()) * nodes.z());
  parallel_for(0, static_cast<Index>(row_min.size()), [&](Index row) {
    const Real* first = &solid_phi[row * nodes.x()];
    row_min[static_cast<std::size_t>(row)] = *std::min_element(first, first + nodes.x());
  });
  for (int a = 0; a < 3; ++a) {
    auto& f = fractions[a];
    const int b = (a + 1) % 3, c = (a + 2) % 3;
    const Vec3i eb = Vec3i::Unit(b), ec = Vec3i::Unit(c);
    const int n_a = grid.resolution[a];
    // By rows of x, the faces each row closes listed per row. Why not a loop
    // over face indices and a grid-sized flag array: the index divisions and
    // the serial scan of the flags made this a whole-grid cost every substep.
    const Vec3i n = f.size();
    std::vector<std::vector<int>> shut(static_cast<std::size_t>(n.y()) * n.z());
    parallel_for(0, static_cast<Index>(n.y()) * n.z(), [&](Index row) {
      Vec3i x(0, static_cast<int>(row % n.y()), static_cast<int>(row / n.y()));
      // The node rows of the faces' corners x, x + eb, x + ec, x + eb + ec.
      Real nearest_row = std::numeric_limits<Real>::infinity();
      for (const Vec3i& corner : {Vec3i(x), Vec3i(x + eb), Vec3i(x + ec), Vec3i(x + eb + ec)})
        nearest_row = std::min(nearest_row, row_min[static_cast<std::size_t>(corner.y() + nodes.y() * corner.z())]);
      if (nearest_row > grid.dx) return;
      for (x.x() = 0; x.x() < n.x(); ++x.x()) {
        if (!(f(x) > 0)) continue;
        if (x[a] == 0 || x[a] == n_a) continue;
        const Real nearest = std::min({solid_phi(x), solid_phi(Vec3i(x + eb)), solid_phi(Vec3i(x + eb + ec)),
                                       solid_phi(Vec3i(x + ec))});
        if (nearest > grid.dx) continue;
        Vec3i left = x;
        left[a] -= 1;
        if (!separated(grid, solid_phi, surfaces, left, x)) continue;
        f(x) = 0;
        shut[static_cast<std::size_t>(row)].push_back(x.x());
      }
    });
    for (std::size_t row = 0; row < shut.size(); ++row)
      for (const int i : shut[row]) {
        ++closed;
        Vec3i x(i, static_cast<int>(row % n.y()), static_cast<int>(row / n.y()));
        cells(x) = 1;
        x[a] -= 1;
        cells(x) = 1;
      }
  }
  return closed;
}

levelset::NeighbourReach neighbour_reach(const grid::MacGrid& grid, const grid::Array3<Real>& solid_phi,
                                         const std::vector<levelset::MeshDistance>& surfaces,
                                         const grid::Array3<char>& thin_cells, const Points& particles) {
  levelset::NeighbourReach reach;
  if (std::none_of(thin_cells.data().begin(), thin_cells.data().end(), [](char c) { return c != 0; }))
    return reach;
  grid::Array3<char> near = thin_cells;
  grid::dilate(near, REACH_CELLS);
  // Cells a thin solid may cut through: the flagged ones and their neighbours.
  reach.tested = thin_cells;
  grid::dilate(reach.tested, 1);
  grid::Array3<std::uint32_t>& cells = reach.cells;
  cells.resize(grid.cell_shape(), levelset::REACH_ALL);
  std::vector<Index> listed;
  for (Index idx = 0; idx < cells.count(); ++idx)
    if (near[idx]) listed.push_back(idx);
  std::vector<std::array<unsigned char, 27>> partial(listed.size());
  std::vector<char> hidden(listed.size(), 0);
  parallel_for(0, static_cast<Index>(listed.size()), [&](Index e) {
    const Index idx = listed[static_cast<std::size_t>(e)];
    const Vec3i c = cells.coord(idx);
    const Vec3 centre = grid.cell_center(c.x(), c.y(), c.z());
    const std::vector<levelset::MeshDistance::Near> close = near_block(grid, surfaces, c);
    std::uint32_t bits = levelset::REACH_ALL;
    std::array<unsigned char, 27>& seen = partial[static_cast<std::size_t>(e)];
    seen.fill(0xFF);
    cells[idx] = bits;
    if (none_near(close)) return;  // every neighbour and point in sight
    for (int o = 0; o < 27; ++o) {
      const Vec3i n = neighbour(c, o);
      if (!cells.inside(n.x(), n.y(), n.z())) continue;
      const bool cut = o != 13 && hidden_crossing(grid, solid_phi, surfaces, centre, c, n, &close);
      if (cut) bits &= ~(1u << o);
      if (!cut && !reach.tested(n)) continue;
      unsigned char points = 0;
      for (int b = 0; b < 8; ++b) {
        const Vec3 point = quadrature_point(grid, n, b);
        if (std::none_of(surfaces.begin(), surfaces.end(), [&](const levelset::MeshDistance& s) {
              return s.segment_hits(centre, point, close[static_cast<std::size_t>(&s - surfaces.data())]).count > 0;
            }))
          points |= static_cast<unsigned char>(1u << b);
      }
      seen[static_cast<std::size_t>(o)] = points;
      if (points != 0xFF) hidden[static_cast<std::size_t>(e)] = 1;
    }
    cells[idx] = bits;
  });
  for (std::size_t e = 0; e < listed.size(); ++e)
    if (cells[listed[e]] != levelset::REACH_ALL || hidden[e]) reach.partial.emplace(listed[e], partial[e]);
  reach.particles = particle_reach(grid, solid_phi, surfaces, reach, particles);
  return reach;
}

grid::Array3<char> cells_beside_thin_solids(const levelset::NeighbourReach& reach) {
  if (reach.partial.empty()) return {};
  grid::Array3<char> out(reach.cells.size(), 0);
  for (const auto& entry : reach.partial) out[entry.first] = 1;
  grid::dilate(out, CELLS_BESIDE_THIN_SOLIDS);
  return out;
}

std::vector<std::uint32_t> particle_reach(const grid::MacGrid& grid, const grid::Array3<Real>& solid_phi,
                                          const std::vector<levelset::MeshDistance>& surfaces,
                                          const levelset::NeighbourReach& reach, const Points& particles) {
  std::vector<std::uint32_t> out(static_cast<std::size_t>(particles.cols()), levelset::REACH_ALL);
  const grid::Array3<std::uint32_t>& cells = reach.cells;
  if (cells.count() == 0) return out;
  const bool tested = reach.tested.count() > 0;
  // The triangles near each examined cell's block, listed once per cell.
  grid::Array3<int> slot(cells.size(), -1);
  std::vector<Index> examined;
  for (Index idx = 0; idx < cells.count(); ++idx)
    if (cells[idx] != levelset::REACH_ALL || (tested && reach.tested[idx])) {
      slot[idx] = static_cast<int>(examined.size());
      examined.push_back(idx);
    }
  std::vector<std::vector<levelset::MeshDistance::Near>> near(examined.size());
  parallel_for(0, static_cast<Index>(examined.size()), [&](Index e) {
    near[static_cast<std::size_t>(e)] = near_block(grid, surfaces, cells.coord(examined[static_cast<std::size_t>(e)]));
  });
  parallel_for(0, particles.cols(), [&](Index p) {
    const Vec3 x = particles.col(p);
    const Vec3i c = grid.cell_of(x);
    if (slot(c) < 0) return;
    Vec3 lo, hi;
    block(grid, c, lo, hi);
    // A particle beyond its cell's block (outside the grid: cell_of clamps) is tested against every triangle.
    const bool inside = (x.array() >= lo.array()).all() && (x.array() <= hi.array()).all();
    const std::vector<levelset::MeshDistance::Near>& close = near[static_cast<std::size_t>(slot(c))];
    if (inside && none_near(close)) return;  // every neighbour's centre in sight
    std::uint32_t bits = levelset::REACH_ALL;
    for (int o = 0; o < 27; ++o) {
      const Vec3i n = neighbour(c, o);
      if (!cells.inside(n.x(), n.y(), n.z())) continue;
      if (hidden_crossing(grid, solid_phi, surfaces, x, c, n, inside ? &close : nullptr)) bits &= ~(1u << o);
    }
    out[static_cast<std::size_t>(p)] = bits;
  });
  return out;
}

}  // namespace fsicut::cutcell
