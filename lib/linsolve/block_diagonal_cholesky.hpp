#pragma once
// Sparse Cholesky factorization of a block-diagonal symmetric positive
// definite matrix, one factorization per diagonal block, factored and solved
// in parallel over the blocks.
//
// Why: a triangular solve is serial, and matrices such as the solids' blocks
// of the coupled system couple no two bodies; per block, the factorizations
// and solves of several bodies run side by side.
//
// Blocks: found from A's pattern, in A's own order: a block ends at row i
// when no row up to i holds an entry in a column past i, which for a
// symmetric pattern is the finest partition into contiguous diagonal blocks.
// A: n x n, symmetric, both triangles stored (each block's lower triangle is
// read). Each block B is factored as P B P^T = L L^T by Eigen's SimplicialLLT,
// P the AMD ordering.
//
// Failure: a block that is not numerically positive definite (a pivot <= 0)
// makes compute() return false and is named by failed_block(); solve() must
// not be called then.
#include <memory>
#include <vector>

#include <Eigen/SparseCholesky>

#include "lib/linsolve/pcg.hpp"

namespace fsicut::linsolve {

class BlockDiagonalCholesky {
 public:
  // Factorizes A (n x n, see above). True when every block is positive definite.
  bool compute(const SparseMatrix& A);
  // Factorizes A into this and B into `other`, every diagonal block of both
  // in one parallel loop (two threads busy even for a single block each).
  // True when every block of both is positive definite.
  bool compute_pair(const SparseMatrix& A, BlockDiagonalCholesky& other, const SparseMatrix& B);

  // x = A^-1 b, b and x of size n (x is resized).
  void solve(const Vector& b, Vector& x) const { solve_pair(b, x, nullptr, nullptr); }
  // x = A^-1 b and, with `other`, y = other^-1 b: both factorizations' blocks
  // in one parallel loop (two threads busy even for a single block each).
  void solve_pair(const Vector& b, Vector& x, const BlockDiagonalCholesky* other, Vector* y) const;

  // The number of diagonal blocks, and block k's rows [block_start(k), block_start(k + 1)).
  int blocks() const { return static_cast<int>(factor_.size()); }
  int block_start(int k) const { return start_[k]; }
  // The first block whose factorization failed, -1 when none did.
  int failed_block() const;

 private:
  using Cholesky = Eigen::SimplicialLLT<Eigen::SparseMatrix<Real>, Eigen::Lower, Eigen::AMDOrdering<int>>;
  void partition(const SparseMatrix& A);
  std::vector<int> start_{0};
  std::vector<std::unique_ptr<Cholesky>> factor_;
  std::vector<char> ok_;  // per block: its factorization succeeded
};

}  // namespace fsicut::linsolve
