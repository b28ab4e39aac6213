#pragma once
// The implicit viscosity step of Batty & Bridson 2008 ("Accurate viscous free
// surfaces for buckling, coiling, and rotating liquids") on the MAC grid: the
// face velocities u [m/s] minimise
//
//   E(u) = sum_f rho w_f (u_f - u*_f)^2 / 2
//        + dt mu [ sum_c V_c (eps_xx^2 + eps_yy^2 + eps_zz^2) + 2 sum_e V_e eps_bc(e)^2 ]
//
// (all per dx^3), u* the velocity after the pressure projection, eps = (grad u +
// grad u^T) / 2 by central differences: eps_aa at cell centres, the shear
// eps_bc at the centres of the edges of the third axis a (fluid/viscosity_weights.hpp
// has the layout). w_f, V_c, V_e are the liquid fractions of the dx-cubes
// around the faces, cells and edges: where a cube holds no liquid its stress
// has no weight, so the free surface is traction-free without any boundary
// condition written for it, and rigid motions (zero strain) pass untouched.
// Setting dE/du = 0 gives, row per unknown face f (divided by rho):
//
//   w_f u_f + (dt / rho) sum_s K_s c_sf (sum_g c_sg u_g) = w_f u*_f
//
// over the stress samples s touching f, K_s = 2 mu V_c (diagonal) or mu V_e
// (shear, where c_s sums both derivatives, gamma = 2 eps_bc), c_sg = +-1/dx.
// Symmetric positive definite (a mass matrix plus D^T K D).
//
// Unknowns: the faces that are neither on the domain walls nor closed
// (open fraction 0) and have liquid (w_f > 0) or sit in a stress sample that
// has. Why the latter: a face just outside the liquid still carries the strain
// of the cell or edge beside it (Batty & Bridson's ghost velocities); its mass
// is floored at MIN_FACE_WEIGHT so that the matrix stays definite.
// Walls and solids are no-slip at their own velocity (Dirichlet): a closed face
// takes the solid's velocity at its centre, a wall face and the ghost faces
// beyond the domain walls 0. Where a difference reaches from an unknown face
// across a solid surface to a Dirichlet face, the surface sits a fraction theta
// of the way (ghost-fluid, as the projection's free surface): theta = 1/2 for
// the ghosts beyond a domain wall (the wall lies on the edge between them),
// 1 for a wall face (the wall is the face), phi_s(p) / (phi_s(p) - phi_s(q))
// from the node solid SDF at the face centres for a closed face; the difference
// is then divided by theta dx, which with the liquid fraction V ~ theta of the
// sample makes the wall's stress mu (u - u_s) / (theta dx), second order for
// a wall on a node plane (Batty & Bridson use theta = 1, the wall moved half a cell).
//
// Why after the pressure projection (their splitting) and not in it: the
// viscous step is its own SPD solve over the three velocity components, with
// the projection's pressure solve unchanged beside it; a coupled Stokes solve
// (Larionov, Batty & Bridson 2017) has pressure and stress unknowns together in
// one indefinite-looking (saddle) system of about 7 unknowns per liquid cell
// against the 3 + 1 of the two split solves, and gains the exact incompressible
// viscous balance, which the split misses by O(dt): the viscous step leaves a
// divergence the next projection removes (sim/cutcell/step.cpp says whether it
// projects again at once, and why).
//
// Not handled: cells thin solids split (the projection's regions and pieces):
// the viscous step sees the face's one velocity.
#include <array>

#include "lib/fluid/velocity.hpp"
#include "lib/fluid/viscosity_weights.hpp"
#include "lib/grid/mac_grid.hpp"
#include "lib/linsolve/pcg.hpp"
#include "lib/linsolve/report.hpp"

namespace fsicut::fluid {

// Why: a ghost face (no liquid in its own cube) still has strain rows, but
// alone they can leave a direction of zero energy (two ghosts whose
// differences cancel); a mass this small keeps the matrix definite without
// moving the liquid's faces.
constexpr Real MIN_FACE_WEIGHT = 1e-6;

// Why: the wall's stress grows as 1/theta; a wall closer than this to a face
// (within a tenth of a cell) is taken at a tenth of a cell, an O(dx) error like
// the rest of the boundary, and the matrix keeps a bounded condition number.
constexpr Real VISCOUS_THETA_MIN = 0.1;

struct ViscositySystem {
  std::array<grid::Array3<int>, 3> unknown;  // per face, its unknown, -1 when not one (shapes face_shape(a))
  std::vector<std::pair<int, Vec3i>> faces;  // per unknown, its face: axis, index
  linsolve::SparseMatrix matrix;             // #unknowns^2, both triangles [dimensionless]
  linsolve::Vector rhs;                      // #unknowns [m/s]
};

// Assembles the system above. `fractions` liquid fractions; `open` the face
// open fractions; `solid_phi` nodes [m] (empty: none); viscosity mu [Pa s];
// density rho [kg/m^3]; dt [s]; `solid_velocity` the solids' velocity [m/s]
// (empty: at rest); `velocity` u* [m/s]; `open_sides` -x, +x, -y, +y, -z, +z:
// the domain's open sides (fluid/flows.hpp), whose wall faces are free and
// beyond which no sample reaches (their outermost cell layer is air).
ViscositySystem assemble_viscosity(const grid::MacGrid& grid, const LiquidFractions& fractions,
                                   const FaceFractions& open, const grid::Array3<Real>& solid_phi, Real viscosity,
                                   Real density, Real dt, const SolidVelocity& solid_velocity,
                                   const grid::MacVelocity& velocity, const std::array<bool, 6>& open_sides = {});

// Solves `system` by PCG (settings.preconditioner: the liquid's stage uses
// incomplete Cholesky; the multigrid V-cycle is built for one unknown per cell
// and does not fit three coupled components on faces), warm-started from
// `velocity`, and writes the unknown faces of `velocity`.
linsolve::Report solve_viscosity(const ViscositySystem& system, const linsolve::PcgSettings& settings,
                                 grid::MacVelocity& velocity);

}  // namespace fsicut::fluid
