#pragma once
// The frame loop: CFL substeps inside each frame, outputs at frame ends.
//
// Output folder layout (DESIGN.md section 4), every file written atomically:
//   run.json              fsicut and library versions, thread count, the resolved scene
//   liquid.NNNN.vdb       liquid level set (scenes with liquid, output.liquid)
//   <solid>.NNNN.obj      each solid's deformed boundary surface (output.solids)
//   stats.jsonl           one JSON object per frame (see stats.hpp)
// Frame 0 is the initial state; frames 1..time.frames follow.
#include <functional>

#include "lib/sim/state.hpp"

namespace fsicut::sim {

struct FrameReport {
  int frame = 0;         // the frame just written
  int frames = 0;        // the last frame of the run
  Real time = 0;         // simulated time at the frame [s]
  int substeps = 0;      // substeps this frame took
  double seconds = 0;    // wall time of this frame, output included [s]
};

// The next substep's length [s] with `remaining` [s] left in the frame and at
// most `substeps_left` substeps to cover it: the CFL limit, stretched so the
// frame never needs more than max_substeps (then cfl_exceeded is set).
struct Substep {
  Real dt = 0;
  bool cfl_exceeded = false;
};
Substep choose_substep(const SimState& state, Real remaining, int substeps_left);

using FrameCallback = std::function<void(const FrameReport&)>;

// Runs state.scene.time.frames frames into state.scene.output.directory,
// calling `on_frame` after each frame is on disk (frame 0 included).
// Substeps: dt = min(remaining, cfl * dx / (max speed + sqrt(dx |g|))); a frame
// never takes more than time.max_substeps substeps (past that dt grows beyond
// the CFL limit, and the frame's stats count it under "cfl_exceeded").
// Throws OutputError (73/74) when the folder or a file cannot be written,
// SimulationError (70) when the simulation fails.
void run(SimState& state, const FrameCallback& on_frame = {});

}  // namespace fsicut::sim
