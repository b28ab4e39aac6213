#include "lib/solid/corotation.hpp"

#include <Eigen/SVD>

#include "lib/solid/layout.hpp"

namespace fsicut::solid {
namespace {

// R^T x_e - X_e: the element's displacement in its unrotated frame. Positions
// are taken relative to node 0 in both frames: the constant offset is a
// translation, which K0 ignores, and keeping coordinates small avoids
// cancellation for bodies far from the origin.
Vec12 unrotated_displacement(const Body& body, Index t) {
  const mesh::Tet& tet = body.mesh.tets[t];
  const Mat3& R = body.R[t];
  const Vec3 x0 = body.x.col(tet[0]), X0 = body.mesh.rest.col(tet[0]);
  Vec12 u;
  for (int a = 0; a < 4; ++a)
    u.segment<3>(3 * a) = R.transpose() * (body.x.col(tet[a]) - x0) - (body.mesh.rest.col(tet[a]) - X0);
  return u;
}

}  // namespace

Mat3 polar_rotation(const Mat3& F) {
  Eigen::JacobiSVD<Mat3> svd(F, Eigen::ComputeFullU | Eigen::ComputeFullV);
  const Mat3& U = svd.matrixU();
  const Mat3& V = svd.matrixV();
  // Singular values come sorted in decreasing order: for an inverted F flip
  // the direction of the smallest one, the least deformation to undo.
  Eigen::Vector3d s(1, 1, (U * V.transpose()).determinant() < 0 ? -1 : 1);
  return U * s.asDiagonal() * V.transpose();
}

Mat3 deformation_gradient(const Body& body, Index t) {
  const mesh::Tet& tet = body.mesh.tets[t];
  Mat3 Ds;
  for (int c = 0; c < 3; ++c) Ds.col(c) = body.x.col(tet[c + 1]) - body.x.col(tet[0]);
  return Ds * body.Dm_inv[t];
}

void update_rotations(Body& body) {
  detail::for_each_index(body.num_tets(), [&](Index t) { body.R[t] = polar_rotation(deformation_gradient(body, t)); });
}

Vector elastic_forces(const Body& body) {
  const Index m = body.num_tets();
  // Element forces in parallel, then a per-node gather (no write races).
  std::vector<Vec12> fe(m);
  detail::for_each_index(m, [&](Index t) {
    const Vec12 f0 = -(body.K0[t] * unrotated_displacement(body, t));
    for (int a = 0; a < 4; ++a) fe[t].segment<3>(3 * a) = body.R[t] * f0.segment<3>(3 * a);
  });
  const detail::BlockLayout& L = *body.layout_all;
  Vector f = Vector::Zero(3 * body.num_nodes());
  detail::for_each_index(L.num_blocks(), [&](Index r) {
    Vec3 sum = Vec3::Zero();
    for (int k = L.incidence_start[r]; k < L.incidence_start[r + 1]; ++k)
      sum += fe[L.incidence[k][0]].segment<3>(3 * L.incidence[k][1]);
    f.segment<3>(3 * L.node_of_block[r]) = sum;
  });
  return f;
}

Real elastic_energy(const Body& body) {
  Real energy = 0;
  const Index m = body.num_tets();
#pragma omp parallel for schedule(static) reduction(+ : energy) if (m >= detail::MIN_PARALLEL_ITEMS)
  for (Index t = 0; t < m; ++t) {
    const Vec12 u = unrotated_displacement(body, t);
    energy += 0.5 * u.dot(body.K0[t] * u);
  }
  return energy;
}

SparseMatrix stiffness(const Body& body) { return detail::assemble_stiffness(body, *body.layout_all); }

SparseMatrix free_stiffness(const Body& body) { return detail::assemble_stiffness(body, *body.layout_free); }

}  // namespace fsicut::solid
