#include "lib/linsolve/bicgstab.hpp"

#include <Eigen/IterativeLinearSolvers>

namespace fsicut::linsolve {
namespace {

// Restarts allowed when the true residual misses the tolerance: BiCGSTAB's
// recursive residual drifts like CG's (see pcg.cpp), and it can also stop on a
// breakdown (rho = 0), which a restart from the current iterate gets past.
constexpr int MAX_RESTARTS = 3;

}  // namespace

Report solve_bicgstab(const SparseMatrix& A, const Vector& b, Vector& x, const BicgstabSettings& s) {
  Report report;
  report.unknowns = static_cast<int>(b.size());
  if (x.size() != b.size()) x.setZero(b.size());
  const Real bnorm = b.norm();
  if (bnorm == 0) {
    x.setZero(b.size());
    report.converged = true;
    return report;
  }
  // IncompleteLUT wants column-major input.
  const Eigen::SparseMatrix<Real, Eigen::ColMajor, int> Ac = A;
  Eigen::BiCGSTAB<Eigen::SparseMatrix<Real, Eigen::ColMajor, int>, Eigen::IncompleteLUT<Real, int>> solver;
  solver.preconditioner().setDroptol(s.drop_tolerance);
  solver.preconditioner().setFillfactor(s.fill_factor);
  solver.setTolerance(s.tolerance);
  solver.compute(Ac);
  if (solver.info() != Eigen::Success) return report;
  for (int restart = 0; restart <= MAX_RESTARTS; ++restart) {
    solver.setMaxIterations(s.max_iterations - report.iterations);
    x = solver.solveWithGuess(b, x);
    report.iterations += static_cast<int>(solver.iterations());
    report.relative_residual = (b - A * x).norm() / bnorm;
    if (report.relative_residual <= s.tolerance || report.iterations >= s.max_iterations || !x.allFinite()) break;
  }
  report.converged = report.relative_residual <= s.tolerance && x.allFinite();
  return report;
}

}  // namespace fsicut::linsolve
