#pragma once
// Cells a solid thinner than a cell divides: one region per side, each with its
// own pressure (after Azevedo, Batty & Oliveira 2016, "Preserving geometry and
// topology for fluid flows with thin obstacles and narrow gaps").
//
// The node distance field cannot show a wall thinner than a cell: every node
// around it may be outside. thin_solids.hpp closes the faces between cells
// whose centres such a wall separates, which keeps liquid from passing it but
// gives the whole cell holding the wall to neither side: the liquid in the
// slivers beside the wall shared one pressure with the other side's sliver (or
// with no side at all) and was never made divergence-free on its own.
//
// Here each cell flagged by close_thin_solid_faces is sampled on a regular
// SPLIT_SAMPLES^3 lattice of interior points plus SPLIT_SAMPLES^2 points on
// each of its six faces. Two neighbouring samples are joined when the segment
// between them meets no surface triangle; the joined groups outside every
// solid that reach a face are the cell's regions (numbered 0, 1, ... in the
// order their first face sample appears: faces -x, +x, -y, +y, -z, +z). A cell
// not examined has one region, 0.
//
// A face between two cells carries, for every pair (region of its low cell,
// region of its high cell) that its open samples join, a piece. When neither
// cell is split, a piece's fraction is the share of the face's open samples
// in that pair times the face's open fraction from the node field
// (face_fractions.hpp), so a face nothing splits keeps it exactly (one piece
// of a whole face assembles exactly as the face). When a cell beside it is
// split, the pieces are the open area of each pair, measured: the square of a
// face sample that a surface passes through is refined into 4 x 4 points,
// each joined to the nearest face sample a segment reaches without meeting a
// surface (points inside the wall count for none), and the face's fraction
// is their sum. Why measured: the node field does not see the wall, so its
// fraction (1) times the samples' shares gave a sliver 0.2 cells wide a third
// of the face (the samples come in sixths), and the liquid there drained at
// the wrong rate and packed. Faces of examined cells are reopened when some
// open sample joins a region on each side, and closed when none does.
//
// Resolution: a region thinner than a sample spacing (dx / SPLIT_SAMPLES) may
// hold no interior sample, and then joins through the face samples alone; a
// gap in a wall narrower than that spacing may be missed (the wall is then
// closed there). The measured areas come in steps of 1/24 of a face's width.
#include <array>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "lib/cutcell/face_fractions.hpp"
#include "lib/grid/mac_grid.hpp"
#include "lib/levelset/mesh_sdf.hpp"

namespace fsicut::cutcell {

// Samples per axis in an examined cell: walls down to a tenth of a cell are
// resolved by the segment tests.
constexpr int SPLIT_SAMPLES = 6;

// One part of a face's open fraction: the regions it joins.
struct FacePiece {
  int low = 0;         // region of the cell below the face along its axis
  int high = 0;        // region of the cell above it
  Real fraction = 0;   // its share of the face's open fraction (the pieces sum to it)
};

struct SplitCells {
  // The examined cells: linear cell index -> region count (0: all solid; 2 or
  // more: split).
  std::unordered_map<Index, int> regions;
  // The examined cells whose centre lies inside a solid: the liquid SDF there
  // (from the particles) says nothing about their regions.
  std::unordered_set<Index> buried;
  // Per axis, linear face index (grid::Array3 layout of grid.face_shape(axis))
  // -> pieces, for the open faces of the examined cells.
  std::array<std::unordered_map<Index, std::vector<FacePiece>>, 3> faces;
  // Per split cell, the region of each interior sample (-1: in a solid or in
  // no region), x fastest: what region_of() reads.
  std::unordered_map<Index, std::vector<signed char>> samples;
  // The same for the examined cells with one region that a wall covers in
  // part (some interior sample in a solid): what region_volumes reads for
  // their open part. region_of() does not read them (their region is 0).
  std::unordered_map<Index, std::vector<signed char>> partial;

  bool empty() const { return regions.empty(); }
  // Regions of a cell: 1 unless examined.
  int count(Index cell) const;
  // The pieces of a face, or nullptr when it is not split (one piece: regions 0, 0).
  const std::vector<FacePiece>* pieces(int axis, Index face) const;
};

// Examines the cells flagged in `cells` (close_thin_solid_faces's output),
// sets the fractions of their faces as described above (from `solid_phi`, the
// node SDF [m]) and returns the split cells. `surfaces` as in thin_solids.hpp.
// Parallel over the examined cells; deterministic.
SplitCells split_cells(const grid::MacGrid& grid, const grid::Array3<Real>& solid_phi,
                       const std::vector<levelset::MeshDistance>& surfaces, const grid::Array3<char>& cells,
                       FaceFractions& fractions);

// The region of cell `cell` (linear index) that holds x [m]: 0 unless the cell
// is split; else the region of the nearest interior sample joined to x by a
// segment that meets no surface (-1 when none is, e.g. x inside the wall).
int region_of(const SplitCells& split, const grid::MacGrid& grid,
              const std::vector<levelset::MeshDistance>& surfaces, Index cell, const Vec3& x);

// As region_of, and for a cell a wall covers in part (SplitCells::partial) its
// one region 0 only when x sees it (a segment to one of its open samples
// meets no surface), else -1: what the volume measure routes a particle's
// share by (fluid/volume.hpp). region_of gives such a cell 0 for any x, which
// put the shares of the particles upstream of a panel lying on a node plane
// into the open part downstream of it (the gate with its panel on x = 0.9 m
// read up to +0.98 %; +0.64 % with this).
int region_in_sight(const SplitCells& split, const grid::MacGrid& grid,
                    const std::vector<levelset::MeshDistance>& surfaces, Index cell, const Vec3& x);

// Per split cell or partial cell (SplitCells::partial) of `cells` (linear
// indices), each region's volume as a fraction of the cell. The cube of an
// interior sample no surface comes near counts whole for its region (none when
// the sample is in a wall). In the cube
// of one a surface passes near, REFINE^3 points are placed against the
// nearest surface's tangent plane and the wall's depth behind it (a segment
// along the normal): a point in front counts for the nearest sample on that
// side in a region, a point deeper than the wall for the nearest sample
// beyond it, a point in between for none. So a region 0.4 cells wide beside a
// flat wall reads 0.4 within 1/48, walls thinner than a sample spacing
// included. Why not the segment tests of the faces, one per point: 10 ms per
// cell, a second per frame in the gate scene; this costs a distance query and
// a segment per cube. Near a wall's edges and corners the plane is an
// approximation. Parallel over the cells; deterministic.
std::unordered_map<Index, std::vector<Real>> region_volumes(const SplitCells& split, const grid::MacGrid& grid,
                                                            const std::vector<levelset::MeshDistance>& surfaces,
                                                            const std::vector<Index>& cells);

}  // namespace fsicut::cutcell
