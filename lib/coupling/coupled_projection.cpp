// Solving the coupled system of coupled_projection.hpp: the spd (33),
// indefinite (19) and weak schemes, the residuals, and the diagnosis of a
// solid block of (33) that cannot be factored.
#include "lib/coupling/coupled_projection.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <memory>
#include <string>
#include <utility>

#include <Eigen/SparseCholesky>

#include "lib/core/cancel.hpp"
#include "lib/coupling/coupled_preconditioner.hpp"
#include "lib/coupling/coupled_solid_block.hpp"
#include "lib/linsolve/bicgstab.hpp"

namespace fsicut::coupling {
namespace {

// Past this condition number a Cholesky factorization in double precision
// meets round-off as large as its smallest pivot (1/eps = 4.5e15).
constexpr Real CONDITION_LIMIT = 1 / std::numeric_limits<Real>::epsilon();

// From this many stored entries of the solids' stiffness on (a linear body of
// about 11,000 dofs, a quadratic one of about 5,000), (33) is built as an
// abandonable job. Its products grow a little faster than the entries:
// measured on 2 cores under a load of 5.5, a 20^3 linear cube (1.25e6
// entries) took 4.2 s, so a body just below the bound stays well inside a
// stop's 5 s; for smaller ones copying the system would cost more than it saves.
constexpr Index ABANDONABLE_STIFFNESS_ENTRIES = 500'000;

Vector guess_or_zero(const Vector& v, int n) { return v.size() == n ? v : Vector(Vector::Zero(n)); }

linsolve::PcgSettings pcg_settings(const CoupledSettings& s) {
  linsolve::PcgSettings p;
  p.tolerance = s.tolerance;
  p.max_iterations = s.max_iterations;
  p.preconditioner = s.preconditioner;
  return p;
}

// The numbers behind a failed factorization of the solid block: the pivots of
// an LDL^T of it (LDL^T runs on where LL^T stops at a non-positive pivot), the
// largest stiffness-to-mass ratio of a dof and the condition number it implies.
// The factorization behind it is as long as the one that failed: a job a
// stop request abandons (core/cancel.hpp), which owns `block`.
SolidBlockDiagnosis diagnose(const SolidBlock& solid, SparseMatrix block, Real sigma) {
  SolidBlockDiagnosis d;
  auto held = std::make_shared<const SparseMatrix>(std::move(block));
  auto ratio = std::make_shared<Real>(0);  // 0: a zero pivot
  run_abandonable("ldlt-diagnosis", [held, ratio] {
    Eigen::SimplicialLDLT<Eigen::SparseMatrix<Real>, Eigen::Lower, Eigen::AMDOrdering<int>> ldlt(*held);
    if (ldlt.info() != Eigen::Success || ldlt.vectorD().size() == 0) return;
    const Vector pivots = ldlt.vectorD();
    const Real largest = pivots.cwiseAbs().maxCoeff();
    *ratio = largest > 0 ? pivots.minCoeff() / largest : 0;
  });
  d.pivot_ratio = *ratio;
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

// spd_system, as a job a stop request abandons (core/cancel.hpp) when the
// solids are large: its products square their stiffness (Z2 Z1^-1 Z2), which
// on a quadratic sphere of 50,000 dofs takes 10-20 s. Smaller solids build it
// in place, without copying the system.
SpdSystem abandonable_spd_system(const CoupledSystem& sys, const CoupledSettings& settings,
                                 SpdWorkspace::Kept* kept) {
  std::shared_ptr<const SolidProductPattern> pattern = kept ? kept->solid_product : nullptr;
  bool built = false;
  SpdSystem spd;
  if (!abandonable() || sys.solid.stiffness_term.nonZeros() < ABANDONABLE_STIFFNESS_ENTRIES) {
    spd = spd_system(sys, settings, pattern, &built);
  } else {
    auto held = std::make_shared<CoupledSystem>();
    held->fluid = sys.fluid;
    held->fluid_rhs = sys.fluid_rhs;
    held->coupling = sys.coupling;
    held->solid = sys.solid;
    held->low_rank = sys.low_rank;
    struct Result {
      SpdSystem spd;
      std::shared_ptr<const SolidProductPattern> pattern;
      bool built = false;
    };
    auto out = std::make_shared<Result>();
    out->pattern = pattern;
    run_abandonable("spd-system", [held, settings, out] {
      out->spd = spd_system(*held, settings, out->pattern, &out->built);
    });
    spd = std::move(out->spd);
    pattern = out->pattern;
    built = out->built;
  }
  if (kept) {
    kept->solid_product = pattern;
    ++(built ? kept->counts.solid_products_built : kept->counts.solid_products_kept);
  }
  return spd;
}

}  // namespace

SpdSystem spd_system(const CoupledSystem& sys, const CoupledSettings& settings, SpdWorkspace& workspace) {
  return abandonable_spd_system(sys, settings, &workspace.kept());
}

CoupledSolution solve_spd(const CoupledSystem& sys, const CoupledSettings& settings, const CoupledSolution& guess,
                          SpdWorkspace* workspace) {
  const int np = sys.cells(), nv = sys.dofs();
  SpdWorkspace::Kept* kept = workspace ? &workspace->kept() : nullptr;
  const SpdSystem spd = abandonable_spd_system(sys, settings, kept);
  Vector x(np + nv);
  x << guess_or_zero(guess.pressure, np), guess_or_zero(guess.velocity, nv) / spd.alpha;
  CoupledSolution out;
  out.alpha = spd.alpha;
  if (np + nv == 0) {
    out.report = linsolve::nothing_to_solve();
  } else {
    const SchurPreconditioner precondition(sys, spd, settings.sigma, settings.preconditioner, kept);
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
