#include "lib/solid/reduced.hpp"

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <Eigen/SparseCholesky>
#include <Spectra/SymEigsShiftSolver.h>
#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "lib/core/error.hpp"
#include "lib/solid/corotation.hpp"
#include "lib/solid/layout.hpp"

namespace fsicut::solid {

namespace {

constexpr Real PI = 3.14159265358979323846;
constexpr int RIGID_MODES = 6;

// A free body's rigid eigenvalues are round-off of the eigensolver (dense:
// ~eps lambda_max; Lanczos: its tolerance times |lambda - sigma|), while a
// genuine elastic mode of any sane mesh sits far above lambda_max * 1e-9
// (lambda_1 / lambda_max ~ (h / L)^2, h the element size, L the body's).
// Eigenvalues below this fraction of the largest diagonal entry of
// M^-1/2 K M^-1/2 count as rigid.
constexpr Real RIGID_EIGENVALUE_FRACTION = 1e-9;

// The shift-invert Lanczos shift sigma = -fraction * max diag(M^-1/2 K M^-1/2):
// negative so that the shifted matrix is positive definite even though K is
// singular (free body), and small so that the lowest elastic modes, not the
// stiff ones, dominate the inverted spectrum. Its Cholesky then has condition
// number ~ 1 / fraction, which costs accuracy only in the rigid directions
// (dropped and projected out afterwards).
constexpr Real LANCZOS_SHIFT_FRACTION = 1e-8;
constexpr Real LANCZOS_TOLERANCE = 1e-12;
constexpr int LANCZOS_MAX_ITERATIONS = 1000;

// Wall contact's least-distance problem is infeasible when 1 + b . u, the
// NNLS residual's last entry, vanishes; below this it is taken as zero.
constexpr Real CONTACT_FEASIBILITY = 1e-12;

using Matrix = Eigen::MatrixXd;
using ColSparse = Eigen::SparseMatrix<Real, Eigen::ColMajor, int>;

Eigen::Matrix3d cross_matrix(const Vec3& a) {
  Eigen::Matrix3d m;
  m << 0, -a.z(), a.y(), a.z(), 0, -a.x(), -a.y(), a.x(), 0;
  return m;
}

// Shift-invert operator for Spectra: y = (A - sigma Id)^-1 x with a sparse
// Cholesky (A - sigma Id is SPD for sigma < 0 and A PSD).
class ShiftedCholesky {
 public:
  using Scalar = Real;
  explicit ShiftedCholesky(const ColSparse& A) : A_(A) {}
  Eigen::Index rows() const { return A_.rows(); }
  Eigen::Index cols() const { return A_.cols(); }
  void set_shift(const Real& sigma) {
    ColSparse I(A_.rows(), A_.cols());
    I.setIdentity();
    llt_.compute(A_ - sigma * I);
    if (llt_.info() != Eigen::Success)
      throw SimulationError("reduced basis: Cholesky of the shifted stiffness failed (not positive definite)");
  }
  void perform_op(const Real* x_in, Real* y_out) const {
    Eigen::Map<const Vector> x(x_in, A_.rows());
    Eigen::Map<Vector> y(y_out, A_.rows());
    y = llt_.solve(x);
  }

 private:
  const ColSparse& A_;
  Eigen::SimplicialLLT<ColSparse> llt_;
};

// Lowest `count` eigenpairs (ascending) of the SPD-or-PSD matrix A (n x n).
void lowest_eigenpairs(const ColSparse& A, int count, bool dense, Vector& values, Matrix& vectors) {
  const int n = static_cast<int>(A.rows());
  if (dense) {
    Eigen::SelfAdjointEigenSolver<Matrix> eig{Matrix(A)};
    if (eig.info() != Eigen::Success) throw SimulationError("reduced basis: dense eigensolver failed");
    values = eig.eigenvalues().head(count);
    vectors = eig.eigenvectors().leftCols(count);
    return;
  }
  const Real scale = A.diagonal().maxCoeff();
  ShiftedCholesky op(A);
  // Spectra's advice is ncv >= 2 nev; a few more Lanczos vectors make the
  // restarts converge in fewer factorization solves.
  const int ncv = std::min(n, std::max(2 * count + 1, count + 20));
  Spectra::SymEigsShiftSolver<ShiftedCholesky> eigs(op, count, ncv, -LANCZOS_SHIFT_FRACTION * scale);
  eigs.init();
  eigs.compute(Spectra::SortRule::LargestMagn, LANCZOS_MAX_ITERATIONS, LANCZOS_TOLERANCE);
  if (eigs.info() != Spectra::CompInfo::Successful)
    throw SimulationError("reduced basis: Lanczos eigensolver did not converge (" + std::to_string(count) +
                          " modes of " + std::to_string(n) + " dofs)");
  const Vector ev = eigs.eigenvalues();
  const Matrix evec = eigs.eigenvectors();
  std::vector<int> order(ev.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int a, int b) { return ev[a] < ev[b]; });
  values.resize(count);
  vectors.resize(n, count);
  for (int k = 0; k < count; ++k) {
    values[k] = ev[order[k]];
    vectors.col(k) = evec.col(order[k]);
  }
}

// sum_i m_i a_i x b_i for node fields given as 3n node-major vectors.
template <class A, class B>
Vec3 mass_cross_sum(const Vector& mass, const A& a, const B& b) {
  Vec3 s = Vec3::Zero();
  for (Index i = 0; i < mass.size(); ++i)
    s += mass[i] * Vec3(a.template segment<3>(3 * i)).cross(Vec3(b.template segment<3>(3 * i)));
  return s;
}

// h(q, w) = sum_i m_i (S_i q) x (S_i w): the modes' angular momentum in the body frame.
Vec3 modal_angular_momentum(const ReducedBasis& basis, const Vector& q, const Vector& w) {
  if (basis.modes() == 0) return Vec3::Zero();
  const Vector Sq = basis.S * q, Sw = basis.S * w;
  return mass_cross_sum(basis.mass, Sq, Sw);
}

Mat3 inertia_of_arms(const Vector& mass, const Points& r) {
  Eigen::Matrix3d I = Eigen::Matrix3d::Zero();
  for (Index i = 0; i < r.cols(); ++i) {
    const Vec3 a = r.col(i);
    I += mass[i] * (a.squaredNorm() * Eigen::Matrix3d::Identity() - a * a.transpose());
  }
  return I;
}

// hat M_r^-1 (diagonal, r): 1 / (1 + dt (tau_m + tau_k lambda) + dt^2 lambda).
Vector hat_mass_inverse(const ReducedBasis& basis, Real dt) {
  const Vector& lam = basis.eigenvalues;
  return (1.0 + dt * (basis.tau_m + basis.tau_k * lam.array()) + dt * dt * lam.array()).inverse().matrix();
}

void check_impulse_shape(const ReducedBasis& basis, const Points& j) {
  if (j.cols() != basis.num_nodes()) throw std::invalid_argument("reduced body: one impulse column per node expected");
}

// What the rigid frame needs of a configuration: arms and inertia.
struct Frame {
  Points r;                   // arms, 3 x n
  Eigen::LDLT<Mat3> inertia;  // I(q, R)
};

Frame frame_of(const ReducedBasis& basis, const ReducedState& s) {
  Frame f;
  f.r = reduced_arms(basis, s);
  f.inertia.compute(inertia_of_arms(basis.mass, f.r));
  return f;
}

// The modal generalized impulse S^T R^T P_d j (r), with P_d = Id - P_rigid (11).
Vector modal_impulse(const ReducedBasis& basis, const ReducedState& s, const Frame& f, const Points& j) {
  Points pd = j;
  if (basis.free_frame) {
    // P_rigid j = M J_rigid M_rigid^-1 J_rigid^T j: node i gets m_i (F / m + alpha x r_i).
    const Vec3 F = j.rowwise().sum();
    Vec3 tau = Vec3::Zero();
    for (Index i = 0; i < j.cols(); ++i) tau += Vec3(f.r.col(i)).cross(Vec3(j.col(i)));
    const Vec3 a = f.inertia.solve(tau);
    const Vec3 acc = F / basis.total_mass;
    for (Index i = 0; i < j.cols(); ++i) pd.col(i) -= basis.mass[i] * (acc + a.cross(Vec3(f.r.col(i))));
  }
  const Points local = s.R.transpose() * pd;
  return basis.S.transpose() * Eigen::Map<const Vector>(local.data(), local.size());
}

// The frame's velocities for the total momentum (P, L) at the current configuration and modal velocities.
void set_frame_from_momentum(const ReducedBasis& basis, ReducedState& s, const Frame& f, const Vec3& P,
                             const Vec3& L) {
  s.v = P / basis.total_mass;
  s.omega = f.inertia.solve(L - s.R * modal_angular_momentum(basis, s.q, s.qdot));
}

// Lawson & Hanson's active-set NNLS: u = argmin |E u - e| over u >= 0.
// Returns the number of outer iterations. Terminates in finitely many steps;
// the bound (3 columns' worth) only guards against round-off cycling.
int nonnegative_least_squares(const Matrix& E, const Vector& e, Vector& u) {
  const int n = static_cast<int>(E.cols());
  u = Vector::Zero(n);
  std::vector<char> passive(n, 0);
  const Real tol = 1e-13 * std::max<Real>(1, E.cwiseAbs().maxCoeff()) * std::max<Real>(1, e.norm());
  int outer = 0;
  for (; outer < 3 * n + 10; ++outer) {
    const Vector w = E.transpose() * (e - E * u);
    int t = -1;
    for (int k = 0; k < n; ++k)
      if (!passive[k] && w[k] > tol && (t < 0 || w[k] > w[t])) t = k;
    if (t < 0) break;
    passive[t] = 1;
    for (int inner = 0; inner < 3 * n + 10; ++inner) {
      std::vector<int> P;
      for (int k = 0; k < n; ++k)
        if (passive[k]) P.push_back(k);
      Matrix EP(E.rows(), static_cast<Index>(P.size()));
      for (size_t k = 0; k < P.size(); ++k) EP.col(k) = E.col(P[k]);
      const Vector zP = EP.colPivHouseholderQr().solve(e);
      if ((zP.array() > 0).all()) {
        u.setZero();
        for (size_t k = 0; k < P.size(); ++k) u[P[k]] = zP[k];
        break;
      }
      Real alpha = 1;
      for (size_t k = 0; k < P.size(); ++k)
        if (zP[k] <= 0) alpha = std::min(alpha, u[P[k]] / (u[P[k]] - zP[k]));
      for (size_t k = 0; k < P.size(); ++k) {
        u[P[k]] += alpha * (zP[k] - u[P[k]]);
        if (u[P[k]] <= tol) {
          u[P[k]] = 0;
          passive[P[k]] = 0;
        }
      }
    }
  }
  return outer;
}

ReducedVelocityChange impulse_response(const ReducedBasis& basis, const ReducedState& s, const Points& j, Real dt) {
  check_impulse_shape(basis, j);
  const Frame f = frame_of(basis, s);
  ReducedVelocityChange dv;
  dv.qdot = hat_mass_inverse(basis, dt).cwiseProduct(modal_impulse(basis, s, f, j));  // (39)
  if (!basis.free_frame) return dv;
  // The frame takes what makes the total momentum change exactly J_rigid^T j:
  // equal to (40), whose terms J_rigid^T (-P_r P_d j + M R S dt D_r delta qdot)
  // sum to -J_rigid^T M R S delta qdot because hat M_r - dt D_r = M_r = Id.
  dv.v = j.rowwise().sum() / basis.total_mass;
  Vec3 dL = Vec3::Zero();
  for (Index i = 0; i < j.cols(); ++i) dL += Vec3(f.r.col(i)).cross(Vec3(j.col(i)));
  dv.omega = f.inertia.solve(dL - s.R * modal_angular_momentum(basis, s.q, dv.qdot));
  return dv;
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
  ReducedBasis basis;
  basis.free_frame = body.dofs.num_free_nodes() == n;
  basis.mass = body.mass;
  basis.total_mass = body.total_mass();
  basis.rest_center = body.mesh.rest * body.mass / basis.total_mass;
  basis.x0 = body.mesh.rest.colwise() - basis.rest_center;
  basis.tau_m = body.tau_m;
  basis.tau_k = body.tau_k;

  const DofMap& dofs = body.dofs;
  const int nf = dofs.num_free_dofs();
  const int rigid = basis.free_frame ? RIGID_MODES : 0;
  if (modes < 0 || modes > nf - rigid)
    throw std::invalid_argument("solid '" + body.name + "': " + std::to_string(modes) +
                                " modes requested, the body has " + std::to_string(std::max(0, nf - rigid)));

  // The free-dof block of the rest stiffness, symmetrically scaled by M^-1/2:
  // K s = lambda M s  <=>  (M^-1/2 K M^-1/2) y = lambda y,  s = M^-1/2 y.
  const SparseMatrix K_all = rest_stiffness(body);
  Vector inv_sqrt_m(nf);
  for (int k = 0; k < nf; ++k) inv_sqrt_m[k] = 1 / std::sqrt(body.mass[dofs.free_nodes[k / 3]]);
  std::vector<Eigen::Triplet<Real>> trip;
  trip.reserve(K_all.nonZeros());
  for (int row = 0; row < K_all.outerSize(); ++row) {
    const int fr = dofs.free_dof(row / 3, row % 3);
    if (fr < 0) continue;
    for (SparseMatrix::InnerIterator it(K_all, row); it; ++it) {
      const int fc = dofs.free_dof(static_cast<int>(it.col()) / 3, static_cast<int>(it.col()) % 3);
      if (fc >= 0) trip.emplace_back(fr, fc, it.value() * inv_sqrt_m[fr] * inv_sqrt_m[fc]);
    }
  }
  ColSparse A(nf, nf);
  A.setFromTriplets(trip.begin(), trip.end());

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
  Vector values;
  Matrix Y;
  lowest_eigenpairs(A, count, dense, values, Y);

  const Real scale = A.diagonal().maxCoeff();
  if (basis.free_frame) {
    basis.rigid_eigenvalues = values.head(RIGID_MODES);
    const Real zero = RIGID_EIGENVALUE_FRACTION * scale;
    if (std::abs(values[RIGID_MODES - 1]) > zero)
      throw SimulationError("solid '" + body.name + "': the rest stiffness has fewer than 6 zero modes");
    // A seventh zero mode means a part moves freely against the rest: only
    // detectable when that mode was computed.
    if (count > RIGID_MODES && values[RIGID_MODES] <= zero)
      throw SimulationError("solid '" + body.name +
                            "': the rest stiffness has more than 6 zero modes (mesh in disconnected pieces?)");
  }

  // Eigenvectors back to node dofs: S = M^-1/2 Y, zero rows at pinned nodes.
  Matrix S = Matrix::Zero(3 * n, modes);
  for (int k = 0; k < nf; ++k) S.row(dofs.node_dof(k)) = inv_sqrt_m[k] * Y.row(k).segment(rigid, modes);

  const auto mass_dot = [&](const Matrix& a, const Matrix& b) {
    Matrix out = Matrix::Zero(a.cols(), b.cols());
    for (Index i = 0; i < n; ++i) out += body.mass[i] * a.middleRows(3 * i, 3).transpose() * b.middleRows(3 * i, 3);
    return out;
  };
  if (basis.free_frame) {
    // Remove what the eigensolver left of the rigid motions (M-orthogonal
    // projection), so that sum m_i S_i = 0 and sum m_i x0_i x S_i = 0 hold to
    // round-off and T stays the exact centre of mass.
    Matrix Phi = Matrix::Zero(3 * n, RIGID_MODES);
    for (Index i = 0; i < n; ++i) {
      Phi.block<3, 3>(3 * i, 0).setIdentity();
      Phi.block<3, 3>(3 * i, 3) = -cross_matrix(basis.x0.col(i));  // column d: e_d x x0_i
    }
    const Matrix G = mass_dot(Phi, Phi);
    S -= Phi * Eigen::LLT<Matrix>(G).solve(mass_dot(Phi, S));
  }
  // Rayleigh-Ritz on span(S): exactly M-orthonormal and K-diagonal again.
  Matrix KS(3 * n, modes);
  for (int c = 0; c < modes; ++c) KS.col(c) = K_all * S.col(c);
  Matrix Kr = S.transpose() * KS;
  Kr = 0.5 * (Kr + Kr.transpose());
  Matrix Mr = mass_dot(S, S);
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
  return basis;
}

ReducedState make_reduced_state(const ReducedBasis& basis, const Body& body) {
  ReducedState s;
  s.T = basis.rest_center;
  s.q = Vector::Zero(basis.modes());
  s.qdot = Vector::Zero(basis.modes());
  if (basis.free_frame) s.v = body.v * body.mass / body.total_mass();
  return s;
}

Points reduced_arms(const ReducedBasis& basis, const ReducedState& s) {
  Points local = basis.x0;
  if (basis.modes() > 0) {
    const Vector Sq = basis.S * s.q;
    local += Eigen::Map<const Points>(Sq.data(), 3, basis.num_nodes());
  }
  return s.R * local;
}

Points reduced_positions(const ReducedBasis& basis, const ReducedState& s) {
  return reduced_arms(basis, s).colwise() + s.T;
}

Points reduced_velocities(const ReducedBasis& basis, const ReducedState& s) {
  const Points r = reduced_arms(basis, s);
  Points v(3, r.cols());
  for (Index i = 0; i < r.cols(); ++i) v.col(i) = s.v + s.omega.cross(Vec3(r.col(i)));
  if (basis.modes() > 0) {
    const Vector Sw = basis.S * s.qdot;
    v += s.R * Eigen::Map<const Points>(Sw.data(), 3, r.cols());
  }
  return v;
}

void write_reduced_to_body(const ReducedBasis& basis, const ReducedState& state, Body& body) {
  body.x = reduced_positions(basis, state);
  body.v = reduced_velocities(basis, state);
  update_rotations(body);
}

Eigen::Matrix3d reduced_inertia(const ReducedBasis& basis, const ReducedState& state) {
  return inertia_of_arms(basis.mass, reduced_arms(basis, state));
}

ReducedMomentum reduced_momentum(const ReducedBasis& basis, const ReducedState& s) {
  ReducedMomentum p;
  p.linear = basis.total_mass * s.v;
  p.angular = reduced_inertia(basis, s) * s.omega + s.R * modal_angular_momentum(basis, s.q, s.qdot);
  return p;
}

Real reduced_kinetic_energy(const ReducedBasis& basis, const ReducedState& s) {
  const Points v = reduced_velocities(basis, s);
  return 0.5 * (v.colwise().squaredNorm().transpose().array() * basis.mass.array()).sum();
}

Real reduced_elastic_energy(const ReducedBasis& basis, const ReducedState& s) {
  return 0.5 * s.q.dot(basis.eigenvalues.cwiseProduct(s.q));
}

Real modal_energy(const ReducedBasis& basis, const ReducedState& s) {
  return 0.5 * s.qdot.squaredNorm() + reduced_elastic_energy(basis, s);
}

ReducedVelocityChange split_impulse(const ReducedBasis& basis, const ReducedState& s, const Points& j) {
  return impulse_response(basis, s, j, 0);
}

ReducedVelocityChange implicit_impulse_response(const ReducedBasis& basis, const ReducedState& s, const Points& j,
                                                Real dt) {
  if (!(dt >= 0)) throw std::invalid_argument("implicit_impulse_response: dt must be >= 0");
  return impulse_response(basis, s, j, dt);
}

void add_velocity_change(ReducedState& s, const ReducedVelocityChange& dv) {
  s.v += dv.v;
  s.omega += dv.omega;
  s.qdot += dv.qdot;
}

Points nodal_velocity_change(const ReducedBasis& basis, const ReducedState& s, const ReducedVelocityChange& dv) {
  ReducedState d = s;
  d.v = dv.v;
  d.omega = dv.omega;
  d.qdot = dv.qdot;
  return reduced_velocities(basis, d);
}

Points apply_impulse_response(const ReducedBasis& basis, const ReducedState& s, const Points& j, Real dt) {
  return nodal_velocity_change(basis, s, implicit_impulse_response(basis, s, j, dt));
}

ImpulseResponseFactor impulse_response_factor(const ReducedBasis& basis, const ReducedState& s, Real dt) {
  const Index n = basis.num_nodes();
  const int r = basis.modes();
  const int rigid = basis.free_frame ? RIGID_MODES : 0;
  const Frame f = frame_of(basis, s);
  ImpulseResponseFactor out;
  out.W = Matrix::Zero(3 * n, rigid + r);
  out.D = Matrix::Zero(rigid + r, rigid + r);
  // R S, node-major.
  Matrix RS(3 * n, r);
  for (Index i = 0; i < n; ++i) RS.middleRows(3 * i, 3) = s.R * basis.node_rows(i);
  if (basis.free_frame) {
    for (Index i = 0; i < n; ++i) {
      out.W.block<3, 3>(3 * i, 0).setIdentity();
      out.W.block<3, 3>(3 * i, 3) = -cross_matrix(f.r.col(i));  // column d: e_d x r_i
    }
    out.D.topLeftCorner<3, 3>() = Eigen::Matrix3d::Identity() / basis.total_mass;
    out.D.block<3, 3>(3, 3) = f.inertia.solve(Eigen::Matrix3d::Identity());
    out.D.block<3, 3>(3, 3) = 0.5 * (out.D.block<3, 3>(3, 3) + out.D.block<3, 3>(3, 3).transpose()).eval();
    // P_d^T w = w - J_rigid M_rigid^-1 J_rigid^T M w for each column w of R S.
    for (int c = 0; c < r; ++c) {
      Vec3 lin = Vec3::Zero(), ang = Vec3::Zero();
      for (Index i = 0; i < n; ++i) {
        const Vec3 w = RS.block<3, 1>(3 * i, c);
        lin += basis.mass[i] * w;
        ang += basis.mass[i] * Vec3(f.r.col(i)).cross(w);
      }
      const Vec3 dv = lin / basis.total_mass, dw = f.inertia.solve(ang);
      for (Index i = 0; i < n; ++i) RS.block<3, 1>(3 * i, c) -= dv + dw.cross(Vec3(f.r.col(i)));
    }
  }
  out.W.rightCols(r) = RS;
  out.D.bottomRightCorner(r, r) = hat_mass_inverse(basis, dt).asDiagonal();
  return out;
}

void advance_reduced_positions(const ReducedBasis& basis, ReducedState& s, Real dt) {
  if (!basis.free_frame) {
    if (basis.modes() > 0) s.q += dt * s.qdot;
    return;
  }
  const Vec3 L = reduced_momentum(basis, s).angular;  // before the configuration moves
  if (basis.modes() > 0) s.q += dt * s.qdot;
  s.T += dt * s.v;
  const Real angle = dt * s.omega.norm();
  if (angle > 0) {
    const Eigen::Matrix3d E = Eigen::AngleAxisd(angle, s.omega.normalized()).toRotationMatrix();
    // Through a unit quaternion so round-off does not accumulate in R over many steps.
    s.R = Eigen::Quaterniond(E * s.R).normalized().toRotationMatrix();
  }
  // Linear momentum m v is untouched; the angular one is kept by re-deriving omega.
  const Frame f = frame_of(basis, s);
  set_frame_from_momentum(basis, s, f, basis.total_mass * s.v, L);
}

void advance_reduced_velocities(const ReducedBasis& basis, ReducedState& s, Real dt, const Points& f) {
  if (!(dt > 0)) throw std::invalid_argument("advance_reduced_velocities: dt must be positive");
  check_impulse_shape(basis, f);
  const Points j = dt * f;
  const Frame fr = frame_of(basis, s);
  // The momentum after the step: the external impulse's sum and moment added
  // (the elastic and damping forces, (33) and (35), move none).
  ReducedMomentum p;
  if (basis.free_frame) {
    p = reduced_momentum(basis, s);
    p.linear += j.rowwise().sum();
    for (Index i = 0; i < j.cols(); ++i) p.angular += Vec3(fr.r.col(i)).cross(Vec3(j.col(i)));
  }
  if (basis.modes() > 0) {
    // (31)/(32)/(34): hat M_r qdot' = M_r qdot + S^T R^T P_d j - dt K_r q, M_r = Id.
    Vector rhs = s.qdot + modal_impulse(basis, s, fr, j) - dt * basis.eigenvalues.cwiseProduct(s.q);
    if (basis.free_frame && s.omega.squaredNorm() > 0) {
      // The rotating frame's centrifugal and Coriolis forces on the nodes,
      // -m_i (omega x (omega x r_i) + 2 omega x R S_i qdot), explicit, split by
      // P_d like the paper's F^ef (25). They are not real forces: they are left
      // out of the momentum above, so the frame balances them like (33)/(35).
      const Vector Sw = basis.S * s.qdot;
      Points fict(3, j.cols());
      for (Index i = 0; i < j.cols(); ++i) {
        const Vec3 r = fr.r.col(i);
        const Vec3 w = s.R * Vec3(Sw.segment<3>(3 * i));
        fict.col(i) = -dt * basis.mass[i] * (s.omega.cross(s.omega.cross(r)) + 2 * s.omega.cross(w));
      }
      rhs += modal_impulse(basis, s, fr, fict);
    }
    s.qdot = hat_mass_inverse(basis, dt).cwiseProduct(rhs);
  }
  if (basis.free_frame) set_frame_from_momentum(basis, s, fr, p.linear, p.angular);
}

Points gravity_forces(const ReducedBasis& basis, const Vec3& gravity) {
  return gravity * basis.mass.transpose();
}

ReducedContactReport collide_reduced_walls(const ReducedBasis& basis, ReducedState& s, const Vec3& lo,
                                           const Vec3& hi) {
  ReducedContactReport report;
  const Points x = reduced_positions(basis, s);
  struct Contact {
    Index node;
    int axis;
    Real sign;  // inward normal = sign * e_axis
  };
  std::vector<Contact> contacts;
  for (int d = 0; d < 3; ++d) {
    Real below = 0, above = 0;
    for (Index i = 0; i < x.cols(); ++i) {
      if (x(d, i) < lo[d]) {
        below = std::max(below, lo[d] - x(d, i));
        contacts.push_back({i, d, 1});
      } else if (x(d, i) > hi[d]) {
        above = std::max(above, x(d, i) - hi[d]);
        contacts.push_back({i, d, -1});
      }
    }
    if (basis.free_frame && (below > 0) != (above > 0)) s.T[d] += below > 0 ? below : -above;
  }
  report.contacts = static_cast<Index>(contacts.size());
  if (contacts.empty()) return report;

  // Normal rows of K_lambda's factor: G = N W, Delassus A = G D G^T, and the
  // current normal velocities b; find lambda >= 0 with A lambda + b >= 0,
  // complementary.
  const ImpulseResponseFactor f = impulse_response_factor(basis, s, 0);
  const Points v = reduced_velocities(basis, s);
  const int c = static_cast<int>(contacts.size());
  Matrix G(c, f.W.cols());
  Vector b(c);
  for (int k = 0; k < c; ++k) {
    const Contact& ct = contacts[k];
    G.row(k) = ct.sign * f.W.row(3 * ct.node + ct.axis);
    b[k] = ct.sign * v(ct.axis, ct.node);
  }
  // The LCP is the least-distance problem min |y| subject to H y >= -b in the
  // (6 + r)-space (D = L L^T, H = G L, velocity change L y = D G^T lambda),
  // solved exactly through Lawson & Hanson's non-negative least squares:
  // min |E u - e| over u >= 0 with E = [H^T; -b^T], e = (0, .., 0, 1); then
  // lambda = u / (1 + b . u). Unlike Gauss-Seidel it terminates on the
  // degenerate problems of resting contact (more contacts than 6 + r).
  const Eigen::LLT<Matrix> D_llt(f.D);
  const Matrix H = G * Matrix(D_llt.matrixL());
  const int m = static_cast<int>(H.cols());
  Matrix E(m + 1, c);
  E.topRows(m) = H.transpose();
  E.row(m) = -b.transpose();
  Vector e = Vector::Zero(m + 1);
  e[m] = 1;
  Vector u;
  report.iterations = nonnegative_least_squares(E, e, u);
  const Real denom = 1 + b.dot(u);
  if (!(denom > CONTACT_FEASIBILITY)) return report;  // no push satisfies every wall (a body wider than the box)
  const Vector lambda = u / denom;
  Points j = Points::Zero(3, x.cols());
  for (int k = 0; k < c; ++k) j(contacts[k].axis, contacts[k].node) += contacts[k].sign * lambda[k];
  add_velocity_change(s, split_impulse(basis, s, j));
  const Points v1 = reduced_velocities(basis, s);
  for (const Contact& ct : contacts)
    report.max_violation = std::max(report.max_violation, std::max<Real>(0, -ct.sign * v1(ct.axis, ct.node)));
  return report;
}

}  // namespace fsicut::solid
