#include "lib/mesh/barycentric.hpp"

namespace fsicut::mesh {

Vec3 barycentric(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c) {
  const Vec3 e0 = b - a, e1 = c - a, d = p - a;
  const Real d00 = e0.dot(e0), d01 = e0.dot(e1), d11 = e1.dot(e1);
  const Real d20 = d.dot(e0), d21 = d.dot(e1);
  const Real det = d00 * d11 - d01 * d01;
  if (!(det > 0)) return {1, 0, 0};  // degenerate triangle: its first node
  const Real v = (d11 * d20 - d01 * d21) / det, w = (d00 * d21 - d01 * d20) / det;
  return {1 - v - w, v, w};
}

}  // namespace fsicut::mesh
