// A reduced body's kinematics and dynamics (reduced.hpp): reconstruction of
// the nodes, momenta and energies, the momentum-conserving impulse split and
// its impulse-response operator, and the two halves of a time step.
#include "lib/solid/reduced.hpp"

#include <Eigen/Cholesky>
#include <stdexcept>

#include "lib/solid/corotation.hpp"

namespace fsicut::solid {

namespace {

using Matrix = Eigen::MatrixXd;

Eigen::Matrix3d cross_matrix(const Vec3& a) {
  Eigen::Matrix3d m;
  m << 0, -a.z(), a.y(), a.z(), 0, -a.x(), -a.y(), a.x(), 0;
  return m;
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

Matrix rigid_velocity_fields(const Points& arms) {
  const Index n = arms.cols();
  Matrix Phi = Matrix::Zero(3 * n, RIGID_MODES);
  for (Index i = 0; i < n; ++i) {
    Phi.block<3, 3>(3 * i, 0).setIdentity();
    Phi.block<3, 3>(3 * i, 3) = -cross_matrix(arms.col(i));  // column d: e_d x r_i
  }
  return Phi;
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
    out.W.leftCols(RIGID_MODES) = rigid_velocity_fields(f.r);
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
}  // namespace fsicut::solid
