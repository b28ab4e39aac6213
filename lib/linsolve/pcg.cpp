#include "lib/linsolve/pcg.hpp"

#include <Eigen/IterativeLinearSolvers>
#include <algorithm>
#include <limits>

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

Report solve_pcg(const SparseMatrix& A, const Vector& b, Vector& x, const PcgSettings& s,
                 const ApplyPreconditioner& precondition) {
  Report report;
  report.unknowns = static_cast<int>(b.size());
  const Real bnorm = b.norm();
  if (x.size() != b.size()) x.setZero(b.size());
  if (bnorm == 0) {
    x.setZero(b.size());
    report.converged = true;
    return report;
  }
  const Real threshold = s.tolerance * bnorm;
  Vector r, z, p, q;
  for (int restart = 0; restart <= MAX_RESTARTS; ++restart) {
    r = b - A * x;
    if (r.norm() <= threshold) break;
    precondition(r, z);
    p = z;
    Real rz = r.dot(z);
    while (report.iterations < s.max_iterations) {
      q = A * p;
      const Real pq = p.dot(q);
      if (!(pq > 0)) break;  // breakdown: A or P not positive definite along p
      const Real step = rz / pq;
      x += step * p;
      r -= step * q;
      ++report.iterations;
      if (r.norm() <= threshold) break;
      precondition(r, z);
      const Real rz_next = r.dot(z);
      p = z + (rz_next / rz) * p;
      rz = rz_next;
    }
    report.relative_residual = (b - A * x).norm() / bnorm;
    if (report.relative_residual <= s.tolerance || report.iterations >= s.max_iterations || !x.allFinite()) break;
  }
  report.relative_residual = (b - A * x).norm() / bnorm;
  report.round_off_floor = round_off_floor(A, b, x);
  report.converged = report.relative_residual <= std::max(s.tolerance, ROUND_OFF_MARGIN * report.round_off_floor) &&
                     x.allFinite();
  return report;
}

Real round_off_floor(const SparseMatrix& A, const Vector& b, const Vector& x) {
  const Real bnorm = b.norm();
  if (!(bnorm > 0)) return 0;
  const Vector bound = A.cwiseAbs() * x.cwiseAbs() + b.cwiseAbs();
  return std::numeric_limits<Real>::epsilon() * bound.norm() / bnorm;
}

}  // namespace fsicut::linsolve
