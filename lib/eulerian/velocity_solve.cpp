#include "lib/eulerian/velocity_solve.hpp"

#include "lib/linsolve/sparse.hpp"

namespace fsicut::eulerian {

SystemWeights system_weights(Real dt, Integration integration) {
  if (integration == Integration::newmark) return {dt / 2, dt * dt / 4};
  return {dt, dt * dt};
}

linsolve::SparseMatrix system_matrix(const Vector& mass, const linsolve::SparseMatrix& K, const Damping& damping,
                                     Real dt, Integration integration) {
  const SystemWeights w = system_weights(dt, integration);
  linsolve::SparseMatrix M(mass.size(), mass.size());
  M.reserve(Eigen::VectorXi::Constant(mass.size(), 1));
  for (Index i = 0; i < mass.size(); ++i) M.insert(i, i) = (1 + w.damping * damping.mass) * mass[i];
  linsolve::SparseMatrix scaled = (w.damping * damping.stiffness + w.stiffness) * K;
  return linsolve::sum(M, scaled);
}

Vector right_hand_side(const Vector& mass, const linsolve::SparseMatrix& G, Real dt, const Vector& force,
                       const Vector& v, Integration integration) {
  if (integration != Integration::newmark) return mass.cwiseProduct(v) + dt * force;
  const Vector Mv = mass.cwiseProduct(v);
  return Mv + dt * force - (G * v - Mv);
}

linsolve::Report solve_velocity(const Vector& mass, const linsolve::SparseMatrix& K, const Damping& damping, Real dt,
                                const Vector& force, Vector& v, const VelocitySettings& settings) {
  if (mass.size() == 0) return linsolve::nothing_to_solve();
  if (settings.integration == Integration::explicit_euler) {
    const Vector damping_force = damping.mass * mass.cwiseProduct(v) + damping.stiffness * (K * v);
    v += dt * (force - damping_force).cwiseQuotient(mass);
    linsolve::Report r = linsolve::nothing_to_solve();
    r.unknowns = static_cast<int>(mass.size());
    r.met_tolerance = v.allFinite();
    return r;
  }
  const linsolve::SparseMatrix G = system_matrix(mass, K, damping, dt, settings.integration);
  const Vector rhs = right_hand_side(mass, G, dt, force, v, settings.integration);
  linsolve::PcgSettings pcg;
  pcg.tolerance = settings.tolerance;
  pcg.max_iterations = settings.max_iterations;
  pcg.preconditioner = linsolve::Preconditioner::jacobi;
  return linsolve::solve_pcg(G, rhs, v, pcg);
}

}  // namespace fsicut::eulerian
