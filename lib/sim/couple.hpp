#pragma once
// Liquid and deformable solids in one projection: the glue between the
// geometry of the moving solids, the liquid's cut-cell grid and the coupled
// linear algebra of coupling/coupled_projection.hpp (Zarifi & Batty 2017,
// Sections 5-7). sim/step.cpp calls, each substep:
//
//   stage 4  update_solid_fields(state)     every solid's signed distance at the
//                                           grid nodes (exact within a band) united
//                                           with the static obstacles into
//                                           liquid.solid_phi and the face fractions;
//                                           every boundary triangle clipped against
//                                           the cells (the surface patches Q of (10))
//   stage 5  project_coupled(state, dt)     assemble F, J, A_s; solve by the scene's
//                                           coupling.scheme; u = u* - dt/rho G p (20);
//                                           the solids' new velocities
//   stage 6  solid_velocity(state)          the solid surface velocity the liquid's
//                                           velocity constraint keeps at solids
//
// Schemes (scene key coupling.scheme):
//   spd           (33) with PCG (coupling.preconditioner on the pressure block): F, J and
//                 the full backward Euler block A_s = (1/dt + tau_m) M + (dt + tau_k) K, b_s = M v*/dt + f_elastic
//   indefinite    (19) with BiCGSTAB + ILU, same blocks
//   damping_only  elasticity first, on its own: (M/dt + dt K) v_e = M v*/dt + f_elastic,
//                 then (33) with only damping coupled: A_s = (1/dt + tau_m) M + tau_k K,
//                 b_s = M v_e/dt (the pre-Zarifi strong coupling of damping only)
//   weak          liquid with the solid velocities as boundary conditions, then the
//                 solids with the resulting pressure forces (two solves)
// Gravity is already in u* and v* (stage 3), so b_s has no external force.
//
// Free solid dofs are stacked body after body (CoupledAssembly::dof_offset).
//
// Reduced bodies (solid/reduced.hpp, Lu, Jin & Fedkiw 2016) have no unknowns
// of their own: with their configuration fixed after stage 1, a body's nodal
// velocities at the end of the step are affine in the pressure impulse it
// receives, v_b = v_free + K_lambda dt J_b^T p (v_free: its velocity step with
// gravity and no pressure; K_lambda: their (43)). Substituted into the volume
// balance F p + J v = b_f of its wetted cells this adds
//   dt J_b K_lambda J_b^T = U_b U_b^T,  U_b = sqrt(dt) J_b W L  (K_lambda = W D W^T, D = L L^T)
// to F and moves -J_b v_free to b_f (coupled_projection.hpp, low_rank). It is
// rank 6 + r (r modes), dense over the body's wetted cells and positive
// semi-definite, so (33) stays SPD; it is applied matrix-free. After the solve
// the body takes the impulse dt J_b^T p through the same response
// (solid::implicit_impulse_response), so liquid and body see one velocity.
// Spd scheme only (sim/state.cpp refuses the others).
#include <functional>
#include <vector>

#include "lib/coupling/coupled_projection.hpp"
#include "lib/coupling/partitioned.hpp"
#include "lib/coupling/pressure_projection.hpp"
#include "lib/cutcell/surface_patches.hpp"
#include "lib/fluid/velocity.hpp"
#include "lib/levelset/mesh_sdf.hpp"
#include "lib/linsolve/report.hpp"
#include "lib/solid/body.hpp"
#include "lib/solid/reduced.hpp"

namespace fsicut::sim {

struct SimState;

// Why a band: the liquid reads a solid's SDF only near its surface (face
// fractions, the liquid SDF's extension into the solid, pushing particles out,
// the velocity constraint), all within a few cells. Exact distances farther
// away would cost a full-mesh search per node.
constexpr Real SOLID_BAND_CELLS = 5;

// The solids' triangle surfaces: `distance` holds one entry per body (its
// boundary at the current positions), then one per static obstacle that has a
// surface (levelset::obstacle_surfaces: boxes and obj meshes), which never
// moves. The thin-solid stages and the particle paths read all of them; the
// patches and the coupling only the bodies'.
struct SolidSurfaces {
  std::vector<levelset::MeshDistance> distance;              // bodies, then obstacles
  std::vector<std::vector<cutcell::SurfacePatch>> patches;   // clipped boundary triangles
  grid::Array3<Real> phi;                                    // workspace: one body's node SDF
  cutcell::FaceFractions static_fractions;  // open fractions of the walls and static obstacles alone; empty: not yet
  bool fixed = false;  // no bodies and the static fields computed: stage 4 only updates particles
};

// A reduced body's side of the coupled system (see the header comment).
struct ReducedCoupling {
  std::size_t body = 0;             // index in SimState::solids
  linsolve::SparseMatrix coupling;  // J_b, #active x 3 #nodes (all nodes, node-major) [m^2]
  solid::ReducedState free_state;   // the body's state after its velocity step without pressure
};

// One substep's coupled system and where its unknowns come from.
struct CoupledAssembly {
  coupling::PressureSystem fluid;      // active cells (rows of F), fluid block in 1/dx^3 units
  coupling::CoupledSystem system;      // paper units, see coupled_projection.hpp
  std::vector<int> dof_offset;         // #bodies + 1: body b's free dofs are [offset[b], offset[b+1]); none
                                       // for a reduced body
  std::vector<ReducedCoupling> reduced;  // one per reduced body; their U_b stacked in system.low_rank
  linsolve::Report pre_solve;          // damping_only: the worst elastic pre-step solve
};

// The solver settings of the scene's coupling block.
coupling::CoupledSettings coupled_settings(const scene::Coupling& c);

// The free-dof velocities of all full bodies [m/s], stacked body after body as
// the coupled system's v (CoupledAssembly::dof_offset).
linsolve::Vector free_velocities(const SimState& state);

// Called with each substep's coupled system before it is solved (benchmarks).
using SystemObserver = std::function<void(const coupling::CoupledSystem&)>;

// The bodies' surfaces at their current positions (no patches yet), then `obstacles`.
SolidSurfaces make_surfaces(const std::vector<solid::Body>& bodies,
                            std::vector<levelset::MeshDistance> obstacles = {});

// Stage 4 for the solids (needs state.liquid): moves the surfaces to the
// bodies' positions; liquid.solid_phi = min(static_phi, each body's SDF clamped
// to +-SOLID_BAND_CELLS dx); face fractions, closed across thin solids;
// patches; the neighbour reach. Without bodies (static obstacles only) all of it
// is computed once, and later calls only update the particles' reach.
void update_solid_fields(SimState& state);

// Assembles the coupled system of the current state for step length dt [s]
// (after update_solid_fields and the liquid SDF of stage 4). For damping_only
// this runs the elastic pre-step and stores v_e in the bodies' velocities.
CoupledAssembly assemble_coupled(SimState& state, Real dt);

// Stage 5: assemble, solve (scheme of state.scene.coupling, warm-started from
// the last pressure and the current solid velocities), apply (20) to the
// liquid's faces and the new velocities to the solids. Returns the report of
// the solve (worst of the pre-step and the coupled solve); does not throw when
// the solve stops short (the caller decides), but throws SimulationError for a
// non-finite result.
// With the schemes partitioned and xpm, `partitioned` (if given) receives the
// iteration's report.
linsolve::Report project_coupled(SimState& state, Real dt, const SystemObserver& observe = {},
                                 std::optional<coupling::PartitionedReport>* partitioned = nullptr);

// Particle paths against the solids' triangles (stages 2 and 6). The SDF push-out
// of stage 6 cannot keep liquid out of a solid thinner than a cell (its node
// distance is positive on both sides) nor tell which side of a thin wall a
// particle came from. So each particle's path over the substep is tested
// against the boundary triangles at their new positions, in the frame of the
// solid: a particle within PATH_ANCHOR_CELLS of a solid at the start is
// anchored to the nearest surface point (body, triangle, barycentric) and its
// start is carried along with that point's displacement. A particle whose path
// from the carried start to its end enters a solid and stays in it, or passes
// through it (leaves through a face facing the one it entered by, as through a
// wall: cutcell::WALL_NORMALS), is put back on the side it came from,
// PATH_MARGIN_CELLS dx off the surface at the first meeting.
constexpr Real PATH_ANCHOR_CELLS = 2;
constexpr Real PATH_MARGIN_CELLS = 1e-3;

struct ParticlePaths {
  struct Anchor {
    Index particle = 0;
    int body = 0;
    Index triangle = 0;
    Vec3 barycentric{0, 0, 0};
  };
  Points start;                    // 3 x #particles, positions before advection [m]
  std::vector<Points> solid_start; // per body, node positions before the substep [m]
  std::vector<Anchor> anchors;     // the particles near a solid, by particle index
};

// Stage 2, before the particles move (the surfaces still at the positions of
// the last stage 4, those before this substep's stage 1).
ParticlePaths start_particle_paths(const SimState& state);

// Stage 2, before the particles move: their neighbour reach (cutcell/thin_solids.hpp)
// where stage 6 left them, against the surfaces and cells' reach of the last
// stage 4 (the geometry the velocities were projected with), so that advection
// reads only velocities from their own side of a thin solid.
void update_particle_reach(SimState& state);

// Stage 6, after the SDF push-out: stops the particles whose path crossed a
// solid surface as above (paths.start becomes the carried starts). Returns how
// many it stopped.
Index stop_particles_at_solids(SimState& state, ParticlePaths& paths);

// Stage 6: the velocity [m/s] at a point of the solid surface nearest to x
// (barycentric in the nearest boundary triangle of the nearest body within the
// band; zero elsewhere: static obstacles). Captures `state` by reference.
fluid::SolidVelocity solid_velocity(const SimState& state);

// The liquid's weighted net outflow [m^3/s] from every active cell after the
// projection: open faces (fraction * dx^2 * u . n) plus solid patches
// (area * v(c) . n_into_solid). Zero for an exact solve; #active.
linsolve::Vector net_outflow(const SimState& state, const CoupledAssembly& assembly);

}  // namespace fsicut::sim
