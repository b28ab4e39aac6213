#pragma once
// Face-velocity stages: semi-Lagrangian advection, gravity, extrapolation and the
// free-slip constraint at static solids. Velocities are MAC face components [m/s]
// (grid/mac_grid.hpp).
#include <array>
#include <cstdint>
#include <functional>

#include "lib/cutcell/face_fractions.hpp"
#include "lib/grid/mac_grid.hpp"

namespace fsicut::fluid {

// Per-axis face flags, valid[a] of size grid.face_shape(a): 1 where a face velocity
// is known (set by the projection or the extrapolation), 0 where it is not.
using FaceFlags = std::array<grid::Array3<char>, 3>;
using cutcell::FaceFractions;

// Semi-Lagrangian advection: each face value becomes the (trilinearly
// interpolated) value of `u` at the RK2 (midpoint) backtrace of the face centre
// over dt [s]. Only faces flagged in `valid` (the liquid and the extrapolation band
// around it) are advected; the others are set to 0, the value extrapolation gives
// faces it does not reach. `scratch` is workspace of the same shapes (reused, not
// reallocated). `reach` (levelset::NeighbourReach's `cells`; empty = everything
// reached): a face whose cell (the one it begins) is cut off from some
// neighbours by a thin solid reads only the velocities on its side
// (velocity_within_reach below, at the midpoint and the departure point), so a
// backtrace does not fetch the flow beyond a wall thinner than a cell. Parallel over faces.
void advect_velocity(const grid::MacGrid& grid, Real dt, const FaceFlags& valid,
                     grid::MacVelocity& u, grid::MacVelocity& scratch,
                     const grid::Array3<std::uint32_t>& reach = {});

// Forward Euler u += dt g on every face; g [m/s^2].
void apply_gravity(grid::MacVelocity& u, const Vec3& gravity, Real dt);

// Extrapolates `u` from the faces flagged in `valid` into the others, `layers`
// rings deep: each ring sets an invalid face to the mean of its valid neighbours
// (the six same-component faces one index away) and flags it. Faces that remain
// unreached are set to 0. `valid` is updated. Each ring reads only the previous
// ring's flags, so the result does not depend on the thread count.
// `reach` (levelset/liquid_sdf.hpp, its `cells`; empty = everything reached):
// a neighbour face one step along e counts only when both cells of the face
// reach the cells one step along e, so velocities do not leak across a solid
// thinner than a cell into the liquid on its other side.
void extrapolate_velocity(grid::MacVelocity& u, FaceFlags& valid, int layers,
                          const grid::Array3<std::uint32_t>& reach = {});

// The velocity [m/s] at x [m] from the faces the liquid at x reaches: a face
// sample counts when one of its two cells (inside the grid) is reached, by the
// bits of `reach` around `cell` (the bit layout of levelset::NeighbourReach;
// cells farther than one step from `cell` count as reached). Why: across a solid
// thinner than a cell, the trilinear stencil of a point beside it mixes in the
// velocities of the liquid on its far side (a particle in the sliver between a
// node plane and a wall just past it moved with the far side's flow, and such
// slivers filled with particles: the gate scene with its panel on a node plane
// lost 58 % of its volume in 1.5 s). interpolate_velocity() when reach is REACH_ALL.
Vec3 velocity_within_reach(const grid::MacGrid& grid, const grid::MacVelocity& u, const Vec3& x,
                           const Vec3i& cell, std::uint32_t reach);

// Whether the liquid in `cell` reaches cell c by the bits of `reach` (as in
// velocity_within_reach): c inside the grid (`cells` = grid.cell_shape()), and
// farther than one step from `cell` or its bit set.
bool reaches(const Vec3i& cells, const Vec3i& cell, std::uint32_t reach, const Vec3i& c);

// The velocity [m/s] of the solid surface nearest to a point [m] inside a solid.
// Empty: every solid is static.
using SolidVelocity = std::function<Vec3(const Vec3&)>;

// Faces open less than this fraction are treated as closed after the projection:
// their velocity is extrapolated and constrained like a closed face's. Why: the
// projection weights a face by its open fraction, so the pressure barely feels a
// nearly closed face, and dt/rho times the pressure jump across it (large under a
// solid hitting the liquid) can be many times any real speed. The divergence
// counts such a face at its fraction, but advection and the CFL step read the full
// face velocity: the paper's buoyancy scene at 100^3 showed 15-30 m/s on faces
// open 1-3 % under balls falling at 2 m/s, and 50 substeps per frame.
inline constexpr Real NEARLY_CLOSED_FRACTION = 0.1;

// Marks the faces with open fraction in (0, NEARLY_CLOSED_FRACTION) invalid, so
// that extrapolation and the constraint below set them.
void release_nearly_closed(const FaceFractions& fractions, FaceFlags& valid);

// Free slip at solids, (u - v_s) . n = 0 (paper Sec. 7, Houston et al. 2003): on
// every closed interior face (open fraction below NEARLY_CLOSED_FRACTION) the
// full velocity vector u is interpolated from the extrapolated field, its
// normal component relative to the solid's velocity v_s (`solid_velocity`,
// zero when empty) is removed along the solid normal n (gradient of the node
// SDF `solid_phi` [m]), and the face keeps the result. Faces on the domain walls are set to 0. Only faces flagged in
// `valid` (after extrapolation: those within reach of the liquid) are
// constrained; the others are 0 already. `scratch` is workspace.
// `reach` (levelset::NeighbourReach's `cells`; empty = none): a face whose two
// cells do not reach each other is closed by a solid thinner than a cell, which
// the node SDF's gradient does not see; its component is the solid's,
// u_a = v_s . e_a (the wall crosses the segment between the cells' centres).
// Why: it kept the extrapolated flow towards the wall, and particles beside a
// soft thin wall ran into it and packed (-10 % volume in 1 s).
void constrain_velocity(const grid::MacGrid& grid, const grid::Array3<Real>& solid_phi,
                        const FaceFractions& fractions, const FaceFlags& valid,
                        grid::MacVelocity& u, grid::MacVelocity& scratch,
                        const SolidVelocity& solid_velocity = {},
                        const grid::Array3<std::uint32_t>& reach = {});

}  // namespace fsicut::fluid
