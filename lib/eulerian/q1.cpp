#include "lib/eulerian/q1.hpp"

#include <algorithm>
#include <cmath>

namespace fsicut::eulerian {

Vec3 gauss_point(int g) {
  const Real offset = 0.5 / std::sqrt(3.0);
  Vec3 xi;
  for (int a = 0; a < 3; ++a) xi[a] = ((g >> a) & 1) ? 0.5 + offset : 0.5 - offset;
  return xi;
}

std::array<Real, CORNERS> shape_values(const Vec3& xi) {
  std::array<Real, CORNERS> n;
  for (int q = 0; q < CORNERS; ++q) {
    Real v = 1;
    for (int a = 0; a < 3; ++a) v *= ((q >> a) & 1) ? xi[a] : 1 - xi[a];
    n[q] = v;
  }
  return n;
}

std::array<Vec3, CORNERS> shape_gradients(const Vec3& xi) {
  std::array<Vec3, CORNERS> g;
  for (int q = 0; q < CORNERS; ++q)
    for (int a = 0; a < 3; ++a) {
      Real v = ((q >> a) & 1) ? 1 : -1;
      for (int b = 0; b < 3; ++b)
        if (b != a) v *= ((q >> b) & 1) ? xi[b] : 1 - xi[b];
      g[q][a] = v;
    }
  return g;
}

NodeField zero_field(const grid::MacGrid& grid) { return NodeField::Zero(3 * node_count(grid)); }

Mat3 local_gradient(const grid::MacGrid& grid, const NodeField& field, const Vec3i& cell, const Vec3& xi) {
  const std::array<Vec3, CORNERS> g = shape_gradients(xi);
  Mat3 out = Mat3::Zero();
  for (int q = 0; q < CORNERS; ++q) out += node_value(field, corner_node(grid, cell, q)) * g[q].transpose();
  return out;
}

Vec3i locate(const grid::MacGrid& grid, const Vec3& x, Vec3& xi) {
  Vec3 local = (x - grid.origin) / grid.dx;
  Vec3i cell;
  for (int a = 0; a < 3; ++a) {
    local[a] = std::clamp(local[a], Real(0), Real(grid.resolution[a]));
    cell[a] = std::min(static_cast<int>(std::floor(local[a])), grid.resolution[a] - 1);
  }
  xi = local - cell.cast<Real>();
  return cell;
}

Vec3 interpolate(const grid::MacGrid& grid, const NodeField& field, const Vec3& x) {
  Vec3 xi;
  const Vec3i cell = locate(grid, x, xi);
  const std::array<Real, CORNERS> n = shape_values(xi);
  Vec3 out = Vec3::Zero();
  for (int q = 0; q < CORNERS; ++q) out += n[q] * node_value(field, corner_node(grid, cell, q));
  return out;
}

}  // namespace fsicut::eulerian
