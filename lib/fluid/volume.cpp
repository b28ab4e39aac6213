#include "lib/fluid/volume.hpp"

#include <algorithm>

namespace fsicut::fluid {
namespace {

// The particles' seeded volume per region of each split cell [cells].
std::unordered_map<Index, std::vector<Real>> held_volume(const Liquid& l, const RegionOf& region_of) {
  std::unordered_map<Index, std::vector<Real>> held;
  for (const auto* cells : {&l.split.samples, &l.split.partial})
    for (const auto& [cell, label] : *cells) held[cell].assign(static_cast<std::size_t>(l.split.count(cell)), 0);
  const Real share = l.particle_volume / (l.grid.dx * l.grid.dx * l.grid.dx);
  for (Index p = 0; p < l.particles.cols(); ++p) {
    const Vec3 x = l.particles.col(p);
    const Vec3i c = l.grid.cell_of(x);
    const Index cell = l.liquid_phi.index(c.x(), c.y(), c.z());
    const auto it = held.find(cell);
    if (it == held.end()) continue;
    const int r = region_of(cell, x);
    if (r >= 0 && r < static_cast<int>(it->second.size())) it->second[static_cast<std::size_t>(r)] += share;
  }
  return held;
}

}  // namespace

Real liquid_volume(const Liquid& l, const RegionOf& region_of, const MeasureRegions& measure) {
  if ((l.split.samples.empty() && l.split.partial.empty()) || !region_of) return liquid_volume(l);
  const grid::MacGrid& g = l.grid;
  const std::unordered_map<Index, std::vector<Real>> held = held_volume(l, region_of);
  std::vector<Index> wet;
  for (const auto& [cell, h] : held)
    if (std::any_of(h.begin(), h.end(), [](Real v) { return v > 0; })) wet.push_back(cell);
  std::sort(wet.begin(), wet.end());
  const RegionVolumes volumes = measure(wet);
  const auto volume_of = [&](Index cell, int r) {
    const auto it = volumes.find(cell);
    return it == volumes.end() || r >= static_cast<int>(it->second.size()) ? Real(0)
                                                                           : it->second[static_cast<std::size_t>(r)];
  };
  levelset::CountedApart apart;
  apart.cells.resize(g.cell_shape());
  apart.cells.fill(0);
  for (const auto& [cell, h] : held) apart.cells[cell] = 1;
  // rho of region r of cell c, or of the cell when it is not counted apart.
  const auto density = [&](const grid::Array3<Real>& rho, const Vec3i& c, int r) {
    const Index cell = apart.cells.index(c.x(), c.y(), c.z());
    if (!apart.cells[cell]) return rho[cell];
    const Real v = volume_of(cell, r);
    return v > 0 ? held.at(cell)[static_cast<std::size_t>(r)] / v : Real(0);
  };
  // Whether every region or cell that the open pieces of the face of c on
  // `side` of `axis` join to c's region r is bulk.
  const auto bulk_beyond = [&](const grid::Array3<Real>& rho, const Vec3i& c, int r, int axis, int side) {
    Vec3i nb = c;
    nb[axis] += side;
    if (!apart.cells.inside(nb.x(), nb.y(), nb.z())) return true;
    const Vec3i f = side > 0 ? nb : c;
    const std::vector<cutcell::FacePiece>* pieces = l.split.pieces(axis, l.fractions[axis].index(f.x(), f.y(), f.z()));
    if (!pieces) return true;  // closed: every open face beside a split cell has pieces
    for (const cutcell::FacePiece& p : *pieces) {
      const int mine = side > 0 ? p.low : p.high, theirs = side > 0 ? p.high : p.low;
      if (mine == r && p.fraction > 0 && density(rho, nb, theirs) < 0.5) return false;
    }
    return true;
  };
  apart.bulk_across = [&](const grid::Array3<Real>& rho, const Vec3i& c, int axis, int side) {
    return bulk_beyond(rho, c, 0, axis, side);
  };
  apart.volume = [&](const grid::Array3<Real>& rho) {
    std::vector<Index> cells;
    for (const auto& [cell, h] : held) cells.push_back(cell);
    std::sort(cells.begin(), cells.end());  // the sum's order: thread- and hash-independent
    Real sum = 0;
    for (Index cell : cells) {
      const Vec3i c = apart.cells.coord(cell);
      const std::vector<Real>& h = held.at(cell);
      for (int r = 0; r < static_cast<int>(h.size()); ++r) {
        const Real v = volume_of(cell, r);
        bool interior = density(rho, c, r) >= 0.5;
        for (int a = 0; a < 3 && interior; ++a)
          for (int side : {-1, 1}) interior = interior && bulk_beyond(rho, c, r, a, side);
        sum += interior ? v : std::min(h[static_cast<std::size_t>(r)], v);
      }
    }
    return sum;
  };
  return levelset::liquid_volume_from_particles(g, l.particles, l.particle_volume, l.solid_phi, l.reach, &apart);
}

}  // namespace fsicut::fluid
