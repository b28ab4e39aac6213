#include "lib/sim/cutcell/couple.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

#include "lib/core/error.hpp"
#include "lib/mesh/check.hpp"
#include "lib/mesh/quadratic.hpp"
#include "lib/scene/scene.hpp"
#include "lib/sim/cutcell/coupling_matrix.hpp"
#include "lib/sim/from_scene.hpp"
#include "lib/sim/cutcell/simulator.hpp"
#include "lib/solid/integrate.hpp"

namespace fsicut::sim {
namespace {

// The solid block of one body, written into the stacked block at `offset`.
// Returns the elastic pre-step's report (damping_only) or a converged empty one.
linsolve::Report add_solid_block(solid::Body& body, Real dt, scene::Coupling::Scheme scheme,
                                 const scene::Coupling& settings, int offset, coupling::SolidBlock& block,
                                 Triplets& stiffness) {
  linsolve::Report pre = linsolve::nothing_to_solve();
  const int n = body.dofs.num_free_dofs();
  if (n == 0) return pre;
  const solid::BackwardEulerSystem be = solid::backward_euler_system(body, dt, Vec3::Zero());
  const Real c_m = 1 / dt + body.tau_m;
  Real c_k = dt + body.tau_k;
  linsolve::Vector rhs = be.b;
  if (scheme == scene::Coupling::Scheme::damping_only) {
    // Elasticity on its own first, implicitly: (M/dt + dt K) v_e = M v/dt + f_elastic.
    const linsolve::SparseMatrix A = be.A - be.D;
    linsolve::Vector v_e = be.v;
    linsolve::PcgSettings pcg;
    pcg.tolerance = settings.tolerance;
    pcg.max_iterations = settings.max_iterations;
    pre = linsolve::solve_pcg(A, be.b, v_e, pcg);
    body.dofs.scatter(v_e, body.v);
    c_k = body.tau_k;
    rhs = be.mass.cwiseProduct(v_e) / dt;
  }
  block.mass_term.segment(offset, n) = c_m * be.mass;
  block.rhs.segment(offset, n) = rhs;
  // The assembled R K0 R^T is symmetric up to round-off; the coupled systems
  // need it exactly: (K + K^T) / 2.
  for (int r = 0; r < be.K.outerSize(); ++r)
    for (linsolve::SparseMatrix::InnerIterator it(be.K, r); it; ++it) {
      stiffness.emplace_back(offset + r, offset + it.col(), 0.5 * c_k * it.value());
      stiffness.emplace_back(offset + it.col(), offset + r, 0.5 * c_k * it.value());
    }
  return pre;
}

// A tet this far from regular (check.hpp tet_quality) is stiffer than a
// regular tet of its size by 1/quality^2 = 1e4: only then is the mesh a
// plausible cause of a solid block beyond double precision.
constexpr Real NEARLY_FLAT_QUALITY = 1e-2;

// The scene's side of a failed factorization of the solid block: which solid
// and node hold its stiffest dof, that solid's material and the time step
// (what the stiffness-to-mass ratio is made of), and whether a nearly flat tet
// next to that node is to blame. The mesh is named only when one is.
std::string explain_solid_failure(const CutCellSimulator& state, const std::vector<int>& dof_offset, Real dt,
                                  const coupling::SolidBlockDiagnosis& d) {
  std::size_t b = 0;
  while (b + 1 < state.solids.size() && d.dof >= dof_offset[b + 1]) ++b;
  if (d.dof < 0 || b >= state.solids.size()) return "";
  const solid::Body& body = state.solids[b];
  const int node = body.dofs.free_nodes[static_cast<std::size_t>((d.dof - dof_offset[b]) / 3)];
  mesh::WorstTet worst;
  for (std::size_t t = 0; t < body.mesh.tets.size(); ++t) {
    const auto& tet = body.mesh.tets[t];
    if (body.quadratic() ? std::find(body.mesh.quadratic[t].begin(), body.mesh.quadratic[t].end(), node) ==
                               body.mesh.quadratic[t].end()
                         : std::find(tet.begin(), tet.end(), node) == tet.end())
      continue;
    const Real q = mesh::tet_quality(body.mesh.rest.col(tet[0]), body.mesh.rest.col(tet[1]),
                                     body.mesh.rest.col(tet[2]), body.mesh.rest.col(tet[3]));
    if (q < worst.quality) worst = {static_cast<Index>(t), q};
  }
  const Vec3 at = body.mesh.rest.col(node);
  char text[768];
  std::snprintf(text, sizeof text,
                ". The stiffest dof is at node %d of solid \"%s\" (rest position (%.4g, %.4g, %.4g)): youngs_modulus "
                "%.3g Pa, density %.3g kg/m^3, dt %.3g s, damping/stiffness %.3g s; the worst tet at that node has "
                "shape quality %.3g (1 = regular)",
                node, body.name.c_str(), at.x(), at.y(), at.z(), body.youngs_modulus, body.density, dt, body.tau_k,
                worst.quality);
  std::string advice = text;
  if (worst.quality < NEARLY_FLAT_QUALITY)
    advice += ": that tet is nearly flat, and its stiffness grows like 1 / quality^2: remesh the solid there";
  else
    advice += ", so the mesh is not the cause: the stiffness-to-mass ratio grows like youngs_modulus dt (dt + "
              "damping/stiffness) / (density h^2) for tets of size h: a smaller time step (time/cfl), a lower "
              "youngs_modulus or a higher density brings it down";
  return advice;
}

// Partitioned coupling with the geometry stage inside every liquid solve, as a
// black-box liquid solver would have it: the solids are moved to where the
// candidate velocity takes them, x^n + dt v, their distance fields, face
// fractions and surface patches recomputed, and the liquid's F, J, b_f
// assembled anew. The solids' side keeps A_s and b_s of x^n. Returns the
// solution and, in `last`, the assembly of the final liquid solve (its active
// cells are the pressure's); the solids end back at x^n, the fields where the
// final velocity takes them.
coupling::PartitionedSolution solve_with_geometry(CutCellSimulator& state, Real dt, const CoupledAssembly& start,
                                                  const coupling::CoupledSettings& settings,
                                                  const coupling::PartitionedSettings& partitioned,
                                                  const linsolve::Vector& start_velocity, CoupledAssembly& last) {
  fluid::Liquid& liquid = *state.liquid;
  std::vector<Points> rest;
  for (const solid::Body& b : state.solids) rest.push_back(b.x);
  coupling::PartitionedSolution out;
  linsolve::Report worst = linsolve::nothing_to_solve();
  const coupling::FluidSide fluid = [&](const linsolve::Vector& v) {
    for (std::size_t b = 0; b < state.solids.size(); ++b) {
      solid::Body& body = state.solids[b];
      Points velocity = body.v;
      body.dofs.scatter(v.segment(start.dof_offset[b], body.dofs.num_free_dofs()), velocity);
      body.x = rest[b] + dt * velocity;
    }
    update_solid_fields(state);
    last = assemble_coupled(state, dt);
    const cutcell::ActiveCells& active = last.fluid.active;
    linsolve::Vector p = fluid::gather_pressure(active, liquid.pressure);
    const linsolve::Vector g = coupling::fluid_side(last.system, settings, p, worst)(v);
    fluid::scatter_pressure(active, p, liquid.pressure, liquid.region_pressure);
    out.solution.pressure = p;
    return g;
  };
  const coupling::SolidSide solid = coupling::solid_side(start.system.solid);
  if (!solid) {
    out.solution.velocity = start_velocity;
    out.solution.report.failure = "the solid's matrix A_s could not be factored (not positive definite)";
    return out;
  }
  const coupling::PartitionedResult r = coupling::iterate(fluid, solid, start_velocity, partitioned);
  for (std::size_t b = 0; b < state.solids.size(); ++b) state.solids[b].x = rest[b];
  out.partitioned = r.report;
  out.solution.velocity = r.velocity;
  out.solution.report = coupling::partitioned_report(worst, r.report, partitioned);
  out.solution.report.unknowns = last.system.cells() + last.system.dofs();
  return out;
}

// The reduced bodies' side of the assembly (sim/cutcell/couple.hpp): J_b from
// `columns` (one triplet list per reduced body, in body order), the free
// velocity step, U_b = sqrt(dt) J_b W L stacked into system.low_rank and
// b_f -= J_b v_free.
void add_reduced_bodies(const CutCellSimulator& state, Real dt, const std::vector<Triplets>& columns, CoupledAssembly& out) {
  const int cells = out.fluid.active.count();
  Triplets low_rank;
  int rank = 0;
  std::size_t next = 0;
  for (std::size_t b = 0; b < state.solids.size(); ++b) {
    if (!state.is_reduced(b)) continue;
    const solid::ReducedBody& r = *state.reduced[b];
    const Triplets& t = columns[next++];
    ReducedCoupling c;
    c.body = b;
    c.coupling.resize(cells, 3 * static_cast<int>(state.solids[b].num_nodes()));
    c.coupling.setFromTriplets(t.begin(), t.end());
    c.free_state = r.state;
    solid::advance_reduced_velocities(r.basis, c.free_state, dt,
                                      solid::gravity_forces(r.basis, state.scene.gravity));
    const Points v = solid::reduced_velocities(r.basis, c.free_state);
    out.system.fluid_rhs -= c.coupling * Eigen::Map<const linsolve::Vector>(v.data(), v.size());

    const solid::ImpulseResponseFactor f = solid::impulse_response_factor(r.basis, r.state, dt);
    const Eigen::MatrixXd L = Eigen::LLT<Eigen::MatrixXd>(f.D).matrixL();
    const Eigen::MatrixXd WL = std::sqrt(dt) * f.W * L;  // 3 #nodes x (6 + r)
    for (int row = 0; row < cells; ++row) {
      if (c.coupling.outerIndexPtr()[row] == c.coupling.outerIndexPtr()[row + 1]) continue;  // a dry cell
      Eigen::RowVectorXd u = Eigen::RowVectorXd::Zero(WL.cols());
      for (linsolve::SparseMatrix::InnerIterator it(c.coupling, row); it; ++it) u += it.value() * WL.row(it.col());
      for (int k = 0; k < u.size(); ++k) low_rank.emplace_back(row, rank + k, u[k]);
    }
    rank += static_cast<int>(WL.cols());
    out.reduced.push_back(std::move(c));
  }
  out.system.low_rank.resize(cells, rank);
  out.system.low_rank.setFromTriplets(low_rank.begin(), low_rank.end());
}

}  // namespace

linsolve::Vector free_velocities(const CutCellSimulator& state) {
  Index n = 0;
  for (std::size_t b = 0; b < state.solids.size(); ++b)
    if (!state.is_reduced(b)) n += state.solids[b].dofs.num_free_dofs();
  linsolve::Vector v(n);
  Index offset = 0;
  for (std::size_t k = 0; k < state.solids.size(); ++k) {
    if (state.is_reduced(k)) continue;
    const solid::Body& b = state.solids[k];
    v.segment(offset, b.dofs.num_free_dofs()) = b.dofs.gather(b.v);
    offset += b.dofs.num_free_dofs();
  }
  return v;
}

CoupledAssembly assemble_coupled(CutCellSimulator& state, Real dt) {
  fluid::Liquid& liquid = *state.liquid;
  const scene::Coupling& settings = state.scene.coupling;
  const grid::MacGrid& grid = liquid.grid;
  CoupledAssembly out;
  out.fluid = fluid::assemble_pressure(grid, liquid.liquid_phi, liquid.fractions, liquid.velocity, dt,
                                       liquid.density, liquid.split, update_wall_velocity(state));
  // The rows of pressure_projection.hpp are volume balances divided by dx^3;
  // the coupled system keeps the paper's units (volume rates [m^3/s]).
  const Real cell_volume = grid.dx * grid.dx * grid.dx;
  out.system.fluid = cell_volume * out.fluid.matrix;
  out.system.grid_cells = out.fluid.cells();
  out.system.fluid_rhs = cell_volume * out.fluid.rhs;

  out.dof_offset.assign(1, 0);
  for (std::size_t b = 0; b < state.solids.size(); ++b)
    out.dof_offset.push_back(out.dof_offset.back() + (state.is_reduced(b) ? 0 : state.solids[b].dofs.num_free_dofs()));
  const int dofs = out.dof_offset.back();
  coupling::SolidBlock& block = out.system.solid;
  block.mass_term.resize(dofs);
  block.rhs.resize(dofs);
  Triplets stiffness;
  out.pre_solve = linsolve::nothing_to_solve();
  for (std::size_t b = 0; b < state.solids.size(); ++b) {
    if (state.is_reduced(b)) continue;
    const linsolve::Report pre = add_solid_block(state.solids[b], dt, settings.scheme, settings,
                                                 out.dof_offset[b], block, stiffness);
    out.pre_solve = linsolve::worst(out.pre_solve, pre);
  }
  block.stiffness_term.resize(dofs, dofs);
  block.stiffness_term.setFromTriplets(stiffness.begin(), stiffness.end());

  const CouplingColumns columns = coupling_columns(state, out.fluid.active, out.dof_offset);
  out.system.coupling.resize(out.fluid.active.count(), dofs);
  out.system.coupling.setFromTriplets(columns.full.begin(), columns.full.end());
  // Driven pinned nodes push the liquid with their known velocities: J_p v_p moves to the right side.
  if (columns.pinned.size() > 0) out.system.fluid_rhs -= columns.pinned;
  add_reduced_bodies(state, dt, columns.reduced, out);
  out.load.resize(6 * static_cast<int>(state.solids.size()), out.fluid.active.count());
  out.load.setFromTriplets(columns.load.begin(), columns.load.end());
  if (settings.partitioned.impulses == scene::Partitioned::Impulses::conservative)
    out.system.impulse = conservative_impulse(state, out);
  return out;
}

linsolve::Report project_coupled(CutCellSimulator& state, Real dt, const SystemObserver& observe,
                                 std::optional<coupling::PartitionedReport>* partitioned, LoadRows* loads) {
  fluid::Liquid& liquid = *state.liquid;
  const scene::Coupling& settings = state.scene.coupling;
  CoupledAssembly a = assemble_coupled(state, dt);
  if (observe) observe(a.system);

  coupling::CoupledSolution guess;
  CoupledAssembly moved;  // recompute_geometry: the final liquid solve's assembly
  const cutcell::ActiveCells* active = &a.fluid.active;
  linsolve::SparseMatrix* load = &a.load;
  guess.pressure = fluid::gather_pressure(*active, liquid.pressure);
  guess.velocity = free_velocities(state);

  const coupling::CoupledSettings s = coupled_settings(settings);
  coupling::CoupledSolution x;
  const scene::Coupling::Scheme scheme = settings.scheme;
  if (scheme == scene::Coupling::Scheme::partitioned || scheme == scene::Coupling::Scheme::xpm) {
    const coupling::PartitionedSettings ps = partitioned_settings(state.scene, dt);
    coupling::PartitionedSolution y;
    if (settings.partitioned.recompute_geometry) {
      y = solve_with_geometry(state, dt, a, s, ps, guess.velocity, moved);
      active = &moved.fluid.active;
      load = &moved.load;
    } else {
      y = coupling::solve_partitioned(a.system, s, ps, guess);
    }
    // Going on past a diverged iteration (allow_unconverged) would only
    // carry its unphysical velocities into the next substep.
    if (coupling::diverged(y.partitioned, ps))
      throw SimulationError("coupled pressure projection (" + std::string(scene::to_string(scheme)) +
                            "): " + y.solution.report.failure +
                            "; /coupling/allow_unconverged does not cover a diverged iteration: lower "
                            "/coupling/partitioned/relaxation, or use the xpm or spd scheme");
    x = std::move(y.solution);
    if (partitioned) *partitioned = y.partitioned;
  } else if (scheme == scene::Coupling::Scheme::indefinite) {
    x = coupling::solve_indefinite(a.system, s, guess);
  } else if (scheme == scene::Coupling::Scheme::weak) {
    x = coupling::solve_weak(a.system, s, guess);
  } else {  // spd, damping_only (the Eulerian scheme has a simulator of its own, sim/build.hpp)
    x = coupling::solve_spd(a.system, s, guess, &state.spd_workspace);
  }
  if (x.solid_failure) x.report.failure += explain_solid_failure(state, a.dof_offset, dt, *x.solid_failure);
  if (!x.pressure.allFinite() || !x.velocity.allFinite())
    throw SimulationError("coupled pressure projection (" + std::string(scene::to_string(settings.scheme)) +
                          "): the solution is not finite after " + std::to_string(x.report.iterations) +
                          " iterations");

  fluid::scatter_pressure(*active, x.pressure, liquid.pressure, liquid.region_pressure);
  if (loads) *loads = LoadRows{std::move(*load), x.pressure};
  fluid::apply_pressure(liquid.grid, *active, liquid.liquid_phi, liquid.fractions, liquid.pressure, dt,
                        liquid.density, liquid.velocity, liquid.valid, liquid.split, liquid.region_pressure,
                        &liquid.pieces);
  for (std::size_t b = 0; b < state.solids.size(); ++b) {
    if (state.is_reduced(b)) continue;
    solid::Body& body = state.solids[b];
    body.dofs.scatter(x.velocity.segment(a.dof_offset[b], body.dofs.num_free_dofs()), body.v);
  }
  // The reduced bodies take the impulse dt J_b^T p through their response.
  for (const ReducedCoupling& c : a.reduced) {
    solid::ReducedBody& r = *state.reduced[c.body];
    const linsolve::Vector j = dt * (c.coupling.transpose() * x.pressure);
    r.state = c.free_state;
    solid::add_velocity_change(
        r.state, solid::implicit_impulse_response(r.basis, r.state, Eigen::Map<const Points>(j.data(), 3, j.size() / 3), dt));
    solid::write_reduced_to_body(r.basis, r.state, state.solids[c.body]);
  }
  linsolve::Report report = linsolve::worst(a.pre_solve, x.report);
  report.iterations = a.pre_solve.iterations + x.report.iterations;
  report.unknowns = x.report.unknowns;
  return report;
}

linsolve::Vector net_outflow(const CutCellSimulator& state, const CoupledAssembly& a) {
  const fluid::Liquid& liquid = *state.liquid;
  const cutcell::ActiveCells& active = a.fluid.active;
  const Real cell_volume = liquid.grid.dx * liquid.grid.dx * liquid.grid.dx;
  linsolve::Vector out = a.system.coupling * free_velocities(state);
  for (const ReducedCoupling& c : a.reduced) {
    const Points& v = state.solids[c.body].v;
    out += c.coupling * Eigen::Map<const linsolve::Vector>(v.data(), v.size());
  }
  for (int r = 0; r < active.count(); ++r)
    out[r] += cell_volume *
              fluid::weighted_divergence(liquid.grid, liquid.fractions, liquid.velocity,
                                            liquid.liquid_phi.coord(active.cells[r]));
  return out;
}

}  // namespace fsicut::sim
