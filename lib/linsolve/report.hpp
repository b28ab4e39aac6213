#pragma once
// What every linear solve returns (DESIGN.md section 1): a failed solve is an
// error or a logged, counted event, never silently ignored.
#include <string>

namespace fsicut::linsolve {

struct Report {
  bool converged = false;
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
  return r;
}

// Keeps the worse of two reports (for "worst substep" statistics).
inline Report worst(const Report& a, const Report& b) {
  if (a.converged != b.converged) return a.converged ? b : a;
  return a.relative_residual >= b.relative_residual ? a : b;
}

}  // namespace fsicut::linsolve
