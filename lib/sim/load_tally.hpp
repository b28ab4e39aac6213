#pragma once
// The liquid's loads as the driver carries them: one substep's force [N] and
// torque [N m] on each solid and each obstacle (StepReport::loads), and a
// frame's sums of them (FrameStats::loads), which stats.jsonl reports as means
// over the frame (the impulse over the frame divided by its duration). How the
// cut-cell simulator measures them: sim/cutcell/loads.hpp.
#include <vector>

#include "lib/core/types.hpp"

namespace fsicut::sim {

struct Load {
  Vec3 force{0, 0, 0};   // [N]
  Vec3 torque{0, 0, 0};  // [N m]
};

// One substep's loads: one per solid (scene order), one per obstacle.
struct FluidLoads {
  std::vector<Load> solids;
  std::vector<Load> obstacles;
};

// A frame's loads so far: sums of dt * load over its substeps.
struct LoadTally {
  Real seconds = 0;  // sum of dt [s]
  std::vector<Load> solids, obstacles;
  void add(const FluidLoads& loads, Real dt);
  // The mean over the substeps so far (zeros before the first), sized
  // `solids` and `obstacles`.
  FluidLoads mean(std::size_t solids, std::size_t obstacles) const;
};

}  // namespace fsicut::sim
