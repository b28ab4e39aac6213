#pragma once
// Internal to lib/coupling: the solid block of the coupled system
// (coupled_projection.hpp), A_s = c_m M + c_k K, and its split A_s = Z1 + Z2
// of (28)-(30), shared by the assembly of (19) and (33), the preconditioner
// of (33) and the solvers.
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

}  // namespace fsicut::coupling
