#include "lib/grid/mac_grid.hpp"

#include <algorithm>
#include <cmath>

#include "lib/core/parallel.hpp"

namespace fsicut::grid {

Sampling face_sampling(int axis) {
  return axis == 0 ? Sampling::face_x : axis == 1 ? Sampling::face_y : Sampling::face_z;
}

Vec3 sample_offset(Sampling s) {
  switch (s) {
    case Sampling::cell: return {0.5, 0.5, 0.5};
    case Sampling::node: return {0, 0, 0};
    case Sampling::face_x: return {0, 0.5, 0.5};
    case Sampling::face_y: return {0.5, 0, 0.5};
    case Sampling::face_z: return {0.5, 0.5, 0};
  }
  return {0, 0, 0};
}

Vec3i MacGrid::shape(Sampling s) const {
  switch (s) {
    case Sampling::cell: return cell_shape();
    case Sampling::node: return node_shape();
    case Sampling::face_x: return face_shape(0);
    case Sampling::face_y: return face_shape(1);
    case Sampling::face_z: return face_shape(2);
  }
  return cell_shape();
}

Vec3i MacGrid::cell_of(const Vec3& x) const {
  Vec3i c;
  for (int a = 0; a < 3; ++a) {
    const int i = static_cast<int>(std::floor((x[a] - origin[a]) / dx));
    c[a] = std::clamp(i, 0, resolution[a] - 1);
  }
  return c;
}

MacVelocity make_velocity(const MacGrid& grid, Real value) {
  MacVelocity u;
  for (int a = 0; a < 3; ++a) u[a].resize(grid.face_shape(a), value);
  return u;
}

namespace {

// The stencil at g = (x - origin) / dx - offset [samples] on a lattice of n samples.
Stencil stencil_at(const Vec3& g, const Vec3i& n) {
  Stencil out;
  for (int a = 0; a < 3; ++a) {
    const Real ga = std::clamp(g[a], Real(0), Real(n[a] - 1));
    // ga >= 0, so truncation is the floor (without a libm call per axis; the
    // interpolations below run several times per particle and face).
    int i = static_cast<int>(ga);
    // A single sample along an axis, or x on the last sample: use the last cell.
    i = std::clamp(i, 0, std::max(n[a] - 2, 0));
    out.lo[a] = i;
    out.hi[a] = std::min(i + 1, n[a] - 1);
    out.t[a] = n[a] > 1 ? ga - i : 0;
  }
  return out;
}

Real sample(const Array3<Real>& f, const Stencil& st) {
  const Index base = f.index(st.lo.x(), st.lo.y(), st.lo.z());
  const Index di = st.hi.x() - st.lo.x();
  const Index dj = Index(st.hi.y() - st.lo.y()) * f.size().x();
  const Index dk = Index(st.hi.z() - st.lo.z()) * f.size().x() * f.size().y();
  const Vec3& t = st.t;
  const Real c00 = f[base] * (1 - t[0]) + f[base + di] * t[0];
  const Real c10 = f[base + dj] * (1 - t[0]) + f[base + dj + di] * t[0];
  const Real c01 = f[base + dk] * (1 - t[0]) + f[base + dk + di] * t[0];
  const Real c11 = f[base + dk + dj] * (1 - t[0]) + f[base + dk + dj + di] * t[0];
  const Real c0 = c00 * (1 - t[1]) + c10 * t[1];
  const Real c1 = c01 * (1 - t[1]) + c11 * t[1];
  return c0 * (1 - t[2]) + c1 * t[2];
}

}  // namespace

Stencil stencil(const MacGrid& grid, const Vec3i& n, Sampling s, const Vec3& x) {
  return stencil_at((x - grid.origin) / grid.dx - sample_offset(s), n);
}

Real interpolate(const MacGrid& grid, const Array3<Real>& f, Sampling s, const Vec3& x) {
  return sample(f, stencil(grid, f.size(), s, x));
}

Vec3 interpolate_velocity(const MacGrid& grid, const MacVelocity& u, const Vec3& x) {
  // One division for the three components (the same numbers as three stencil() calls).
  const Vec3 g = (x - grid.origin) / grid.dx;
  Vec3 v;
  for (int a = 0; a < 3; ++a) {
    Vec3 offset = Vec3::Constant(0.5);
    offset[a] = 0;
    v[a] = sample(u[a], stencil_at(g - offset, u[a].size()));
  }
  return v;
}

// Dilates `mask` by `radius` cells in the Chebyshev metric: along each axis in
// turn, every line is swept both ways keeping the distance to the last set cell.
void dilate(Array3<char>& mask, int radius) {
  // Per axis, the union of the mask shifted by -radius..radius along it: runs
  // of contiguous bytes ORed together (rows for x, rows of a slab for y, whole
  // slabs for z), which the compiler vectorizes; the former per-cell scan with
  // a branch per cell cost about 70 instructions per cell. Values are 0 or 1
  // first, so the ORs stay 0 or 1.
  std::vector<char>& m = mask.data();
  for (char& c : m) c = c != 0;
  if (radius <= 0) return;
  const Vec3i size = mask.size();
  const Index nx = size.x(), ny = size.y(), nz = size.z(), slab = nx * ny;
  std::vector<char> before;
  const auto or_into = [](char* out, const char* in, Index n) {
    for (Index i = 0; i < n; ++i) out[i] |= in[i];
  };
  for (int a = 0; a < 3; ++a) {
    before = m;
    if (a == 0) {
      parallel_for(0, ny * nz, [&](Index row) {
        char* out = m.data() + row * nx;
        const char* in = before.data() + row * nx;
        for (int o = 1; o <= radius && o < nx; ++o) {
          or_into(out, in + o, nx - o);  // from the right
          or_into(out + o, in, nx - o);  // from the left
        }
      });
    } else if (a == 1) {
      parallel_for(0, nz, [&](Index k) {
        char* out = m.data() + k * slab;
        const char* in = before.data() + k * slab;
        for (int o = 1; o <= radius && o < ny; ++o) {
          or_into(out, in + o * nx, (ny - o) * nx);
          or_into(out + o * nx, in, (ny - o) * nx);
        }
      });
    } else {
      parallel_for(0, nz, [&](Index k) {
        char* out = m.data() + k * slab;
        for (int o = -radius; o <= radius; ++o)
          if (o != 0 && k + o >= 0 && k + o < nz) or_into(out, before.data() + (k + o) * slab, slab);
      });
    }
  }
}

}  // namespace fsicut::grid
