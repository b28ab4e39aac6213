#include "lib/linsolve/multigrid.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "lib/core/parallel.hpp"

namespace fsicut::linsolve {
namespace {

// Sweeps of the smoother before and after each coarse correction.
constexpr int SWEEPS = 2;
// Why 3/4: any factor above 1/2 makes 2 M - A diagonally dominant (see the header).
constexpr Real SMOOTHER_SCALE = 0.75;
// The coarsest level is factorized densely (n^3 / 3 flops): below this size
// that is cheaper than another level.
constexpr int COARSEST_UNKNOWNS = 400;
// Guard against levels that stop shrinking (cannot happen once the cells
// collapse to one per group, but a malformed cell list must not loop).
constexpr int MAX_LEVELS = 24;

// y = A x, rows in parallel.
void multiply(const SparseMatrix& A, const Vector& x, Vector& y) {
  const int* outer = A.outerIndexPtr();
  const int* inner = A.innerIndexPtr();
  const Real* value = A.valuePtr();
  y.resize(A.rows());
  parallel_for(0, A.rows(), [&](Index i) {
    Real s = 0;
    for (int p = outer[i]; p < outer[i + 1]; ++p) s += value[p] * x[inner[p]];
    y[i] = s;
  });
}

// y = x + m .* (b - A x): one Jacobi sweep.
void sweep(const SparseMatrix& A, const Vector& m, const Vector& b, const Vector& x, Vector& y) {
  const int* outer = A.outerIndexPtr();
  const int* inner = A.innerIndexPtr();
  const Real* value = A.valuePtr();
  y.resize(A.rows());
  parallel_for(0, A.rows(), [&](Index i) {
    Real s = b[i];
    for (int p = outer[i]; p < outer[i + 1]; ++p) s -= value[p] * x[inner[p]];
    y[i] = x[i] + m[i] * s;
  });
}

// r = b - A x.
void residual(const SparseMatrix& A, const Vector& b, const Vector& x, Vector& r) {
  const int* outer = A.outerIndexPtr();
  const int* inner = A.innerIndexPtr();
  const Real* value = A.valuePtr();
  r.resize(A.rows());
  parallel_for(0, A.rows(), [&](Index i) {
    Real s = b[i];
    for (int p = outer[i]; p < outer[i + 1]; ++p) s -= value[p] * x[inner[p]];
    r[i] = s;
  });
}

Vector inverse_smoother(const SparseMatrix& A) {
  Vector m(A.rows());
  parallel_for(0, A.rows(), [&](Index i) {
    Real sum = 0;
    for (SparseMatrix::InnerIterator it(A, i); it; ++it) sum += std::abs(it.value());
    m[i] = 1 / (SMOOTHER_SCALE * sum);
  });
  return m;
}

// The parents of `cells` (numbered in grid order, x fastest) and the trilinear
// prolongation from them; returns the coarse cells.
std::vector<Vec3i> coarsen(const std::vector<Vec3i>& cells, SparseMatrix& prolongation) {
  Vec3i lo = Vec3i::Constant(std::numeric_limits<int>::max()), hi = Vec3i::Constant(0);
  for (const Vec3i& c : cells) {
    lo = lo.cwiseMin(Vec3i(c / 2));
    hi = hi.cwiseMax(Vec3i(c / 2));
  }
  const Vec3i dims = hi - lo + Vec3i::Ones();
  const auto box = [&](const Vec3i& p) -> Index {
    return (Index(p.z() - lo.z()) * dims.y() + (p.y() - lo.y())) * dims.x() + (p.x() - lo.x());
  };
  std::vector<int> number(static_cast<std::size_t>(dims.prod()), -1);
  for (const Vec3i& c : cells) number[box(Vec3i(c / 2))] = 0;
  std::vector<Vec3i> coarse;
  for (Index k = 0; k < static_cast<Index>(number.size()); ++k) {
    if (number[k] < 0) continue;
    number[k] = static_cast<int>(coarse.size());
    const Index x = k % dims.x(), y = (k / dims.x()) % dims.y(), z = k / (Index(dims.x()) * dims.y());
    coarse.push_back(lo + Vec3i(int(x), int(y), int(z)));
  }
  const auto find = [&](const Vec3i& p) {
    if ((p.array() < lo.array()).any() || (p.array() > hi.array()).any()) return -1;
    return number[box(p)];
  };

  const int n = static_cast<int>(cells.size());
  prolongation.resize(n, static_cast<int>(coarse.size()));
  prolongation.reserve(Eigen::VectorXi::Constant(n, 8));
  for (int i = 0; i < n; ++i) {
    const Vec3i parent = cells[i] / 2;
    Vec3i step;
    for (int a = 0; a < 3; ++a) step[a] = cells[i][a] % 2 ? 1 : -1;
    std::pair<int, Real> entries[8];
    int count = 0;
    Real total = 0;
    for (int corner = 0; corner < 8; ++corner) {
      Vec3i p = parent;
      Real w = 1;
      for (int a = 0; a < 3; ++a) {
        const bool far = (corner >> a) & 1;
        if (far) p[a] += step[a];
        w *= far ? Real(0.25) : Real(0.75);
      }
      const int k = find(p);
      if (k < 0) continue;
      entries[count++] = {k, w};
      total += w;
    }
    // insert() keeps each row's columns sorted.
    for (int e = 0; e < count; ++e) prolongation.insert(i, entries[e].first) = entries[e].second / total;
  }
  prolongation.makeCompressed();
  return coarse;
}

}  // namespace

Multigrid::Multigrid(const SparseMatrix& A, const std::vector<Vec3i>& cells) {
  std::vector<Vec3i> level_cells = cells;
  levels_.emplace_back();
  levels_.back().A = A;
  while (levels_.back().A.rows() > COARSEST_UNKNOWNS && static_cast<int>(levels_.size()) < MAX_LEVELS) {
    Level& fine = levels_.back();
    std::vector<Vec3i> coarse = coarsen(level_cells, fine.prolongation);
    if (coarse.size() == level_cells.size()) break;
    fine.restriction = fine.prolongation.transpose();
    fine.inverse_smoother = inverse_smoother(fine.A);
    const SparseMatrix ap = fine.A * fine.prolongation;
    Level next;
    next.A = fine.restriction * ap;
    levels_.push_back(std::move(next));
    level_cells = std::move(coarse);
  }
  coarsest_.compute(Eigen::MatrixXd(levels_.back().A));
  ok_ = coarsest_.info() == Eigen::Success && coarsest_.isPositive();
}

void Multigrid::cycle(std::size_t l, const Vector& b, Vector& x) const {
  const Level& level = levels_[l];
  if (l + 1 == levels_.size()) {
    x = coarsest_.solve(b);
    return;
  }
  const Vector& m = level.inverse_smoother;
  x.resize(b.size());
  parallel_for(0, b.size(), [&](Index i) { x[i] = m[i] * b[i]; });
  for (int s = 1; s < SWEEPS; ++s) {
    sweep(level.A, m, b, x, level.scratch);
    x.swap(level.scratch);
  }
  residual(level.A, b, x, level.residual);
  const Level& coarse = levels_[l + 1];
  multiply(level.restriction, level.residual, coarse.rhs);
  cycle(l + 1, coarse.rhs, coarse.x);
  multiply(level.prolongation, coarse.x, level.scratch);
  parallel_for(0, x.size(), [&](Index i) { x[i] += level.scratch[i]; });
  for (int s = 0; s < SWEEPS; ++s) {
    sweep(level.A, m, b, x, level.scratch);
    x.swap(level.scratch);
  }
}

void Multigrid::apply(const Vector& r, Vector& z) const { cycle(0, r, z); }

}  // namespace fsicut::linsolve
