#pragma once
// Checkpoints of a simulation: a Simulator and the frame loop's progress as
// a checkpoint::Snapshot (sections of bytes) and back, and writing and
// resuming them in an output folder. This file writes and reads the driver's
// sections (CLCK, STAT, MEAS: checkpoint/format.hpp); each simulator's
// save/restore its own, through the codecs of lib/checkpoint.
//
// What a checkpoint holds: the clock (simulated time, the last completed
// frame, and, when written inside a frame on a signal, that frame's
// statistics so far); the stats.jsonl and probes.csv texts (and a partial
// frame's load sums and probe rows); the fsicut version and the scene
// fingerprint (scene/fingerprint.hpp); and the simulator's state
// (Simulator::save: sim/cutcell/snapshot.cpp and sim/eulerian/snapshot.cpp
// list what each stores and what it rebuilds from the scene). There is no
// random-generator state: particle seeding is a hash of the seed and the
// particle's cell (fluid/particles.cpp), and nothing draws random numbers
// after the initial state. So a run stopped at any point and resumed ends
// with output files bit-identical to an uninterrupted run.
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "lib/checkpoint/resume.hpp"
#include "lib/checkpoint/snapshot.hpp"
#include "lib/sim/simulator.hpp"
#include "lib/sim/stats.hpp"

namespace fsicut::sim {

// The frame loop's own state beside the simulator's.
struct RunProgress {
  std::string stats;        // stats.jsonl text so far (complete lines)
  std::string probes;       // probes.csv text so far (header and complete rows; empty: no probes)
  bool mid_frame = false;   // true: sim.time lies inside frame sim.frame + 1
  FrameStats partial;       // mid_frame: that frame's statistics so far
  // Frame sim.frame's files were being written when a stop came and were
  // given up (sim/run.cpp): a resumed run writes them first, from the
  // restored state, then this stats line (its record, and its stage seconds
  // but the output's) and probe rows. Not with mid_frame.
  struct Pending {
    std::string record;                     // the frame's stats record, JSON
    std::map<std::string, double> seconds;  // its seconds but "output" [s]
    std::string probe_rows;                 // its rows of probes.csv
  };
  std::optional<Pending> pending;
};

// A checkpoint taken but not yet written: the simulator's sections
// (Simulator::save, as bytes) with the fsicut version and the scene
// fingerprint, the clock, and the run's progress then. The frame loop keeps
// one of the state at a substep's start (to roll back to) and one per frame
// it hands to its writer; their progress's stats and probes texts are those
// of the frames on disk by the time they are written, so they are set then.
struct Checkpoint {
  checkpoint::Snapshot state;
  Real time = 0;  // [s]
  int frame = 0;  // last completed frame
  RunProgress progress;
};

// The checkpoint of `sim` and `progress` now.
Checkpoint take_checkpoint(const Simulator& sim, RunProgress progress);

// Its content as a file holds it: the state's sections and the driver's.
checkpoint::Snapshot to_snapshot(const Checkpoint& taken);
// take_checkpoint and to_snapshot at once.
checkpoint::Snapshot to_snapshot(const Simulator& sim, const RunProgress& progress);

// Restores `snapshot` (read from `file`, which messages name) into a
// simulator built from the same scene (Simulator::restore), and the clock and
// `progress`. Throws Error(data = 65) "<file> (section ...): does not fit this
// scene: ..." when the snapshot does not fit it (another grid, other solids,
// another node or mode count: the scene changed too much for --force), and
// CorruptError naming the section on malformed content.
void restore_snapshot(const checkpoint::Snapshot& snapshot, const std::string& file, Simulator& sim,
                      RunProgress& progress);

// Writes `taken` (or the checkpoint of `sim` and `progress`) into `folder` as
// checkpoint.NNNN.bin (NNNN = its frame), keeping the `keep` newest
// (checkpoint/files.hpp). Throws OutputError (73/74) like every output.
std::filesystem::path write_checkpoint(const std::filesystem::path& folder, const Checkpoint& taken, int keep);
std::filesystem::path write_checkpoint(const std::filesystem::path& folder, const Simulator& sim,
                                       const RunProgress& progress, int keep);

// Restores the newest usable checkpoint of `folder` into `sim` (built from
// the scene to continue with) and `progress`.
// Unreadable, truncated or corrupted checkpoints are skipped with a warning
// (the next older one is tried) and deleted once an older one is restored.
// When the scene's fingerprint differs from the checkpoint's: without `force`
// throws Error(data = 65) listing the changed keys; with `force` warns and
// continues. A checkpoint from another fsicut version is used with a warning.
// Returns nothing when no usable checkpoint exists (`sim` is untouched).
std::optional<checkpoint::Resumed> resume_checkpoint(const std::filesystem::path& folder, Simulator& sim,
                                                     RunProgress& progress, bool force);

}  // namespace fsicut::sim
