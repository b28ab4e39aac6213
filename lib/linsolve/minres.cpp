#include "lib/linsolve/minres.hpp"

#include <cmath>

#include "lib/core/cancel.hpp"

namespace fsicut::linsolve {

namespace {

// One restart of the preconditioned recurrence from x: at most `budget`
// iterations, until the tracked P^-1-norm of the residual falls below
// `target` times its starting value. Returns the iterations used.
int minres_cycle(const ApplyOperator& A, const ApplyPreconditioner& P, const Vector& b, Vector& x, Real target,
                 int budget) {
  const Index n = b.size();
  Vector Ax;
  A(x, Ax);
  Vector v = b - Ax, v_old = Vector::Zero(n), z, z_next;
  P(v, z);
  Real gamma = std::sqrt(std::max(v.dot(z), Real(0)));
  if (!(gamma > 0)) return 0;
  const Real gamma1 = gamma;
  Real gamma_old = 1, eta = gamma, c = 1, c_old = 1, s = 0, s_old = 0;
  Vector w = Vector::Zero(n), w_old = Vector::Zero(n), Az;
  int k = 0;
  while (k < budget) {
    poll_cancel();
    ++k;
    z /= gamma;
    A(z, Az);
    const Real delta = Az.dot(z);
    Vector v_next = Az - (delta / gamma) * v - (gamma / gamma_old) * v_old;
    P(v_next, z_next);
    const Real gamma_next = std::sqrt(std::max(v_next.dot(z_next), Real(0)));
    const Real a0 = c * delta - c_old * s * gamma;
    const Real a1 = std::sqrt(a0 * a0 + gamma_next * gamma_next);
    const Real a2 = s * delta + c_old * c * gamma;
    const Real a3 = s_old * gamma;
    if (!(a1 > 0)) break;
    const Real c_next = a0 / a1, s_next = gamma_next / a1;
    Vector w_next = (z - a3 * w_old - a2 * w) / a1;
    x += (c_next * eta) * w_next;
    eta = -s_next * eta;
    w_old.swap(w);
    w.swap(w_next);
    v_old.swap(v);
    v.swap(v_next);
    z.swap(z_next);
    gamma_old = gamma;
    gamma = gamma_next;
    c_old = c;
    c = c_next;
    s_old = s;
    s = s_next;
    if (std::abs(eta) <= target * gamma1 || !(gamma > 0)) break;
  }
  return k;
}

}  // namespace

Report solve_minres(const ApplyOperator& A, const ApplyPreconditioner& P, const Vector& b, Vector& x,
                    const MinresSettings& settings) {
  Report report;
  report.unknowns = static_cast<int>(b.size());
  if (x.size() != b.size()) x = Vector::Zero(b.size());
  const Real b_norm = b.norm();
  if (b.size() == 0 || b_norm == 0) {
    x.setZero();
    report = nothing_to_solve();
    report.unknowns = static_cast<int>(b.size());
    return report;
  }
  Vector Ax;
  const auto residual = [&] {
    A(x, Ax);
    return (b - Ax).norm() / b_norm;
  };
  Real relative = residual();
  Real target = settings.tolerance;
  while (relative > settings.tolerance && report.iterations < settings.max_iterations) {
    const int used = minres_cycle(A, P, b, x, target / relative, settings.max_iterations - report.iterations);
    report.iterations += used;
    const Real next = residual();
    if (used == 0 || !std::isfinite(next)) {
      relative = next;
      break;
    }
    // The P^-1-norm estimate passed before the 2-norm did: ask the next
    // restart for as much more as was missing.
    if (next > settings.tolerance) target = std::max(target * settings.tolerance / next, Real(1e-16));
    relative = next;
  }
  report.relative_residual = relative;
  report.met_tolerance = relative <= settings.tolerance && x.allFinite();
  report.converged = report.met_tolerance;
  return report;
}

}  // namespace fsicut::linsolve
