#include "lib/coupling/coupled_solid_block.hpp"

namespace fsicut::coupling {
namespace {

SparseMatrix diagonal(const Vector& d) {
  SparseMatrix m(d.size(), d.size());
  m.reserve(Eigen::VectorXi::Ones(d.size()));
  for (int i = 0; i < d.size(); ++i) m.insert(i, i) = d[i];
  m.makeCompressed();
  return m;
}

}  // namespace

SparseMatrix solid_matrix(const SolidBlock& s) { return SparseMatrix(diagonal(s.mass_term) + s.stiffness_term); }

SolidSplit split_solid(const SolidBlock& s, Real sigma) {
  SolidSplit z;
  z.z1_inverse = (sigma * s.mass_term).cwiseInverse();
  z.z2 = diagonal((1 - sigma) * s.mass_term) + s.stiffness_term;
  return z;
}

}  // namespace fsicut::coupling
