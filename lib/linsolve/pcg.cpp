#include "lib/linsolve/pcg.hpp"

#include <Eigen/IterativeLinearSolvers>

namespace fsicut::linsolve {
namespace {

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
  solver.setMaxIterations(s.max_iterations);
  solver.compute(A);
  x = solver.solveWithGuess(b, x);
  report.iterations = static_cast<int>(solver.iterations());
  // Recompute the residual ourselves: the reported error is preconditioner-scaled in some paths.
  report.relative_residual = (b - A * x).norm() / bnorm;
  report.converged = report.relative_residual <= s.tolerance * (1 + 1e-6) && x.allFinite();
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
