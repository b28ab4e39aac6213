#pragma once
// The pressure projection of the liquid against static solids: the fluid block of
// Zarifi & Batty 2017, eqs. (13) and (20), with the ghost-fluid free surface.
//
// Unknowns: the pressure p [Pa] of every active cell (cutcell/active_cells.hpp).
// Row c of the system is the volume balance (13) of cell c divided by the cell
// volume dx^3:
//
//   sum_f (dt / (rho dx^2)) A_f (p_c - p_f)  =  -(1/dx) sum_f A_f u*_f . n_f   [1/s]
//
// over the six faces f of c with open fraction A_f > 0 (n_f the outward axis
// direction, u*_f the face velocity after advection and forces). p_f is the
// neighbour's pressure when the neighbour is active. When the neighbour is air,
// the ghost-fluid method places p = 0 on the interface at the fraction
//   theta = phi_c / (phi_c - phi_n)
// of the way to the neighbour centre (phi = liquid SDF), so the face term becomes
// (dt / (rho dx^2)) A_f p_c / theta. Static solids move with v = 0, so N^T C v of
// (13) vanishes; a deformable solid adds its columns (1/dx^3) N^T C to these rows.
//
// The matrix is symmetric (a face couples two cells with the same weight) and
// positive definite when every connected group of active cells touches air; a
// group that does not (liquid filling a closed cavity) has a constant null space,
// and one of its cells gets a free-surface term to pin the constant (see the .cpp).
//
// Split cells (cutcell/split_cells.hpp): each region of a cell a thin solid
// divides is an unknown of its own, and a face that touches one carries pieces,
// each joining a region on either side with its share a_k of the face's open
// fraction A = sum_k a_k. Each piece is a face of its own: a region's balance
// counts a_k u_k for each of its pieces, with u*_k = u*_f (the face's velocity
// before the projection) and the update
//   u_k = u*_k - dt/(rho dx) (p_high(k) - p_low(k))
// (the ghost-fluid one for a piece with air on one side), so a piece adds the
// term of a whole face of fraction a_k between its two regions. The matrix is
// then a graph Laplacian over cells and regions, symmetric, and positive
// definite once every group joined by faces and pieces touches air or is
// pinned (as above; the groups are found along the pieces). The pieces'
// velocities go to fluid/pieces.hpp; the face keeps their flux-weighted mean.
// Why a velocity per piece and not one per face: with one shared velocity, the
// regions on the two sides of a thin wall moved together along it, the
// balance of each region could not be met, and the liquid beside a moving
// thin wall packed (the gate scene lost more with such split cells than with
// its faces closed: -2.4 % against -1.6 % in 1 s).
//
// After the solve, (20): u_f = u*_f - dt/rho (p_right - p_left)/dx on every face
// with A_f > 0 next to an active cell (the ghost pressure on the air side). These
// faces are "valid"; all other faces keep u* and are left to extrapolation.
#include <array>

#include "lib/cutcell/active_cells.hpp"
#include "lib/cutcell/face_fractions.hpp"
#include "lib/cutcell/split_cells.hpp"
#include "lib/fluid/pieces.hpp"
#include "lib/fluid/velocity.hpp"
#include "lib/grid/mac_grid.hpp"
#include "lib/linsolve/pcg.hpp"
#include "lib/linsolve/report.hpp"

namespace fsicut::fluid {

// Why: theta -> 0 when the interface passes through an active cell's centre; 1/theta
// would then blow up the diagonal (ill conditioning, huge surface velocities).
// Clamping moves the interface at most THETA_MIN * dx, an O(dx) error like the
// rest of the free-surface treatment (same value as Batty's and Bridson's codes).
constexpr Real THETA_MIN = 0.01;

// A domain-wall face with a prescribed normal velocity [m/s] (a source's
// inflow through the wall, fluid/flows.hpp): its flux enters the right-hand
// side of the cell inside, as a moving solid's does; the face stays closed to
// the pressure. `face`: its index (i, j, k) among the faces of `axis`.
struct WallInflow {
  int axis = 0;
  Vec3i face{0, 0, 0};
  Real velocity = 0;
};
using WallInflows = std::vector<WallInflow>;

struct ProjectionSettings {
  Real tolerance = 1e-10;  // relative residual of the PCG solve
  int max_iterations = 2000;
  bool allow_unconverged = false;  // false: a solve that stops early throws SimulationError
  linsolve::Preconditioner preconditioner = linsolve::Preconditioner::multigrid;
};

struct PressureSystem {
  cutcell::ActiveCells active;
  linsolve::SparseMatrix matrix;  // #active x #active, both triangles stored [s m/kg]
  linsolve::Vector rhs;           // #active [1/s]
  int pinned_groups = 0;          // groups of active cells without air (see header text)
  // #active, the grid cell (i, j, k) of each unknown (for the multigrid preconditioner).
  std::vector<Vec3i> cells() const;
};

// Free-surface fraction theta in [THETA_MIN, 1] between a liquid centre (phi_liquid < 0)
// and an air centre (phi_air >= 0).
Real ghost_theta(Real phi_liquid, Real phi_air);

// Assembles the system above. `liquid_phi` cell centres [m]; `fractions` open face
// fractions; `velocity` u* [m/s]; dt [s]; density rho [kg/m^3]. Parallel over rows.
// `split`: the cells thin solids divide (empty: none).
// `wall` (optional): moving walls (sim/cutcell/moving.hpp), per face the
// normal velocity u_s [m/s] of the wall nearest to it (zero away from them).
// A cell's balance then counts the closed part of each face as moving with
// the wall, the right side -(1/dx) sum_f (A_f u*_f + (1 - A_f) u_s,f) . n_f
// (Batty, Bertails & Bridson 2007); in the cells thin walls split (pieces)
// the flux relative to the wall, -(1/dx) sum_k a_k (u*_k - u_s,f) . n_f,
// which is the same for a rigid wall (its face-sampled velocity has zero
// divergence over a cell: sum_f u_s,f . n_f = 0) and needs no closed face to
// tell a region that its thin wall moves. Null: walls at rest, the system above.
PressureSystem assemble_pressure(const grid::MacGrid& grid, const grid::Array3<Real>& liquid_phi,
                                 const cutcell::FaceFractions& fractions,
                                 const grid::MacVelocity& velocity, Real dt, Real density,
                                 const cutcell::SplitCells& split = cutcell::SplitCells{},
                                 const grid::MacVelocity* wall = nullptr);

// Adds the wall inflows' fluxes to the right-hand side of the cells inside
// them (their unknown, when active): the cell on the high side of a face at
// index 0 gains u / dx, the cell on the low side of a face at the grid's far
// end loses it, as the face term of (13) would with the face open.
void add_wall_inflow(PressureSystem& sys, const grid::MacGrid& grid, const WallInflows& inflow);

// The unknowns' pressures [Pa] from a cell array (a split cell's further
// regions start from its first one's value): what warm-starts a solve.
linsolve::Vector gather_pressure(const cutcell::ActiveCells& active, const grid::Array3<Real>& pressure);
// The solution x (#active [Pa]) into the cell array (0 in inactive cells; a
// split cell holds its first active region's value) and `regions`, the
// pressures of the further regions (unknowns active.whole, ... in order).
void scatter_pressure(const cutcell::ActiveCells& active, const linsolve::Vector& x,
                      grid::Array3<Real>& pressure, std::vector<Real>& regions);

// Solves the system with PCG (settings.preconditioner), warm-started from `pressure` (cell array [Pa],
// size grid.cell_shape()), and writes the solution back into it (0 in inactive
// cells; the further regions of split cells into `regions`, see
// scatter_pressure). Throws SimulationError if the solve does not converge,
// unless settings.allow_unconverged.
linsolve::Report solve_pressure(const PressureSystem& system, const ProjectionSettings& settings,
                                grid::Array3<Real>& pressure, std::vector<Real>* regions = nullptr);

// The velocity update (20) on the faces described above; sets `valid`.
// `split` and `regions` as given to assemble_pressure and by solve_pressure;
// `pieces` (optional) receives the split faces' pieces' velocities.
void apply_pressure(const grid::MacGrid& grid, const cutcell::ActiveCells& active,
                    const grid::Array3<Real>& liquid_phi, const cutcell::FaceFractions& fractions,
                    const grid::Array3<Real>& pressure, Real dt, Real density,
                    grid::MacVelocity& velocity, FaceFlags& valid,
                    const cutcell::SplitCells& split = cutcell::SplitCells{},
                    const std::vector<Real>& regions = {}, PieceVelocities* pieces = nullptr);

// assemble_pressure + add_wall_inflow + solve_pressure + apply_pressure.
linsolve::Report project_pressure(const grid::MacGrid& grid, const grid::Array3<Real>& liquid_phi,
                         const cutcell::FaceFractions& fractions, Real dt, Real density,
                         const ProjectionSettings& settings, grid::MacVelocity& velocity,
                         grid::Array3<Real>& pressure, FaceFlags& valid,
                         const cutcell::SplitCells& split = cutcell::SplitCells{},
                         std::vector<Real>* regions = nullptr, PieceVelocities* pieces = nullptr,
                         const grid::MacVelocity* wall = nullptr, const WallInflows& inflow = {});

// The weighted divergence of cell c: (1/dx) sum_f A_f u_f . n_f [1/s], the left
// side of (13) for static solids; zero after an exact projection.
Real weighted_divergence(const grid::MacGrid& grid, const cutcell::FaceFractions& fractions,
                         const grid::MacVelocity& velocity, const Vec3i& c);

}  // namespace fsicut::fluid
