#include "lib/fluid/packing.hpp"

#include "lib/core/parallel.hpp"

namespace fsicut::fluid {
namespace {

bool deep(const grid::Array3<int>& count, const Vec3i& c, Real half) {
  const Vec3i n = count.size();
  for (int a = 0; a < 3; ++a)
    if (c[a] < 1 || c[a] > n[a] - 2) return false;
  for (int dk = -1; dk <= 1; ++dk)
    for (int dj = -1; dj <= 1; ++dj)
      for (int di = -1; di <= 1; ++di)
        if (count(c.x() + di, c.y() + dj, c.z() + dk) < half) return false;
  return true;
}

}  // namespace

Packing packing(const Liquid& l) {
  Packing out;
  const Index n = l.particles.cols();
  out.particle_volume = static_cast<Real>(n) * l.particle_volume;
  if (n == 0 || !(l.particle_volume > 0)) return out;
  const grid::MacGrid& g = l.grid;
  const Real seeded = g.dx * g.dx * g.dx / l.particle_volume;
  grid::Array3<int> count(g.cell_shape(), 0);
  for (Index p = 0; p < n; ++p) ++count(g.cell_of(l.particles.col(p)));
  grid::Array3<char> is_deep(count.size(), 0);
  parallel_for(0, count.count(), [&](Index idx) { is_deep[idx] = deep(count, count.coord(idx), 0.5 * seeded); });
  Index holding = 0, packed = 0, deep_cells = 0, deep_particles = 0;
  for (Index idx = 0; idx < count.count(); ++idx) {
    holding += count[idx] > 0;
    packed += count[idx] > PACKED_COUNT_FACTOR * seeded;
    if (is_deep[idx]) {
      ++deep_cells;
      deep_particles += count[idx];
    }
  }
  out.packed_cells = static_cast<Real>(packed) / static_cast<Real>(holding);
  if (deep_cells > 0) out.deep_density = static_cast<Real>(deep_particles) / (seeded * static_cast<Real>(deep_cells));
  return out;
}

}  // namespace fsicut::fluid
