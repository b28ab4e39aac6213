#include <doctest/doctest.h>

#include <cstring>
#include <random>

#include "lib/linsolve/sparse.hpp"

using namespace fsicut;
using namespace fsicut::linsolve;

namespace {

// rows x cols with about `per_row` entries a row at random columns, some rows
// empty, values of both signs and explicit zeros and negative zeros (which a
// sum must keep as Eigen does).
SparseMatrix random_matrix(int rows, int cols, int per_row, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> col(0, cols - 1), count(0, 2 * per_row);
  std::uniform_real_distribution<Real> value(-1, 1);
  std::vector<Eigen::Triplet<Real>> t;
  for (int r = 0; r < rows; ++r) {
    if (r % 11 == 0) continue;
    const int n = count(rng);
    for (int k = 0; k < n; ++k) {
      const int c = col(rng);
      const Real v = k % 13 == 5 ? Real(0) : k % 17 == 3 ? Real(-0.0) : value(rng);
      t.emplace_back(r, c, v);
    }
  }
  SparseMatrix m(rows, cols);
  m.setFromTriplets(t.begin(), t.end());
  m.makeCompressed();
  return m;
}

// Same shape, pattern, entry order and values bit for bit.
bool identical(const SparseMatrix& a, const SparseMatrix& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols() || a.nonZeros() != b.nonZeros()) return false;
  return std::memcmp(a.outerIndexPtr(), b.outerIndexPtr(), sizeof(int) * (a.rows() + 1)) == 0 &&
         std::memcmp(a.innerIndexPtr(), b.innerIndexPtr(), sizeof(int) * a.nonZeros()) == 0 &&
         std::memcmp(a.valuePtr(), b.valuePtr(), sizeof(Real) * a.nonZeros()) == 0;
}

}  // namespace

// Sizes on both sides of the kernels' one-thread threshold (16384 rows), so
// the chunked parallel paths run too.
TEST_CASE("sparse: transposed, sum, product and leading_block are Eigen's matrices bit for bit") {
  for (const auto& [rows, cols] : {std::pair{300, 200}, std::pair{40000, 25000}, std::pair{20000, 50000}}) {
    CAPTURE(rows);
    CAPTURE(cols);
    const SparseMatrix A = random_matrix(rows, cols, 6, 1), B = random_matrix(rows, cols, 3, 2);
    CHECK(identical(transposed(A), SparseMatrix(A.transpose())));
    CHECK(identical(sum(A, B), SparseMatrix(A + B)));
    CHECK(identical(sum(B, SparseMatrix(rows, cols)), SparseMatrix(B + SparseMatrix(rows, cols))));
    const SparseMatrix C = random_matrix(cols, 700, 4, 3);
    CHECK(identical(product(A, C), SparseMatrix(A * C)));
    CHECK(identical(product(A, transposed(B)), SparseMatrix(A * B.transpose())));
    CHECK(identical(product(transposed(B), A), SparseMatrix(B.transpose() * A)));
    const Index n = std::min(rows, cols) / 2;
    CHECK(identical(leading_block(A, n), SparseMatrix(A.topLeftCorner(n, n))));
    CHECK(identical(leading_block(A, std::min(rows, cols)),
                    SparseMatrix(A.topLeftCorner(std::min(rows, cols), std::min(rows, cols)))));
    // Not compressed (as insert() leaves a matrix): room after each row's entries.
    SparseMatrix U = A;
    U.uncompress();
    U.insert(rows - 1, cols - 1) = 3.0;
    REQUIRE(!U.isCompressed());
    CHECK(identical(transposed(U), SparseMatrix(U.transpose())));
    CHECK(identical(sum(U, B), SparseMatrix(U + B)));
    CHECK(identical(sum(B, U), SparseMatrix(B + U)));
    CHECK(identical(leading_block(U, n), SparseMatrix(U.topLeftCorner(n, n))));
    CHECK(identical(product(U, C), SparseMatrix(U * C)));
  }
}

TEST_CASE("sparse: a sum keeps a negative zero summed with 0, as Eigen does") {
  SparseMatrix A(1, 2), B(1, 2);
  A.insert(0, 0) = -0.0;
  B.insert(0, 1) = 2.0;
  A.makeCompressed();
  B.makeCompressed();
  const SparseMatrix s = sum(A, B);
  REQUIRE(s.nonZeros() == 2);
  CHECK(!std::signbit(s.valuePtr()[0]));  // -0 + 0 = +0
  CHECK(s.valuePtr()[1] == 2.0);
}
