#include "lib/fluid/volume.hpp"

#include <algorithm>
#include <utility>

namespace fsicut::fluid {
namespace {

// m[cell][r], 0 when not listed.
Real entry(const std::unordered_map<Index, std::vector<Real>>& m, Index cell, int r) {
  const auto it = m.find(cell);
  return it == m.end() || r >= static_cast<int>(it->second.size()) ? Real(0) : it->second[static_cast<std::size_t>(r)];
}

}  // namespace

Real liquid_volume(const Liquid& l, const RegionOf& region_of, const MeasureRegions& measure) {
  if ((l.split.samples.empty() && l.split.partial.empty()) || !region_of) return liquid_volume(l);
  const grid::MacGrid& g = l.grid;
  // The cells counted apart, in order (the sum's order: thread- and hash-independent).
  std::vector<Index> split;
  for (const auto* cells : {&l.split.samples, &l.split.partial})
    for (const auto& [cell, label] : *cells) split.push_back(cell);
  std::sort(split.begin(), split.end());
  // The cells counted apart that a particle's kernel reaches.
  grid::Array3<char> reached(g.cell_shape(), 0);
  for (Index p = 0; p < l.particles.cols(); ++p) reached(g.cell_of(l.particles.col(p))) = 1;
  grid::dilate(reached, 1);
  std::vector<Index> wet;
  for (Index cell : split)
    if (reached[cell]) wet.push_back(cell);
  const RegionVolumes volumes = measure(wet);
  const auto volume_of = [&](Index cell, int r) { return entry(volumes, cell, r); };
  using Densities = levelset::CountedApart::Densities;
  levelset::CountedApart apart;
  apart.cells.resize(g.cell_shape());
  apart.cells.fill(0);
  for (Index cell : split) apart.cells[cell] = 1;
  // rho of region r of cell c, or of the cell when it is not counted apart.
  const auto density = [&](const Densities& d, const Vec3i& c, int r) {
    const Index cell = apart.cells.index(c.x(), c.y(), c.z());
    if (!apart.cells[cell]) return d.rho[cell];
    const Real v = volume_of(cell, r);
    return v > 0 ? entry(d.shares, cell, r) / v : Real(0);
  };
  // Whether every region or cell that the open pieces of the face of c on
  // `side` of `axis` join to c's region r is bulk.
  const auto bulk_beyond = [&](const Densities& d, const Vec3i& c, int r, int axis, int side) {
    Vec3i nb = c;
    nb[axis] += side;
    if (!apart.cells.inside(nb.x(), nb.y(), nb.z())) return true;
    const Vec3i f = side > 0 ? nb : c;
    const std::vector<cutcell::FacePiece>* pieces = l.split.pieces(axis, l.fractions[axis].index(f.x(), f.y(), f.z()));
    if (!pieces) return true;  // closed: every open face beside a split cell has pieces
    for (const cutcell::FacePiece& p : *pieces) {
      const int mine = side > 0 ? p.low : p.high, theirs = side > 0 ? p.high : p.low;
      if (mine == r && p.fraction > 0 && density(d, nb, theirs) < 0.5) return false;
    }
    return true;
  };
  apart.bulk_across = [&](const Densities& d, const Vec3i& c, int axis, int side) {
    return bulk_beyond(d, c, 0, axis, side);
  };
  apart.region = [&](Index cell, const Vec3& x) {
    const int r = region_of(cell, x);
    return std::make_pair(r, r < 0 ? Real(0) : volume_of(cell, r));
  };
  apart.volume = [&](const Densities& d) {
    Real sum = 0;
    for (Index cell : split) {
      const Vec3i c = apart.cells.coord(cell);
      for (int r = 0; r < l.split.count(cell); ++r) {
        bool interior = density(d, c, r) >= 0.5;
        for (int a = 0; a < 3 && interior; ++a)
          for (int side : {-1, 1}) interior = interior && bulk_beyond(d, c, r, a, side);
        const Real v = volume_of(cell, r);
        sum += interior ? v : std::min(entry(d.shares, cell, r), v);
      }
    }
    return sum;
  };
  return levelset::liquid_volume_from_particles(g, l.particles, l.particle_volume, l.solid_phi, l.reach, &apart);
}

}  // namespace fsicut::fluid
