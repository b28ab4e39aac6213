#include "lib/linsolve/mic.hpp"

namespace fsicut::linsolve {

// Row by row (the IKJ variant of Gaussian elimination restricted to A's
// pattern): row i is reduced by every earlier row k it couples to; an update of
// (i, j) outside the pattern is dropped, and its tau share goes to (i, i). For a
// symmetric A this is the L D L^T of MIC(0), stored as L (left) and D L^T (right).
ModifiedIncompleteCholesky::ModifiedIncompleteCholesky(const SparseMatrix& A, Real modification) {
  const int n = static_cast<int>(A.rows());
  SparseMatrix sorted = A;
  sorted.makeCompressed();
  outer_.assign(sorted.outerIndexPtr(), sorted.outerIndexPtr() + n + 1);
  inner_.assign(sorted.innerIndexPtr(), sorted.innerIndexPtr() + sorted.nonZeros());
  value_.assign(sorted.valuePtr(), sorted.valuePtr() + sorted.nonZeros());
  diag_.assign(n, -1);
  std::vector<int> position(n, -1);  // column -> index in the current row, -1 outside its pattern
  for (int i = 0; i < n; ++i) {
    for (int p = outer_[i]; p < outer_[i + 1]; ++p) {
      position[inner_[p]] = p;
      if (inner_[p] == i) diag_[i] = p;
    }
    if (diag_[i] < 0) {
      ok_ = false;
      return;
    }
    const Real original = value_[diag_[i]];
    Real dropped = 0;
    for (int p = outer_[i]; p < diag_[i]; ++p) {
      const int k = inner_[p];
      const Real l = value_[p] / value_[diag_[k]];
      value_[p] = l;
      for (int q = diag_[k] + 1; q < outer_[k + 1]; ++q) {
        const int j = inner_[q];
        if (position[j] >= 0) value_[position[j]] -= l * value_[q];
        else dropped += l * value_[q];
      }
    }
    Real& pivot = value_[diag_[i]];
    pivot -= modification * dropped;
    if (pivot < MIC_SAFE_PIVOT * original) pivot = original;
    if (!(pivot > 0)) ok_ = false;
    for (int p = outer_[i]; p < outer_[i + 1]; ++p) position[inner_[p]] = -1;
  }
}

void ModifiedIncompleteCholesky::apply(const Vector& r, Vector& z) const {
  const int n = static_cast<int>(diag_.size());
  z.resize(n);
  for (int i = 0; i < n; ++i) {
    Real s = r[i];
    for (int p = outer_[i]; p < diag_[i]; ++p) s -= value_[p] * z[inner_[p]];
    z[i] = s;
  }
  for (int i = n - 1; i >= 0; --i) {
    Real s = z[i];
    for (int p = diag_[i] + 1; p < outer_[i + 1]; ++p) s -= value_[p] * z[inner_[p]];
    z[i] = s / value_[diag_[i]];
  }
}

}  // namespace fsicut::linsolve
