#pragma once
// Barycentric coordinates in a triangle.
#include "lib/core/types.hpp"

namespace fsicut::mesh {

// Barycentric coordinates (l0, l1, l2), summing to 1, of the projection of p
// onto the plane of triangle abc: p' = l0 a + l1 b + l2 c (p itself when it
// lies in the plane). Outside the triangle some are negative. A degenerate
// triangle (zero area) gives (1, 0, 0), its first node.
Vec3 barycentric(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c);

}  // namespace fsicut::mesh
