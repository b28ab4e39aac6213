#include "lib/eulerian/material_shape.hpp"

#include <algorithm>

namespace fsicut::eulerian {

MaterialShape sample_material_shape(const grid::MacGrid& grid, const levelset::StaticSolid& solid) {
  return {grid, levelset::sample_solid_at_nodes(grid, solid)};
}

Real material_distance(const MaterialShape& shape, const Vec3& x_bar) {
  return grid::interpolate(shape.grid, shape.distance, grid::Sampling::node, x_bar);
}

Real fill_fraction(Real distance, Real dx) {
  const Real h = 0.5 * dx;
  return std::clamp(0.5 - distance / h, Real(0), Real(1));
}

bool inside(const MaterialShape& shape, const grid::MacGrid& grid, const NodeField& u, const Vec3& x) {
  return material_distance(shape, x - interpolate(grid, u, x)) < 0;
}

}  // namespace fsicut::eulerian
