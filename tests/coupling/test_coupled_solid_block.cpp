// The lowered solid block A22 = (X + X^T) / 2, X = Z2 + Z2 Z1^-1 Z2, of (33)
// from a kept pattern: the same matrix bit for bit as the plain expression,
// on one thread and on two, and the pattern refused for another Z2.
#include <doctest/doctest.h>

#include <cstring>
#include <random>
#include <vector>

#include "lib/core/parallel.hpp"
#include "lib/coupling/coupled_solid_block.hpp"
#include "lib/linsolve/sparse.hpp"

namespace fsicut {
namespace {
using coupling::SparseMatrix;
using coupling::Vector;

// A symmetric pattern like a stiffness's plus its diagonal: B + B^T + diag,
// with values of both signs, explicit zeros and negative zeros.
SparseMatrix symmetric_pattern(int n, int per_row, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> near(-40, 40), count(0, 2 * per_row);
  std::uniform_real_distribution<Real> value(-1, 1);
  std::vector<Eigen::Triplet<Real>> t;
  for (int r = 0; r < n; ++r) {
    t.emplace_back(r, r, 2 + value(rng));
    const int k = count(rng);
    for (int e = 0; e < k; ++e) {
      const int c = std::clamp(r + near(rng), 0, n - 1);
      const Real v = e % 13 == 5 ? Real(0) : e % 17 == 3 ? Real(-0.0) : value(rng);
      t.emplace_back(r, c, v);
      t.emplace_back(c, r, 0.5 * v);
    }
  }
  SparseMatrix m(n, n);
  m.setFromTriplets(t.begin(), t.end());
  m.makeCompressed();
  return m;
}

SparseMatrix plain_lowered(const SparseMatrix& z2, const Vector& z1_inverse) {
  const SparseMatrix x = linsolve::sum(z2, linsolve::product(SparseMatrix(z2 * z1_inverse.asDiagonal()), z2));
  return 0.5 * linsolve::sum(x, linsolve::transposed(x));
}

bool identical(const SparseMatrix& a, const SparseMatrix& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols() || a.nonZeros() != b.nonZeros()) return false;
  return std::memcmp(a.outerIndexPtr(), b.outerIndexPtr(), sizeof(int) * (a.rows() + 1)) == 0 &&
         std::memcmp(a.innerIndexPtr(), b.innerIndexPtr(), sizeof(int) * a.nonZeros()) == 0 &&
         std::memcmp(a.valuePtr(), b.valuePtr(), sizeof(Real) * a.nonZeros()) == 0;
}

struct Threads {
  int before = threads();
  explicit Threads(int n) { set_threads(n); }
  ~Threads() { set_threads(before); }
};

}  // namespace

// Sizes on both sides of the kernel's one-thread threshold (2000 dofs).
TEST_CASE("coupled solid block: the kept pattern gives the plain expression's A22 bit for bit") {
  for (int n : {300, 3000}) {
    CAPTURE(n);
    const SparseMatrix z2 = symmetric_pattern(n, 8, 7);
    const Vector z1_inverse = Vector::LinSpaced(n, 0.5, 3.0);
    const coupling::SolidProductPattern pattern(z2);
    REQUIRE(pattern.fits(z2));
    for (int t : {1, 2}) {
      CAPTURE(t);
      const Threads threads(t);
      const SparseMatrix a22 = pattern.lowered(z2, z1_inverse);
      CHECK(identical(a22, plain_lowered(z2, z1_inverse)));
      CHECK(identical(a22, SparseMatrix(a22.transpose())));
      // New values on the same pattern: the kept pattern still fits and is exact.
      SparseMatrix z2b = z2;
      for (Index p = 0; p < z2b.nonZeros(); ++p) z2b.valuePtr()[p] *= 1 + 1e-3 * static_cast<Real>(p % 7);
      CHECK(pattern.fits(z2b));
      CHECK(identical(pattern.lowered(z2b, z1_inverse), plain_lowered(z2b, z1_inverse)));
    }
  }
}

TEST_CASE("coupled solid block: a kept pattern does not fit another Z2, and a one-sided pattern takes the plain route") {
  const SparseMatrix z2 = symmetric_pattern(200, 6, 3);
  const coupling::SolidProductPattern pattern(z2);
  CHECK_FALSE(pattern.fits(symmetric_pattern(200, 6, 4)));
  CHECK_FALSE(pattern.fits(symmetric_pattern(201, 6, 3)));
  SparseMatrix one_sided = z2;
  one_sided.coeffRef(0, 199) = 0.25;  // (199, 0) stays empty
  one_sided.makeCompressed();
  CHECK_FALSE(pattern.fits(one_sided));
  const Vector z1_inverse = Vector::Constant(200, 0.7);
  const coupling::SolidProductPattern own(one_sided);
  const SparseMatrix a22 = own.lowered(one_sided, z1_inverse);
  CHECK(identical(a22, plain_lowered(one_sided, z1_inverse)));
}

}  // namespace fsicut
