#pragma once
// The scene's sources, drains and open sides in the cut-cell simulator
// (fluid/flows.hpp has the method), and the books users read in stats.jsonl:
// liquid_added and liquid_removed [m^3], cumulative since frame 0.
//
// Once per substep, stage `sources` of the step (after gravity, before the
// distance fields, so this substep's projection sees the liquid they leave):
//   1. particles in an active drain or in an open side's outer cell layer are
//      removed;
//   2. every active source fills its shape (fluid::fill_region), the jitter
//      keyed by the scene's seed, the source's index and the substep's start
//      time (so a resumed run adds the same particles);
//   3. the faces inside every active source take its velocity, and the walls'
//      faces inside it carry the inflow (fluid::set_face_velocity).
// The particles inside an active source at the substep's start move with
// its velocity, x + dt v (carried_by_sources before stage 2, applied first in
// the stage), not through the grid, whose trilinear interpolation reads faces
// outside the source at its edges.
// A source or drain acts while from <= t < until, t the substep's start.
// The particle paths of stages 2 and 6 (sim/cutcell/particle_paths.hpp)
// follow the removed and the new particles.
//
// The books count particles: each one added or removed stands for the
// particle volume dx^3 / particles_per_cell, the volume every particle stands
// for at the seeded density, which the density correction keeps
// (fluid/density_correction.hpp). Why not liquid_volume measured before and
// after: that measure costs a pass over every particle and cell, twice a
// substep; the count is exact for what was seeded, and the difference to the
// measure is the liquid's own volume error (tests/sim/cutcell/test_flows.cpp
// compares the two).
#include <vector>

#include "lib/fluid/flows.hpp"
#include "lib/scene/scene.hpp"

namespace fsicut::sim {

class CutCellSimulator;
struct ParticlePaths;

struct LiquidFlows {
  // A source or drain: its shape's membership test and bounds, its velocity
  // [m/s] (sources) and the time it acts [s].
  struct Zone {
    fluid::Region inside;
    fluid::Bounds bounds;
    Vec3 velocity{0, 0, 0};
    Real from = 0, until = 0;
    bool active(Real t) const { return t >= from && t < until; }
  };
  std::vector<Zone> sources, drains;  // the scene's, in order
  Real added = 0;    // [m^3] since frame 0 (state: checkpoint section FLOW)
  Real removed = 0;  // [m^3] since frame 0, drains and open sides together

  // Whether the scene has any source, drain or open side.
  bool any(const fluid::OpenSides& open) const;
};

// The zones of a scene's fluid/sources and fluid/drains (obj shapes read and
// checked; errors name the shape's pointer).
LiquidFlows make_flows(const scene::Scene& scene);

// The particles inside active sources at the substep's start: index,
// position [m] and the source's velocity [m/s] (the first source that holds
// one carries it).
struct Carried {
  std::vector<Index> particles;
  Points start, velocity;  // 3 x #carried
};
Carried carried_by_sources(const CutCellSimulator& state);

// The stage (see the header): `carried` from before stage 2, `paths` from
// stage 2 (may be empty), dt the substep [s].
void exchange_liquid(CutCellSimulator& state, Real dt, const Carried& carried, ParticlePaths& paths);

}  // namespace fsicut::sim
