#pragma once
// BiCGSTAB with an incomplete-LU preconditioner for general (here: symmetric
// indefinite) sparse systems: the paper's baseline solver for the indefinite
// coupled system (19) (Zarifi & Batty 2017, Sec. 8 and Table 2).
//
// solve_bicgstab(A, b, x, settings) solves A x = b starting from the x passed in
// and stops when |b - A x| <= tolerance * |b| (the true residual, checked after
// Eigen's recursively updated one says it converged).
#include "lib/linsolve/pcg.hpp"
#include "lib/linsolve/report.hpp"

namespace fsicut::linsolve {

struct BicgstabSettings {
  Real tolerance = 1e-10;  // relative residual
  int max_iterations = 2000;
  // Eigen::IncompleteLUT: entries below drop_tolerance * (row norm) are dropped,
  // at most fill_factor * (nonzeros per row) kept per row of L and of U.
  Real drop_tolerance = 1e-6;
  int fill_factor = 10;
};

Report solve_bicgstab(const SparseMatrix& A, const Vector& b, Vector& x, const BicgstabSettings& settings);

}  // namespace fsicut::linsolve
