#pragma once
// The deep interior of a cloud of marker particles: the cells a union of balls
// around the particles certainly fills, and the particles whose balls lie
// entirely inside those cells.
//
// Why: a union of balls (the liquid VDB, io/vdb.hpp) only needs the balls that
// reach its surface. Rasterizing every particle costs time in proportion to the
// liquid's volume (1.44M particles in the 100^3 paper dam break), while the
// surface is what a renderer sees. Filling the deep cells as "inside" and
// rasterizing only the other particles gives the same outer surface at a cost
// that grows with the surface.
//
// Cells: a grid of cell size `cell` [m] with cell (i, j, k) spanning
// [i, i + 1) x [j, j + 1) x [k, k + 1) times `cell` in world space (origin at
// the world origin). A cell is FULL when it holds at least `min_count`
// particles, and DEEP when it and its 26 neighbours are all full.
//
// What changes against the union of all balls: nothing outside the deep cells
// (every skipped ball lies inside them); inside them, the union may have had
// gaps between balls smaller than a cell (a sub-cell bubble in the bulk of the
// liquid), which become liquid. The 27-cell rule keeps a deep cell a cell away
// from any cell holding fewer particles, so a gap open to the air does not
// reach into one. With the simulator's seeding (8 particles per cell,
// levelset/liquid_sdf.hpp) and min_count = DEEP_MIN_COUNT a still block loses
// no gap at all: its balls of radius dx / 2 cover the bulk completely.
#include <cstdint>
#include <vector>

#include "lib/core/types.hpp"

namespace fsicut::levelset {

// Half the seeding count (8 per cell): a cell with fewer particles than this
// is treated as part of the surface layer even in the bulk.
inline constexpr int DEEP_MIN_COUNT = 4;

class ParticleInterior {
 public:
  // Bins `particles` (3 x n [m], finite) into cells of size `cell` [m] > 0
  // over their bounding box. Memory: one byte per cell of that box, plus one
  // per particle. Parallel over cells; the result does not depend on the
  // thread count.
  ParticleInterior(const Points& particles, Real cell, int min_count = DEEP_MIN_COUNT);

  Real cell() const { return cell_; }
  // Whether cell (i, j, k) is deep (false outside the particles' box).
  bool deep(const Vec3i& c) const;
  // Whether every cell the axis-aligned box [p - r, p + r] touches is deep:
  // the ball of radius r [m] around p then lies in deep cells.
  bool covers_ball(const Vec3& p, Real r) const;
  // The particles whose balls of radius r [m] are NOT covered, in increasing
  // order: the ones that must be rasterized.
  std::vector<Index> surface_particles(const Points& particles, Real r) const;
  // The deep cells as runs along x: (first cell, number of cells), in
  // increasing (k, j, i) order.
  struct Run {
    Vec3i first;
    int length = 0;
  };
  std::vector<Run> deep_runs() const;

 private:
  std::size_t at(int i, int j, int k) const {
    return static_cast<std::size_t>(i) + static_cast<std::size_t>(shape_.x()) *
                                             (static_cast<std::size_t>(j) + static_cast<std::size_t>(shape_.y()) * k);
  }

  Real cell_;
  Vec3i lo_{0, 0, 0};     // index of the first cell of the box
  Vec3i shape_{0, 0, 0};  // cells per axis
  std::vector<std::uint8_t> deep_;
};

}  // namespace fsicut::levelset
