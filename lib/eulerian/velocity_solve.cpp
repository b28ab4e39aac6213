#include "lib/eulerian/velocity_solve.hpp"

#include <algorithm>
#include <vector>

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

linsolve::Report solve_velocity_system(const linsolve::SparseMatrix& G, const Vector& rhs, Vector& v, Real tolerance,
                                       int max_iterations) {
  const Index n = G.rows();
  if (v.size() != n) v.setZero(n);
  // sub[i]: row i's place among the coupled rows, -1 for a row divided out.
  std::vector<int> sub(static_cast<std::size_t>(n), -1);
  std::vector<Index> coupled;
  for (Index i = 0; i < n; ++i) {
    bool alone = true;
    for (linsolve::SparseMatrix::InnerIterator it(G, i); it && alone; ++it) alone = it.col() == i || it.value() == 0;
    if (alone) {
      v[i] = rhs[i] / G.coeff(i, i);
    } else {
      sub[i] = static_cast<int>(coupled.size());
      coupled.push_back(i);
    }
  }
  const Index m = static_cast<Index>(coupled.size());
  linsolve::SparseMatrix A(m, m);
  Vector b(m), x(m);
  std::vector<Eigen::Triplet<Real, int>> entries;
  for (Index r = 0; r < m; ++r) {
    const Index i = coupled[r];
    b[r] = rhs[i];
    x[r] = v[i];
    for (linsolve::SparseMatrix::InnerIterator it(G, i); it; ++it) {
      if (sub[it.col()] >= 0) entries.emplace_back(static_cast<int>(r), sub[it.col()], it.value());
      else b[r] -= it.value() * v[it.col()];  // a zero entry of the symmetric pattern, kept exact
    }
  }
  A.setFromTriplets(entries.begin(), entries.end());
  const Real whole = rhs.norm(), part = b.norm();
  linsolve::Report r = linsolve::nothing_to_solve();
  if (m > 0 && part > 0) {
    linsolve::PcgSettings pcg;
    pcg.tolerance = std::min(Real(1), tolerance * whole / part);
    pcg.max_iterations = max_iterations;
    pcg.preconditioner = linsolve::Preconditioner::jacobi;
    r = linsolve::solve_pcg(A, b, x, pcg);
    r.relative_residual *= part / whole;
  } else {
    x.setZero();
  }
  for (Index k = 0; k < m; ++k) v[coupled[k]] = x[k];
  r.unknowns = static_cast<int>(n);
  return r;
}

}  // namespace fsicut::eulerian
