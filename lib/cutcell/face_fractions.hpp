#pragma once
// Open (non-solid) area fractions of the MAC faces: the diagonal matrix A of the
// cut-cell weights in (13) of Zarifi & Batty 2017, for static solids.
//
// The fraction of a face inside the solid comes from the solid SDF at the face's
// four corner nodes (negative inside), treating the SDF as bilinear on the face and
// the interface as straight on each edge (the marching-squares area of Bridson's
// book / Batty et al. 2007). The open fraction is 1 minus it, then clamped (paper
// Sec. 7): below FRACTION_CLAMP_LOW it is 0, above FRACTION_CLAMP_HIGH it is 1.
// Faces on the domain walls (index 0 or n on their own axis) are closed: 0.
#include <array>

#include "lib/grid/mac_grid.hpp"

namespace fsicut::cutcell {

// Why: tiny open fractions make near-zero rows in the pressure matrix (poor
// conditioning, huge velocities from a sliver of a face); nearly open faces gain
// nothing from the difference. Same values as the paper and Bridson 2015.
constexpr Real FRACTION_CLAMP_LOW = 0.01;
constexpr Real FRACTION_CLAMP_HIGH = 0.99;

// One array per axis, fractions[a] of size grid.face_shape(a), values in [0, 1].
using FaceFractions = std::array<grid::Array3<Real>, 3>;

// Fraction of the segment between two samples that is inside (phi < 0), linear in between.
Real fraction_inside(Real phi_a, Real phi_b);
// Fraction of a square inside (phi < 0) from its corner values, listed going
// around the square: (0,0), (1,0), (1,1), (0,1).
Real fraction_inside(Real phi_00, Real phi_10, Real phi_11, Real phi_01);

// The open fraction of the face of `axis` at index `face` from the node solid
// SDF, as compute_face_fractions() sets it (0 on the domain walls).
Real open_face_fraction(const grid::MacGrid& grid, const grid::Array3<Real>& solid_phi, int axis,
                        const Vec3i& face);

// Open fractions of every face from the node solid SDF `solid_phi` (size
// grid.node_shape(), [m]); `fractions` is resized. Parallel over faces.
void compute_face_fractions(const grid::MacGrid& grid, const grid::Array3<Real>& solid_phi,
                            FaceFractions& fractions);

// The same for the faces with a corner among the nodes lo..hi (inclusive,
// clipped to the grid) only; `fractions` must have its size already and keeps
// its other values. Why: a moving solid changes solid_phi only near itself,
// and recomputing every face each substep cost more than the faces it moved.
void update_face_fractions(const grid::MacGrid& grid, const grid::Array3<Real>& solid_phi, const Vec3i& lo,
                           const Vec3i& hi, FaceFractions& fractions);

}  // namespace fsicut::cutcell
