#pragma once
// Row-parallel kernels on row-major sparse matrices (SparseMatrix of pcg.hpp:
// rows with sorted, distinct column indices, compressed or not) for the
// set-up that every coupled solve repeats: Eigen's own transpose, sum, product
// and block copies run on one thread. Each returns exactly the matrix Eigen's expression would
// (the same pattern, the same entry order, the same values bit for bit), for
// any thread count: the tests compare them entry by entry.
#include "lib/linsolve/pcg.hpp"

namespace fsicut::linsolve {

// A^T: Eigen's SparseMatrix(A.transpose()).
SparseMatrix transposed(const SparseMatrix& A);

// A + B (same shape): Eigen's SparseMatrix(A + B); the pattern is the union,
// an entry in one matrix only is summed with 0 as Eigen does.
SparseMatrix sum(const SparseMatrix& A, const SparseMatrix& B);

// A B (A.cols() == B.rows()): Eigen's SparseMatrix(A * B) (each entry
// summed over k in ascending order, the first term assigned; rows sorted).
SparseMatrix product(const SparseMatrix& A, const SparseMatrix& B);

// The leading n x n block of A (n <= rows, cols): Eigen's A.topLeftCorner(n, n).
SparseMatrix leading_block(const SparseMatrix& A, Index n);

}  // namespace fsicut::linsolve
