#pragma once
// Several Eulerian solids and an optional smoke fluid in one velocity field:
// one time step of Teng, Levin & Kim 2016 Algorithm 1 (lines 1-22; the
// restored algorithm and what our text copy lost are in void_step.hpp).
//
// Layout (q1.hpp). One grid for everything: velocity v at the nodes (3 values
// per node, node-major), pressure at the cell centres, smoke density at the
// cell centres. Every solid lives on this grid (EulerianSolid::grid must
// equal World::grid) and keeps its own displacement u, its velocity copy v
// and its band of valid nodes (void_step.hpp). The domain walls are no-slip:
// their nodes' velocity is 0.
//
// Units: SI throughout (m, s, kg; densities kg/m^3, pressure impulse Pa s).
//
// The step (world.cpp has one function per line):
//   1  dt from the CFL condition                 cfl_time_step(world, ...)
//   3  per solid: mass ^lM and volume fraction   (its Gauss points, lumped masses)
//   4  per solid: material force ^lf, and its stiffness's quadrature points;
//      ^lK is assembled in line 8 over the world's unknowns, which only the
//      summed masses of lines 3 and 7 fix
//   7  fluid mass ^fM                            (smoke.hpp: the fluid fills what
//                                                 the solids leave of each cell)
//   8  M = sum_l ^lM + ^fM, K = sum_l ^lK, C = sum_l (tau_m,l ^lM + tau_k,l ^lK),
//      f* = M v^n + dt (f_ext + sum_l ^lf), f_ext = gravity on M, the fluid's
//      buoyancy and vorticity confinement (smoke.hpp); v^n at a node is the
//      momentum-weighted mean of the solids' velocity copies and the fluid
//      velocity there, by the masses of lines 3 and 7 (the rasterization of
//      line 18; a node only one body touches takes its value unchanged)
//   9  G v* = f*, G = M + dt C + dt^2 K          (Eq. 8)
//  10  J M^-1 J^T p = J v* - b                   (Eq. 12)
//  11  v^{n+1} = v* - M^-1 J^T p                 (Eq. 13; ProjectionSettings::correction)
//      (ProjectionSettings::solver kkt: lines 9-11 as one saddle-point
//      solve of Eq. 11, projection.hpp solve_kkt)
//  12-18 per solid: its velocity copy ^lv^{n+1} is v^{n+1} on the nodes where
//      it has mass, plus what contact with the other solids' particles
//      changes (collide.hpp)
//  19  per solid: u = u^n + dt ^lv^{n+1}
//  20  per solid: semi-Lagrangian advection of u
//  22  semi-Lagrangian advection of the fluid velocity (through v^{n+1}), then
//      of the smoke density, and the sources
//
// Constraints (Eq. 12 rows, one per cell). With smoke, every cell of the
// box with an unknown corner: fluid and solids are both incompressible (a
// cell inside an inflow box already is, by its prescribed corners). In void,
// the cells holding some solid (as step_in_void). b (projection.hpp) is each
// solid's volume drift rate in its cells (ours) minus J v on the nodes an
// inflow prescribes. In the closed smoke box J^T has a kernel on the cells:
// the constant and, for each layer of cells across an axis, the layer's
// checkerboard in the other two ((-1)^(i+j) on a layer across z; Q1-P0's
// spurious pressure modes), restricted to the constrained cells. J v* is
// orthogonal to it; b is made so by subtracting its least-squares components
// along it (ours), or Eq. 12 has no solution and its CG does not converge
// (measured: relative residual 1.3 after 2000 iterations on the second step
// of a ball falling in smoke). Physically the fluid gives up the volume a
// compressed solid takes back.
//
// Sign: p is the multiplier of J v = b, and J^T = -grad (projection.hpp), so
// p is minus the physical pressure impulse: in a still box under gravity it
// grows upward by fluid density * g * dt per metre.
//
// Lines 12-18 use the particles for contact only. Line 22 carries each
// solid's copy through itself by semi-Lagrangian advection, as step_in_void
// does, not by FLIP particles kept from step to step (void_step.hpp measures
// what that loses on a spinning solid).
//
// Paper's constants: the solver thresholds (pressure 0.02, velocity 1e-3,
// VoidStepSettings). Ours: the drift correction of b, the band widths, the
// momentum-weighted v^n, the buoyancy law (smoke.hpp), the kernel projection
// of b.
#include <optional>
#include <vector>

#include "lib/eulerian/collide.hpp"
#include "lib/eulerian/smoke.hpp"
#include "lib/eulerian/void_step.hpp"

namespace fsicut::eulerian {

struct World {
  grid::MacGrid grid;
  std::vector<EulerianSolid> solids;  // each on `grid`
  std::optional<Smoke> smoke;         // none: the solids are alone in void
  NodeField velocity;                 // the shared v^{n+1} of the last step, before line 22 [m/s]
  // #cells: the last step's multiplier p, the warm start of Eq. 12 [Pa s]
  // (the world's own; EulerianSolid::pressure is step_in_void's).
  Vector pressure;
  Real time = 0;  // [s] at the step's start: which smoke sources act (sim/eulerian/simulator.cpp sets it)
};

// An empty world (no solids, no fluid, at rest) on `grid`.
World make_world(const grid::MacGrid& grid);

// The step's settings are a single solid's (void_step.hpp); gravity acts on
// the solids and on the fluid.
using WorldSettings = VoidStepSettings;

// Per solid, at the start of the step unless said otherwise.
struct SolidReport {
  Real volume = 0;          // world volume [m^3]
  Real elastic_energy = 0;  // [J]
  Real kinetic_energy = 0;  // 1/2 sum ^lm |v^{n+1}|^2 on its nodes, after line 11 [J]
  Real max_strain = 0;      // max over its Gauss points of max_i |s_i - 1|, s the stretches of F
  Index inverted = 0;       // Gauss points with det F <= 0
  // Drift of the reference map: the material volume sum_g theta_g V_g it
  // carries onto the grid over the one it carried when made, minus 1. Exact
  // advection of x_bar keeps it 0; semi-Lagrangian advection diffuses x_bar
  // and gains or loses material (mass = density * material volume).
  Real drift = 0;
};

struct WorldReport {
  linsolve::Report velocity, pressure, correction;  // Eqs. 8, 12, 13
  Index unknowns = 0;       // velocity unknowns (nodes)
  Index constraints = 0;    // constrained cells
  Real divergence = 0;      // |J v^{n+1} - b| / |J v* - b| (0 when J v* = b)
  Real max_speed = 0;       // max |v^{n+1}| over the unknowns [m/s]
  // sum M v^n + dt sum (f_ext + f) over the unknowns, and sum M v^{n+1}
  // after line 11 [kg m/s]: equal up to the solves' tolerances unless the
  // walls push (constraint rows with wall corners, as in a closed smoke box).
  Vec3 momentum_expected = Vec3::Zero();
  Vec3 momentum_solved = Vec3::Zero();
  std::vector<SolidReport> solids;
  ContactReport contact;  // lines 14-15 (collide.hpp)
  // Wall-clock seconds of the step's parts, the paper's Table 2 columns:
  // lines 1-8 (masses, forces, G), lines 9 and 11, line 10, lines 12-18
  // (particles and contact), lines 19-22.
  struct Seconds {
    Real assemble = 0, velocity = 0, pressure = 0, collision = 0, advection = 0;
  } seconds;
};

// Line 1: min(max_dt, cfl * dx / max |v|) over the shared velocity and the
// solids' valid velocity copies [s].
Real cfl_time_step(const World& world, Real cfl, Real max_dt);

// Advances the world by dt [s]. Throws SimulationError when a solve fails,
// the state stops being finite or a solid's nodes no longer map into its
// material.
WorldReport step(World& world, Real dt, const WorldSettings& settings);

}  // namespace fsicut::eulerian
