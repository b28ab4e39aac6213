#include "lib/linsolve/multigrid.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

#include "lib/core/parallel.hpp"
#include "lib/linsolve/sparse.hpp"

namespace fsicut::linsolve {
namespace {

// Sweeps of the smoother before and after each coarse correction.
constexpr int SWEEPS = 2;
// Sweeps of S = A - C before and after the correction by A's whole V-cycle
// (lowered_cycle). Each sweep and the residual call the lowering, a sparse
// Cholesky solve of the solid block A_s (the cycle's dearest part: 2 k per
// cycle for k sweeps). Why 1 around A's whole cycle: measured, coupled (33)
// to 1e-10, one thread, the same system solved with each variant (min of 2-4
// solves), PCG iterations / seconds per solve:
//   variant (lowerings)               Buoyancy 100^3  Buoyancy 128^3  dam break 100^3
//   3 S-sweeps, A's coarse levels (6)   21 / 1.61       25 / 3.07       15 / 0.387
//   2 S-sweeps, A's coarse levels (4)   19 / 1.20       31 / 2.93       16 / 0.344
//   1 S-sweep, A's coarse levels (2)    31 / 1.39                       21 / 0.327
//   A's V-cycle alone (0)               32 / 1.65                       16 / 0.286
//   1 S-sweep around A's V-cycle (2)    23 / 1.39       27 / 2.76       15 / 0.344
//   2 S-sweeps around A's V-cycle (4)   20 / 1.41       25 / 3.03       14 / 0.368
// (Buoyancy with its balls under the water, 400k / 831k unknowns; at 64^3 the
// iterations are 20.5 / 27.5 / - / 38.5 / 24.5 / 19 and 15 / 16 / - / 16 / 15
// / 14.) Two S-sweeps on A's coarse levels are fastest at 100^3 but need 31
// iterations at 128^3; one S-sweep around A's V-cycle calls the lowering a
// third as often as three sweeps did, keeps the iterations within 27, and
// solves 10-14 % faster than three sweeps on every system above. (A's V-cycle
// alone wins on the dam break, whose thin beam barely lowers S, and loses on
// Buoyancy.)
constexpr int LOWERED_SWEEPS = 1;
// Any factor above 1/2 makes 2 M - A diagonally dominant (see the header).
// Why 0.6: interior damping 1/1.2 = 0.83, near the optimum 6/7 for the 7-point
// Laplacian; measured on a pool with a pillar (tests), PCG iterations to 1e-10
// at 32^3 / 64^3 / 100^3: 0.75 -> 14 / 18 / 20, 0.6 -> 14 / 17 / 17, 0.55 ->
// 15 / 17 / 17.
constexpr Real SMOOTHER_SCALE = 0.6;
// The coarsest level is factorized densely (n^3 / 3 flops, ~13 ms at 400 on
// one core): below this size that is cheaper than another level.
constexpr int COARSEST_UNKNOWNS = 200;
// Guard against levels that stop shrinking (cannot happen once the cells
// collapse to one per group, but a malformed cell list must not loop).
constexpr int MAX_LEVELS = 24;

// Levels with fewer rows run their kernels on one thread. Why: such a kernel
// takes tens of microseconds, the order of an OpenMP fork and join, and every
// parallel region waits for its slowest thread; on a loaded machine a
// descheduled thread stalls each of the cycle's ~10 regions per level
// (measured, 2 threads with other jobs running: 150 ms per iteration at 8016
// unknowns against 0.5 ms on one thread).
constexpr Index LEVEL_PARALLEL_ROWS = 16384;

// body(i) for i in [0, n), in parallel when n is large enough to pay for it.
template <class F>
void for_level_rows(Index n, const F& body) {
  parallel_for_from(LEVEL_PARALLEL_ROWS, n, body);
}

// Calls out(i, (A x)_i) for every row i.
template <class Out>
void for_each_product(const SparseMatrix& A, const Vector& x, const Out& out) {
  const int* outer = A.outerIndexPtr();
  const int* inner = A.innerIndexPtr();
  const Real* value = A.valuePtr();
  for_level_rows(A.rows(), [&](Index i) {
    Real s = 0;
    for (int p = outer[i]; p < outer[i + 1]; ++p) s += value[p] * x[inner[p]];
    out(i, s);
  });
}

// y = A x.
void multiply(const SparseMatrix& A, const Vector& x, Vector& y) {
  y.resize(A.rows());
  for_each_product(A, x, [&](Index i, Real ax) { y[i] = ax; });
}

// y = x + m .* (b - A x): one Jacobi sweep.
void sweep(const SparseMatrix& A, const Vector& m, const Vector& b, const Vector& x, Vector& y) {
  y.resize(A.rows());
  for_each_product(A, x, [&](Index i, Real ax) { y[i] = x[i] + m[i] * (b[i] - ax); });
}

// r = b - A x.
void residual(const SparseMatrix& A, const Vector& b, const Vector& x, Vector& r) {
  r.resize(A.rows());
  for_each_product(A, x, [&](Index i, Real ax) { r[i] = b[i] - ax; });
}

Vector inverse_smoother(const SparseMatrix& A) {
  Vector m(A.rows());
  for_level_rows(A.rows(), [&](Index i) {
    Real sum = 0;
    for (SparseMatrix::InnerIterator it(A, i); it; ++it) sum += std::abs(it.value());
    m[i] = 1 / (SMOOTHER_SCALE * sum);
  });
  return m;
}

using Entries = std::vector<std::pair<int, Real>>;

// How build_rows makes a row: once, staged in a per-thread buffer until the
// row lengths are known (for rows dear to make: a coarse row sorts and merges
// its eight children's rows), or twice, for the lengths and then in place (for
// cheap rows of a large matrix, whose staging would hold the matrix a second
// time: measured, the prolongation made twice took Buoyancy's peak memory at
// 100^3 from 849 to 837 MB).
enum class Rows { made_once, made_twice };

// A rows x cols matrix whose row r holds what make_row(r, entries) appends
// (column, value; any order, repeated columns summed), rows in parallel.
template <class MakeRow>
SparseMatrix build_rows(Index rows, Index cols, Rows how, const MakeRow& make_row) {
  // make_row's entries sorted by column, repeated columns summed.
  const auto merged = [&](Index r, Entries& e) {
    e.clear();
    make_row(r, e);
    std::sort(e.begin(), e.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::size_t out = 0;
    for (std::size_t k = 0; k < e.size(); ++k) {
      if (out > 0 && e[out - 1].first == e[k].first) e[out - 1].second += e[k].second;
      else e[out++] = e[k];
    }
    e.resize(out);
  };
  const Chunks chunks(rows, LEVEL_PARALLEL_ROWS);
  std::vector<Entries> staged(how == Rows::made_once ? chunks.count : 0);
  std::vector<int> length(rows);
  chunks.each([&](int c) {
    Entries row;
    for (Index r = chunks.begin(c); r < chunks.begin(c + 1); ++r) {
      merged(r, row);
      length[r] = static_cast<int>(row.size());
      if (how == Rows::made_once) staged[c].insert(staged[c].end(), row.begin(), row.end());
    }
  });
  SparseMatrix m(rows, cols);
  int* outer = m.outerIndexPtr();
  outer[0] = 0;
  for (Index r = 0; r < rows; ++r) outer[r + 1] = outer[r] + length[r];
  m.resizeNonZeros(outer[rows]);
  int* inner = m.innerIndexPtr();
  Real* value = m.valuePtr();
  chunks.each([&](int c) {
    const auto place = [&](const Entries& e, int k) {
      for (const auto& [column, v] : e) {
        inner[k] = column;
        value[k++] = v;
      }
    };
    if (how == Rows::made_once) {
      place(staged[c], outer[chunks.begin(c)]);
      return;
    }
    Entries row;
    for (Index r = chunks.begin(c); r < chunks.begin(c + 1); ++r) {
      merged(r, row);
      place(row, outer[r]);
    }
  });
  return m;
}

// The parents of `cells` (numbered in grid order, x fastest), each cell's
// parent, and the trilinear prolongation from the parents; returns the parents.
std::vector<Vec3i> coarsen(const std::vector<Vec3i>& cells, std::vector<int>& parent_of, SparseMatrix& prolongation) {
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
  parent_of.resize(n);
  for_level_rows(n, [&](Index i) { parent_of[i] = number[box(Vec3i(cells[i] / 2))]; });
  prolongation = build_rows(n, static_cast<int>(coarse.size()), Rows::made_twice, [&](Index i, Entries& row) {
    const Vec3i parent = cells[i] / 2;
    Vec3i step;
    for (int a = 0; a < 3; ++a) step[a] = cells[i][a] % 2 ? 1 : -1;
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
      row.emplace_back(k, w);
      total += w;
    }
    for (auto& e : row) e.second /= total;
  });
  return coarse;
}

// The coarse operator: (1/2) Q^T A Q, Q the piecewise-constant injection of
// each parent into its children. Why not Galerkin with the trilinear P: P^T A P
// of a 7-point A has a 125-point stencil on every coarse level (measured: more
// nonzeros on the first coarse level than on the fine one, 3x the cost per
// cycle); Q^T A Q keeps 7 points (a coarse face sums the 4 fine faces across
// it) and the far couplings of J Z1^-1 J^T only shrink. The 1/2: Q^T A Q
// couples coarse neighbours with 4 fine face weights where a discretization
// on the coarse grid has 2 (a face weight scales with the cell size in 3-D,
// A being an energy ~ integral |grad p|^2), as in McAdams et al.'s
// rediscretized coarse levels. It is SPD for SPD A (Q has full column rank).
SparseMatrix coarse_operator(const SparseMatrix& A, const std::vector<int>& parent, int coarse_size) {
  // The children of each coarse cell, by a counting sort of `parent`.
  std::vector<int> first(coarse_size + 1, 0), children(parent.size());
  for (int p : parent) ++first[p + 1];
  for (int c = 0; c < coarse_size; ++c) first[c + 1] += first[c];
  std::vector<int> next(first.begin(), first.end() - 1);
  for (std::size_t i = 0; i < parent.size(); ++i) children[next[parent[i]]++] = static_cast<int>(i);
  return build_rows(coarse_size, coarse_size, Rows::made_once, [&](Index c, Entries& row) {
    for (int k = first[c]; k < first[c + 1]; ++k)
      for (SparseMatrix::InnerIterator it(A, children[k]); it; ++it)
        row.emplace_back(parent[it.col()], Real(0.5) * it.value());
  });
}

}  // namespace

Multigrid::Multigrid(SparseMatrix A, const std::vector<Vec3i>& cells, LinearOperator lowering)
    : Multigrid(std::move(A), cells) {
  lowering_ = std::move(lowering);
}

Multigrid::Multigrid(SparseMatrix A, const std::vector<Vec3i>& cells, LinearOperator lowering,
                     std::vector<int> support)
    : Multigrid(std::move(A), cells, std::move(lowering)) {
  support_ = std::move(support);
  all_rows_ = false;
}

Multigrid::Multigrid(SparseMatrix A, const std::vector<Vec3i>& cells) : cells_(cells) {
  // Reserved: a reallocation would copy every level's matrices.
  levels_.reserve(MAX_LEVELS);
  std::vector<Vec3i> level_cells = cells;
  levels_.emplace_back();
  Index rows = static_cast<Index>(cells.size());
  while (rows > COARSEST_UNKNOWNS && static_cast<int>(levels_.size()) < MAX_LEVELS) {
    Level& fine = levels_.back();
    std::vector<Vec3i> coarse = coarsen(level_cells, fine.parent, fine.prolongation);
    if (coarse.size() == level_cells.size()) {
      fine.parent.clear();
      fine.prolongation = SparseMatrix();
      break;
    }
    fine.restriction = transposed(fine.prolongation);
    levels_.emplace_back();
    rows = static_cast<Index>(coarse.size());
    level_cells = std::move(coarse);
  }
  set_values(std::move(A));
}

void Multigrid::refresh(SparseMatrix A) {
  if (A.rows() != static_cast<Index>(cells_.size()))
    throw std::invalid_argument("Multigrid::refresh: the matrix's size is not the hierarchy's");
  set_values(std::move(A));
}

void Multigrid::set_lowering(LinearOperator lowering, std::vector<int> support) {
  lowering_ = std::move(lowering);
  support_ = std::move(support);
  all_rows_ = false;
}

void Multigrid::set_values(SparseMatrix A) {
  levels_[0].A = std::move(A);
  for (std::size_t l = 0; l + 1 < levels_.size(); ++l) {
    Level& fine = levels_[l];
    fine.inverse_smoother = inverse_smoother(fine.A);
    levels_[l + 1].A = coarse_operator(fine.A, fine.parent, static_cast<int>(fine.prolongation.cols()));
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
  for_level_rows(b.size(), [&](Index i) { x[i] = m[i] * b[i]; });
  for (int s = 1; s < SWEEPS; ++s) {
    sweep(level.A, m, b, x, level.scratch);
    x.swap(level.scratch);
  }
  residual(level.A, b, x, level.residual);
  const Level& coarse = levels_[l + 1];
  multiply(level.restriction, level.residual, coarse.rhs);
  cycle(l + 1, coarse.rhs, coarse.x);
  multiply(level.prolongation, coarse.x, level.scratch);
  for_level_rows(x.size(), [&](Index i) { x[i] += level.scratch[i]; });
  for (int s = 0; s < SWEEPS; ++s) {
    sweep(level.A, m, b, x, level.scratch);
    x.swap(level.scratch);
  }
}

void Multigrid::lowered_cycle(const Vector& b, Vector& x) const {
  const Vector& m = levels_[0].inverse_smoother;
  const SparseMatrix& A = levels_[0].A;
  // b + C x: the sweeps and the residual of S = A - C are A's applied to it.
  const auto shifted = [&]() -> const Vector& {
    if (all_rows_) {
      lowering_(x, shifted_);
      for_level_rows(b.size(), [&](Index i) { shifted_[i] += b[i]; });
      return shifted_;
    }
    if (support_.empty()) return b;
    const Index k = static_cast<Index>(support_.size());
    on_support_.resize(k);
    for (Index s = 0; s < k; ++s) on_support_[s] = x[support_[s]];
    lowering_(on_support_, lowered_);
    shifted_ = b;
    for (Index s = 0; s < k; ++s) shifted_[support_[s]] += lowered_[s];
    return shifted_;
  };
  x.resize(b.size());
  for_level_rows(b.size(), [&](Index i) { x[i] = m[i] * b[i]; });
  for (int s = 1; s < LOWERED_SWEEPS; ++s) {
    sweep(A, m, shifted(), x, scratch_);
    x.swap(scratch_);
  }
  residual(A, shifted(), x, residual_);
  cycle(0, residual_, correction_);
  for_level_rows(x.size(), [&](Index i) { x[i] += correction_[i]; });
  for (int s = 0; s < LOWERED_SWEEPS; ++s) {
    sweep(A, m, shifted(), x, scratch_);
    x.swap(scratch_);
  }
}

void Multigrid::apply(const Vector& r, Vector& z) const {
  // A single level is A's exact inverse, which preconditions S without sweeps.
  if (lowering_ && levels_.size() > 1) lowered_cycle(r, z);
  else cycle(0, r, z);
}

}  // namespace fsicut::linsolve
