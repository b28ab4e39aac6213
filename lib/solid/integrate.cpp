#include "lib/solid/integrate.hpp"

#include <algorithm>
#include <stdexcept>

#include "lib/core/error.hpp"
#include "lib/solid/corotation.hpp"
#include "lib/solid/layout.hpp"

namespace fsicut::solid {

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
  return s;
}

linsolve::Report advance_velocities(Body& body, Real dt, const Vec3& gravity, const linsolve::PcgSettings& settings) {
  const BackwardEulerSystem s = backward_euler_system(body, dt, gravity);
  Vector v = s.v;
  // solve_pcg restarts by itself when CG's running residual drifts from the
  // true one (slender beams are ill-conditioned).
  const linsolve::Report report = linsolve::solve_pcg(s.A, s.b, v, settings);
  if (!v.allFinite())
    throw SimulationError("solid '" + body.name + "': backward Euler solve produced non-finite velocities");
  body.dofs.scatter(v, body.v);
  return report;
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
