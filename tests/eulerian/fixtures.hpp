#pragma once
// Small grids and solids shared by the tests of lib/eulerian.
#include <algorithm>
#include <random>
#include <vector>

#include "lib/eulerian/corotated.hpp"
#include "lib/eulerian/elasticity.hpp"
#include "lib/eulerian/material_shape.hpp"
#include "lib/eulerian/q1.hpp"
#include "lib/eulerian/unknowns.hpp"

namespace fsicut::eulerian::test {

// n^3 cells of edge dx with the origin at 0.
inline grid::MacGrid cube_grid(int n, Real dx) {
  grid::MacGrid g;
  g.resolution = {n, n, n};
  g.origin = Vec3::Zero();
  g.dx = dx;
  return g;
}

inline std::vector<char> all_valid(const grid::MacGrid& grid) {
  return std::vector<char>(static_cast<std::size_t>(node_count(grid)), 1);
}

inline Vec3 node_position(const grid::MacGrid& grid, Index n) {
  return grid.origin + grid.dx * node_coord(grid, n).cast<Real>();
}

// The nodal field f(x) at every node.
template <class F>
NodeField sample_field(const grid::MacGrid& grid, const F& f) {
  NodeField out = zero_field(grid);
  for (Index n = 0; n < node_count(grid); ++n) out.segment<3>(3 * n) = f(node_position(grid, n));
  return out;
}

inline NodeField random_field(const grid::MacGrid& grid, std::mt19937& rng, Real amplitude = 1) {
  std::uniform_real_distribution<Real> d(-amplitude, amplitude);
  NodeField out = zero_field(grid);
  for (Index i = 0; i < out.size(); ++i) out[i] = d(rng);
  return out;
}

// A solid ball as its material shape (sampled on `grid`).
inline MaterialShape ball(const grid::MacGrid& grid, const Vec3& center, Real radius) {
  return sample_material_shape(grid, levelset::sphere_solid(center, radius));
}

// A material shape that covers the whole grid (every Gauss point fully solid).
inline MaterialShape everywhere(const grid::MacGrid& grid) {
  return sample_material_shape(grid, [](const Vec3&) { return Real(-1e3); });
}

// A ball touching two walls (their nodes are not unknowns) on 8^3 cells, its
// node masses each scaled by a factor drawn from [0.5, 2) by `rng`, then its
// cells (the pressure rows) shuffled by `rng`.
struct ShuffledBall {
  grid::MacGrid grid;
  std::vector<Vec3i> cells;
  Unknowns unknowns;
  Vector mass;  // per unknown
};

inline ShuffledBall shuffled_ball(std::mt19937& rng) {
  ShuffledBall b;
  b.grid = cube_grid(8, 0.125);
  const MaterialShape shape = ball(b.grid, Vec3(0.3, 0.3, 0.5), 0.3);
  const ElasticState s =
      evaluate_elasticity(b.grid, zero_field(b.grid), all_valid(b.grid), shape, lame_from_young(1e5, 0.3));
  std::vector<Real> node_mass = lumped_masses(b.grid, s, 1000);
  std::uniform_real_distribution<Real> factor(0.5, 2);
  for (Real& m : node_mass) m *= factor(rng);
  b.unknowns = make_unknowns(b.grid, node_mass);
  b.mass = gather_mass(b.unknowns, node_mass);
  b.cells = s.cells;
  std::shuffle(b.cells.begin(), b.cells.end(), rng);
  return b;
}

// A rotation by `angle` about `axis` (normalized here).
inline Mat3 rotation(Real angle, const Vec3& axis) { return Eigen::AngleAxisd(angle, axis.normalized()).matrix(); }

}  // namespace fsicut::eulerian::test
