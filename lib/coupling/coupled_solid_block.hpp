#pragma once
// Internal to lib/coupling: the solid block of the coupled system
// (coupled_projection.hpp), A_s = c_m M + c_k K, and its split A_s = Z1 + Z2
// of (28)-(30), shared by the assembly of (19) and (33), the preconditioner
// of (33) and the solvers.
#include <memory>
#include <vector>

#include "lib/coupling/coupled_projection.hpp"

namespace fsicut::coupling {

// A_s = diag(mass_term) + stiffness_term: #dofs x #dofs [kg/s], both triangles.
SparseMatrix solid_matrix(const SolidBlock& s);

// The pieces of (28)-(30) that depend on sigma only.
struct SolidSplit {
  Vector z1_inverse;  // #dofs, Z1^-1 = (sigma c_m M)^-1 (diagonal) [s/kg]
  SparseMatrix z2;    // #dofs^2, Z2 = (1 - sigma) c_m M + c_k K [kg/s]
};
SolidSplit split_solid(const SolidBlock& s, Real sigma);

// The lowered solid block of (33), A22 = (X + X^T) / 2 with
// X = Z2 + (Z2 Z1^-1) Z2, from a pattern worked out once. The pattern of X
// (Z2's and its square's: the 2-ring of every node) depends on Z2's pattern
// only, which comes from the meshes and the pinned nodes and never changes,
// so it is kept between solves (SpdWorkspace); only the values are computed
// again. They are computed in the order of the plain expression
// symmetric_part(sum(Z2, product(Z2 Z1^-1, Z2))) of linsolve/sparse.hpp (each
// entry of the product summed over k ascending, the first term assigned, then
// Z2's entry or 0 added, then 0.5 (X_ij + X_ji)), so the block is the same bit
// for bit whether its pattern was kept or not, and a resumed run continues
// exactly. What keeping saves: the product's symbolic work (the accumulator's
// bookkeeping and sorting each row) and the transpose and two sums of the
// symmetric part. Measured (fsicut_bench_stages, 2 threads, the assembly of
// (33) with the pattern kept against made anew, same substeps): three Buoyancy
// balls under water (4,593 dofs) 0.032 against 0.068 s at 64^3, 0.062 against
// 0.090 s at 100^3; the paper dam break at 100^3 0.015 against 0.022 s.
class SolidProductPattern {
 public:
  // The pattern for Z2 = `z2` (#dofs^2, row-major, both triangles; a pattern
  // that is not symmetric is allowed: lowered() then takes the plain route).
  explicit SolidProductPattern(const SparseMatrix& z2);
  // Whether `z2` has the pattern this was made for (compared entry by entry).
  bool fits(const SparseMatrix& z2) const;
  // A22 for `z2` (fits(z2)) and Z1^-1 = diag(z1_inverse) [s/kg]: #dofs^2 [kg/s].
  SparseMatrix lowered(const SparseMatrix& z2, const Vector& z1_inverse) const;

 private:
  std::vector<int> z2_outer_, z2_inner_;  // the pattern of Z2 it was made for
  SparseMatrix x_;                        // the pattern of X (its values are not used)
  std::vector<int> mirror_;               // per entry (i, j) of x_, the position of (j, i); empty: not symmetric
};

// spd_system (coupled_projection.hpp) with its solid block's pattern kept in
// `pattern`: used when it fits the system's Z2, otherwise made anew and left
// there. `built` (if given) says which.
SpdSystem spd_system(const CoupledSystem& system, const CoupledSettings& settings,
                     std::shared_ptr<const SolidProductPattern>& pattern, bool* built = nullptr);

}  // namespace fsicut::coupling
