#pragma once
// Non-negative least squares: Lawson & Hanson's active-set method ("Solving
// Least Squares Problems", 1974, chapter 23).
//
// Problem: given A (m x n, dense, any m and n) and b (m), find
//   x = argmin |A x - b|_2  subject to  x >= 0 (componentwise).
// The solution satisfies the Karush-Kuhn-Tucker conditions with the
// gradient w = A^T (b - A x) (n):
//   x >= 0,   w <= 0 where x = 0,   w = 0 where x > 0.
// When the unconstrained least-squares solution is non-negative it is the
// answer (for A of full column rank, the same x).
//
// The method keeps a passive set P (the entries allowed to be positive; all
// others are 0). Each outer iteration moves the entry with the largest
// positive gradient w_t > tol into P; inner iterations solve the
// unconstrained least squares on the columns of P (column-pivoting
// Householder QR) and, while that solution has non-positive entries, step
// from x towards it as far as x stays >= 0, returning entries that reach
// <= tol to 0. The outer loop stops when no entry outside P has w > tol:
//   tol = 1e-13 * max(1, max|A_ij|) * max(1, |b|).
// It terminates in finitely many steps in exact arithmetic; the outer and
// inner loops are each capped at 3 n + 10 iterations, a guard against
// cycling through round-off only.
//
// Cost per inner iteration: a QR of m x |P|. Meant for small dense problems
// (tens of columns), such as the contact impulses of a reduced body.
#include <Eigen/Core>

#include "lib/core/types.hpp"

namespace fsicut::linsolve {

struct NnlsResult {
  Eigen::VectorXd x;      // n, the solution, every entry >= 0 (exact zeros off the passive set)
  int iterations = 0;     // outer iterations (entries moved into the passive set)
  bool converged = false; // the KKT test passed before the outer cap (3 n + 10)
  Real tolerance = 0;     // tol above: the gradient threshold and the zero of x
};

// Solves the problem above. A: m x n, b: m (throws std::invalid_argument when
// b.size() != A.rows()). n = 0 gives an empty x after 0 iterations; m = 0
// gives x = 0.
NnlsResult nonnegative_least_squares(const Eigen::MatrixXd& A, const Eigen::VectorXd& b);

}  // namespace fsicut::linsolve
