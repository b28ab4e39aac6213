#pragma once
// Checkpoints: the complete simulation state in one binary file, so a run
// stopped at any point (a signal, a preempted farm job, a crash, SIGKILL)
// continues with `fsicut --resume` and ends with output files bit-identical
// to an uninterrupted run.
//
// What a checkpoint holds
//   - the clock: simulated time [s], the last completed frame, and, when it was
//     written inside a frame (on a signal), the statistics of that frame so far;
//   - every solid's positions x and velocities v (3 x #nodes each); everything
//     else in solid::Body is the rest mesh and material, rebuilt from the scene,
//     or the element rotations, recomputed from x (solid::update_rotations);
//   - the liquid: marker particles, face velocities, the last pressure (the
//     warm start of the next solve), the liquid, obstacle and solid distance
//     fields, the face open fractions and the valid-face flags;
//   - the stats.jsonl text written so far;
//   - the format version, the fsicut version, and the resolved scene it was
//     run with (scene_fingerprint below) with its hash.
// There is no random-generator state: particle seeding is a hash of the seed
// and the particle's cell (fluid/particles.cpp), and nothing draws random
// numbers after the initial state.
//
// File format (FORMAT_VERSION 1), every number little-endian:
//   header   8 bytes  magic "FSICUTCK"
//            u32      format version
//            u32      number of sections
//            u64      payload size [bytes]
//            u64      FNV-1a 64-bit hash of the payload
//   payload  sections, each: 4-byte tag, u32 0 (reserved), u64 size, size bytes
//            "META"  fsicut version, scene hash, scene fingerprint (strings:
//                    u64 length + bytes)
//            "CLCK"  time (f64), frame (i32), mid-frame flag (u8), the frame's
//                    statistics so far (substeps, cfl_exceeded, solves, the
//                    worst solve, seconds per stage)
//            "STAT"  the stats.jsonl text
//            "SOLD"  u32 #solids; per solid: name, #nodes (u64), x, v (f64, 3 x #nodes,
//                    column-major)
//            "LIQD"  u8 present; then arrays: each u8 element kind (f64 or u8),
//                    3 x i32 dimensions, the elements (x fastest)
// A file whose size, section sizes or hash do not match is rejected as a
// whole: truncated or corrupted checkpoints are detected, never half-applied.
//
// Files are `checkpoint.NNNN.bin` in the output folder, NNNN the last
// completed frame; each is written atomically (io::write_atomically), after
// the frame's outputs are on disk, and only the newest `keep` are kept.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "lib/core/error.hpp"
#include "lib/sim/state.hpp"
#include "lib/sim/stats.hpp"

namespace fsicut::checkpoint {

inline constexpr std::uint32_t FORMAT_VERSION = 4;  // 3: Report::met_tolerance; 4: FrameStats::partitioned

// The frame loop's own state beside SimState.
struct Progress {
  std::string stats;         // stats.jsonl text so far (complete lines)
  bool mid_frame = false;    // true: state.time lies inside frame state.frame + 1
  sim::FrameStats partial;   // mid_frame: that frame's statistics so far
};

// A checkpoint file that cannot be used: truncated, corrupted, another format
// version, not a checkpoint. The message names the file and the reason.
class CorruptError : public Error {
 public:
  explicit CorruptError(const std::string& message) : Error(ExitCode::data, message) {}
};

// The resolved scene as canonical JSON (sorted keys, compact) without the keys
// that may change between a run and its resume: output/directory, time/frames
// (to extend a run), output/checkpoint_every and output/checkpoint_keep.
std::string scene_fingerprint(const scene::Scene& scene);

// FNV-1a 64-bit hash of `bytes`.
std::uint64_t fnv1a(const std::string& bytes);
std::uint64_t fnv1a(const char* data, std::size_t size);

// JSON pointers at which two scene fingerprints differ, each with its old and
// new value, e.g. "/solids/0/density: 500 -> 800"; empty when they agree.
std::vector<std::string> changed_keys(const std::string& old_fingerprint, const std::string& new_fingerprint);

// The checkpoint of `state` and `progress` as bytes, and back.
std::string encode(const sim::SimState& state, const Progress& progress);

// What a checkpoint says about itself, readable before restoring it.
struct Info {
  std::string fsicut_version;
  std::uint64_t scene_hash = 0;
  std::string scene;  // the fingerprint
  Real time = 0;      // [s]
  int frame = 0;      // last completed frame
  bool mid_frame = false;
};

// Checks the header, the sizes and the hash; throws CorruptError naming
// `file` otherwise.
Info inspect(const std::string& bytes, const std::string& file);

// Restores `bytes` (already inspected) into a state built from the same scene
// by sim::build_state: clock, solids (then their rotations), liquid.
// Throws SceneError when the checkpoint does not fit the state (another
// grid, other solids, another node count: the scene changed too much for
// --force) and CorruptError on malformed content.
void restore(const std::string& bytes, const std::string& file, sim::SimState& state, Progress& progress);

// `folder`/checkpoint.NNNN.bin.
std::filesystem::path file_name(const std::filesystem::path& folder, int frame);

// Writes the checkpoint of `state` as file_name(folder, state.frame),
// atomically, then deletes all but the `keep` newest checkpoints.
// Throws OutputError (73/74) like every output.
std::filesystem::path write(const std::filesystem::path& folder, const sim::SimState& state,
                            const Progress& progress, int keep);

// Checkpoint files in `folder`, newest (highest frame number) first.
std::vector<std::filesystem::path> list(const std::filesystem::path& folder);

// The whole file; throws CorruptError when it cannot be read.
std::string read_bytes(const std::filesystem::path& file);

// Deletes every checkpoint in `folder` (a fresh run: they belong to the run
// whose outputs it overwrites, and a later --resume must not pick them).
void remove_all(const std::filesystem::path& folder);

struct Resumed {
  std::filesystem::path file;        // the checkpoint restored
  Info info;
  std::vector<std::string> changed;  // scene keys that changed (only with force)
};

// Restores the newest usable checkpoint of `folder` into `state` (built by
// sim::build_state from the scene to continue with) and `progress`.
// Unreadable, truncated or corrupted checkpoints are skipped with a warning
// (the next older one is tried) and deleted once an older one is restored.
// When the scene's fingerprint differs from the checkpoint's: without `force`
// throws Error(data = 65) listing the changed keys; with `force` warns and
// continues. A checkpoint from another fsicut version is used with a warning.
// Returns nothing when no usable checkpoint exists (the state is untouched).
std::optional<Resumed> resume(const std::filesystem::path& folder, sim::SimState& state, Progress& progress,
                              bool force);

}  // namespace fsicut::checkpoint
