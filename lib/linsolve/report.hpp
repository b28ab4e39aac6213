#pragma once
// What every linear solve returns (docs/outputs.md "Convergence"): a failed solve is an
// error or a logged, counted event, never silently ignored.
#include <string>

namespace fsicut::linsolve {

// converged and met_tolerance differ in one case: PCG (pcg.hpp) also accepts a
// relative residual within ROUND_OFF_MARGIN of the round-off floor when the
// floor lies above the tolerance (a stiff solid's squared stiffness in A22
// puts it there); then converged is true and met_tolerance false.
struct Report {
  bool converged = false;        // the solver's acceptance test passed (tolerance, or the round-off floor)
  bool met_tolerance = false;    // relative_residual <= the requested tolerance, and the solution is finite
  int iterations = 0;
  double relative_residual = 0;  // |b - A x| / |b| at exit (0 when b = 0)
  double round_off_floor = 0;    // attainable relative residual in double precision (0: not computed)
  int unknowns = 0;
  std::string failure;  // why the solver could not run at all (e.g. a failed factorization); empty when it ran
};

// The report of a solve with no unknowns: converged after 0 iterations.
inline Report nothing_to_solve() {
  Report r;
  r.converged = true;
  r.met_tolerance = true;
  return r;
}

// Keeps the worse of two reports (for "worst substep" statistics): the
// unconverged one, else the larger relative residual. met_tolerance is that of
// both (a frame met its tolerance only if every solve did).
inline Report worst(const Report& a, const Report& b) {
  Report w = a.converged != b.converged ? (a.converged ? b : a) : (a.relative_residual >= b.relative_residual ? a : b);
  w.met_tolerance = a.met_tolerance && b.met_tolerance;
  return w;
}

}  // namespace fsicut::linsolve
