#pragma once
// Internal to lib/coupling: the preconditioner of the SPD coupled system (33)
// (coupled_projection.hpp's spd_preconditioner and solve_spd): the block
// factorization through the pressure Schur complement, and the reduced
// bodies' low-rank term deflated out of it.
#include <memory>
#include <vector>

#include "lib/coupling/coupled_projection.hpp"
#include "lib/coupling/coupled_solid_block.hpp"
#include "lib/linsolve/block_diagonal_cholesky.hpp"
#include "lib/linsolve/multigrid.hpp"

namespace fsicut::coupling {

// The preconditioner of (33): the block factorization of its inverse through
// the pressure Schur complement S = A11 - A12 A22^-1 A21,
//
//   A^-1 = [I  0; -A22^-1 A21  I] [S^-1  0; 0  A22^-1] [I  -A12 A22^-1; 0  I]
//
// (in the alpha-scaled blocks of (33); S does not depend on alpha), with S^-1
// replaced by the pressure preconditioner P and A22^-1 exact. Applied to
// r = (r1, r2):  w = A22^-1 r2,  z1 = P (r1 - A12 w),  z2 = A22^-1 (r2 - A21 z1).
// It is symmetric positive definite whenever P is, and the eigenvalues of the
// preconditioned (33) are 1 (#dofs of them) and those of P S: PCG on (33)
// converges as PCG on S with P. Substituting the blocks,
// S = F + J A_s^-1 J^T, the liquid coupled to the solid's whole backward Euler
// operator (A11 has Z1 in place of A_s).
//
// A22 = Z2 + Z2 Z1^-1 Z2 holds the square of the stiffness (its factor fills in
// the 2-ring of every node); its inverse is Z2^-1 - A_s^-1 (A_s = Z1 + Z2; with
// Y = Z1^-1/2 Z2 Z1^-1/2, Y^-1 (1 + Y)^-1 = Y^-1 - (1 + Y)^-1), a difference
// of two solves with the stiffness's own sparsity: symmetric, and cheaper to
// factorize and apply (measured, three Buoyancy balls, 4593 dofs: 0.12 s and
// 1.4 ms per solve for A22, 0.016 s and 0.43 ms for A_s).
//
// Why not the block-diagonal diag(P(A11), A22^-1): its iteration count is set
// by the coupling A12, not by P (measured on three Buoyancy balls under water,
// 50^3: 68 iterations with multigrid on A11, 64 with A11 factorized exactly).
// Multigrid preconditions S itself: a Jacobi sweep with S = A11 - C,
// C = J (Z1^-1 - A_s^-1) J^T (positive semi-definite, as A_s = Z1 + Z2 >= Z1),
// on each side of A11's V-cycle (linsolve/multigrid.hpp). MIC and IC
// precondition A11 in place of S. Measured, Buoyancy balls under water, 1e-10:
// 50^3 68 iterations block-diagonal against 23 in this form (with three S
// sweeps on A11's finest level); with the S sweeps around A11's cycle 100^3 23,
// 128^3 27, and A11's cycle alone in this form 32 at 100^3.
// What SpdWorkspace keeps (coupled_projection.hpp): the factorizations of Z2
// and A_s with their symbolic analyses, the multigrid of the pressure block,
// the pattern of the lowered solid block A22 (coupled_solid_block.hpp).
struct SpdWorkspace::Kept {
  linsolve::BlockDiagonalCholesky z2, solid;
  std::shared_ptr<linsolve::Multigrid> multigrid;
  std::shared_ptr<const SolidProductPattern> solid_product;
  Counts counts;
};

class SchurPreconditioner {
 public:
  // `spd` = spd_system(sys, settings) with settings.sigma = sigma; `kind` the
  // pressure preconditioner P. `kept`: set-up from earlier solves to reuse and
  // to leave for later ones (SpdWorkspace), or null. Check ok() before applying.
  SchurPreconditioner(const CoupledSystem& sys, const SpdSystem& spd, Real sigma, linsolve::Preconditioner kind,
                      SpdWorkspace::Kept* kept = nullptr);
  // The multigrid's lowering refers to this object: not copyable; a kept
  // multigrid's lowering is cleared when this object goes.
  SchurPreconditioner(const SchurPreconditioner&) = delete;
  SchurPreconditioner& operator=(const SchurPreconditioner&) = delete;
  ~SchurPreconditioner();

  bool ok() const { return fluid_ok() && solid_ok(); }
  bool fluid_ok() const { return np_ == 0 || static_cast<bool>(pressure_); }
  bool solid_ok() const { return nv_ == 0 || solid_ok_; }
  // z = P_(33) r, both (#active + #dofs) (z is resized).
  void operator()(const Vector& r, Vector& z) const;

 private:
  // x = (alpha^2 A22)^-1 b = (Z2^-1 b - A_s^-1 b) / alpha^2.
  void solid_block_solve(const Vector& b, Vector& x) const;

  // Factorizes Z2 and A_s into *z2_ and *solid_, reusing their symbolic
  // analyses when kept_ holds them for the same patterns.
  bool factorize_solid(const SparseMatrix& z2, const SparseMatrix& solid);
  // The multigrid of S (see above) for A11, kept_'s refreshed when built on the same cells.
  std::shared_ptr<linsolve::Multigrid> multigrid(SparseMatrix A11, const std::vector<Vec3i>& cells,
                                                 std::vector<int> wet);

  int np_, nv_;
  Real alpha_;
  bool solid_ok_ = true;
  SpdWorkspace::Kept* kept_;
  linsolve::ApplyPreconditioner pressure_;  // P, of S (multigrid) or A11
  linsolve::BlockDiagonalCholesky own_z2_, own_solid_;  // without kept_
  linsolve::BlockDiagonalCholesky *z2_, *solid_;        // of Z2 and A_s: own_ or kept_'s
  std::shared_ptr<linsolve::Multigrid> multigrid_;      // when P is the multigrid of S
  Vector z1_inverse_;
  SparseMatrix A12_, A21_;                  // alpha A12, alpha A21
  SparseMatrix J_, Jt_;                     // J's rows with entries, and J_^T: multigrid's lowering
  mutable Vector w_, r1_, r2_, z1_, solid_x_, jt_x_, lowering_;
};

// The reduced bodies' term U U^T deflated out of the preconditioner: the
// balancing (BNN) two-level form with the deflation space Z = [U; 0] (Mandel
// 1993; Tang, Nabben, Vuik & Erlangga 2009, "A-DEF2"),
//   P_b = (I - Q A) P (I - A Q) + Q,   Q = Z (Z^T A Z)^+ Z^T,
// A the whole operator (33) + [U U^T 0; 0 0], P the Schur preconditioner.
// Symmetric positive definite whenever P is, and exact on span(Z). Why: P sees
// F but not U U^T, whose eigenvalues stand out of P's spectrum by about a
// body's added mass over its mass, one outlier per column (measured, twelve
// planks of scenes/reduced_planks.json: 22 PCG iterations against 8 with full
// planks, whose blocks P handles). Z and A Z have the support of U (a few
// cells around each body), so a cycle costs P plus a few sparse products with
// #wetted x (6 + r) entries and two dense (6 + r)k-square solves.
// Columns of Z that A Z does not resolve (a body with few or no wetted cells
// leaves U rank-deficient) drop out through the pseudo-inverse.
class Deflation {
 public:
  // `inner` = P, applied to the whole of (33).
  Deflation(const SpdSystem& spd, linsolve::ApplyPreconditioner inner);
  // z = P_b r, both (#active + #dofs) (z is resized).
  void operator()(const Vector& r, Vector& z) const;

 private:
  // Eigenvalues of Z^T A Z below this share of the largest count as zero.
  static constexpr Real PSEUDO_INVERSE_CUTOFF = 1e-12;
  linsolve::ApplyPreconditioner inner_;
  SparseMatrix Z_, AZ_;     // (#active + #dofs) x k
  Eigen::MatrixXd E_plus_;  // (Z^T A Z)^+
  mutable Vector shifted_;
};

}  // namespace fsicut::coupling
