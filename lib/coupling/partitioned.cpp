#include "lib/coupling/partitioned.hpp"

#include <Eigen/Dense>
#include <Eigen/SparseCholesky>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "lib/core/cancel.hpp"

namespace fsicut::coupling {
namespace {

using Dense = Eigen::MatrixXd;
using Clock = std::chrono::steady_clock;

double since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

Real max_abs(const Vector& r) { return r.size() ? r.cwiseAbs().maxCoeff() : 0; }

// Input/output pairs of one side over this substep, and its linear model
// around the latest pair: out ~ out_k + D_out D_in^+ (in - in_k).
class PairModel {
 public:
  void add(const Vector& in, const Vector& out) {
    in_.push_back(in);
    out_.push_back(out);
  }
  const Vector& last_in() const { return in_.back(); }
  const Vector& last_out() const { return out_.back(); }
  int modes() const { return static_cast<int>(in_.size()) - 1; }

  // D_out (n x m) and D_in^+ (m x n), m = modes(): the differences of the
  // earlier pairs to the latest one, and the pseudo-inverse by a complete
  // orthogonal decomposition (column-pivoted QR, rank-revealing), so nearly
  // parallel differences do not blow up the model.
  void factors(Dense& d_out, Dense& d_in_pinv) const {
    const int m = modes();
    const Index n = in_.back().size();
    Dense d_in(n, m);
    d_out.resize(out_.back().size(), m);
    for (int i = 0; i < m; ++i) {
      d_in.col(i) = in_[i] - in_.back();
      d_out.col(i) = out_[i] - out_.back();
    }
    d_in_pinv = Eigen::CompleteOrthogonalDecomposition<Dense>(d_in).pseudoInverse();
  }

 private:
  std::vector<Vector> in_, out_;
};

// x = (I - U W)^-1 b for U (n x m), W (m x n): Woodbury, I + U (I - W U)^-1 W.
Vector solve_low_rank(const Dense& U, const Dense& W, const Vector& b) {
  const Index m = U.cols();
  const Dense small = Dense::Identity(m, m) - W * U;
  return b + U * small.fullPivLu().solve(W * b);
}

}  // namespace

namespace {

// The two sides' calls, timed and counted into the report, and the stopping
// rule: convergence, the budget, or a residual that is no longer a number (a
// diverging iteration overflows long before max_iterations).
struct Passes {
  const FluidSide& fluid;
  const SolidSide& solid;
  const PartitionedSettings& settings;
  PartitionedReport& rep;

  Vector call_fluid(const Vector& v) {
    const auto t = Clock::now();
    Vector g = fluid(v);
    rep.fluid_seconds += since(t);
    return g;
  }
  Vector call_solid(const Vector& g) {
    const auto t = Clock::now();
    Vector v = solid(g);
    rep.solid_seconds += since(t);
    ++rep.iterations;
    return v;
  }
  bool done(const Vector& previous, const Vector& next) {
    rep.interface_residual = max_abs(next - previous);
    rep.converged = rep.interface_residual <= settings.tolerance && rep.interface_residual <= settings.velocity_bound;
    return rep.converged || rep.iterations >= settings.max_iterations || !std::isfinite(rep.interface_residual);
  }
};

// The relaxed fixed point v <- v + omega (S(F(v)) - v).
Vector iterate_relaxed(Passes& passes, const Vector& start) {
  Vector v = start;
  for (;;) {
    const Vector next = passes.call_solid(passes.call_fluid(v));
    const bool stop = passes.done(v, next);
    const auto t = Clock::now();
    if (stop) {
      passes.rep.interface_seconds += since(t);
      return next;
    }
    v += passes.settings.relaxation * (next - v);
    passes.rep.interface_seconds += since(t);
  }
}

// (6): the liquid's input from both reduced models.
Vector predict_liquid_input(const PairModel& liquid, const PairModel& solids) {
  Dense dg_f, dv_f_pinv, dv_s, dg_s_pinv;
  liquid.factors(dg_f, dv_f_pinv);
  solids.factors(dv_s, dg_s_pinv);
  // S_p F_x = dv_s (dg_s^+ dg_f dv_f^+): U = dv_s, W = dg_s^+ dg_f dv_f^+.
  const Dense W = (dg_s_pinv * dg_f) * dv_f_pinv;
  const Vector fx_vf = dg_f * (dv_f_pinv * liquid.last_in());
  const Vector rhs = solids.last_out() + dv_s * (dg_s_pinv * (liquid.last_out() - solids.last_in() - fx_vf));
  return solve_low_rank(dv_s, W, rhs);
}

// (7): the solids' input from both reduced models.
Vector predict_solid_input(const PairModel& liquid, const PairModel& solids) {
  Dense dg_f, dv_f_pinv, dv_s, dg_s_pinv;
  liquid.factors(dg_f, dv_f_pinv);
  if (solids.modes() == 0) {
    // No solid model yet: the liquid's model against the solids' latest
    // answer alone, g = g_f + F_x (v_s - v_f).
    return liquid.last_out() + dg_f * (dv_f_pinv * (solids.last_out() - liquid.last_in()));
  }
  solids.factors(dv_s, dg_s_pinv);
  // F_x S_p = dg_f (dv_f^+ dv_s dg_s^+): U = dg_f, W = dv_f^+ dv_s dg_s^+.
  const Dense W = (dv_f_pinv * dv_s) * dg_s_pinv;
  const Vector sp_gs = dv_s * (dg_s_pinv * solids.last_in());
  const Vector rhs = liquid.last_out() + dg_f * (dv_f_pinv * (solids.last_out() - liquid.last_in() - sp_gs));
  return solve_low_rank(dg_f, W, rhs);
}

// xpm: two plain passes give the liquid its first mode, then every pass feeds
// each side the reduced models' prediction of the coupled state (their
// Algorithm 1, with the first pass checked for convergence as the plain
// iteration's is).
Vector iterate_xpm(Passes& passes, const Vector& start) {
  PairModel liquid, solids;
  Vector v = start;
  Vector g = passes.call_fluid(v);
  liquid.add(v, g);
  Vector v_solid = passes.call_solid(g);
  solids.add(g, v_solid);
  // The first pass is the plain iteration's: it may already be converged.
  if (passes.done(v, v_solid)) return v_solid;
  for (;;) {
    Vector previous = v_solid;
    if (liquid.modes() == 0) {
      v = v_solid;
    } else {
      const auto t = Clock::now();
      v = predict_liquid_input(liquid, solids);
      passes.rep.interface_seconds += since(t);
    }
    g = passes.call_fluid(v);
    liquid.add(v, g);
    {
      const auto t = Clock::now();
      g = predict_solid_input(liquid, solids);
      passes.rep.interface_seconds += since(t);
    }
    v_solid = passes.call_solid(g);
    solids.add(g, v_solid);
    if (passes.done(previous, v_solid)) return v_solid;
  }
}

}  // namespace

bool diverged(const PartitionedReport& r, const PartitionedSettings& settings) {
  return !std::isfinite(r.interface_residual) || r.interface_residual > settings.velocity_bound;
}

PartitionedResult iterate(const FluidSide& fluid, const SolidSide& solid, const Vector& start,
                          const PartitionedSettings& settings) {
  PartitionedResult out;
  Passes passes{fluid, solid, settings, out.report};
  out.velocity = settings.method == PartitionedSettings::Method::relaxed ? iterate_relaxed(passes, start)
                                                                         : iterate_xpm(passes, start);
  return out;
}

SolidSide solid_side(const SolidBlock& block) {
  const int nv = block.dofs();
  auto factor = std::make_shared<Eigen::SimplicialLLT<SparseMatrix>>();
  if (nv > 0) {
    // No iterations to look between: a job a stop request abandons (core/cancel.hpp).
    auto A = std::make_shared<const SparseMatrix>(SparseMatrix(block.mass_term.asDiagonal()) + block.stiffness_term);
    run_abandonable("cholesky", [factor, A] { factor->compute(*A); });
    if (factor->info() != Eigen::Success) return {};
  }
  const Vector rhs = block.rhs;
  return [factor, rhs, nv](const Vector& g) { return nv > 0 ? Vector(factor->solve(rhs + g)) : Vector(); };
}

FluidSide fluid_side(const CoupledSystem& sys, const CoupledSettings& settings, Vector& pressure,
                     linsolve::Report& worst) {
  linsolve::PcgSettings pcg;
  pcg.tolerance = settings.tolerance;
  pcg.max_iterations = settings.max_iterations;
  pcg.preconditioner = settings.preconditioner;
  const linsolve::ApplyPreconditioner precondition =
      sys.cells() > 0 ? linsolve::make_preconditioner(settings.preconditioner, sys.fluid, sys.grid_cells)
                      : linsolve::ApplyPreconditioner();
  return [&sys, &pressure, &worst, pcg, precondition](const Vector& v) {
    if (sys.cells() == 0) return Vector(Vector::Zero(sys.dofs()));
    const Vector b = sys.fluid_rhs - sys.coupling * v;
    const linsolve::Report r = precondition ? linsolve::solve_pcg(sys.fluid, b, pressure, pcg, precondition)
                                            : linsolve::solve_pcg(sys.fluid, b, pressure, pcg);
    worst = linsolve::worst(worst, r);
    return sys.impulse.size() > 0 ? Vector(sys.impulse * pressure) : Vector(sys.coupling.transpose() * pressure);
  };
}

linsolve::Report partitioned_report(const linsolve::Report& worst, const PartitionedReport& r,
                                    const PartitionedSettings& settings) {
  linsolve::Report out = worst;
  if (r.converged) return out;
  out.converged = false;
  out.met_tolerance = false;
  char text[320];
  if (!std::isfinite(r.interface_residual))
    std::snprintf(text, sizeof text,
                  "the partitioned iteration diverged: the interface residual is not finite after %d iterations",
                  r.iterations);
  else if (r.interface_residual > settings.velocity_bound)
    std::snprintf(text, sizeof text,
                  "the partitioned iteration diverged: interface residual %g m/s after %d iterations, above %g m/s, "
                  "the fastest speed the scene's gravity, domain, initial velocities and compression explain",
                  r.interface_residual, r.iterations, settings.velocity_bound);
  else
    std::snprintf(text, sizeof text,
                  "the partitioned iteration did not converge: interface residual %g m/s after %d iterations "
                  "(tolerance %g m/s)",
                  r.interface_residual, r.iterations, settings.tolerance);
  out.failure = text;
  return out;
}

PartitionedSolution solve_partitioned(const CoupledSystem& sys, const CoupledSettings& settings,
                                      const PartitionedSettings& partitioned, const CoupledSolution& guess) {
  const int np = sys.cells(), nv = sys.dofs();
  PartitionedSolution out;
  CoupledSolution& x = out.solution;
  x.pressure = guess.pressure.size() == np ? guess.pressure : Vector(Vector::Zero(np));
  const Vector start = guess.velocity.size() == nv ? guess.velocity : Vector(Vector::Zero(nv));
  const SolidSide solid = solid_side(sys.solid);
  if (!solid) {
    x.velocity = start;
    x.report.failure = "the solid's matrix A_s could not be factored (not positive definite)";
    return out;
  }
  linsolve::Report worst = linsolve::nothing_to_solve();
  const PartitionedResult r = iterate(fluid_side(sys, settings, x.pressure, worst), solid, start, partitioned);
  out.partitioned = r.report;
  x.velocity = r.velocity;
  x.report = partitioned_report(worst, r.report, partitioned);
  x.report.unknowns = np + nv;
  return out;
}

}  // namespace fsicut::coupling
