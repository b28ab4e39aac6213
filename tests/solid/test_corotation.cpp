#include <doctest/doctest.h>

#include <Eigen/Eigenvalues>
#include <cmath>

#include "tests/solid/solid_support.hpp"

using namespace fsicut;
using namespace fsicut::solid;

namespace {

constexpr Real PI = 3.14159265358979323846;
constexpr Real E = 1e5, RHO = 1000, NU = 0.3;

// A small free body: 0.3 x 0.2 x 0.25 m box, 2 x 2 x 2 cells (27 nodes, 48 tets).
Body small_body() {
  return test::box_body(test::solid_desc(RHO, E, NU), Vec3(0.1, -0.2, 0.3), Vec3(0.4, 0.0, 0.55), Vec3i(2, 2, 2));
}

void set_positions(Body& b, const Vector& q) {
  for (Index i = 0; i < b.num_nodes(); ++i) b.x.col(i) = q.segment<3>(3 * i);
  update_rotations(b);
}

Vector positions(const Body& b) {
  Vector q(3 * b.num_nodes());
  for (Index i = 0; i < b.num_nodes(); ++i) q.segment<3>(3 * i) = b.x.col(i);
  return q;
}

// Central differences of the elastic force, rotations recomputed at every
// evaluation: -df/dx, 3n x 3n dense.
Eigen::MatrixXd fd_stiffness(Body b, Real h) {
  const Vector q0 = positions(b);
  const Index n = q0.size();
  Eigen::MatrixXd K(n, n);
  for (Index j = 0; j < n; ++j) {
    Vector q = q0;
    q[j] += h;
    set_positions(b, q);
    const Vector fp = elastic_forces(b);
    q[j] -= 2 * h;
    set_positions(b, q);
    const Vector fm = elastic_forces(b);
    K.col(j) = -(fp - fm) / (2 * h);
  }
  return K;
}

Mat3 axis_angle(const Vec3& axis, Real degrees) {
  return Eigen::AngleAxisd(degrees * PI / 180, axis.normalized()).toRotationMatrix();
}

}  // namespace

TEST_CASE("polar_rotation: proper rotations for stretched, inverted and flat deformation gradients") {
  const Mat3 Q = axis_angle(Vec3(1, 2, 3), 75);
  const Mat3 S = (Mat3() << 1.3, 0.1, 0.0, 0.1, 0.8, 0.05, 0.0, 0.05, 1.1).finished();  // SPD stretch
  const Mat3 R = polar_rotation(Q * S);
  CHECK((R - Q).norm() < 1e-12);

  const Mat3 flip = Vec3(1, 1, -0.2).asDiagonal();  // inverted along z
  const Mat3 Ri = polar_rotation(Q * flip);
  CHECK(Ri.determinant() == doctest::Approx(1).epsilon(1e-12));
  CHECK((Ri.transpose() * Ri - Mat3::Identity()).norm() < 1e-12);
  CHECK((Ri - Q).norm() < 1e-12);  // the smallest stretch is the one flipped

  const Mat3 flat = Q * Vec3(1, 0.5, 0).asDiagonal();  // collapsed to a plane
  const Mat3 Rf = polar_rotation(flat);
  CHECK(Rf.determinant() == doctest::Approx(1).epsilon(1e-12));
  CHECK((Rf - Q).norm() < 1e-12);

  const Mat3 Rz = polar_rotation(Mat3::Zero());  // fully degenerate: any rotation, but a rotation
  CHECK(Rz.determinant() == doctest::Approx(1).epsilon(1e-12));
  CHECK(Rz.allFinite());
}

TEST_CASE("elastic forces vanish under rigid motions up to 180 degrees") {
  Body b = small_body();
  const Real L = (b.mesh.rest.rowwise().maxCoeff() - b.mesh.rest.rowwise().minCoeff()).maxCoeff();
  const Vec3 t(3.0, -1.5, 7.25);
  Real worst = 0, worst_energy = 0;
  for (const Vec3& axis : {Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0, 0, 1), Vec3(1, -2, 0.5)})
    for (Real deg : {0.0, 30.0, 90.0, 135.0, 179.0, 180.0}) {
      const Mat3 Q = axis_angle(axis, deg);
      b.x = (Q * b.mesh.rest).colwise() + t;
      update_rotations(b);
      worst = std::max(worst, elastic_forces(b).cwiseAbs().maxCoeff() / (E * L * L));
      worst_energy = std::max(worst_energy, elastic_energy(b) / (E * L * L * L));
    }
  MESSAGE("max |f| / (E L^2) over rigid motions: " << worst << ", max energy / (E L^3): " << worst_energy);
  CHECK(worst < 1e-10);
  CHECK(worst_energy < 1e-20);
}

TEST_CASE("stiffness at rest: symmetric, matches finite differences, PSD with exactly 6 zero modes") {
  Body b = small_body();
  const Eigen::MatrixXd K = Eigen::MatrixXd(stiffness(b));
  const Real scale = K.cwiseAbs().maxCoeff();
  CHECK((K - K.transpose()).cwiseAbs().maxCoeff() <= 1e-14 * scale);

  const Real h = 1e-6 * 0.1;  // 1e-6 of the cell size
  const Real fd_error = (fd_stiffness(b, h) - K).cwiseAbs().maxCoeff() / scale;
  MESSAGE("finite-difference stiffness error at rest (max-norm relative): " << fd_error);
  CHECK(fd_error < 1e-6);

  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(K);
  const Vector& lambda = eig.eigenvalues();
  const Real zero_tol = 1e-10 * lambda.maxCoeff();
  int zeros = 0;
  for (Index i = 0; i < lambda.size(); ++i) zeros += std::abs(lambda[i]) <= zero_tol;
  MESSAGE("eigenvalues: min " << lambda[0] << ", 6th " << lambda[5] << ", 7th " << lambda[6] << ", max "
                              << lambda.maxCoeff());
  CHECK(lambda.minCoeff() >= -zero_tol);
  CHECK(zeros == 6);
  CHECK(lambda[6] > 1e-4 * lambda.maxCoeff());

  // The zero modes are the rigid motions: K kills translations and infinitesimal rotations.
  for (int d = 0; d < 3; ++d) {
    Vector trans = Vector::Zero(K.rows()), rot(K.rows());
    Vec3 w = Vec3::Zero();
    w[d] = 1;
    for (Index i = 0; i < b.num_nodes(); ++i) {
      trans[3 * i + d] = 1;
      rot.segment<3>(3 * i) = w.cross(Vec3(b.mesh.rest.col(i)));
    }
    CHECK((K * trans).norm() <= 1e-12 * scale);
    CHECK((K * rot).norm() <= 1e-12 * scale);
  }
}

TEST_CASE("stiffness after a rigid rotation is the rotated rest stiffness and still the force Jacobian") {
  Body b = small_body();
  const Mat3 Q = axis_angle(Vec3(0.3, 1, -0.4), 120);
  b.x = (Q * b.mesh.rest).colwise() + Vec3(1, 2, 3);
  update_rotations(b);
  const Eigen::MatrixXd K = Eigen::MatrixXd(stiffness(b));
  const Real scale = K.cwiseAbs().maxCoeff();
  const Real fd_error = (fd_stiffness(b, 1e-7) - K).cwiseAbs().maxCoeff() / scale;
  MESSAGE("finite-difference stiffness error after a 120 degree rotation: " << fd_error);
  CHECK(fd_error < 1e-6);
  CHECK((K - K.transpose()).cwiseAbs().maxCoeff() <= 1e-14 * scale);
}

TEST_CASE("elastic force is minus the gradient of the corotated energy, also far from rest") {
  Body b = small_body();
  // A large, non-rigid deformation: twist plus stretch plus a rotation.
  for (Index i = 0; i < b.num_nodes(); ++i) {
    const Vec3 X = b.mesh.rest.col(i);
    const Mat3 twist = axis_angle(Vec3(1, 0, 0), 40 * (X.x() - 0.1) / 0.3);
    b.x.col(i) = axis_angle(Vec3(0, 1, 1), 60) * twist * Vec3(1.2 * X.x(), 0.9 * X.y(), X.z());
  }
  update_rotations(b);
  const Vector f = elastic_forces(b);
  const Vector q0 = positions(b);
  Real worst = 0;
  const Real h = 1e-7;
  for (Index j = 0; j < q0.size(); ++j) {
    Vector q = q0;
    q[j] += h;
    set_positions(b, q);
    const Real ep = elastic_energy(b);
    q[j] -= 2 * h;
    set_positions(b, q);
    const Real em = elastic_energy(b);
    worst = std::max(worst, std::abs(-(ep - em) / (2 * h) - f[j]));
  }
  MESSAGE("|f + dE/dx| max " << worst << " vs |f| max " << f.cwiseAbs().maxCoeff());
  CHECK(worst < 1e-6 * f.cwiseAbs().maxCoeff());

  // Internal forces: no net force, no net torque.
  Vec3 net = Vec3::Zero(), torque = Vec3::Zero();
  for (Index i = 0; i < b.num_nodes(); ++i) {
    net += f.segment<3>(3 * i);
    torque += Vec3(q0.segment<3>(3 * i)).cross(Vec3(f.segment<3>(3 * i)));
  }
  const Real fscale = f.cwiseAbs().maxCoeff();
  MESSAGE("net force " << net.norm() << " N, net torque " << torque.norm() << " N m (|f| max " << fscale << " N)");
  CHECK(net.norm() < 1e-10 * fscale);
  CHECK(torque.norm() < 1e-10 * fscale);
}

TEST_CASE("free stiffness is the full stiffness restricted to the free dofs") {
  scene::SolidDesc d = test::solid_desc(RHO, E, NU);
  d.pinned = {test::pin_box(Vec3(-1, -1, -1), Vec3(0.0, 1, 1))};  // the x = 0 face
  Body b = test::box_body(d, Vec3(0, 0, 0), Vec3(0.3, 0.1, 0.1), Vec3i(3, 1, 1));
  for (Index i = 0; i < b.num_nodes(); ++i) b.x.col(i) += 0.01 * Vec3(std::sin(3.0 * i), std::cos(5.0 * i), 0.5);
  update_rotations(b);
  REQUIRE(b.dofs.num_free_nodes() == b.num_nodes() - 4);
  const Eigen::MatrixXd K = Eigen::MatrixXd(stiffness(b));
  const Eigen::MatrixXd Kf = Eigen::MatrixXd(free_stiffness(b));
  REQUIRE(Kf.rows() == b.dofs.num_free_dofs());
  Real diff = 0;
  for (int r = 0; r < Kf.rows(); ++r)
    for (int c = 0; c < Kf.cols(); ++c)
      diff = std::max(diff, std::abs(Kf(r, c) - K(b.dofs.node_dof(r), b.dofs.node_dof(c))));
  CHECK(diff == 0);
}
