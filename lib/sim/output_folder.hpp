#pragma once
// The output folder a run writes into (sim/run.hpp lists its files): the
// manifest of the frame files written, what a fresh run clears and a resumed
// run checks before anything is written, and the temporaries a killed run
// left behind.
#include <filesystem>
#include <map>
#include <string>

#include "lib/io/atomic.hpp"
#include "lib/sim/frame_output.hpp"
#include "lib/sim/simulator.hpp"

namespace fsicut::sim {

// manifest.tsv: one line per frame file fsicut wrote into the folder, "name
// TAB size TAB fnv1a (16 hex digits)", sorted by name, rewritten atomically
// after every frame's outputs. --resume checks the files it keeps against it.
inline constexpr const char* MANIFEST_FILE = "manifest.tsv";
// The probes' samples, one row per substep (sim/cutcell/probes.hpp),
// rewritten whole after every frame like stats.jsonl.
inline constexpr const char* PROBES_FILE = "probes.csv";

using Manifest = std::map<std::string, io::FileDigest>;

// The manifest of `dir` (empty when there is none; a damaged line loses its
// entry, and its frame counts as unverified), and writing it.
Manifest read_manifest(const std::filesystem::path& dir);
void write_manifest(const std::filesystem::path& dir, const Manifest& manifest);

// Whether every output file of `out` is on disk with the size and checksum
// the manifest recorded when it was written. A file the manifest does not
// know (an older fsicut wrote it, or the manifest was lost) does not count:
// rewriting a frame is cheap, keeping a damaged one costs a render.
bool frame_verified(const FrameOutput& out, const std::filesystem::path& dir, const Manifest& manifest);

// Before anything is written, then run.json. A fresh run deletes the frame
// files of an earlier run in the folder (`liquid.NNNN.vdb`, the numbered
// files this scene's frames write, whatever the earlier manifest lists) and
// the manifest and probes.csv. A resumed run checks every frame up to sim's
// (the checkpoint's) against `manifest` by size and checksum: one that is
// missing or differs is Error(data = 65) naming it (it cannot be rewritten
// without simulating it again); one the manifest does not list is kept with a
// warning. `frame_pending`: the checkpoint's own frame was being written when
// the run stopped (RunProgress::pending) and is written again, not checked.
void prepare_folder(const Simulator& sim, const std::filesystem::path& dir, const Manifest& manifest, bool resumed,
                    bool frame_pending = false);

// Deletes the temporaries (io/atomic.hpp: `.<name>.tmp-<pid>-<n>`) a killed
// run left in `dir`: SIGKILL or a power cut between creating one and renaming
// it leaves it behind, and nothing else would ever remove it. Only those of
// processes that no longer exist: a live writer's temporary is not stale.
void remove_stale_temporaries(const std::filesystem::path& dir);

}  // namespace fsicut::sim
