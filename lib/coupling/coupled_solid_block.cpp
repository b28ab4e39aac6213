#include "lib/coupling/coupled_solid_block.hpp"

#include <algorithm>

#include "lib/core/parallel.hpp"
#include "lib/linsolve/sparse.hpp"

namespace fsicut::coupling {
namespace {

// Below this many dofs the values are computed on one thread.
constexpr Index PARALLEL_DOFS = 2000;

SparseMatrix diagonal(const Vector& d) {
  SparseMatrix m(d.size(), d.size());
  m.reserve(Eigen::VectorXi::Ones(d.size()));
  for (int i = 0; i < d.size(); ++i) m.insert(i, i) = d[i];
  m.makeCompressed();
  return m;
}

// `m` itself when compressed (Z2 always is), else a compressed copy kept in `copy`.
const SparseMatrix& compressed(const SparseMatrix& m, SparseMatrix& copy) {
  if (m.isCompressed()) return m;
  copy = m;
  copy.makeCompressed();
  return copy;
}

// The plain expression the kept pattern reproduces; for patterns that are not symmetric.
SparseMatrix plain_lowered(const SparseMatrix& z2, const Vector& z1_inverse) {
  const SparseMatrix x =
      linsolve::sum(z2, linsolve::product(SparseMatrix(z2 * z1_inverse.asDiagonal()), z2));
  return 0.5 * linsolve::sum(x, linsolve::transposed(x));
}

}  // namespace

SparseMatrix solid_matrix(const SolidBlock& s) { return SparseMatrix(diagonal(s.mass_term) + s.stiffness_term); }

SolidSplit split_solid(const SolidBlock& s, Real sigma) {
  SolidSplit z;
  z.z1_inverse = (sigma * s.mass_term).cwiseInverse();
  z.z2 = diagonal((1 - sigma) * s.mass_term) + s.stiffness_term;
  return z;
}

SolidProductPattern::SolidProductPattern(const SparseMatrix& z2_in) {
  SparseMatrix copy;
  const SparseMatrix& z2 = compressed(z2_in, copy);
  const Index n = z2.rows();
  z2_outer_.assign(z2.outerIndexPtr(), z2.outerIndexPtr() + n + 1);
  z2_inner_.assign(z2.innerIndexPtr(), z2.innerIndexPtr() + z2.nonZeros());
  x_ = linsolve::sum(z2, linsolve::product(z2, z2));
  x_.makeCompressed();
  const int* outer = x_.outerIndexPtr();
  const int* inner = x_.innerIndexPtr();
  std::vector<int> mirror(static_cast<std::size_t>(x_.nonZeros()));
  bool symmetric = true;
  for (Index i = 0; i < n && symmetric; ++i)
    for (int p = outer[i]; p < outer[i + 1]; ++p) {
      const int j = inner[p];
      const int* found = std::lower_bound(inner + outer[j], inner + outer[j + 1], static_cast<int>(i));
      if (found == inner + outer[j + 1] || *found != i) {
        symmetric = false;
        break;
      }
      mirror[p] = static_cast<int>(found - inner);
    }
  if (symmetric) mirror_ = std::move(mirror);
}

bool SolidProductPattern::fits(const SparseMatrix& z2_in) const {
  SparseMatrix copy;
  const SparseMatrix& z2 = compressed(z2_in, copy);
  return z2.rows() + 1 == static_cast<Index>(z2_outer_.size()) && z2.cols() == z2.rows() &&
         std::equal(z2_outer_.begin(), z2_outer_.end(), z2.outerIndexPtr()) &&
         std::equal(z2_inner_.begin(), z2_inner_.end(), z2.innerIndexPtr());
}

SparseMatrix SolidProductPattern::lowered(const SparseMatrix& z2_in, const Vector& z1_inverse) const {
  SparseMatrix copy;
  const SparseMatrix& z2 = compressed(z2_in, copy);
  if (mirror_.empty() && x_.nonZeros() > 0) return plain_lowered(z2, z1_inverse);
  const Index n = z2.rows();
  const int *zo = z2.outerIndexPtr(), *zi = z2.innerIndexPtr(), *xo = x_.outerIndexPtr(), *xi = x_.innerIndexPtr();
  const Real* zv = z2.valuePtr();
  std::vector<Real> x(static_cast<std::size_t>(x_.nonZeros()));
  const Chunks chunks(n, PARALLEL_DOFS);
  chunks.each([&](int c) {
    std::vector<int> slot(static_cast<std::size_t>(n), -1);  // column -> its position in the row
    std::vector<char> assigned;
    for (Index i = chunks.begin(c); i < chunks.begin(c + 1); ++i) {
      const int row = xo[i];
      for (int p = row; p < xo[i + 1]; ++p) slot[xi[p]] = p;
      assigned.assign(static_cast<std::size_t>(xo[i + 1] - row), 0);
      for (int q = zo[i]; q < zo[i + 1]; ++q) {
        const int k = zi[q];
        const Real a = zv[q] * z1_inverse[k];  // (Z2 Z1^-1)_ik
        for (int r = zo[k]; r < zo[k + 1]; ++r) {
          const int p = slot[zi[r]];
          if (assigned[p - row]) {
            x[p] += zv[r] * a;
          } else {
            assigned[p - row] = 1;
            x[p] = zv[r] * a;
          }
        }
      }
      // X = Z2 + product: an entry of the product only is summed with 0, as linsolve::sum does.
      std::vector<char>& in_z2 = assigned;
      std::fill(in_z2.begin(), in_z2.end(), 0);
      for (int q = zo[i]; q < zo[i + 1]; ++q) {
        const int p = slot[zi[q]];
        x[p] = zv[q] + x[p];
        in_z2[p - row] = 1;
      }
      for (int p = row; p < xo[i + 1]; ++p)
        if (!in_z2[p - row]) x[p] = Real(0) + x[p];
    }
  });
  SparseMatrix a22 = x_;
  Real* out = a22.valuePtr();
  parallel_for_from(PARALLEL_DOFS, x_.nonZeros(), [&](Index p) { out[p] = 0.5 * (x[p] + x[mirror_[p]]); });
  return a22;
}

}  // namespace fsicut::coupling
