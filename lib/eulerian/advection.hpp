#pragma once
// Moving an Eulerian solid's nodal fields with its velocity: semi-Lagrangian
// advection (Algorithm 1 lines 20 and 22) and the extrapolation that keeps
// the fields defined in a band of nodes around the solid.
//
// Why the band: a node just outside the solid has no mass and no velocity of
// its own, but the solid moves into it within a step, and the backtrace of a
// node near the surface reads the cell beyond it. The displacement u there is
// the reference map's continuation past the surface: extrapolated linearly
// (a least-squares affine fit of the valid nodes around), which continues any
// rigid or affine motion exactly, so no spurious strain appears in the cells
// the solid enters. Velocities are extended the same way.
//
// Fields are NodeFields (q1.hpp); `valid` (#nodes, nonzero = defined) says
// where a field holds meaningful values.
#include <vector>

#include "lib/eulerian/q1.hpp"

namespace fsicut::eulerian {

// Extends `field` by `layers` rings of nodes (26-neighbourhood) around the
// valid ones: each new node gets the value at its position of the affine fit
// to the valid nodes within 2 nodes of it (their mean where they do not span
// 3-D). Marks the new nodes valid. Deterministic: a ring reads only the nodes
// valid before it.
void extrapolate(const grid::MacGrid& grid, NodeField& field, std::vector<char>& valid, int layers);

// One semi-Lagrangian step of `field` through `velocity` [m/s] over dt [s],
// on the valid nodes: field(x) <- field(x - dt v(x - dt/2 v(x))) (RK2
// backtrace, trilinear sampling). A node whose departure point lies in a cell
// with an invalid corner becomes invalid.
void advect(const grid::MacGrid& grid, NodeField& field, const NodeField& velocity, Real dt, std::vector<char>& valid);

}  // namespace fsicut::eulerian
