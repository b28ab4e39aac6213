// Domain-wall contact of a reduced body (reduced.hpp's collide_reduced_walls):
// the frame shifted back inside, then the walls' normal impulses from the
// contact LCP, solved as a least-distance problem by non-negative least squares.
#include <Eigen/Cholesky>
#include <algorithm>
#include <vector>

#include "lib/linsolve/nnls.hpp"
#include "lib/solid/reduced.hpp"

namespace fsicut::solid {
namespace {

// Wall contact's least-distance problem is infeasible when 1 + b . u, the
// NNLS residual's last entry, vanishes; below this it is taken as zero.
constexpr Real CONTACT_FEASIBILITY = 1e-12;

using Matrix = Eigen::MatrixXd;

}  // namespace

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
  const linsolve::NnlsResult nnls = linsolve::nonnegative_least_squares(E, e);
  const Vector& u = nnls.x;
  report.iterations = nnls.iterations;
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
