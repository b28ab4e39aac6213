#include "lib/linsolve/sparse.hpp"

#include <algorithm>
#include <limits>
#include <vector>

#include "lib/core/parallel.hpp"

namespace fsicut::linsolve {
namespace {

// Below this many rows a kernel runs on one thread: the work is shorter than
// the fork and join (multigrid.cpp measured the same for its products).
constexpr Index PARALLEL_ROWS = 16384;
// Products with fewer entries in both factors run on one thread.
constexpr Index PARALLEL_ENTRIES = 20000;
// Past every column: the end of a row in sum's merge.
constexpr int NO_COLUMN = std::numeric_limits<int>::max();

// Row r's entries are [outer[r], row_end(A, r)): a matrix filled by insert()
// and not compressed keeps room after each row's entries.
int row_end(const SparseMatrix& A, Index r) {
  const int* nonzeros = A.innerNonZeroPtr();
  return nonzeros ? A.outerIndexPtr()[r] + nonzeros[r] : A.outerIndexPtr()[r + 1];
}

template <class F>
void for_rows(Index n, const F& body) {
  parallel_for_from(PARALLEL_ROWS, n, body);
}

// A rows x cols matrix from per-row lengths and a row filler: fill(r, inner,
// value) writes row r's entries at the given positions.
template <class Length, class Fill>
SparseMatrix by_rows(Index rows, Index cols, const Length& length, const Fill& fill) {
  SparseMatrix m(rows, cols);
  std::vector<int> n(rows);
  for_rows(rows, [&](Index r) { n[r] = length(r); });
  int* outer = m.outerIndexPtr();
  outer[0] = 0;
  for (Index r = 0; r < rows; ++r) outer[r + 1] = outer[r] + n[r];
  m.resizeNonZeros(outer[rows]);
  int* inner = m.innerIndexPtr();
  Real* value = m.valuePtr();
  for_rows(rows, [&](Index r) { fill(r, inner + outer[r], value + outer[r]); });
  return m;
}

}  // namespace

SparseMatrix transposed(const SparseMatrix& A) {
  // Each chunk of A's rows counts its entries per column, then scatters them to
  // its own slice of every row of A^T: rows of A^T come out sorted by column.
  const Chunks chunks(A.rows(), PARALLEL_ROWS);
  const Index cols = A.cols();
  const int* outer = A.outerIndexPtr();
  const int* inner = A.innerIndexPtr();
  const Real* value = A.valuePtr();
  std::vector<std::vector<int>> next(chunks.count, std::vector<int>(cols, 0));
  chunks.each([&](int c) {
    for (Index r = chunks.begin(c); r < chunks.begin(c + 1); ++r)
      for (int p = outer[r]; p < row_end(A, r); ++p) ++next[c][inner[p]];
  });
  SparseMatrix t(cols, A.rows());
  int* t_outer = t.outerIndexPtr();
  int at = 0;
  for (Index j = 0; j < cols; ++j) {
    t_outer[j] = at;
    for (int c = 0; c < chunks.count; ++c) {
      const int n = next[c][j];
      next[c][j] = at;
      at += n;
    }
  }
  t_outer[cols] = at;
  t.resizeNonZeros(at);
  int* t_inner = t.innerIndexPtr();
  Real* t_value = t.valuePtr();
  chunks.each([&](int c) {
    std::vector<int>& slot = next[c];
    for (Index r = chunks.begin(c); r < chunks.begin(c + 1); ++r)
      for (int p = outer[r]; p < row_end(A, r); ++p) {
        const int k = slot[inner[p]]++;
        t_inner[k] = static_cast<int>(r);
        t_value[k] = value[p];
      }
  });
  return t;
}

SparseMatrix sum(const SparseMatrix& A, const SparseMatrix& B) {
  // Walks the two sorted rows together; fill writes what length counts.
  const auto merge = [&](Index r, int* inner, Real* value) {
    int p = A.outerIndexPtr()[r], q = B.outerIndexPtr()[r], n = 0;
    const int p_end = row_end(A, r), q_end = row_end(B, r);
    while (p < p_end || q < q_end) {
      const int a = p < p_end ? A.innerIndexPtr()[p] : NO_COLUMN;
      const int b = q < q_end ? B.innerIndexPtr()[q] : NO_COLUMN;
      const int col = std::min(a, b);
      // Eigen's sparse sum adds 0 to an entry of one side only.
      const Real x = a == col ? A.valuePtr()[p++] : Real(0);
      const Real y = b == col ? B.valuePtr()[q++] : Real(0);
      if (inner) {
        inner[n] = col;
        value[n] = x + y;
      }
      ++n;
    }
    return n;
  };
  return by_rows(
      A.rows(), A.cols(), [&](Index r) { return merge(r, nullptr, nullptr); },
      [&](Index r, int* inner, Real* value) { merge(r, inner, value); });
}

SparseMatrix product(const SparseMatrix& A, const SparseMatrix& B) {
  // On one thread, or for small factors, Eigen's own product is the same
  // matrix and faster (its accumulator is sized by the result's rows, not by a
  // dense row of B's): measured, Buoyancy 100^3 assembly of (33) 0.088 s
  // against 0.100 on one thread.
  if (threads() < 2 || A.nonZeros() + B.nonZeros() < PARALLEL_ENTRIES) return SparseMatrix(A * B);
  // Gustavson's row-by-row product: each chunk of A's rows accumulates a row
  // into a dense row of B.cols() values, then stages its sorted entries.
  const Index rows = A.rows(), cols = B.cols();
  const Chunks chunks(rows, 0);
  std::vector<std::vector<std::pair<int, Real>>> staged(chunks.count);
  std::vector<int> length(rows);
  chunks.each([&](int c) {
    std::vector<Real> sum(cols);
    std::vector<Index> seen(cols, -1);  // the last row that touched a column
    std::vector<int> touched;
    auto& out = staged[c];
    for (Index r = chunks.begin(c); r < chunks.begin(c + 1); ++r) {
      touched.clear();
      for (int p = A.outerIndexPtr()[r]; p < row_end(A, r); ++p) {
        const int k = A.innerIndexPtr()[p];
        const Real a = A.valuePtr()[p];
        for (int q = B.outerIndexPtr()[k]; q < row_end(B, k); ++q) {
          const int j = B.innerIndexPtr()[q];
          if (seen[j] != r) {
            seen[j] = r;
            touched.push_back(j);
            sum[j] = B.valuePtr()[q] * a;
          } else {
            sum[j] += B.valuePtr()[q] * a;
          }
        }
      }
      std::sort(touched.begin(), touched.end());
      for (int j : touched) out.emplace_back(j, sum[j]);
      length[r] = static_cast<int>(touched.size());
    }
  });
  SparseMatrix m(rows, cols);
  int* outer = m.outerIndexPtr();
  outer[0] = 0;
  for (Index r = 0; r < rows; ++r) outer[r + 1] = outer[r] + length[r];
  m.resizeNonZeros(outer[rows]);
  chunks.each([&](int c) {
    int k = outer[chunks.begin(c)];
    for (const auto& [j, v] : staged[c]) {
      m.innerIndexPtr()[k] = j;
      m.valuePtr()[k++] = v;
    }
  });
  return m;
}

SparseMatrix leading_block(const SparseMatrix& A, Index n) {
  const int* outer = A.outerIndexPtr();
  const int* inner = A.innerIndexPtr();
  // Columns are sorted: the block's part of a row is its prefix below n.
  const auto end = [&](Index r) {
    return static_cast<int>(std::lower_bound(inner + outer[r], inner + row_end(A, r), n) - inner);
  };
  return by_rows(
      n, n, [&](Index r) { return end(r) - outer[r]; },
      [&](Index r, int* out_inner, Real* out_value) {
        const int last = end(r);
        std::copy(inner + outer[r], inner + last, out_inner);
        std::copy(A.valuePtr() + outer[r], A.valuePtr() + last, out_value);
      });
}

}  // namespace fsicut::linsolve
