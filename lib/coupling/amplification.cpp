#include "lib/coupling/amplification.hpp"

#include <Eigen/SparseCholesky>
#include <cmath>

#include "lib/core/error.hpp"

namespace fsicut::coupling {

Amplification weak_amplification(const CoupledSystem& sys, Real tolerance, int max_iterations) {
  using ColMatrix = Eigen::SparseMatrix<Real, Eigen::ColMajor, int>;
  Amplification out;
  const int nc = sys.cells(), nd = sys.dofs();
  if (nc == 0 || nd == 0 || sys.coupling.nonZeros() == 0) {
    out.converged = true;
    return out;
  }
  Eigen::SimplicialLDLT<ColMatrix> fluid{ColMatrix(sys.fluid)};
  if (fluid.info() != Eigen::Success) throw SimulationError("weak amplification: the liquid block F is not factorizable");
  ColMatrix solid_matrix = ColMatrix(sys.solid.stiffness_term);
  for (int i = 0; i < nd; ++i) solid_matrix.coeffRef(i, i) += sys.solid.mass_term[i];
  Eigen::SimplicialLLT<ColMatrix> solid{solid_matrix};
  if (solid.info() != Eigen::Success) throw SimulationError("weak amplification: the solid block A_s is not positive definite");
  const ColMatrix J = sys.coupling;
  auto added_mass = [&](const Vector& x) { return Vector(J.transpose() * Vector(fluid.solve(Vector(J * x)))); };
  // A deterministic start with a component along every dof.
  Vector x(nd);
  for (int i = 0; i < nd; ++i) x[i] = 1 + 0.5 * std::sin(0.7 * i);
  Real lambda = 0;
  for (out.iterations = 1; out.iterations <= max_iterations; ++out.iterations) {
    const Vector ax = added_mass(x);
    const Real xs = x.dot(solid_matrix * x);
    const Real next = xs > 0 ? x.dot(ax) / xs : 0;
    if (!(next > 0)) {  // x has no added mass: J x = 0 for every start (no wetted surface)
      out.converged = true;
      lambda = 0;
      break;
    }
    x = solid.solve(ax);
    x /= x.norm();
    if (std::abs(next - lambda) <= tolerance * next) {
      lambda = next;
      out.converged = true;
      break;
    }
    lambda = next;
  }
  out.iterations = std::min(out.iterations, max_iterations);
  out.spectral_radius = lambda;
  return out;
}

}  // namespace fsicut::coupling
