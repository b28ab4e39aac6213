#pragma once
// The MAC (marker-and-cell) grid: geometry, index conventions, 3-D arrays and
// trilinear interpolation. Every other module takes its conventions from here.
//
// Layout (written down here only). The grid has nx x ny x nz cubic cells of edge dx
// [m]; cell (i,j,k) spans origin + dx * [i, i+1] x [j, j+1] x [k, k+1].
//
//          node (i,j+1)          node (i+1,j+1)
//               +-------- v(i,j+1) --------+
//               |                          |
//               |                          |
//            u(i,j)       p(i,j)       u(i+1,j)        x ->   y ^
//               |     (cell centre)        |
//               |                          |
//               +--------- v(i,j) ---------+
//          node (i,j)            node (i+1,j)
//
//  - pressure p(i,j,k), liquid SDF:  cell centres, origin + dx*(i+1/2, j+1/2, k+1/2);
//                                     array size (nx, ny, nz)
//  - x-velocity u(i,j,k):             x-face between cells (i-1,j,k) and (i,j,k),
//                                     origin + dx*(i, j+1/2, k+1/2); size (nx+1, ny, nz)
//  - y-velocity v(i,j,k):             y-face between cells (i,j-1,k) and (i,j,k),
//                                     origin + dx*(i+1/2, j, k+1/2); size (nx, ny+1, nz)
//  - z-velocity w(i,j,k):             z-face between cells (i,j,k-1) and (i,j,k),
//                                     origin + dx*(i+1/2, j+1/2, k); size (nx, ny, nz+1)
//  - solid SDF:                       nodes (cell corners), origin + dx*(i,j,k);
//                                     size (nx+1, ny+1, nz+1)
//
// So cell (i,j,k) has its low face on axis a at face index (i,j,k) and its high
// face at (i,j,k) + e_a. Faces with index 0 or n_a on their own axis lie on the
// domain walls. Velocities are positive along +x, +y, +z.
//
// Arrays store x fastest: linear index i + nx * (j + ny * k).
#include <array>
#include <vector>

#include "lib/core/types.hpp"

namespace fsicut::grid {

// A dense 3-D array, x fastest. Indices are not range-checked.
template <class T>
class Array3 {
 public:
  Array3() = default;
  explicit Array3(const Vec3i& size, const T& value = T()) { resize(size, value); }

  void resize(const Vec3i& size, const T& value = T()) {
    size_ = size;
    data_.assign(static_cast<std::size_t>(size.x()) * size.y() * size.z(), value);
  }
  void fill(const T& value) { std::fill(data_.begin(), data_.end(), value); }

  const Vec3i& size() const { return size_; }
  Index count() const { return static_cast<Index>(data_.size()); }
  Index index(int i, int j, int k) const {
    return i + static_cast<Index>(size_.x()) * (j + static_cast<Index>(size_.y()) * k);
  }
  Vec3i coord(Index n) const {
    const int i = static_cast<int>(n % size_.x());
    const Index r = n / size_.x();
    return {i, static_cast<int>(r % size_.y()), static_cast<int>(r / size_.y())};
  }
  bool inside(int i, int j, int k) const {
    return i >= 0 && j >= 0 && k >= 0 && i < size_.x() && j < size_.y() && k < size_.z();
  }

  T& operator()(int i, int j, int k) { return data_[index(i, j, k)]; }
  const T& operator()(int i, int j, int k) const { return data_[index(i, j, k)]; }
  T& operator()(const Vec3i& c) { return (*this)(c.x(), c.y(), c.z()); }
  const T& operator()(const Vec3i& c) const { return (*this)(c.x(), c.y(), c.z()); }
  T& operator[](Index n) { return data_[n]; }
  const T& operator[](Index n) const { return data_[n]; }

  std::vector<T>& data() { return data_; }
  const std::vector<T>& data() const { return data_; }

 private:
  Vec3i size_{0, 0, 0};
  std::vector<T> data_;
};

// Where the samples of a field sit inside a cell, in units of dx from the
// cell's min corner: cell centres (1/2,1/2,1/2), nodes (0,0,0), faces of axis a
// 1/2 everywhere except 0 along a.
enum class Sampling { cell, node, face_x, face_y, face_z };

Sampling face_sampling(int axis);
Vec3 sample_offset(Sampling sampling);

struct MacGrid {
  Vec3i resolution{0, 0, 0};  // cells per axis (nx, ny, nz)
  Vec3 origin{0, 0, 0};       // min corner [m]
  Real dx = 0;                // cell edge [m]

  Vec3 max() const { return origin + dx * resolution.cast<Real>(); }
  Index cell_count() const {
    return static_cast<Index>(resolution.x()) * resolution.y() * resolution.z();
  }
  // Samples per axis of a field (an Array3's shape): cell-centred (nx, ny, nz),
  // nodal (nx+1, ny+1, nz+1), faces of `axis` one more along that axis.
  Vec3i cell_shape() const { return resolution; }
  Vec3i node_shape() const { return resolution + Vec3i::Ones(); }
  Vec3i face_shape(int axis) const { return resolution + Vec3i::Unit(axis); }
  Vec3i shape(Sampling s) const;

  // World position [m] of sample (i,j,k) of a field with the given sampling.
  Vec3 position(Sampling s, int i, int j, int k) const {
    return origin + dx * (Vec3(i, j, k) + sample_offset(s));
  }
  Vec3 cell_center(int i, int j, int k) const { return position(Sampling::cell, i, j, k); }
  Vec3 node_position(int i, int j, int k) const { return position(Sampling::node, i, j, k); }
  Vec3 face_center(int axis, int i, int j, int k) const {
    return position(face_sampling(axis), i, j, k);
  }
  // The cell containing x (clamped to the grid).
  Vec3i cell_of(const Vec3& x) const;
};

// The three face-velocity components, velocity[a] of size grid.face_shape(a) [m/s].
using MacVelocity = std::array<Array3<Real>, 3>;

MacVelocity make_velocity(const MacGrid& grid, Real value = 0);

// Trilinear interpolation of a sampled field at world position x [m]. Positions
// outside the sample lattice are clamped onto it (constant extrapolation), so
// any x gives a finite value.
Real interpolate(const MacGrid& grid, const Array3<Real>& field, Sampling sampling, const Vec3& x);

// The velocity vector at x [m], each component interpolated from its own faces.
Vec3 interpolate_velocity(const MacGrid& grid, const MacVelocity& u, const Vec3& x);

// The 2 x 2 x 2 samples and weights interpolate() uses at x: samples lo + (0|1)
// per axis (clamped to the lattice), weight (1 - t) for the low and t for the
// high sample of each axis.
struct Stencil {
  Vec3i lo, hi;
  Vec3 t;
};
Stencil stencil(const MacGrid& grid, const Vec3i& size, Sampling sampling, const Vec3& x);

// As interpolate(), from the samples for which sample(Vec3i at, Real& value)
// returns true, their weights renormalized; `value` holds the field's sample
// and sample() may replace it (a face's velocity on one side of a thin wall,
// fluid/pieces.hpp). interpolate()'s value when no sample of positive weight
// is usable.
template <class Sample>
Real interpolate_samples(const MacGrid& grid, const Array3<Real>& field, Sampling sampling, const Vec3& x,
                         const Sample& sample) {
  const Stencil s = stencil(grid, field.size(), sampling, x);
  Real sum = 0, weight = 0, plain = 0;
  for (int n = 0; n < 8; ++n) {
    Vec3i at;
    Real w = 1;
    for (int a = 0; a < 3; ++a) {
      const bool high = (n >> a) & 1;
      at[a] = high ? s.hi[a] : s.lo[a];
      w *= high ? s.t[a] : 1 - s.t[a];
    }
    Real value = field(at.x(), at.y(), at.z());
    plain += w * value;
    if (w > 0 && sample(at, value)) {
      sum += w * value;
      weight += w;
    }
  }
  return weight > 0 ? sum / weight : plain;
}

// As interpolate(), from the samples for which usable(Vec3i sample) is true,
// their weights renormalized; interpolate()'s value when no sample of positive
// weight is usable. Why: across a solid thinner than a cell some samples of the
// stencil belong to the liquid on the other side (cutcell/thin_solids.hpp).
template <class Usable>
Real interpolate_where(const MacGrid& grid, const Array3<Real>& field, Sampling sampling, const Vec3& x,
                       const Usable& usable) {
  return interpolate_samples(grid, field, sampling, x, [&](const Vec3i& at, Real&) { return usable(at); });
}

// Sets every cell within `radius` cells (Chebyshev) of a set cell of `mask`; cells
// outside the array count as unset. Parallel over lines, deterministic.
void dilate(Array3<char>& mask, int radius);

}  // namespace fsicut::grid
