#pragma once
// Shared by the Eigen-based solvers (pcg.cpp, bicgstab.cpp): run an Eigen
// iterative solver, then check the true residual and restart from the current
// iterate while it misses the tolerance.
//
// Why: a Krylov solver's recursively updated residual drifts from the true one,
// b - A x; at tight tolerances on stiff systems it can report convergence too
// early (CG), or stop on a breakdown (BiCGSTAB, rho = 0). A restart from the
// iterate is a residual replacement.
#include "lib/core/cancel.hpp"
#include "lib/linsolve/pcg.hpp"
#include "lib/linsolve/report.hpp"

namespace fsicut::linsolve::detail {

constexpr int MAX_RESTARTS = 3;

// `solver` has been compute()d and set up; `A` is the matrix it solves, for the
// true residual. `x` is the start and the result (resized to zero if its size is wrong).
template <class Solver>
Report solve_restarted(Solver& solver, const SparseMatrix& A, const Vector& b, Vector& x, Real tolerance,
                       int max_iterations) {
  Report report;
  report.unknowns = static_cast<int>(b.size());
  const Real bnorm = b.norm();
  if (bnorm == 0) {
    // A is nonsingular, so the only solution of A x = 0 is zero.
    x.setZero(b.size());
    report.converged = report.met_tolerance = true;
    return report;
  }
  if (x.size() != b.size()) x.setZero(b.size());
  solver.setTolerance(tolerance);
  for (int restart = 0; restart <= MAX_RESTARTS; ++restart) {
    poll_cancel();
    solver.setMaxIterations(max_iterations - report.iterations);
    x = solver.solveWithGuess(b, x);
    report.iterations += static_cast<int>(solver.iterations());
    report.relative_residual = (b - A * x).norm() / bnorm;
    if (report.relative_residual <= tolerance || report.iterations >= max_iterations || !x.allFinite()) break;
  }
  report.converged = report.met_tolerance = report.relative_residual <= tolerance && x.allFinite();
  return report;
}

}  // namespace fsicut::linsolve::detail
