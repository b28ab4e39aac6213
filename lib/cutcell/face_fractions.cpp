#include "lib/cutcell/face_fractions.hpp"

#include <algorithm>

#include "lib/core/parallel.hpp"

namespace fsicut::cutcell {

Real fraction_inside(Real a, Real b) {
  if (a < 0 && b < 0) return 1;
  if (a < 0 && b >= 0) return a / (a - b);
  if (a >= 0 && b < 0) return b / (b - a);
  return 0;
}

Real fraction_inside(Real p00, Real p10, Real p11, Real p01) {
  Real c[4] = {p00, p10, p11, p01};  // cyclic order around the square
  const int inside = (c[0] < 0) + (c[1] < 0) + (c[2] < 0) + (c[3] < 0);
  auto rotate = [&c] { std::rotate(c, c + 1, c + 4); };
  switch (inside) {
    case 0: return 0;
    case 4: return 1;
    case 1: {
      // One inside corner: a triangle cut off by the two edges meeting there.
      while (!(c[0] < 0)) rotate();
      return 0.5 * fraction_inside(c[0], c[3]) * fraction_inside(c[0], c[1]);
    }
    case 3: {
      // One outside corner: 1 minus the outside triangle.
      while (c[0] < 0) rotate();
      return 1 - 0.5 * (1 - fraction_inside(c[0], c[3])) * (1 - fraction_inside(c[0], c[1]));
    }
    default: {
      // Two inside corners: put one at c[0] with the other at c[1] (adjacent) or c[2] (opposite).
      while (!(c[0] < 0) || !(c[1] < 0 || c[2] < 0)) rotate();
      if (c[1] < 0) {
        // Adjacent: a trapezoid between the edges (c0,c3) and (c1,c2).
        return 0.5 * (fraction_inside(c[0], c[3]) + fraction_inside(c[1], c[2]));
      }
      // Opposite corners (saddle): the sign of the centre value decides whether the
      // inside corners are joined (1 minus two outside triangles) or separate.
      const Real middle = 0.25 * (c[0] + c[1] + c[2] + c[3]);
      if (middle < 0) {
        const Real out1 = 0.5 * (1 - fraction_inside(c[0], c[3])) * (1 - fraction_inside(c[2], c[3]));
        const Real out2 = 0.5 * (1 - fraction_inside(c[2], c[1])) * (1 - fraction_inside(c[0], c[1]));
        return 1 - out1 - out2;
      }
      const Real in1 = 0.5 * fraction_inside(c[0], c[1]) * fraction_inside(c[0], c[3]);
      const Real in2 = 0.5 * fraction_inside(c[2], c[1]) * fraction_inside(c[2], c[3]);
      return in1 + in2;
    }
  }
}

Real open_face_fraction(const grid::MacGrid& grid, const grid::Array3<Real>& solid_phi, int a, const Vec3i& x) {
  if (x[a] == 0 || x[a] == grid.resolution[a]) return 0;  // domain wall: closed
  // The face of axis a at index (i,j,k) has corners at nodes (i,j,k) + s*e_b + t*e_c,
  // s, t in {0, 1}, with b, c the two other axes.
  const Vec3i eb = Vec3i::Unit((a + 1) % 3), ec = Vec3i::Unit((a + 2) % 3);
  const Real solid = fraction_inside(solid_phi(x), solid_phi(Vec3i(x + eb)), solid_phi(Vec3i(x + eb + ec)),
                                     solid_phi(Vec3i(x + ec)));
  Real open = 1 - solid;
  if (open < FRACTION_CLAMP_LOW) open = 0;
  if (open > FRACTION_CLAMP_HIGH) open = 1;
  return open;
}

void compute_face_fractions(const grid::MacGrid& grid, const grid::Array3<Real>& solid_phi,
                            FaceFractions& fractions) {
  for (int a = 0; a < 3; ++a) {
    auto& f = fractions[a];
    f.resize(grid.face_shape(a));
    parallel_for(0, f.count(), [&](Index idx) { f[idx] = open_face_fraction(grid, solid_phi, a, f.coord(idx)); });
  }
}

void update_face_fractions(const grid::MacGrid& grid, const grid::Array3<Real>& solid_phi, const Vec3i& lo,
                           const Vec3i& hi, FaceFractions& fractions) {
  for (int a = 0; a < 3; ++a) {
    auto& f = fractions[a];
    const Vec3i first = (lo - Vec3i::Ones()).cwiseMax(Vec3i::Zero());
    const Vec3i last = hi.cwiseMin(Vec3i(f.size() - Vec3i::Ones()));
    if ((first.array() > last.array()).any()) continue;
    const Vec3i span = last - first + Vec3i::Ones();
    parallel_for(0, static_cast<Index>(span.y()) * span.z(), [&](Index row) {
      const int j = first.y() + static_cast<int>(row % span.y()), k = first.z() + static_cast<int>(row / span.y());
      for (int i = first.x(); i <= last.x(); ++i) f(i, j, k) = open_face_fraction(grid, solid_phi, a, Vec3i(i, j, k));
    });
  }
}

}  // namespace fsicut::cutcell
