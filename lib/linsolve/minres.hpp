#pragma once
// Preconditioned MINRES for symmetric, possibly indefinite systems (Paige &
// Saunders 1975; the preconditioned recurrence of Elman, Silvester & Wathen,
// "Finite Elements and Fast Iterative Solvers", 2014, Algorithm 4.1).
//
// solve_minres(A, P, b, x, settings) solves A x = b from the x passed in (a
// warm start). A is applied as an operator and must be symmetric; P^-1 must be
// symmetric positive definite (MINRES minimises the residual in the norm it
// defines). Why MINRES and not PCG: a saddle-point (KKT) matrix [G J^T; J 0]
// is symmetric but indefinite, where CG may break down.
//
// Stops when |b - A x| <= tolerance * |b|, checked on the true residual: the
// recurrence tracks the residual's P^-1-norm, which can part from the 2-norm
// by P's condition number, so whenever the estimate passes, the true residual
// is computed and, if it has not passed, the recurrence restarts from x with
// a tighter target, until it passes or max_iterations is reached.
#include <functional>

#include "lib/linsolve/pcg.hpp"
#include "lib/linsolve/report.hpp"

namespace fsicut::linsolve {

// y = A x (y is resized by the callee).
using ApplyOperator = std::function<void(const Vector& x, Vector& y)>;

struct MinresSettings {
  Real tolerance = 1e-8;  // relative residual |b - A x| / |b|
  int max_iterations = 5000;
};

Report solve_minres(const ApplyOperator& A, const ApplyPreconditioner& P, const Vector& b, Vector& x,
                    const MinresSettings& settings);

}  // namespace fsicut::linsolve
