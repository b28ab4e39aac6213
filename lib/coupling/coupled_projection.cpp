#include "lib/coupling/coupled_projection.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Dense>
#include <Eigen/IterativeLinearSolvers>
#include <Eigen/SparseCholesky>
#include <Eigen/SparseCore>

#include "lib/core/parallel.hpp"
#include "lib/linsolve/bicgstab.hpp"
#include "lib/linsolve/multigrid.hpp"
#include "lib/linsolve/sparse.hpp"

namespace fsicut::coupling {
namespace {

using Triplets = std::vector<Eigen::Triplet<Real, int>>;

// Past this condition number a Cholesky factorization in double precision
// meets round-off as large as its smallest pivot (1/eps = 4.5e15).
constexpr Real CONDITION_LIMIT = 1 / std::numeric_limits<Real>::epsilon();

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

SparseMatrix diagonal(const Vector& d) {
  SparseMatrix m(d.size(), d.size());
  m.reserve(Eigen::VectorXi::Ones(d.size()));
  for (int i = 0; i < d.size(); ++i) m.insert(i, i) = d[i];
  m.makeCompressed();
  return m;
}

// (X + X^T) / 2. Why: a product like J Z1^-1 J^T rounds (i, j) and (j, i)
// differently; PCG and IC assume exact symmetry, and the tests check it.
SparseMatrix symmetric_part(const SparseMatrix& x) { return 0.5 * linsolve::sum(x, linsolve::transposed(x)); }

SparseMatrix solid_matrix(const SolidBlock& s) { return SparseMatrix(diagonal(s.mass_term) + s.stiffness_term); }

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

Vector guess_or_zero(const Vector& v, int n) { return v.size() == n ? v : Vector(Vector::Zero(n)); }

// The pieces of (28)-(30) that depend on sigma only.
struct Split {
  Vector z1_inverse;  // #dofs, Z1^-1 (diagonal) [s/kg]
  SparseMatrix z2;    // #dofs^2 [kg/s]
};

Split split(const SolidBlock& s, Real sigma) {
  Split z;
  z.z1_inverse = (sigma * s.mass_term).cwiseInverse();
  z.z2 = diagonal((1 - sigma) * s.mass_term) + s.stiffness_term;
  return z;
}

linsolve::PcgSettings pcg_settings(const CoupledSettings& s) {
  linsolve::PcgSettings p;
  p.tolerance = s.tolerance;
  p.max_iterations = s.max_iterations;
  p.preconditioner = s.preconditioner;
  return p;
}

// Sparse Cholesky factorization of a block-diagonal SPD matrix, one per
// diagonal block, solved in parallel over the blocks. Why: the solid matrices
// couple no two bodies, and a triangular solve is serial; per body, the solves
// of a scene with several solids run side by side.
class BlockCholesky {
 public:
  // Factorizes A into this and B into `other`, every diagonal block of both
  // in one parallel loop (two threads busy even for a single body: Z2 and A_s
  // share a pattern and a size). False when a block of either is not
  // numerically positive definite.
  bool compute_pair(const SparseMatrix& A, BlockCholesky& other, const SparseMatrix& B) {
    partition(A);
    other.partition(B);
    const Index blocks = static_cast<Index>(factor_.size());
    const Index total = blocks + static_cast<Index>(other.factor_.size());
    std::vector<char> ok(total, 0);
    parallel_for(0, total, [&](Index k) {
      BlockCholesky& f = k < blocks ? *this : other;
      const SparseMatrix& M = k < blocks ? A : B;
      const Index j = k < blocks ? k : k - blocks;
      const int s = f.start_[j], m = f.start_[j + 1] - s;
      f.factor_[j] = std::make_unique<Cholesky>(Eigen::SparseMatrix<Real>(M.block(s, s, m, m)));
      ok[k] = f.factor_[j]->info() == Eigen::Success;
    });
    return std::all_of(ok.begin(), ok.end(), [](char c) { return c != 0; });
  }
  // x = A^-1 b (x is resized).
  void solve(const Vector& b, Vector& x) const { solve_pair(b, x, nullptr, nullptr); }
  // x = A^-1 b and, with `other`, y = other^-1 b: both factorizations' blocks
  // in one parallel loop (two threads busy even for a single body).
  void solve_pair(const Vector& b, Vector& x, const BlockCholesky* other, Vector* y) const {
    x.resize(b.size());
    if (other) y->resize(b.size());
    const Index blocks = static_cast<Index>(factor_.size());
    parallel_for(0, other ? blocks + static_cast<Index>(other->factor_.size()) : blocks, [&](Index k) {
      const BlockCholesky& f = k < blocks ? *this : *other;
      Vector& out = k < blocks ? x : *y;
      const Index j = k < blocks ? k : k - blocks;
      const int s = f.start_[j], m = f.start_[j + 1] - s;
      out.segment(s, m) = f.factor_[j]->solve(b.segment(s, m));
    });
  }

 private:
  using Cholesky = Eigen::SimplicialLLT<Eigen::SparseMatrix<Real>, Eigen::Lower, Eigen::AMDOrdering<int>>;
  // The diagonal blocks of A: a block ends at row i when no row up to i
  // reaches a column past i.
  void partition(const SparseMatrix& A) {
    const int n = static_cast<int>(A.rows());
    start_ = {0};
    int reach = 0;  // the farthest column of the rows so far
    for (int i = 0; i < n; ++i) {
      for (SparseMatrix::InnerIterator it(A, i); it; ++it) reach = std::max(reach, static_cast<int>(it.col()));
      if (reach <= i) start_.push_back(i + 1);
    }
    factor_.clear();
    factor_.resize(start_.size() - 1);
  }
  std::vector<int> start_;
  std::vector<std::unique_ptr<Cholesky>> factor_;
};

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
class SchurPreconditioner {
 public:
  SchurPreconditioner(const CoupledSystem& sys, const SpdSystem& spd, Real sigma, linsolve::Preconditioner kind)
      : np_(sys.cells()), nv_(sys.dofs()), alpha_(spd.alpha) {
    const SparseMatrix& A = spd.matrix;
    if (nv_ > 0) {
      const Split z = split(sys.solid, sigma);
      solid_ok_ = z2_.compute_pair(z.z2, solid_, solid_matrix(sys.solid));
      if (!solid_ok_) return;
      z1_inverse_ = z.z1_inverse;
    }
    if (np_ == 0) return;
    SparseMatrix A11 = linsolve::leading_block(A, np_);
    if (nv_ == 0 || kind != linsolve::Preconditioner::multigrid ||
        static_cast<int>(sys.grid_cells.size()) != np_) {
      pressure_ = linsolve::make_preconditioner(kind, std::move(A11), sys.grid_cells);
    } else {
      // C x = J (Z1^-1 - A_s^-1) J^T x on the rows of J with entries (the
      // cells the solids' surfaces cross), J_ those rows.
      std::vector<int> wet;
      for (int r = 0; r < sys.coupling.outerSize(); ++r)
        if (SparseMatrix::InnerIterator(sys.coupling, r)) wet.push_back(r);
      J_.resize(static_cast<Index>(wet.size()), nv_);
      std::vector<Eigen::Triplet<Real, int>> t;
      for (std::size_t k = 0; k < wet.size(); ++k)
        for (SparseMatrix::InnerIterator it(sys.coupling, wet[k]); it; ++it)
          t.emplace_back(static_cast<int>(k), static_cast<int>(it.col()), it.value());
      J_.setFromTriplets(t.begin(), t.end());
      Jt_ = linsolve::transposed(J_);
      const auto lowering = [this](const Vector& x, Vector& y) {
        jt_x_ = Jt_ * x;
        solid_.solve(jt_x_, lowering_);
        lowering_ = z1_inverse_.cwiseProduct(jt_x_) - lowering_;
        y = J_ * lowering_;
      };
      auto mg = std::make_shared<linsolve::Multigrid>(std::move(A11), sys.grid_cells, lowering, std::move(wet));
      if (mg->ok()) pressure_ = [mg](const Vector& r, Vector& z) { mg->apply(r, z); };
    }
    if (nv_ > 0) {
      A12_ = A.topRightCorner(np_, nv_);
      A21_ = A.bottomLeftCorner(nv_, np_);
    }
  }
  // The multigrid's lowering refers to this object: not copyable.
  SchurPreconditioner(const SchurPreconditioner&) = delete;
  SchurPreconditioner& operator=(const SchurPreconditioner&) = delete;

  bool ok() const { return fluid_ok() && solid_ok(); }
  bool fluid_ok() const { return np_ == 0 || static_cast<bool>(pressure_); }
  bool solid_ok() const { return nv_ == 0 || solid_ok_; }
  void operator()(const Vector& r, Vector& z) const {
    z.resize(r.size());
    if (nv_ == 0) {
      pressure_(r, z);
      return;
    }
    if (np_ == 0) {
      solid_block_solve(r, w_);
      z = w_;
      return;
    }
    solid_block_solve(r.tail(nv_), w_);
    r1_ = r.head(np_) - A12_ * w_;
    pressure_(r1_, z1_);
    r2_ = r.tail(nv_) - A21_ * z1_;
    solid_block_solve(r2_, w_);
    z.tail(nv_) = w_;
    z.head(np_) = z1_;
  }

 private:
  // x = (alpha^2 A22)^-1 b = (Z2^-1 b - A_s^-1 b) / alpha^2.
  void solid_block_solve(const Vector& b, Vector& x) const {
    z2_.solve_pair(b, x, &solid_, &solid_x_);
    x = (x - solid_x_) / (alpha_ * alpha_);
  }

  int np_, nv_;
  Real alpha_;
  bool solid_ok_ = true;
  linsolve::ApplyPreconditioner pressure_;  // P, of S (multigrid) or A11
  BlockCholesky z2_, solid_;                // of Z2 and A_s
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
  Deflation(const SpdSystem& spd, linsolve::ApplyPreconditioner inner) : inner_(std::move(inner)) {
    const Index n = spd.matrix.rows();
    Z_.resize(n, spd.low_rank.cols());
    Z_.reserve(spd.low_rank.nonZeros());
    for (int r = 0; r < spd.low_rank.outerSize(); ++r)
      for (SparseMatrix::InnerIterator it(spd.low_rank, r); it; ++it) Z_.insert(r, it.col()) = it.value();
    Z_.makeCompressed();
    const SparseMatrix UtU = SparseMatrix(spd.low_rank.transpose()) * spd.low_rank;
    AZ_ = SparseMatrix(spd.matrix * Z_) + SparseMatrix(Z_ * UtU);  // Z U^T U = [U U^T U; 0]
    const Eigen::MatrixXd E = Eigen::MatrixXd(Eigen::SparseMatrix<Real>(SparseMatrix(Z_.transpose()) * AZ_));
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(0.5 * (E + E.transpose()));
    const Vector lambda = eig.eigenvalues();
    const Real largest = lambda.size() > 0 ? lambda.cwiseAbs().maxCoeff() : 0;
    Vector inverse = Vector::Zero(lambda.size());
    for (Index k = 0; k < lambda.size(); ++k)
      if (lambda[k] > PSEUDO_INVERSE_CUTOFF * largest) inverse[k] = 1 / lambda[k];
    E_plus_ = eig.eigenvectors() * inverse.asDiagonal() * eig.eigenvectors().transpose();
  }
  void operator()(const Vector& r, Vector& z) const {
    const Vector coarse = E_plus_ * (Z_.transpose() * r);
    shifted_ = r - AZ_ * coarse;
    inner_(shifted_, z);
    z += Z_ * (coarse - E_plus_ * (AZ_.transpose() * z));
  }

 private:
  // Eigenvalues of Z^T A Z below this share of the largest count as zero.
  static constexpr Real PSEUDO_INVERSE_CUTOFF = 1e-12;
  linsolve::ApplyPreconditioner inner_;
  SparseMatrix Z_, AZ_;     // (#active + #dofs) x k
  Eigen::MatrixXd E_plus_;  // (Z^T A Z)^+
  mutable Vector shifted_;
};

// The numbers behind a failed factorization of the solid block: the pivots of
// an LDL^T of it (LDL^T runs on where LL^T stops at a non-positive pivot), the
// largest stiffness-to-mass ratio of a dof and the condition number it implies.
SolidBlockDiagnosis diagnose(const SolidBlock& solid, const SparseMatrix& block, Real sigma) {
  SolidBlockDiagnosis d;
  Eigen::SimplicialLDLT<Eigen::SparseMatrix<Real>, Eigen::Lower, Eigen::AMDOrdering<int>> ldlt(block);
  if (ldlt.info() == Eigen::Success && ldlt.vectorD().size() > 0) {
    const Vector pivots = ldlt.vectorD();
    const Real largest = pivots.cwiseAbs().maxCoeff();
    d.pivot_ratio = largest > 0 ? pivots.minCoeff() / largest : 0;
  } else {
    d.pivot_ratio = 0;  // a zero pivot
  }
  const Vector k = solid.stiffness_term.diagonal();
  d.min_stiffness = k.size() > 0 ? k.minCoeff() : 0;
  for (int i = 0; i < k.size(); ++i) {
    const Real ratio = k[i] / solid.mass_term[i];
    if (d.dof < 0 || ratio > d.stiffness_to_mass) d.stiffness_to_mass = ratio, d.dof = i;
  }
  const Real r = std::max(d.stiffness_to_mass, Real(0));
  d.condition_estimate = (1 - sigma + r) * (1 + r) / (1 - sigma);
  return d;
}

std::string describe(const SolidBlockDiagnosis& d) {
  char text[640];
  std::snprintf(text, sizeof text,
                "the solid block of (33), Z2 + Z2 Z1^-1 Z2, is not numerically positive definite (smallest / largest "
                "pivot of its LDL^T %.3g). ",
                d.pivot_ratio);
  std::string cause = text;
  if (d.min_stiffness < 0) {
    std::snprintf(text, sizeof text, "The stiffness c_k K has a negative diagonal entry (%.3g kg/s): it is not positive semi-definite",
                  d.min_stiffness);
  } else if (d.condition_estimate > CONDITION_LIMIT) {
    std::snprintf(text, sizeof text,
                  "The block squares the solid's stiffness relative to its mass: the largest stiffness-to-mass ratio "
                  "(c_k K)_ii / (c_m M)_ii is %.3g (free dof %d), which makes its condition number about %.3g, past "
                  "what double precision resolves (%.3g): the solid is too stiff for its mass at this time step",
                  d.stiffness_to_mass, d.dof, d.condition_estimate, CONDITION_LIMIT);
  } else {
    std::snprintf(text, sizeof text,
                  "Its stiffness-to-mass ratio (largest (c_k K)_ii / (c_m M)_ii %.3g, free dof %d; condition number "
                  "about %.3g) does not explain it: the stiffness K is indefinite or singular beyond round-off",
                  d.stiffness_to_mass, d.dof, d.condition_estimate);
  }
  return cause + text;
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
  const int np = sys.cells(), nv = sys.dofs();
  const Split z = split(sys.solid, settings.sigma);
  const SparseMatrix& J = sys.coupling;
  const Vector w = -sys.solid.rhs;

  // J Z1^-1 is J with its columns scaled.
  const SparseMatrix J_z1 = J * z.z1_inverse.asDiagonal();
  // F is exactly symmetric (assembled face by face), so only the product needs it.
  const SparseMatrix A11 = linsolve::sum(sys.fluid, symmetric_part(linsolve::product(J_z1, linsolve::transposed(J))));
  const SparseMatrix A12 = -linsolve::product(J_z1, z.z2);
  const SparseMatrix A22 =
      symmetric_part(linsolve::sum(z.z2, linsolve::product(SparseMatrix(z.z2 * z.z1_inverse.asDiagonal()), z.z2)));
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

linsolve::ApplyPreconditioner spd_preconditioner(const CoupledSystem& sys, const SpdSystem& spd,
                                                 const CoupledSettings& settings) {
  auto p = std::make_shared<SchurPreconditioner>(sys, spd, settings.sigma, settings.preconditioner);
  if (!p->ok()) return {};
  linsolve::ApplyPreconditioner apply = [p](const Vector& r, Vector& z) { (*p)(r, z); };
  if (spd.low_rank.cols() == 0) return apply;
  auto deflated = std::make_shared<Deflation>(spd, apply);
  return [deflated](const Vector& r, Vector& z) { (*deflated)(r, z); };
}

CoupledSolution solve_spd(const CoupledSystem& sys, const CoupledSettings& settings, const CoupledSolution& guess) {
  const int np = sys.cells(), nv = sys.dofs();
  const SpdSystem spd = spd_system(sys, settings);
  Vector x(np + nv);
  x << guess_or_zero(guess.pressure, np), guess_or_zero(guess.velocity, nv) / spd.alpha;
  CoupledSolution out;
  out.alpha = spd.alpha;
  if (np + nv == 0) {
    out.report = linsolve::nothing_to_solve();
  } else {
    const SchurPreconditioner precondition(sys, spd, settings.sigma, settings.preconditioner);
    if (precondition.ok()) {
      linsolve::ApplyPreconditioner apply = [&](const Vector& r, Vector& z) { precondition(r, z); };
      if (spd.low_rank.cols() > 0) {
        auto deflated = std::make_shared<Deflation>(spd, apply);
        apply = [deflated](const Vector& r, Vector& z) { (*deflated)(r, z); };
      }
      out.report = linsolve::solve_pcg(spd.matrix, spd.low_rank, spd.rhs, x, pcg_settings(settings), apply);
      // Z2 and A_s factor even when (33) itself is beyond double precision (its
      // solid block squares the stiffness-to-mass ratio): PCG's recursive
      // residual then falls while the true one ends worse than the zero guess's.
      if (nv > 0 && !(out.report.relative_residual <= 1)) {
        out.solid_failure = diagnose(sys.solid, SparseMatrix(spd.matrix.bottomRightCorner(nv, nv)), settings.sigma);
        out.report.converged = false;
        out.report.met_tolerance = false;
        out.report.failure = describe(*out.solid_failure);
      }
    } else {
      // The report of a solve that could not start: x stays the guess.
      out.report.unknowns = np + nv;
      Vector ax = spd.matrix * x;
      if (np > 0 && spd.low_rank.cols() > 0) ax.head(np) += spd.low_rank * (spd.low_rank.transpose() * x.head(np));
      out.report.relative_residual = spd.rhs.norm() > 0 ? (spd.rhs - ax).norm() / spd.rhs.norm() : 0;
      if (!precondition.solid_ok()) {
        out.solid_failure = diagnose(sys.solid, SparseMatrix(spd.matrix.bottomRightCorner(nv, nv)), settings.sigma);
        out.report.failure = describe(*out.solid_failure);
      } else {
        out.report.failure = "the preconditioner of the pressure block of (33) could not be set up";
      }
    }
  }
  out.pressure = x.head(np);
  out.velocity = spd.alpha * x.tail(nv);
  return out;
}

CoupledSolution solve_indefinite(const CoupledSystem& sys, const CoupledSettings& settings,
                                 const CoupledSolution& guess) {
  const int np = sys.cells(), nv = sys.dofs();
  Vector x(np + nv);
  x << guess_or_zero(guess.pressure, np), guess_or_zero(guess.velocity, nv);
  linsolve::BicgstabSettings b;
  b.tolerance = settings.tolerance;
  b.max_iterations = settings.max_iterations;
  CoupledSolution out;
  out.report = np + nv > 0 ? linsolve::solve_bicgstab(indefinite_matrix(sys), indefinite_rhs(sys), x, b)
                           : linsolve::nothing_to_solve();
  out.pressure = x.head(np);
  out.velocity = x.tail(nv);
  return out;
}

CoupledSolution solve_weak(const CoupledSystem& sys, const CoupledSettings& settings, const CoupledSolution& guess) {
  const int np = sys.cells(), nv = sys.dofs();
  linsolve::PcgSettings pcg = pcg_settings(settings);
  pcg.preconditioner = linsolve::Preconditioner::incomplete_cholesky;  // the solid's, and the fallback
  CoupledSolution out;
  // 1. The liquid against the solid as it moves now: F p = b_f - J v*.
  const Vector v_star = guess_or_zero(guess.velocity, nv);
  out.pressure = guess_or_zero(guess.pressure, np);
  const Vector b_fluid = sys.fluid_rhs - sys.coupling * v_star;
  linsolve::Report fluid = linsolve::nothing_to_solve();
  if (np > 0) {
    const SparseMatrix F = fluid_block(sys);
    const linsolve::ApplyPreconditioner precondition =
        linsolve::make_preconditioner(settings.preconditioner, F, sys.grid_cells);
    fluid = precondition ? linsolve::solve_pcg(F, b_fluid, out.pressure, pcg, precondition)
                         : linsolve::solve_pcg(F, b_fluid, out.pressure, pcg);
  }
  // 2. The solid with those pressure forces: A_s v = b_s + J^T p.
  out.velocity = v_star;
  const Vector b_solid = sys.solid.rhs + sys.coupling.transpose() * out.pressure;
  const linsolve::Report solid = nv > 0 ? linsolve::solve_pcg(solid_matrix(sys.solid), b_solid, out.velocity, pcg)
                                        : linsolve::nothing_to_solve();
  out.report = linsolve::worst(fluid, solid);
  out.report.iterations = fluid.iterations + solid.iterations;
  out.report.unknowns = np + nv;
  return out;
}

CoupledResidual residual(const CoupledSystem& sys, const Vector& p, const Vector& v) {
  auto relative = [](const Vector& r, const Vector& b) {
    const Real n = b.norm();
    return n > 0 ? r.norm() / n : r.norm();
  };
  CoupledResidual r;
  Vector fp = sys.fluid * p;
  if (sys.low_rank.cols() > 0) fp += sys.low_rank * (sys.low_rank.transpose() * p);
  r.fluid = relative(fp + sys.coupling * v - sys.fluid_rhs, sys.fluid_rhs);
  r.solid = relative(solid_matrix(sys.solid) * v - sys.coupling.transpose() * p - sys.solid.rhs, sys.solid.rhs);
  return r;
}

}  // namespace fsicut::coupling
