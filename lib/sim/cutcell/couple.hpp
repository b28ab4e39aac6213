#pragma once
// Liquid and deformable solids in one projection (stage 5 of Algorithm 1,
// Zarifi & Batty 2017, Sections 5-6): the glue between the solids' surfaces in
// the liquid's cells (sim/cutcell/solid_fields.hpp, stage 4; J in sim/cutcell/coupling_matrix.hpp)
// and the coupled linear algebra of coupling/coupled_projection.hpp.
// project_coupled(state, dt) assembles F, J, A_s, solves by the scene's
// coupling.scheme, applies u = u* - dt/rho G p (20) and gives the solids their
// new velocities.
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
// Spd scheme only (sim/cutcell/simulator.cpp refuses the others).
#include <functional>
#include <vector>

#include "lib/coupling/coupled_projection.hpp"
#include "lib/coupling/partitioned.hpp"
#include "lib/fluid/pressure_projection.hpp"
#include "lib/sim/cutcell/loads.hpp"
#include "lib/sim/cutcell/solid_fields.hpp"
#include "lib/sim/simulator.hpp"
#include "lib/linsolve/report.hpp"
#include "lib/solid/body.hpp"
#include "lib/solid/reduced.hpp"

namespace fsicut::sim {

class CutCellSimulator;

// A reduced body's side of the coupled system (see the header comment).
struct ReducedCoupling {
  std::size_t body = 0;             // index in CutCellSimulator::solids
  linsolve::SparseMatrix coupling;  // J_b, #active x 3 #nodes (all nodes, node-major) [m^2]
  solid::ReducedState free_state;   // the body's state after its velocity step without pressure
};

// One substep's coupled system and where its unknowns come from.
struct CoupledAssembly {
  fluid::PressureSystem fluid;      // active cells (rows of F), fluid block in 1/dx^3 units
  coupling::CoupledSystem system;      // paper units, see coupled_projection.hpp
  std::vector<int> dof_offset;         // #bodies + 1: body b's free dofs are [offset[b], offset[b+1]); none
                                       // for a reduced body
  std::vector<ReducedCoupling> reduced;  // one per reduced body; their U_b stacked in system.low_rank
  linsolve::Report pre_solve;          // damping_only: the worst elastic pre-step solve
  // 6 #bodies x #active: times p, each body's force [N] and torque [N m] from
  // the liquid (CouplingColumns::load, sim/cutcell/loads.hpp)
  linsolve::SparseMatrix load;
};

// The free-dof velocities of all full bodies [m/s], stacked body after body as
// the coupled system's v (CoupledAssembly::dof_offset).
linsolve::Vector free_velocities(const CutCellSimulator& state);

// Assembles the coupled system of the current state for step length dt [s]
// (after update_solid_fields and the liquid SDF of stage 4). For damping_only
// this runs the elastic pre-step and stores v_e in the bodies' velocities.
CoupledAssembly assemble_coupled(CutCellSimulator& state, Real dt);

// Stage 5: assemble, solve (scheme of state.scene.coupling, warm-started from
// the last pressure and the current solid velocities), apply (20) to the
// liquid's faces and the new velocities to the solids. Returns the report of
// the solve (worst of the pre-step and the coupled solve); does not throw when
// the solve stops short (the caller decides), but throws SimulationError for a
// non-finite result.
// With the schemes partitioned and xpm, `partitioned` (if given) receives the
// iteration's report. `loads` (if given) receives what the solids' loads are
// measured from (solid_loads(rows.load * rows.pressure), sim/cutcell/loads.hpp).
struct LoadRows {
  linsolve::SparseMatrix load;  // CoupledAssembly::load of the solve's active cells
  linsolve::Vector pressure;    // the solution's pressure, #active [Pa]
};
linsolve::Report project_coupled(CutCellSimulator& state, Real dt, const SystemObserver& observe = {},
                                 std::optional<coupling::PartitionedReport>* partitioned = nullptr,
                                 LoadRows* loads = nullptr);

// The liquid's weighted net outflow [m^3/s] from every active cell after the
// projection: open faces (fraction * dx^2 * u . n) plus solid patches
// (area * v(c) . n_into_solid). Zero for an exact solve; #active.
linsolve::Vector net_outflow(const CutCellSimulator& state, const CoupledAssembly& assembly);

}  // namespace fsicut::sim
