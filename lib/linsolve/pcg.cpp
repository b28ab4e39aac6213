#include "lib/linsolve/pcg.hpp"

#include <Eigen/IterativeLinearSolvers>
#include <algorithm>
#include <limits>
#include <memory>
#include <utility>

#include "lib/core/cancel.hpp"
#include "lib/linsolve/mic.hpp"
#include "lib/linsolve/multigrid.hpp"
#include "lib/linsolve/restarted.hpp"

namespace fsicut::linsolve {
namespace {

template <class Solver>
Report solve(const SparseMatrix& A, const Vector& b, Vector& x, const PcgSettings& s) {
  if (!abandonable()) {
    Solver cg;
    if (b.norm() > 0) cg.compute(A);
    return detail::solve_restarted(cg, A, b, x, s.tolerance, s.max_iterations);
  }
  // Eigen's iterations have no cancellation point: a stop request would wait
  // for all of them (an Eulerian pressure solve on 700k cells ran its 2000
  // iterations for 20 s past SIGTERM, a fuzz finding). So the solve runs on a
  // thread of its own, on copies it owns, and is abandoned when one comes.
  struct Owned {
    SparseMatrix A;
    Vector b, x;
    Report report;
  };
  auto owned = std::make_shared<Owned>(Owned{A, b, x, {}});
  run_abandonable("pcg", [owned, s] {
    Solver cg;
    if (owned->b.norm() > 0) cg.compute(owned->A);
    owned->report = detail::solve_restarted(cg, owned->A, owned->b, owned->x, s.tolerance, s.max_iterations);
  });
  x = std::move(owned->x);
  return owned->report;
}

// y = (A + [U U^T 0; 0 0]) x; without U (no columns), A x; or y = map(x)
// (no A: no floor).
struct Operator {
  const SparseMatrix* A = nullptr;
  const SparseMatrix* U = nullptr;
  const LinearOperator* map = nullptr;
  Vector operator*(const Vector& x) const {
    if (map) {
      Vector y;
      (*map)(x, y);
      return y;
    }
    Vector y = *A * x;
    if (U && U->cols() > 0) y.head(U->rows()) += *U * (U->transpose() * x.head(U->rows()));
    return y;
  }
  // |A| |x| (+ |U| |U|^T |x|): the bound of the round-off floor.
  Vector abs_times(const Vector& x) const {
    const Vector a = x.cwiseAbs();
    Vector y = A->cwiseAbs() * a;
    if (U && U->cols() > 0) {
      const SparseMatrix u = U->cwiseAbs();
      y.head(U->rows()) += u * (u.transpose() * a.head(U->rows()));
    }
    return y;
  }
};

Real floor_of(const Operator& op, const Vector& b, const Vector& x) {
  const Real bnorm = b.norm();
  if (!(bnorm > 0) || op.map) return 0;
  const Vector bound = op.abs_times(x) + b.cwiseAbs();
  return std::numeric_limits<Real>::epsilon() * bound.norm() / bnorm;
}

Report pcg(const Operator& A, const Vector& b, Vector& x, const PcgSettings& s, const ApplyPreconditioner& precondition) {
  Report report;
  report.unknowns = static_cast<int>(b.size());
  const Real bnorm = b.norm();
  if (x.size() != b.size()) x.setZero(b.size());
  if (bnorm == 0) {
    x.setZero(b.size());
    report.converged = report.met_tolerance = true;
    return report;
  }
  const Real threshold = s.tolerance * bnorm;
  Vector r, z, p, q;
  for (int restart = 0; restart <= detail::MAX_RESTARTS && report.iterations < s.max_iterations; ++restart) {
    r = b - A * x;
    if (r.norm() <= threshold || !x.allFinite()) break;
    precondition(r, z);
    p = z;
    Real rz = r.dot(z);
    while (report.iterations < s.max_iterations) {
      poll_cancel();
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
  }
  report.relative_residual = (b - A * x).norm() / bnorm;
  report.round_off_floor = floor_of(A, b, x);
  report.met_tolerance = report.relative_residual <= s.tolerance && x.allFinite();
  report.converged = report.relative_residual <= std::max(s.tolerance, ROUND_OFF_MARGIN * report.round_off_floor) &&
                     x.allFinite();
  return report;
}

}  // namespace

Report solve_pcg(const SparseMatrix& A, const Vector& b, Vector& x, const PcgSettings& s) {
  constexpr int UpLo = Eigen::Lower | Eigen::Upper;
  switch (s.preconditioner) {
    case Preconditioner::none: {
      return solve<Eigen::ConjugateGradient<SparseMatrix, UpLo, Eigen::IdentityPreconditioner>>(A, b, x, s);
    }
    case Preconditioner::jacobi: {
      return solve<Eigen::ConjugateGradient<SparseMatrix, UpLo, Eigen::DiagonalPreconditioner<Real>>>(A, b, x, s);
    }
    case Preconditioner::incomplete_cholesky: {
      return solve<Eigen::ConjugateGradient<SparseMatrix, UpLo, IncompleteCholesky>>(A, b, x, s);
    }
    case Preconditioner::modified_incomplete_cholesky:
    case Preconditioner::multigrid: {
      const ApplyPreconditioner precondition = make_preconditioner(s.preconditioner, A);
      if (precondition) return solve_pcg(A, b, x, s, precondition);
      Report r;
      r.unknowns = static_cast<int>(b.size());
      r.failure = "the modified incomplete Cholesky factorization failed: the matrix is not positive definite";
      return r;
    }
  }
  return {};
}

ApplyPreconditioner make_preconditioner(Preconditioner kind, SparseMatrix A, const std::vector<Vec3i>& cells) {
  if (kind == Preconditioner::multigrid && static_cast<Index>(cells.size()) != A.rows())
    kind = Preconditioner::modified_incomplete_cholesky;
  switch (kind) {
    case Preconditioner::none:
      return [](const Vector& r, Vector& z) { z = r; };
    case Preconditioner::jacobi: {
      const Vector inverse = A.diagonal().cwiseInverse();
      if (!(inverse.array() > 0).all()) return {};
      return [inverse](const Vector& r, Vector& z) { z = inverse.cwiseProduct(r); };
    }
    case Preconditioner::incomplete_cholesky: {
      auto ic = std::make_shared<IncompleteCholesky>(Eigen::SparseMatrix<Real>(A));
      if (ic->info() != Eigen::Success) return {};
      return [ic](const Vector& r, Vector& z) { z = ic->solve(r); };
    }
    case Preconditioner::modified_incomplete_cholesky: {
      auto mic = std::make_shared<ModifiedIncompleteCholesky>(A);
      if (!mic->ok()) return {};
      return [mic](const Vector& r, Vector& z) { mic->apply(r, z); };
    }
    case Preconditioner::multigrid: {
      auto mg = std::make_shared<Multigrid>(std::move(A), cells);
      if (!mg->ok()) return {};
      return [mg](const Vector& r, Vector& z) { mg->apply(r, z); };
    }
  }
  return {};
}

Report solve_pcg(const SparseMatrix& A, const Vector& b, Vector& x, const PcgSettings& s,
                 const ApplyPreconditioner& precondition) {
  return pcg(Operator{&A}, b, x, s, precondition);
}

Report solve_pcg(const SparseMatrix& A, const SparseMatrix& low_rank, const Vector& b, Vector& x,
                 const PcgSettings& s, const ApplyPreconditioner& precondition) {
  return pcg(Operator{&A, &low_rank}, b, x, s, precondition);
}

Report solve_pcg(const LinearOperator& A, const Vector& b, Vector& x, const PcgSettings& s,
                 const ApplyPreconditioner& precondition) {
  return pcg(Operator{nullptr, nullptr, &A}, b, x, s, precondition);
}

Real round_off_floor(const SparseMatrix& A, const Vector& b, const Vector& x) { return floor_of(Operator{&A}, b, x); }

}  // namespace fsicut::linsolve
