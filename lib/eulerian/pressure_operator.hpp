#pragma once
// Eq. 12's matrix J M^-1 J^T applied on the fly (matrix-free), with J and
// J^T themselves, for the primal-dual solve of a world step (world.cpp).
//
// Same rows, columns and values as pressure_matrix and divergence_matrix
// (projection.hpp): rows are the constrained cells, columns the unknowns,
// the corners that are not unknowns (walls, inflows) dropped. Written out,
//   (J M^-1 J^T p)_c = sum_{q corner of c} w_q s(q in c) . sum_{c' around q} s(q in c') p_c',
// w_q = (dx^2/4)^2 / m_q for an unknown q (0 for any other node), s the
// corner signs (projection.hpp). Why matrix-free: the assembled matrix holds
// 27 entries per row (12 bytes each); a 64 x 75 x 64 smoke box's 307k rows
// made it 100 MB, read once per PCG iteration (about 10 ms on two cores,
// 64 iterations a step), and its assembly took a further 0.1 s a step. The
// stencil reads p and one 3-vector per node instead.
//
// Units: p [Pa s], velocities [m/s], masses [kg], J rows [m^3/s].
#include <vector>

#include "lib/eulerian/projection.hpp"
#include "lib/eulerian/unknowns.hpp"

namespace fsicut::eulerian {

class PressureOperator {
 public:
  // `cells`: the rows (distinct cells, any order); `mass`: 3U lumped masses
  // (equal over a node's three entries, > 0) [kg].
  PressureOperator(const grid::MacGrid& grid, const std::vector<Vec3i>& cells, const Unknowns& unknowns,
                   const Vector& mass);

  Index rows() const { return static_cast<Index>(cells_.size()); }

  // y = J M^-1 J^T p: #rows -> #rows [m^4/kg Pa s = m^3/s].
  void apply(const Vector& p, Vector& y) const;
  // The diagonal of J M^-1 J^T (#rows), for Jacobi: 3 sum_q w_q.
  Vector diagonal() const;
  // J v: 3U [m/s] -> #rows [m^3/s].
  Vector divergence(const Vector& v) const;
  // J^T p: #rows -> 3U [Pa s m^2 = N s].
  Vector transpose(const Vector& p) const;

 private:
  // Nodal J^T p (3 per node, all nodes) of the full-grid cell field p_full_.
  void spread(const Vector& p) const;

  grid::MacGrid grid_;
  std::vector<Index> cells_;   // cell index of each row
  const Unknowns* unknowns_;
  std::vector<Real> weight_;   // #nodes: w_q, 0 off the unknowns
  // Work space of apply (one grid of cells, one 3-vector per node).
  mutable std::vector<Real> p_full_;
  mutable std::vector<Real> nodal_;
};

// Eq. 12, J M^-1 J^T p = J v* - b, by Jacobi PCG on the stencil to
// settings.tolerance (CG solves this semi-definite system as the paper's
// Jacobi PCR does; projection.hpp). `b`: #rows [m^3/s]; `v_star`: 3U [m/s];
// `p`: warm start in (#rows), pressure impulse out [Pa s]. Report::iterations
// counts every update of p (Eigen's CG, used before, left the last one out).
linsolve::Report solve_pressure(const PressureOperator& A, const Vector& b, const Vector& v_star, Vector& p,
                                const ProjectionSettings& settings);

}  // namespace fsicut::eulerian
