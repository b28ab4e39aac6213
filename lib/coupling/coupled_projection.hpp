#pragma once
// The strongly coupled pressure projection of Zarifi & Batty 2017 (Sections 5
// and 6): one linear solve for the liquid's cell pressures and the deformable
// solids' free nodal velocities together.
//
// Unknowns: p, #active cells [Pa] (cutcell/active_cells.hpp order), and v,
// #free solid dofs [m/s] (all bodies' free dofs stacked, body after body,
// each in the node-major order of solid/body.hpp).
//
// The blocks, in the paper's units (a fluid row is the volume balance (13) of a
// cell in [m^3/s]; this is dx^3 times the rows of pressure_projection.hpp):
//
//   F = dt/rho G^T A G   #active x #active [m^4 s/kg]  the cut-cell Laplacian
//   J = N^T C            #active x #dofs   [m^2]       row c, dof (node i, axis d):
//                        sum over the surface patches Q in cell c of triangles
//                        holding node i of  w_c(Q) * area(Q) * bary_i(Q) * n_d(Q),
//                        n the unit normal INTO the solid (cutcell/surface_patches.hpp),
//                        w_c(Q) the weight of cell c in the pressure at Q's centroid
//                        (sim/cutcell/coupling_matrix.cpp: the patch's cell plus one-sided differences,
//                        exact for linear p; the paper's N has w = 1 for the cell
//                        holding Q only). Any J keeps (33) SPD.
//                        J v is the volume flux [m^3/s] of the solid surface out
//                        of each cell's fluid (10)-(12); J^T p the nodal
//                        pressure forces [N] (14)-(15).
//   A_s = c_m M + c_k K  #dofs x #dofs [kg/s]  the solid's implicit operator, SPD:
//                        M the lumped mass (diagonal), K the corotated stiffness;
//                        c_m = 1/dt + tau_m and c_k = dt + tau_k give (6)'s
//                        M/dt + D + dt K.
//   U                    #active x k [m^2 sqrt(s/kg)] the reduced bodies (sim/cutcell/couple.hpp): each
//                        body's end-of-step velocities are v_free + K_lambda dt J_b^T p, so its
//                        cells' balance gains dt J_b K_lambda J_b^T p = U_b U_b^T p (K_lambda
//                        symmetric PSD, solid/reduced.hpp) and b_f holds -J_b v_free; F below
//                        stands for F + U U^T wherever it appears, positive definite whenever
//                        F is, so every statement about (33) holds as it is. k = sum of
//                        6 + r over the bodies; empty without reduced bodies
//   b_f = G^T A u*       #active [m^3/s]       net inflow of u* through open faces
//   b_s                  #dofs [N]             M v*/dt + f_elastic (+ external)
//
// with the equations
//   F p + J v = b_f            the cells' volume balance (17)
//   A_s v - J^T p = b_s        the solids' backward Euler step with pressure forces (16)
//
// Formulations:
//  - indefinite (19): [F J; J^T -A_s] [p; v] = [b_f; -b_s], symmetric indefinite,
//    solved with BiCGSTAB + incomplete LU (the paper's baseline, Table 2).
//  - spd (28)-(33): split A_s = Z1 + Z2 with the diagonal Z1 = sigma c_m M and
//    Z2 = (1 - sigma) c_m M + c_k K (30), then with w = -b_s
//        A11 = F + J Z1^-1 J^T,   A12 = -J Z1^-1 Z2,   A22 = Z2 + Z2 Z1^-1 Z2,
//        b1  = b_f + J Z1^-1 w,   b2  = -Z2 Z1^-1 w,
//    scaled by alpha (33): [A11  alpha A12; alpha A21  alpha^2 A22] [p; v/alpha]
//    = [b1; alpha b2]. Symmetric positive definite whenever F is (32), for every
//    sigma in (0, 1) and alpha != 0; solved with PCG, preconditioned by the
//    block factorization through the pressure Schur complement
//    S = A11 - A12 A22^-1 A21 = F + J A_s^-1 J^T: an exact sparse Cholesky of
//    the small solid block alpha^2 A22 (it keeps stiff solids from stalling the
//    iteration) and settings.preconditioner for S (multigrid, smoothing with S
//    itself on its finest level) or for A11 (MIC, or IC as in the paper's
//    ICPCG); see spd_preconditioner and coupled_preconditioner.hpp. U U^T is applied
//    matrix-free (linsolve::solve_pcg with a low-rank term); the
//    preconditioner above sees F alone, and the span of U is deflated out of it
//    (balancing two-level form, coupled_preconditioner.hpp's Deflation).
//    alpha is static (the scene's, paper: 1e-3) or automatic, |b1| / |b2|, so
//    neither block dominates the relative residual.
//  - weak (alternating, for the paper's stability comparison): the liquid is
//    projected with the solid velocities fixed (F p = b_f - J v*), then the solid
//    takes its step with those pressure forces (A_s v = b_s + J^T p).
// The `damping_only` scheme of the scene is the spd formulation with a solid
// block built differently (see sim/cutcell/couple.hpp); nothing here depends on it.
//
// F must be positive definite (every group of active cells touches air or was
// pinned, see pressure_projection.hpp); A_s must be SPD (M > 0 on free dofs).
#include <memory>
#include <optional>
#include <vector>

#include "lib/linsolve/pcg.hpp"
#include "lib/linsolve/report.hpp"

namespace fsicut::coupling {

using linsolve::SparseMatrix;
using linsolve::Vector;

// The solid side: A_s = diag(mass_term) + stiffness_term, right side b_s.
struct SolidBlock {
  Vector mass_term;             // #dofs, the diagonal c_m M [kg/s], > 0
  SparseMatrix stiffness_term;  // #dofs x #dofs, c_k K, exactly symmetric PSD [kg/s], both triangles
  Vector rhs;                   // #dofs, b_s [N]
  int dofs() const { return static_cast<int>(mass_term.size()); }
};

struct CoupledSystem {
  SparseMatrix fluid;     // F, #active x #active, both triangles
  Vector fluid_rhs;       // b_f, #active
  SparseMatrix coupling;  // J, #active x #dofs
  SolidBlock solid;
  SparseMatrix low_rank;  // U, #active x k (see above); no columns: no reduced bodies
  std::vector<Vec3i> grid_cells;  // #active grid cells (i, j, k) of the pressure unknowns; empty: unknown
                                  // (the multigrid preconditioner then falls back to MIC)
  // Optional, read by the partitioned schemes only (partitioned.hpp): G, #dofs x #active
  // [m^2], the conservative force G p [N] the liquid hands the solids in place
  // of J^T p; empty: J^T p. The monolithic schemes never read it.
  SparseMatrix impulse;
  int cells() const { return static_cast<int>(fluid_rhs.size()); }
  int dofs() const { return solid.dofs(); }
};

struct CoupledSettings {
  Real sigma = 0.9;             // Z1 share of the mass term, in (0, 1)
  std::optional<Real> alpha = Real(1e-3);  // static scaling; empty = automatic |b1| / |b2|
  Real tolerance = 1e-10;       // relative residual of each solve
  int max_iterations = 2000;
  linsolve::Preconditioner preconditioner = linsolve::Preconditioner::multigrid;  // of A11 / F
};

// Why the solid block alpha^2 A22 = alpha^2 (Z2 + Z2 Z1^-1 Z2) of (33) could
// not be factored (spd), in numbers. It is positive definite whenever K is
// positive semi-definite, but it squares the stiffness relative to the mass:
// for one dof of mass term c_m m and stiffness term c_k k = r c_m m its
// eigenvalue runs from (1 - sigma) c_m m / sigma (r = 0, a rigid motion) to
// (1 - sigma + r)(1 + r) c_m m / sigma, and past a condition number of about
// 1/eps = 4.5e15 the factorization meets round-off as large as its pivots.
struct SolidBlockDiagnosis {
  Real pivot_ratio = 1;         // smallest / largest pivot of its LDL^T; <= 0: not positive definite
  Real stiffness_to_mass = 0;   // r = max_i (c_k K)_ii / (c_m M)_ii
  int dof = -1;                 // the free dof (stacked over the bodies) of that maximum
  Real condition_estimate = 1;  // (1 - sigma + r)(1 + r) / (1 - sigma), about the block's condition number
  Real min_stiffness = 0;       // min_i (c_k K)_ii [kg/s]; < 0: K is not positive semi-definite
};

// A solve's result: p (#active [Pa]) and v (#dofs [m/s]).
struct CoupledSolution {
  Vector pressure;
  Vector velocity;
  linsolve::Report report;  // of the solve (weak: the worse of its two solves)
  Real alpha = 1;           // the scaling used (spd)
  // Set when the spd solve could not start because the solid block's
  // factorization failed; report.failure says so with these numbers.
  std::optional<SolidBlockDiagnosis> solid_failure;
};

// F + U U^T, assembled (#active^2, both triangles): the liquid's block with the
// reduced bodies' term, for the solvers that need it as a matrix.
SparseMatrix fluid_block(const CoupledSystem& system);

// The matrix and right side of (19) (with F + U U^T assembled).
SparseMatrix indefinite_matrix(const CoupledSystem& system);
Vector indefinite_rhs(const CoupledSystem& system);

// The matrix and right side of (33), and the alpha they were scaled with.
// The system is matrix + [U U^T 0; 0 0]: `matrix` holds every sparse block,
// low_rank = system.low_rank the rest.
struct SpdSystem {
  SparseMatrix matrix;    // (#active + #dofs)^2, both triangles
  SparseMatrix low_rank;  // U, #active x k
  Vector rhs;
  Real alpha = 1;
};
SpdSystem spd_system(const CoupledSystem& system, const CoupledSettings& settings);

// Set-up of the spd solve kept from one solve to the next (one per
// simulation, passed to every substep's solve_spd): the symbolic Cholesky
// analyses of the solid blocks Z2 and A_s and the pattern of (33)'s solid
// block A22 = Z2 + Z2 Z1^-1 Z2 (their patterns come from the meshes and the
// pinned nodes, which never change; kept while the pattern is the one
// analyzed, compared entry for entry) and the multigrid hierarchy of
// the pressure block (kept while the active cells are the same, in the same
// order; the levels' operators are recomputed from each solve's matrix).
// The rest of (33)'s pattern (F, J Z1^-1 J^T, J Z1^-1 Z2) follows the active
// cells and the solids' surface patches in them, which change nearly every
// substep of a moving scene (measured with the hierarchy: kept 0 of 13
// substeps in six of the seven Table 1 scenes), so it is worked out each time.
// Results are bit for bit those of a solve without it, so a run resumed from
// a checkpoint with an empty workspace continues exactly as the run would
// have. Copies start empty; not to be shared by solves running at once.
class SpdWorkspace {
 public:
  // How often each part was kept or built, for tests and benchmarks.
  struct Counts {
    int solid_analyses_kept = 0, solid_analyses_built = 0;
    int hierarchies_kept = 0, hierarchies_built = 0;
    int solid_products_kept = 0, solid_products_built = 0;
  };
  struct Kept;  // coupled_preconditioner.hpp
  SpdWorkspace();
  ~SpdWorkspace();
  SpdWorkspace(const SpdWorkspace&);
  SpdWorkspace& operator=(const SpdWorkspace&);
  SpdWorkspace(SpdWorkspace&&) noexcept;
  SpdWorkspace& operator=(SpdWorkspace&&) noexcept;
  Kept& kept() { return *kept_; }
  const Counts& counts() const;

 private:
  std::unique_ptr<Kept> kept_;
};

// spd_system with the solid block's pattern kept in `workspace` (the same
// matrix bit for bit; what solve_spd builds when given the workspace).
SpdSystem spd_system(const CoupledSystem& system, const CoupledSettings& settings, SpdWorkspace& workspace);

// The preconditioner solve_spd applies to `spd` = spd_system(system, settings)
// (settings.sigma and settings.preconditioner): symmetric positive definite.
// Empty when a factorization failed. It keeps copies of what it needs.
linsolve::ApplyPreconditioner spd_preconditioner(const CoupledSystem& system, const SpdSystem& spd,
                                                 const CoupledSettings& settings);

// Solvers. `guess` (p, v as in CoupledSolution; empty vectors = zero) warm-starts
// the iteration. None of them throws on non-convergence: check report.converged.
// solve_spd keeps its set-up in `workspace` when one is given (same result).
CoupledSolution solve_spd(const CoupledSystem& system, const CoupledSettings& settings,
                          const CoupledSolution& guess, SpdWorkspace* workspace = nullptr);
CoupledSolution solve_indefinite(const CoupledSystem& system, const CoupledSettings& settings,
                                 const CoupledSolution& guess);
CoupledSolution solve_weak(const CoupledSystem& system, const CoupledSettings& settings,
                           const CoupledSolution& guess);

// Residuals of the two equations at (p, v), each relative to its right side's
// norm (or absolute when that is zero): |(F + U U^T) p + J v - b_f| / |b_f| and
// |A_s v - J^T p - b_s| / |b_s|.
struct CoupledResidual {
  Real fluid = 0;
  Real solid = 0;
};
CoupledResidual residual(const CoupledSystem& system, const Vector& pressure, const Vector& velocity);

}  // namespace fsicut::coupling
