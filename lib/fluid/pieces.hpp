#pragma once
// Velocities of the pieces of split faces: the flow on each side of a solid
// thinner than a cell (cutcell/split_cells.hpp).
//
// A face a thin wall crosses carries pieces, each joining one region of its
// low cell to one of its high cell, with its share a_k of the face's open
// fraction A = sum_k a_k. The projection (pressure_projection.hpp) gives every
// piece with liquid beside it a velocity of its own,
//   u_k = u*_f - dt/(rho dx) (p_high(k) - p_low(k)),
// so the liquid on each side of the wall is made divergence-free on its own,
// and the face keeps their flux-weighted mean (sum_k a_k u_k / sum_k a_k over
// those pieces), which is what the MAC grid's advection, extrapolation and
// CFL read. The particles beside the wall read the pieces on their own side
// (velocity_beside_walls below), so the liquid in the sliver on one side of a
// wall does not move with the flow on the other.
//
// Lifetime: written by every projection (for that substep's split cells), read
// by the particles' advection at the start of the next substep (the split
// cells and the surfaces are still those of the projection then), so a
// checkpoint stores them (checkpoint/liquid.hpp). The next projection's u*_f is the
// face's advected mean for every piece: the difference between the two sides'
// tangential flow lasts one substep on the grid (the particles carry it).
#include <array>
#include <cstdint>
#include <functional>
#include <unordered_map>
#include <vector>

#include "lib/cutcell/face_fractions.hpp"
#include "lib/cutcell/split_cells.hpp"
#include "lib/grid/mac_grid.hpp"

namespace fsicut::fluid {

struct PieceVelocities {
  // Per axis, linear face index -> one velocity [m/s] per piece of
  // SplitCells::faces[axis][face], in the same order. Only the faces the last
  // projection set, and not those released as nearly closed.
  std::array<std::unordered_map<Index, std::vector<Real>>, 3> faces;
  bool empty() const { return faces[0].empty() && faces[1].empty() && faces[2].empty(); }
  void clear() {
    for (auto& f : faces) f.clear();
  }
  // The pieces' velocities of a face, or nullptr.
  const std::vector<Real>* find(int axis, Index face) const;
};

// Forgets the faces whose open fraction is below `nearly_closed`: extrapolation
// and the constraint set such a face as a whole (velocity.hpp), and its pieces
// then read the face.
void release_nearly_closed(const cutcell::FaceFractions& fractions, Real nearly_closed, PieceVelocities& pieces);

// The largest |piece velocity| per axis [m/s] (zero with none).
Vec3 max_piece_speed(const PieceVelocities& pieces);

// The region of split cell `cell` (linear index) that the liquid at x [m]
// belongs to, or -1 (cutcell::region_of with the surfaces bound).
using RegionOf = std::function<int(Index cell, const Vec3& x)>;

// What the particles beside split cells read.
struct SplitFlow {
  const cutcell::SplitCells* split = nullptr;
  const PieceVelocities* pieces = nullptr;
  RegionOf region_of;
  bool active() const { return split && !split->empty() && region_of; }
};

// The regions of the split cells around one point, looked up once each and
// kept (a particle reads the same cells at both of its RK2 evaluations).
class SidesOf {
 public:
  SidesOf(const SplitFlow& flow, const Vec3& x) : flow_(flow), x_(x) {}
  // The region of `cell`, or ANY_REGION when the cell is not split.
  int operator()(Index cell);
  static constexpr int ANY_REGION = -2;

 private:
  const SplitFlow& flow_;
  Vec3 x_;
  std::vector<std::pair<Index, int>> known_;
};

// velocity_within_reach (velocity.hpp) where the faces of split cells count
// by their pieces: a face with pieces counts the pieces that join the
// regions `sides` gives for its two cells (a cell not split joins any), with
// their velocities (the face's when the projection set none) weighted by
// their fractions, and is left out when none does (its liquid is on the other
// side of the wall).
Vec3 velocity_beside_walls(const grid::MacGrid& grid, const grid::MacVelocity& u, const Vec3& x,
                           const Vec3i& cell, std::uint32_t reach, const SplitFlow& flow, SidesOf& sides);

}  // namespace fsicut::fluid
