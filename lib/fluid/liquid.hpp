#pragma once
// The free-surface liquid with static boundaries: the state and the stages of
// Algorithm 1 (Zarifi & Batty 2017) that concern it, as free functions.
//
// A step (what sim/cutcell/step.cpp calls, in this order, for a liquid with or without solids):
//   2. advect(liquid, dt)                 marker particles (RK2) and face velocities
//                                         (semi-Lagrangian, RK2 backtrace; only faces in
//                                         the liquid and its extrapolation band, others 0)
//   3. apply_gravity(liquid, dt)          forward Euler on every face
//   4. update_distance_fields(liquid)     liquid SDF at cell centres from the particles,
//                                         extended into the solid; solid SDF at nodes and
//                                         face open fractions (only when not yet computed:
//                                         static solids; call refresh_solid() if it moves)
//   5. project(liquid, dt)                cut-cell pressure projection (13), (20); returns
//                                         the solve report, throws SimulationError if the
//                                         solve fails (unless allow_unconverged)
//      apply_viscosity(liquid, dt)        only when viscosity > 0: the implicit viscous step
//                                         (fluid/viscosity.hpp); returns the solve report
//   6. extrapolate_and_constrain(liquid)  extrapolation into air and solid, u.n = 0 at
//                                         solids, particles pushed out of solids
// The substep length comes from sim/advance.hpp (the one CFL rule); max_speed()
// is the liquid's part of it.
// Build with make_liquid(grid, ...) + add_liquid() + initialize() before the
// first step (sim/from_scene.hpp builds a scene's liquid this way).
//
// Units: SI. Conventions: grid/mac_grid.hpp (layout), levelset/ (signs: liquid SDF
// negative in liquid, solid SDF negative in solid).
#include <array>
#include <functional>

#include "lib/fluid/pressure_projection.hpp"
#include "lib/cutcell/face_fractions.hpp"
#include "lib/fluid/particles.hpp"
#include "lib/fluid/pieces.hpp"
#include "lib/fluid/velocity.hpp"
#include "lib/grid/mac_grid.hpp"
#include "lib/levelset/liquid_sdf.hpp"
#include "lib/levelset/solid_sdf.hpp"
#include "lib/linsolve/report.hpp"

namespace fsicut::fluid {

// Extrapolation depth in faces when the CFL number is at most 1: a semi-Lagrangian
// backtrace (at most cfl cells) plus the trilinear stencil (one more) must find
// extrapolated values; one more layer of margin.
constexpr int DEFAULT_EXTRAPOLATION_LAYERS = 3;

// The domain's open sides (fluid/flows.hpp), -x, +x, -y, +y, -z, +z.
using OpenSides = std::array<bool, 6>;

struct Liquid {
  grid::MacGrid grid;
  Real density = 1000;          // [kg/m^3]
  Real viscosity = 0;           // dynamic viscosity mu [Pa s]; 0 = inviscid (no viscosity stage)
  Vec3 gravity{0, -9.81, 0};    // [m/s^2]
  Points particles;             // marker particles, 3 x #particles [m]
  Real particle_radius = 0;     // ball radius of drops in the liquid phi and the VDB [m] (levelset/liquid_sdf.hpp)
  Real particle_volume = 0;     // liquid volume one seeded particle stands for, dx^3 / per cell [m^3]

  grid::MacVelocity velocity;        // face velocities [m/s]
  grid::Array3<Real> pressure;       // cell centres [Pa]: last projection, 0 where inactive
  grid::Array3<Real> liquid_phi;     // cell centres [m], < 0 in liquid (extended into solids)
  grid::Array3<Real> static_phi;     // nodes [m], < 0 in a static obstacle; empty = not yet computed
  grid::Array3<Real> solid_phi;      // nodes [m], < 0 in any solid: static_phi, or its union with
                                     // the deformable solids (sim/cutcell/solid_fields.hpp sets it each substep)
  cutcell::FaceFractions fractions;  // open face fractions in [0, 1]
  levelset::NeighbourReach reach;    // cells cut off from neighbours by thin solids; empty = none
                                     // (advect() uses reach.particles when it has one entry per particle)
                                     // (sim/cutcell/solid_fields.hpp sets it with solid_phi)
  cutcell::SplitCells split;         // cells thin solids divide, one pressure per region; empty = none
                                     // (sim/cutcell/solid_fields.hpp sets it with the fractions)
  std::vector<Real> region_pressure; // [Pa] the further regions of split cells, last projection
                                     // (cutcell::ActiveCells::whole onwards)
  PieceVelocities pieces;            // [m/s] the split faces' pieces, last projection (fluid/pieces.hpp)
  FaceFlags valid;                   // faces set by the last projection / extrapolation

  levelset::StaticSolid solid;       // static obstacles; empty = none (domain walls only)
  OpenSides open{};                  // sides whose outermost cell layer is air (fluid/flows.hpp)
  WallInflows wall_inflow;           // wall faces a source flows in through, this substep (fluid/flows.hpp)
  ProjectionSettings projection;
  int extrapolation_layers = DEFAULT_EXTRAPOLATION_LAYERS;

  grid::MacVelocity scratch;  // workspace for advection and the constraint
};

// An empty liquid (no particles, zero velocity) on `grid` with the static solid.
Liquid make_liquid(const grid::MacGrid& grid, Real density, const Vec3& gravity,
                   levelset::StaticSolid solid);

// Adds particles in `region` (outside the static solid), per_cell per cell seeded
// from `seed`, and sets the faces whose centre is in the region to `velocity`
// [m/s]. Call initialize() after the last region. `exact`: seed_particles().
void add_liquid(Liquid& liquid, const Region& region, const Vec3& velocity, int per_cell,
                unsigned seed, const grid::Array3<char>& exact = {});

// Distance fields, face fractions, and the velocity extrapolated from the faces
// next to liquid cells: the state before the first step. Required after add_liquid():
// advection only moves the faces flagged by the last extrapolation.
void initialize(Liquid& liquid, const SolidVelocity& solid_velocity = {});

// Stage 2: particles then face velocities, both through the current velocity.
// `region_of` (split cells only): the region of a split cell that a point
// belongs to (cutcell::region_of with the surfaces the split cells came
// from); the particles beside thin walls then read their side's pieces.
void advect(Liquid& liquid, Real dt, const RegionOf& region_of = {});
// Its two halves, for callers that move the particles in several steps
// (sim/cutcell/particle_steps.hpp): advect() is move_particles then advect_faces.
void move_particles(Liquid& liquid, Real dt, const RegionOf& region_of = {});
void advect_faces(Liquid& liquid, Real dt);
// Stage 3.
void apply_gravity(Liquid& liquid, Real dt);
// Stage 4.
void update_distance_fields(Liquid& liquid);
// Recomputes static_phi from liquid.solid, sets solid_phi = static_phi and the
// face fractions from it.
void refresh_solid(Liquid& liquid);
// Stage 5. `wall` (optional): the moving walls' face velocities
// (fluid/pressure_projection.hpp assemble_pressure).
linsolve::Report project(Liquid& liquid, Real dt, const grid::MacVelocity* wall = nullptr);
// After stage 5, for a viscous liquid: the liquid fractions from the liquid
// and solid SDFs, then the implicit viscous step (fluid/viscosity.hpp) solved
// by PCG with incomplete Cholesky to the projection's tolerance and iteration
// limit. `solid_velocity` (optional) the solids' velocity the liquid sticks
// to (zero: at rest). Does nothing (and reports nothing to solve) when
// viscosity is 0.
linsolve::Report apply_viscosity(Liquid& liquid, Real dt, const SolidVelocity& solid_velocity = {});
// The projection again after the viscous step, for the divergence it left
// (sim/cutcell/step.cpp says when and why): the correction solved from zero
// and added to `pressure` (and the regions'), so that the pressure stays the
// whole substep's, as the loads read it. `wall` as for project().
linsolve::Report reproject(Liquid& liquid, Real dt, const grid::MacVelocity* wall = nullptr);
// Stage 6. `solid_velocity` (optional) is the velocity [m/s] of the solid
// surface nearest to a point inside a solid (zero for static obstacles); the
// constraint then keeps the fluid's normal velocity equal to the solid's there.
void extrapolate_and_constrain(Liquid& liquid, const SolidVelocity& solid_velocity = {});

// An upper bound of the fluid speed [m/s]: the norm of the per-axis maximum
// |face velocity| over all faces (extrapolated ones included, so it also bounds
// the speeds that advection reads).
Real max_speed(const Liquid& liquid);

// Liquid volume [m^3]: the space the liquid fills, the bulk cell by cell and
// the rest by the particles' shares, each cell up to its open part
// (levelset::liquid_volume_from_particles). Beside thin walls the stats count
// the split cells' regions too (fluid/volume.hpp, sim::liquid_volume).
Real liquid_volume(const Liquid& liquid);

// Mean particle position [m] (zero with no particles).
Vec3 particle_centroid(const Liquid& liquid);

}  // namespace fsicut::fluid
