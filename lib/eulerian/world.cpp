#include "lib/eulerian/world.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "lib/core/error.hpp"
#include "lib/eulerian/advection.hpp"
#include "lib/eulerian/constraints.hpp"
#include "lib/eulerian/deformation.hpp"
#include "lib/eulerian/elasticity.hpp"
#include "lib/eulerian/pressure_operator.hpp"
#include "lib/linsolve/sparse.hpp"

namespace fsicut::eulerian {

namespace {

// What lines 3-4 compute for one solid.
struct SolidTerms {
  ElasticState state;
  std::vector<Real> mass;  // #nodes [kg]
  NodeField force;         // elastic force on every node [N]
  Real max_strain = 0;
};

// What lines 3-11 build and solve, over the world's unknowns.
struct WorldSystem {
  std::vector<SolidTerms> solids;
  std::vector<Real> fluid_mass;       // #nodes [kg]; empty in void
  std::vector<char> prescribed;       // #nodes: velocity set by an inflow source
  NodeField prescribed_velocity;      // those velocities, 0 elsewhere [m/s]
  Unknowns unknowns;
  Vector mass;                        // 3U [kg]
  std::vector<linsolve::SparseMatrix> K;  // per solid, 3U x 3U [N/m]
  Vector force;                       // 3U: f_ext + sum_l f [N]
  linsolve::SparseMatrix G;           // Eq. 8 [kg]
  Vector v;                           // 3U: v^n, then v*, then v^{n+1} [m/s]
  std::vector<Vec3i> cells;           // constrained cells, in increasing index
  linsolve::SparseMatrix J;           // #cells x 3U [m^2]: the saddle-point solve's
  std::optional<PressureOperator> A;  // J M^-1 J^T and J on the fly: the primal-dual solve's
  Vector b;                           // #cells [m^3/s]
};

Real max_stretch_error(const grid::MacGrid& grid, const NodeField& u, const ElasticState& state) {
  Real strain = 0;
  for (const QuadraturePoint& p : state.points) {
    const Vec3 s = signed_svd(deformation_gradient(grid, u, p.cell, gauss_point(p.gauss))).s;
    strain = std::max(strain, (s - Vec3::Ones()).cwiseAbs().maxCoeff());
  }
  return strain;
}

// Line 3: the solid's Gauss points with their volume fractions, and its
// lumped masses on the grid.
void world_mass_and_volume_fraction(const EulerianSolid& solid, SolidTerms& t) {
  t.state = evaluate_elasticity(solid);
  t.mass = lumped_masses(solid.grid, t.state, solid.density);
}

// Line 4: the elastic force on the nodes (the stiffness's differentials are
// in the Gauss points; K is assembled in line 8).
void compute_material_force(const EulerianSolid& solid, SolidTerms& t) {
  t.force = elastic_forces(solid.grid, t.state);
  t.max_strain = max_stretch_error(solid.grid, solid.u, t.state);
}

// Line 7: the fluid fills what the solids leave of each Gauss point's volume.
void compute_fluid_mass(const World& world, WorldSystem& s) {
  if (!world.smoke) return;
  std::vector<Real> fraction(static_cast<std::size_t>(GAUSS_POINTS * world.grid.cell_count()), 0.0);
  for (const SolidTerms& t : s.solids)
    for (const QuadraturePoint& p : t.state.points)
      fraction[GAUSS_POINTS * cell_index(world.grid, p.cell) + p.gauss] += p.fraction;
  s.fluid_mass = fluid_masses(world.grid, fraction, world.smoke->fluid_density);
}

// Line 8, the unknowns: every node with mass that is neither a wall nor
// prescribed by an inflow.
void choose_unknowns(const World& world, WorldSystem& s) {
  const Index nodes = node_count(world.grid);
  std::vector<Real> mass(static_cast<std::size_t>(nodes), 0.0);
  for (const SolidTerms& t : s.solids)
    for (Index n = 0; n < nodes; ++n) mass[n] += t.mass[n];
  for (std::size_t n = 0; n < s.fluid_mass.size(); ++n) mass[n] += s.fluid_mass[n];
  s.prescribed_velocity = zero_field(world.grid);
  s.prescribed = world.smoke ? inflow_nodes(world.grid, *world.smoke, world.time, s.prescribed_velocity)
                             : std::vector<char>(static_cast<std::size_t>(nodes), 0);
  std::vector<Real> free_mass = mass;
  for (Index n = 0; n < nodes; ++n)
    if (s.prescribed[n]) free_mass[n] = 0;
  s.unknowns = make_unknowns(world.grid, free_mass);
  s.mass = gather_mass(s.unknowns, mass);
}

// Line 8, v^n: the momentum-weighted mean of the bodies at each unknown (the
// rasterization of line 18); a node one body touches keeps its value.
void combine_velocity(const World& world, WorldSystem& s) {
  s.v.resize(s.unknowns.dofs());
  for (Index k = 0; k < s.unknowns.size(); ++k) {
    const Index n = s.unknowns.nodes[k];
    Vec3 momentum = Vec3::Zero(), only = Vec3::Zero();
    Real mass = 0;
    int bodies = 0;
    const auto add = [&](Real m, const Vec3& v) {
      if (!(m > 0)) return;
      momentum += m * v;
      mass += m;
      only = v;
      ++bodies;
    };
    for (std::size_t l = 0; l < s.solids.size(); ++l) add(s.solids[l].mass[n], node_value(world.solids[l].v, n));
    if (world.smoke) add(s.fluid_mass[n], node_value(world.smoke->velocity, n));
    s.v.segment<3>(3 * k) = bodies == 1 ? only : Vec3(momentum / mass);
  }
}

// Line 8, f_ext + sum_l f: the elastic forces, gravity on all mass, the
// fluid's buoyancy and vorticity confinement.
void assemble_forces(const World& world, const WorldSettings& settings, WorldSystem& s) {
  NodeField f = zero_field(world.grid);
  for (const SolidTerms& t : s.solids) f += t.force;
  if (world.smoke) {
    const Real g = settings.gravity.norm();
    const Vec3 up = g > 0 ? Vec3(-settings.gravity / g) : Vec3::UnitY();
    f += buoyancy_force(world.grid, *world.smoke, s.fluid_mass, up);
    f += vorticity_confinement_force(world.grid, world.smoke->velocity, s.fluid_mass,
                                     world.smoke->vorticity_confinement);
  }
  s.force = gather(s.unknowns, f);
  for (Index k = 0; k < s.unknowns.size(); ++k) s.force.segment<3>(3 * k) += s.mass[3 * k] * settings.gravity;
}

// ^lK over the world's unknowns, assembled over the solid's own nodes only:
// the fluid's nodes keep a diagonal G (the paper's point that fluid-only
// cells cost no more than their mass). Both numberings run in increasing node
// order, so the entries keep their order; when they coincide (one solid in
// void) the solid's matrix is the world's.
linsolve::SparseMatrix solid_stiffness(const grid::MacGrid& grid, const SolidTerms& t, const Unknowns& world) {
  const Unknowns local = make_unknowns(grid, t.mass);
  linsolve::SparseMatrix K = assemble_stiffness(grid, t.state, local);
  if (local.nodes == world.nodes) return K;
  std::vector<Eigen::Triplet<Real, int>> triplets;
  triplets.reserve(static_cast<std::size_t>(K.nonZeros()));
  const auto world_dof = [&](Index dof) {
    const Index k = world.of_node[local.nodes[dof / 3]];
    return k < 0 ? -1 : static_cast<int>(3 * k + dof % 3);
  };
  for (int row = 0; row < K.outerSize(); ++row) {
    const int r = world_dof(row);
    if (r < 0) continue;
    for (linsolve::SparseMatrix::InnerIterator it(K, row); it; ++it) {
      const int c = world_dof(it.col());
      if (c >= 0) triplets.emplace_back(r, c, it.value());
    }
  }
  linsolve::SparseMatrix out(world.dofs(), world.dofs());
  out.setFromTriplets(triplets.begin(), triplets.end());
  return out;
}

// Line 8, K and G = M + dt C + dt^2 K (newmark: dt/2, dt^2/4) with each solid's Rayleigh damping.
void assemble_matrices(const World& world, const SystemWeights& w, WorldSystem& s) {
  Vector diagonal = s.mass;
  for (std::size_t l = 0; l < s.solids.size(); ++l)
    if (world.solids[l].damping.mass != 0)
      diagonal += w.damping * world.solids[l].damping.mass * gather_mass(s.unknowns, s.solids[l].mass);
  linsolve::SparseMatrix G(diagonal.size(), diagonal.size());
  G.reserve(Eigen::VectorXi::Constant(diagonal.size(), 1));
  for (Index i = 0; i < diagonal.size(); ++i) G.insert(i, i) = diagonal[i];
  s.K.clear();
  for (std::size_t l = 0; l < s.solids.size(); ++l) {
    s.K.push_back(solid_stiffness(world.grid, s.solids[l], s.unknowns));
    linsolve::SparseMatrix scaled = (w.damping * world.solids[l].damping.stiffness + w.stiffness) * s.K.back();
    G = linsolve::sum(G, scaled);
  }
  s.G = std::move(G);
}

// Line 9: v* = G^-1 f* (Eq. 8), or the explicit step v* = v^n + dt M^-1 (f - C v^n).
linsolve::Report solve_world_unconstrained_velocity(const World& world, Real dt, const WorldSettings& settings,
                                              WorldSystem& s) {
  if (s.mass.size() == 0) return linsolve::nothing_to_solve();
  if (settings.velocity.integration == Integration::explicit_euler) {
    Vector damping_force = Vector::Zero(s.v.size());
    for (std::size_t l = 0; l < s.solids.size(); ++l) {
      const Damping& c = world.solids[l].damping;
      damping_force += c.mass * gather_mass(s.unknowns, s.solids[l].mass).cwiseProduct(s.v) + c.stiffness * (s.K[l] * s.v);
    }
    s.v += dt * (s.force - damping_force).cwiseQuotient(s.mass);
    linsolve::Report r = linsolve::nothing_to_solve();
    r.unknowns = static_cast<int>(s.mass.size());
    r.met_tolerance = s.v.allFinite();
    return r;
  }
  const Vector rhs = right_hand_side(s.mass, s.G, dt, s.force, s.v, settings.velocity.integration);
  const linsolve::Report r =
      solve_velocity_system(s.G, rhs, s.v, settings.velocity.tolerance, settings.velocity.max_iterations);
  require_converged(r, "velocity (Eq. 8)", "velocity_tolerance");
  return r;
}

// b of Eq. 12 (world.hpp): the solids' drift rates, the inflows' J v.
Vector constraint_rates(const World& world, Real dt, const WorldSettings& settings, const WorldSystem& s) {
  std::vector<Index> row_of_cell(static_cast<std::size_t>(world.grid.cell_count()), -1);
  for (std::size_t r = 0; r < s.cells.size(); ++r) row_of_cell[cell_index(world.grid, s.cells[r])] = static_cast<Index>(r);
  Vector b = Vector::Zero(static_cast<Index>(s.cells.size()));
  for (const SolidTerms& t : s.solids) {
    const Vector drift = volume_drift_rates(world.grid, t.state, dt, settings.projection.drift_relaxation);
    // A solid cell whose every corner is a wall or an inflow's has no row:
    // the inflow alone sets its velocity, so its drift cannot be corrected.
    for (std::size_t r = 0; r < t.state.cells.size(); ++r) {
      const Index row = row_of_cell[cell_index(world.grid, t.state.cells[r])];
      if (row >= 0) b[row] += drift[r];
    }
  }
  if (std::find(s.prescribed.begin(), s.prescribed.end(), 1) != s.prescribed.end()) {
    const Vector inflow = divergence(world.grid, s.prescribed_velocity);
    for (std::size_t r = 0; r < s.cells.size(); ++r) b[r] -= inflow[cell_index(world.grid, s.cells[r])];
  }
  if (world.smoke) remove_kernel_components(world.grid, s.cells, b);
  return b;
}

// Line 10: the pressure impulse of Eq. 12, warm-started from the last step.
// The constrained cells, b, the warm start of p and J: as a matrix for the
// saddle-point solve (`assembled`), else as the stencil (pressure_operator.hpp).
void set_up_constraints(const World& world, Real dt, const WorldSettings& settings, WorldSystem& s, Vector& p,
                        bool assembled) {
  std::vector<const std::vector<Vec3i>*> solid_cells;
  for (const SolidTerms& t : s.solids) solid_cells.push_back(&t.state.cells);
  s.cells = constrained_cells(world.grid, s.unknowns, world.smoke.has_value(), solid_cells);
  if (assembled) s.J = divergence_matrix(world.grid, s.cells, s.unknowns);
  else s.A.emplace(world.grid, s.cells, s.unknowns, s.mass);
  p.resize(static_cast<Index>(s.cells.size()));
  const bool warm = world.pressure.size() == world.grid.cell_count();
  for (std::size_t r = 0; r < s.cells.size(); ++r) p[r] = warm ? world.pressure[cell_index(world.grid, s.cells[r])] : 0;
  s.b = constraint_rates(world, dt, settings, s);
}

void keep_pressure(World& world, const WorldSystem& s, const Vector& p) {
  world.pressure = Vector::Zero(world.grid.cell_count());
  for (std::size_t k = 0; k < s.cells.size(); ++k) world.pressure[cell_index(world.grid, s.cells[k])] = p[k];
}

linsolve::Report compute_world_pressure(const World& world, Real dt, const WorldSettings& settings, WorldSystem& s,
                                  Vector& p) {
  set_up_constraints(world, dt, settings, s, p, false);
  const linsolve::Report r = solve_pressure(*s.A, s.b, s.v, p, settings.projection);
  require_converged(r, "pressure (Eq. 12)", "pressure_tolerance");
  return r;
}

// Line 11: v^{n+1} = v* - M^-1 J^T p (Eq. 13); keeps p as the next warm start.
linsolve::Report world_pressure_project(World& world, const WorldSettings& settings, WorldSystem& s, const Vector& p) {
  const linsolve::Report r = s.cells.empty() ? linsolve::nothing_to_solve()
                                             : correct_velocity(s.A->transpose(p), s.mass, s.G, s.v, settings.projection);
  require_converged(r, "velocity correction (Eq. 13)", "velocity_tolerance");
  keep_pressure(world, s, p);
  return r;
}

// Lines 9-11 as one saddle-point solve (projection.hpp solve_kkt).
linsolve::Report solve_world_constrained_velocity(World& world, Real dt, const WorldSettings& settings,
                                                  WorldSystem& s) {
  Vector p;
  set_up_constraints(world, dt, settings, s, p, true);
  const Vector rhs = right_hand_side(s.mass, s.G, dt, s.force, s.v, settings.velocity.integration);
  const linsolve::Report r = solve_kkt(s.G, s.J, rhs, s.b, s.v, p, settings.projection.kkt_tolerance,
                                       settings.projection.kkt_max_iterations);
  require_converged(r, "saddle-point (Eq. 11)", "velocity_tolerance");
  keep_pressure(world, s, p);
  return r;
}

// After line 11: the shared v^{n+1} on every node.
void publish_velocity(World& world, const WorldSystem& s) {
  world.velocity = s.prescribed_velocity;
  scatter(s.unknowns, s.v, world.velocity);
}

// Before lines 12-18: the solid's copy is v^{n+1} where it has mass, on the
// unknowns and on the nodes an inflow prescribes (material an inflow covers
// moves with it), in increasing node order.
SolidVelocity velocity_copy(const World& world, const WorldSystem& s, std::size_t l) {
  SolidVelocity copy;
  for (Index n = 0; n < node_count(world.grid); ++n)
    if (s.solids[l].mass[n] > 0 && (s.unknowns.of_node[n] >= 0 || s.prescribed[n])) copy.nodes.push_back(n);
  copy.values.resize(3 * static_cast<Index>(copy.nodes.size()));
  for (std::size_t k = 0; k < copy.nodes.size(); ++k)
    copy.values.segment<3>(3 * k) = node_value(world.velocity, copy.nodes[k]);
  return copy;
}

// Line 22: the fluid velocity through v^{n+1}; each solid's copy through
// itself (the stand-in for its particles); then the smoke.
void advect_velocities_and_smoke(World& world, Real dt, const WorldSettings& settings) {
  if (world.smoke) {
    std::vector<char> valid(static_cast<std::size_t>(node_count(world.grid)), 1);
    world.smoke->velocity = world.velocity;
    advect(world.grid, world.smoke->velocity, world.velocity, dt, valid);
  }
  for (EulerianSolid& solid : world.solids) {
    advect_solid_velocity(solid, dt);
    refit_band(solid, settings.band);
  }
  if (world.smoke) {
    advect_density(world.grid, world.smoke->density, world.velocity, dt);
    apply_sources(world.grid, *world.smoke, world.time + dt);
  }
}

void check_state(const World& world, const WorldSystem& s) {
  for (std::size_t l = 0; l < world.solids.size(); ++l) {
    const EulerianSolid& solid = world.solids[l];
    if (!solid.u.allFinite() || !solid.v.allFinite())
      throw SimulationError("eulerian solid: the displacement or velocity is not finite");
    if (!s.solids[l].state.points.empty() && std::find(solid.valid.begin(), solid.valid.end(), 1) == solid.valid.end())
      throw SimulationError("eulerian solid: no grid node maps into the solid's material any more (the step blew up)");
  }
  if (world.smoke && !world.smoke->velocity.allFinite())
    throw SimulationError("eulerian world: the fluid velocity is not finite");
}

Vec3 grid_momentum(const Vector& mass, const Vector& v) {
  Vec3 sum = Vec3::Zero();
  for (Index k = 0; k + 2 < v.size(); k += 3) sum += mass[k] * v.segment<3>(k);
  return sum;
}

void report_solids(const World& world, const WorldSystem& s, WorldReport& report) {
  for (std::size_t l = 0; l < s.solids.size(); ++l) {
    const SolidTerms& t = s.solids[l];
    SolidReport r;
    r.volume = solid_volume(world.grid, t.state);
    r.elastic_energy = elastic_energy(t.state);
    for (Index n = 0; n < node_count(world.grid); ++n)
      r.kinetic_energy += 0.5 * t.mass[n] * node_value(world.velocity, n).squaredNorm();
    r.max_strain = t.max_strain;
    r.inverted = t.state.inverted;
    const Real made = world.solids[l].material_volume;
    r.drift = made > 0 ? material_volume(t.state) / made - 1 : 0;
    report.solids.push_back(r);
  }
}

}  // namespace

World make_world(const grid::MacGrid& grid) {
  World w;
  w.grid = grid;
  w.velocity = zero_field(grid);
  return w;
}

Real cfl_time_step(const World& world, Real cfl, Real max_dt) {
  Real dt = max_dt;
  for (const EulerianSolid& solid : world.solids) dt = std::min(dt, cfl_time_step(solid, cfl, max_dt));
  Real speed = 0;
  for (Index n = 0; n < node_count(world.grid); ++n) speed = std::max(speed, node_value(world.velocity, n).norm());
  return speed > 0 ? std::min(dt, cfl * world.grid.dx / speed) : dt;
}

WorldReport step(World& world, Real dt, const WorldSettings& settings) {
  WorldReport report;
  auto clock = std::chrono::steady_clock::now();
  const auto lap = [&clock](Real& seconds) {
    const auto now = std::chrono::steady_clock::now();
    seconds += std::chrono::duration<Real>(now - clock).count();
    clock = now;
  };
  WorldSystem s;
  s.solids.resize(world.solids.size());
  for (std::size_t l = 0; l < world.solids.size(); ++l) {
    world_mass_and_volume_fraction(world.solids[l], s.solids[l]);
    compute_material_force(world.solids[l], s.solids[l]);
  }
  compute_fluid_mass(world, s);
  choose_unknowns(world, s);
  combine_velocity(world, s);
  assemble_forces(world, settings, s);
  assemble_matrices(world, system_weights(dt, settings.velocity.integration), s);
  report.momentum_expected = grid_momentum(s.mass, s.v) + dt * grid_momentum(Vector::Ones(s.mass.size()), s.force);
  lap(report.seconds.assemble);
  const bool kkt = settings.incompressible && settings.projection.solver == ConstraintSolver::kkt &&
                   settings.velocity.integration != Integration::explicit_euler;
  if (kkt) {
    report.velocity = solve_world_constrained_velocity(world, dt, settings, s);
  } else {
    report.velocity = solve_world_unconstrained_velocity(world, dt, settings, s);
  }
  lap(report.seconds.velocity);
  if (settings.incompressible && !kkt) {
    Vector p;
    report.pressure = compute_world_pressure(world, dt, settings, s, p);
    lap(report.seconds.pressure);
    const Real before = s.cells.empty() ? 0 : (s.A->divergence(s.v) - s.b).norm();
    report.correction = world_pressure_project(world, settings, s, p);
    report.divergence = before > 0 ? (s.A->divergence(s.v) - s.b).norm() / before : 0;
    lap(report.seconds.velocity);
  }
  report.momentum_solved = grid_momentum(s.mass, s.v);
  publish_velocity(world, s);
  std::vector<SolidVelocity> copies;
  for (std::size_t l = 0; l < world.solids.size(); ++l) copies.push_back(velocity_copy(world, s, l));
  report.contact = collide(world.solids, dt, copies);
  lap(report.seconds.collision);
  for (std::size_t l = 0; l < world.solids.size(); ++l) {
    update_displacement(world.solids[l], dt, settings.band, copies[l].nodes, copies[l].values,
                        settings.velocity.integration);
    if (settings.velocity.integration != Integration::newmark) advect_displacement(world.solids[l], dt);
    update_plasticity(world.solids[l]);
  }
  report_solids(world, s, report);
  advect_velocities_and_smoke(world, dt, settings);
  lap(report.seconds.advection);
  check_state(world, s);
  for (Index k = 0; k + 2 < s.v.size(); k += 3) report.max_speed = std::max(report.max_speed, s.v.segment<3>(k).norm());
  report.unknowns = s.unknowns.size();
  report.constraints = static_cast<Index>(s.cells.size());
  return report;
}

}  // namespace fsicut::eulerian
