#include "lib/linsolve/lowest_eigenpairs.hpp"

#include <Eigen/Eigenvalues>
#include <Eigen/SparseCholesky>
#include <Spectra/SymEigsShiftSolver.h>
#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace fsicut::linsolve {
namespace {

using Matrix = Eigen::MatrixXd;
using ColSparse = Eigen::SparseMatrix<Real, Eigen::ColMajor, int>;

// Shift-invert operator for Spectra: y = (A - sigma Id)^-1 x with a sparse
// Cholesky (A - sigma Id is SPD for sigma < 0 and A PSD). Spectra sets the
// shift in its constructor; a failed factorization is kept in ok() for the
// caller to check before the iteration starts.
class ShiftedCholesky {
 public:
  using Scalar = Real;
  explicit ShiftedCholesky(const ColSparse& A) : A_(A) {}
  Eigen::Index rows() const { return A_.rows(); }
  Eigen::Index cols() const { return A_.cols(); }
  void set_shift(const Real& sigma) {
    ColSparse I(A_.rows(), A_.cols());
    I.setIdentity();
    llt_.compute(A_ - sigma * I);
    ok_ = llt_.info() == Eigen::Success;
  }
  bool ok() const { return ok_; }
  void perform_op(const Real* x_in, Real* y_out) const {
    Eigen::Map<const Eigen::VectorXd> x(x_in, A_.rows());
    Eigen::Map<Eigen::VectorXd> y(y_out, A_.rows());
    y = llt_.solve(x);
  }

 private:
  const ColSparse& A_;
  Eigen::SimplicialLLT<ColSparse> llt_;
  bool ok_ = false;
};

// Lowest `count` eigenpairs (ascending) of the symmetric PSD A by shift-invert Lanczos.
void lanczos(const ColSparse& A, int count, Real scale, LowestEigenpairs& out, Eigen::VectorXd& values,
             Matrix& vectors) {
  const int n = static_cast<int>(A.rows());
  ShiftedCholesky op(A);
  const int ncv = std::min(n, std::max(2 * count + 1, count + 20));
  Spectra::SymEigsShiftSolver<ShiftedCholesky> eigs(op, count, ncv, -LANCZOS_SHIFT_FRACTION * scale);
  if (!op.ok()) {
    out.status = LowestEigenpairs::Status::shift_not_positive_definite;
    return;
  }
  eigs.init();
  eigs.compute(Spectra::SortRule::LargestMagn, LANCZOS_MAX_RESTARTS, LANCZOS_TOLERANCE);
  out.restarts = static_cast<int>(eigs.num_iterations());
  out.operations = static_cast<int>(eigs.num_operations());
  if (eigs.info() != Spectra::CompInfo::Successful) {
    out.status = LowestEigenpairs::Status::not_converged;
    return;
  }
  const Eigen::VectorXd ev = eigs.eigenvalues();
  const Matrix evec = eigs.eigenvectors();
  std::vector<int> order(ev.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int a, int b) { return ev[a] < ev[b]; });
  values.resize(count);
  vectors.resize(n, count);
  for (int k = 0; k < count; ++k) {
    values[k] = ev[order[k]];
    vectors.col(k) = evec.col(order[k]);
  }
}

}  // namespace

LowestEigenpairs lowest_eigenpairs(const Eigen::SparseMatrix<Real>& K, const Eigen::VectorXd& mass, int count,
                                   EigenMethod method) {
  const int n = static_cast<int>(K.rows());
  if (K.cols() != n || mass.size() != n)
    throw std::invalid_argument("lowest_eigenpairs: K must be square with one mass per row");
  if (count < 0 || count > n) throw std::invalid_argument("lowest_eigenpairs: count must lie in [0, n]");
  if (method == EigenMethod::shift_invert_lanczos && count >= n)
    throw std::invalid_argument("lowest_eigenpairs: shift-invert Lanczos needs count < n");

  // K x = lambda M x  <=>  (M^-1/2 K M^-1/2) y = lambda y,  x = M^-1/2 y.
  Eigen::VectorXd inv_sqrt_m(n);
  for (int k = 0; k < n; ++k) inv_sqrt_m[k] = 1 / std::sqrt(mass[k]);
  ColSparse A = K;
  for (int c = 0; c < A.outerSize(); ++c)
    for (ColSparse::InnerIterator it(A, c); it; ++it)
      it.valueRef() = it.value() * inv_sqrt_m[it.row()] * inv_sqrt_m[c];

  LowestEigenpairs out;
  out.scale = n > 0 ? A.diagonal().maxCoeff() : Real(0);
  if (count == 0) return out;
  Eigen::VectorXd values;
  Matrix Y;
  if (method == EigenMethod::dense) {
    Eigen::SelfAdjointEigenSolver<Matrix> eig{Matrix(A)};
    if (eig.info() != Eigen::Success) {
      out.status = LowestEigenpairs::Status::dense_failed;
      return out;
    }
    values = eig.eigenvalues().head(count);
    Y = eig.eigenvectors().leftCols(count);
  } else {
    lanczos(A, count, out.scale, out, values, Y);
    if (!out.ok()) return out;
  }
  out.values = values;
  out.vectors.resize(n, count);
  for (int k = 0; k < n; ++k) out.vectors.row(k) = inv_sqrt_m[k] * Y.row(k);
  return out;
}

}  // namespace fsicut::linsolve
