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
// Set-up kept across matrices of one pattern: analyze() does the symbolic half
// (the blocks, each block's ordering and the pattern of its factor) from A's
// pattern alone; factorize() then does the numeric half for any matrix of that
// pattern. compute() is both, and gives bit for bit what analyze() then
// factorize() give (the ordering depends on the pattern only).
//
// Failure: a block that is not numerically positive definite (a pivot <= 0)
// makes compute() / factorize() return false and is named by failed_block();
// solve() must not be called then.
//
// Stop requests: the analysis and the factorization have no iterations to look
// between, and a large solid's block takes minutes. While a CancelScope is
// armed (core/cancel.hpp), analyze(), factorize() and the pairs run as an
// abandonable job on copies of the matrices: a stop throws Cancelled within
// ABANDON_POLL_SECONDS and leaves this object (and `other`) empty, as if
// never analyzed. The results are bit for bit the same either way.
#include <memory>
#include <utility>
#include <vector>

#include <Eigen/SparseCholesky>

#include "lib/linsolve/pcg.hpp"

namespace fsicut::linsolve {

class BlockDiagonalCholesky {
 public:
  // Factorizes A (n x n, see above). True when every block is positive definite.
  bool compute(const SparseMatrix& A);
  // The symbolic half of compute() (see above); factorize() must follow before solve().
  void analyze(const SparseMatrix& A);
  // The numeric half: factorizes A, whose pattern must be the one analyze()
  // saw (its size and number of stored entries are checked: std::invalid_argument).
  // True when every block is positive definite.
  bool factorize(const SparseMatrix& A);
  // Stored entries of the factors L of all blocks, known once analyze() ran:
  // the factors' memory is about 12 bytes per entry (a value and a row index).
  Index factor_nonzeros() const;
  // The multiply-adds of one factorize(), known once analyze() ran: the sum
  // over the factors' columns of c (c + 3) / 2, c the column's entries below
  // the diagonal (the standard count; solid/integrate.hpp measures its time).
  double factor_operations() const;
  // Factorizes A into this and B into `other`, every diagonal block of both
  // in one parallel loop (two threads busy even for a single block each).
  // True when every block of both is positive definite.
  bool compute_pair(const SparseMatrix& A, BlockDiagonalCholesky& other, const SparseMatrix& B);
  // True when A has exactly the pattern (size, row starts, column indices)
  // of the matrix analyze() or compute_pair() last saw: factorize() and
  // factorize_pair() may then take A.
  bool analyzed_for(const SparseMatrix& A) const;
  // The numeric half of compute_pair(): A and B of the patterns this and
  // `other` analyzed (analyzed_for; std::invalid_argument otherwise). Bit for
  // bit what compute_pair() gives.
  bool factorize_pair(const SparseMatrix& A, BlockDiagonalCholesky& other, const SparseMatrix& B);

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
  // Eigen's SimplicialLLT, which after analyzePattern() knows its factor's
  // column counts (the elimination tree's) without exposing them.
  using Simplicial = Eigen::SimplicialLLT<Eigen::SparseMatrix<Real>, Eigen::Lower, Eigen::AMDOrdering<int>>;
  class Cholesky : public Simplicial {
   public:
    using Simplicial::Simplicial;
    Index factor_nonzeros() const { return m_nonZerosPerCol.sum() + m_nonZerosPerCol.size(); }
    double factor_operations() const {
      const Eigen::ArrayXd c = m_nonZerosPerCol.template cast<double>().array();
      return (c * (c + 3) / 2).sum();
    }
  };
  // What the blocks' job does to each factor.
  enum class Stage { analyze, factorize, compute };
  // `stage` on every block of each (factorization, matrix) part, all in one
  // parallel loop, as a job run_abandonable abandons on a stop request (the
  // parts are then forgotten). compute and analyze start from new factors.
  static void run_blocks(const std::vector<std::pair<BlockDiagonalCholesky*, const SparseMatrix*>>& parts, Stage stage);
  // Back to the state of a new object: nothing analyzed, no factors.
  void forget();
  void partition(const SparseMatrix& A);
  Index analyzed_rows_ = -1, analyzed_entries_ = -1;  // A's size and stored entries at partition()
  std::vector<int> analyzed_outer_, analyzed_inner_;  // A's row starts and column indices at partition()
  std::vector<int> start_{0};
  std::vector<std::shared_ptr<Cholesky>> factor_;  // shared with the job that fills them
  std::vector<char> ok_;  // per block: its factorization succeeded
};

// x = A^-1 b by `f`, a successful factorization of A (compute() or
// factorize()), then iterative refinement, x += A^-1 (b - A x), at most
// MAX_REFINEMENTS times while |b - A x| > tolerance |b| and each step lowers it.
// Why refine: the backward error of Cholesky is about eps |A| |x|, and on a
// stiff solid's system (6) that puts the first solution's residual near 1e-10
// relative; one refinement step costs a product and two triangular solves.
// The report reads like an iterative solver's: iterations = 1 + refinement
// steps, relative_residual = |b - A x| / |b| recomputed from the returned x,
// round_off_floor as in pcg.hpp, converged by PCG's test (the tolerance, or
// ROUND_OFF_MARGIN times the floor), met_tolerance by the tolerance alone.
// A: n x n, both triangles; b: n; x: resized to n.
constexpr int MAX_REFINEMENTS = 2;
Report solve_refined(const BlockDiagonalCholesky& f, const SparseMatrix& A, const Vector& b, Vector& x,
                     Real tolerance);

}  // namespace fsicut::linsolve
