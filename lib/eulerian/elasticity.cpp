#include "lib/eulerian/elasticity.hpp"

#include <cmath>
#include <string>

#include <Eigen/LU>

#include "lib/core/error.hpp"
#include "lib/core/parallel.hpp"
#include "lib/eulerian/deformation.hpp"
#include "lib/eulerian/plasticity.hpp"

namespace fsicut::eulerian {

namespace {

// The smallest |det Xbar| / dx^3 of a solid point. Why: below it the material
// cell the point stands for has collapsed and F = X Xbar^-1 is not a number
// the material model can use; the simulation has failed by then.
constexpr Real MIN_MATERIAL_DET = 1e-12;

// Loops below this many points run serially (shorter than an OpenMP fork).
constexpr Index MIN_PARALLEL_POINTS = 256;

// F_p Xbar, the Jacobian of the point's plastically relaxed rest shape
// (plasticity.hpp); Xbar itself where F_p = I.
Mat3 relaxed_jacobian(const grid::MacGrid& grid, const NodeField& u, const PlasticStrain* plastic,
                      const QuadraturePoint& p, const Mat3& Xbar) {
  if (!plastic) return Xbar;
  const Mat3 Fp = plastic_deformation(*plastic, material_point(grid, u, p.cell, gauss_point(p.gauss)));
  return Fp == Mat3::Identity() ? Xbar : Mat3(Fp * Xbar);
}

void fill_point(const grid::MacGrid& grid, const NodeField& u, const NodeField* moved, const Lame& lame,
                const PlasticStrain* plastic, QuadraturePoint& p) {
  const Vec3 xi = gauss_point(p.gauss);
  const Mat3 Xbar = material_jacobian(grid, u, p.cell, xi);
  const Real det = Xbar.determinant();
  if (!(std::abs(det) > MIN_MATERIAL_DET * grid.dx * grid.dx * grid.dx))
    throw SimulationError("eulerian solid: the reference map has collapsed in cell (" + std::to_string(p.cell.x()) +
                          ", " + std::to_string(p.cell.y()) + ", " + std::to_string(p.cell.z()) + ")");
  const Mat3 Xbar_inv = relaxed_jacobian(grid, u, plastic, p, Xbar).inverse();
  p.reference_volume = std::abs(det) * GAUSS_WEIGHT;
  const std::array<Vec3, CORNERS> local = shape_gradients(xi);
  for (int q = 0; q < CORNERS; ++q) p.gradients[q] = Xbar_inv.transpose() * local[q];
  p.model = CorotatedPoint(lame, world_jacobian(grid, moved, p.cell, xi) * Xbar_inv);
}

// The 9x9 matrix D of dP: D(3i+k, 3j+l) = dP_ik / dF_jl.
Eigen::Matrix<Real, 9, 9> differential_matrix(const CorotatedPoint& model) {
  Eigen::Matrix<Real, 9, 9> D;
  for (int j = 0; j < 3; ++j)
    for (int l = 0; l < 3; ++l) {
      const Mat3 dP = model.differential(Vec3::Unit(j) * Vec3::Unit(l).transpose());
      for (int i = 0; i < 3; ++i)
        for (int k = 0; k < 3; ++k) D(3 * i + k, 3 * j + l) = dP(i, k);
    }
  return D;
}

using ElementMatrix = Eigen::Matrix<Real, 3 * CORNERS, 3 * CORNERS>;

ElementMatrix element_stiffness(const ElasticState& state, Index c) {
  ElementMatrix Ke = ElementMatrix::Zero();
  for (Index k = state.first[c]; k < state.first[c + 1]; ++k) {
    const QuadraturePoint& p = state.points[k];
    const Eigen::Matrix<Real, 9, 9> D = p.fraction * p.reference_volume * differential_matrix(p.model);
    // B maps the 24 nodal values to vec(dF): dF_jl = sum_b w_bj g_b[l].
    Eigen::Matrix<Real, 9, 3 * CORNERS> B = Eigen::Matrix<Real, 9, 3 * CORNERS>::Zero();
    for (int b = 0; b < CORNERS; ++b)
      for (int j = 0; j < 3; ++j)
        for (int l = 0; l < 3; ++l) B(3 * j + l, 3 * b + j) = p.gradients[b][l];
    Ke.noalias() += B.transpose() * D * B;
  }
  return Ke;
}

// The 27 neighbours of a node (itself included), slot (dx+1) + 3 (dy+1) + 9 (dz+1):
// increasing slots are increasing node indices, so increasing unknowns.
constexpr int NEIGHBOURS = 27;
using NeighbourRanks = std::array<int, NEIGHBOURS>;

int neighbour_slot(const Vec3i& d) { return (d.x() + 1) + 3 * (d.y() + 1) + 9 * (d.z() + 1); }

// K's pattern: every unknown couples to the unknowns among its 27 neighbours
// (the nodes it shares a cell with), 3 x 3 entries each, zero-valued; rows
// sorted. ranks[k][slot]: the place of that neighbour among unknown k's
// neighbouring unknowns (-1: not an unknown), so row 3k+i holds column 3m+j
// of the neighbour of rank r at outer(3k+i) + 3r + j.
linsolve::SparseMatrix stencil_pattern(const grid::MacGrid& grid, const Unknowns& unknowns,
                                       std::vector<NeighbourRanks>& ranks) {
  const Index n = unknowns.size();
  ranks.assign(static_cast<std::size_t>(n), NeighbourRanks());
  std::vector<std::vector<int>> columns(static_cast<std::size_t>(n));
  const Vec3i shape = grid.node_shape();
  for (Index k = 0; k < n; ++k) {
    const Vec3i node = node_coord(grid, unknowns.nodes[k]);
    int rank = 0;
    for (int slot = 0; slot < NEIGHBOURS; ++slot) {
      const Vec3i other = node + Vec3i(slot % 3 - 1, (slot / 3) % 3 - 1, slot / 9 - 1);
      const bool inside = (other.array() >= 0).all() && (other.array() < shape.array()).all();
      const Index m = inside ? unknowns.of_node[node_index(grid, other)] : -1;
      ranks[k][slot] = m < 0 ? -1 : rank++;
      if (m >= 0) columns[k].push_back(static_cast<int>(m));
    }
  }
  linsolve::SparseMatrix K(3 * n, 3 * n);
  Eigen::VectorXi per_row(3 * n);
  for (Index k = 0; k < n; ++k) per_row.segment<3>(3 * k).setConstant(3 * static_cast<int>(columns[k].size()));
  K.reserve(per_row);
  for (Index k = 0; k < n; ++k)
    for (int i = 0; i < 3; ++i)
      for (int m : columns[k])
        for (int j = 0; j < 3; ++j) K.insert(3 * k + i, 3 * m + j) = 0;
  K.makeCompressed();
  return K;
}

}  // namespace

bool corners_valid(const grid::MacGrid& grid, const std::vector<char>& valid, const Vec3i& cell) {
  for (int q = 0; q < CORNERS; ++q)
    if (!valid[corner_node(grid, cell, q)]) return false;
  return true;
}

ElasticState evaluate_elasticity(const grid::MacGrid& grid, const NodeField& u, const std::vector<char>& valid,
                                 const MaterialShape& shape, const Lame& lame, const NodeField* moved,
                                 const PlasticStrain* plastic) {
  ElasticState state;
  for (int k = 0; k < grid.resolution.z(); ++k)
    for (int j = 0; j < grid.resolution.y(); ++j)
      for (int i = 0; i < grid.resolution.x(); ++i) {
        const Vec3i cell(i, j, k);
        if (!corners_valid(grid, valid, cell)) continue;
        const Index before = static_cast<Index>(state.points.size());
        for (int g = 0; g < GAUSS_POINTS; ++g) {
          const Real theta =
              fill_fraction(material_distance(shape, material_point(grid, u, cell, gauss_point(g))), grid.dx);
          if (theta <= 0) continue;
          QuadraturePoint p;
          p.gradients.fill(Vec3::Zero());
          p.cell = cell;
          p.gauss = g;
          p.fraction = theta;
          state.points.push_back(p);
        }
        if (static_cast<Index>(state.points.size()) == before) continue;
        state.cells.push_back(cell);
        state.first.push_back(before);
      }
  state.first.push_back(static_cast<Index>(state.points.size()));
  parallel_for_from(MIN_PARALLEL_POINTS, static_cast<Index>(state.points.size()),
                    [&](Index n) { fill_point(grid, u, moved, lame, plastic, state.points[n]); });
  for (const QuadraturePoint& p : state.points)
    if (p.model.determinant() <= 0) ++state.inverted;
  return state;
}

Real elastic_energy(const ElasticState& state) {
  Real e = 0;
  for (const QuadraturePoint& p : state.points) e += p.fraction * p.reference_volume * p.model.energy_density();
  return e;
}

NodeField elastic_forces(const grid::MacGrid& grid, const ElasticState& state) {
  NodeField f = zero_field(grid);
  for (const QuadraturePoint& p : state.points) {
    const Mat3 stress = p.fraction * p.reference_volume * p.model.first_piola();
    for (int q = 0; q < CORNERS; ++q) f.segment<3>(3 * corner_node(grid, p.cell, q)) -= stress * p.gradients[q];
  }
  return f;
}

NodeField stiffness_product(const grid::MacGrid& grid, const ElasticState& state, const NodeField& w) {
  NodeField out = zero_field(grid);
  for (const QuadraturePoint& p : state.points) {
    Mat3 dF = Mat3::Zero();
    for (int q = 0; q < CORNERS; ++q)
      dF += node_value(w, corner_node(grid, p.cell, q)) * p.gradients[q].transpose();
    const Mat3 dP = p.fraction * p.reference_volume * p.model.differential(dF);
    for (int q = 0; q < CORNERS; ++q) out.segment<3>(3 * corner_node(grid, p.cell, q)) += dP * p.gradients[q];
  }
  return out;
}

linsolve::SparseMatrix assemble_stiffness(const grid::MacGrid& grid, const ElasticState& state,
                                          const Unknowns& unknowns) {
  const Index cells = static_cast<Index>(state.cells.size());
  std::vector<ElementMatrix, Eigen::aligned_allocator<ElementMatrix>> blocks(static_cast<std::size_t>(cells));
  parallel_for_from(MIN_PARALLEL_POINTS / GAUSS_POINTS, cells, [&](Index c) { blocks[c] = element_stiffness(state, c); });
  std::vector<NeighbourRanks> ranks;
  linsolve::SparseMatrix K = stencil_pattern(grid, unknowns, ranks);
  Real* values = K.valuePtr();
  const int* rows = K.outerIndexPtr();
  // Serial: neighbouring cells add into the same entries.
  for (Index c = 0; c < cells; ++c)
    for (int q = 0; q < CORNERS; ++q) {
      const Index row = unknowns.of_node[corner_node(grid, state.cells[c], q)];
      if (row < 0) continue;
      for (int b = 0; b < CORNERS; ++b) {
        const int rank = ranks[row][neighbour_slot(corner_offset(b) - corner_offset(q))];
        if (rank < 0) continue;
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j) values[rows[3 * row + i] + 3 * rank + j] += blocks[c](3 * q + i, 3 * b + j);
      }
    }
  return K;
}

std::vector<Real> lumped_masses(const grid::MacGrid& grid, const ElasticState& state, Real density) {
  std::vector<Real> m(static_cast<std::size_t>(node_count(grid)), 0.0);
  for (const QuadraturePoint& p : state.points) {
    const std::array<Real, CORNERS> n = shape_values(gauss_point(p.gauss));
    for (int q = 0; q < CORNERS; ++q) m[corner_node(grid, p.cell, q)] += density * p.fraction * p.reference_volume * n[q];
  }
  return m;
}

Real solid_volume(const grid::MacGrid& grid, const ElasticState& state) {
  Real v = 0;
  for (const QuadraturePoint& p : state.points) v += p.fraction;
  return v * GAUSS_WEIGHT * grid.dx * grid.dx * grid.dx;
}

}  // namespace fsicut::eulerian
