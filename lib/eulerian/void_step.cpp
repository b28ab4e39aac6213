#include "lib/eulerian/void_step.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include "lib/core/error.hpp"
#include "lib/eulerian/advection.hpp"
#include "lib/eulerian/elasticity.hpp"
#include "lib/eulerian/pressure_operator.hpp"

namespace fsicut::eulerian {

namespace {

// What lines 3-11 build and solve, over the step's unknowns.
struct StepSystem {
  ElasticState state;
  std::vector<Real> node_mass;  // #nodes [kg]
  Unknowns unknowns;
  Vector mass;                  // 3U [kg]
  linsolve::SparseMatrix K;     // 3U x 3U [N/m]
  Vector force;                 // 3U: f_ext + f [N]
  linsolve::SparseMatrix G;     // Eq. 8 [kg]
  Vector v;                     // 3U: v^n, then v*, then v^{n+1} [m/s]
  linsolve::SparseMatrix J;     // #constraints x 3U [m^2]: the saddle-point solve's
  std::optional<PressureOperator> A;  // J M^-1 J^T and J on the fly: the primal-dual solve's
  Vector b;                     // #constraints: prescribed volume rates [m^3/s]
};

// Line 3: the solid's Gauss points with their volume fractions, and the
// lumped masses on the grid; the unknowns are the nodes that carry mass.
void compute_mass_and_volume_fraction(const EulerianSolid& solid, StepSystem& s) {
  s.state = evaluate_elasticity(solid);
  s.node_mass = lumped_masses(solid.grid, s.state, solid.density);
  s.unknowns = make_unknowns(solid.grid, s.node_mass);
  s.mass = gather_mass(s.unknowns, s.node_mass);
}

// Line 4: the elastic force on the nodes and the stiffness matrix.
void compute_material_force_and_stiffness(const EulerianSolid& solid, StepSystem& s) {
  s.force = gather(s.unknowns, elastic_forces(solid.grid, s.state));
  s.K = assemble_stiffness(solid.grid, s.state, s.unknowns);
}

// Line 8: M, K, C and the external forces (gravity on the lumped masses).
void assemble_system(const EulerianSolid& solid, Real dt, const VoidStepSettings& settings, StepSystem& s) {
  for (Index k = 0; k < s.unknowns.size(); ++k)
    s.force.segment<3>(3 * k) += s.mass[3 * k] * settings.gravity;
  s.G = system_matrix(s.mass, s.K, solid.damping, dt, settings.velocity.integration);
  s.v = gather(s.unknowns, solid.v);
}

// Line 9: v* = G^-1 f* (Eq. 8, or the newmark step), or the explicit step.
linsolve::Report solve_unconstrained_velocity(const EulerianSolid& solid, Real dt, const VoidStepSettings& settings,
                                              StepSystem& s) {
  const linsolve::Report r = solve_velocity(s.mass, s.K, solid.damping, dt, s.force, s.v, settings.velocity);
  if (settings.velocity.integration != Integration::explicit_euler)
    require_converged(r, "velocity (Eq. 8)", "velocity_tolerance");
  return r;
}

// Line 10: the pressure impulse of Eq. 12 on the cells the solid occupies,
// b the volume drift correction (projection.hpp).
linsolve::Report compute_pressure(EulerianSolid& solid, Real dt, const VoidStepSettings& settings, StepSystem& s,
                                  Vector& p) {
  s.A.emplace(solid.grid, s.state.cells, s.unknowns, s.mass);
  p.resize(s.A->rows());
  for (std::size_t r = 0; r < s.state.cells.size(); ++r) {
    const Vec3i& c = s.state.cells[r];
    p[r] = solid.pressure.size() == solid.grid.cell_count()
               ? solid.pressure[cell_index(solid.grid, c)]
               : 0;
  }
  s.b = volume_drift_rates(solid.grid, s.state, dt, settings.projection.drift_relaxation);
  const linsolve::Report r = solve_pressure(*s.A, s.b, s.v, p, settings.projection);
  require_converged(r, "pressure (Eq. 12)", "pressure_tolerance");
  return r;
}

// Line 11: v^{n+1} = v* - M^-1 J^T p (Eq. 13); keeps p as the next warm start.
linsolve::Report pressure_project(EulerianSolid& solid, const VoidStepSettings& settings, StepSystem& s,
                                  const Vector& p) {
  const linsolve::Report r = s.A->rows() == 0 ? linsolve::nothing_to_solve()
                                              : correct_velocity(s.A->transpose(p), s.mass, s.G, s.v, settings.projection);
  require_converged(r, "velocity correction (Eq. 13)", "velocity_tolerance");
  solid.pressure = Vector::Zero(solid.grid.cell_count());
  for (std::size_t k = 0; k < s.state.cells.size(); ++k) {
    const Vec3i& c = s.state.cells[k];
    solid.pressure[cell_index(solid.grid, c)] = p[k];
  }
  return r;
}

// Lines 9-11 as one saddle-point solve (projection.hpp solve_kkt); keeps p
// as the next warm start.
linsolve::Report solve_constrained_velocity(EulerianSolid& solid, Real dt, const VoidStepSettings& settings,
                                            StepSystem& s) {
  Vector p;
  s.J = divergence_matrix(solid.grid, s.state.cells, s.unknowns);
  p.resize(s.J.rows());
  for (std::size_t r = 0; r < s.state.cells.size(); ++r)
    p[r] = solid.pressure.size() == solid.grid.cell_count() ? solid.pressure[cell_index(solid.grid, s.state.cells[r])] : 0;
  s.b = volume_drift_rates(solid.grid, s.state, dt, settings.projection.drift_relaxation);
  const Vector rhs = right_hand_side(s.mass, s.G, dt, s.force, s.v, settings.velocity.integration);
  const linsolve::Report r = solve_kkt(s.G, s.J, rhs, s.b, s.v, p, settings.projection.kkt_tolerance,
                                       settings.projection.kkt_max_iterations);
  require_converged(r, "saddle-point (Eq. 11)", "velocity_tolerance");
  solid.pressure = Vector::Zero(solid.grid.cell_count());
  for (std::size_t k = 0; k < s.state.cells.size(); ++k) solid.pressure[cell_index(solid.grid, s.state.cells[k])] = p[k];
  return r;
}

// The rings of nodes the step's motion needs around the solid: the solid
// moves up to max |v| dt into the void, and the backtraces of the nodes it
// reaches read one cell further.
Real band_speed(const Vector& v) {
  Real speed = 0;
  for (Index k = 0; k + 2 < v.size(); k += 3) speed = std::max(speed, v.segment<3>(k).norm());
  return speed;
}

int band_layers(const Vector& v, Real dt, Real dx, int band) {
  return std::max(band, static_cast<int>(std::ceil(band_speed(v) * dt / dx)) + 2);
}

}  // namespace

void require_converged(const linsolve::Report& report, const char* what, const char* tolerance_key) {
  if (report.converged) return;
  std::string limits = "; its limits: the scene's coupling/max_iterations";
  if (tolerance_key) limits += std::string(" and coupling/eulerian/") + tolerance_key;
  throw SimulationError(std::string("eulerian solid: the ") + what + " solve did not converge (relative residual " +
                        std::to_string(report.relative_residual) + " after " + std::to_string(report.iterations) +
                        " iterations)" + (report.failure.empty() ? "" : ": " + report.failure) +
                        (tolerance_key ? limits : ""));
}

void update_displacement(EulerianSolid& solid, Real dt, int band, const std::vector<Index>& nodes,
                         const Vector& values, Integration integration) {
  const bool newmark = integration == Integration::newmark;
  // newmark: the average (v^n + v^{n+1}) / 2, v^n the copy's on the same
  // nodes, read before the copy becomes v^{n+1}.
  Vector average;
  if (newmark) {
    average.resize(values.size());
    for (std::size_t k = 0; k < nodes.size(); ++k)
      average.segment<3>(3 * k) = 0.5 * (node_value(solid.v, nodes[k]) + values.segment<3>(3 * k));
  }
  solid.v.setZero();
  std::vector<char> has_velocity(solid.valid.size(), 0);
  // The no-slip walls hold the solid they touch: on the wall nodes in and at
  // the solid (material distance under one cell, as refit_band) the velocity
  // is 0, not a continuation of the interior's, so the displacement there
  // stays put (a cantilever clamped in a wall otherwise slid out of it, 0.1
  // cell in 40 steps, and gathered spurious strain at its root). Wall nodes
  // further out stay band nodes: zeros there would bend the extrapolated
  // velocity a solid moving near a wall advects its displacement with.
  for (Index n = 0; n < node_count(solid.grid); ++n) {
    if (!solid.valid[n]) continue;
    const Vec3i c = node_coord(solid.grid, n);
    const Vec3 x = solid.grid.origin + solid.grid.dx * c.cast<Real>();
    if (on_domain_boundary(solid.grid, c) && material_distance(solid.shape, x - node_value(solid.u, n)) < solid.grid.dx)
      has_velocity[n] = 1;
  }
  for (std::size_t k = 0; k < nodes.size(); ++k) {
    solid.v.segment<3>(3 * nodes[k]) = values.segment<3>(3 * k);
    has_velocity[nodes[k]] = 1;
  }
  const int layers = band_layers(values, dt, solid.grid.dx, band);
  // The velocity u moves with, carried into the band as the copy is; line 20
  // advects u with it too (void_step.hpp).
  NodeField moving;
  if (newmark) {
    moving = zero_field(solid.grid);
    for (std::size_t k = 0; k < nodes.size(); ++k) moving.segment<3>(3 * nodes[k]) = average.segment<3>(3 * k);
    std::vector<char> has_moving = has_velocity;
    extrapolate(solid.grid, moving, has_moving, layers);
  }
  extrapolate(solid.grid, solid.v, has_velocity, layers);
  const NodeField& step_velocity = newmark ? moving : solid.v;
  std::vector<char> has_displacement = solid.valid;
  extrapolate(solid.grid, solid.u, has_displacement, layers - band);
  for (std::size_t n = 0; n < solid.valid.size(); ++n) {
    solid.valid[n] = has_displacement[n] && has_velocity[n];
    if (solid.valid[n]) solid.u.segment<3>(3 * n) += dt * step_velocity.segment<3>(3 * n);
  }
  if (newmark) advect(solid.grid, solid.u, moving, dt, solid.valid);
}

void advect_displacement(EulerianSolid& solid, Real dt) { advect(solid.grid, solid.u, solid.v, dt, solid.valid); }

void advect_solid_velocity(EulerianSolid& solid, Real dt) {
  std::vector<char> valid_v = solid.valid;
  const NodeField velocity = solid.v;
  advect(solid.grid, solid.v, velocity, dt, valid_v);
  for (std::size_t n = 0; n < valid_v.size(); ++n) solid.valid[n] = solid.valid[n] && valid_v[n];
}

// After line 22: the band is fitted again from the nodes in and at the solid
// (material distance under one cell), so that extrapolated values do not
// linger in the band, advected from step to step, away from the solid they
// continue.
void refit_band(EulerianSolid& solid, int band) {
  for (Index n = 0; n < node_count(solid.grid); ++n) {
    if (!solid.valid[n]) continue;
    const Vec3 x = solid.grid.origin + solid.grid.dx * node_coord(solid.grid, n).cast<Real>();
    solid.valid[n] = material_distance(solid.shape, x - node_value(solid.u, n)) < solid.grid.dx;
  }
  std::vector<char> valid_u = solid.valid;
  extrapolate(solid.grid, solid.u, valid_u, band);
  extrapolate(solid.grid, solid.v, solid.valid, band);
}


Real cfl_time_step(const EulerianSolid& solid, Real cfl, Real max_dt) {
  Real speed = 0;
  for (Index n = 0; n < node_count(solid.grid); ++n)
    if (solid.valid[n]) speed = std::max(speed, node_value(solid.v, n).norm());
  return speed > 0 ? std::min(max_dt, cfl * solid.grid.dx / speed) : max_dt;
}

VoidStepReport step_in_void(EulerianSolid& solid, Real dt, const VoidStepSettings& settings) {
  VoidStepReport report;
  StepSystem s;
  compute_mass_and_volume_fraction(solid, s);
  compute_material_force_and_stiffness(solid, s);
  assemble_system(solid, dt, settings, s);
  const bool kkt = settings.incompressible && settings.projection.solver == ConstraintSolver::kkt &&
                   settings.velocity.integration != Integration::explicit_euler;
  if (kkt) {
    report.velocity = solve_constrained_velocity(solid, dt, settings, s);
  } else {
    report.velocity = solve_unconstrained_velocity(solid, dt, settings, s);
  }
  if (settings.incompressible && !kkt) {
    Vector p;
    report.pressure = compute_pressure(solid, dt, settings, s, p);
    const Real before = s.A->rows() == 0 ? 0 : (s.A->divergence(s.v) - s.b).norm();
    report.correction = pressure_project(solid, settings, s, p);
    report.divergence = before > 0 ? (s.A->divergence(s.v) - s.b).norm() / before : 0;
  }
  update_displacement(solid, dt, settings.band, s.unknowns.nodes, s.v, settings.velocity.integration);
  if (settings.velocity.integration != Integration::newmark) advect_displacement(solid, dt);
  update_plasticity(solid);
  advect_solid_velocity(solid, dt);
  refit_band(solid, settings.band);
  if (!solid.u.allFinite() || !solid.v.allFinite())
    throw SimulationError("eulerian solid: the displacement or velocity is not finite");
  if (!s.state.points.empty() && std::find(solid.valid.begin(), solid.valid.end(), 1) == solid.valid.end())
    throw SimulationError("eulerian solid: no grid node maps into the solid's material any more (the step blew up)");
  report.max_speed = band_speed(s.v);
  report.unknowns = s.unknowns.size();
  report.constraints = s.A ? s.A->rows() : s.J.rows();
  report.inverted = s.state.inverted;
  report.elastic_energy = elastic_energy(s.state);
  report.volume = solid_volume(solid.grid, s.state);
  return report;
}

Real kinetic_energy(const EulerianSolid& solid) {
  const ElasticState state = evaluate_elasticity(solid);
  const std::vector<Real> m = lumped_masses(solid.grid, state, solid.density);
  Real e = 0;
  for (Index n = 0; n < node_count(solid.grid); ++n) e += 0.5 * m[n] * node_value(solid.v, n).squaredNorm();
  return e;
}

Real volume(const EulerianSolid& solid) {
  return solid_volume(solid.grid, evaluate_elasticity(solid));
}

ElasticState evaluate_elasticity(const EulerianSolid& solid) {
  return evaluate_elasticity(solid.grid, solid.u, solid.valid, solid.shape, solid.lame, nullptr,
                             solid.plastic ? &*solid.plastic : nullptr);
}

void update_plasticity(EulerianSolid& solid) {
  if (solid.plastic) update_plastic_strain(*solid.plastic, solid.grid, solid.u, solid.valid, solid.shape);
}

Real material_volume(const ElasticState& state) {
  Real v = 0;
  for (const QuadraturePoint& p : state.points) v += p.fraction * p.reference_volume;
  return v;
}

}  // namespace fsicut::eulerian
