#pragma once
// Checkpoints of a simulation: a SimState and the frame loop's progress as a
// plain checkpoint::Snapshot and back, and writing and resuming them in an
// output folder.
//
// What a checkpoint holds: the clock (simulated time, the last completed
// frame, and, when written inside a frame on a signal, that frame's
// statistics so far); every solid's positions and velocities; each reduced
// body's frame, modal coordinates and their rates; the liquid (marker
// particles, face velocities, the last pressure, which warm-starts the next
// solve, the liquid, obstacle and solid distance fields, the face open
// fractions and valid-face flags); the moving solids' surfaces as the last
// stage 4 saw them; the stats.jsonl and probes.csv texts (and a partial
// frame's load sums and probe rows); the fsicut version and the scene
// fingerprint (scene/fingerprint.hpp). Everything else is rebuilt from the
// scene by build_state or recomputed (snapshot.cpp lists every member). There
// is no random-generator state: particle seeding is a hash of the seed and the
// particle's cell (fluid/particles.cpp), and nothing draws random numbers
// after the initial state. So a run stopped at any point and resumed ends
// with output files bit-identical to an uninterrupted run.
#include <filesystem>
#include <optional>
#include <string>

#include "lib/checkpoint/resume.hpp"
#include "lib/checkpoint/snapshot.hpp"
#include "lib/sim/state.hpp"
#include "lib/sim/stats.hpp"

namespace fsicut::sim {

// The frame loop's own state beside SimState.
struct RunProgress {
  std::string stats;        // stats.jsonl text so far (complete lines)
  std::string probes;       // probes.csv text so far (header and complete rows; empty: no probes)
  bool mid_frame = false;   // true: state.time lies inside frame state.frame + 1
  FrameStats partial;       // mid_frame: that frame's statistics so far
};

// The checkpoint content of `state` and `progress`.
checkpoint::Snapshot to_snapshot(const SimState& state, const RunProgress& progress);

// Restores `snapshot` (read from `file`, which messages name) into a state
// built from the same scene by build_state: clock, solids (then their
// rotations, recomputed from x), reduced bodies, liquid, then stage 4's solid
// fields on the stored surfaces. Throws Error(data = 65) "... does not fit
// this scene: ..." when the snapshot does not fit the state (another grid,
// other solids, another node or mode count: the scene changed too much for
// --force).
void restore_snapshot(const checkpoint::Snapshot& snapshot, const std::string& file, SimState& state,
                      RunProgress& progress);

// Writes the checkpoint of `state` and `progress` into `folder` as
// checkpoint.NNNN.bin (NNNN = state.frame), keeping the `keep` newest
// (checkpoint/files.hpp). Throws OutputError (73/74) like every output.
std::filesystem::path write_checkpoint(const std::filesystem::path& folder, const SimState& state,
                                       const RunProgress& progress, int keep);

// Restores the newest usable checkpoint of `folder` into `state` (built by
// build_state from the scene to continue with) and `progress`.
// Unreadable, truncated or corrupted checkpoints are skipped with a warning
// (the next older one is tried) and deleted once an older one is restored.
// When the scene's fingerprint differs from the checkpoint's: without `force`
// throws Error(data = 65) listing the changed keys; with `force` warns and
// continues. A checkpoint from another fsicut version is used with a warning.
// Returns nothing when no usable checkpoint exists (the state is untouched).
std::optional<checkpoint::Resumed> resume_checkpoint(const std::filesystem::path& folder, SimState& state,
                                                     RunProgress& progress, bool force);

}  // namespace fsicut::sim
