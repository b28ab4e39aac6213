#pragma once
// Preconditioned conjugate gradients for symmetric positive-definite systems.
//
// solve_pcg(A, b, x, settings) solves A x = b starting from the x passed in
// (a warm start: pass the previous solution, or zeros). A must be symmetric
// positive definite; both triangles must be stored (the product uses the full
// matrix so it runs in parallel). Stops when |b - A x| <= tolerance * |b|.
#include <Eigen/Sparse>

#include "lib/core/types.hpp"
#include "lib/linsolve/report.hpp"

namespace fsicut::linsolve {

using SparseMatrix = Eigen::SparseMatrix<Real, Eigen::RowMajor, int>;
using Vector = Eigen::Matrix<Real, Eigen::Dynamic, 1>;

enum class Preconditioner { none, jacobi, incomplete_cholesky };

struct PcgSettings {
  Real tolerance = 1e-10;  // relative residual
  int max_iterations = 2000;
  Preconditioner preconditioner = Preconditioner::incomplete_cholesky;
};

Report solve_pcg(const SparseMatrix& A, const Vector& b, Vector& x, const PcgSettings& settings);

}  // namespace fsicut::linsolve
