#pragma once
// The single-phase fluid of Teng, Levin & Kim 2016: smoke (or clear air)
// filling a closed box around the Eulerian solids, on the same grid and the
// same nodal velocity field as the solids (world.hpp steps them together).
//
// What the fluid is in the step:
//  - mass (Algorithm 1 line 7): it fills the part of every cell the solids do
//    not, Gauss point by Gauss point: a point of cell c holds fluid volume
//    (1 - min(1, sum_l theta_lg)) dx^3 / 8, lumped onto the corners with the
//    Q1 weights N_q(xi_g) as the solids' masses (elasticity.hpp) are, times
//    the fluid density. An interior node away from the solids gets
//    fluid_density * dx^3. No stress (sigma = 0), no damping.
//  - external forces (f_ext of Eq. 8, per node, [N]): gravity on its mass
//    (world.hpp), buoyancy and vorticity confinement below. Its own weight is
//    carried by the pressure: a still box stays still.
//  - the smoke density s, per CELL (its centre; index as q1.hpp's pressure),
//    dimensionless (0 = clear air, 1 = a source's usual value): a passive
//    marker for output (a fog grid), advected with the velocity, and the
//    input of the buoyancy.
//
// Ours, not the paper's (it names "body, buoyancy and vorticity forces"
// only): the buoyancy is Fedkiw, Stam & Jensen 2001's smoke-density term
// with the opposite sign, an upward push on the smoke,
//   f_b(node) = fluid mass(node) * buoyancy * s(node) * up      [N],
// s(node) the mean of the cells around the node, up = -gravity / |gravity|
// (+y without gravity); and the vorticity confinement is Fedkiw et al.'s
//   f_vc(node) = fluid mass(node) * epsilon * dx * (N x omega)  [N],
// omega = curl v, N = grad|omega| / |grad|omega|| by central differences on
// the nodes (one-sided at the walls).
//
// Sources: boxes (world coordinates [m]) that set s in the cells whose centre
// they hold, every step after the advection, and optionally prescribe the
// velocity of the nodes they hold (an inflow jet). Prescribed nodes are
// Dirichlet nodes of the step's solves (not unknowns); the incompressibility
// of the cells around them carries their flow into the box. A solid that
// enters an inflow box is pushed at the inflow velocity there.
#include <limits>
#include <vector>

#include "lib/eulerian/q1.hpp"

namespace fsicut::eulerian {

struct SmokeSource {
  Vec3 lower = Vec3::Zero();  // box corners [m]
  Vec3 upper = Vec3::Zero();
  Real density = 1;           // smoke density set in the box
  bool inflow = false;        // prescribe `velocity` on the box's nodes
  Vec3 velocity = Vec3::Zero();  // [m/s]
  Real from = 0;              // the source acts while from <= t < until [s]
  Real until = std::numeric_limits<Real>::infinity();
};

struct Smoke {
  Real fluid_density = 1.2;          // [kg/m^3] (air)
  Real buoyancy = 0;                 // [m/s^2 per unit smoke density]
  Real vorticity_confinement = 0;    // epsilon (dimensionless; 0 = off)
  std::vector<SmokeSource> sources;
  grid::Array3<Real> density;        // smoke density s, size grid.cell_shape()
  NodeField velocity;                // the fluid velocity ^f v after line 22 [m/s]
};

// A still, clear box of fluid of `fluid_density` [kg/m^3] on `grid`.
Smoke make_smoke(const grid::MacGrid& grid, Real fluid_density);

// Line 7: the fluid mass of every node (#nodes) [kg]. `solid_fraction`:
// #cells * 8, entry 8 c + g the sum over the solids of theta_g at Gauss
// point g of cell c (0 where no solid).
std::vector<Real> fluid_masses(const grid::MacGrid& grid, const std::vector<Real>& solid_fraction,
                               Real fluid_density);

// The nodes the inflow sources acting at time t [s] prescribe (#nodes,
// nonzero = prescribed) and their velocity, written into `velocity` (other
// nodes untouched).
std::vector<char> inflow_nodes(const grid::MacGrid& grid, const Smoke& smoke, Real t, NodeField& velocity);

// Sets the smoke density of the sources acting at time t [s] in the cells
// whose centres they hold.
void apply_sources(const grid::MacGrid& grid, Smoke& smoke, Real t);

// f_b of the header on every node [N].
NodeField buoyancy_force(const grid::MacGrid& grid, const Smoke& smoke, const std::vector<Real>& fluid_mass,
                         const Vec3& up);

// f_vc of the header on every node for the velocity field `v` [N].
NodeField vorticity_confinement_force(const grid::MacGrid& grid, const NodeField& v,
                                      const std::vector<Real>& fluid_mass, Real epsilon);

// One semi-Lagrangian step of the cell-centred `density` through the nodal
// velocity [m/s] over dt [s]: s(x) <- s(x - dt v(x - dt/2 v(x))), trilinear
// in the cell centres, clamped at the box.
void advect_density(const grid::MacGrid& grid, grid::Array3<Real>& density, const NodeField& velocity, Real dt);

// The total amount of smoke sum_c s_c dx^3 [m^3].
Real smoke_amount(const grid::MacGrid& grid, const grid::Array3<Real>& density);

}  // namespace fsicut::eulerian
