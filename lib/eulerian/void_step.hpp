#pragma once
// One time step of an Eulerian solid alone in void: Teng, Levin & Kim 2016
// Algorithm 1 with the lines that need a fluid or a second solid left out
// (the paper's Fig. 4b runs exactly this: the circle "by itself"). Several
// solids and a smoke fluid in one velocity field: world.hpp, which shares the
// per-solid lines 19-22 below and reproduces this step bit for bit for one
// solid in void.
//
// The continuous problem (Eq. 6; our text copy of the paper lost its
// right-hand sides and domains, restored here from the sentences around it):
//   rho dv/dt = div sigma + f      for all x in Omega   (momentum; sigma = 0 in fluid)
//   div v     = 0                  for all x in Omega   (fluid AND solid incompressible)
//   ^f v      = ^s v               for all x on Gamma   (no slip, fluid = solid velocity)
// Omega the world-space domain, Gamma the solid-fluid boundary, sigma the
// Cauchy stress of the solid's hyperelastic model, f external forces. With one
// nodal velocity field for both (q1.hpp) the third line holds by continuity.
//
// Algorithm 1 as restored (line numbers the paper's, which its Table 2 cites):
//    1 compute dt from the CFL condition
//    2 for each solid l
//    3   compute mass ^lM and volume fraction ^lV on the grid
//    4   compute material force ^lf and stiffness matrix ^lK       (section 4.4)
//    5   (our copy: only the section reference of line 4)
//    6 end for
//    7 compute fluid mass ^fM
//    8 assemble M, K, C and f*                                      (section 4.4)
//    9 v* = G^-1 f*                                                 (Eq. 8)
//   10 compute pressure p                                           (Eq. 12)
//   11 pressure project v* to get the pre-advection v^{n+1}         (Eq. 13)
//   12 for each solid l
//   13   update solid particle velocities using FLIP from ^lv^{n+1}
//   14   add repulsions and frictions to particles in collision     (section 4.6)
//   15   (our copy: only the section reference of line 14)
//   16 end for
//   17 for each solid l
//   18   rasterize particle velocities to get the final ^lv^{n+1}
//   19   update displacement ^lu = ^lu^n + dt ^lv^{n+1}
//   20   semi-Lagrangian advect ^lu to get ^lu^{n+1}
//   21 end for            <- lost in our copy; derived: the loop opened on line 17
//                            must close before line 22, which advects the one
//                            global fluid velocity once, after every solid; every
//                            per-solid quantity of the step (velocity: 18, u:
//                            19-20) is complete by line 20, and the passive
//                            surface mesh (section 4.6) is output, not state.
//   22 semi-Lagrangian advect fluid velocity ^fv^{n+1}
//
// The lines this step runs (void_step.cpp has one function per line):
//   1  dt from the CFL condition                       cfl_time_step()
//   3  mass and volume fraction on the grid            (Gauss points, lumped masses)
//   4  material force f and stiffness K                (elasticity.hpp)
//   8  assemble M, K, C and f* = M v + dt (f_ext + f)  (velocity_solve.hpp)
//   9  v* = G^-1 f*                                     (Eq. 8)
//  10  pressure: J M^-1 J^T p = J v* - b               (Eq. 12; b: volume drift, projection.hpp)
//  11  project: v = v* - M^-1 J^T p                    (Eq. 13, projection.hpp)
//      (ProjectionSettings::solver kkt: lines 9-11 as one saddle-point solve,
//      projection.hpp solve_kkt; the primal-dual split lets the pressure act
//      through M only, and a stiff incompressible solid comes out as soft as
//      E = 2 mu instead of 3 mu: tests/eulerian/test_void_step.cpp)
//  19  u = u^n + dt v^{n+1}  (newmark, ours: u^n + dt/2 (v^n + v^{n+1}), velocity_solve.hpp)
//  20  semi-Lagrangian advection of u -> u^{n+1}  (newmark: along (v^n + v^{n+1}) / 2),
//      then the plastic solid's F_p by its yield condition (plasticity.hpp;
//      ours: the paper's Algorithm 1 does not place it)
//  22  semi-Lagrangian advection of the velocity
// Lines 2, 6, 12, 16, 17 and 21 are loop brackets. Line 7 (fluid mass) needs a
// fluid. Lines 13-15 and 18 (FLIP particles, repulsion and friction,
// rasterization) only resolve contact between solids; alone in void the grid
// velocity is final, and line 22's semi-Lagrangian advection carries the
// solid's own velocity copy in their place. A spinning solid loses energy
// (measured: a ball of radius 5 cells spinning its rim 0.5 cells per step,
// dt = 1/24 s, no damping, E = 1e5 Pa, kept 15 % of its kinetic energy after
// 24 steps), and the stand-in is not where most of it goes: stepped as a
// World (world.hpp) the same ball loses about 30 % per step in the velocity
// solve (line 9), and a trial wiring of the FLIP particles (particles.hpp)
// into that step lost as much; with E = 1e2 Pa the first steps lose under 1 %. The elastic response to the rotation (the advected reference map
// no longer giving F = R exactly) is the sink; the particles alone, with no
// solve, keep 99 % (tests/eulerian/test_particles.cpp).
//
// The domain walls are no-slip (unknowns.hpp). Velocities and displacements
// are kept in a band of nodes around the solid (advection.hpp,
// VoidStepSettings::band).
#include <optional>
#include <vector>

#include "lib/eulerian/corotated.hpp"
#include "lib/eulerian/material_shape.hpp"
#include "lib/eulerian/plasticity.hpp"
#include "lib/eulerian/projection.hpp"
#include "lib/eulerian/velocity_solve.hpp"

namespace fsicut::eulerian {

// The state of one Eulerian solid on its grid.
struct EulerianSolid {
  grid::MacGrid grid;
  MaterialShape shape;
  Lame lame;
  Real density = 1000;  // reference density [kg/m^3]
  Damping damping;
  NodeField u;              // displacement x - x_bar [m]
  NodeField v;              // velocity [m/s]
  std::vector<char> valid;  // #nodes: where u and v are defined
  Vector pressure;          // #cells: last pressure impulse, the warm start of Eq. 12 [Pa s]
  // sum_g theta_g V_g when made: the material volume the reference map
  // carried at the start, against which world.hpp measures its drift [m^3].
  Real material_volume = 0;
  // Repulsion stiffness k [N/m] and friction mu of Eqs. 14-15 against other
  // solids (contact.hpp, collide.hpp); k = 0: no contact response.
  Real contact_stiffness = 0;
  Real contact_friction = 0;
  // The plastic deformation F_p at the material grid's Gauss points (plasticity.hpp); none:
  // the solid is elastic.
  std::optional<PlasticStrain> plastic;
};

// The solid's Gauss points with its elastic part F_e = F F_p^-1
// (evaluate_elasticity of elasticity.hpp with the solid's own fields).
ElasticState evaluate_elasticity(const EulerianSolid& solid);

// After line 20, plastic solids only: F_p updated by the yield condition at
// the solid's new displacement (plasticity.hpp); nothing for an elastic one.
void update_plasticity(EulerianSolid& solid);

// A solid whose material shape is `shape`, placed at rest by the reference
// map x_bar = reference_map(x) (identity: undeformed where the shape lies;
// any other map starts it deformed). u and v are set on the nodes within
// `band` cells of the solid's surface or inside it.
template <class Map>
EulerianSolid make_solid(const grid::MacGrid& grid, const MaterialShape& shape, const Lame& lame, Real density,
                         const Map& reference_map, int band = 3);

struct VoidStepSettings {
  VelocitySettings velocity;
  ProjectionSettings projection;
  bool incompressible = true;  // lines 10-11 on (the paper's solids are incompressible)
  Vec3 gravity = Vec3::Zero();  // [m/s^2]
  // Rings of nodes kept around the solid between steps, refitted every step
  // from the nodes within one cell of the material; a step that moves further
  // widens them to ceil(max |v| dt / dx) + 2 for its advection.
  int band = 3;
};

struct VoidStepReport {
  linsolve::Report velocity, pressure, correction;
  Index unknowns = 0;     // velocity unknowns (nodes)
  Index constraints = 0;  // constrained cells
  Index inverted = 0;     // Gauss points with det F <= 0
  Real elastic_energy = 0;  // at the start of the step [J]
  Real volume = 0;          // world volume at the start of the step [m^3]
  Real max_speed = 0;       // max |v^{n+1}| over the unknowns [m/s]
  Real divergence = 0;      // |J v^{n+1} - b| / |J v* - b| over the constrained cells (0 when J v* = b)
};

// Line 1: min(max_dt, cfl * dx / max |v|) [s].
Real cfl_time_step(const EulerianSolid& solid, Real cfl, Real max_dt);

// Advances `solid` by dt [s]. Throws SimulationError when a solve fails, the
// state stops being finite or no node maps into the material any more.
VoidStepReport step_in_void(EulerianSolid& solid, Real dt, const VoidStepSettings& settings);

// The kinetic energy 1/2 sum m v^2 with the solid's current lumped masses [J].
Real kinetic_energy(const EulerianSolid& solid);

// The world volume of the solid (elasticity.hpp solid_volume) [m^3].
Real volume(const EulerianSolid& solid);

// The material volume sum_g theta_g V_g the reference map carries onto the
// grid [m^3]: the solid's rest volume while x_bar is exact (mass / density).
Real material_volume(const ElasticState& state);

// The per-solid lines of the step, shared with the step of several solids
// and a fluid (world.hpp).
//
// Line 19 with the seam of lines 13-18: the solid's velocity copy becomes
// `values` (3 per node, [m/s]) on `nodes` (the nodes where the solid has
// mass), is carried into the band by extrapolation (band layers, widened
// for fast steps as VoidStepSettings::band says), and u += dt v there. With
// Integration::newmark u moves by the average instead, u += dt/2 (v^n + v),
// v^n the copy's on entry on the same `nodes`, carried into the band alike,
// and line 20 follows here, u advected along that average: the caller skips
// advect_displacement. Why: advected along v^{n+1}, u picks up -dt v^{n+1}.grad u,
// a motion the solve did not see, and the trapezoidal rule, which leaves
// its stiffest modes undamped (velocity flipping sign every step, u nearly
// still), grows them from it; measured on the 10:1 cantilever 4 cells thick
// at 60 steps per period, grad u ~ 1e-3: surface nodes' velocity 0.2 -> 10 m/s
// in 40 steps, then the step blew up; along the average it rang 2.5 periods.
// The solid's nodes on the domain walls keep velocity 0 (no-slip) and their u.
void update_displacement(EulerianSolid& solid, Real dt, int band, const std::vector<Index>& nodes,
                         const Vector& values, Integration integration = Integration::semi_implicit);
// Line 20: u^{n+1}(x) = u(x - dt v^{n+1}) (semi_implicit and explicit_euler).
void advect_displacement(EulerianSolid& solid, Real dt);
// Line 22 for the solid's velocity copy: carried through itself.
void advect_solid_velocity(EulerianSolid& solid, Real dt);
// After line 22: the band refitted from the nodes within one cell of the
// material, then extended by `band` rings.
void refit_band(EulerianSolid& solid, int band);
// Throws SimulationError naming `what` unless the solve converged, and the
// scene keys that bound it: coupling/max_iterations and, given
// `tolerance_key`, coupling/eulerian/<tolerance_key>.
void require_converged(const linsolve::Report& report, const char* what, const char* tolerance_key = nullptr);

template <class Map>
EulerianSolid make_solid(const grid::MacGrid& grid, const MaterialShape& shape, const Lame& lame, Real density,
                         const Map& reference_map, int band) {
  EulerianSolid s;
  s.grid = grid;
  s.shape = shape;
  s.lame = lame;
  s.density = density;
  s.u = zero_field(grid);
  s.v = zero_field(grid);
  s.valid.assign(static_cast<std::size_t>(node_count(grid)), 0);
  for (Index n = 0; n < node_count(grid); ++n) {
    const Vec3 x = grid.origin + grid.dx * node_coord(grid, n).cast<Real>();
    const Vec3 x_bar = reference_map(x);
    if (material_distance(shape, x_bar) > band * grid.dx) continue;
    s.u.segment<3>(3 * n) = x - x_bar;
    s.valid[n] = 1;
  }
  s.material_volume = material_volume(evaluate_elasticity(grid, s.u, s.valid, shape, lame));
  return s;
}

}  // namespace fsicut::eulerian
