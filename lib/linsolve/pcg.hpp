#pragma once
// Preconditioned conjugate gradients for symmetric positive-definite systems.
//
// solve_pcg(A, b, x, settings) solves A x = b starting from the x passed in
// (a warm start: pass the previous solution, or zeros). A must be symmetric
// positive definite; both triangles must be stored (the product uses the full
// matrix so it runs in parallel). Stops when |b - A x| <= tolerance * |b|.
// Before every iteration it polls core/cancel.hpp: a stop request armed by the
// frame loop throws Cancelled there, whatever the iteration count.
#include <functional>
#include <vector>

#include <Eigen/IterativeLinearSolvers>
#include <Eigen/Sparse>

#include "lib/core/types.hpp"
#include "lib/linsolve/report.hpp"

namespace fsicut::linsolve {

using SparseMatrix = Eigen::SparseMatrix<Real, Eigen::RowMajor, int>;
using Vector = Eigen::Matrix<Real, Eigen::Dynamic, 1>;

// incomplete_cholesky: IC(0) by Eigen (below); modified_incomplete_cholesky:
// MIC(0) (mic.hpp); multigrid: a V-cycle on the unknowns' grid cells
// (multigrid.hpp), which needs those cells (make_preconditioner).
enum class Preconditioner { none, jacobi, incomplete_cholesky, modified_incomplete_cholesky, multigrid };

// The incomplete Cholesky factorization both PCG paths use (Eigen's Lin-More IC),
// in the unknowns' own order. Why not Eigen's default AMD ordering: our pressure
// unknowns are numbered along the grid (x fastest), the order in which IC of a
// Poisson matrix is the classic good preconditioner; AMD scatters neighbours and
// the factor approximates A worse. Measured, the paper's dam break at 100^3 with
// its beam (181801 unknowns): 205 -> 124 PCG iterations, projection 2.07 -> 0.97 s
// per substep; the tet meshes' solid systems also need fewer (cantilever test
// 8517 -> 6596 iterations).
using IncompleteCholesky = Eigen::IncompleteCholesky<Real, Eigen::Lower, Eigen::NaturalOrdering<int>>;

struct PcgSettings {
  Real tolerance = 1e-10;  // relative residual
  int max_iterations = 2000;
  Preconditioner preconditioner = Preconditioner::incomplete_cholesky;
};

// multigrid is not available here (no cells): it runs as modified_incomplete_cholesky.
Report solve_pcg(const SparseMatrix& A, const Vector& b, Vector& x, const PcgSettings& settings);

// The attainable relative residual of A x = b in double precision at x:
// eps |(|A| |x| + |b|)| / |b| (Higham, Accuracy and Stability, 7.1).
Real round_off_floor(const SparseMatrix& A, const Vector& b, const Vector& x);

// Why 10: the computed residual carries about this many roundings of the floor
// (one per nonzero in a row, partly cancelling); closer than that, iterating on
// is noise.
constexpr Real ROUND_OFF_MARGIN = 10;

// z = P^-1 r for a symmetric positive-definite preconditioner P (z is resized).
using ApplyPreconditioner = std::function<void(const Vector& r, Vector& z)>;

// y = S x for a linear operator given by its action (y is resized).
using LinearOperator = std::function<void(const Vector& x, Vector& y)>;

// The preconditioner `kind` of A (SPD, both triangles; taken by value: multigrid
// keeps it as its finest level, so pass a temporary to spare a copy). `cells`:
// the grid cell (coordinates >= 0) of each unknown, for multigrid; without them
// (size not A.rows()) multigrid falls back to modified_incomplete_cholesky.
// Returns an empty function when the set-up failed (A not numerically positive
// definite).
ApplyPreconditioner make_preconditioner(Preconditioner kind, SparseMatrix A, const std::vector<Vec3i>& cells = {});

// The same with a caller's preconditioner (settings.preconditioner is ignored).
// Plain PCG (Saad, Alg. 9.1) with the true residual checked at exit and up to
// three restarts from the current iterate when it misses the tolerance.
// Converged means |b - A x| / |b| <= max(tolerance, ROUND_OFF_MARGIN * floor),
// floor = round_off_floor(A, b, x): the coupled SPD system (33) holds Z2 Z1^-1 Z2,
// the square of a stiff solid's stiffness, and its residual cannot be evaluated
// more accurately than that floor (measured: E = 1e7 Pa, floor ~2e-11, PCG
// stagnating at 2.7e-10 against a 1e-10 tolerance). Report::round_off_floor says
// when this applied, and Report::met_tolerance is then false: only
// |b - A x| / |b| <= tolerance sets it.
Report solve_pcg(const SparseMatrix& A, const Vector& b, Vector& x, const PcgSettings& settings,
                 const ApplyPreconditioner& precondition);

// The same for A + [U U^T 0; 0 0]: a low-rank symmetric positive
// semi-definite term on the leading U.rows() unknowns (U: U.rows() x k,
// U.rows() <= A.rows()), applied matrix-free as U (U^T x). Why: the reduced
// bodies' dt J K_lambda J^T in (33) (coupling/coupled_projection.hpp) is dense
// over their wetted cells; assembled it would hold #wetted^2 entries per body.
// The round-off floor counts |U| |U|^T |x| with |A| |x|.
Report solve_pcg(const SparseMatrix& A, const SparseMatrix& low_rank, const Vector& b, Vector& x,
                 const PcgSettings& settings, const ApplyPreconditioner& precondition);

// The same PCG for a matrix-free operator A (symmetric positive definite, or
// semi-definite with b in its range). Its entries are not at hand, so there is
// no round-off floor: converged means met_tolerance (Report::round_off_floor 0).
// Why: a stencil applied on the fly reads a fraction of the memory of its
// assembled matrix (eulerian/pressure_operator.hpp).
Report solve_pcg(const LinearOperator& A, const Vector& b, Vector& x, const PcgSettings& settings,
                 const ApplyPreconditioner& precondition);

}  // namespace fsicut::linsolve
