#include "lib/solid/integrate.hpp"

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <utility>

#include "lib/core/cancel.hpp"
#include "lib/core/error.hpp"
#include "lib/linsolve/block_diagonal_cholesky.hpp"
#include "lib/solid/corotation.hpp"
#include "lib/solid/layout.hpp"

namespace fsicut::solid {

namespace {

// Pinned nodes that move (prescribed velocities, sim/cutcell/moving.hpp):
// their columns of (dt + tau_k) K v' in (6) are known, and move to the right
// side. Nothing when every pinned node stands still.
void add_pinned_motion(const Body& body, Real dt, Vector& b) {
  Vector moving = Vector::Zero(3 * body.num_nodes());
  bool any = false;
  for (Index i = 0; i < body.num_nodes(); ++i)
    if (body.pinned[i] && !body.v.col(i).isZero(0)) {
      moving.segment<3>(3 * i) = body.v.col(i);
      any = true;
    }
  if (!any) return;
  const Vector force = stiffness(body) * moving;
  for (int k = 0; k < body.dofs.num_free_dofs(); ++k) b[k] -= (dt + body.tau_k) * force[body.dofs.node_dof(k)];
}

}  // namespace

void update_positions(Body& body, Real dt) {
  const DofMap& dofs = body.dofs;
  detail::for_each_index(dofs.num_free_nodes(), [&](Index k) {
    const int i = dofs.free_nodes[k];
    body.x.col(i) += dt * body.v.col(i);
  });
  update_rotations(body);
}

void apply_gravity(Body& body, const Vec3& gravity, Real dt) {
  for (Index i = 0; i < body.num_nodes(); ++i)
    if (!body.pinned[i]) body.v.col(i) += dt * gravity;
}

BackwardEulerSystem backward_euler_system(const Body& body, Real dt, const Vec3& gravity) {
  if (!(dt > 0)) throw std::invalid_argument("backward_euler_system: dt must be positive");
  const DofMap& dofs = body.dofs;
  const int nf = dofs.num_free_dofs();
  BackwardEulerSystem s;
  s.dt = dt;
  s.mass.resize(nf);
  for (int k = 0; k < dofs.num_free_nodes(); ++k) s.mass.segment<3>(3 * k).setConstant(body.mass[dofs.free_nodes[k]]);
  const detail::BlockLayout& L = *body.layout_free;
  s.K = detail::assemble_stiffness(body, L);
  s.D = detail::scaled_plus_mass(body, L, s.K, body.tau_k, body.tau_m);
  s.A = detail::scaled_plus_mass(body, L, s.K, dt + body.tau_k, 1 / dt + body.tau_m);

  const Vector f_all = elastic_forces(body);
  s.f_elastic.resize(nf);
  for (int k = 0; k < nf; ++k) s.f_elastic[k] = f_all[dofs.node_dof(k)];
  s.f_external.resize(nf);
  for (int k = 0; k < dofs.num_free_nodes(); ++k) s.f_external.segment<3>(3 * k) = s.mass[3 * k] * gravity;
  s.v = dofs.gather(body.v);
  s.b = s.mass.cwiseProduct(s.v) / dt + s.f_elastic + s.f_external;
  add_pinned_motion(body, dt, s.b);
  return s;
}

namespace detail {

// The set-up of a body's solve of (6): whether it factorizes, and the
// symbolic analysis when it does, for the layout it was made for.
class VelocitySolver {
 public:
  VelocitySolver(const Body& body, const SparseMatrix& A, double max_factor_operations)
      : layout_(body.layout_free), max_factor_operations_(max_factor_operations) {
    if (A.rows() == 0 || A.rows() > MAX_ANALYZED_DOFS || !(max_factor_operations > 0)) return;
    cholesky_.analyze(A);
    direct_ = cholesky_.factor_operations() <= max_factor_operations;
    if (!direct_) cholesky_ = {};  // the analysis reserved the whole factor's storage
  }
  bool fits(const Body& body, double max_factor_operations) const {
    return layout_ == body.layout_free && max_factor_operations_ == max_factor_operations;
  }
  bool direct() const { return direct_; }
  linsolve::BlockDiagonalCholesky& cholesky() { return cholesky_; }

 private:
  std::shared_ptr<const BlockLayout> layout_;  // held, so a new layout never reuses its address
  double max_factor_operations_ = 0;
  bool direct_ = false;
  linsolve::BlockDiagonalCholesky cholesky_;
};

}  // namespace detail

namespace {

// The preconditioner's set-up, as a job a stop request abandons (core/cancel.hpp):
// incomplete Cholesky of a quadratic body of 50,000 dofs takes seconds and
// has no iterations to look between.
linsolve::ApplyPreconditioner abandonable_preconditioner(linsolve::Preconditioner kind, const SparseMatrix& A) {
  if (!abandonable()) return linsolve::make_preconditioner(kind, A);
  auto held = std::make_shared<const SparseMatrix>(A);
  auto out = std::make_shared<linsolve::ApplyPreconditioner>();
  run_abandonable("preconditioner", [kind, held, out] { *out = linsolve::make_preconditioner(kind, *held); });
  return std::move(*out);
}

linsolve::Report solve_by_pcg(const BackwardEulerSystem& s, Vector& v, const linsolve::PcgSettings& settings) {
  linsolve::ApplyPreconditioner precondition = abandonable_preconditioner(settings.preconditioner, s.A);
  // The diagonal of an SPD matrix is positive, so Jacobi always sets up.
  if (!precondition) precondition = linsolve::make_preconditioner(linsolve::Preconditioner::jacobi, s.A);
  return linsolve::solve_pcg(s.A, s.b, v, settings, precondition);
}

}  // namespace

linsolve::Report advance_velocities(Body& body, Real dt, const Vec3& gravity, const linsolve::PcgSettings& settings,
                                    double max_factor_operations) {
  const BackwardEulerSystem s = backward_euler_system(body, dt, gravity);
  std::shared_ptr<detail::VelocitySolver>& solver = body.velocity_solver.solver;
  if (!solver || !solver->fits(body, max_factor_operations))
    solver = std::make_shared<detail::VelocitySolver>(body, s.A, max_factor_operations);
  Vector v = s.v;
  linsolve::Report report;
  bool factored = false;
  try {
    factored = solver->direct() && solver->cholesky().factorize(s.A);
  } catch (...) {
    solver.reset();  // an abandoned factorization (a stop request) leaves the analysis empty
    throw;
  }
  if (factored)
    report = linsolve::solve_refined(solver->cholesky(), s.A, s.b, v, settings.tolerance);
  else
    report = solve_by_pcg(s, v, settings);
  if (!v.allFinite())
    throw SimulationError("solid '" + body.name + "': backward Euler solve produced non-finite velocities");
  body.dofs.scatter(v, body.v);
  return report;
}

bool solves_directly(const Body& body) {
  return body.velocity_solver.solver && body.velocity_solver.solver->direct();
}

Index collide_walls(Body& body, const Vec3& lo, const Vec3& hi) {
  Index corrected = 0;
  for (int i : body.dofs.free_nodes) {
    bool hit = false;
    for (int d = 0; d < 3; ++d) {
      if (body.x(d, i) < lo[d]) {
        body.x(d, i) = lo[d];
        body.v(d, i) = std::max<Real>(body.v(d, i), 0);
        hit = true;
      } else if (body.x(d, i) > hi[d]) {
        body.x(d, i) = hi[d];
        body.v(d, i) = std::min<Real>(body.v(d, i), 0);
        hit = true;
      }
    }
    corrected += hit;
  }
  // Moved nodes change their elements' deformation: keep R consistent with x.
  if (corrected > 0) update_rotations(body);
  return corrected;
}

}  // namespace fsicut::solid
