#pragma once
// A multigrid V-cycle as a preconditioner for PCG on a pressure matrix whose
// unknowns are grid cells (MGPCG, McAdams, Sifakis & Teran 2010), built from
// the matrix and the cells alone, so the coupled pressure block of (33),
// A11 = F + J Z1^-1 J^T, gets it as well as the liquid-only F.
//
// The hierarchy is geometric: the cells of level l+1 are the parents (c / 2,
// componentwise) of level l's cells. Prolongation P, level l+1 -> level l, is
// the cell-centred trilinear interpolation (weights 3/4 and 1/4 per axis from
// the parent and its neighbour on the child's side) over the coarse cells that
// exist, renormalized to sum to 1 so constants pass exactly (Neumann walls);
// restriction is P^T. The coarse operator is (1/2) Q^T A Q, Q the
// piecewise-constant injection of a parent into its children: a 7-point A stays
// 7-point (the .cpp says why not P^T A P), and the cut-cell face weights,
// ghost-fluid free-surface terms and J Z1^-1 J^T all carry over, no geometry
// needed.
//
// Smoothing is Jacobi with M_ii = c (a_ii + sum_{j != i} |a_ij|), c = 0.6 > 1/2:
// 2 M - A is then strictly diagonally dominant, so every sweep converges in the
// A-norm for any SPD A (no spectral estimate needed); on the 7-point Laplacian
// it is Jacobi damped by 0.83. Two sweeps before and after the coarse
// correction, starting from zero, and an exact solve on the coarsest level
// make the cycle a symmetric positive-definite operator for any SPD coarse
// operators: PCG stays valid. Every kernel is a row-parallel sparse product (no
// triangular solve).
#include <Eigen/Dense>
#include <functional>
#include <vector>

#include "lib/linsolve/pcg.hpp"

namespace fsicut::linsolve {

class Multigrid {
 public:
  // A: n x n SPD, both triangles stored. cells: n grid cells (coordinates >= 0),
  // cells[i] the one of unknown i. Unknowns may share a cell (a cut cell whose
  // liquid a thin solid splits into regions, one unknown each): they restrict
  // to the same parent, each takes the interpolated coarse value, and the
  // coarse operator (1/2) Q^T A Q sums their rows like those of siblings, so
  // it stays SPD and the cycle symmetric positive definite.
  Multigrid(SparseMatrix A, const std::vector<Vec3i>& cells);
  // The same for the operator S = A - C, computing C x with `lowering`: sweeps
  // of S (A's smoother) before and after a correction of S's residual by A's
  // whole V-cycle Q, the same number each side, starting from zero. C must be
  // symmetric positive semi-definite and S positive definite: then 2 M - S =
  // (2 M - A) + C is positive definite as well, every sweep converges in the
  // S-norm, and the cycle (one sweep each side: 2 N - N S N + (I - N S) Q
  // (I - S N), N = M^-1) is an SPD preconditioner of S for the SPD Q. Used for
  // the pressure Schur complement of (33), A11 - J (Z1^-1 - A_s^-1) J^T
  // (coupling/coupled_projection.cpp).
  Multigrid(SparseMatrix A, const std::vector<Vec3i>& cells, LinearOperator lowering);
  // The same when C vanishes outside the rows and columns `support` (distinct,
  // ascending): `lowering` then maps x on the support (#support) to C x there
  // (#support). Why: C = J (Z1^-1 - A_s^-1) J^T lives on the cells the solids'
  // surfaces cross, a few percent of the unknowns, and a full-length product
  // per call was most of the lowering's cost; with an empty support (dry
  // solids) C is zero and nothing is called.
  Multigrid(SparseMatrix A, const std::vector<Vec3i>& cells, LinearOperator lowering, std::vector<int> support);
  // Set-up kept across matrices on the same cells: the hierarchy (each level's
  // cells, parents and transfer operators) depends on the cells alone, the
  // levels' operators and smoothers on A. built_on(cells): true when `cells`
  // equals the cells this was built on; refresh(A) then recomputes the latter
  // for a new A (n x n SPD as above), bit for bit what a new
  // Multigrid(A, cells) would hold; the lowering and its support stay as they
  // were (set_lowering replaces them).
  bool built_on(const std::vector<Vec3i>& cells) const { return cells == cells_; }
  void refresh(SparseMatrix A);
  // Replaces the lowering C of the second and third constructors (the third's
  // form: C vanishes outside `support`, distinct and ascending).
  void set_lowering(LinearOperator lowering, std::vector<int> support);
  // False when the coarsest level could not be factorized.
  bool ok() const { return ok_; }
  int levels() const { return static_cast<int>(levels_.size()); }
  // z = (one V-cycle applied to r from z = 0); r and z of size n (z is resized).
  void apply(const Vector& r, Vector& z) const;

 private:
  struct Level {
    SparseMatrix A;
    Vector inverse_smoother;   // 1 / M_ii
    std::vector<int> parent;   // of each row, on the next level
    SparseMatrix restriction;  // P^T to the next level
    SparseMatrix prolongation; // P from the next level
    mutable Vector rhs, x, residual, scratch;  // workspace; rhs and x of the coarse levels only
  };
  // Every level's operator and smoother from A, on the hierarchy built.
  void set_values(SparseMatrix A);
  void cycle(std::size_t l, const Vector& b, Vector& x) const;
  void lowered_cycle(const Vector& b, Vector& x) const;
  std::vector<Vec3i> cells_;  // the finest level's, as built
  std::vector<Level> levels_;
  LinearOperator lowering_;
  std::vector<int> support_;  // of C; empty with all_rows_: every row
  bool all_rows_ = true;
  mutable Vector shifted_, scratch_, residual_, correction_, on_support_, lowered_;  // lowered_cycle's workspace
  Eigen::LDLT<Eigen::MatrixXd> coarsest_;
  bool ok_ = true;
};

}  // namespace fsicut::linsolve
