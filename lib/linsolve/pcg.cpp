#include "lib/linsolve/pcg.hpp"

#include <Eigen/IterativeLinearSolvers>

namespace fsicut::linsolve {
namespace {

// Restarts allowed when the true residual misses the tolerance (see run()).
constexpr int MAX_RESTARTS = 3;

template <class Solver>
Report run(Solver& solver, const SparseMatrix& A, const Vector& b, Vector& x, const PcgSettings& s) {
  Report report;
  report.unknowns = static_cast<int>(b.size());
  const Real bnorm = b.norm();
  if (bnorm == 0) {
    // A is SPD, so the only solution of A x = 0 is zero.
    x.setZero(b.size());
    report.converged = true;
    return report;
  }
  if (x.size() != b.size()) x.setZero(b.size());
  solver.setTolerance(s.tolerance);
  solver.compute(A);
  // CG's recursively updated residual drifts from the true one, b - A x; at
  // tight tolerances on stiff systems it can report convergence too early.
  // Restart from the current iterate (a residual replacement) while the true
  // residual is above the tolerance and iterations remain.
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

}  // namespace

Report solve_pcg(const SparseMatrix& A, const Vector& b, Vector& x, const PcgSettings& s) {
  constexpr int UpLo = Eigen::Lower | Eigen::Upper;
  switch (s.preconditioner) {
    case Preconditioner::none: {
      Eigen::ConjugateGradient<SparseMatrix, UpLo, Eigen::IdentityPreconditioner> cg;
      return run(cg, A, b, x, s);
    }
    case Preconditioner::jacobi: {
      Eigen::ConjugateGradient<SparseMatrix, UpLo, Eigen::DiagonalPreconditioner<Real>> cg;
      return run(cg, A, b, x, s);
    }
    case Preconditioner::incomplete_cholesky: {
      Eigen::ConjugateGradient<SparseMatrix, UpLo, Eigen::IncompleteCholesky<Real>> cg;
      return run(cg, A, b, x, s);
    }
  }
  return {};
}

}  // namespace fsicut::linsolve
