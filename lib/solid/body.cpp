#include "lib/solid/body.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "lib/core/error.hpp"
#include "lib/mesh/quadratic.hpp"
#include "lib/solid/corotation.hpp"
#include "lib/solid/layout.hpp"

namespace fsicut::solid {

Vector DofMap::gather(const Points& p) const {
  Vector out(num_free_dofs());
  for (int k = 0; k < num_free_nodes(); ++k) out.segment<3>(3 * k) = p.col(free_nodes[k]);
  return out;
}

void DofMap::scatter(const Vector& v, Points& p) const {
  for (int k = 0; k < num_free_nodes(); ++k) p.col(free_nodes[k]) = v.segment<3>(3 * k);
}

Real lame_lambda(Real E, Real nu) { return E * nu / ((1 + nu) * (1 - 2 * nu)); }
Real lame_mu(Real E, Real nu) { return E / (2 * (1 + nu)); }

Mat12 tet_stiffness(const Mat3& Dm_inv, Real rest_volume, Real lambda, Real mu) {
  // Shape function gradients: rows of Dm^-1 for nodes 1..3, node 0 their negated sum.
  Eigen::Matrix<Real, 3, 4> g;
  g.rightCols<3>() = Dm_inv.transpose();
  g.col(0) = -g.rightCols<3>().rowwise().sum();
  Mat12 K;
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 4; ++b)
      K.block<3, 3>(3 * a, 3 * b) =
          rest_volume * (lambda * g.col(a) * g.col(b).transpose() + mu * g.col(b) * g.col(a).transpose() +
                         mu * g.col(a).dot(g.col(b)) * Mat3::Identity());
  return K;
}

Mat30 quadratic_tet_stiffness(const Mat3& Dm_inv, Real rest_volume, Real lambda, Real mu) {
  Eigen::Matrix<Real, 3, 4> g;  // barycentric coordinates' gradients
  g.rightCols<3>() = Dm_inv.transpose();
  g.col(0) = -g.rightCols<3>().rowwise().sum();
  const Real lambda_full = std::min(lambda, QUADRATIC_FULL_LAMBDA_PER_MU * mu);
  const Real lambda_mean = lambda - lambda_full;
  // Shear and the compressible part of the volumetric term: degree-2 exact
  // rule, the 4 points with barycentric coordinates (a, b, b, b) permuted.
  const Real a = 0.5854101966249685, b = 0.1381966011250105;
  Mat30 K = Mat30::Zero();
  for (int q = 0; q < 4; ++q) {
    Eigen::Vector4d L = Eigen::Vector4d::Constant(b);
    L[q] = a;
    Eigen::Matrix<Real, 3, 10> G;  // shape function gradients at the point
    for (int c = 0; c < 4; ++c) G.col(c) = (4 * L[c] - 1) * g.col(c);
    for (int e = 0; e < 6; ++e) {
      const int i = mesh::TET10_EDGES[e][0], j = mesh::TET10_EDGES[e][1];
      G.col(4 + e) = 4 * (L[j] * g.col(i) + L[i] * g.col(j));
    }
    const Real w = rest_volume / 4;
    for (int r = 0; r < 10; ++r)
      for (int c = 0; c < 10; ++c)
        K.block<3, 3>(3 * r, 3 * c) += w * (lambda_full * G.col(r) * G.col(c).transpose() +
                                             mu * G.col(c) * G.col(r).transpose() +
                                             mu * G.col(r).dot(G.col(c)) * Mat3::Identity());
  }
  // The rest of the volumetric term on the element's mean dilatation: the
  // shape functions' mean gradients are 0 for the corners and g_i + g_j for
  // the mid-edge node of (i j).
  if (lambda_mean > 0) {
    Eigen::Matrix<Real, 3, 6> mean;
    for (int e = 0; e < 6; ++e) mean.col(e) = g.col(mesh::TET10_EDGES[e][0]) + g.col(mesh::TET10_EDGES[e][1]);
    for (int r = 0; r < 6; ++r)
      for (int c = 0; c < 6; ++c)
        K.block<3, 3>(3 * (4 + r), 3 * (4 + c)) += rest_volume * lambda_mean * mean.col(r) * mean.col(c).transpose();
  }
  return K;
}

namespace {

std::string solid_label(const std::string& name) { return "solid '" + name + "'"; }

}  // namespace

void set_pinned(Body& body, const std::vector<char>& pinned) {
  const Index n = body.num_nodes();
  if (static_cast<Index>(pinned.size()) != n)
    throw std::invalid_argument("set_pinned: one flag per node expected");
  body.pinned = pinned;
  body.dofs.free_index.assign(n, -1);
  body.dofs.free_nodes.clear();
  for (Index i = 0; i < n; ++i) {
    if (pinned[i]) {
      body.v.col(i).setZero();
    } else {
      body.dofs.free_index[i] = body.dofs.num_free_nodes();
      body.dofs.free_nodes.push_back(static_cast<int>(i));
    }
  }
  std::vector<char> free(n);
  for (Index i = 0; i < n; ++i) free[i] = !pinned[i];
  body.layout_free = std::make_shared<const detail::BlockLayout>(detail::make_layout(body.mesh, free));
}

namespace {

// Rest volumes, inverse edge matrices and rest stiffnesses of every element.
void compute_rest_elements(Body& body, const std::string& label) {
  const Index m = body.num_tets();
  body.rest_volume.resize(m);
  body.Dm_inv.resize(m);
  if (body.quadratic())
    body.K0q.resize(m);
  else
    body.K0.resize(m);
  body.R.assign(m, Mat3::Identity());
  const Real lambda = lame_lambda(body.youngs_modulus, body.poisson_ratio);
  const Real mu = lame_mu(body.youngs_modulus, body.poisson_ratio);
  const Points& X = body.mesh.rest;
  for (Index t = 0; t < m; ++t) {
    const mesh::Tet& tet = body.mesh.tets[t];
    Mat3 Dm;
    for (int c = 0; c < 3; ++c) Dm.col(c) = X.col(tet[c + 1]) - X.col(tet[0]);
    const Real volume = Dm.determinant() / 6;
    // A flat or inverted rest tet has no inverse edge matrix and no meaningful mass.
    if (!(volume > 0))
      throw MeshError(label + ": tet " + std::to_string(t) + " has non-positive rest volume " +
                      std::to_string(volume) + " m^3 (cells too small to represent at these coordinates?)");
    body.rest_volume[t] = volume;
    body.Dm_inv[t] = Dm.inverse();
    if (body.quadratic())
      body.K0q[t] = quadratic_tet_stiffness(body.Dm_inv[t], volume, lambda, mu);
    else
      body.K0[t] = tet_stiffness(body.Dm_inv[t], volume, lambda, mu);
  }
}

// Lumped node masses from the rest volumes and the density.
void lump_masses(Body& body, const std::string& label) {
  const Index m = body.num_tets(), n = body.num_nodes();
  body.mass = Vector::Zero(n);
  for (Index t = 0; t < m; ++t) {
    const Real element_mass = body.density * body.rest_volume[t];
    if (body.quadratic()) {
      // HRZ: the consistent mass's diagonal, rho int N_i^2 = rho V / 70
      // (corners) and 8 rho V / 105 (mid-edge nodes), scaled to sum to rho V.
      const mesh::Tet10& q = body.mesh.quadratic[t];
      for (int a = 0; a < 4; ++a) body.mass[q[a]] += element_mass / 36;
      for (int a = 4; a < 10; ++a) body.mass[q[a]] += element_mass * 4 / 27;
    } else {
      for (int a = 0; a < 4; ++a) body.mass[body.mesh.tets[t][a]] += element_mass / 4;
    }
  }
  for (Index i = 0; i < n; ++i)
    if (!(body.mass[i] > 0)) throw MeshError(label + ": node " + std::to_string(i) + " belongs to no tet");
}

}  // namespace

Body make_body(const BodySpec& spec, mesh::TetMesh mesh) {
  const std::string label = solid_label(spec.name);
  const Index given_nodes = mesh.rest.cols();
  if (given_nodes == 0 || mesh.tets.empty()) throw MeshError(label + ": tet mesh is empty");
  for (size_t t = 0; t < mesh.tets.size(); ++t)
    for (int a = 0; a < 4; ++a)
      if (mesh.tets[t][a] < 0 || mesh.tets[t][a] >= given_nodes)
        throw MeshError(label + ": tet " + std::to_string(t) + " has node index out of range");

  Body body;
  body.name = spec.name;
  body.mesh = spec.element == ElementOrder::quadratic ? mesh::make_quadratic(std::move(mesh)) : std::move(mesh);
  body.density = spec.density;
  body.youngs_modulus = spec.youngs_modulus;
  body.poisson_ratio = spec.poisson_ratio;
  body.tau_m = spec.tau_m;
  body.tau_k = spec.tau_k;
  compute_rest_elements(body, label);
  lump_masses(body, label);

  const Index n = body.num_nodes();
  const Points& X = body.mesh.rest;
  body.x = X;
  body.v = spec.velocity.replicate(1, n);
  if (spec.initial_scale != 1) {
    const Vec3 c = X * body.mass / body.mass.sum();
    body.x = ((X.colwise() - c) * spec.initial_scale).colwise() + c;
  }

  std::vector<char> pinned(n, 0);
  if (spec.pinned)
    for (Index i = 0; i < n; ++i)
      if (spec.pinned(X.col(i))) pinned[i] = 1;
  // Pinned nodes never move: they stay at their rest positions even when the
  // rest of the body starts scaled.
  for (Index i = 0; i < n; ++i)
    if (pinned[i]) body.x.col(i) = X.col(i);

  std::vector<char> all(n, 1);
  body.layout_all = std::make_shared<const detail::BlockLayout>(detail::make_layout(body.mesh, all));
  set_pinned(body, pinned);
  update_rotations(body);
  return body;
}

BodyStats stats(const Body& body) {
  BodyStats s;
  const Real total = body.total_mass();
  s.centroid = body.x * body.mass / total;
  s.mean_velocity = body.v * body.mass / total;
  s.kinetic_energy = 0.5 * (body.v.colwise().squaredNorm().transpose().array() * body.mass.array()).sum();
  s.linear_momentum = body.v * body.mass;
  for (Index i = 0; i < body.num_nodes(); ++i)
    s.angular_momentum += body.mass[i] * (body.x.col(i) - s.centroid).cross(body.v.col(i));
  Real volume = 0;
  mesh::for_each_linear_tet(body.mesh, [&](int i, int j, int k, int l) {
    const Vec3 a = body.x.col(i);
    volume += (body.x.col(j) - a).dot((body.x.col(k) - a).cross(body.x.col(l) - a)) / 6;
  });
  s.volume = volume;
  s.elastic_energy = elastic_energy(body);
  for (Index t = 0; t < body.num_tets(); ++t) {
    const Mat3 F = deformation_gradient(body, t);
    // A NaN element must not hide behind max (nor inside the SVD's iteration).
    if (!F.allFinite()) {
      s.max_strain = std::numeric_limits<Real>::quiet_NaN();
      break;
    }
    // Singular values as the square roots of F^T F's eigenvalues (ascending).
    Eigen::SelfAdjointEigenSolver<Mat3> eig;
    eig.computeDirect(F.transpose() * F, Eigen::EigenvaluesOnly);
    Vec3 stretch = eig.eigenvalues().cwiseMax(0).cwiseSqrt();
    if (F.determinant() < 0) stretch.x() = -stretch.x();
    s.max_strain = std::max(s.max_strain, (stretch.array() - 1).abs().maxCoeff());
  }
  return s;
}

void check_finite(const Body& body) {
  for (Index i = 0; i < body.num_nodes(); ++i) {
    if (!body.x.col(i).allFinite())
      throw SimulationError(solid_label(body.name) + ": non-finite position at node " + std::to_string(i));
    if (!body.v.col(i).allFinite())
      throw SimulationError(solid_label(body.name) + ": non-finite velocity at node " + std::to_string(i));
  }
}

}  // namespace fsicut::solid
