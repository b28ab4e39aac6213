#pragma once
// Modified incomplete Cholesky, MIC(0), of a symmetric positive-definite sparse
// matrix: the preconditioner of Bridson's "Fluid Simulation for Computer
// Graphics" (Alg. 4.2) and Batty's Fluid3D, for any sparsity pattern (the
// pressure block of (33) adds J Z1^-1 J^T to the 7-point Laplacian).
//
// The factor is L D L^T with the sparsity of A's lower triangle, computed in the
// unknowns' own order (rows of a grid: x fastest). Plain IC(0) drops the fill-in
// outside that pattern; MIC(0) moves `modification` (tau) times each dropped
// entry onto the diagonal of its row, so that for tau = 1 the factor's row sums
// equal A's (its error vanishes on constant vectors, the smooth modes IC(0) gets
// worst). Bridson's tau = 0.97 keeps a little of IC(0)'s damping of the rough modes.
//
// apply() is two triangular solves in sequence: serial by nature.
#include <vector>

#include "lib/linsolve/pcg.hpp"

namespace fsicut::linsolve {

// Bridson's blend of MIC (1) and IC (0).
constexpr Real MIC_MODIFICATION = 0.97;
// Why: where the modification drives a pivot below this fraction of A's
// diagonal (cells with few neighbours), the factor would amplify noise; such a
// pivot falls back to A's diagonal (Bridson's safety constant sigma = 0.25).
constexpr Real MIC_SAFE_PIVOT = 0.25;

class ModifiedIncompleteCholesky {
 public:
  // A: n x n, symmetric, both triangles stored, positive diagonal.
  explicit ModifiedIncompleteCholesky(const SparseMatrix& A, Real modification = MIC_MODIFICATION);
  // False when a pivot was not positive (A not positive definite): apply() is then undefined.
  bool ok() const { return ok_; }
  // z = (L D L^T)^-1 r, both of size n (z is resized).
  void apply(const Vector& r, Vector& z) const;

 private:
  // The factor in A's full pattern: entries left of the diagonal hold L (unit
  // diagonal implied), the diagonal holds D, entries right of it D L^T.
  std::vector<int> outer_, inner_, diag_;
  std::vector<Real> value_;
  bool ok_ = true;
};

}  // namespace fsicut::linsolve
