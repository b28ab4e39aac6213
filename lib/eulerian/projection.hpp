#pragma once
// The incompressibility constraint of Eulerian solids and its primal-dual
// solve, Teng, Levin & Kim 2016 section 4.5 (Algorithm 1 lines 10-11).
//
// Constraint. One point constraint per cell, at its centre (q1.hpp):
//   (J v)_c = dx^3 div v(centre of c) = dx^2 / 4 sum_q sum_a s_a(q) v_qa     [m^3/s]
// with s_a(q) = +1 if corner q lies on the high side of axis a, else -1: the
// rate of change of the cell's volume. J is constant (it does not depend on
// u). Its transpose spreads a cell value to the cell's corners:
//   (J^T p)_q = dx^2 / 4 sum_c p_c s(q in c),
// which is minus the nodal gradient of the cell field p times the node's
// volume: J^T = -grad (for p = 0 outside the cells), the adjoint pair the
// tests check.
//
// Primal-dual solve (Eqs. 11-13). With v* from Eq. 8 (velocity_solve.hpp):
//   J M^-1 J^T p = J v* - b                                        (Eq. 12)
//   v = v* - M^-1 J^T p   (correction "mass": then J v = b up to the solve's
//                          tolerance, exactly what the constraint asks), or
//   v = v* - G^-1 J^T p   (correction "system", Eq. 13 as printed: a third
//                          solve; J v = b holds only where G ~ M).
// p is the pressure impulse dt * pressure [Pa s] per cell; b the prescribed
// volume rates [m^3/s]: the paper's boundary terms (zero for a solid in void
// and at no-slip walls, whose velocities are zero) plus, ours, the volume
// drift correction below.
//
// Volume drift (not in the paper). div v = 0 keeps the material's volume only
// to first order in the step's motion: the advected reference map changes
// det F by O((dt |grad v|)^2) per step (a sphere squashed 30 % and released
// at dt = 1/48 s lost 5.2 % of its volume in its first two steps, and the
// constraint then holds the loss: the material stayed compressed, with a
// bulk energy of 1.8 % of the initial one). Since d ln(det F)/dt = div v, the
// cell rate that undoes the drift over one step is
//   b_c = relaxation / dt * sum_g theta_g dx^3/8 (-ln det F_g),
// positive (expand) where the material is compressed (det F < 1). J M^-1 J^T is only semi-definite
// in general (the Q1-P0 checkerboard pressure is in the kernel of J^T in a
// closed box); CG on the consistent right-hand side J v* - b converges all
// the same, as the paper's PCR does.
#include <vector>

#include "lib/eulerian/elasticity.hpp"
#include "lib/eulerian/unknowns.hpp"
#include "lib/linsolve/pcg.hpp"
#include "lib/linsolve/report.hpp"

namespace fsicut::eulerian {

enum class Correction { mass, system };

// primal_dual: Eqs. 8, 12 and 13 in turn (the paper's). kkt: lines 9-11 as
// one saddle-point solve (solve_kkt below), the comparison the paper makes
// against its primal-dual solve; it applies to the implicit steps (Eq. 8 and
// newmark, velocity_solve.hpp; with explicit integration the projection stays
// primal-dual).
enum class ConstraintSolver { primal_dual, kkt };

struct ProjectionSettings {
  Real tolerance = 0.02;  // the paper's PCR threshold for the pressure solve
  // Share of the volume drift undone per step (0: off, the paper's b).
  Real drift_relaxation = 1;
  int max_iterations = 2000;
  Correction correction = Correction::mass;
  Real correction_tolerance = 1e-3;  // the velocity-solve threshold for "system"
  ConstraintSolver solver = ConstraintSolver::primal_dual;
  Real kkt_tolerance = 1e-3;  // relative residual of the whole saddle-point system
  int kkt_max_iterations = 20000;
};

// J over all cells and all nodes, matrix-free: #cells values [m^3/s] from a
// nodal velocity [m/s].
Vector divergence(const grid::MacGrid& grid, const NodeField& v);

// J^T p over all nodes from #cells values.
NodeField divergence_transpose(const grid::MacGrid& grid, const Vector& p);

// J restricted to `cells` (rows, in the given order) and the unknowns
// (columns): #cells x 3U. Corners that are not unknowns (walls) are dropped.
linsolve::SparseMatrix divergence_matrix(const grid::MacGrid& grid, const std::vector<Vec3i>& cells,
                                         const Unknowns& unknowns);

// J M^-1 J^T for the rows `cells` (in that order) over `unknowns`, `mass`
// the 3U lumped masses (equal over a node's three entries) [m^4 / kg]:
// assembled by stencil, at most 27 entries per row (the cells sharing a node
// with the row's), instead of a general sparse product, which took most of
// the pressure stage's time (a 64 x 75 x 64 smoke box: 4.6 s of a 7.5 s
// step on one thread, with the conversions between storage orders).
linsolve::SparseMatrix pressure_matrix(const grid::MacGrid& grid, const std::vector<Vec3i>& cells,
                                       const Unknowns& unknowns, const Vector& mass);

// Eq. 12 as solve_pressure below, with A = J M^-1 J^T given (pressure_matrix).
linsolve::Report solve_pressure(const linsolve::SparseMatrix& A, const linsolve::SparseMatrix& J, const Vector& b,
                                const Vector& v_star, Vector& p, const ProjectionSettings& settings);

// The drift rates b_c of the header for the rows state.cells, dt [s] > 0 ->
// #cells [m^3/s].
Vector volume_drift_rates(const grid::MacGrid& grid, const ElasticState& state, Real dt, Real relaxation);

// Eq. 12 on the unknowns: solves J M^-1 J^T p = J v* - b by Jacobi PCG to
// settings.tolerance. `mass`: 3U lumped masses [kg]; `b`: #rows of J
// [m^3/s]; `v_star` [m/s]; `p`: warm start in, pressure impulse out [Pa s].
linsolve::Report solve_pressure(const linsolve::SparseMatrix& J, const Vector& mass, const Vector& b,
                                const Vector& v_star, Vector& p, const ProjectionSettings& settings);

// Eq. 13: v <- v - M^-1 J^T p (correction "mass"; returns nothing_to_solve) or
// v <- v - G^-1 J^T p (correction "system", G the matrix of Eq. 8, solved by
// Jacobi PCG to settings.correction_tolerance).
linsolve::Report correct_velocity(const linsolve::SparseMatrix& J, const Vector& mass, const linsolve::SparseMatrix& G,
                                  const Vector& p, Vector& v, const ProjectionSettings& settings);
// The same given the impulse J^T p (3U) [N s].
linsolve::Report correct_velocity(const Vector& impulse, const Vector& mass, const linsolve::SparseMatrix& G, Vector& v,
                                  const ProjectionSettings& settings);

// Lines 9-11 at once: the saddle-point system of Eq. 11,
//   [G  J^T] [v]   [f*]
//   [J   0 ] [p] = [b ],     f* = M v^n + dt (f_ext + f) (Eq. 8's right side;
//                            newmark's: velocity_solve.hpp right_hand_side),
// by MINRES (linsolve/minres.hpp) preconditioned with diag(G) and
// diag(J diag(G)^-1 J^T), the constraint rows scaled to the velocity rows'
// size so that one relative tolerance means the same for both. Its v obeys
// G v = f* - J^T p and J v = b together: the pressure acts through G, the
// elasticity included, where Eq. 12 lets it act through M alone (with
// dt^2 K >> M, as for a stiff solid at the paper's steps, the split solve is
// softer than the material: measured on a 10:1 incompressible cantilever).
// `v`, `p`: warm starts in, solution out [m/s], [Pa s].
linsolve::Report solve_kkt(const linsolve::SparseMatrix& G, const linsolve::SparseMatrix& J, const Vector& rhs,
                           const Vector& b, Vector& v, Vector& p, Real tolerance, int max_iterations);

}  // namespace fsicut::eulerian
