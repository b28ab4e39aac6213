#include "lib/sim/cutcell/loads.hpp"

#include <algorithm>

#include "lib/cutcell/active_cells.hpp"
#include "lib/mesh/box.hpp"
#include "lib/mesh/obj.hpp"
#include "lib/mesh/primitives.hpp"
#include "lib/sim/cutcell/coupling_matrix.hpp"
#include "lib/sim/cutcell/simulator.hpp"

namespace fsicut::sim {
namespace {

mesh::SurfaceMesh shape_surface(const scene::Shape& s, Vec3& centre) {
  mesh::SurfaceMesh m;
  switch (s.type) {
    case scene::Shape::Type::box: {
      const mesh::TetMesh box = mesh::box_mesh(s.min, s.max, Vec3i::Ones());
      m.vertices = box.rest;
      m.triangles = box.boundary;
      centre = 0.5 * (s.min + s.max);
      break;
    }
    case scene::Shape::Type::sphere:
      m = mesh::icosphere(s.center, s.radius, SPHERE_OBSTACLE_SUBDIVISIONS);
      centre = s.center;
      break;
    case scene::Shape::Type::obj:
      m = mesh::read_obj(s.path);
      centre = m.vertices.rowwise().mean();
      break;
  }
  // An inside-out obstacle is solid outside its shape: its surface faces inward.
  if (s.inside_out)
    for (mesh::Triangle& t : m.triangles) std::swap(t[1], t[2]);
  return m;
}

// The cells within OBSTACLE_STENCIL_CELLS of the patches' cells, ascending.
std::vector<Index> near_cells(const grid::MacGrid& grid, const std::vector<cutcell::SurfacePatch>& patches) {
  const Vec3i size = grid.cell_shape();
  std::vector<char> mark(static_cast<std::size_t>(grid.cell_count()), 0);
  const int r = OBSTACLE_STENCIL_CELLS;
  for (const cutcell::SurfacePatch& q : patches) {
    const Vec3i c(static_cast<int>(q.cell % size.x()), static_cast<int>(q.cell / size.x() % size.y()),
                  static_cast<int>(q.cell / (Index(size.x()) * size.y())));
    for (int k = std::max(0, c.z() - r); k <= std::min(size.z() - 1, c.z() + r); ++k)
      for (int j = std::max(0, c.y() - r); j <= std::min(size.y() - 1, c.y() + r); ++j)
        for (int i = std::max(0, c.x() - r); i <= std::min(size.x() - 1, c.x() + r); ++i)
          mark[static_cast<std::size_t>(i + size.x() * (j + Index(size.y()) * k))] = 1;
  }
  std::vector<Index> out;
  for (std::size_t n = 0; n < mark.size(); ++n)
    if (mark[n]) out.push_back(static_cast<Index>(n));
  return out;
}

// cutcell::find_active_cells (without split cells) at the obstacles' near
// cells only: the others keep row -1, which no patch's pressure reads. The
// unknowns are numbered differently, but each names the same cell, so the
// loads are the same to the bit.
cutcell::ActiveCells near_active_cells(const fluid::Liquid& liquid, const std::vector<ObstacleSurface>& obstacles) {
  cutcell::ActiveCells a;
  a.row.resize(liquid.grid.cell_shape(), -1);
  for (const ObstacleSurface& o : obstacles)
    for (const Index n : o.near) {
      if (a.row[n] >= 0 || !(liquid.liquid_phi[n] < 0)) continue;
      const Vec3i c = a.row.coord(n);
      bool open = false;
      for (int axis = 0; axis < 3 && !open; ++axis)
        for (int side : {-1, 1}) open = open || cutcell::cell_face_fraction(liquid.fractions, axis, side, c) > 0;
      if (!open) continue;
      a.row[n] = static_cast<int>(a.cells.size());
      a.cells.push_back(n);
    }
  a.whole = a.count();
  return a;
}

}  // namespace

Vec3 centre_of_mass(const solid::Body& body) {
  const Real mass = body.mass.sum();
  if (!(mass > 0)) return body.x.rowwise().mean();
  return body.x * body.mass / mass;
}

std::vector<Load> solid_loads(const linsolve::Vector& rows, std::size_t bodies) {
  std::vector<Load> out(bodies);
  if (rows.size() != static_cast<Index>(6 * bodies)) return out;
  for (std::size_t b = 0; b < bodies; ++b) {
    out[b].force = rows.segment<3>(static_cast<Index>(6 * b));
    out[b].torque = rows.segment<3>(static_cast<Index>(6 * b + 3));
  }
  return out;
}

std::vector<ObstacleSurface> obstacle_load_surfaces(const std::vector<scene::Shape>& obstacles,
                                                    const grid::MacGrid& grid) {
  std::vector<ObstacleSurface> out;
  for (const scene::Shape& s : obstacles) {
    ObstacleSurface o;
    o.surface = shape_surface(s, o.centre);
    o.patches = cutcell::clip_surface(grid, o.surface.vertices, o.surface.triangles);
    o.near = near_cells(grid, o.patches);
    out.push_back(std::move(o));
  }
  return out;
}

void place_obstacle_surface(ObstacleSurface& s, Points vertices, const Vec3& centre, const grid::MacGrid& grid) {
  s.surface.vertices = std::move(vertices);
  s.centre = centre;
  s.patches = cutcell::clip_surface(grid, s.surface.vertices, s.surface.triangles);
  s.near = near_cells(grid, s.patches);
}

std::vector<Load> obstacle_loads(const CutCellSimulator& state) {
  std::vector<Load> out(state.obstacle_surfaces.size());
  if (!state.liquid || out.empty()) return out;
  const fluid::Liquid& liquid = *state.liquid;
  // With split cells the projection's own numbering, whose further regions
  // index Liquid::region_pressure: a patch on a wall's second side reads its
  // region's pressure, not none.
  const cutcell::ActiveCells active =
      liquid.split.empty() ? near_active_cells(liquid, state.obstacle_surfaces)
                           : cutcell::find_active_cells(liquid.grid, liquid.liquid_phi, liquid.fractions, liquid.split);
  if (active.count() == 0) return out;
  const auto pressure = [&](int u) {
    if (u < active.whole) return liquid.pressure[active.cells[static_cast<std::size_t>(u)]];
    const std::size_t r = static_cast<std::size_t>(u - active.whole);
    return r < liquid.region_pressure.size() ? liquid.region_pressure[r] : Real(0);
  };
  for (std::size_t o = 0; o < out.size(); ++o) {
    const ObstacleSurface& s = state.obstacle_surfaces[o];
    for (const cutcell::SurfacePatch& q : s.patches) {
      const mesh::Triangle& t = s.surface.triangles[static_cast<std::size_t>(q.triangle)];
      const Vec3 centroid = q.barycentric[0] * s.surface.vertices.col(t[0]) +
                            q.barycentric[1] * s.surface.vertices.col(t[1]) +
                            q.barycentric[2] * s.surface.vertices.col(t[2]);
      const PressureStencil stencil = patch_pressure_stencil(state, active, q.cell, centroid, q.normal);
      Real p = 0;
      for (int n = 0; n < stencil.size; ++n)
        p += stencil.weight[n] * pressure(stencil.row[n]);
      const Vec3 f = p * q.area * q.normal;
      out[o].force += f;
      out[o].torque += (centroid - s.centre).cross(f);
    }
  }
  return out;
}

}  // namespace fsicut::sim
