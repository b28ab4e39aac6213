#pragma once
// The liquid's load on what it touches: each solid's and each static
// obstacle's force [N] and torque [N m] from the pressure on its wetted
// surface (stats.jsonl `solids[*].fluid_force`, `fluid_torque` and the list
// `obstacles`, sim/stats.hpp).
//
// A solid's load is J^T p of the coupled solve summed over all of its nodes,
// pinned ones included (J^T p over the free nodes is what moves the solid; the
// pinned nodes' share is what its supports carry): sum over its surface
// patches Q of p(Q) area(Q) n(Q), n into the solid, p(Q) the pressure at the
// patch's centroid as J reconstructs it (sim/cutcell/coupling_matrix.hpp), so a
// positive pressure pushes the surface inward. The torque is about the solid's
// centre of mass at the start of the projection, sum (c(Q) - c_m) x p A n with
// c(Q) the patch centroid (equal to J^T p's nodal torques: the barycentric
// weights of a patch reproduce its centroid).
// An obstacle's load is the same sum over the cut cells of its surface (its
// triangles clipped against the cells once, sphere obstacles as an
// icosphere), with the pressure of the last projection, about the centroid of
// its shape.
// Both are read after stage 5 of every substep; the stats show their mean over
// the frame weighted by the substeps' lengths (the impulse over the frame
// divided by its duration).
#include <vector>

#include "lib/cutcell/surface_patches.hpp"
#include "lib/grid/mac_grid.hpp"
#include "lib/linsolve/pcg.hpp"
#include "lib/mesh/mesh.hpp"
#include "lib/scene/scene.hpp"
#include "lib/sim/load_tally.hpp"
#include "lib/solid/body.hpp"

namespace fsicut::sim {

class CutCellSimulator;

// The mass-weighted centre of a body's nodes [m] (lumped masses).
Vec3 centre_of_mass(const solid::Body& body);

// The solids' loads from the coupled solve's load rows (6 per body: force
// then torque, CoupledAssembly::load times p); zeros when `rows` is empty.
std::vector<Load> solid_loads(const linsolve::Vector& rows, std::size_t bodies);

// An obstacle's surface as the loads see it: triangles whose outward normal
// points out of the solid part (flipped for an inside-out obstacle), its
// patches in `grid`'s cells, and the point torques are taken about.
struct ObstacleSurface {
  mesh::SurfaceMesh surface;
  std::vector<cutcell::SurfacePatch> patches;
  Vec3 centre{0, 0, 0};  // [m]: box centre, sphere centre, obj vertex mean
  // The cells (linear indices, ascending) whose activity a patch's pressure
  // can read: within OBSTACLE_STENCIL_CELLS (Chebyshev) of a patch's cell.
  std::vector<Index> near;
};
// A patch's pressure (sim/cutcell/coupling_matrix.hpp) reads the patch's cell, the cell
// half a cell out of the solid (one away) and the neighbours of that cell and
// of its neighbours across another axis: at most 2 cells from the patch's.
constexpr int OBSTACLE_STENCIL_CELLS = 2;

// One per obstacle, in scene order. Why an icosphere of level
// SPHERE_OBSTACLE_SUBDIVISIONS: 20480 triangles, whose inscribed polyhedron
// lacks 0.04 % of the sphere's area, far below the discretization's error.
constexpr int SPHERE_OBSTACLE_SUBDIVISIONS = 5;
std::vector<ObstacleSurface> obstacle_load_surfaces(const std::vector<scene::Shape>& obstacles,
                                                    const grid::MacGrid& grid);

// Moves an obstacle's load surface: its vertices [m] (same triangles) and
// torque centre [m] where a motion has them, its patches and near cells
// recomputed (sim/cutcell/moving.hpp, every substep of a moving obstacle).
void place_obstacle_surface(ObstacleSurface& s, Points vertices, const Vec3& centre, const grid::MacGrid& grid);

// Each obstacle's load from the liquid's pressure (after stage 5: the active
// cells are those of liquid_phi and the fractions, decided only at the
// obstacles' `near` cells; why: over the whole grid that costs 13 ms per
// substep at 100^3, 2.5 % of a paper dam break substep; with split cells over
// the whole grid, as the projection numbered them, so that a patch on a thin
// wall's second side reads its region's pressure); empty without liquid.
std::vector<Load> obstacle_loads(const CutCellSimulator& state);

}  // namespace fsicut::sim
