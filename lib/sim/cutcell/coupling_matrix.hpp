#pragma once
// Where the solids' surfaces meet the liquid's cells: the coupling matrix
// J = N^T C of Zarifi & Batty 2017, eqs. (10)-(12), and the conservative
// impulse matrix G of the partitioned schemes (coupling/partitioned.hpp).
//
// Shapes: J is #active x #free solid dofs [m^2], rows the active cells of
// the pressure system, columns the free dofs stacked body after body
// (CoupledAssembly::dof_offset); J v is the volume rate [m^3/s] the solids
// push through each cell's patches, J^T p the patches' pressure force [N] on
// the solids' nodes. Signs: patch normals point into the solid.
#include <array>
#include <vector>

#include <Eigen/SparseCore>

#include "lib/cutcell/active_cells.hpp"
#include "lib/linsolve/pcg.hpp"

namespace fsicut::sim {

class CutCellSimulator;
struct CoupledAssembly;

using Triplets = std::vector<Eigen::Triplet<Real, int>>;

// The entries of J: `full` for the full bodies (columns dof_offset[b] + 3 k + d
// for free node k), `reduced` one list per reduced body in body order, each
// over all of its nodes (columns 3 node + d). `load`: the rows that sum J^T p
// over all nodes of body b, pinned ones included, into its force (rows 6 b +
// d) and its torque about its centre of mass (rows 6 b + 3 + d), columns the
// active cells (sim/cutcell/loads.hpp).
struct CouplingColumns {
  Triplets full;
  std::vector<Triplets> reduced;
  Triplets load;
  // J_p v_p: the volume rate [m^3/s] per active cell that pinned nodes moving
  // with a prescribed velocity push (sim/cutcell/moving.hpp); empty when
  // every pinned node stands still.
  linsolve::Vector pinned;
};

// The pressure at a point as weights on the active cells' pressures (rows of
// `active`): at most 7 cells, weights summing to 1, exact for a linear
// pressure field (sim/cutcell/coupling_matrix.cpp explains the reconstruction).
struct PressureStencil {
  std::array<int, 7> row{};
  std::array<Real, 7> weight{};
  int size = 0;
  void add(int r, Real w) {
    for (int n = 0; n < size; ++n)
      if (row[n] == r) {
        weight[n] += w;
        return;
      }
    row[size] = r;
    weight[size++] = w;
  }
};

// The pressure at the centroid [m] of a surface patch in cell `patch_cell`
// (linear index) with unit normal `normal` into the solid: from the patch's
// cell, or from the cell half a cell out of the solid when the patch's own
// cell is inactive or a thin solid separates the two. Empty (size 0) when no
// liquid is next to the patch (its pressure is 0). Reads state.liquid's grid,
// fractions and solid SDF and state.surfaces (after stage 4).
PressureStencil patch_pressure_stencil(const CutCellSimulator& state, const cutcell::ActiveCells& active, Index patch_cell,
                                       const Vec3& centroid, const Vec3& normal);

// J of the current state (after stage 4: patches, fractions, the solid SDF) for
// the active cells `active`.
CouplingColumns coupling_columns(const CutCellSimulator& state, const cutcell::ActiveCells& active,
                                 const std::vector<int>& dof_offset);

// G of coupling/partitioned.hpp's conservative impulses (#dofs x #active
// [m^2]): cell i's pressure force on the solids, p_i dx^2 sum_a (c_{i+1/2} -
// c_{i-1/2}) e_a with c = w_static - w the solids' share of each face's
// closure, spread over the surface patches in cell i by area and over each
// patch's free nodes by barycentric weight. A cell with no patch of its own
// (a face the distance fields close while the clipped surface lies in the next
// cell, e.g. a grid-aligned box face) spreads over the patches of its 26
// neighbours; a cell with none there either keeps its impulse (the liquid then
// feels it from the walls, as it would without the solids).
linsolve::SparseMatrix conservative_impulse(const CutCellSimulator& state, const CoupledAssembly& a);

}  // namespace fsicut::sim
