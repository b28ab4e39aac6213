#include "lib/sim/couple.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <limits>
#include <string>

#include "lib/core/error.hpp"
#include "lib/core/parallel.hpp"
#include "lib/cutcell/thin_solids.hpp"
#include "lib/mesh/check.hpp"
#include "lib/mesh/quadratic.hpp"
#include "lib/sim/state.hpp"
#include "lib/solid/integrate.hpp"

namespace fsicut::sim {
namespace {

using Triplets = std::vector<Eigen::Triplet<Real, int>>;

// How far [cells] out of the solid (against the patch normal) to look for the
// active cell of a patch whose own cell is inactive: past the patch's cell
// plane, not beyond the next cell.
constexpr Real PATCH_PROBE_CELLS = 0.5;

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
// placement (tests/coupling/test_coupled_projection.cpp).
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

PressureStencil pressure_stencil(const grid::MacGrid& g, const cutcell::ActiveCells& active,
                                 const cutcell::FaceFractions& fractions, const Vec3i& cell, const Vec3& x) {
  // The active neighbour of `from` on `side` along `axis`, joined to it by an open face.
  const auto joined = [&](const Vec3i& from, int axis, int side, Vec3i& nb) {
    nb = from;
    nb[axis] += side;
    return active.row.inside(nb.x(), nb.y(), nb.z()) && active.row(nb) >= 0 &&
           cutcell::cell_face_fraction(fractions, axis, side, from) > 0;
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

// Barycentric coordinates of p (on or near triangle abc) in the triangle.
Vec3 barycentric(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c) {
  const Vec3 e0 = b - a, e1 = c - a, d = p - a;
  const Real d00 = e0.dot(e0), d01 = e0.dot(e1), d11 = e1.dot(e1);
  const Real d20 = d.dot(e0), d21 = d.dot(e1);
  const Real det = d00 * d11 - d01 * d01;
  if (!(det > 0)) return {1, 0, 0};  // degenerate triangle: its first node
  const Real v = (d11 * d20 - d01 * d21) / det, w = (d00 * d21 - d01 * d20) / det;
  return {1 - v - w, v, w};
}

// The solid block of one body, written into the stacked block at `offset`.
// Returns the elastic pre-step's report (damping_only) or a converged empty one.
linsolve::Report add_solid_block(solid::Body& body, Real dt, scene::Coupling::Scheme scheme,
                                 const scene::Coupling& settings, int offset, coupling::SolidBlock& block,
                                 Triplets& stiffness) {
  linsolve::Report pre = linsolve::nothing_to_solve();
  const int n = body.dofs.num_free_dofs();
  if (n == 0) return pre;
  const solid::BackwardEulerSystem be = solid::backward_euler_system(body, dt, Vec3::Zero());
  const Real c_m = 1 / dt + body.tau_m;
  Real c_k = dt + body.tau_k;
  linsolve::Vector rhs = be.b;
  if (scheme == scene::Coupling::Scheme::damping_only) {
    // Elasticity on its own first, implicitly: (M/dt + dt K) v_e = M v/dt + f_elastic.
    const linsolve::SparseMatrix A = be.A - be.D;
    linsolve::Vector v_e = be.v;
    linsolve::PcgSettings pcg;
    pcg.tolerance = settings.tolerance;
    pcg.max_iterations = settings.max_iterations;
    pre = linsolve::solve_pcg(A, be.b, v_e, pcg);
    body.dofs.scatter(v_e, body.v);
    c_k = body.tau_k;
    rhs = be.mass.cwiseProduct(v_e) / dt;
  }
  block.mass_term.segment(offset, n) = c_m * be.mass;
  block.rhs.segment(offset, n) = rhs;
  // The assembled R K0 R^T is symmetric up to round-off; the coupled systems
  // need it exactly: (K + K^T) / 2.
  for (int r = 0; r < be.K.outerSize(); ++r)
    for (linsolve::SparseMatrix::InnerIterator it(be.K, r); it; ++it) {
      stiffness.emplace_back(offset + r, offset + it.col(), 0.5 * c_k * it.value());
      stiffness.emplace_back(offset + it.col(), offset + r, 0.5 * c_k * it.value());
    }
  return pre;
}

// A tet this far from regular (check.hpp tet_quality) is stiffer than a
// regular tet of its size by 1/quality^2 = 1e4: only then is the mesh a
// plausible cause of a solid block beyond double precision.
constexpr Real NEARLY_FLAT_QUALITY = 1e-2;

// The scene's side of a failed factorization of the solid block: which solid
// and node hold its stiffest dof, that solid's material and the time step
// (what the stiffness-to-mass ratio is made of), and whether a nearly flat tet
// next to that node is to blame. The mesh is named only when one is.
std::string explain_solid_failure(const SimState& state, const std::vector<int>& dof_offset, Real dt,
                                  const coupling::SolidBlockDiagnosis& d) {
  std::size_t b = 0;
  while (b + 1 < state.solids.size() && d.dof >= dof_offset[b + 1]) ++b;
  if (d.dof < 0 || b >= state.solids.size()) return "";
  const solid::Body& body = state.solids[b];
  const int node = body.dofs.free_nodes[static_cast<std::size_t>((d.dof - dof_offset[b]) / 3)];
  mesh::WorstTet worst;
  for (std::size_t t = 0; t < body.mesh.tets.size(); ++t) {
    const auto& tet = body.mesh.tets[t];
    if (body.quadratic() ? std::find(body.mesh.quadratic[t].begin(), body.mesh.quadratic[t].end(), node) ==
                               body.mesh.quadratic[t].end()
                         : std::find(tet.begin(), tet.end(), node) == tet.end())
      continue;
    const Real q = mesh::tet_quality(body.mesh.rest.col(tet[0]), body.mesh.rest.col(tet[1]),
                                     body.mesh.rest.col(tet[2]), body.mesh.rest.col(tet[3]));
    if (q < worst.quality) worst = {static_cast<Index>(t), q};
  }
  const Vec3 at = body.mesh.rest.col(node);
  char text[768];
  std::snprintf(text, sizeof text,
                ". The stiffest dof is at node %d of solid \"%s\" (rest position (%.4g, %.4g, %.4g)): youngs_modulus "
                "%.3g Pa, density %.3g kg/m^3, dt %.3g s, damping/stiffness %.3g s; the worst tet at that node has "
                "shape quality %.3g (1 = regular)",
                node, body.name.c_str(), at.x(), at.y(), at.z(), body.youngs_modulus, body.density, dt, body.tau_k,
                worst.quality);
  std::string advice = text;
  if (worst.quality < NEARLY_FLAT_QUALITY)
    advice += ": that tet is nearly flat, and its stiffness grows like 1 / quality^2: remesh the solid there";
  else
    advice += ", so the mesh is not the cause: the stiffness-to-mass ratio grows like youngs_modulus dt (dt + "
              "damping/stiffness) / (density h^2) for tets of size h: a smaller time step (time/cfl), a lower "
              "youngs_modulus or a higher density brings it down";
  return advice;
}

coupling::PartitionedSettings partitioned_settings(const scene::Coupling& c, Real dx, Real dt) {
  coupling::PartitionedSettings s;
  s.method = c.scheme == scene::Coupling::Scheme::xpm ? coupling::PartitionedSettings::Method::xpm
                                                      : coupling::PartitionedSettings::Method::relaxed;
  s.relaxation = c.partitioned.relaxation;
  s.tolerance = c.partitioned.tolerance * dx / dt;  // cells per substep -> m/s
  s.max_iterations = c.partitioned.max_iterations;
  return s;
}

// Partitioned coupling with the geometry stage inside every liquid solve, as a
// black-box liquid solver would have it: the solids are moved to where the
// candidate velocity takes them, x^n + dt v, their distance fields, face
// fractions and surface patches recomputed, and the liquid's F, J, b_f
// assembled anew. The solids' side keeps A_s and b_s of x^n. Returns the
// solution and, in `last`, the assembly of the final liquid solve (its active
// cells are the pressure's); the solids end back at x^n, the fields where the
// final velocity takes them.
coupling::PartitionedSolution solve_with_geometry(SimState& state, Real dt, const CoupledAssembly& start,
                                                  const coupling::CoupledSettings& settings,
                                                  const coupling::PartitionedSettings& partitioned,
                                                  const linsolve::Vector& start_velocity, CoupledAssembly& last) {
  fluid::Liquid& liquid = *state.liquid;
  std::vector<Points> rest;
  for (const solid::Body& b : state.solids) rest.push_back(b.x);
  coupling::PartitionedSolution out;
  linsolve::Report worst = linsolve::nothing_to_solve();
  const coupling::FluidSide fluid = [&](const linsolve::Vector& v) {
    for (std::size_t b = 0; b < state.solids.size(); ++b) {
      solid::Body& body = state.solids[b];
      Points velocity = body.v;
      body.dofs.scatter(v.segment(start.dof_offset[b], body.dofs.num_free_dofs()), velocity);
      body.x = rest[b] + dt * velocity;
    }
    update_solid_fields(state);
    last = assemble_coupled(state, dt);
    const cutcell::ActiveCells& active = last.fluid.active;
    linsolve::Vector p(active.count());
    for (int r = 0; r < active.count(); ++r) p[r] = liquid.pressure[active.cells[r]];
    const linsolve::Vector g = coupling::fluid_side(last.system, settings, p, worst)(v);
    liquid.pressure.fill(0);
    for (int r = 0; r < active.count(); ++r) liquid.pressure[active.cells[r]] = p[r];
    out.solution.pressure = p;
    return g;
  };
  const coupling::SolidSide solid = coupling::solid_side(start.system.solid);
  if (!solid) {
    out.solution.velocity = start_velocity;
    out.solution.report.failure = "the solid's matrix A_s could not be factored (not positive definite)";
    return out;
  }
  const coupling::PartitionedResult r = coupling::iterate(fluid, solid, start_velocity, partitioned);
  for (std::size_t b = 0; b < state.solids.size(); ++b) state.solids[b].x = rest[b];
  out.partitioned = r.report;
  out.solution.velocity = r.velocity;
  out.solution.report = coupling::partitioned_report(worst, r.report, partitioned);
  out.solution.report.unknowns = last.system.cells() + last.system.dofs();
  return out;
}

}  // namespace

coupling::CoupledSettings coupled_settings(const scene::Coupling& c) {
  coupling::CoupledSettings s;
  s.sigma = c.sigma;
  s.alpha = c.alpha_auto ? std::optional<Real>() : std::optional<Real>(c.alpha);
  s.tolerance = c.tolerance;
  s.max_iterations = c.max_iterations;
  s.preconditioner = coupling::preconditioner(c.preconditioner);
  return s;
}

linsolve::Vector free_velocities(const SimState& state) {
  Index n = 0;
  for (std::size_t b = 0; b < state.solids.size(); ++b)
    if (!is_reduced(state, b)) n += state.solids[b].dofs.num_free_dofs();
  linsolve::Vector v(n);
  Index offset = 0;
  for (std::size_t k = 0; k < state.solids.size(); ++k) {
    if (is_reduced(state, k)) continue;
    const solid::Body& b = state.solids[k];
    v.segment(offset, b.dofs.num_free_dofs()) = b.dofs.gather(b.v);
    offset += b.dofs.num_free_dofs();
  }
  return v;
}

namespace {

// G of coupling/partitioned.hpp's conservative impulses (#dofs x #active
// [m^2]): cell i's pressure force on the solids, p_i dx^2 sum_a (c_{i+1/2} -
// c_{i-1/2}) e_a with c = w_static - w the solids' share of each face's
// closure, spread over the surface patches in cell i by area and over each
// patch's free nodes by barycentric weight. A cell with no patch of its own
// (a face the distance fields close while the clipped surface lies in the next
// cell, e.g. a grid-aligned box face) spreads over the patches of its 26
// neighbours; a cell with none there either keeps its impulse (the liquid then
// feels it from the walls, as it would without the solids).
linsolve::SparseMatrix conservative_impulse(const SimState& state, const CoupledAssembly& a) {
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
    if (is_reduced(state, b)) continue;  // the partitioned schemes take full bodies only (sim/state.cpp)
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

// The reduced bodies' side of the assembly (sim/couple.hpp): J_b from
// `columns` (one triplet list per reduced body, in body order), the free
// velocity step, U_b = sqrt(dt) J_b W L stacked into system.low_rank and
// b_f -= J_b v_free.
void add_reduced_bodies(const SimState& state, Real dt, const std::vector<Triplets>& columns, CoupledAssembly& out) {
  const int cells = out.fluid.active.count();
  Triplets low_rank;
  int rank = 0;
  std::size_t next = 0;
  for (std::size_t b = 0; b < state.solids.size(); ++b) {
    if (!is_reduced(state, b)) continue;
    const solid::ReducedBody& r = *state.reduced[b];
    const Triplets& t = columns[next++];
    ReducedCoupling c;
    c.body = b;
    c.coupling.resize(cells, 3 * static_cast<int>(state.solids[b].num_nodes()));
    c.coupling.setFromTriplets(t.begin(), t.end());
    c.free_state = r.state;
    solid::advance_reduced_velocities(r.basis, c.free_state, dt,
                                      solid::gravity_forces(r.basis, state.scene.gravity));
    const Points v = solid::reduced_velocities(r.basis, c.free_state);
    out.system.fluid_rhs -= c.coupling * Eigen::Map<const linsolve::Vector>(v.data(), v.size());

    const solid::ImpulseResponseFactor f = solid::impulse_response_factor(r.basis, r.state, dt);
    const Eigen::MatrixXd L = Eigen::LLT<Eigen::MatrixXd>(f.D).matrixL();
    const Eigen::MatrixXd WL = std::sqrt(dt) * f.W * L;  // 3 #nodes x (6 + r)
    for (int row = 0; row < cells; ++row) {
      if (c.coupling.outerIndexPtr()[row] == c.coupling.outerIndexPtr()[row + 1]) continue;  // a dry cell
      Eigen::RowVectorXd u = Eigen::RowVectorXd::Zero(WL.cols());
      for (linsolve::SparseMatrix::InnerIterator it(c.coupling, row); it; ++it) u += it.value() * WL.row(it.col());
      for (int k = 0; k < u.size(); ++k) low_rank.emplace_back(row, rank + k, u[k]);
    }
    rank += static_cast<int>(WL.cols());
    out.reduced.push_back(std::move(c));
  }
  out.system.low_rank.resize(cells, rank);
  out.system.low_rank.setFromTriplets(low_rank.begin(), low_rank.end());
}

}  // namespace

SolidSurfaces make_surfaces(const std::vector<solid::Body>& bodies, std::vector<levelset::MeshDistance> obstacles) {
  SolidSurfaces s;
  for (const solid::Body& b : bodies) s.distance.emplace_back(b.x, b.mesh.boundary);
  for (levelset::MeshDistance& d : obstacles) s.distance.push_back(std::move(d));
  s.patches.resize(bodies.size());
  return s;
}

void update_solid_fields(SimState& state) {
  fluid::Liquid& liquid = *state.liquid;
  SolidSurfaces& surfaces = state.surfaces;
  const grid::MacGrid& grid = liquid.grid;
  if (surfaces.fixed) {
    liquid.reach.particles =
        cutcell::particle_reach(grid, liquid.solid_phi, surfaces.distance, liquid.reach.cells, liquid.markers);
    return;
  }
  if (liquid.static_phi.count() == 0) {
    fluid::refresh_solid(liquid);
    surfaces.static_fractions = {};
  }
  if (surfaces.static_fractions[0].count() == 0)
    cutcell::compute_face_fractions(grid, liquid.static_phi, surfaces.static_fractions);
  liquid.solid_phi = liquid.static_phi;
  liquid.fractions = surfaces.static_fractions;
  const Real band = SOLID_BAND_CELLS * grid.dx;
  for (std::size_t b = 0; b < state.solids.size(); ++b) {
    const solid::Body& body = state.solids[b];
    surfaces.distance[b].set_vertices(body.x);
    levelset::sample_mesh_sdf_at_nodes(grid, surfaces.distance[b], band, surfaces.phi);
    levelset::resolve_surface_ties(grid, surfaces.phi);
    std::vector<Real>& phi = liquid.solid_phi.data();
    const std::vector<Real>& body_phi = surfaces.phi.data();
    parallel_for(0, static_cast<Index>(phi.size()), [&](Index i) { phi[i] = std::min(phi[i], body_phi[i]); });
    cutcell::clip_surface(grid, body.x, body.mesh.boundary, surfaces.patches[b]);
  }
  // Faces away from every body keep their static fractions: there each body's
  // distance is +band (sample_mesh_sdf_at_nodes), which changes no face's
  // fraction (a face whose static corners differ in sign has them within
  // sqrt(2) dx of the surface, well inside the band). Only the faces around
  // each body's bounding box, widened by the band and a node, are recomputed.
  for (const solid::Body& body : state.solids) {
    if (body.num_nodes() == 0) continue;
    // Clamped before the cast: a body may have left the grid far behind.
    const Vec3 limit = grid.resolution.cast<Real>().array() + 2;
    const auto node = [&](const Vec3& x, Real widen) {
      const Vec3 at = ((x - grid.origin) / grid.dx).array() + widen;
      return Vec3i(at.cwiseMax(Vec3::Constant(-2)).cwiseMin(limit).array().floor().cast<int>());
    };
    cutcell::update_face_fractions(grid, liquid.solid_phi, node(body.x.rowwise().minCoeff(), -SOLID_BAND_CELLS - 1),
                                   node(body.x.rowwise().maxCoeff(), SOLID_BAND_CELLS + 2), liquid.fractions);
  }
  grid::Array3<char> thin_cells;
  cutcell::close_thin_solid_faces(grid, liquid.solid_phi, surfaces.distance, liquid.fractions, thin_cells);
  liquid.reach = cutcell::neighbour_reach(grid, liquid.solid_phi, surfaces.distance, thin_cells, liquid.markers);
  surfaces.fixed = state.solids.empty();
}

CoupledAssembly assemble_coupled(SimState& state, Real dt) {
  fluid::Liquid& liquid = *state.liquid;
  const scene::Coupling& settings = state.scene.coupling;
  const grid::MacGrid& grid = liquid.grid;
  CoupledAssembly out;
  out.fluid = coupling::assemble_pressure(grid, liquid.liquid_phi, liquid.fractions, liquid.velocity, dt,
                                          liquid.density);
  // The rows of pressure_projection.hpp are volume balances divided by dx^3;
  // the coupled system keeps the paper's units (volume rates [m^3/s]).
  const Real cell_volume = grid.dx * grid.dx * grid.dx;
  out.system.fluid = cell_volume * out.fluid.matrix;
  out.system.grid_cells = out.fluid.cells();
  out.system.fluid_rhs = cell_volume * out.fluid.rhs;

  out.dof_offset.assign(1, 0);
  for (std::size_t b = 0; b < state.solids.size(); ++b)
    out.dof_offset.push_back(out.dof_offset.back() + (is_reduced(state, b) ? 0 : state.solids[b].dofs.num_free_dofs()));
  const int dofs = out.dof_offset.back();
  coupling::SolidBlock& block = out.system.solid;
  block.mass_term.resize(dofs);
  block.rhs.resize(dofs);
  Triplets stiffness;
  out.pre_solve = linsolve::nothing_to_solve();
  for (std::size_t b = 0; b < state.solids.size(); ++b) {
    if (is_reduced(state, b)) continue;
    const linsolve::Report pre = add_solid_block(state.solids[b], dt, settings.scheme, settings,
                                                 out.dof_offset[b], block, stiffness);
    out.pre_solve = linsolve::worst(out.pre_solve, pre);
  }
  block.stiffness_term.resize(dofs, dofs);
  block.stiffness_term.setFromTriplets(stiffness.begin(), stiffness.end());

  // J = N^T C: each patch spreads area * normal over its triangle's free nodes
  // with the barycentric weights of its centroid (11)-(12) (a quadratic face's
  // six nodes with its shape functions there, mesh::surface_weights), in the rows of the
  // cells whose pressures give the pressure at its centroid (pressure_stencil;
  // the paper uses the one cell holding the patch). The same weights split the
  // patch's volume flux J v among those cells, so the system stays symmetric.
  // A reduced body's columns go to its own J_b, over all its nodes.
  Triplets coupling;
  std::vector<Triplets> reduced_coupling;
  const grid::MacGrid& g = liquid.grid;
  for (std::size_t b = 0; b < state.solids.size(); ++b) {
    const solid::Body& body = state.solids[b];
    const bool reduced = is_reduced(state, b);
    if (reduced) reduced_coupling.emplace_back();
    for (const cutcell::SurfacePatch& q : state.surfaces.patches[b]) {
      const mesh::Triangle& t = body.mesh.boundary[q.triangle];
      Vec3i cell = out.fluid.active.row.coord(q.cell);
      const Vec3 centroid = q.barycentric[0] * body.x.col(t[0]) + q.barycentric[1] * body.x.col(t[1]) +
                            q.barycentric[2] * body.x.col(t[2]);
      const Vec3i outside = g.cell_of(centroid - PATCH_PROBE_CELLS * g.dx * q.normal);
      if (out.fluid.active.row[q.cell] < 0 ||
          (outside != cell && cutcell::separated(g, liquid.solid_phi, state.surfaces.distance, cell, outside))) {
        // The fluid touching the patch is in the cell half a cell out of the
        // solid when the patch's own cell has no open face (its fluid part is a
        // sliver the clamped fractions closed, or the patch lies on the cell's
        // boundary plane), or when a solid thinner than a cell lies between the
        // two (cutcell/thin_solids.hpp: the patch's cell is on the wall's other
        // side, or inside it). Why not drop the patch (p = 0): a grid-aligned
        // box's faces lie on cell planes, and dropping them lost 40 % of a
        // floating box's buoyancy.
        cell = outside;
        if (out.fluid.active.row(cell) < 0) continue;  // no liquid next to the patch: p = 0
      }
      const PressureStencil stencil = pressure_stencil(g, out.fluid.active, liquid.fractions, cell, centroid);
      const mesh::SurfaceWeights w = mesh::surface_weights(body.mesh, q.triangle, q.barycentric);
      for (int j = 0; j < w.count; ++j) {
        const int k = reduced ? w.node[j] : body.dofs.free_index[w.node[j]];
        if (k < 0) continue;
        Triplets& into = reduced ? reduced_coupling.back() : coupling;
        const int column = reduced ? 3 * k : out.dof_offset[b] + 3 * k;
        for (int n = 0; n < stencil.size; ++n)
          for (int d = 0; d < 3; ++d)
            into.emplace_back(stencil.row[n], column + d, stencil.weight[n] * q.area * w.weight[j] * q.normal[d]);
      }
    }
  }
  out.system.coupling.resize(out.fluid.active.count(), dofs);
  out.system.coupling.setFromTriplets(coupling.begin(), coupling.end());
  add_reduced_bodies(state, dt, reduced_coupling, out);
  if (settings.partitioned.impulses == scene::Partitioned::Impulses::conservative)
    out.system.impulse = conservative_impulse(state, out);
  return out;
}

linsolve::Report project_coupled(SimState& state, Real dt, const SystemObserver& observe,
                                 std::optional<coupling::PartitionedReport>* partitioned) {
  fluid::Liquid& liquid = *state.liquid;
  const scene::Coupling& settings = state.scene.coupling;
  const CoupledAssembly a = assemble_coupled(state, dt);
  if (observe) observe(a.system);

  coupling::CoupledSolution guess;
  CoupledAssembly moved;  // recompute_geometry: the final liquid solve's assembly
  const cutcell::ActiveCells* active = &a.fluid.active;
  guess.pressure.resize(active->count());
  for (int r = 0; r < active->count(); ++r) guess.pressure[r] = liquid.pressure[active->cells[r]];
  guess.velocity = free_velocities(state);

  const coupling::CoupledSettings s = coupled_settings(settings);
  coupling::CoupledSolution x;
  switch (settings.scheme) {
    case scene::Coupling::Scheme::spd:
    case scene::Coupling::Scheme::damping_only: x = coupling::solve_spd(a.system, s, guess); break;
    case scene::Coupling::Scheme::indefinite: x = coupling::solve_indefinite(a.system, s, guess); break;
    case scene::Coupling::Scheme::weak: x = coupling::solve_weak(a.system, s, guess); break;
    case scene::Coupling::Scheme::partitioned:
    case scene::Coupling::Scheme::xpm: {
      const coupling::PartitionedSettings ps = partitioned_settings(settings, liquid.grid.dx, dt);
      coupling::PartitionedSolution y;
      if (settings.partitioned.recompute_geometry) {
        y = solve_with_geometry(state, dt, a, s, ps, guess.velocity, moved);
        active = &moved.fluid.active;
      } else {
        y = coupling::solve_partitioned(a.system, s, ps, guess);
      }
      x = std::move(y.solution);
      if (partitioned) *partitioned = y.partitioned;
      break;
    }
  }
  if (x.solid_failure) x.report.failure += explain_solid_failure(state, a.dof_offset, dt, *x.solid_failure);
  if (!x.pressure.allFinite() || !x.velocity.allFinite())
    throw SimulationError("coupled pressure projection (" + std::string(scene::to_string(settings.scheme)) +
                          "): the solution is not finite after " + std::to_string(x.report.iterations) +
                          " iterations");

  liquid.pressure.fill(0);
  for (int r = 0; r < active->count(); ++r) liquid.pressure[active->cells[r]] = x.pressure[r];
  coupling::apply_pressure(liquid.grid, *active, liquid.liquid_phi, liquid.fractions, liquid.pressure, dt,
                           liquid.density, liquid.velocity, liquid.valid);
  for (std::size_t b = 0; b < state.solids.size(); ++b) {
    if (is_reduced(state, b)) continue;
    solid::Body& body = state.solids[b];
    body.dofs.scatter(x.velocity.segment(a.dof_offset[b], body.dofs.num_free_dofs()), body.v);
  }
  // The reduced bodies take the impulse dt J_b^T p through their response.
  for (const ReducedCoupling& c : a.reduced) {
    solid::ReducedBody& r = *state.reduced[c.body];
    const linsolve::Vector j = dt * (c.coupling.transpose() * x.pressure);
    r.state = c.free_state;
    solid::add_velocity_change(
        r.state, solid::implicit_impulse_response(r.basis, r.state, Eigen::Map<const Points>(j.data(), 3, j.size() / 3), dt));
    solid::write_reduced_to_body(r.basis, r.state, state.solids[c.body]);
  }
  linsolve::Report report = linsolve::worst(a.pre_solve, x.report);
  report.iterations = a.pre_solve.iterations + x.report.iterations;
  report.unknowns = x.report.unknowns;
  return report;
}

ParticlePaths start_particle_paths(const SimState& state) {
  ParticlePaths paths;
  if (!state.liquid || state.surfaces.distance.empty()) return paths;
  const fluid::Liquid& liquid = *state.liquid;
  const grid::MacGrid& g = liquid.grid;
  paths.start = liquid.markers;
  for (const levelset::MeshDistance& d : state.surfaces.distance) paths.solid_start.push_back(d.vertices());
  const Real reach = PATH_ANCHOR_CELLS * g.dx;
  const Index n = paths.start.cols();
  // The node field is exact within the band: farther particles have nothing near.
  std::vector<char> near(static_cast<std::size_t>(n), 0);
  parallel_for(0, n, [&](Index p) {
    near[static_cast<std::size_t>(p)] =
        grid::interpolate(g, liquid.solid_phi, grid::Sampling::node, paths.start.col(p)) <= reach + g.dx;
  });
  for (Index p = 0; p < n; ++p)
    if (near[static_cast<std::size_t>(p)]) paths.anchors.push_back({p, -1, 0, Vec3::Zero()});
  parallel_for(0, static_cast<Index>(paths.anchors.size()), [&](Index a) {
    ParticlePaths::Anchor& anchor = paths.anchors[static_cast<std::size_t>(a)];
    const Vec3 x = paths.start.col(anchor.particle);
    Real best = std::numeric_limits<Real>::infinity();
    for (std::size_t b = 0; b < state.surfaces.distance.size(); ++b) {
      const levelset::MeshDistance& d = state.surfaces.distance[b];
      const levelset::MeshHit hit = d.closest(x, reach);
      if (!hit.found || std::abs(hit.distance) >= best) continue;
      best = std::abs(hit.distance);
      const mesh::Triangle& t = d.triangles()[static_cast<std::size_t>(hit.triangle)];
      const Points& v = d.vertices();
      anchor = {anchor.particle, static_cast<int>(b), hit.triangle,
                barycentric(hit.point, v.col(t[0]), v.col(t[1]), v.col(t[2]))};
    }
  });
  // Candidates with no triangle within reach stay where they start.
  paths.anchors.erase(std::remove_if(paths.anchors.begin(), paths.anchors.end(),
                                     [](const ParticlePaths::Anchor& a) { return a.body < 0; }),
                      paths.anchors.end());
  return paths;
}

void update_particle_reach(SimState& state) {
  if (!state.liquid || state.surfaces.distance.empty()) return;
  fluid::Liquid& liquid = *state.liquid;
  if (liquid.reach.cells.count() == 0) return;
  liquid.reach.particles =
      cutcell::particle_reach(liquid.grid, liquid.solid_phi, state.surfaces.distance, liquid.reach.cells, liquid.markers);
}

// The margin [cells] of the far-path test of stop_particles_at_solids: more
// than the sqrt(3) dx a trilinear interpolation can be off a distance field.
constexpr Real PATH_SKIP_CELLS = 2;

Index stop_particles_at_solids(SimState& state, ParticlePaths& paths) {
  if (!state.liquid || state.surfaces.distance.empty()) return 0;
  fluid::Liquid& liquid = *state.liquid;
  const grid::MacGrid& g = liquid.grid;
  Points& start = paths.start;
  // Carry the anchored starts with the solid: the surface point's displacement.
  parallel_for(0, static_cast<Index>(paths.anchors.size()), [&](Index a) {
    const ParticlePaths::Anchor& anchor = paths.anchors[static_cast<std::size_t>(a)];
    const Points& before = paths.solid_start[static_cast<std::size_t>(anchor.body)];
    const Points& after = state.surfaces.distance[static_cast<std::size_t>(anchor.body)].vertices();
    const mesh::Triangle& t =
        state.surfaces.distance[static_cast<std::size_t>(anchor.body)].triangles()[static_cast<std::size_t>(anchor.triangle)];
    Vec3 moved = Vec3::Zero();
    for (int k = 0; k < 3; ++k) moved += anchor.barycentric[k] * (after.col(t[k]) - before.col(t[k]));
    start.col(anchor.particle) += moved;
  });
  const Real margin = PATH_MARGIN_CELLS * g.dx;
  const Vec3 lo = g.origin, hi = g.max();
  std::vector<char> stopped(static_cast<std::size_t>(start.cols()), 0);
  parallel_for(0, start.cols(), [&](Index p) {
    const Vec3 s = start.col(p), e = liquid.markers.col(p);
    if (s == e) return;
    // A path whose end is farther from every solid than the path is long meets
    // none. solid_phi bounds the distance from below (exact at the nodes within
    // the band, clamped beyond it), and its trilinear interpolation is within
    // sqrt(3) dx of the node values' distance. Why: testing every particle
    // against every surface was the leading cost of a tank with a dozen bodies
    // (17 % of a substep).
    if (grid::interpolate(g, liquid.solid_phi, grid::Sampling::node, e) > (e - s).norm() + PATH_SKIP_CELLS * g.dx)
      return;
    levelset::SegmentHits first;
    const levelset::MeshDistance* by = nullptr;
    for (const levelset::MeshDistance& d : state.surfaces.distance) {
      const levelset::SegmentHits h = d.segment_hits(s, e);
      if (h.count > 0 && h.first < first.first) {
        first = h;
        by = &d;
      }
    }
    if (!by) return;
    const Vec3& n = by->face_normal(first.triangle);
    const Vec3 d = e - s;
    // Leaving a solid (the start was inside it): the SDF push-out's business.
    if (!(n.dot(d) < 0)) return;
    // In and out again through faces that do not face each other: the path
    // grazed a convex part, and the push-out has already put its end outside.
    if (first.count >= 2 && !(n.dot(by->face_normal(first.last_triangle)) < cutcell::WALL_NORMALS)) return;
    // Back on the side it came from: at the surface point nearest the end when
    // that lies on a face turned the same way as the entry, so the particle
    // keeps its motion along the surface (the push-out follows the trilinear
    // node distance, which lies up to ~dx^2 / (8 R) inside a curved solid's
    // triangles: stopped at their entry points, liquid splashing over a torus
    // packed there, -14 % volume in 1 s against -8 %); else at the entry point
    // (through a wall, the nearest point may be on its far face).
    Vec3 x = first.point + margin * n;
    if (first.count == 1) {
      const levelset::MeshHit near = by->closest(e, g.dx);
      if (near.found && near.distance >= 0) return;  // the end is not inside after all (an edge grazed)
      if (near.found && near.normal.dot(n) > 0) x = near.point + margin * near.normal;
    }
    liquid.markers.col(p) = x.cwiseMax(lo).cwiseMin(hi);
    stopped[static_cast<std::size_t>(p)] = 1;
  });
  Index count = 0;
  for (char c : stopped) count += c;
  return count;
}

fluid::SolidVelocity solid_velocity(const SimState& state) {
  if (state.solids.empty()) return {};
  return [&state](const Vec3& x) -> Vec3 {
    const Real band = SOLID_BAND_CELLS * state.scene.grid.cell_size;
    Real best = std::numeric_limits<Real>::infinity();
    Vec3 v = Vec3::Zero();
    for (std::size_t b = 0; b < state.solids.size(); ++b) {
      const levelset::MeshDistance& d = state.surfaces.distance[b];
      const levelset::MeshHit hit = d.closest(x, band);
      if (!hit.found || hit.distance >= best) continue;
      best = hit.distance;
      const solid::Body& body = state.solids[b];
      const mesh::Triangle& t = body.mesh.boundary[hit.triangle];
      const mesh::SurfaceWeights w = mesh::surface_weights(
          body.mesh, hit.triangle, barycentric(hit.point, body.x.col(t[0]), body.x.col(t[1]), body.x.col(t[2])));
      v.setZero();
      for (int j = 0; j < w.count; ++j) v += w.weight[j] * body.v.col(w.node[j]);
    }
    return v;
  };
}

linsolve::Vector net_outflow(const SimState& state, const CoupledAssembly& a) {
  const fluid::Liquid& liquid = *state.liquid;
  const cutcell::ActiveCells& active = a.fluid.active;
  const Real cell_volume = liquid.grid.dx * liquid.grid.dx * liquid.grid.dx;
  linsolve::Vector out = a.system.coupling * free_velocities(state);
  for (const ReducedCoupling& c : a.reduced) {
    const Points& v = state.solids[c.body].v;
    out += c.coupling * Eigen::Map<const linsolve::Vector>(v.data(), v.size());
  }
  for (int r = 0; r < active.count(); ++r)
    out[r] += cell_volume *
              coupling::weighted_divergence(liquid.grid, liquid.fractions, liquid.velocity,
                                            liquid.liquid_phi.coord(active.cells[r]));
  return out;
}

}  // namespace fsicut::sim
