#pragma once
#include <vector>

#include "lib/core/types.hpp"

namespace fsicut::sim {

class CutCellSimulator;

// Particle paths against the solids' triangles (stages 2 and 6). The SDF push-out
// of stage 6 cannot keep liquid out of a solid thinner than a cell (its node
// distance is positive on both sides) nor tell which side of a thin wall a
// particle came from. So each particle's path over the substep is tested
// against the boundary triangles at their new positions, in the frame of the
// solid: a particle within PATH_ANCHOR_CELLS of a solid at the start is
// anchored to the nearest surface point (body, triangle, barycentric) and its
// start is carried along with that point's displacement. A particle whose path
// from the carried start to its end enters a solid and stays in it, or passes
// through it (leaves through a face facing the one it entered by, as through a
// wall: cutcell::WALL_NORMALS), is put back on the side it came from,
// PATH_MARGIN_CELLS dx off the surface at the first meeting.
constexpr Real PATH_ANCHOR_CELLS = 2;
constexpr Real PATH_MARGIN_CELLS = 1e-3;

struct ParticlePaths {
  struct Anchor {
    Index particle = 0;
    int body = 0;
    Index triangle = 0;
    Vec3 barycentric{0, 0, 0};
  };
  Points start;                    // 3 x #particles, positions before advection [m]
  std::vector<Points> solid_start; // per body, node positions before the substep [m]
  std::vector<Anchor> anchors;     // the particles near a solid, by particle index
};

// After particles were removed and appended between stages 2 and 6 (the
// sources and drains, sim/cutcell/flows.hpp): `moved` maps each particle's
// index before to its index after (-1: removed; empty: none removed), and the
// particles past the kept ones are new and start where they are.
void follow_particles(ParticlePaths& paths, const std::vector<Index>& moved, const Points& particles);

// Stage 2, before the particles move (the surfaces still at the positions of
// the last stage 4, those before this substep's stage 1). `moved` [m]: how far
// the surfaces may lie from where liquid.solid_phi has them (0 but between a
// substep's particle steps, sim/cutcell/particle_steps.hpp), added to the
// distance within which particles are anchored.
ParticlePaths start_particle_paths(const CutCellSimulator& state, Real moved = 0);

// Stage 2, before the particles move: their neighbour reach (cutcell/thin_solids.hpp)
// where stage 6 left them, against the surfaces and cells' reach of the last
// stage 4 (the geometry the velocities were projected with), so that advection
// reads only velocities from their own side of a thin solid.
void update_particle_reach(CutCellSimulator& state);

// Stage 6, after the SDF push-out: stops the particles whose path crossed a
// solid surface as above (paths.start becomes the carried starts). Returns how
// many it stopped. `moved` [m]: as for start_particle_paths, added to the
// margin of the far-path test.
Index stop_particles_at_solids(CutCellSimulator& state, ParticlePaths& paths, Real moved = 0);

}  // namespace fsicut::sim
