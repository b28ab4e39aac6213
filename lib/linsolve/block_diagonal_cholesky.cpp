#include "lib/linsolve/block_diagonal_cholesky.hpp"

#include <algorithm>

#include "lib/core/parallel.hpp"

namespace fsicut::linsolve {

bool BlockDiagonalCholesky::compute(const SparseMatrix& A) {
  partition(A);
  parallel_for(0, static_cast<Index>(factor_.size()), [&](Index j) {
    const int s = start_[j], m = start_[j + 1] - s;
    factor_[j] = std::make_unique<Cholesky>(Eigen::SparseMatrix<Real>(A.block(s, s, m, m)));
    ok_[j] = factor_[j]->info() == Eigen::Success;
  });
  return failed_block() < 0;
}

bool BlockDiagonalCholesky::compute_pair(const SparseMatrix& A, BlockDiagonalCholesky& other, const SparseMatrix& B) {
  partition(A);
  other.partition(B);
  const Index blocks = static_cast<Index>(factor_.size());
  const Index total = blocks + static_cast<Index>(other.factor_.size());
  parallel_for(0, total, [&](Index k) {
    BlockDiagonalCholesky& f = k < blocks ? *this : other;
    const SparseMatrix& M = k < blocks ? A : B;
    const Index j = k < blocks ? k : k - blocks;
    const int s = f.start_[j], m = f.start_[j + 1] - s;
    f.factor_[j] = std::make_unique<Cholesky>(Eigen::SparseMatrix<Real>(M.block(s, s, m, m)));
    f.ok_[j] = f.factor_[j]->info() == Eigen::Success;
  });
  return failed_block() < 0 && other.failed_block() < 0;
}

void BlockDiagonalCholesky::solve_pair(const Vector& b, Vector& x, const BlockDiagonalCholesky* other,
                                       Vector* y) const {
  x.resize(b.size());
  if (other) y->resize(b.size());
  const Index blocks = static_cast<Index>(factor_.size());
  parallel_for(0, other ? blocks + static_cast<Index>(other->factor_.size()) : blocks, [&](Index k) {
    const BlockDiagonalCholesky& f = k < blocks ? *this : *other;
    Vector& out = k < blocks ? x : *y;
    const Index j = k < blocks ? k : k - blocks;
    const int s = f.start_[j], m = f.start_[j + 1] - s;
    out.segment(s, m) = f.factor_[j]->solve(b.segment(s, m));
  });
}

int BlockDiagonalCholesky::failed_block() const {
  const auto at = std::find(ok_.begin(), ok_.end(), char(0));
  return at == ok_.end() ? -1 : static_cast<int>(at - ok_.begin());
}

void BlockDiagonalCholesky::partition(const SparseMatrix& A) {
  const int n = static_cast<int>(A.rows());
  start_ = {0};
  int reach = 0;  // the farthest column of the rows so far
  for (int i = 0; i < n; ++i) {
    for (SparseMatrix::InnerIterator it(A, i); it; ++it) reach = std::max(reach, static_cast<int>(it.col()));
    if (reach <= i) start_.push_back(i + 1);
  }
  factor_.clear();
  factor_.resize(start_.size() - 1);
  ok_.assign(factor_.size(), 0);
}

}  // namespace fsicut::linsolve
