#include "lib/coupling/coupled_projection.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include <Eigen/IterativeLinearSolvers>
#include <Eigen/SparseCholesky>
#include <Eigen/SparseCore>

#include "lib/linsolve/bicgstab.hpp"

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
SparseMatrix symmetric_part(const SparseMatrix& x) { return 0.5 * SparseMatrix(x + SparseMatrix(x.transpose())); }

SparseMatrix solid_matrix(const SolidBlock& s) { return SparseMatrix(diagonal(s.mass_term) + s.stiffness_term); }

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

// Block-diagonal preconditioner of (33): the chosen preconditioner of the
// pressure block A11 (multigrid, MIC(0), IC(0)) and an exact sparse Cholesky factorization of the solid block
// alpha^2 A22. Why not one IC of the whole matrix (the paper's choice): A22
// holds Z2 Z1^-1 Z2, whose spectrum is the square of the stiffness's relative
// to the mass, and IC of the whole matrix stalled on stiff solids (E = 1e7 Pa,
// 375 dofs: relative residual 3e-7 after 2000 iterations). The solid block is
// small (3 x free nodes) and its exact factorization absorbs that stiffness.
//
// Why not factor A22 = Z2 Z1^-1 A_s as Z2 and A_s separately (each with the
// stiffness's condition number, not its square): when A22's own factorization
// fails, the matrix (33) itself is beyond double precision (its products
// p^T A p lose their sign), and PCG breaks down at the first step instead.
// The failed factorization is the earlier and clearer signal.
class BlockPreconditioner {
 public:
  BlockPreconditioner(const SparseMatrix& A, int np, linsolve::Preconditioner kind, const std::vector<Vec3i>& cells)
      : np_(np), nv_(static_cast<int>(A.rows()) - np) {
    if (np_ > 0) fluid_ = linsolve::make_preconditioner(kind, SparseMatrix(A.topLeftCorner(np_, np_)), cells);
    if (nv_ > 0) solid_.compute(Eigen::SparseMatrix<Real>(A.bottomRightCorner(nv_, nv_)));
  }
  bool ok() const { return fluid_ok() && solid_ok(); }
  bool fluid_ok() const { return np_ == 0 || static_cast<bool>(fluid_); }
  bool solid_ok() const { return nv_ == 0 || solid_.info() == Eigen::Success; }
  void operator()(const Vector& r, Vector& z) const {
    z.resize(r.size());
    if (np_ > 0) {
      fluid_r_ = r.head(np_);
      fluid_(fluid_r_, fluid_z_);
      z.head(np_) = fluid_z_;
    }
    if (nv_ > 0) z.tail(nv_) = solid_.solve(r.tail(nv_));
  }

 private:
  int np_, nv_;
  linsolve::ApplyPreconditioner fluid_;
  mutable Vector fluid_r_, fluid_z_;
  Eigen::SimplicialLLT<Eigen::SparseMatrix<Real>, Eigen::Lower, Eigen::AMDOrdering<int>> solid_;
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
                "the Cholesky factorization of the solid block of (33) failed: Z2 + Z2 Z1^-1 Z2 is not numerically "
                "positive definite (smallest / largest pivot of its LDL^T %.3g). ",
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

SparseMatrix indefinite_matrix(const CoupledSystem& sys) {
  const int np = sys.cells(), nv = sys.dofs();
  Triplets t;
  t.reserve(sys.fluid.nonZeros() + 2 * sys.coupling.nonZeros() + sys.solid.stiffness_term.nonZeros() + nv);
  append(t, sys.fluid, 0, 0);
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
  const SparseMatrix A11 = symmetric_part(sys.fluid + SparseMatrix(J_z1 * J.transpose()));
  const SparseMatrix A12 = -(J_z1 * z.z2);
  const SparseMatrix A22 = symmetric_part(z.z2 + SparseMatrix(z.z2 * z.z1_inverse.asDiagonal() * z.z2));
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

  Triplets t;
  t.reserve(A11.nonZeros() + 2 * A12.nonZeros() + A22.nonZeros());
  append(t, A11, 0, 0);
  append(t, A12, 0, np, a);
  append_transposed(t, A12, np, 0, a);
  append(t, A22, np, np, a * a);
  out.matrix.resize(np + nv, np + nv);
  out.matrix.setFromTriplets(t.begin(), t.end());
  out.rhs.resize(np + nv);
  out.rhs << b1, a * b2;
  return out;
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
    const BlockPreconditioner precondition(spd.matrix, np, settings.preconditioner, sys.grid_cells);
    if (precondition.ok()) {
      out.report = linsolve::solve_pcg(spd.matrix, spd.rhs, x, pcg_settings(settings),
                                       [&](const Vector& r, Vector& z) { precondition(r, z); });
    } else {
      // The report of a solve that could not start: x stays the guess.
      out.report.unknowns = np + nv;
      out.report.relative_residual = spd.rhs.norm() > 0 ? (spd.rhs - spd.matrix * x).norm() / spd.rhs.norm() : 0;
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
    const linsolve::ApplyPreconditioner precondition =
        linsolve::make_preconditioner(settings.preconditioner, sys.fluid, sys.grid_cells);
    fluid = precondition ? linsolve::solve_pcg(sys.fluid, b_fluid, out.pressure, pcg, precondition)
                         : linsolve::solve_pcg(sys.fluid, b_fluid, out.pressure, pcg);
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
  r.fluid = relative(sys.fluid * p + sys.coupling * v - sys.fluid_rhs, sys.fluid_rhs);
  r.solid = relative(solid_matrix(sys.solid) * v - sys.coupling.transpose() * p - sys.solid.rhs, sys.solid.rhs);
  return r;
}

}  // namespace fsicut::coupling
