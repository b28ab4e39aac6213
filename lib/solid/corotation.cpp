#include "lib/solid/corotation.hpp"

#include <Eigen/SVD>

#include "lib/mesh/quadratic.hpp"
#include "lib/solid/layout.hpp"

namespace fsicut::solid {
namespace {

// R^T x_e - X_e: the element's displacement in its unrotated frame. Positions
// are taken relative to node 0 in both frames: the constant offset is a
// translation, which K0 ignores, and keeping coordinates small avoids
// cancellation for bodies far from the origin.
template <int N>
typename detail::Element<N>::Forces unrotated_displacement(const Body& body, Index t) {
  using E = detail::Element<N>;
  const Mat3& R = body.R[t];
  const int i0 = E::node(body, t, 0);
  const Vec3 x0 = body.x.col(i0), X0 = body.mesh.rest.col(i0);
  typename E::Forces u;
  for (int a = 0; a < N; ++a) {
    const int i = E::node(body, t, a);
    u.template segment<3>(3 * a) = R.transpose() * (body.x.col(i) - x0) - (body.mesh.rest.col(i) - X0);
  }
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
  if (body.quadratic()) {
    // At the centroid the corners' shape function gradients (4 L - 1) g
    // vanish and the mid-edge node of (a b) has 4 (L_b g_a + L_a g_b) =
    // g_a + g_b, g the corner tet's barycentric gradients (rows of Dm^-1,
    // g_0 their negated sum). Positions relative to a corner keep it exact
    // far from the origin (the gradients of a rigid shift sum to zero).
    const mesh::Tet10& q = body.mesh.quadratic[static_cast<std::size_t>(t)];
    Eigen::Matrix<Real, 3, 4> g;
    g.rightCols<3>() = body.Dm_inv[t].transpose();
    g.col(0) = -g.rightCols<3>().rowwise().sum();
    const Vec3 x0 = body.x.col(q[0]);
    Mat3 F = Mat3::Zero();
    for (int e = 0; e < 6; ++e)
      F += (body.x.col(q[4 + e]) - x0) * (g.col(mesh::TET10_EDGES[e][0]) + g.col(mesh::TET10_EDGES[e][1])).transpose();
    return F;
  }
  const mesh::Tet& tet = body.mesh.tets[t];
  Mat3 Ds;
  for (int c = 0; c < 3; ++c) Ds.col(c) = body.x.col(tet[c + 1]) - body.x.col(tet[0]);
  return Ds * body.Dm_inv[t];
}

void update_rotations(Body& body) {
  detail::for_each_index(body.num_tets(), [&](Index t) { body.R[t] = polar_rotation(deformation_gradient(body, t)); });
}

Vector elastic_forces(const Body& body) {
  return detail::with_element(body, [&](auto n) {
    constexpr int N = decltype(n)::value;
    using E = detail::Element<N>;
    const Index m = body.num_tets();
    // Element forces in parallel, then a per-node gather (no write races).
    std::vector<typename E::Forces, Eigen::aligned_allocator<typename E::Forces>> fe(m);
    detail::for_each_index(m, [&](Index t) {
      const typename E::Forces f0 = -(E::K0(body, t) * unrotated_displacement<N>(body, t));
      for (int a = 0; a < N; ++a) fe[t].template segment<3>(3 * a) = body.R[t] * f0.template segment<3>(3 * a);
    });
    const detail::BlockLayout& L = *body.layout_all;
    Vector f = Vector::Zero(3 * body.num_nodes());
    detail::for_each_index(L.num_blocks(), [&](Index r) {
      Vec3 sum = Vec3::Zero();
      for (int k = L.incidence_start[r]; k < L.incidence_start[r + 1]; ++k)
        sum += fe[L.incidence[k][0]].template segment<3>(3 * L.incidence[k][1]);
      f.segment<3>(3 * L.node_of_block[r]) = sum;
    });
    return f;
  });
}

Real elastic_energy(const Body& body) {
  return detail::with_element(body, [&](auto n) {
    constexpr int N = decltype(n)::value;
    Real energy = 0;
    const Index m = body.num_tets();
#pragma omp parallel for schedule(static) reduction(+ : energy) if (m >= detail::MIN_PARALLEL_ITEMS)
    for (Index t = 0; t < m; ++t) {
      const auto u = unrotated_displacement<N>(body, t);
      energy += 0.5 * u.dot(detail::Element<N>::K0(body, t) * u);
    }
    return energy;
  });
}

SparseMatrix stiffness(const Body& body) { return detail::assemble_stiffness(body, *body.layout_all); }

SparseMatrix free_stiffness(const Body& body) { return detail::assemble_stiffness(body, *body.layout_free); }

}  // namespace fsicut::solid
