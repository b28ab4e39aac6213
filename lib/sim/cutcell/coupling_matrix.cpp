#include "lib/sim/cutcell/coupling_matrix.hpp"

#include <array>
#include <cmath>

#include "lib/cutcell/split_cells.hpp"
#include "lib/cutcell/thin_solids.hpp"
#include "lib/mesh/quadratic.hpp"
#include "lib/sim/cutcell/couple.hpp"
#include "lib/sim/cutcell/simulator.hpp"

namespace fsicut::sim {
namespace {

// How far [cells] out of the solid (against the patch normal) to look for the
// active cell of a patch whose own cell is inactive: past the patch's cell
// plane, not beyond the next cell.
constexpr Real PATCH_PROBE_CELLS = 0.5;
// How far [cells] off a patch in a split cell its fluid side is sampled: well
// inside the thinnest region the cell's samples resolve.
constexpr Real SPLIT_PROBE_CELLS = 1e-3;

// The pressure at a point x near the active cell `cell`, as weights on active
// cells: the cell's value plus, per axis a, (x - centre)_a / dx times a
// one-sided difference along a between active cells joined by an open face:
// from the cell to its neighbour on x's side (interpolation), else to the
// opposite one (extrapolation), else the same difference taken at a joined
// neighbour across another axis (a cell the solid closes on both sides along
// a), else none (constant along a). The weights sum to 1 and reproduce every
// linear pressure field exactly.
// Why: with the cell's value alone (piecewise-constant p, the paper's N), a
// solid face at height y in a cell centred at y_c feels rho g (y_c - y) too
// much pressure; for a box whose height is not a whole number of cells the
// buoyancy is off by up to rho g A dx (20 % for a five-cell cube), and a
// stiff cube compressed by 1e-6 m across a cell plane jumps by that much.
// With the reconstruction, J^T p of a hydrostatic p is rho g V for any
// placement (tests/sim/test_coupled_system.cpp).
// A split cell (cutcell/split_cells.hpp) has no single pressure to difference
// with: it takes no part in the reconstruction of a neighbour's patches.
PressureStencil pressure_stencil(const grid::MacGrid& g, const cutcell::ActiveCells& active,
                                 const cutcell::FaceFractions& fractions, const cutcell::SplitCells& split,
                                 const Vec3i& cell, const Vec3& x) {
  // The active neighbour of `from` on `side` along `axis`, joined to it by an open face.
  const auto joined = [&](const Vec3i& from, int axis, int side, Vec3i& nb) {
    nb = from;
    nb[axis] += side;
    return active.row.inside(nb.x(), nb.y(), nb.z()) && active.row(nb) >= 0 &&
           cutcell::cell_face_fraction(fractions, axis, side, from) > 0 &&
           split.count(active.row.index(nb.x(), nb.y(), nb.z())) < 2 &&
           split.count(active.row.index(from.x(), from.y(), from.z())) < 2;
  };
  // Adds t times the difference p(toward) - p(from) along `axis`, preferring
  // the neighbour on `side`; false when `from` has no joined neighbour along it.
  const auto difference = [&](PressureStencil& s, const Vec3i& from, int axis, int side, Real t) {
    Vec3i nb;
    if (joined(from, axis, side, nb)) {
      s.add(active.row(from), -t);
      s.add(active.row(nb), t);
      return true;
    }
    if (joined(from, axis, -side, nb)) {
      s.add(active.row(from), t);
      s.add(active.row(nb), -t);
      return true;
    }
    return false;
  };
  PressureStencil s;
  s.add(active.row(cell), 1);
  const Vec3 offset = (x - g.cell_center(cell.x(), cell.y(), cell.z())) / g.dx;
  for (int a = 0; a < 3; ++a) {
    const Real t = std::abs(offset[a]);
    if (t == 0) continue;
    const int side = offset[a] > 0 ? 1 : -1;
    if (difference(s, cell, a, side, t)) continue;
    bool done = false;
    for (int b = 0; b < 3 && !done; ++b)
      for (int sb : {-1, 1}) {
        Vec3i nb;
        if (b == a || !joined(cell, b, sb, nb)) continue;
        if ((done = difference(s, nb, a, side, t))) break;
      }
  }
  return s;
}

}  // namespace

PressureStencil patch_pressure_stencil(const CutCellSimulator& state, const cutcell::ActiveCells& active, Index patch_cell,
                                       const Vec3& centroid, const Vec3& normal) {
  const fluid::Liquid& liquid = *state.liquid;
  const grid::MacGrid& g = liquid.grid;
  // In a split cell the patch belongs to the region on its fluid side, with
  // that region's pressure (the paper's N; no reconstruction across the wall).
  if (liquid.split.count(patch_cell) >= 2) {
    const int region = cutcell::region_of(liquid.split, g, state.surfaces.meshes, patch_cell,
                                          centroid - SPLIT_PROBE_CELLS * g.dx * normal);
    if (region >= 0) {
      PressureStencil own;
      const int u = active.unknown(patch_cell, region);
      if (u >= 0) own.add(u, 1);
      return own;
    }
  }
  Vec3i cell = active.row.coord(patch_cell);
  const Vec3i outside = g.cell_of(centroid - PATCH_PROBE_CELLS * g.dx * normal);
  if (active.row[patch_cell] < 0 ||
      (outside != cell && cutcell::separated(g, liquid.solid_phi, state.surfaces.meshes, cell, outside))) {
    // The fluid touching the patch is in the cell half a cell out of the
    // solid when the patch's own cell has no open face (its fluid part is a
    // sliver the clamped fractions closed, or the patch lies on the cell's
    // boundary plane), or when a solid thinner than a cell lies between the
    // two (cutcell/thin_solids.hpp: the patch's cell is on the wall's other
    // side, or inside it). Why not drop the patch (p = 0): a grid-aligned
    // box's faces lie on cell planes, and dropping them lost 40 % of a
    // floating box's buoyancy.
    cell = outside;
    if (active.row(cell) < 0) return {};
  }
  return pressure_stencil(g, active, liquid.fractions, liquid.split, cell, centroid);
}

CouplingColumns coupling_columns(const CutCellSimulator& state, const cutcell::ActiveCells& active,
                                 const std::vector<int>& dof_offset) {
  // J = N^T C: each patch spreads area * normal over its triangle's free nodes
  // with the barycentric weights of its centroid (11)-(12) (a quadratic face's
  // six nodes with its shape functions there, mesh::surface_weights), in the rows of the
  // cells whose pressures give the pressure at its centroid (pressure_stencil;
  // the paper uses the one cell holding the patch). The same weights split the
  // patch's volume flux J v among those cells, so the system stays symmetric.
  // A reduced body's columns go to its own J_b, over all its nodes.
  CouplingColumns out;
  for (std::size_t b = 0; b < state.solids.size(); ++b) {
    const solid::Body& body = state.solids[b];
    const bool reduced = state.is_reduced(b);
    const Vec3 centre = centre_of_mass(body);
    if (reduced) out.reduced.emplace_back();
    for (const cutcell::SurfacePatch& q : state.surfaces.patches[b]) {
      const mesh::Triangle& t = body.mesh.boundary[q.triangle];
      const Vec3 centroid = q.barycentric[0] * body.x.col(t[0]) + q.barycentric[1] * body.x.col(t[1]) +
                            q.barycentric[2] * body.x.col(t[2]);
      const PressureStencil stencil = patch_pressure_stencil(state, active, q.cell, centroid, q.normal);
      if (stencil.size == 0) continue;  // no liquid next to the patch: p = 0
      // The body's load rows: force area n and torque (c - c_m) x area n per unit pressure.
      const Vec3 force = q.area * q.normal, torque = (centroid - centre).cross(force);
      for (int n = 0; n < stencil.size; ++n)
        for (int d = 0; d < 3; ++d) {
          out.load.emplace_back(static_cast<int>(6 * b) + d, stencil.row[n], stencil.weight[n] * force[d]);
          out.load.emplace_back(static_cast<int>(6 * b) + 3 + d, stencil.row[n], stencil.weight[n] * torque[d]);
        }
      const mesh::SurfaceWeights w = mesh::surface_weights(body.mesh, q.triangle, q.barycentric);
      for (int j = 0; j < w.count; ++j) {
        const int k = reduced ? w.node[j] : body.dofs.free_index[w.node[j]];
        if (k < 0) {
          const Vec3 moving = body.v.col(w.node[j]);
          if (moving.isZero(0)) continue;
          if (out.pinned.size() == 0) out.pinned = linsolve::Vector::Zero(active.count());
          for (int n = 0; n < stencil.size; ++n)
            out.pinned[stencil.row[n]] += stencil.weight[n] * q.area * w.weight[j] * q.normal.dot(moving);
          continue;
        }
        Triplets& into = reduced ? out.reduced.back() : out.full;
        const int column = reduced ? 3 * k : dof_offset[b] + 3 * k;
        for (int n = 0; n < stencil.size; ++n)
          for (int d = 0; d < 3; ++d)
            into.emplace_back(stencil.row[n], column + d, stencil.weight[n] * q.area * w.weight[j] * q.normal[d]);
      }
    }
  }
  return out;
}

linsolve::SparseMatrix conservative_impulse(const CutCellSimulator& state, const CoupledAssembly& a) {
  const fluid::Liquid& liquid = *state.liquid;
  const grid::MacGrid& g = liquid.grid;
  const cutcell::FaceFractions& open_without_solids = state.surfaces.static_fractions;
  const grid::Array3<int>& row = a.fluid.active.row;

  struct PatchRef {
    int body;
    const cutcell::SurfacePatch* patch;
  };
  std::vector<std::vector<PatchRef>> in_cell(static_cast<std::size_t>(row.count()));
  for (std::size_t b = 0; b < state.solids.size(); ++b) {
    if (state.is_reduced(b)) continue;  // the partitioned schemes take full bodies only (sim/cutcell/simulator.cpp)
    for (const cutcell::SurfacePatch& q : state.surfaces.patches[b])
      in_cell[static_cast<std::size_t>(q.cell)].push_back({static_cast<int>(b), &q});
  }

  Triplets t;
  const Real face_area = g.dx * g.dx;
  for (int r = 0; r < a.fluid.active.count(); ++r) {
    const Vec3i c = row.coord(a.fluid.active.cells[r]);
    Vec3 force = Vec3::Zero();  // per unit pressure [m^2]
    for (int axis = 0; axis < 3; ++axis)
      for (int side : {-1, 1}) {
        const Real closed = cutcell::cell_face_fraction(open_without_solids, axis, side, c) -
                            cutcell::cell_face_fraction(liquid.fractions, axis, side, c);
        force[axis] += side * closed * face_area;
      }
    if (force.isZero(0)) continue;
    std::vector<PatchRef> near = in_cell[static_cast<std::size_t>(row.index(c.x(), c.y(), c.z()))];
    if (near.empty())
      for (int dk = -1; dk <= 1; ++dk)
        for (int dj = -1; dj <= 1; ++dj)
          for (int di = -1; di <= 1; ++di)
            if (row.inside(c.x() + di, c.y() + dj, c.z() + dk)) {
              const auto& more = in_cell[static_cast<std::size_t>(row.index(c.x() + di, c.y() + dj, c.z() + dk))];
              near.insert(near.end(), more.begin(), more.end());
            }
    Real area = 0;
    for (const PatchRef& p : near) area += p.patch->area;
    if (!(area > 0)) continue;
    for (const PatchRef& p : near) {
      const solid::Body& body = state.solids[static_cast<std::size_t>(p.body)];
      const mesh::SurfaceWeights w = mesh::surface_weights(body.mesh, p.patch->triangle, p.patch->barycentric);
      for (int j = 0; j < w.count; ++j) {
        const int k = body.dofs.free_index[w.node[j]];
        if (k < 0) continue;
        const Real share = p.patch->area / area * w.weight[j];
        for (int d = 0; d < 3; ++d)
          t.emplace_back(a.dof_offset[p.body] + 3 * k + d, r, share * force[d]);
      }
    }
  }
  linsolve::SparseMatrix G(a.dof_offset.back(), a.fluid.active.count());
  G.setFromTriplets(t.begin(), t.end());
  return G;
}

}  // namespace fsicut::sim
