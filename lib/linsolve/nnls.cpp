#include "lib/linsolve/nnls.hpp"

#include <Eigen/QR>
#include <algorithm>
#include <stdexcept>
#include <vector>

namespace fsicut::linsolve {

NnlsResult nonnegative_least_squares(const Eigen::MatrixXd& A, const Eigen::VectorXd& b) {
  if (b.size() != A.rows()) throw std::invalid_argument("nonnegative_least_squares: b must have A's rows");
  const int n = static_cast<int>(A.cols());
  const int cap = 3 * n + 10;
  NnlsResult out;
  Eigen::VectorXd& x = out.x;
  x = Eigen::VectorXd::Zero(n);
  std::vector<char> passive(n, 0);
  const Real largest = A.size() > 0 ? A.cwiseAbs().maxCoeff() : Real(0);
  const Real tol = 1e-13 * std::max<Real>(1, largest) * std::max<Real>(1, b.norm());
  out.tolerance = tol;
  int outer = 0;
  for (; outer < cap; ++outer) {
    const Eigen::VectorXd w = A.transpose() * (b - A * x);
    int t = -1;
    for (int k = 0; k < n; ++k)
      if (!passive[k] && w[k] > tol && (t < 0 || w[k] > w[t])) t = k;
    if (t < 0) break;
    passive[t] = 1;
    for (int inner = 0; inner < cap; ++inner) {
      std::vector<int> P;
      for (int k = 0; k < n; ++k)
        if (passive[k]) P.push_back(k);
      Eigen::MatrixXd AP(A.rows(), static_cast<Index>(P.size()));
      for (size_t k = 0; k < P.size(); ++k) AP.col(k) = A.col(P[k]);
      const Eigen::VectorXd zP = AP.colPivHouseholderQr().solve(b);
      if ((zP.array() > 0).all()) {
        x.setZero();
        for (size_t k = 0; k < P.size(); ++k) x[P[k]] = zP[k];
        break;
      }
      Real alpha = 1;
      for (size_t k = 0; k < P.size(); ++k)
        if (zP[k] <= 0) alpha = std::min(alpha, x[P[k]] / (x[P[k]] - zP[k]));
      for (size_t k = 0; k < P.size(); ++k) {
        x[P[k]] += alpha * (zP[k] - x[P[k]]);
        if (x[P[k]] <= tol) {
          x[P[k]] = 0;
          passive[P[k]] = 0;
        }
      }
    }
  }
  out.iterations = outer;
  out.converged = outer < cap;
  return out;
}

}  // namespace fsicut::linsolve
