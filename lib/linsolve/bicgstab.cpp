#include "lib/linsolve/bicgstab.hpp"

#include <Eigen/IterativeLinearSolvers>

#include "lib/linsolve/restarted.hpp"

namespace fsicut::linsolve {

Report solve_bicgstab(const SparseMatrix& A, const Vector& b, Vector& x, const BicgstabSettings& s) {
  using ColMajor = Eigen::SparseMatrix<Real, Eigen::ColMajor, int>;
  // IncompleteLUT wants column-major input; the solver keeps a reference to it.
  ColMajor Ac;
  Eigen::BiCGSTAB<ColMajor, Eigen::IncompleteLUT<Real, int>> solver;
  if (b.norm() > 0) {
    Ac = A;
    solver.preconditioner().setDroptol(s.drop_tolerance);
    solver.preconditioner().setFillfactor(s.fill_factor);
    solver.compute(Ac);
    if (solver.info() != Eigen::Success) {
      Report failed;
      failed.unknowns = static_cast<int>(b.size());
      return failed;
    }
  }
  return detail::solve_restarted(solver, A, b, x, s.tolerance, s.max_iterations);
}

}  // namespace fsicut::linsolve
