#pragma once
// The lowest eigenpairs of a symmetric generalized eigenproblem with a
// diagonal ("lumped") mass matrix:
//   K x = lambda M x,   K n x n symmetric positive semi-definite (both
//                       triangles stored), M = diag(m), every m_i > 0.
// Solved in the symmetric standard form A y = lambda y with
// A = M^-1/2 K M^-1/2 and x = M^-1/2 y, so the eigenvectors come out
// M-orthonormal (X^T M X = Id) and K-diagonal (X^T K X = diag(lambda)).
// Singular K (e.g. a free body's rigid motions, lambda = 0) is allowed.
//
// Methods:
//  - dense: Eigen's dense symmetric eigensolver on A: O(n^3) time, O(n^2)
//    memory, every eigenpair (to round-off, ~eps lambda_max). For n up to a
//    few thousand.
//  - shift_invert_lanczos: Spectra's implicitly restarted Lanczos on
//    (A - sigma Id)^-1, applied through a sparse Cholesky factorization
//    (simplicial, AMD ordering), with the shift
//      sigma = -LANCZOS_SHIFT_FRACTION * scale,  scale = max_i A_ii.
//    sigma < 0 keeps A - sigma Id positive definite although K may be
//    singular, and |sigma| small makes the lowest eigenvalues, not the stiff
//    ones, dominate the inverted spectrum; the factor's condition number is
//    then ~ 1 / LANCZOS_SHIFT_FRACTION, which costs accuracy only in the
//    directions of (near-)zero eigenvalues. Lanczos vectors:
//    min(n, max(2 count + 1, count + 20)) (Spectra advises at least 2 count;
//    a few more make the restarts converge in fewer solves). Convergence
//    (Spectra's test): each of the `count` Ritz values theta of the inverted
//    operator has a residual estimate below
//    LANCZOS_TOLERANCE * max(|theta|, eps^(2/3)) within LANCZOS_MAX_RESTARTS
//    restarts; lambda = sigma + 1 / theta. Needs count < n. Costs the
//    factorization's fill (most of its time for large n) plus a few solves
//    per Lanczos step.
// Both are deterministic (Spectra starts from a fixed-seed vector).
#include <Eigen/Core>
#include <Eigen/SparseCore>

#include "lib/core/types.hpp"

namespace fsicut::linsolve {

enum class EigenMethod { dense, shift_invert_lanczos };

constexpr Real LANCZOS_SHIFT_FRACTION = 1e-8;
constexpr Real LANCZOS_TOLERANCE = 1e-12;
constexpr int LANCZOS_MAX_RESTARTS = 1000;

struct LowestEigenpairs {
  enum class Status {
    ok,
    dense_failed,                 // Eigen's dense eigensolver reported failure
    shift_not_positive_definite,  // the Cholesky of A - sigma Id failed (K not PSD, or not symmetric)
    not_converged,                // Lanczos: not every Ritz pair met the tolerance within the restarts
  };
  Status status = Status::ok;
  Eigen::VectorXd values;   // count eigenvalues, ascending [units of K / M]; empty unless ok
  Eigen::MatrixXd vectors;  // n x count, column k belongs to values[k], X^T M X = Id; empty unless ok
  Real scale = 0;           // max_i K_ii / m_i = max diag(A) <= lambda_max: the spectrum's scale, for
                            // relative thresholds (e.g. telling zero eigenvalues apart)
  int restarts = 0;         // Lanczos restarts used (dense: 0)
  int operations = 0;       // Lanczos applications of (A - sigma Id)^-1 (dense: 0)
  bool ok() const { return status == Status::ok; }
};

// The `count` lowest eigenpairs of K x = lambda M x, M = diag(mass) (see
// above). K: n x n, mass: n. Throws std::invalid_argument when the shapes
// disagree, count is outside [0, n], or shift_invert_lanczos is asked for
// count >= n. count = 0 solves nothing (status ok, empty values). Failures
// of the solvers themselves are reported in status.
LowestEigenpairs lowest_eigenpairs(const Eigen::SparseMatrix<Real>& K, const Eigen::VectorXd& mass, int count,
                                   EigenMethod method);

}  // namespace fsicut::linsolve
