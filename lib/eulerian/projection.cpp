#include "lib/eulerian/projection.hpp"

#include <array>
#include <cmath>

#include "lib/core/parallel.hpp"
#include "lib/linsolve/minres.hpp"
#include "lib/linsolve/sparse.hpp"

namespace fsicut::eulerian {

namespace {

template <class F>
void each_cell(const grid::MacGrid& grid, const F& body) {
  for (int k = 0; k < grid.resolution.z(); ++k)
    for (int j = 0; j < grid.resolution.y(); ++j)
      for (int i = 0; i < grid.resolution.x(); ++i) body(Vec3i(i, j, k));
}

}  // namespace

Vector divergence(const grid::MacGrid& grid, const NodeField& v) {
  Vector out = Vector::Zero(grid.cell_count());
  const Real scale = grid.dx * grid.dx / 4;
  each_cell(grid, [&](const Vec3i& c) {
    Real sum = 0;
    for (int q = 0; q < CORNERS; ++q) {
      const Vec3 value = node_value(v, corner_node(grid, c, q));
      for (int a = 0; a < 3; ++a) sum += corner_sign(q, a) * value[a];
    }
    out[cell_index(grid, c)] = scale * sum;
  });
  return out;
}

NodeField divergence_transpose(const grid::MacGrid& grid, const Vector& p) {
  NodeField out = zero_field(grid);
  const Real scale = grid.dx * grid.dx / 4;
  each_cell(grid, [&](const Vec3i& c) {
    const Real value = scale * p[cell_index(grid, c)];
    for (int q = 0; q < CORNERS; ++q) {
      const Index n = corner_node(grid, c, q);
      for (int a = 0; a < 3; ++a) out[3 * n + a] += corner_sign(q, a) * value;
    }
  });
  return out;
}

linsolve::SparseMatrix divergence_matrix(const grid::MacGrid& grid, const std::vector<Vec3i>& cells,
                                         const Unknowns& unknowns) {
  // Inserted row by row in increasing column order (corner q's node index,
  // hence its unknown, grows with q): no sort, no second copy.
  const Real scale = grid.dx * grid.dx / 4;
  linsolve::SparseMatrix J(static_cast<Index>(cells.size()), unknowns.dofs());
  J.reserve(Eigen::VectorXi::Constant(J.rows(), 3 * CORNERS));
  for (std::size_t r = 0; r < cells.size(); ++r)
    for (int q = 0; q < CORNERS; ++q) {
      const Index k = unknowns.of_node[corner_node(grid, cells[r], q)];
      if (k < 0) continue;
      for (int a = 0; a < 3; ++a) J.insert(static_cast<Index>(r), 3 * k + a) = scale * corner_sign(q, a);
    }
  J.makeCompressed();
  return J;
}

Vector volume_drift_rates(const grid::MacGrid& grid, const ElasticState& state, Real dt, Real relaxation) {
  const Index cells = static_cast<Index>(state.cells.size());
  Vector b = Vector::Zero(cells);
  if (relaxation == 0) return b;
  const Real share = GAUSS_WEIGHT * grid.dx * grid.dx * grid.dx;
  for (Index c = 0; c < cells; ++c)
    for (Index k = state.first[c]; k < state.first[c + 1]; ++k) {
      const QuadraturePoint& p = state.points[k];
      // det F = (dx^3 / 8) / V_g at the point (deformation.hpp, elasticity.hpp).
      b[c] += p.fraction * share * std::log(p.reference_volume / share);
    }
  return relaxation / dt * b;
}

linsolve::SparseMatrix pressure_matrix(const grid::MacGrid& grid, const std::vector<Vec3i>& cells,
                                       const Unknowns& unknowns, const Vector& mass) {
  const Index rows = static_cast<Index>(cells.size());
  std::vector<Index> row_of_cell(static_cast<std::size_t>(grid.cell_count()), -1);
  for (Index r = 0; r < rows; ++r) row_of_cell[cell_index(grid, cells[r])] = r;
  const Real scale = grid.dx * grid.dx / 4;
  // Per row, the 27 neighbour offsets (dx + 1) + 3 (dy + 1) + 9 (dz + 1).
  std::vector<std::array<Real, 27>> values(static_cast<std::size_t>(rows));
  std::vector<std::array<char, 27>> present(static_cast<std::size_t>(rows));
  parallel_for(0, rows, [&](Index r) {
    values[r].fill(0);
    present[r].fill(0);
    const Vec3i& c = cells[r];
    for (int q = 0; q < CORNERS; ++q) {
      const Vec3i node = c + corner_offset(q);
      const Index k = unknowns.of_node[node_index(grid, node)];
      if (k < 0) continue;
      const Real weight = scale * scale / mass[3 * k];
      for (int q2 = 0; q2 < CORNERS; ++q2) {
        const Vec3i other = node - corner_offset(q2);  // the cell holding `node` as its corner q2
        if ((other.array() < 0).any() || (other.array() >= grid.resolution.array()).any()) continue;
        if (row_of_cell[cell_index(grid, other)] < 0) continue;
        Real dot = 0;
        for (int a = 0; a < 3; ++a) dot += corner_sign(q, a) * corner_sign(q2, a);
        const Vec3i d = other - c;
        const int slot = (d.x() + 1) + 3 * (d.y() + 1) + 9 * (d.z() + 1);
        values[r][slot] += weight * dot;
        present[r][slot] = 1;
      }
    }
  });
  linsolve::SparseMatrix A(rows, rows);
  Eigen::VectorXi per_row(rows);
  for (Index r = 0; r < rows; ++r) {
    int n = 0;
    for (int slot = 0; slot < 27; ++slot) n += present[r][slot];
    per_row[r] = n;
  }
  A.reserve(per_row);
  for (Index r = 0; r < rows; ++r) {
    // Slots in increasing column order: the cell index grows with dz, dy, dx.
    for (int slot = 0; slot < 27; ++slot) {
      if (!present[r][slot]) continue;
      const Vec3i d(slot % 3 - 1, (slot / 3) % 3 - 1, slot / 9 - 1);
      A.insert(r, row_of_cell[cell_index(grid, cells[r] + d)]) = values[r][slot];
    }
  }
  A.makeCompressed();
  return A;
}

linsolve::Report solve_pressure(const linsolve::SparseMatrix& A, const linsolve::SparseMatrix& J, const Vector& b,
                                const Vector& v_star, Vector& p, const ProjectionSettings& settings) {
  if (J.rows() == 0) {
    p.resize(0);
    return linsolve::nothing_to_solve();
  }
  linsolve::PcgSettings pcg;
  pcg.tolerance = settings.tolerance;
  pcg.max_iterations = settings.max_iterations;
  pcg.preconditioner = linsolve::Preconditioner::jacobi;
  if (p.size() != J.rows()) p.setZero(J.rows());
  return linsolve::solve_pcg(A, J * v_star - b, p, pcg);
}

linsolve::Report solve_pressure(const linsolve::SparseMatrix& J, const Vector& mass, const Vector& b,
                                const Vector& v_star, Vector& p, const ProjectionSettings& settings) {
  if (J.rows() == 0) {
    p.resize(0);
    return linsolve::nothing_to_solve();
  }
  // J M^-1 by scaling a copy's values in place: Eigen's sparse-times-diagonal
  // assignment into a row-major matrix inserts entry by entry and moved
  // memory for 0.8 of the 1 s a 32 x 38 x 32 smoke box's frame took.
  linsolve::SparseMatrix JM = J;
  for (Index r = 0; r < JM.outerSize(); ++r)
    for (linsolve::SparseMatrix::InnerIterator it(JM, r); it; ++it) it.valueRef() /= mass[it.col()];
  return solve_pressure(linsolve::product(JM, linsolve::transposed(J)), J, b, v_star, p, settings);
}

linsolve::Report correct_velocity(const linsolve::SparseMatrix& J, const Vector& mass, const linsolve::SparseMatrix& G,
                                  const Vector& p, Vector& v, const ProjectionSettings& settings) {
  if (J.rows() == 0) return linsolve::nothing_to_solve();
  return correct_velocity(Vector(J.transpose() * p), mass, G, v, settings);
}

linsolve::Report correct_velocity(const Vector& impulse, const Vector& mass, const linsolve::SparseMatrix& G, Vector& v,
                                  const ProjectionSettings& settings) {
  Vector delta = impulse.cwiseQuotient(mass);
  linsolve::Report report = linsolve::nothing_to_solve();
  if (settings.correction == Correction::system) {
    linsolve::PcgSettings pcg;
    pcg.tolerance = settings.correction_tolerance;
    pcg.max_iterations = settings.max_iterations;
    pcg.preconditioner = linsolve::Preconditioner::jacobi;
    report = linsolve::solve_pcg(G, impulse, delta, pcg);
  }
  v -= delta;
  return report;
}

linsolve::Report solve_kkt(const linsolve::SparseMatrix& G, const linsolve::SparseMatrix& J, const Vector& rhs,
                           const Vector& b, Vector& v, Vector& p, Real tolerance, int max_iterations) {
  const Index n = G.rows(), m = J.rows();
  const Vector g_diag = G.diagonal();
  // diag(J diag(G)^-1 J^T), and the scale alpha that brings it to diag(G)'s size.
  Vector s_diag = Vector::Zero(m);
  for (Index r = 0; r < m; ++r)
    for (linsolve::SparseMatrix::InnerIterator it(J, r); it; ++it) s_diag[r] += it.value() * it.value() / g_diag[it.col()];
  const Real alpha = m > 0 ? std::sqrt(g_diag.mean() / std::max(s_diag.mean(), Real(1e-300))) : 1;
  const auto apply = [&](const Vector& x, Vector& y) {
    y.resize(n + m);
    y.head(n) = G * x.head(n) + alpha * (J.transpose() * x.tail(m));
    y.tail(m) = alpha * (J * x.head(n));
  };
  const auto precondition = [&](const Vector& r, Vector& z) {
    z.resize(n + m);
    z.head(n) = r.head(n).cwiseQuotient(g_diag);
    for (Index k = 0; k < m; ++k) z[n + k] = s_diag[k] > 0 ? r[n + k] / (alpha * alpha * s_diag[k]) : r[n + k];
  };
  Vector x(n + m), right(n + m);
  x.head(n) = v.size() == n ? v : Vector::Zero(n);
  x.tail(m) = p.size() == m ? Vector(p / alpha) : Vector::Zero(m);
  right.head(n) = rhs;
  right.tail(m) = alpha * b;
  const linsolve::Report report = linsolve::solve_minres(apply, precondition, right, x, {tolerance, max_iterations});
  v = x.head(n);
  p = alpha * x.tail(m);
  return report;
}

}  // namespace fsicut::eulerian
