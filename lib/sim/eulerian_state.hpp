#pragma once
// The state of a scene with coupling/scheme "eulerian" (Teng, Levin & Kim
// 2016; lib/eulerian): the world its solids and smoke live in, the settings
// of its step, each solid's passive output surface and the tally of the
// frame under way. SimState holds one when the scene asks for the scheme
// (sim/eulerian_run.hpp builds and steps it).
#include <string>
#include <vector>

#include "lib/eulerian/world.hpp"
#include "lib/mesh/mesh.hpp"

namespace fsicut::sim {

// An Eulerian solid's output surface: its input mesh's boundary, moved each
// step by the solid's velocity (eulerian/measure.hpp advect_surface); the
// same vertices and triangles every frame.
struct EulerianSurface {
  std::string name;
  Points vertices;                        // 3 x #vertices, simulation frame [m]
  std::vector<mesh::Triangle> triangles;  // outward, counter-clockwise seen from outside
};

// The solves of the substeps since the last completed frame (stats.jsonl's
// per-frame `eulerian` record).
struct EulerianTally {
  int frame = -1;  // SimState::frame while these substeps ran (-1: none yet)
  int substeps = 0;
  long velocity_iterations = 0;    // summed over the substeps (Eq. 8)
  long pressure_iterations = 0;    // (Eq. 12)
  long correction_iterations = 0;  // (Eq. 13; 0 with the mass correction)
  Real divergence = 0;             // the largest WorldReport::divergence
  Index unknowns = 0, constraints = 0;  // of the last substep
  long contacts = 0;               // particle contacts (ContactReport::contacts), summed
  // Not in checkpoints (a frame resumed part-way counts only its rest): the
  // wall-clock seconds of the step's parts, summed (WorldReport::Seconds),
  // and the smallest substep [s] (0: none yet).
  eulerian::WorldReport::Seconds seconds;
  Real smallest_dt = 0;
};

struct EulerianState {
  eulerian::World world;
  eulerian::WorldSettings settings;
  std::vector<EulerianSurface> surfaces;  // one per world.solids, same order as the scene's solids
  EulerianTally tally;
};

}  // namespace fsicut::sim
