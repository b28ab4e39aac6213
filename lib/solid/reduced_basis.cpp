// The modal basis of a reduced body (reduced.hpp): the rest stiffness, its
// lowest modes against the lumped mass, and their cleaning (rigid motions
// projected out, Rayleigh-Ritz, a deterministic sign).
#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "lib/core/error.hpp"
#include "lib/linsolve/lowest_eigenpairs.hpp"
#include "lib/solid/layout.hpp"
#include "lib/solid/reduced.hpp"

namespace fsicut::solid {
namespace {

constexpr Real PI = 3.14159265358979323846;

// A free body's rigid eigenvalues are round-off of the eigensolver (dense:
// ~eps lambda_max; Lanczos: its tolerance times |lambda - sigma|), while a
// genuine elastic mode of any sane mesh sits far above lambda_max * 1e-9
// (lambda_1 / lambda_max ~ (h / L)^2, h the element size, L the body's).
// Eigenvalues below this fraction of the largest diagonal entry of
// M^-1/2 K M^-1/2 count as rigid.
constexpr Real RIGID_EIGENVALUE_FRACTION = 1e-9;

using Matrix = Eigen::MatrixXd;
using ColSparse = Eigen::SparseMatrix<Real, Eigen::ColMajor, int>;

// The rest placement and material of the body; S and the eigenvalues empty.
ReducedBasis rest_placement(const Body& body) {
  const Index n = body.num_nodes();
  ReducedBasis basis;
  basis.free_frame = body.dofs.num_free_nodes() == n;
  basis.mass = body.mass;
  basis.total_mass = body.total_mass();
  basis.rest_center = body.mesh.rest * body.mass / basis.total_mass;
  basis.x0 = body.mesh.rest.colwise() - basis.rest_center;
  basis.tau_m = body.tau_m;
  basis.tau_k = body.tau_k;
  return basis;
}

// The free-dof block of K (node dofs -> free dofs of `dofs`).
ColSparse free_block(const SparseMatrix& K, const DofMap& dofs) {
  std::vector<Eigen::Triplet<Real>> trip;
  trip.reserve(K.nonZeros());
  for (int row = 0; row < K.outerSize(); ++row) {
    const int fr = dofs.free_dof(row / 3, row % 3);
    if (fr < 0) continue;
    for (SparseMatrix::InnerIterator it(K, row); it; ++it) {
      const int fc = dofs.free_dof(static_cast<int>(it.col()) / 3, static_cast<int>(it.col()) % 3);
      if (fc >= 0) trip.emplace_back(fr, fc, it.value());
    }
  }
  const int nf = dofs.num_free_dofs();
  ColSparse A(nf, nf);
  A.setFromTriplets(trip.begin(), trip.end());
  return A;
}

// The solver's failure in the words of the reduced basis.
void throw_if_failed(const linsolve::LowestEigenpairs& eig, int count, int nf) {
  using Status = linsolve::LowestEigenpairs::Status;
  switch (eig.status) {
    case Status::ok:
      return;
    case Status::dense_failed:
      throw SimulationError("reduced basis: dense eigensolver failed");
    case Status::shift_not_positive_definite:
      throw SimulationError("reduced basis: Cholesky of the shifted stiffness failed (not positive definite)");
    case Status::not_converged:
      throw SimulationError("reduced basis: Lanczos eigensolver did not converge (" + std::to_string(count) +
                            " modes of " + std::to_string(nf) + " dofs)");
  }
}

// A free body must have exactly 6 (near-)zero eigenvalues among the `count` lowest.
void check_rigid_modes(const Body& body, const linsolve::LowestEigenpairs& eig, int count) {
  const Vector& values = eig.values;
  const Real zero = RIGID_EIGENVALUE_FRACTION * eig.scale;
  if (std::abs(values[RIGID_MODES - 1]) > zero)
    throw SimulationError("solid '" + body.name + "': the rest stiffness has fewer than 6 zero modes");
  // A seventh zero mode means a part moves freely against the rest: only
  // detectable when that mode was computed.
  if (count > RIGID_MODES && values[RIGID_MODES] <= zero)
    throw SimulationError("solid '" + body.name +
                          "': the rest stiffness has more than 6 zero modes (mesh in disconnected pieces?)");
}

// a^T M b for node-major 3n x k fields, M the lumped mass.
Matrix mass_dot(const Vector& mass, const Matrix& a, const Matrix& b) {
  Matrix out = Matrix::Zero(a.cols(), b.cols());
  for (Index i = 0; i < mass.size(); ++i) out += mass[i] * a.middleRows(3 * i, 3).transpose() * b.middleRows(3 * i, 3);
  return out;
}

// Makes the modes S exactly M-orthonormal and K-diagonal again (and, for a
// free body, M-orthogonal to the rigid motions) and stores them in basis.
void clean_modes(const Body& body, const SparseMatrix& K_all, Matrix S, ReducedBasis& basis) {
  const Index n = body.num_nodes();
  const int modes = static_cast<int>(S.cols());
  if (basis.free_frame) {
    // Remove what the eigensolver left of the rigid motions (M-orthogonal
    // projection), so that sum m_i S_i = 0 and sum m_i x0_i x S_i = 0 hold to
    // round-off and T stays the exact centre of mass.
    const Matrix Phi = rigid_velocity_fields(basis.x0);
    const Matrix G = mass_dot(body.mass, Phi, Phi);
    S -= Phi * Eigen::LLT<Matrix>(G).solve(mass_dot(body.mass, Phi, S));
  }
  // Rayleigh-Ritz on span(S): exactly M-orthonormal and K-diagonal again.
  Matrix KS(3 * n, modes);
  for (int c = 0; c < modes; ++c) KS.col(c) = K_all * S.col(c);
  Matrix Kr = S.transpose() * KS;
  Kr = 0.5 * (Kr + Kr.transpose());
  Matrix Mr = mass_dot(body.mass, S, S);
  Mr = 0.5 * (Mr + Mr.transpose());
  Eigen::GeneralizedSelfAdjointEigenSolver<Matrix> ritz(Kr, Mr);
  if (ritz.info() != Eigen::Success) throw SimulationError("solid '" + body.name + "': Rayleigh-Ritz failed");
  basis.S = S * ritz.eigenvectors();
  basis.eigenvalues = ritz.eigenvalues();
  // A deterministic sign: each mode's largest-magnitude entry is positive.
  for (int c = 0; c < modes; ++c) {
    Index at = 0;
    basis.S.col(c).cwiseAbs().maxCoeff(&at);
    if (basis.S(at, c) < 0) basis.S.col(c) = -basis.S.col(c);
  }
}

}  // namespace

Vector ReducedBasis::frequencies() const {
  return (eigenvalues.array().max(0).sqrt() / (2 * PI)).matrix();
}

SparseMatrix rest_stiffness(const Body& body) {
  return detail::with_element(body, [&](auto nodes) {
    constexpr int N = decltype(nodes)::value;  // nodes per element: 4 linear, 10 quadratic
    using E = detail::Element<N>;
    std::vector<Eigen::Triplet<Real>> trip;
    trip.reserve(static_cast<std::size_t>(body.num_tets()) * 9 * N * N);
    for (Index t = 0; t < body.num_tets(); ++t)
      for (int a = 0; a < N; ++a)
        for (int b = 0; b < N; ++b)
          for (int c = 0; c < 3; ++c)
            for (int d = 0; d < 3; ++d)
              trip.emplace_back(3 * E::node(body, t, a) + c, 3 * E::node(body, t, b) + d,
                                E::K0(body, t)(3 * a + c, 3 * b + d));
    SparseMatrix K(3 * body.num_nodes(), 3 * body.num_nodes());
    K.setFromTriplets(trip.begin(), trip.end());
    return K;
  });
}

ReducedBasis make_reduced_basis(const Body& body, int modes, ModalSolver solver) {
  const Index n = body.num_nodes();
  ReducedBasis basis = rest_placement(body);
  const DofMap& dofs = body.dofs;
  const int nf = dofs.num_free_dofs();
  const int rigid = basis.free_frame ? RIGID_MODES : 0;
  if (modes < 0 || modes > nf - rigid)
    throw std::invalid_argument("solid '" + body.name + "': " + std::to_string(modes) +
                                " modes requested, the body has " + std::to_string(std::max(0, nf - rigid)));

  // K s = lambda M s on the free dofs, M the lumped mass.
  const SparseMatrix K_all = rest_stiffness(body);
  const ColSparse K_free = free_block(K_all, dofs);
  Vector free_mass(nf);
  for (int k = 0; k < nf; ++k) free_mass[k] = body.mass[dofs.free_nodes[k / 3]];

  basis.S.resize(3 * n, modes);
  basis.S.setZero();
  basis.eigenvalues.resize(0);
  if (basis.free_frame) basis.rigid_eigenvalues.resize(0);
  if (modes == 0) {  // a rigid body (free) or a fixed one (pinned): nothing to solve
    basis.solver = "none";
    return basis;
  }

  const int count = modes + rigid;
  const bool dense = solver == ModalSolver::dense ||
                     (solver == ModalSolver::automatic && (nf <= DENSE_MODAL_MAX_DOFS || 2 * count > nf)) ||
                     count >= nf;  // Lanczos needs nev < n
  basis.solver = dense ? "dense" : "lanczos";
  const linsolve::LowestEigenpairs eig = linsolve::lowest_eigenpairs(
      K_free, free_mass, count, dense ? linsolve::EigenMethod::dense : linsolve::EigenMethod::shift_invert_lanczos);
  throw_if_failed(eig, count, nf);
  if (basis.free_frame) {
    basis.rigid_eigenvalues = eig.values.head(RIGID_MODES);
    check_rigid_modes(body, eig, count);
  }

  // Eigenvectors back to node dofs, zero rows at pinned nodes.
  Matrix S = Matrix::Zero(3 * n, modes);
  for (int k = 0; k < nf; ++k) S.row(dofs.node_dof(k)) = eig.vectors.row(k).segment(rigid, modes);
  clean_modes(body, K_all, std::move(S), basis);
  return basis;
}

}  // namespace fsicut::solid
