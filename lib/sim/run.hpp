#pragma once
// The frame loop: CFL substeps inside each frame (sim::advance_to), outputs at frame ends.
//
// Output folder layout (docs/outputs.md "Files"), every file written atomically:
//   run.json              fsicut and library versions, thread count, the resolved scene
//   liquid.NNNN.vdb       liquid level set (scenes with liquid, output.liquid)
//   <solid>.NNNN.obj      each solid's deformed boundary surface (output.solids)
//   stats.jsonl           one JSON object per frame (see stats.hpp)
//   probes.csv            scenes with probes: one row per substep (sim/cutcell/probes.hpp),
//                         rewritten whole after each frame like stats.jsonl; a
//                         resumed run continues it from the checkpoint's rows
//   checkpoint.NNNN.bin   the state after frame NNNN (lib/checkpoint), every
//                         output.checkpoint_every frames and at the last frame,
//                         the newest output.checkpoint_keep kept
//   manifest.tsv          "name TAB size TAB fnv1a-hex" of every frame file
//                         written, rewritten after each frame
//   fsicut.lock           io::FolderLock: one run per folder (exit 73 otherwise)
// Frame 0 is the initial state; frames 1..time.frames follow.
//
// A fresh run (no RunControl::resumed) first deletes the frame files of an
// earlier run in the folder; a resumed run checks the frames up to the
// checkpoint (sim/output_folder.hpp) and keeps the frames after it whose files
// match the manifest, rewriting the others.
//
// Stopping and resuming: when RunControl::stop becomes non-zero (a signal
// handler sets it), the run abandons a long substep (RunControl::abandonable_seconds)
// or finishes a short one (abandoning it after RunControl::stop_grace_seconds),
// writes a checkpoint of that state (mid-frame if need be: the state is
// consistent after every substep) and throws Error(temp_fail = 75). A frame
// still being written 1 s later is not waited for: its writing is given up and
// the checkpoint is the state at that frame's end (the state now, or the one
// kept at the next frame's start), marked so that the resumed run writes that
// frame first (RunProgress::pending); so a stop never waits for a heavy
// output, at the price of the substeps since that frame's end. A resumed run
// (RunControl::resumed, from resume_checkpoint in snapshot.hpp) continues from the restored
// state exactly as the uninterrupted run would have: same substeps, same
// output bytes. Every run first deletes the temporaries a killed run left in
// the folder (hidden `.<name>.tmp-<pid>-<n>` files of processes that are gone).
#include <csignal>
#include <functional>

#include "lib/core/cancel.hpp"
#include "lib/sim/advance.hpp"
#include "lib/sim/simulator.hpp"
#include "lib/sim/snapshot.hpp"

namespace fsicut::sim {

struct FrameReport {
  int frame = 0;         // the frame just written
  int frames = 0;        // the last frame of the run
  Real time = 0;         // simulated time at the frame [s]
  int substeps = 0;      // substeps this frame took
  double seconds = 0;    // wall time of this frame: its substeps, and waiting for the previous frame's files [s]
};

using FrameCallback = std::function<void(const FrameReport&)>;

struct RunControl {
  // Polled after every substep and every frame; non-zero (the signal number,
  // for the message) stops the run as described above.
  const volatile std::sig_atomic_t* stop = nullptr;
  // The loop state of a resumed run; nullptr starts at frame 0 (and deletes
  // checkpoints of an earlier run in the folder).
  const RunProgress* resumed = nullptr;
  // Resumed runs simulate the frames past the checkpoint again but do not
  // rewrite the ones whose output files all exist (they are the same bytes);
  // true rewrites them (after --force, they came from another scene).
  bool rewrite_existing = false;
  // Every substep can be abandoned: the solvers poll `stop` between
  // iterations and every 50 ms during a factorization (core/cancel.hpp), and a
  // stop request there writes a checkpoint kept in memory and throws
  // Error(temp_fail = 75); the state is then left inside the abandoned
  // substep: continue from the checkpoint. Which checkpoint: a substep
  // expected to take longer than abandonable_seconds [s] (sim/cost.hpp's
  // estimate or the last substep's wall time, whichever is larger), and the
  // run's first substep (nothing measured yet), keep the state at their start
  // and are abandoned at the next poll. A shorter one is given
  // stop_grace_seconds to finish (its work is kept, the checkpoint is written
  // at its end); past that, it too is abandoned, back to the frame's start
  // (or the last long substep's), whose state is kept from its first
  // substep on. So no estimate, however wrong, holds a stop for longer than
  // the grace period plus the next poll and the checkpoint's writing.
  // Keeping a copy costs about what writing a checkpoint costs without the
  // disk, once a frame for short substeps (1-4 % of a substep of the shipped
  // scenes, so not each), and holds its memory until the frame ends. Tests set
  // 0 to roll every substep back to its own start.
  double abandonable_seconds = 1;
  double stop_grace_seconds = 2;
  // Sees each substep's coupled system before it is solved (tests).
  SystemObserver observe;
  // Called on the writer's thread as a frame's files begin, with the frame
  // and the request that gives them up on a stop (tests).
  std::function<void(int, const AbandonRequest&)> writing;
  // Inverted tetrahedra (det F <= 0) stop the run with a SimulationError
  // (exit 70) instead of a warning (fsicut: --strict or the scene's /strict).
  bool strict = false;
};

// Runs sim.scene.time.frames frames into sim.scene.output.directory,
// calling `on_frame` once each frame is on disk (frame 0 included, except
// when resuming), from the calling thread: a frame's files are written on a
// thread of their own while the next frame steps (at most one frame in
// flight), and the frame is reported after the first substep that finds them
// written, or when the next frame waits for them.
// Substeps: sim::advance_to from one frame end to the next (the CFL rule and
// the budget are in advance.hpp); a frame never takes more than
// time.max_substeps substeps (past that dt grows beyond the CFL limit, and the
// frame's stats count it under "cfl_exceeded").
// Sanity: after each frame, a solid with inverted tetrahedra gets a warning
// naming it and the frame (once per solid; RunControl::strict makes it an
// error), and the liquid volume drifting more than 10 % from frame 0 gets one.
// Absurd results (absurd.hpp) are a SimulationError after that frame is
// written, unless the scene's on_absurd is "warn" (a warning once per kind).
// Throws OutputError (73/74) when the folder or a file cannot be written,
// Error(data = 65) when a resumed run finds a damaged earlier frame (above),
// SimulationError (70) when the simulation fails, Error(temp_fail = 75) when
// stopped (the message names the checkpoint).
void run(Simulator& sim, const FrameCallback& on_frame = {}, const RunControl& control = {});

}  // namespace fsicut::sim
