#pragma once
// Small grids and solids shared by the tests of lib/eulerian.
#include <random>
#include <vector>

#include "lib/eulerian/material_shape.hpp"
#include "lib/eulerian/q1.hpp"

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

// A rotation by `angle` about `axis` (normalized here).
inline Mat3 rotation(Real angle, const Vec3& axis) { return Eigen::AngleAxisd(angle, axis.normalized()).matrix(); }

}  // namespace fsicut::eulerian::test
