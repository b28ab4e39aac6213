#include "lib/eulerian/pressure_operator.hpp"

#include <algorithm>

#include "lib/core/parallel.hpp"

namespace fsicut::eulerian {

PressureOperator::PressureOperator(const grid::MacGrid& grid, const std::vector<Vec3i>& cells,
                                   const Unknowns& unknowns, const Vector& mass)
    : grid_(grid), unknowns_(&unknowns) {
  cells_.reserve(cells.size());
  for (const Vec3i& c : cells) cells_.push_back(cell_index(grid, c));
  const Real scale = grid.dx * grid.dx / 4;
  weight_.assign(static_cast<std::size_t>(node_count(grid)), 0.0);
  for (Index k = 0; k < unknowns.size(); ++k) weight_[unknowns.nodes[k]] = scale * scale / mass[3 * k];
  p_full_.assign(static_cast<std::size_t>(grid.cell_count()), 0.0);
  nodal_.assign(static_cast<std::size_t>(3 * node_count(grid)), 0.0);
}

void PressureOperator::spread(const Vector& p) const {
  const Vec3i n = grid_.resolution;
  const Index sx = n.x(), sy = n.y();
  parallel_for(0, rows(), [&](Index r) { p_full_[cells_[r]] = p[r]; });
  // Node (i, j, k) is corner (1 - di, 1 - dj, 1 - dk) of cell (i - 1 + di, ...):
  // its sign along x is + from the cells below it (di = 0), - from those above.
  parallel_for(0, static_cast<Index>(n.z() + 1), [&](Index k) {
    for (int j = 0; j <= n.y(); ++j)
      for (int i = 0; i <= n.x(); ++i) {
        const Index node = i + (sx + 1) * (j + (sy + 1) * k);
        Real* g = &nodal_[3 * node];
        const Real w = weight_[node];
        if (w == 0) {
          g[0] = g[1] = g[2] = 0;
          continue;
        }
        Real gx = 0, gy = 0, gz = 0;
        for (int dk = 0; dk < 2; ++dk) {
          const Index ck = k - 1 + dk;
          if (ck < 0 || ck >= n.z()) continue;
          for (int dj = 0; dj < 2; ++dj) {
            const Index cj = j - 1 + dj;
            if (cj < 0 || cj >= n.y()) continue;
            for (int di = 0; di < 2; ++di) {
              const Index ci = i - 1 + di;
              if (ci < 0 || ci >= n.x()) continue;
              const Real value = p_full_[ci + sx * (cj + sy * ck)];
              gx += di ? -value : value;
              gy += dj ? -value : value;
              gz += dk ? -value : value;
            }
          }
        }
        g[0] = w * gx;
        g[1] = w * gy;
        g[2] = w * gz;
      }
  });
}

void PressureOperator::apply(const Vector& p, Vector& y) const {
  spread(p);
  y.resize(rows());
  const Vec3i n = grid_.resolution;
  const Index sx = n.x(), sy = n.y();
  parallel_for(0, rows(), [&](Index r) {
    const Index c = cells_[r];
    const Index ci = c % sx, cj = (c / sx) % sy, ck = c / (sx * sy);
    Real sum = 0;
    for (int q = 0; q < CORNERS; ++q) {
      const Index node = (ci + (q & 1)) + (sx + 1) * ((cj + ((q >> 1) & 1)) + (sy + 1) * (ck + ((q >> 2) & 1)));
      const Real* g = &nodal_[3 * node];
      sum += corner_sign(q, 0) * g[0] + corner_sign(q, 1) * g[1] + corner_sign(q, 2) * g[2];
    }
    y[r] = sum;
  });
  // Leave the work grid as found: zero off the rows.
  parallel_for(0, rows(), [&](Index r) { p_full_[cells_[r]] = 0; });
}

Vector PressureOperator::diagonal() const {
  Vector d(rows());
  const Vec3i n = grid_.resolution;
  const Index sx = n.x(), sy = n.y();
  parallel_for(0, rows(), [&](Index r) {
    const Index c = cells_[r];
    const Index ci = c % sx, cj = (c / sx) % sy, ck = c / (sx * sy);
    Real sum = 0;
    for (int q = 0; q < CORNERS; ++q)
      sum += 3 * weight_[(ci + (q & 1)) + (sx + 1) * ((cj + ((q >> 1) & 1)) + (sy + 1) * (ck + ((q >> 2) & 1)))];
    d[r] = sum;
  });
  return d;
}

Vector PressureOperator::divergence(const Vector& v) const {
  Vector y(rows());
  const Real scale = grid_.dx * grid_.dx / 4;
  const Vec3i n = grid_.resolution;
  const Index sx = n.x(), sy = n.y();
  parallel_for(0, rows(), [&](Index r) {
    const Index c = cells_[r];
    const Index ci = c % sx, cj = (c / sx) % sy, ck = c / (sx * sy);
    Real sum = 0;
    for (int q = 0; q < CORNERS; ++q) {
      const Index k = unknowns_->of_node[(ci + (q & 1)) + (sx + 1) * ((cj + ((q >> 1) & 1)) + (sy + 1) * (ck + ((q >> 2) & 1)))];
      if (k < 0) continue;
      for (int a = 0; a < 3; ++a) sum += corner_sign(q, a) * v[3 * k + a];
    }
    y[r] = scale * sum;
  });
  return y;
}

Vector PressureOperator::transpose(const Vector& p) const {
  const Vec3i n = grid_.resolution;
  const Index sx = n.x(), sy = n.y();
  const Real scale = grid_.dx * grid_.dx / 4;
  parallel_for(0, rows(), [&](Index r) { p_full_[cells_[r]] = p[r]; });
  Vector out(unknowns_->dofs());
  parallel_for(0, unknowns_->size(), [&](Index u) {
    const Vec3i node = node_coord(grid_, unknowns_->nodes[u]);
    Vec3 g = Vec3::Zero();
    for (int q = 0; q < CORNERS; ++q) {
      const Vec3i cell = node - corner_offset(q);  // the cell holding `node` as its corner q
      if ((cell.array() < 0).any() || (cell.array() >= n.array()).any()) continue;
      const Real value = p_full_[cell.x() + sx * (cell.y() + sy * cell.z())];
      for (int a = 0; a < 3; ++a) g[a] += corner_sign(q, a) * value;
    }
    out.segment<3>(3 * u) = scale * g;
  });
  parallel_for(0, rows(), [&](Index r) { p_full_[cells_[r]] = 0; });
  return out;
}

linsolve::Report solve_pressure(const PressureOperator& A, const Vector& b, const Vector& v_star, Vector& p,
                                const ProjectionSettings& settings) {
  if (A.rows() == 0) {
    p.resize(0);
    return linsolve::nothing_to_solve();
  }
  // A cell with no unknown corner has a zero row; Eigen's Jacobi takes 1 there, so do we.
  const Vector inverse = A.diagonal().unaryExpr([](Real d) { return d > 0 ? 1 / d : Real(1); });
  linsolve::PcgSettings pcg;
  pcg.tolerance = settings.tolerance;
  pcg.max_iterations = settings.max_iterations;
  if (p.size() != A.rows()) p.setZero(A.rows());
  return linsolve::solve_pcg([&A](const Vector& x, Vector& y) { A.apply(x, y); }, A.divergence(v_star) - b, p, pcg,
                             [&inverse](const Vector& r, Vector& z) { z = inverse.cwiseProduct(r); });
}

}  // namespace fsicut::eulerian
