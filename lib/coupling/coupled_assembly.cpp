// Assembling the coupled systems of coupled_projection.hpp: F + U U^T, the
// indefinite (19) and the alpha-scaled SPD (33).
#include <memory>
#include <vector>

#include <Eigen/SparseCore>

#include "lib/core/parallel.hpp"
#include "lib/coupling/coupled_projection.hpp"
#include "lib/coupling/coupled_solid_block.hpp"
#include "lib/linsolve/sparse.hpp"

namespace fsicut::coupling {
namespace {

using Triplets = std::vector<Eigen::Triplet<Real, int>>;

// Appends `scale * block` at (row0, col0).
void append(Triplets& t, const SparseMatrix& block, int row0, int col0, Real scale = 1) {
  for (int r = 0; r < block.outerSize(); ++r)
    for (SparseMatrix::InnerIterator it(block, r); it; ++it)
      t.emplace_back(row0 + r, col0 + it.col(), scale * it.value());
}

void append_transposed(Triplets& t, const SparseMatrix& block, int row0, int col0, Real scale = 1) {
  for (int r = 0; r < block.outerSize(); ++r)
    for (SparseMatrix::InnerIterator it(block, r); it; ++it)
      t.emplace_back(row0 + it.col(), col0 + r, scale * it.value());
}

// (X + X^T) / 2. Why: a product like J Z1^-1 J^T rounds (i, j) and (j, i)
// differently; PCG and IC assume exact symmetry, and the tests check it.
SparseMatrix symmetric_part(const SparseMatrix& x) { return 0.5 * linsolve::sum(x, linsolve::transposed(x)); }

// [A11  a A12; a A21  a^2 A22], rows copied in parallel (all blocks row-major
// with sorted columns). Why not triplets: sorting the ~1.5M entries of (33)
// at 100^3 was a serial part of every substep.
SparseMatrix blocks(const SparseMatrix& A11, const SparseMatrix& A12, const SparseMatrix& A21, const SparseMatrix& A22,
                    Real a) {
  const Index np = A11.rows(), nv = A22.rows(), n = np + nv;
  const auto length = [&](Index r) {
    return r < np ? A11.outerIndexPtr()[r + 1] - A11.outerIndexPtr()[r] + A12.outerIndexPtr()[r + 1] -
                        A12.outerIndexPtr()[r]
                  : A21.outerIndexPtr()[r - np + 1] - A21.outerIndexPtr()[r - np] + A22.outerIndexPtr()[r - np + 1] -
                        A22.outerIndexPtr()[r - np];
  };
  SparseMatrix m(n, n);
  int* outer = m.outerIndexPtr();
  outer[0] = 0;
  for (Index r = 0; r < n; ++r) outer[r + 1] = outer[r] + length(r);
  m.resizeNonZeros(outer[n]);
  int* inner = m.innerIndexPtr();
  Real* value = m.valuePtr();
  parallel_for(0, n, [&](Index r) {
    int k = outer[r];
    const auto copy = [&](const SparseMatrix& b, Index row, int col0, Real scale) {
      for (int p = b.outerIndexPtr()[row]; p < b.outerIndexPtr()[row + 1]; ++p, ++k) {
        inner[k] = col0 + b.innerIndexPtr()[p];
        value[k] = scale * b.valuePtr()[p];
      }
    };
    if (r < np) {
      copy(A11, r, 0, 1);
      copy(A12, r, static_cast<int>(np), a);
    } else {
      copy(A21, r - np, 0, a);
      copy(A22, r - np, static_cast<int>(np), a * a);
    }
  });
  return m;
}

}  // namespace

SparseMatrix fluid_block(const CoupledSystem& sys) {
  if (sys.low_rank.cols() == 0) return sys.fluid;
  return sys.fluid + symmetric_part(SparseMatrix(sys.low_rank * sys.low_rank.transpose()));
}

SparseMatrix indefinite_matrix(const CoupledSystem& sys) {
  const int np = sys.cells(), nv = sys.dofs();
  const SparseMatrix F = fluid_block(sys);
  Triplets t;
  t.reserve(F.nonZeros() + 2 * sys.coupling.nonZeros() + sys.solid.stiffness_term.nonZeros() + nv);
  append(t, F, 0, 0);
  append(t, sys.coupling, 0, np);
  append_transposed(t, sys.coupling, np, 0);
  append(t, solid_matrix(sys.solid), np, np, -1);
  SparseMatrix m(np + nv, np + nv);
  m.setFromTriplets(t.begin(), t.end());
  return m;
}

Vector indefinite_rhs(const CoupledSystem& sys) {
  Vector b(sys.cells() + sys.dofs());
  b << sys.fluid_rhs, -sys.solid.rhs;
  return b;
}

SpdSystem spd_system(const CoupledSystem& sys, const CoupledSettings& settings) {
  std::shared_ptr<const SolidProductPattern> pattern;
  return spd_system(sys, settings, pattern);
}

SpdSystem spd_system(const CoupledSystem& sys, const CoupledSettings& settings,
                     std::shared_ptr<const SolidProductPattern>& pattern, bool* built) {
  const int np = sys.cells(), nv = sys.dofs();
  const SolidSplit z = split_solid(sys.solid, settings.sigma);
  const SparseMatrix& J = sys.coupling;
  const Vector w = -sys.solid.rhs;

  const bool fits = pattern && pattern->fits(z.z2);
  if (!fits) pattern = std::make_shared<const SolidProductPattern>(z.z2);
  if (built) *built = !fits;

  // J Z1^-1 is J with its columns scaled.
  const SparseMatrix J_z1 = J * z.z1_inverse.asDiagonal();
  // F is exactly symmetric (assembled face by face), so only the product needs it.
  const SparseMatrix A11 = linsolve::sum(sys.fluid, symmetric_part(linsolve::product(J_z1, linsolve::transposed(J))));
  const SparseMatrix A12 = -linsolve::product(J_z1, z.z2);
  const SparseMatrix A22 = pattern->lowered(z.z2, z.z1_inverse);
  const Vector b1 = sys.fluid_rhs + J_z1 * w;
  const Vector b2 = -(z.z2 * z.z1_inverse.cwiseProduct(w));

  SpdSystem out;
  const Real n1 = b1.norm(), n2 = b2.norm();
  // Why the fallback: with one side at rest (|b1| or |b2| = 0) the ratio is 0 or
  // infinite, and either would make the scaled matrix singular.
  out.alpha = settings.alpha ? *settings.alpha
              : (n1 > 0 && n2 > 0) ? n1 / n2
                                   : CoupledSettings{}.alpha.value();
  const Real a = out.alpha;

  out.matrix = blocks(A11, A12, linsolve::transposed(A12), A22, a);
  out.low_rank = sys.low_rank;
  out.rhs.resize(np + nv);
  out.rhs << b1, a * b2;
  return out;
}

}  // namespace fsicut::coupling
