#include "lib/eulerian/deformation.hpp"

#include <cmath>
#include <Eigen/LU>

#include "lib/core/error.hpp"

namespace fsicut::eulerian {

namespace {

// The smallest |det(I - du/dx)| (= 1 / |det F|) taken as a map. Why: below it
// the reference map has collapsed a direction to round-off and F = 1e12 or more.
constexpr Real MIN_DETERMINANT = 1e-12;

}  // namespace

Vec3 material_point(const grid::MacGrid& grid, const NodeField& u, const Vec3i& cell, const Vec3& xi) {
  const std::array<Real, CORNERS> n = shape_values(xi);
  Vec3 x_bar = grid.origin + grid.dx * (cell.cast<Real>() + xi);
  for (int q = 0; q < CORNERS; ++q) x_bar -= n[q] * node_value(u, corner_node(grid, cell, q));
  return x_bar;
}

Mat3 material_jacobian(const grid::MacGrid& grid, const NodeField& u, const Vec3i& cell, const Vec3& xi) {
  return grid.dx * Mat3::Identity() - local_gradient(grid, u, cell, xi);
}

Mat3 world_jacobian(const grid::MacGrid& grid, const NodeField* moved, const Vec3i& cell, const Vec3& xi) {
  Mat3 X = grid.dx * Mat3::Identity();
  if (moved) X += local_gradient(grid, *moved, cell, xi);
  return X;
}

Mat3 deformation_gradient(const grid::MacGrid& grid, const NodeField& u, const Vec3i& cell, const Vec3& xi) {
  const Mat3 inverse_F = Mat3::Identity() - local_gradient(grid, u, cell, xi) / grid.dx;
  const Real det = inverse_F.determinant();
  if (!(std::abs(det) > MIN_DETERMINANT) || !std::isfinite(det))
    throw SimulationError("eulerian solid: the reference map is singular in cell (" + std::to_string(cell.x()) + ", " +
                          std::to_string(cell.y()) + ", " + std::to_string(cell.z()) + ")");
  return inverse_F.inverse();
}

}  // namespace fsicut::eulerian
