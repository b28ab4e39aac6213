#pragma once
// Liquid volume fractions of the viscosity stage's control volumes (Batty &
// Bridson 2008, Sec. 4): the dx-sided cubes centred on the cell centres (the
// diagonal stresses tau_aa), the faces (the velocities' kinetic energy) and
// the edges (the off-diagonal stresses tau_bc), each the fraction of its
// volume that is liquid and not solid, in [0, 1].
//
// Estimated by super-sampling at half-cell spacing, the points
// origin + dx (m / 2 + 1/4) (m integer, -1 <= m <= 2n per axis), each standing
// for the half-cell cube around it. Each point gets a smoothed indicator H = L S,
//   L = clamp(1/2 - phi_liquid / h, 0, 1)  (phi_liquid trilinear from the cell centres)
//   S = clamp(1/2 + phi_open / h, 0, 1)    (phi_open = min(solid SDF trilinear from the
//                                           nodes, distance into the closed domain walls))
// h = dx / 2: for a flat surface H is the point's half-cell cube's share exactly.
// A control volume (its centre +- dx/2) holds 2 x 2 x 2 of these cubes; its
// fraction is their mean, one separable (1, 1) / 2 filter of the H lattice
// read at the centre. Why this lattice and not the one through the centres:
// the domain walls lie on node planes, which are its cubes' faces, so a wall
// splits no cube (a trapezoid rule on the lattice through the walls gave the
// first cell layer 7/8 of its volume).
//
// Layout: `fine` holds the filtered lattice at the points origin + dx p / 2,
// p = 0 .. 2n per axis (the grid's nodes, edge, face and cell centres). Edges
// of axis a are indexed like nodes on the two other axes and like cells on a:
// edge (i, j, k) of axis a joins nodes (i, j, k) and (i, j, k) + e_a, centre
// origin + dx ((i, j, k) + e_a / 2); the shape is resolution + (1, 1, 1) - e_a.
#include <array>

#include "lib/grid/mac_grid.hpp"

namespace fsicut::fluid {

struct LiquidFractions {
  grid::Array3<Real> fine;  // filtered half-cell lattice, see above

  Real cell(const Vec3i& c) const { return at(2 * c + Vec3i::Ones()); }
  Real face(int axis, const Vec3i& f) const { return at(2 * f + Vec3i::Ones() - Vec3i::Unit(axis)); }
  Real edge(int axis, const Vec3i& e) const { return at(2 * e + Vec3i::Unit(axis)); }

 private:
  Real at(const Vec3i& p) const { return fine(p); }
};

// The shape of the edges of `axis`: resolution + (1, 1, 1) - e_axis.
Vec3i edge_shape(const grid::MacGrid& grid, int axis);

// `liquid_phi` cell centres [m] (< 0 in liquid); `solid_phi` nodes [m] (< 0 in
// solid; empty: no obstacles); `open_sides` -x, +x, -y, +y, -z, +z: sides that
// are not walls (their sides of the lattice count as open). Parallel over the lattice.
LiquidFractions liquid_fractions(const grid::MacGrid& grid, const grid::Array3<Real>& liquid_phi,
                                 const grid::Array3<Real>& solid_phi, const std::array<bool, 6>& open_sides);

}  // namespace fsicut::fluid
