#pragma once
// Solids thinner than a cell: what the node distance field cannot show.
//
// The open face fractions (face_fractions.hpp) and the cells' inside/outside
// (the mean of their 8 node samples) come from the solid SDF at the grid nodes.
// A solid thinner than the grid spacing can lie between node planes with every
// node outside it: a wall half a cell thick at x = 0.76 .. 0.785 m in cells of
// 0.05 m has distance +0.01 and +0.015 at the nodes x = 0.75 and x = 0.8, so
// every face around it is open, the projection joins the liquid on its two
// sides and liquid flows through it. The solid's boundary triangles still
// know: the segment between two cell centres crosses them.
//
// Two cells are separated by a thin solid when the segment between their
// centres crosses the surfaces in a way the node field does not account for:
//   - at least twice, entering and leaving through faces that face each other
//     (outward normals at the first and last crossing at more than 120 degrees:
//     a wall thinner than the segment), or
//   - once, while the node field counts the cell on the solid side of the
//     crossing open (the mean of its 8 node samples >= 0, so it has a pressure,
//     though its centre is inside a solid) and the segment continued one more
//     cell leaves the solid through a face facing the first (a wall around that
//     centre, not the tip of a corner).
// One crossing into a cell the node field counts solid is the ordinary cut
// cell (the crossing is in the fractions) and is not a separation. Why the
// wall test and not "one crossing into an open cell" alone: near a curved
// surface the mean of 8 nodes misjudges centres within about dx^2 / (4 R) of
// it, and closing those faces made balls flicker open and closed cut faces as
// they moved. Why not "all 8 nodes outside" (the rule before): a panel lying a
// hair off a node plane, its edge pinned on the plane, has some nodes inside,
// so the cell holding it stayed open to both sides and liquid ran through the
// panel into the sliver between it and the plane (the gate scene on a node
// plane lost 58 % of its volume in 1.5 s; now 0.6 %).
// Why the normals: a segment that cuts a convex corner of a box or grazes the
// cap of a ball also crosses twice, through faces at 90 degrees or nearly
// parallel; closing those faces made cut cells flicker shut as a solid moved
// (a compressed cube expanding in water ended 0.2 % further from its rest volume).
#include <cstdint>
#include <vector>

#include "lib/cutcell/face_fractions.hpp"
#include "lib/grid/mac_grid.hpp"
#include "lib/levelset/liquid_sdf.hpp"
#include "lib/levelset/mesh_sdf.hpp"

namespace fsicut::cutcell {

// The largest cosine between the outward normals at the first and last of two
// or more crossings that still counts as a wall (120 degrees, see above).
constexpr Real WALL_NORMALS = -0.5;

// True when cells a and b (any two cells, usually face or diagonal neighbours)
// are separated as above. `solid_phi` is the node SDF [m] of all solids (size
// grid.node_shape()), `surfaces` the moving solids' boundaries at the same positions.
bool separated(const grid::MacGrid& grid, const grid::Array3<Real>& solid_phi,
               const std::vector<levelset::MeshDistance>& surfaces, const Vec3i& a, const Vec3i& b);

// Closes (fraction 0) every interior face whose two cells are separated().
// Only open faces with a corner node within one cell of a solid (solid_phi <= dx)
// are tested: a crossing of the segment lies within 0.87 dx of some corner.
// Flags the two cells of each face it closed in `cells` (size grid.cell_shape(),
// set to 0 elsewhere). Returns how many faces it closed. Parallel over faces.
Index close_thin_solid_faces(const grid::MacGrid& grid, const grid::Array3<Real>& solid_phi,
                             const std::vector<levelset::MeshDistance>& surfaces, FaceFractions& fractions,
                             grid::Array3<char>& cells);

// How far [cells, Chebyshev] from a face close_thin_solid_faces closed the
// neighbour reach is computed: the liquid's kernel spans one cell either side.
constexpr int REACH_CELLS = 2;

// The neighbour reach (levelset/liquid_sdf.hpp): of every cell, within
// REACH_CELLS of a flagged cell (`thin_cells` from close_thin_solid_faces), bit n
// cleared where the neighbour is separated(), everywhere else REACH_ALL; the
// quadrature points of `partial` by segment tests from the cell's centre, for
// the neighbours cut off and for those within one cell of a flagged cell
// (`tested`, where a wall may hide part of a cell); of every particle
// (3 x #particles [m]) in a cell with a bit cleared or in a `tested` cell, bit n
// cleared where the segment from the particle to the centre of cell n crosses
// the surfaces twice or more, or once into a cell with all 8 nodes outside
// (as separated() from the particle instead of its cell's centre), elsewhere
// its cell's bits. All empty when no cell is flagged. Parallel over cells
// and particles. Each cell's segment tests (and its particles') read only
// the triangles near its 3 x 3 x 3 cells (mesh::TriangleBvh::near): the
// same answers as testing every triangle, in 0.6 of the time beside the thin
// moving paddle of benchmarks/motion.cpp.
// The particles' part of neighbour_reach(), from the cells' part `reach`
// (REACH_ALL for every particle when its cells are empty): particles move between the
// distance-field stage and the next advection, which needs their bits where they are.
std::vector<std::uint32_t> particle_reach(const grid::MacGrid& grid, const grid::Array3<Real>& solid_phi,
                                          const std::vector<levelset::MeshDistance>& surfaces,
                                          const levelset::NeighbourReach& reach, const Points& particles);

levelset::NeighbourReach neighbour_reach(const grid::MacGrid& grid, const grid::Array3<Real>& solid_phi,
                                         const std::vector<levelset::MeshDistance>& surfaces,
                                         const grid::Array3<char>& thin_cells, const Points& particles);

// What fluid::seed_particles seeds without jitter beside thin solids: the
// cells with a `partial` entry (whose sums the reach treats apart from a plain
// kernel sum) and those within CELLS_BESIDE_THIN_SOLIDS of them (1 there, 0
// elsewhere; empty when `reach` is). Why that far: where the exact cells meet
// the jittered ones the seeding's surface match leaves a residual; measured
// on still water 10 cells deep beside walls 0.1-0.9 cells thick off the face
// planes, 0.67 mm/s within 2 s with the exact cells one cell wide around the
// listed ones, 0.34 with three.
constexpr int CELLS_BESIDE_THIN_SOLIDS = 3;
grid::Array3<char> cells_beside_thin_solids(const levelset::NeighbourReach& reach);

}  // namespace fsicut::cutcell
